/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <perf/event.h>

#include "prof/base/util.h"
#include "prof/cli/daemon_report.h"
#include "prof/daemon/sampler.h"
#include "prof/perfdata/perf_data.h"
#include "prof/perfdata/prof_section.h"
#include "prof/offcpu/offcpu.h"
#include "prof/offcpu/offcpu_events.h"
#include "prof/sys/users.h"

/* An entry's event in the header: 0 the daemon's (on-CPU), 1 offcpu-runq, 2 offcpu-blocked. */
static size_t event_of_task(const struct dict_task *t)
{
	return t->flags & DICT_TASK_RUNQ ? 1 : t->flags & DICT_TASK_BLOCKED ? 2 : 0;
}

static bool has_off_cpu(const struct answer *a)
{
	for (size_t i = 0; i < a->nr; i++)
		if (event_of_task(dict__task_get(a->dict, a->e[i].task)))
			return true;
	return false;
}

/* ---- options ------------------------------------------------------------------------ */

/* --name VALUE or --name=VALUE at argv[*i]: the value (and *i past it), NULL if not it. */
static const char *opt_value(int argc, char **argv, int *i, const char *name, bool *matched, char *err,
			     size_t errlen)
{
	size_t l = strlen(name);

	*matched = false;
	if (strncmp(argv[*i], name, l) || (argv[*i][l] != '=' && argv[*i][l] != '\0'))
		return NULL;
	*matched = true;
	if (argv[*i][l] == '=')
		return argv[*i] + l + 1;
	if (*i + 1 >= argc) {
		errorf(err, errlen, "%s needs a value", name);
		return NULL;
	}
	return argv[++*i];
}

int daemon_query__take_opts(struct daemon_query *q, int *argc, char **argv, char *err, size_t errlen)
{
	static const char *const names[] = { "--since", "--from", "--until", "--socket" };
	const char **slots[] = { &q->since, &q->from, &q->until, &q->socket };
	int out = 1;

	for (int i = 1; i < *argc; i++) {
		bool matched = false;
		size_t k;

		if (!strcmp(argv[i], "--daemon")) {
			q->on = true;
			continue;
		}
		for (k = 0; k < ARRAY_SIZE(names) && !matched; k++) {
			const char *v = opt_value(*argc, argv, &i, names[k], &matched, err, errlen);

			if (matched && !v)
				return -EINVAL;
			if (matched)
				*slots[k] = v;
		}
		if (!matched)
			argv[out++] = argv[i];
	}
	argv[out] = NULL;
	*argc = out;
	if (!q->on && (q->since || q->from || q->until || q->socket))
		return errorf(err, errlen, "--since, --from, --until and --socket ask profd: give --daemon too");
	if (q->since && q->from)
		return errorf(err, errlen, "give --since or --from, not both");
	return 0;
}

/* ---- asking ---------------------------------------------------------------------------- */

static int request_of(const struct daemon_query *q, const struct report_opts *o, struct protocol_request *r,
		      char *err, size_t errlen)
{
	uint64_t now = sampler__realtime_ns();

	memset(r, 0, offsetof(struct protocol_request, text));
	r->op = PROTOCOL_QUERY;
	if (o->has_pid)
		return errorf(err, errlen, "profd keeps no process ids (a fork storm would fill its history): select "
			      "with --uid, --cgroup or --comm");
	if (q->since && daemon_client__parse_duration(q->since, &r->since) < 0)
		return errorf(err, errlen, "bad --since '%s' (a duration: 90s, 10m, 2h, 1d)", q->since);
	r->has_since = q->since != NULL;
	if (q->from && daemon_client__parse_time(q->from, now, &r->q.from) < 0)
		return errorf(err, errlen, "bad --from '%s' (HH:MM[:SS], YYYY-mm-dd HH:MM[:SS], Unix seconds or -10m)",
			      q->from);
	if (q->until && daemon_client__parse_time(q->until, now, &r->q.until) < 0)
		return errorf(err, errlen, "bad --until '%s' (HH:MM[:SS], YYYY-mm-dd HH:MM[:SS], Unix seconds or -10m)",
			      q->until);
	r->has_until = q->until != NULL;
	if (r->has_until && r->q.until <= (q->from ? r->q.from : r->has_since ? now - MIN(r->since, now) : 0))
		return errorf(err, errlen, "--until is not after the window's start");
	if (o->has_uid)
		r->q.uids[r->q.nr_uids++] = o->uid;
	if (o->cgroup)
		r->q.cgroups[r->q.nr_cgroups++] = o->cgroup;
	if (o->comm)
		r->q.comms[r->q.nr_comms++] = o->comm;
	r->q.max_stacks = o->view.max_stacks;
	r->q.off_cpu = q->off_cpu;
	return 0;
}

/* Ask, and read the answer into q->a.  0, or -errno after a message. */
int daemon_query__ask(struct daemon_query *q, const struct report_opts *o, const char *cmd)
{
	struct protocol_request *r = malloc(sizeof(*r));
	struct daemon_client c;
	_cleanup_free_ uint8_t *body = NULL;
	char err[1200];
	size_t len;
	int status, e = r ? request_of(q, o, r, err, sizeof(err)) : -ENOMEM;

	if (!e)
		e = daemon_client__init(&c, q->socket, err, sizeof(err));
	if (!e) {
		snprintf(q->socket_path, sizeof(q->socket_path), "%s", c.socket);
		e = daemon_client__ask(&c, r, &status, &body, &len, err, sizeof(err));
	}
	if (!e && status == -EINVAL && r->q.off_cpu && body && strstr((const char *)body, "'off_cpu'")) {
		/* a profd from before off-CPU time: its samples, as it always answered */
		r->q.off_cpu = false;
		free(body);
		body = NULL;
		e = daemon_client__init(&c, q->socket, err, sizeof(err));
		if (!e)
			e = daemon_client__ask(&c, r, &status, &body, &len, err, sizeof(err));
	}
	free(r);
	if (e < 0) {
		fprintf(stderr, "%s: %s\n", cmd, e == -ENOMEM && !err[0] ? "out of memory" : err);
		return e;
	}
	if (status < 0) {
		fprintf(stderr, "%s: profd refused: %s\n", cmd, (const char *)body);
		return status;
	}
	e = answer__read(body, len, &q->a, err, sizeof(err));
	if (e < 0)
		fprintf(stderr, "%s: profd's answer is not readable: %s\n", cmd, err);
	return e;
}

/* ---- the header the report reads ------------------------------------------------------- */

static int put_string_feature(struct perf_writer *w, unsigned int feat, const char *s)
{
	struct feat_buf b = { 0 };
	int err;

	feat_buf__string(&b, s);
	err = b.err ? b.err : perf_writer__add_feature(w, feat, b.data, b.len);
	feat_buf__release(&b);
	return err;
}

/* prof's section: the scope the answer covers, and what the daemon counted. */
static int put_section(struct perf_writer *w, const struct answer *a, const struct report_opts *o)
{
	struct prof_section s = { .has_stats = true };
	struct feat_buf b = { 0 };
	uint32_t uid = o->has_uid ? o->uid : a->m.uid;
	char *cg = (char *)o->cgroup;
	int err;

	s.scope_all = a->m.admin && !o->has_uid && !o->cgroup;
	if (!s.scope_all && (o->has_uid || !a->m.admin)) {
		s.scope_uids = &uid;
		s.nr_scope_uids = 1;
	}
	if (o->cgroup) {
		s.scope_cgroups = &cg;
		s.nr_scope_cgroups = 1;
	}
	s.stats = (struct prof_section_stats){ .samples_written = a->window.c.samples,
					       .unattributed_gone = a->window.c.unattributed,
					       .lost = a->window.c.lost };
	prof_section__build(&b, &s);
	err = b.err ? b.err : perf_writer__set_prof_section(w, b.data, b.len);
	feat_buf__release(&b);
	return err;
}

static int write_header(int fd, const struct answer *a, const struct report_opts *o)
{
	const struct answer_meta *m = &a->m;
	struct perf_data_event ev[3] = { { .name = m->event } };
	size_t nev = has_off_cpu(a) ? 3 : 1;
	struct perf_record_lost lost = { .header = { .type = PERF_RECORD_LOST, .size = sizeof(lost) },
					 .lost = a->window.c.lost };
	struct perf_event_header round = { .type = PERF_RECORD_FINISHED_ROUND, .size = sizeof(round) };
	struct perf_writer *w;
	int err;

	ev[0].attr = (struct perf_event_attr){ .type = m->event_type, .size = sizeof(ev[0].attr), .config = m->event_config,
					    .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
							   PERF_SAMPLE_PERIOD |
							   (m->callchain ? PERF_SAMPLE_CALLCHAIN : 0),
					    .freq = m->freq != 0, .use_clockid = 1, .clockid = CLOCK_MONOTONIC };
	ev[0].attr.sample_period = m->freq ? m->freq : m->period;
	if (nev > 1)
		offcpu_events__attrs(&ev[0].attr, &ev[1]);     /* record --off-cpu's two */
	err = perf_writer__new(fd, ev, nev, &w);
	if (err < 0)
		return err;
	/* the data section holds what the kernel lost, and is never empty (a file with no
	 * data was not finished) */
	if (!err && a->window.c.lost)
		err = perf_writer__write(w, &lost, sizeof(lost));
	if (!err)
		err = perf_writer__write(w, &round, sizeof(round));
	if (!err && m->host[0])
		err = put_string_feature(w, HEADER_HOSTNAME, m->host);
	if (!err && m->osrelease[0])
		err = put_string_feature(w, HEADER_OSRELEASE, m->osrelease);
	if (!err)
		err = put_section(w, a, o);
	if (!err)
		err = perf_writer__finish(w);
	perf_writer__free(w);
	return err;
}

/* Say what the answer covers, in the report's first line, and what it misses. */
static void describe(struct daemon_query *q, const struct answer *a, const char *socket)
{
	char from[32], until[32], gap[32], measured[96] = "";
	uint64_t span = a->window.end_ns - a->window.start_ns;

	daemon_client__format_time(a->window.start_ns, from, sizeof(from));
	daemon_client__format_time(a->window.end_ns, until, sizeof(until));
	/* off_cpu_window: the off-CPU time is what the windows measured, never scaled */
	if (has_off_cpu(a) && (a->window.flags & BUCKET_OFFCPU) && a->window.c.offcpu_window_ns < span)
		snprintf(measured, sizeof(measured), ", off-CPU time measured over %.1f s of it (unscaled)",
			 (double)a->window.c.offcpu_window_ns / 1e9);
	snprintf(q->label, sizeof(q->label), "profd (%s), %s to %s (%.0f s)%s%s", socket, from, until,
		 (double)span / 1e9, measured, a->window.flags & BUCKET_AFTER_GAP ? ", profd started within it" : "");
	if (a->m.evicted_before && a->m.evicted_before > a->m.asked_from) {
		daemon_client__format_time(a->m.evicted_before, gap, sizeof(gap));
		fprintf(stderr, "prof report: the daemon dropped history before %s to stay within [daemon] memory_max: "
			"the window asked starts earlier than what is left\n", gap);
	}
	if (a->window.c.cut_samples)
		fprintf(stderr, "prof report: %" PRIu64 " of %" PRIu64 " samples were cut by the daemon (more distinct "
			"stacks than [daemon] bucket_max_stacks or --max-stacks): they are counted under [cut]\n",
			a->window.c.cut_samples, a->window.c.samples);
}

static bool wants_holder(const struct report_opts *o)
{
	for (size_t i = 0; i < o->view.nr_keys; i++)
		if (o->view.keys[i] == PROFILE_KEY_HOLDER)
			return true;
	return false;
}

/* ---- off-CPU time per tenant ------------------------------------------------------------- */

#define SUMMARY_MAX 64          /* tenants listed; the rest added up in one line */

struct tenant_time {
	bool others;                    /* the last line: every tenant past SUMMARY_MAX - 1 */
	bool uid_known;
	uint32_t uid;
	uint64_t ns[3];                 /* on CPU, waiting for a CPU, blocked */
	uint64_t on_samples;
};

static struct tenant_time *tenant_of(struct tenant_time *t, size_t *nr, const struct dict_task *dt)
{
	bool known = dt->flags & DICT_TASK_UID_KNOWN;
	size_t i;

	for (i = 0; i < *nr; i++)
		if (!t[i].others && t[i].uid_known == known && (!known || t[i].uid == dt->uid))
			return &t[i];
	if (*nr < SUMMARY_MAX - 1) {
		t[*nr] = (struct tenant_time){ .uid_known = known, .uid = dt->uid };
		return &t[(*nr)++];
	}
	if (*nr == SUMMARY_MAX - 1)
		t[(*nr)++] = (struct tenant_time){ .others = true };
	return &t[SUMMARY_MAX - 1];
}

static void print_share(const char *what, uint64_t ns, uint64_t all)
{
	printf("  %s %9.3f s %5.1f %%", what, (double)ns / 1e9, all ? 100.0 * (double)ns / (double)all : 0.0);
}

/*
 * The report's text starts with each tenant's wall time in three: on a CPU (the
 * daemon's clock event's periods: nanoseconds; another event's samples are not time),
 * waiting for a CPU, blocked.  The tables after it break each down (--sort holder).
 */
static void print_off_cpu_summary(const struct answer *a)
{
	uint64_t span = a->window.end_ns - a->window.start_ns, measured = a->window.c.offcpu_window_ns;
	bool windowed = (a->window.flags & BUCKET_OFFCPU) && measured < span;
	static struct tenant_time t[SUMMARY_MAX];
	bool clock = a->m.event_type == PERF_TYPE_SOFTWARE &&
		     (a->m.event_config == PERF_COUNT_SW_CPU_CLOCK || a->m.event_config == PERF_COUNT_SW_TASK_CLOCK);
	static struct users users;
	size_t nr = 0;

	for (size_t i = 0; i < a->nr; i++) {
		const struct dict_task *dt = dict__task_get(a->dict, a->e[i].task);
		struct tenant_time *x = tenant_of(t, &nr, dt);
		size_t ev = event_of_task(dt);

		x->ns[ev] += a->e[i].period;
		if (!ev)
			x->on_samples += a->e[i].samples;
	}
	printf("# off-CPU time per user (profd): on a CPU, waiting for a CPU (runq), blocked%s\n",
	       clock ? "" : " (on a CPU: samples of the daemon's event, not time)");
	/* off_cpu_window: runq and blocked are of the windows' seconds only, on of all of
	 * them, so no share of the three: each in seconds, the off-CPU two per measured s */
	if (windowed)
		printf("# (runq and blocked measured over %.1f s of the %.0f s, unscaled: shares are of those "
		       "seconds; on over all of them)\n", (double)measured / 1e9, (double)span / 1e9);
	for (size_t i = 0; i < nr; i++) {
		uint64_t on = clock ? t[i].ns[0] : 0, all = on + t[i].ns[1] + t[i].ns[2];
		const char *name = t[i].uid_known ? users__name(&users, t[i].uid) : NULL;
		char label[64];

		if (t[i].others)
			snprintf(label, sizeof(label), "(the others)");
		else if (name)
			snprintf(label, sizeof(label), "%s", name);
		else if (t[i].uid_known)
			snprintf(label, sizeof(label), "uid %u", t[i].uid);
		else
			snprintf(label, sizeof(label), "[unknown]");
		printf("#   %-16s", label);
		if (windowed && clock)
			print_share("on", on, span);
		else if (clock)
			print_share("on", on, all);
		else
			printf("  on %" PRIu64 " samples", t[i].on_samples);
		print_share("runq", t[i].ns[1], windowed ? measured : all);
		print_share("blocked", t[i].ns[2], windowed ? measured : all);
		putchar('\n');
	}
	printf("#\n");
}

static bool wants_holder_cgroup(const struct report_opts *o)
{
	for (size_t i = 0; i < o->view.nr_keys; i++)
		if (o->view.keys[i] == PROFILE_KEY_HOLDER_CGROUP || o->view.keys[i] == PROFILE_KEY_HOLDER_CONTAINER)
			return true;
	return false;
}

int daemon_query__open(struct daemon_query *q, struct report_opts *o, char *path, size_t len)
{
	int fd, err;

	q->off_cpu = true;
	err = daemon_query__ask(q, o, "prof report");

	if (err < 0)
		return err;
	/* a holder's cgroup names another tenant's: only root's and the admins' answers
	 * have them (view.c) */
	if (wants_holder_cgroup(o) && !q->a.m.admin) {
		fprintf(stderr, "prof report: the CPU holders' cgroups and containers are told to root and the "
			"admin group only ([policy] admin_group): --sort holder gives yours by user (self, other "
			"tenants, system, idle)\n");
		return -EPERM;
	}
	fd = memfd_create("prof-daemon-answer", MFD_CLOEXEC);
	if (fd < 0 || (err = write_header(fd, &q->a, o)) < 0) {
		err = fd < 0 ? -errno : err;
		fprintf(stderr, "prof report: cannot hold the answer in memory: %s\n", strerror(-err));
		if (fd >= 0)
			close(fd);
		return err;
	}
	describe(q, &q->a, q->socket_path);
	if (has_off_cpu(&q->a) && o->format == FORMAT_TEXT)
		print_off_cpu_summary(&q->a);
	else if (!has_off_cpu(&q->a) && !q->a.m.off_cpu && wants_holder(o))
		fprintf(stderr, "prof report: profd keeps no off-CPU time in this window ([daemon] off_cpu = yes "
			"turns it on, profd(8)): no CPU holder to sort by\n");
	o->input = q->label;
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

/* ---- the answer as the report's engine ----------------------------------------------------- */

/* The model's name of a path: objects with a build id are told to the model (an MMAP2
 * of a pid of its own), so pprof's mappings name it; others are plain names. */
static const char *object_name(struct model *m, struct strset *names, const struct dict *d,
			       const struct dict_obj *o, uint64_t at)
{
	const char *path = dict__text(d, o->path);
	union {
		struct perf_record_mmap2 r;
		char bytes[sizeof(struct perf_record_mmap2) - PATH_MAX + DICT_MAX_STR + 8];
	} u = { 0 };
	size_t n = strlen(path), size = ALIGN_UP(offsetof(struct perf_record_mmap2, filename) + n + 1, (size_t)8);
	const struct model_dso *md;

	if (o->kind != DICT_OBJ_FILE || !o->build_id_len || n > DICT_MAX_STR)
		return strset__intern(names, path);
	u.r.header = (struct perf_event_header){ .type = PERF_RECORD_MMAP2, .size = (uint16_t)size,
						 .misc = PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID };
	u.r.pid = u.r.tid = 1;
	u.r.start = at;
	u.r.len = 4096;
	u.r.prot = 5;           /* read, exec */
	u.r.build_id_size = o->build_id_len;
	memcpy(u.r.build_id, o->build_id, o->build_id_len);
	memcpy(u.r.filename, path, n);
	if (model__process(m, &u.r.header) < 0)
		return NULL;
	for (uint32_t i = 0; (md = model__dso(m, i)); i++)
		if (!strcmp(md->name, path) && md->build_id_len == o->build_id_len &&
		    !memcmp(md->build_id, o->build_id, o->build_id_len))
			return md->name;
	return strset__intern(names, path);
}

/* Every frame of the answer as the engine's (frames[i] for dict frame i). */
static int frames_of(const struct answer *a, struct model *m, struct strset *names, struct profile_frame *frames)
{
	size_t nobj = dict__nr(a->dict, DICT_OBJ);
	const char **objs = calloc(nobj + 1, sizeof(*objs));

	if (!objs)
		return -ENOMEM;
	for (size_t i = 0; i < nobj; i++)
		if (!(objs[i] = object_name(m, names, a->dict, dict__obj_get(a->dict, (uint32_t)i),
					    (uint64_t)(i + 1) << 24))) {
			free(objs);
			return -ENOMEM;
		}
	for (size_t i = 0; i < dict__nr(a->dict, DICT_FRAME); i++) {
		const struct dict_frame *f = dict__frame_get(a->dict, (uint32_t)i);

		frames[i] = (struct profile_frame){ .dso = objs[f->obj], .sym = strset__intern(names, dict__text(a->dict, f->sym)),
						    .kernel = f->flags & DICT_FRAME_KERNEL,
						    .inlined = f->flags & DICT_FRAME_INLINED };
		if (!frames[i].sym) {
			free(objs);
			return -ENOMEM;
		}
	}
	free(objs);
	return 0;
}

/* A task's cgroup path, told to the model as the kernel's CGROUP record would. */
static int tell_one_cgroup(struct model *m, const struct dict *d, uint32_t str, uint64_t id)
{
	union {
		struct perf_record_cgroup r;
		char bytes[sizeof(struct perf_event_header) + 8 + DICT_MAX_STR + 8];
	} u = { 0 };
	const char *path = dict__text(d, str);
	size_t n = strlen(path);

	if (str == DICT_NONE || !id || model__cgroup(m, id) || n > DICT_MAX_STR)
		return 0;
	u.r.header = (struct perf_event_header){ .type = PERF_RECORD_CGROUP,
						 .size = (uint16_t)ALIGN_UP(offsetof(struct perf_record_cgroup, path) + n + 1, (size_t)8) };
	u.r.id = id;
	memcpy(u.r.path, path, n);
	return model__process(m, &u.r.header);
}

/* The task's cgroup, and a runq task's holder's (root's answers), into the model. */
static int tell_cgroup(struct model *m, const struct dict *d, const struct dict_task *t)
{
	int err = tell_one_cgroup(m, d, t->cgroup, t->cgroup_id);

	return err < 0 || !t->holder_cgroup_id ? err : tell_one_cgroup(m, d, t->holder_cgroup, t->holder_cgroup_id);
}

/* One entry's samples, each counted as the engine counts a sample: the period shared out. */
static int add_entry(struct profile *p, const struct profile_task *t, const struct profile_frame *st, size_t nr,
		     const struct bucket_entry *e)
{
	uint64_t share = e->samples ? e->period / e->samples : 0;

	for (uint64_t s = 0; s < e->samples; s++) {
		uint64_t period = s + 1 == e->samples ? e->period - share * (e->samples - 1) : share;

		if (profile__add(p, t, st, nr, period) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* The entries of one event (event_of_task) into p; (size_t)-1: every entry. */
static int fill_entries(const struct answer *a, size_t event, struct profile *p, struct model *m,
			struct strset *names)
{
	struct profile_frame *frames = calloc(dict__nr(a->dict, DICT_FRAME) + 1, sizeof(*frames));
	struct profile_frame stack[DICT_MAX_STACK];
	int err = frames ? frames_of(a, m, names, frames) : -ENOMEM;

	for (size_t i = 0; i < a->nr && !err; i++) {
		const struct dict_task *t = dict__task_get(a->dict, a->e[i].task);
		struct profile_task pt = { .uid = t->uid, .uid_known = t->flags & DICT_TASK_UID_KNOWN,
					   .cgroup = t->cgroup != DICT_NONE ? t->cgroup_id : 0,
					   .holder = t->holder,
					   .comm = strset__intern(names, dict__text(a->dict, t->comm)) };
		size_t nr;
		const uint32_t *ids = dict__stack_get(a->dict, a->e[i].stack, &nr);

		if (event != (size_t)-1 && event_of_task(t) != event)
			continue;

		err = pt.comm ? tell_cgroup(m, a->dict, t) : -ENOMEM;
		pt.container = pt.cgroup ? model__container(m, pt.cgroup) : "";
		pt.holder_cgroup = t->holder_cgroup_id;
		pt.holder_container = pt.holder_cgroup ? model__container(m, pt.holder_cgroup) : NULL;
		for (size_t j = 0; j < nr; j++)
			stack[j] = frames[ids[j]];
		if (!err)
			err = add_entry(p, &pt, stack, nr, &a->e[i]);
	}
	free(frames);
	return err;
}

void daemon_query__event_samples(const struct daemon_query *q, uint64_t counts[DAEMON_QUERY_EVENTS])
{
	memset(counts, 0, DAEMON_QUERY_EVENTS * sizeof(*counts));
	for (size_t i = 0; i < q->a.nr; i++)
		counts[event_of_task(dict__task_get(q->a.dict, q->a.e[i].task))] += q->a.e[i].samples;
}

int daemon_query__fill_answer(const struct answer *a, struct profile *p, struct model *m, struct strset *names)
{
	return fill_entries(a, 0, p, m, names);
}

int daemon_query__fill(struct daemon_query *q, struct profile *p, struct model *m, struct strset *names,
		       uint64_t *first, uint64_t *last)
{
	return daemon_query__fill_event(q, 0, p, m, names, first, last);
}

bool daemon_query__offcpu_windowed(const struct daemon_query *q, uint64_t *ret_measured, uint64_t *ret_span)
{
	*ret_measured = q->a.window.c.offcpu_window_ns;
	*ret_span = q->a.window.end_ns - q->a.window.start_ns;
	return has_off_cpu(&q->a) && (q->a.window.flags & BUCKET_OFFCPU) && *ret_measured < *ret_span;
}

size_t daemon_query__nr_events(const struct daemon_query *q)
{
	return has_off_cpu(&q->a) ? 3 : 1;
}

int daemon_query__fill_event(struct daemon_query *q, size_t event, struct profile *p, struct model *m,
			     struct strset *names, uint64_t *first, uint64_t *last)
{
	*first = q->a.window.start_ns;
	*last = q->a.window.end_ns;
	return fill_entries(&q->a, event, p, m, names);
}

void daemon_query__release(struct daemon_query *q)
{
	answer__release(&q->a);
}
