/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <perf/event.h>

#include "prof/analyze/attribution.h"
#include "prof/analyze/jitmap.h"
#include "prof/analyze/analysis.h"
#include "prof/analyze/model.h"
#include "prof/analyze/model_reaper.h"
#include "prof/analyze/profile.h"
#include "prof/analyze/resolver.h"
#include "prof/analyze/symbols.h"
#include "prof/base/hash.h"
#include "prof/base/hashtable.h"
#include "prof/base/strset.h"
#include "prof/base/util.h"
#include "prof/base/vec.h"
#include "prof/daemon/sampler.h"
#include "prof/perfdata/build_id.h"
#include "prof/python/python.h"
#include "prof/offcpu/offcpu.h"
#include "prof/offcpu/offcpu_events.h"
#include "prof/sys/privs.h"

/* Exited tasks are forgotten this long after their EXIT (their teardown samples first). */
#define FORGET_AFTER_NS (3ull * 1000 * 1000 * 1000)
/* A span is closed once realtime is this far past its end (records are judged 50 ms
 * to SAMPLER_POLL_MS + 50 ms after they are stamped, and a round takes a while). */
#define CLOSE_SLACK_NS (250ull * 1000 * 1000)
/* After a stall longer than this many spans, the empty ones are not made one by one. */
#define MAX_CATCH_UP 30

/*
 * Off-CPU samples share the engine with on-CPU ones, told apart by the task's holder
 * (a key of the engine): 0 on-CPU, an offcpu-runq sample's holder (never 0), or this
 * for offcpu-blocked (no holder of offcpu.h's is 15).  intern_task turns it into the
 * dictionary's DICT_TASK_RUNQ / _BLOCKED.
 */
#define HOLDER_BLOCKED 15u

/* What an object of the model is, by its interned name: described once. */
struct obj_info {
	const char *name;
	struct dict_obj o;              /* all but the path */
};

struct sampler {
	struct sampler_config c;
	const struct sample_layout *layout;
	struct analysis an;
	struct strset names;
	struct profile *prof;
	struct attribution attr;
	struct attribution attr_off;    /* off-CPU samples': the ip only, unless off_cpu_stacks */
	struct model_reaper reaper;
	struct hashtable objs;          /* of struct obj_info, by name pointer */
	uint32_t objs_scanned;          /* model objects looked at so far */
	uint32_t *frame_ids;            /* engine frame -> dict frame, for one close */
	size_t cap_frame_ids;
	struct bucket_entry *entries;   /* for one close */
	size_t cap_entries;
	uint64_t rt_off;                /* realtime - monotonic, ns */
	uint64_t live_start, live_end;  /* the open fine span, realtime */
	uint32_t live_flags;
	uint64_t live_lost;
	uint64_t unattributed_seen;     /* the session's count at the last close */
	uint64_t last_mono;
	struct sampler_stats st;
	/* off_cpu_window: the windows (monotonic) not yet behind every closed span */
	bool windowed, in_window;
	uint64_t window_from;
	struct { uint64_t from, to; } windows[8];
	size_t nr_windows;
	uint64_t coarse_told;            /* st.coarse as the last tick returned it */
};

uint64_t sampler__realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static bool obj_eq(const void *e, const void *key, const void *ctx)
{
	return ((const struct obj_info *)e)->name == key;
}

static bool uid_of(void *ctx, int32_t tid, uint32_t *ret)
{
	const struct sampler *s = ctx;

	return s->c.uid_of(s->c.uid_ctx, tid, ret);
}

static void open_span(struct sampler *s, uint64_t rt)
{
	uint64_t fine = history__config(s->c.history)->fine_ns;

	s->live_start = rt - rt % fine;
	s->live_end = s->live_start + fine;
}

int sampler__new(const struct sampler_config *c, struct sampler **ret)
{
	struct sampler *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->c = *c;
	s->prof = profile__new(c->max_stacks);
	hashtable__init(&s->objs, sizeof(struct obj_info), obj_eq, NULL);
	if (analysis__init(&s->an, &s->names) < 0 || !s->prof || model_reaper__init(&s->reaper, FORGET_AFTER_NS) < 0) {
		sampler__free(s);
		return -ENOMEM;
	}
	s->an.res.kernel_here = c->kernel;
	/* a process of weeks: symbol tables bounded, no object file kept mapped */
	symbols__set_lean(s->an.syms, c->symbols_max);
	/* the tasks' [vdso] is this kernel's: named from profd's own (none: [unknown]) */
	(void)symbols__expect_own_vdso(s->an.syms);
	if (c->debuginfod)
		symbols__set_worker(s->an.syms, c->debuginfod);
	/* frames keep their objects' addresses, for the exports (pprof): a named one its
	 * function's, so that history keeps one frame per function */
	s->an.res.addrs = true;
	s->an.res.fn_addrs = true;
	s->an.res.object_name = c->object_name;
	s->an.res.object_ctx = c->object_ctx;
	/* no file's name, so no file's rules (view.c): the process's own names */
	s->an.res.object_dso = PYTHON_OBJECT_LIVE;
	s->attr = (struct attribution){ .res = &s->an.res, .prof = s->prof, .callchain = c->callchain,
					.uid_of = uid_of, .uid_ctx = s };
	/* the keys of history: no pid, so a fork storm does not multiply them */
	s->attr.keep[PROFILE_KEY_UID] = s->attr.keep[PROFILE_KEY_CGROUP] = s->attr.keep[PROFILE_KEY_COMM] = true;
	s->attr.keep[PROFILE_KEY_HOLDER] = true;        /* on, runq (by holder), blocked */
	s->attr_off = s->attr;
	s->attr_off.callchain = c->callchain && c->off_cpu_stacks;
	s->last_mono = clock_mono_ns();
	s->rt_off = sampler__realtime_ns() - s->last_mono;
	open_span(s, s->last_mono + s->rt_off);
	s->live_flags = BUCKET_AFTER_GAP;       /* nothing was sampled before the start */
	*ret = s;
	return 0;
}

struct sampler *sampler__free(struct sampler *s)
{
	if (!s)
		return NULL;
	profile__free(s->prof);
	analysis__release(&s->an);
	strset__release(&s->names);
	model_reaper__release(&s->reaper);
	hashtable__release(&s->objs);
	free(s->frame_ids);
	free(s->entries);
	free(s);
	return NULL;
}

void sampler__set_layout(struct sampler *s, const struct sample_layout *l)
{
	s->layout = l;
}

void sampler__load_kernel(struct sampler *s)
{
	if (s->c.kernel)
		resolver__load_kernel(&s->an.res);
}

/* ---- objects ------------------------------------------------------------------------ */

/* Mode, owner and build id of a mapped file, read as the daemon's user may. */
static void describe_file(const struct model_dso *d, struct dict_obj *o)
{
	struct build_id bid = { .size = 0 };
	struct stat st;
	int fd;

	if (d->build_id_len) {
		o->build_id_len = MIN(d->build_id_len, (uint8_t)sizeof(o->build_id));
		memcpy(o->build_id, d->build_id, o->build_id_len);
	}
	if (!d->has_inode)
		return;
	fd = privs__open_mapped(d->name, d->maj, d->min, d->ino);
	if (fd < 0)
		return;         /* gone or replaced since: nobody but admins gets its names */
	if (fstat(fd, &st) == 0) {
		o->has_stat = 1;
		o->mode = st.st_mode & 07777;
		o->uid = st.st_uid;
		o->gid = st.st_gid;
	}
	if (!o->build_id_len && build_id__read_elf(fd, &bid) == 0) {
		o->build_id_len = bid.size;
		memcpy(o->build_id, bid.data, bid.size);
	}
	close(fd);
}

static int add_obj(struct sampler *s, const char *name, const struct model_dso *d)
{
	bool created;
	struct obj_info *i = hashtable__insert(&s->objs, hash__u64((uintptr_t)name), name, &created);

	if (!i)
		return -ENOMEM;
	if (!created)
		return 0;       /* the first object of a name (the model's order) describes it */
	i->name = name;
	i->o = (struct dict_obj){ .kind = DICT_OBJ_OTHER };
	if (d && d->kernel)
		i->o.kind = DICT_OBJ_KERNEL;
	else if (d && name[0] == '/') {
		i->o.kind = DICT_OBJ_FILE;
		describe_file(d, &i->o);
		s->st.objects++;
	}
	return 0;
}

/* The object a frame's dso name stands for, described the first time it is met. */
static const struct obj_info *obj_of(struct sampler *s, const char *name)
{
	const struct obj_info *i = hashtable__find(&s->objs, hash__u64((uintptr_t)name), name);
	const struct model_dso *d;

	if (i)
		return i;
	for (; (d = model__dso(s->an.model, s->objs_scanned)); s->objs_scanned++)
		if (add_obj(s, d->name, d) < 0)
			return NULL;
	i = hashtable__find(&s->objs, hash__u64((uintptr_t)name), name);
	if (!i && add_obj(s, name, NULL) == 0)  /* [unknown], [cut]: no object of the model */
		i = hashtable__find(&s->objs, hash__u64((uintptr_t)name), name);
	return i;
}

/* ---- into history --------------------------------------------------------------------- */

static int64_t intern_text(struct dict *d, const char *s)
{
	return dict__str(d, s, strlen(s));
}

static int64_t intern_frame(struct sampler *s, struct dict *d, const struct profile_frame *f)
{
	const struct obj_info *i = obj_of(s, f->dso);
	struct dict_obj o;
	int64_t path, obj, sym;

	if (!i)
		return -ENOMEM;
	o = i->o;
	path = intern_text(d, f->dso);
	if (path < 0)
		return path;
	o.path = (uint32_t)path;
	obj = dict__obj(d, &o);
	sym = obj < 0 ? obj : intern_text(d, f->sym);
	if (sym < 0)
		return sym;
	return dict__frame(d, &(struct dict_frame){ .obj = (uint32_t)obj, .sym = (uint32_t)sym,
						    .flags = (f->kernel ? DICT_FRAME_KERNEL : 0) |
							     (f->inlined ? DICT_FRAME_INLINED : 0) |
							     (f->has_addr ? DICT_FRAME_HAS_ADDR : 0),
						    .addr = f->has_addr ? f->addr : 0 });
}

/*
 * A holder of the session's table (OFFCPU_HOLDER_TASK + n, root's: profd's) into
 * history's: by uid (as tenants' answers need it), and its cgroup beside (only root's
 * and the admins' answers keep it, view.c).  Not in the table: a uid as it is.
 */
static int64_t holder_of(struct sampler *s, struct dict *d, struct dict_task *dt)
{
	const struct offcpu_holder_info *h;
	int64_t v;

	if (dt->holder < OFFCPU_HOLDER_TASK || !s->c.holder_info || !(h = s->c.holder_info(s->c.holder_ctx, dt->holder)))
		return 0;
	dt->holder = h->uid_known && h->uid < OFFCPU_HOLDER_TASK - OFFCPU_HOLDER_UID ? OFFCPU_HOLDER_UID + h->uid
										 : OFFCPU_HOLDER_UNKNOWN;
	if (!h->cgroup || !h->cgroup_path)
		return 0;
	if ((v = intern_text(d, h->cgroup_path)) < 0)
		return v;
	dt->holder_cgroup_id = h->cgroup;
	dt->holder_cgroup = (uint32_t)v;
	return 0;
}

static int64_t intern_task(struct sampler *s, struct dict *d, const struct profile_task *t)
{
	const char *cg = t->cgroup ? model__cgroup(s->an.model, t->cgroup) : NULL;
	struct dict_task dt = { .uid = t->uid, .flags = t->uid_known ? DICT_TASK_UID_KNOWN : 0,
				.cgroup_id = t->cgroup, .cgroup = DICT_NONE };
	int64_t v;

	if (t->holder == HOLDER_BLOCKED) {
		dt.flags |= DICT_TASK_BLOCKED;
	} else if (t->holder) {
		dt.flags |= DICT_TASK_RUNQ;
		dt.holder = t->holder;
		if ((v = holder_of(s, d, &dt)) < 0)
			return v;
	}

	if (cg && (v = intern_text(d, cg)) < 0)
		return v;
	dt.cgroup = cg ? (uint32_t)v : DICT_NONE;
	/* containers are told from cgroups and namespaces later: "" is the host */
	if ((v = intern_text(d, "")) < 0)
		return v;
	dt.container = (uint32_t)v;
	if ((v = intern_text(d, t->comm ? t->comm : RESOLVE_UNKNOWN)) < 0)
		return v;
	dt.comm = (uint32_t)v;
	return dict__task(d, &dt);
}

/* The engine's entries as history's, interned (under the writer's lock). */
static int intern_entries(struct sampler *s, struct dict *d, size_t *ret_nr)
{
	size_t nr, nf, nstack;
	const struct profile_entry *e = profile__entries(s->prof, &nr);
	const struct profile_frame *f = profile__frames(s->prof, &nf);

	if (VEC_RESERVE(s->frame_ids, s->cap_frame_ids, nf + 1) < 0 ||
	    VEC_RESERVE(s->entries, s->cap_entries, nr + 1) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < nf; i++) {
		int64_t id = intern_frame(s, d, &f[i]);

		if (id < 0)
			return (int)id;
		s->frame_ids[i] = (uint32_t)id;
	}
	for (size_t i = 0; i < nr; i++) {
		const uint32_t *ids = profile__stack(s->prof, e[i].stack, &nstack);
		uint32_t mapped[DICT_MAX_STACK];
		int64_t task = intern_task(s, d, &e[i].task), stack;

		nstack = MIN(nstack, (size_t)DICT_MAX_STACK);
		for (size_t j = 0; j < nstack; j++)
			mapped[j] = s->frame_ids[ids[j]];
		stack = task < 0 ? task : dict__stack(d, mapped, nstack);
		if (stack < 0)
			return (int)stack;
		s->entries[i] = (struct bucket_entry){ (uint32_t)task, (uint32_t)stack, e[i].samples, e[i].period };
	}
	*ret_nr = nr;
	return 0;
}

void sampler__offcpu_window(struct sampler *s, bool on, uint64_t mono)
{
	s->windowed = true;
	if (on && !s->in_window) {
		s->window_from = mono;
	} else if (!on && s->in_window) {
		if (s->nr_windows == ARRAY_SIZE(s->windows)) {
			/* (spans close every second, windows are seconds long: never here) */
			memmove(s->windows, s->windows + 1, sizeof(s->windows) - sizeof(s->windows[0]));
			s->nr_windows--;
		}
		s->windows[s->nr_windows].from = s->window_from;
		s->windows[s->nr_windows++].to = mono;
	}
	s->in_window = on;
}

static uint64_t overlap(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1)
{
	uint64_t lo = MAX(a0, b0), hi = MIN(a1, b1);

	return hi > lo ? hi - lo : 0;
}

/* The time of realtime span [start, end) inside off-CPU windows; those wholly before
 * end are forgotten (the next span starts there). */
static uint64_t window_ns(struct sampler *s, uint64_t start, uint64_t end)
{
	uint64_t ns = 0;
	size_t keep = 0;

	if (!s->windowed)
		return end - start;
	for (size_t i = 0; i < s->nr_windows; i++) {
		ns += overlap(start, end, s->windows[i].from + s->rt_off, s->windows[i].to + s->rt_off);
		if (s->windows[i].to + s->rt_off > end)
			s->windows[keep++] = s->windows[i];
	}
	s->nr_windows = keep;
	if (s->in_window)
		ns += overlap(start, end, s->window_from + s->rt_off, UINT64_MAX);
	return ns;
}

/* Close the open fine span at end: its bucket into history.  Coarse made (0, 1) or -ENOMEM. */
static int close_span(struct sampler *s, uint64_t end, uint32_t flags, uint64_t unattributed)
{
	const struct profile_stats *ps = profile__stats(s->prof);
	struct bucket_hdr h = { .start_ns = s->live_start, .end_ns = end, .flags = s->live_flags | flags,
				.c = { ps->samples, ps->period, ps->cut_samples, ps->cut_period, s->live_lost,
				       unattributed - s->unattributed_seen } };
	uint64_t t0, wait;
	struct bucket *b = NULL;
	size_t nr = 0, nf;
	const struct profile_frame *f = profile__frames(s->prof, &nf);
	int err;

	if (s->c.off_cpu) {
		h.flags |= BUCKET_OFFCPU;
		h.c.offcpu_window_ns = window_ns(s, s->live_start, end);
	}
	/* objects are described (files opened) before the lock, not under it */
	for (size_t i = 0; i < nf; i++)
		if (!obj_of(s, f[i].dso))
			return -ENOMEM;
	s->st.engine_bytes = ps->bytes;
	t0 = clock_mono_ns();
	history__lock(s->c.history);
	wait = clock_mono_ns() - t0;
	err = intern_entries(s, history__dict(s->c.history), &nr);
	if (!err)
		b = bucket__new(&h, s->entries, nr, history__dict(s->c.history));
	err = err ? err : b ? history__add_fine(s->c.history, b) : -ENOMEM;
	history__unlock(s->c.history);
	s->st.close_wait_max_ns = MAX(s->st.close_wait_max_ns, wait);
	profile__reset(s->prof);
	s->live_flags = 0;
	s->live_lost = 0;
	s->unattributed_seen = unattributed;
	s->st.closed++;
	if (err > 0)
		s->st.coarse += (uint64_t)err;
	return err;
}

/* Close every span that ended before rt (a sample's time, or now less the slack). */
static int close_before(struct sampler *s, uint64_t rt, uint64_t unattributed)
{
	uint64_t fine = history__config(s->c.history)->fine_ns;
	int made = 0, err;

	if (rt > s->live_end + MAX_CATCH_UP * fine) {
		/* a stall (a suspended host, a stopped daemon): one span up to now, then a gap */
		err = close_span(s, s->live_end, 0, unattributed);
		if (err < 0)
			return err;
		open_span(s, rt - fine);
		s->live_flags = BUCKET_AFTER_GAP;
		made += err;
	}
	while (rt >= s->live_end) {
		err = close_span(s, s->live_end, 0, unattributed);
		if (err < 0)
			return err;
		made += err;
		s->live_start = s->live_end;
		s->live_end += fine;
	}
	return made;
}

/* ---- the sink ------------------------------------------------------------------------- */

static int on_sample(struct sampler *s, const struct perf_event_header *ev)
{
	struct sample smp;
	uint64_t rt;
	int err;

	if (!s->layout || !sample_layout__sample(s->layout, ev, &smp)) {
		s->st.short_samples++;
		return 0;
	}
	rt = smp.time + s->rt_off;
	if (rt >= s->live_end) {
		err = close_before(s, rt, s->unattributed_seen);
		if (err < 0)
			return err;
	} else if (rt < s->live_start) {
		s->st.late++;
	}
	/* off-CPU intervals (offcpu.h): their kind into the holder key (HOLDER_BLOCKED);
	 * an offcpu-runq sample's holder is cpu_res.  Each is one interval with its own
	 * time, with a stack or (off_cpu_sample, the bound) without: never scaled */
	if (smp.id == OFFCPU_ID_BLOCKED) {
		smp.cpu_res = HOLDER_BLOCKED;
		s->st.blocked_ns += smp.period;
	} else if (smp.id == OFFCPU_ID_RUNQ) {
		smp.cpu_res = smp.cpu_res && smp.cpu_res != HOLDER_BLOCKED ? smp.cpu_res : OFFCPU_HOLDER_UNKNOWN;
		s->st.runq_ns += smp.period;
	} else {
		smp.cpu_res = 0;
		s->st.samples++;
		return attribution__add(&s->attr, &smp) < 0 ? -ENOMEM : 0;
	}
	return attribution__add(&s->attr_off, &smp) < 0 ? -ENOMEM : 0;
}

int sampler__sink(const void *rec, size_t len, void *ctx)
{
	const struct perf_event_header *ev = rec;
	struct sampler *s = ctx;

	switch (ev->type) {
	case PERF_RECORD_SAMPLE:
		return on_sample(s, ev);
	case PERF_RECORD_LOST:
		if (ev->size >= sizeof(struct perf_record_lost))
			s->live_lost += ((const struct perf_record_lost *)rec)->lost;
		return 0;
	case PERF_RECORD_LOST_SAMPLES:
		if (ev->size >= sizeof(struct perf_record_lost_samples))
			s->live_lost += ((const struct perf_record_lost_samples *)rec)->lost;
		return 0;
	case PERF_RECORD_FINISHED_ROUND:
		return 0;
	default:
		if (model_reaper__note(&s->reaper, ev) < 0)
			return -ENOMEM;
		return model__process(s->an.model, ev);
	}
}

int sampler__tick(struct sampler *s, uint64_t mono_now, uint64_t unattributed)
{
	uint64_t rt = sampler__realtime_ns();

	/* realtime may step (NTP): the offset is measured again at every turn */
	s->rt_off = rt - mono_now;
	s->last_mono = mono_now;
	uint64_t made;
	int err;

	model_reaper__reap(&s->reaper, s->an.model, mono_now > FORGET_AFTER_NS ? mono_now - CLOSE_SLACK_NS : 0);
	/* a debug file arrived: its object's samples are named from now on */
	if (symbols__refresh(s->an.syms))
		resolver__cache_flush(&s->an.res);
	err = rt > CLOSE_SLACK_NS ? close_before(s, rt - CLOSE_SLACK_NS, unattributed) : 0;
	if (err < 0)
		return err;
	/* spans are mostly closed by a later sample, in the sink: count those too */
	made = s->st.coarse - s->coarse_told;
	s->coarse_told = s->st.coarse;
	return (int)MIN(made, (uint64_t)INT32_MAX);
}

int sampler__finish(struct sampler *s, uint64_t mono_now, uint64_t unattributed)
{
	uint64_t rt = mono_now + s->rt_off;
	int made = close_span(s, MAX(rt, s->live_start), BUCKET_PARTIAL, unattributed), err;

	if (made < 0)
		return made;
	history__lock(s->c.history);
	err = history__close_coarse(s->c.history, BUCKET_PARTIAL);
	history__unlock(s->c.history);
	return err < 0 ? err : made + err;
}

void sampler__stats(const struct sampler *s, struct sampler_stats *ret)
{
	*ret = s->st;
	symbols__stats(s->an.syms, &ret->syms);
	symbols__debuginfod_stats(s->an.syms, &ret->dbgd);
}
