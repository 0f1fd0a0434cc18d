/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * prof report: read a perf.data file (prof's or perf's), rebuild the threads and
 * maps from its records in time order, symbolize, and break the samples down by
 * uid, cgroup, process, command, object and symbol.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <perf/event.h>

#include "prof/base/escape.h"
#include "prof/base/util.h"
#include "prof/cli/commands.h"
#include "prof/analyze/dwarf_stacks.h"
#include "prof/cli/daemon_report.h"
#include "prof/cli/preflight.h"
#include "prof/analyze/debuginfod.h"
#include "prof/cli/report.h"
#include "prof/output/folded.h"
#include "prof/output/pprof.h"
#include "prof/perfdata/build_id.h"
#include "prof/perfdata/build_id_cache.h"
#include "prof/perfdata/vdso.h"
#include "prof/offcpu/offcpu.h"
#include "prof/record/ordered_queue.h"
#include "prof/sys/memory.h"
#include "prof/sys/privs.h"

/* A file's report is exact unless memory truly runs out: its engines may hold this
 * share of what the process may still take (the rest is for the model, the symbols
 * and the outputs, which pprof's in particular are a few times the tables). */
#define BUDGET_SHARE 4

/* Kernel symbols come from this host's kallsyms, only if the file was recorded here,
 * by this kernel (prof's files name its build id). */
static bool kernel_here(struct report *r)
{
	const char *host = perf_reader__feature_string(r->reader, HEADER_HOSTNAME);
	const char *rel = perf_reader__feature_string(r->reader, HEADER_OSRELEASE);
	struct utsname u;

	if (uname(&u) < 0 || !host || !rel || strcmp(host, u.nodename) || strcmp(rel, u.release))
		return false;
	return resolver__kernel_is(r->section.kernel_build_id);
}

static bool cgroup_matches(const char *path, const char *want)
{
	size_t l = strlen(want);

	while (l > 1 && want[l - 1] == '/')
		l--;
	if (!path)
		return false;
	if (l == 1 && want[0] == '/')
		return true;
	return !strncmp(path, want, l) && (path[l] == '\0' || path[l] == '/');
}

static void remember(const char **v, size_t *nr, const char *c)
{
	for (size_t i = 0; i < MIN(*nr, (size_t)REPORT_CONTAINERS_LISTED); i++)
		if (v[i] == c)
			return;
	if (*nr < REPORT_CONTAINERS_LISTED)
		v[*nr] = c;
	(*nr)++;
}

/* --container: is c (interned, NULL unknown) the one asked for?  Judged once per run
 * of samples of one container; the containers met are kept for report_containers(). */
static bool container_matches(const struct report *r, struct report_containers *rc, const char *c)
{
	const char *name;

	if (c == rc->last && rc->nr_matched + rc->nr_other)
		return rc->last_ok;
	rc->last = c;
	if (r->o.container_name)
		rc->last_ok = c && c[0] && (name = model__container_name(r->an.model, c)) &&
			      !strcmp(name, r->o.container_arg);
	else
		rc->last_ok = c && c[0] && !strncmp(c, r->o.container, strlen(r->o.container));
	if (rc->last_ok)
		remember(rc->matched, &rc->nr_matched, c);
	else if (c && c[0])
		remember(rc->other, &rc->nr_other, c);
	return rc->last_ok;
}

/* The filters (--pid, --comm, --uid, --cgroup, --container). */
static bool admits(void *ctx, const struct profile_task *t)
{
	struct report *r = ctx;

	return !(r->o.has_pid && t->pid != r->o.pid) && !(r->o.comm && strcmp(t->comm, r->o.comm)) &&
	       !(r->o.has_uid && (!t->uid_known || t->uid != r->o.uid)) &&
	       !(r->o.cgroup && !cgroup_matches(model__cgroup(r->an.model, t->cgroup), r->o.cgroup)) &&
	       !(r->o.container_arg && !container_matches(r, &r->containers, t->container));
}

/* After the read, --container matched exactly one of the file's containers.  0, or
 * -EINVAL after a message naming those it has. */
static int report_containers(const struct report *r)
{
	const struct report_containers *rc = &r->containers;
	const char *const *v = rc->nr_matched ? rc->matched : rc->other;
	size_t nr = rc->nr_matched ? rc->nr_matched : rc->nr_other;
	char arg[128], list[3072];
	size_t off = 0;

	if (!r->o.container_arg || rc->nr_matched == 1)
		return 0;
	list[0] = '\0';
	for (size_t i = 0; i < MIN(nr, (size_t)REPORT_CONTAINERS_LISTED) && off < sizeof(list); i++) {
		const char *name = model__container_name(r->an.model, v[i]);
		char esc[4 * 48 + 1];

		if (name)
			escape__text(esc, sizeof(esc), name);
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s%s%s%s", i ? ", " : "", v[i],
					name ? " (" : "", name ? esc : "", name ? ")" : "");
	}
	if (nr > REPORT_CONTAINERS_LISTED && off < sizeof(list))
		snprintf(list + off, sizeof(list) - off, " and %zu more", nr - REPORT_CONTAINERS_LISTED);
	escape__text(arg, sizeof(arg), r->o.container_arg);
	if (rc->nr_matched)
		fprintf(stderr, "prof report: container '%s' is ambiguous in %s: %zu containers match: %s (give %s)\n",
			arg, r->o.input, nr, list, r->o.container_name ? "its id" : "more of its id");
	else
		fprintf(stderr, "prof report: %s has no samples of a container '%s'%s; %s%s\n",
			r->o.input, arg, r->o.has_pid || r->o.has_uid || r->o.comm || r->o.cgroup ? " (with the other filters)"
			: "", nr ? "its containers: " : "it has no samples of containers", list);
	return -EINVAL;
}

/* The event's engine, made at its first sample.  NULL on ENOMEM. */
static struct report_event *event_of(struct report *r, const struct reader_attr *a)
{
	size_t i = (size_t)(a - perf_reader__attr(r->reader, 0));
	struct report_event *e = r->event_of[i];

	if (e)
		return e;
	e = calloc(1, sizeof(*e));
	if (!e || !(e->prof = profile__new(r->o.view.max_stacks ? r->o.view.max_stacks : PROFILE_UNLIMITED))) {
		free(e);
		return NULL;
	}
	profile__set_budget(e->prof, &r->budget);
	e->a = a;
	e->attr = i;
	r->event_of[i] = e;
	return e;
}

static int on_sample(struct report *r, const struct perf_event_header *ev, uint64_t off)
{
	const struct reader_attr *a;
	struct report_event *e;
	struct sample s;
	int err = perf_reader__parse_sample(r->reader, ev, off, &s, &a, &r->err);

	if (err < 0)
		return err;
	if (!a->attr.sample_period && !a->attr.freq)
		return 0;       /* a counting-only event */
	if (r->only >= 0 && a != perf_reader__attr(r->reader, (size_t)r->only))
		return 0;       /* not the --event asked for */
	if ((s.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_GUEST_KERNEL ||
	    (s.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_GUEST_USER) {
		/*
		 * A guest's code (a qemu/KVM vCPU thread running its VM): not this host's,
		 * nothing here can name it; perf report and perf script leave such samples
		 * out without --guest, and so does prof report, counting them.
		 */
		e = event_of(r, a);
		if (!e)
			return -ENOMEM;
		e->guest++;
		return 0;
	}
	if (r->dwarf)           /* with -g only */
		dwarf_stacks__unwind(r->dwarf, &a->attr, &s);
	e = event_of(r, a);
	if (!e)
		return -ENOMEM;
	r->attr.prof = e->prof;
	err = attribution__add(&r->attr, &s);
	if (err <= 0) {
		e->filtered += err == 0;
		return err;
	}
	e->samples++;
	if (!e->first_time || s.time < e->first_time)
		e->first_time = s.time;
	if (s.time > e->last_time)
		e->last_time = s.time;
	if (r->on_counted)
		r->on_counted(r->counted_ctx, e, &s, r->attr.last_ref);
	return 0;
}

static int on_record(const struct perf_event_header *ev, uint64_t off, struct report *r)
{
	if (ev->type == PERF_RECORD_SAMPLE)
		return on_sample(r, ev, off);
	if (ev->type == PERF_RECORD_LOST && ev->size >= sizeof(struct perf_record_lost))
		r->lost += ((const struct perf_record_lost *)(const void *)ev)->lost;
	return r->dwarf ? dwarf_stacks__note(r->dwarf, ev) : model__process(r->an.model, ev);
}

static int on_queued_record(const struct perf_event_header *ev, uint64_t time, void *ctx)
{
	/* the record's offset is lost once queued: report errors at offset 0 of a copy */
	return on_record(ev, 0, ctx);
}

/*
 * Files from prof are in time order already.  perf record writes each ring buffer's
 * chunk as it comes, marking rounds: sort within them the way perf does (everything
 * older than the previous round's newest record is final).
 */
int report__read(struct report *r, bool sorted)
{
	struct ordered_queue *q = sorted ? NULL : ordered_queue__new();
	uint64_t prev_max = 0, max = 0, off;
	const struct perf_event_header *ev;
	int n, err = 0;

	if (!sorted && !q)
		return -ENOMEM;
	while ((n = perf_reader__next(r->reader, &ev, &off, &r->err)) > 0) {
		if (sorted) {
			err = on_record(ev, off, r);
		} else if (ev->type == PERF_RECORD_FINISHED_ROUND) {
			err = ordered_queue__flush(q, prev_max, on_queued_record, r);
			prev_max = max;
		} else {
			uint64_t t = perf_reader__time(r->reader, ev);
			if (t > max)
				max = t;
			err = ordered_queue__push(q, ev, t);
		}
		if (err < 0)
			break;
	}
	if (n < 0)
		err = n;
	if (!err && q)
		err = ordered_queue__flush(q, UINT64_MAX, on_queued_record, r);
	ordered_queue__free(q);
	return err;
}

/* What prof's section says (perf's files have none): the tasks' uids, the scope. */
static int read_prof_section(struct report *r, bool *ret_found)
{
	size_t len;
	const char *text = perf_reader__prof_section(r->reader, &len);
	int err;

	*ret_found = text != NULL;
	if (!text)
		return 0;
	err = prof_section__parse(text, len, &r->section);
	for (size_t i = 0; !err && i < r->section.nr_tasks; i++)
		if (r->section.tasks[i].uid_known)
			err = model__set_uid(r->an.model, r->section.tasks[i].tid, r->section.tasks[i].uid);
	for (size_t i = 0; !err && i < r->section.nr_names; i++)
		err = model__name_container(r->an.model, r->section.names[i].id, r->section.names[i].name);
	/* --off-cpu's CPU holders' cgroups: no CGROUP record of the file names them */
	for (size_t i = 0; !err && i < r->section.nr_holders; i++) {
		const struct prof_section_holder *h = &r->section.holders[i];

		if (h->cgroup && h->cgroup_path && !model__cgroup(r->an.model, h->cgroup))
			err = model__add_cgroup(r->an.model, h->cgroup, h->cgroup_path);
	}
	/* the perf maps of processes in containers, copied while recording */
	for (size_t i = 0; !err && r->an.jit && i < r->section.nr_jit; i++) {
		const struct prof_section_jit *m = &r->section.jit[i];

		err = jitmap__add_copy(r->an.jit, m->pid, m->from, m->until, m->start, m->size, m->name);
	}
	prof_section__describe_scope(&r->section, r->scope, sizeof(r->scope));
	symbols__set_unread_unknown(r->an.syms, r->section.mmap_build_ids);
	return err;
}

/* An offcpu-runq sample's holder task, as the file's holder table has it. */
static bool holder_of(void *ctx, uint32_t holder, struct offcpu_holder_info *ret)
{
	const struct report *r = ctx;
	const struct prof_section_holder *h = prof_section__holder(&r->section, holder - OFFCPU_HOLDER_TASK);

	if (holder < OFFCPU_HOLDER_TASK || !h)
		return false;
	*ret = (struct offcpu_holder_info){ .uid = h->uid, .uid_known = h->uid_known, .cgroup = h->cgroup,
					    .cgroup_path = h->cgroup_path };
	return true;
}

static const char *record_type_name(uint32_t t)
{
	static const char *const names[] = {
		[PERF_RECORD_MMAP] = "MMAP", [PERF_RECORD_LOST] = "LOST", [PERF_RECORD_COMM] = "COMM",
		[PERF_RECORD_EXIT] = "EXIT", [PERF_RECORD_THROTTLE] = "THROTTLE",
		[PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE", [PERF_RECORD_FORK] = "FORK",
		[PERF_RECORD_READ] = "READ", [PERF_RECORD_SAMPLE] = "SAMPLE", [PERF_RECORD_MMAP2] = "MMAP2",
		[PERF_RECORD_LOST_SAMPLES] = "LOST_SAMPLES", [PERF_RECORD_CGROUP] = "CGROUP",
	};
	if (t < ARRAY_SIZE(names) && names[t])
		return names[t];
	if (t == PERF_RECORD_COMPRESSED)
		return "COMPRESSED";
	return t == PERF_RECORD_FINISHED_ROUND ? "FINISHED_ROUND" : "unknown";
}

/*
 * Open the input with the user's own rights (prof may hold capabilities) and without
 * blocking (a FIFO is refused, not waited on).  The reader then reads that very file
 * through fdpath.  The fd, or -errno after a message.
 */
static int open_input(const char *path, char *fdpath, size_t len)
{
	_cleanup_close_ int fd = privs__open_as_user(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;

	if (fd < 0) {
		fprintf(stderr, "prof report: %s: cannot open: %s\n", path, strerror(-fd));
		return fd;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "prof report: %s: not a regular file (a FIFO, device or directory): give a perf.data file\n",
			path);
		return -EINVAL;
	}
	snprintf(fdpath, len, "/proc/self/fd/%d", fd);
	return steal_fd(&fd);
}

/* The recording's build ids of user-space files, which their files must still have. */
static int expect_build_id(const struct reader_build_id *b, void *ctx)
{
	if ((b->misc & PERF_RECORD_MISC_CPUMODE_MASK) != PERF_RECORD_MISC_USER ||
	    (b->filename[0] != '/' && !vdso__is_name(b->filename)))
		return 0;
	return symbols__expect_build_id(ctx, b->filename, b->data, b->size);
}

static void say_refused(const struct symbols_refused *o, void *ctx)
{
	struct build_id want = { .size = (uint8_t)MIN(o->expected_len, BUILD_ID_MAX) };
	char hex[2 * BUILD_ID_MAX + 1], path[1024];

	if (want.size)  /* NOT_MAPPED has no build id: expected is NULL */
		memcpy(want.data, o->expected, want.size);
	build_id__hex(&want, hex, sizeof(hex));
	escape__text(path, sizeof(path), o->path);      /* a path a tenant chose */
	if (o->why == SYMBOLS_REFUSED_NOT_MAPPED)
		fprintf(stderr, "prof report: %s: not the file that was mapped (another device and inode, and the "
			"recording has no build id of it): its samples are shown as [unknown]\n", path);
	else if (o->why == SYMBOLS_REFUSED_MISSING && vdso__is_name(o->path))
		fprintf(stderr, "prof report: [vdso]: no image of build id %s in the build-id cache, %s, and this "
			"kernel's has another (recorded on another host or kernel): its samples are shown as "
			"[unknown]; copy the recording host's ~/.debug/[vdso] and ~/.debug/.build-id link to fix it\n",
			hex, ctx ? (const char *)ctx : "~/.debug");
	else if (o->why == SYMBOLS_REFUSED_MISSING)
		fprintf(stderr, "prof report: %s: not found (no copy of build id %s in the build-id cache, "
			"%s, and no file at its path): its samples are shown as [unknown]; report as the user, "
			"or with the HOME, that recorded, whose ~/.debug holds the copy\n", path, hex,
			ctx ? (const char *)ctx : "~/.debug");
	else if (o->why == SYMBOLS_REFUSED_CONFLICT)
		fprintf(stderr, "prof report: %s: the recording names two different files at this path (replaced "
			"while recording): its samples are shown as [unknown]\n", path);
	else
		fprintf(stderr, "prof report: %s: not the file that was recorded (build id %s expected, %s): rebuilt "
			"or replaced since? its samples are shown as [unknown]\n", path, hex,
			o->found_len ? "it has another" : "it has none");
}

/* A sampling event of the file, as perf lists them: not its sideband (dummy) events. */
static bool is_sampling(const struct reader_attr *a)
{
	return (a->attr.sample_period || a->attr.freq) &&
	       !(a->attr.type == PERF_TYPE_SOFTWARE && a->attr.config == PERF_COUNT_SW_DUMMY);
}

/* "1: cpu-clock, 2: page-faults": the file's sampling events, as --event takes them. */
static void list_events(const struct report *r, char *buf, size_t len)
{
	size_t off = 0, n = 0;
	char name[256];

	buf[0] = '\0';
	for (size_t i = 0; i < perf_reader__nr_attrs(r->reader) && off < len; i++) {
		const struct reader_attr *a = perf_reader__attr(r->reader, i);

		if (!is_sampling(a))
			continue;
		escape__text(name, sizeof(name), a->name[0] ? a->name : "?");
		off += (size_t)snprintf(buf + off, len - off, "%s%zu: %s", n ? ", " : "", n + 1, name);
		n++;
	}
}

/* --event NAME, or the Nth sampling event: the attr reported (r->only).  0, or -EINVAL
 * after a message. */
static int pick_event(struct report *r)
{
	uint64_t nth = 0, n = 0;
	char list[1024], name[256];

	r->only = -1;
	for (size_t i = 0; i < perf_reader__nr_attrs(r->reader); i++)
		r->nr_sampling += is_sampling(perf_reader__attr(r->reader, i));
	if (!r->o.event)
		return 0;
	if (parse_u64(r->o.event, 10, &nth) < 0)
		nth = 0;
	for (size_t i = 0; i < perf_reader__nr_attrs(r->reader) && r->only < 0; i++) {
		const struct reader_attr *a = perf_reader__attr(r->reader, i);

		if (is_sampling(a) && (++n == nth || (!nth && !strcmp(a->name, r->o.event))))
			r->only = (long)i;
	}
	if (r->only >= 0)
		return 0;
	list_events(r, list, sizeof(list));
	escape__text(name, sizeof(name), r->o.event);
	fprintf(stderr, "prof report: %s has no event '%s'; its events: %s (give --event NAME or its number)\n",
		r->o.input, name, list[0] ? list : "none");
	return -EINVAL;
}

/*
 * The events reported, in the file's order: those with samples (as perf report skips
 * empty ones), else the one asked for or the first sampling event, empty.  0 or
 * -ENOMEM.
 */
int report__events(struct report *r, struct report_event **evs, size_t *ret_nr)
{
	size_t n = 0, nr_attrs = perf_reader__nr_attrs(r->reader), first = 0;

	for (size_t i = 0; i < nr_attrs; i++)
		if (r->event_of[i])
			evs[n++] = r->event_of[i];
	if (!n && nr_attrs) {
		while (r->only < 0 && first + 1 < nr_attrs && !is_sampling(perf_reader__attr(r->reader, first)))
			first++;
		evs[0] = event_of(r, perf_reader__attr(r->reader, r->only >= 0 ? (size_t)r->only : first));
		if (!evs[0])
			return -ENOMEM;
		n = 1;
	}
	*ret_nr = n;
	return 0;
}

/* -F pprof's description of the recording: the event, its period, the duration. */
/* pprof's file and line of a native frame: a Go program's, from its own table. */
static bool native_line(void *ctx, const char *dso, uint64_t off, const char **ret_file, int32_t *ret_line)
{
	const struct report *r = ctx;
	const struct model_dso *d;

	for (uint32_t i = 0; (d = model__dso(r->an.model, i)); i++)
		if (d->name == dso && symbols__go_line(r->an.syms, d, off, ret_file, ret_line))
			return true;
	return false;
}

struct pprof_meta report__pprof_meta(const struct report *r, const struct report_event *e)
{
	const struct reader_attr *a = e->a;
	const struct profile_stats *st = profile__stats(e->prof);
	const char *ev = a->name[0] ? a->name : "events";

	return (struct pprof_meta){
		.event = ev,
		.time_period = !strcmp(ev, "cpu-clock") || !strcmp(ev, "task-clock") ||
			       (a->attr.type == PERF_TYPE_SOFTWARE &&
				(a->attr.config == PERF_COUNT_SW_CPU_CLOCK || a->attr.config == PERF_COUNT_SW_TASK_CLOCK)),
		.period = !a->attr.freq && a->attr.sample_period ? (int64_t)a->attr.sample_period
			  : st->samples ? (int64_t)(st->period / st->samples) : 0,
		.duration_ns = e->last_time > e->first_time ? (int64_t)(e->last_time - e->first_time) : 0,
		.model = r->an.model,
		.reader = r->reader,
		.line = native_line,
		.line_ctx = (void *)r,
	};
}

/* Where -F pprof goes: -o FILE created as the invoking user, else stdout if not a
 * terminal.  The fd, or -errno after a message. */
static int pprof_output(const struct report *r)
{
	int fd;

	if (r->o.output) {
		/* created as the invoking user, whatever rights prof runs with (as record's
		 * output): file system checks and the owner are theirs */
		fd = privs__create_as_user(r->o.output, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0)
			fprintf(stderr, "prof report: cannot create '%s': %s\n", r->o.output, strerror(-fd));
		return fd;
	}
	if (isatty(STDOUT_FILENO)) {
		fprintf(stderr, "prof report: -F pprof writes a binary file: give -o FILE (e.g. -o profile.pb.gz)\n");
		return -EINVAL;
	}
	return STDOUT_FILENO;
}

/* -F pprof: every event of the file (or --event's), each its own sample types. */
static int write_pprof(struct report *r, struct report_event *const *evs, size_t n)
{
	const struct profile *profiles[PPROF_MAX_EVENTS];
	struct pprof_event events[PPROF_MAX_EVENTS];
	struct pprof_meta m = report__pprof_meta(r, evs[0]);
	uint64_t cut = 0, first = UINT64_MAX, last = 0;
	bool by_budget = false;
	char scope[600], cuts[200], list[1024];
	size_t nc = 0;
	int fd, err;

	if (n > PPROF_MAX_EVENTS) {
		list_events(r, list, sizeof(list));
		fprintf(stderr, "prof report: %s has samples of %zu events (%s); -F pprof holds %d: pick one "
			"with --event NAME\n", r->o.input, n, list, PPROF_MAX_EVENTS);
		return -E2BIG;
	}
	for (size_t i = 0; i < n; i++) {
		const struct profile_stats *st = profile__stats(evs[i]->prof);
		struct pprof_meta one = report__pprof_meta(r, evs[i]);

		profiles[i] = evs[i]->prof;
		events[i] = (struct pprof_event){ .name = one.event, .time_period = one.time_period,
						  .period = one.period };
		cut += st->cut_samples;
		by_budget |= st->cut_by_budget;
		if (evs[i]->last_time > evs[i]->first_time) {
			first = MIN(first, evs[i]->first_time);
			last = MAX(last, evs[i]->last_time);
		}
	}
	m.events = events;
	m.nr_events = n;
	if (n > 1)
		m.duration_ns = last > first ? (int64_t)(last - first) : 0;
	snprintf(scope, sizeof(scope), "prof: %s%s%s", r->o.input, r->scope[0] ? ", scope " : "", r->scope);
	m.comments[nc++] = scope;
	if (cut) {
		snprintf(cuts, sizeof(cuts), "prof: %" PRIu64 " samples cut by %s (under [cut])", cut,
			 by_budget ? "the report's memory budget" : "--max-stacks");
		m.comments[nc++] = cuts;
	}
	fd = pprof_output(r);
	if (fd < 0)
		return fd;
	err = pprof__write_events(profiles, &m, fd);
	if (fd != STDOUT_FILENO && close(fd) < 0 && !err)
		err = -errno;
	if (err < 0)
		fprintf(stderr, "prof report: writing '%s' failed: %s\n", r->o.output ? r->o.output : "stdout",
			strerror(-err));
	return err;
}

/* -F folded and -F svg: the engine's stacks. */
static int write_stacks(struct report *r, const struct report_event *e)
{
	struct folded *f;
	char title[600];
	int err = folded__new(e->prof, &f);

	if (err < 0)
		return err;
	snprintf(title, sizeof(title), "prof: %s%s%s", r->o.input, r->scope[0] ? " — " : "", r->scope);
	err = r->o.format == FORMAT_SVG ? folded__write_svg(f, stdout, title) : folded__write(f, stdout);
	folded__free(f);
	return err;
}

/* The text and JSON outputs: each event's rows grouped by the --sort keys. */
static int write_rows(struct report *r, struct report_event *const *evs, size_t n)
{
	struct profile_row *rows[READER_MAX_ATTRS] = { NULL }, *stacks[READER_MAX_ATTRS] = { NULL };
	bool key_on[PROFILE_KEY__MAX] = { false };
	size_t nr[READER_MAX_ATTRS], nr_stacks[READER_MAX_ATTRS];
	/* JSON with -g: each event's stacks too, their frames with their own fields */
	bool with_stacks = r->o.format == FORMAT_JSON && r->o.callchain;
	int err = 0;

	for (size_t k = 0; k < r->o.view.nr_keys; k++)
		key_on[r->o.view.keys[k]] = true;
	for (size_t i = 0; i < n && !err; i++) {
		err = profile__rows(evs[i]->prof, key_on, false, &rows[i], &nr[i]);
		if (!err && with_stacks)
			err = profile__rows(evs[i]->prof, key_on, true, &stacks[i], &nr_stacks[i]);
	}
	if (!err && r->o.format == FORMAT_JSON)
		report_print__json(r, (const struct report_event *const *)evs, rows, nr, with_stacks ? stacks : NULL,
				   nr_stacks, n);
	for (size_t i = 0; i < n && !err && r->o.format != FORMAT_JSON; i++) {
		if (i)
			printf("\n");
		report_print__text(r, evs[i], rows[i], nr[i]);
	}
	for (size_t i = 0; i < n; i++) {
		free(rows[i]);
		free(stacks[i]);
	}
	return err;
}

/* The task facts the output shows, the only ones its entries keep apart. */
static void choose_keys(struct report *r)
{
	enum profile_key keys[PROFILE_KEY__MAX];
	size_t nr;

	if (r->o.format == FORMAT_FOLDED || r->o.format == FORMAT_SVG)
		nr = folded__keys(keys);
	else if (r->o.format == FORMAT_PPROF)
		nr = pprof__keys(keys);
	else
		memcpy(keys, r->o.view.keys, (nr = r->o.view.nr_keys) * sizeof(*keys));
	attribution__keep_only(&r->attr, keys, nr);
}

/* With -g, perf's --call-graph dwarf samples are unwound (the user stack copies). */
static int report_open_dwarf(struct report *r)
{
	bool any = false;

	for (size_t i = 0; i < perf_reader__nr_attrs(r->reader); i++)
		any |= dwarf_stacks__wanted(&perf_reader__attr(r->reader, i)->attr);
	if (!any || !r->o.callchain)
		return 0;
	r->dwarf = dwarf_stacks__new(r->an.model, r->an.syms);
	if (!r->dwarf) {
		fprintf(stderr, "prof report: out of memory\n");
		return -ENOMEM;
	}
	return 0;
}

/* The input open and its header read: model, symbols, engine ready for its records. */
int report__open(struct report *r, const char *in_path, bool *ret_sorted)
{
	int err = perf_reader__open(in_path, &r->reader, &r->err);

	if (err < 0) {
		fprintf(stderr, "prof report: %s: %s\n", r->o.input, err == -ENOMEM ? "out of memory" : r->err.msg);
		return err;
	}
	r->budget.limit = (size_t)MIN(memory__available() / BUDGET_SHARE, (uint64_t)SIZE_MAX);
	/* files from prof are in time order: only they have prof's section */
	if (analysis__init(&r->an, &r->comms) < 0 || read_prof_section(r, ret_sorted) < 0 ||
	    perf_reader__for_each_build_id(r->reader, expect_build_id, r->an.syms) < 0) {
		fprintf(stderr, "prof report: out of memory\n");
		return -ENOMEM;
	}
	r->an.res.kernel_here = kernel_here(r);
	/* the data's kernel build id names the kernel of a file that never got prof's
	 * section (a killed recording); a section's own says it for a finished one */
	r->an.res.kernel_by_build_id = !r->section.kernel_build_id[0];
	r->an.res.inlines = !r->o.no_inline;
	/* pprof's locations carry addresses (a backend symbolizes by them) */
	r->an.res.addrs = r->o.format == FORMAT_PPROF;
	r->attr = (struct attribution){ .res = &r->an.res, .callchain = r->o.callchain, .admit = admits,
					.admit_ctx = r, .holder_of = holder_of, .holder_ctx = r };
	choose_keys(r);
	/* a report's samples repeat: counted again without resolving them again */
	if (attribution__memo_init(&r->attr) < 0) {
		fprintf(stderr, "prof report: out of memory\n");
		return -ENOMEM;
	}
	return report_open_dwarf(r);
}

void report__close(struct report *r)
{
	char cache[4096];

	if (r->an.syms) {
		struct debuginfod_stats dst;
		char line[256];

		symbols__for_each_refused(r->an.syms, say_refused,
					  build_id_cache__default_dir(cache, sizeof(cache)) < 0 ? NULL : cache);
		symbols__debuginfod_stats(r->an.syms, &dst);
		if (dst.asked) {
			debuginfod__describe(&dst, line, sizeof(line));
			fprintf(stderr, "prof report: debuginfod (%s): %s\n", getenv("DEBUGINFOD_URLS"), line);
		}
	}
	for (size_t i = 0; i < READER_MAX_ATTRS; i++) {
		if (r->event_of[i])
			profile__free(r->event_of[i]->prof);
		free(r->event_of[i]);
	}
	dwarf_stacks__free(r->dwarf);
	attribution__memo_release(&r->attr);
	analysis__release(&r->an);
	perf_reader__free(r->reader);
	strset__release(&r->comms);
	prof_section__release(&r->section);
}

/* A file its recording did not finish: what was read of it. */
void report__say_unfinished(const struct report *r)
{
	uint64_t end;
	enum reader_finish how = perf_reader__finish_state(r->reader, &end);

	if (how == READER_UNFINISHED)
		fprintf(stderr, "prof report: %s was not finished (the recording was killed?): read up to its last "
			"whole record at offset %" PRIu64 "\n", r->o.input, end);
	else if (how == READER_NO_FEATURES)
		fprintf(stderr, "prof report: %s was not finished (the recording was killed, or its disk filled?): "
			"read up to its last round at offset %" PRIu64 "; it names no host, uids or scope\n",
			r->o.input, end);
}

/* What is worth saying once the file is read: JIT maps ignored, samples cut. */
static void warn_after_reading(const struct report *r, struct report_event *const *evs, size_t n)
{
	char buf[512];
	const char *why;
	size_t nr;

	if (r->an.jit && (nr = jitmap__untrusted(r->an.jit, &why))) {
		escape__text(buf, sizeof(buf), why);
		fprintf(stderr, "prof report: warning: ignored %zu untrusted JIT map file%s: %s%s\n", nr,
			nr > 1 ? "s" : "", buf, nr > 1 ? ", ..." : "");
	}
	for (size_t i = 0; i < n; i++) {
		const struct profile_stats *st = profile__stats(evs[i]->prof);

		if (!st->cut_samples)
			continue;
		escape__text(buf, sizeof(buf), report__event_name(evs[i]));
		fprintf(stderr, "prof report: %" PRIu64 " of %" PRIu64 " %s samples cut: ", st->cut_samples,
			st->samples, buf);
		if (st->cut_by_budget)
			fprintf(stderr, "the report's tables reached their memory budget (%zu MiB, a quarter of the "
				"memory prof may still take); they are counted under [cut]\n", r->budget.limit >> 20);
		else
			fprintf(stderr, "more than --max-stacks %zu distinct keys; they are counted under [cut]\n",
				r->o.view.max_stacks);
	}
}

/* The single-profile formats (folded, svg) show one event: the first, unless
 * --event picked it; the others are named on stderr. */
static const struct report_event *one_event(const struct report *r, struct report_event *const *evs, size_t n)
{
	char list[1024];

	if (n > 1) {
		list_events(r, list, sizeof(list));
		fprintf(stderr, "prof report: %s has samples of %zu events (%s); -F %s shows the first only, %s: "
			"pick one with --event NAME\n", r->o.input, n, list,
			r->o.format == FORMAT_SVG ? "svg" : "folded", report__event_name(evs[0]));
	}
	return evs[0];
}

/* Write the output the format asks for.  An exit code. */
static int write_output(struct report *r, struct report_event *const *evs, size_t n)
{
	int err;

	if (r->o.format == FORMAT_PPROF)
		return write_pprof(r, evs, n) < 0 ? EXIT_PROF_FAIL : EXIT_PROF_OK;
	err = r->o.format == FORMAT_FOLDED || r->o.format == FORMAT_SVG ? write_stacks(r, one_event(r, evs, n))
									 : write_rows(r, evs, n);
	if (err == -ENOMEM) {
		fprintf(stderr, "prof report: out of memory\n");
		return EXIT_PROF_FAIL;
	}
	if ((r->o.format == FORMAT_TEXT || r->o.format == FORMAT_JSON) && perf_reader__unknown_records(r->reader))
		fprintf(stderr, "prof report: skipped %" PRIu64 " records of types it does not know\n",
			perf_reader__unknown_records(r->reader));
	return err < 0 || fflush(stdout) ? EXIT_PROF_FAIL : EXIT_PROF_OK;
}

/* prof report --daemon: the answer's entries into the engines of the header's events
 * (the daemon's; with off-CPU time, offcpu-runq and offcpu-blocked too). */
int report__fill_from_daemon(struct report *r, struct daemon_query *dq)
{
	size_t n = MIN(daemon_query__nr_events(dq), perf_reader__nr_attrs(r->reader));
	int err = n ? 0 : -ENOMEM;

	r->offcpu_windowed = daemon_query__offcpu_windowed(dq, &r->offcpu_measured_ns, &r->offcpu_span_ns);
	for (size_t i = 0; i < n && !err; i++) {
		struct report_event *e = event_of(r, perf_reader__attr(r->reader, i));

		if (!e)
			return -ENOMEM;
		err = daemon_query__fill_event(dq, i, e->prof, r->an.model, &r->comms, &e->first_time, &e->last_time);
		e->samples = profile__stats(e->prof)->samples;
	}
	return err;
}

/* Read the file (or the daemon's answer), then write what it holds.  An exit code. */
static int report_run(struct report *r, bool sorted, struct daemon_query *dq)
{
	struct report_event *evs[READER_MAX_ATTRS];
	size_t n;
	int err = report__read(r, sorted);

	if (!err && dq)
		err = report__fill_from_daemon(r, dq);

	if (err < 0) {
		if (err == -ENOMEM)
			fprintf(stderr, "prof report: %s: out of memory\n", r->o.input);
		else if (err == -ENODATA)
			fprintf(stderr, "prof report: %s: %s; no report written\n", r->o.input, r->err.msg);
		else
			fprintf(stderr, "prof report: %s: bad record at offset %" PRIu64 " (type %u, %s): %s\n",
				r->o.input, r->err.offset, r->err.type, record_type_name(r->err.type), r->err.msg);
		return EXIT_PROF_FAIL;
	}
	if (report__events(r, evs, &n) < 0) {
		fprintf(stderr, "prof report: out of memory\n");
		return EXIT_PROF_FAIL;
	}
	report__say_unfinished(r);
	warn_after_reading(r, evs, n);
	if (report_containers(r) < 0)
		return EXIT_PROF_USAGE;
	return write_output(r, evs, n);
}

int cmd_report(int argc, char **argv)
{
	struct report r = { 0 };
	struct daemon_query dq = { 0 };         /* --daemon: profd's history instead of a file */
	struct preflight pf;
	_cleanup_close_ int in_fd = -1;
	char errbuf[512], in_path[64];
	bool sorted = false;
	int err, ret = EXIT_PROF_FAIL;

	r.only = -1;
	err = daemon_query__take_opts(&dq, &argc, argv, errbuf, sizeof(errbuf));
	if (!err)
		err = report_opts__parse(&r.o, argc, argv, errbuf, sizeof(errbuf));
	if (err == 1) {
		fputs(report_opts__usage, stdout);
		return EXIT_PROF_OK;
	}
	if (err < 0) {
		fprintf(stderr, "prof report: %s\n", errbuf);
		return EXIT_PROF_USAGE;
	}
	/* [symbols]: which debuginfod servers name objects (prof.conf(5)) */
	preflight__init(&pf);
	if (preflight__config(&pf, NULL))
		fprintf(stderr, "prof report: going on without that configuration\n");
	preflight__release(&pf);
	in_fd = dq.on ? daemon_query__open(&dq, &r.o, in_path, sizeof(in_path))
		      : open_input(r.o.input, in_path, sizeof(in_path));
	if (in_fd >= 0 && report__open(&r, in_path, &sorted) == 0)
		ret = pick_event(&r) < 0 ? EXIT_PROF_USAGE : report_run(&r, sorted, dq.on ? &dq : NULL);
	report__close(&r);
	daemon_query__release(&dq);
	return ret;
}
