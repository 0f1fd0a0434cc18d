/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <perf/event.h>

#include "prof/base/util.h"
#include "prof/record/ordered_queue.h"
#include "prof/record/session.h"
#include "prof/scope/cgroups.h"
#include "prof/synth/map_dedup.h"
#include "prof/synth/synth.h"
#include "prof/sys/procfs.h"

/*
 * A record stamped t may still be invisible in its ring buffer shortly after t (the
 * kernel stamps it before it commits it).  Records are judged only once they are
 * this much older than the moment the buffers were read.
 */
#define ROUND_SLACK_NS (50ull * 1000 * 1000)
/* Short, so that tasks met for the first time are looked up in /proc soon after
 * their first sample: the shorter this, the fewer short-lived ones are missed. */
#define POLL_MS 25
/* Right after the start every task is one met for the first time, and those about to
 * exit are gone within milliseconds: drain very often for a moment. */
#define START_POLL_MS 1
#define START_PHASE_NS (300ull * 1000 * 1000)
/* Unwinding (--call-graph dwarf) can take long on a busy host: a round stops after
 * this long and the ring buffers are read before it goes on, so they do not overflow. */
#define UNWIND_SLICE_NS (20ull * 1000 * 1000)

struct session {
	const struct record_opts *opts;
	struct privs privs;
	session_sink_fn sink;
	void *sink_ctx;
	int sink_err;                   /* the sink failed: nothing more goes to it */
	struct events *events;
	const struct sample_layout *layout;
	struct perf_data_event attrs[2]; /* as the file states them */
	size_t nr_attrs;
	struct ordered_queue *queue;
	struct drained read;            /* what the last drain read, in the order read */
	uint64_t judge_before;          /* this round judges nothing from here on (look_up) */
	uint64_t round_deadline;        /* with an unwinder: pause the round past this time */
	bool round_paused;              /* ... it did: go on at once after reading the buffers */
	struct tracker *tracker;
	struct cgroups *cgroups;
	struct ledger *ledger;
	struct map_dedup *dedup;
	struct synth_env synth;
	struct unwinder *unwinder;      /* --call-graph dwarf: samples passed on unwound */
	uint8_t *unwound;               /* ... one rewritten sample */
	size_t unwound_len;
	uint64_t start_ns;
	struct session_stats st;
};

/* ---- the stages, last first ----------------------------------------------- */

/* The last stage: the caller's sink (the unwinder knows each process's maps as the
 * sink is told them). */
static int sink(const void *rec, size_t len, void *ctx)
{
	struct session *s = ctx;
	int err;

	if (s->sink_err)
		return s->sink_err;
	err = s->unwinder ? unwinder__note(s->unwinder, rec) : 0;
	if (err == 0)
		err = s->sink(rec, len, s->sink_ctx);
	if (err < 0) {
		s->sink_err = err;
		return err;
	}
	s->st.records++;
	return 0;
}

/* A task's description read from /proc at `read_done`: its maps are remembered, so
 * that the kernel's MMAP2s stamped before then, which repeat them, are dropped. */
struct description {
	struct session *s;
	uint64_t read_done;
};

static int sink_description(const void *rec, size_t len, void *ctx)
{
	const struct description *d = ctx;
	const struct perf_record_mmap2 *m = rec;

	if (m->header.type == PERF_RECORD_MMAP2 &&
	    map_dedup__add(d->s->dedup, (int32_t)m->pid, d->read_done, m->start, m->len, m->pgoff) < 0)
		return -ENOMEM;
	return sink(rec, len, d->s);
}

/* A pre-existing task's comm and maps, read from /proc now.  0 or -errno. */
static int describe_task(struct session *s, const struct ledger_need *need, uint64_t time)
{
	struct synth_task task;
	int err;

	err = synth__read_task(&s->synth, need->pid, need->tid, need->what, &task);
	if (err == 0)
		err = synth__task(&s->synth, &task, time, sink_description,
				  &(struct description){ .s = s, .read_done = task.read_done });
	synth_task__release(&task);
	if (s->sink_err)
		return s->sink_err;
	if (err == -ESRCH && (need->what & SYNTH_COMM) && need->comm) {
		/* Gone since it was first looked up: the comm read then still names it. */
		err = synth__comm(&s->synth, need->pid, need->tid, need->comm, time, sink, s);
		if (err < 0)
			return err;
		err = -ESRCH;   /* the maps are still unknown */
	}
	/* Gone, or unreadable: the sample is kept, perf shows it by pid. */
	if (err < 0)
		s->st.described_gone++;
	else
		s->st.described++;
	return ledger__described(s->ledger, need, err);
}

/* Give the file what the ledger says it lacks before a record: a cgroup's path, a
 * task's comm and maps. */
static int describe(struct session *s, const struct ledger_need *need, uint64_t time)
{
	int err;

	if (need->cgroup) {
		err = synth__cgroup(&s->synth, need->cgroup, need->cgroup_path, time, sink, s);
		if (err < 0)
			return err;
	}
	if (!need->what)
		return 0;
	if (need->pre_exec && (need->what & SYNTH_COMM)) {
		/* The name it had then; /proc names what it exec'd since. */
		err = synth__comm(&s->synth, need->pid, need->tid, need->comm ? need->comm : "prof", time, sink, s);
		if (err < 0)
			return err;
		return ledger__described(s->ledger, need, 0);
	}
	return describe_task(s, need, time);
}

/* A kernel MMAP2 that repeats a map just described from /proc: dropped. */
static bool repeats_description(struct session *s, const struct perf_event_header *ev, uint64_t time)
{
	if (ev->type == PERF_RECORD_COMM && (ev->misc & PERF_RECORD_MISC_COMM_EXEC))
		map_dedup__forget(s->dedup, (int32_t)((const struct perf_record_comm *)(const void *)ev)->pid);
	if (ev->type == PERF_RECORD_MMAP2 && ev->size >= offsetof(struct perf_record_mmap2, filename)) {
		const struct perf_record_mmap2 *m = (const void *)ev;

		return map_dedup__repeats(s->dedup, (int32_t)m->pid, time, m->start, m->len, m->pgoff);
	}
	return false;
}

static void count_lost(struct session *s, const struct perf_event_header *ev)
{
	if (ev->type == PERF_RECORD_LOST && ev->size >= sizeof(struct perf_record_lost))
		s->st.lost += ((const struct perf_record_lost *)(const void *)ev)->lost;
	else if (ev->type == PERF_RECORD_LOST_SAMPLES && ev->size >= sizeof(struct perf_record_lost_samples))
		s->st.lost_samples += ((const struct perf_record_lost_samples *)(const void *)ev)->lost;
}

/* A sample passed on with its user stack unwound into the callchain, not the registers
 * and the stack copy.  1 pauses the round (flush_round): it took its slice. */
static int unwind(struct session *s, const struct perf_event_header *ev)
{
	int len = unwinder__rewrite(s->unwinder, ev, s->unwound, s->unwound_len);
	int err;

	if (len < 0) {
		s->st.malformed++;
		return 0;
	}
	err = sink(s->unwound, (size_t)len, s);
	if (err == 0 && clock_mono_ns() > s->round_deadline)
		return 1;
	return err;
}

/* Each record the queue hands out, in time order: judge, describe, sink. */
static int judge(const struct perf_event_header *ev, uint64_t time, void *ctx)
{
	struct session *s = ctx;
	struct judgement j;
	struct ledger_need need;
	int v, err;

	v = tracker__judge(s->tracker, ev, time, &j);
	if (v < 0)
		return v;
	/* written or not: a record dropped leaves the file's description stale */
	err = ledger__note(s->ledger, ev, v, &j, time, &need);
	if (err < 0 || v != TRACKER_WRITE)
		return err;
	err = describe(s, &need, time);
	if (err < 0)
		return err;
	if (repeats_description(s, ev, time))
		return 0;
	count_lost(s, ev);
	if (s->unwinder && ev->type == PERF_RECORD_SAMPLE)
		return unwind(s, ev);
	return sink(ev, ev->size, s);
}

/*
 * Judge and pass on everything older than upto, then mark the round for perf.  With
 * an unwinder and a slice, the round may stop early (s->round_paused): what is left
 * goes in the next one.
 */
static int flush_round(struct session *s, uint64_t upto, uint64_t slice)
{
	uint64_t before = s->st.records;
	int err;

	s->round_deadline = slice ? clock_mono_ns() + slice : UINT64_MAX;
	err = ordered_queue__flush(s->queue, upto, judge, s);
	s->round_paused = err > 0;
	if (err > 0)
		err = 0;
	if (err < 0)
		return err;
	if (s->st.records != before) {
		struct perf_event_header round = { .type = PERF_RECORD_FINISHED_ROUND,
						   .size = sizeof(round) };
		err = sink(&round, sizeof(round), s);
	}
	return err;
}

/*
 * The first-time look-up of the tasks in what the drain read, in the order read.  A
 * task found gone may have its EXIT (which names its parent) in a buffer past where
 * the drain read: nothing from its sample on is judged before the next drain.
 */
static int look_up(struct session *s)
{
	for (size_t i = 0; i < s->read.nr; i++) {
		const struct perf_event_header *ev = s->read.recs[i];
		int ret = tracker__look_up(s->tracker, ev);

		if (ret < 0)
			return ret;
		if (ret == TRACKER_WAIT_FOR_EXIT)
			s->judge_before = MIN(s->judge_before, sample_layout__time(s->layout, ev));
	}
	return 0;
}

/* Read every ring buffer into the queue, then look up the tasks met for the first time. */
static int drain(struct session *s)
{
	int err;

	s->read.nr = 0;
	err = events__drain(s->events, s->queue, &s->read);
	return err < 0 ? err : look_up(s);
}

int session__step(struct session *s)
{
	uint64_t now;
	int err;

	err = events__poll(s->events, s->round_paused ? 0
			     : clock_mono_ns() - s->start_ns < START_PHASE_NS ? START_POLL_MS : POLL_MS);
	if (err < 0 && err != -EINTR)
		return err;
	now = clock_mono_ns();
	s->judge_before = UINT64_MAX;
	err = drain(s);
	if (err < 0)
		return err;
	return flush_round(s, MIN(now > ROUND_SLACK_NS ? now - ROUND_SLACK_NS : 0,
				  s->judge_before ? s->judge_before - 1 : 0),
			   UNWIND_SLICE_NS);
}

int session__stop(struct session *s)
{
	int err;

	events__disable(s->events);
	s->judge_before = UINT64_MAX;
	err = drain(s);
	/* a task found gone: its EXIT may wait past where a buffer was read */
	if (err >= 0 && s->judge_before != UINT64_MAX)
		err = drain(s);
	if (err < 0)
		return err;
	return flush_round(s, UINT64_MAX, 0);
}

/* ---- life cycle ------------------------------------------------------------- */

static int fail(struct session_error *e, enum session_stage stage, int err)
{
	e->stage = stage;
	e->err = err;
	return err;
}

/* The events, and what the file says of them; with dwarf, the unwinder. */
static int open_events(struct session *s, struct session_error *e)
{
	const struct perf_data_event *evs;
	struct perf_event_attr *a = &s->attrs[0].attr;
	int err;

	err = events__new(s->opts, &s->events, &e->events);
	if (err < 0)
		return fail(e, SESSION_STAGE_EVENTS, err);
	s->layout = events__layout(s->events);
	evs = events__attrs(s->events, &s->nr_attrs);
	if (s->nr_attrs > ARRAY_SIZE(s->attrs))
		return fail(e, SESSION_STAGE_EVENTS, -EINVAL);
	memcpy(s->attrs, evs, s->nr_attrs * sizeof(*evs));
	if (!s->opts->dwarf)
		return 0;
	s->unwinder = unwinder__new(a->sample_type);
	s->unwound_len = UINT16_MAX + 8 * (UNWIND_MAX_FRAMES + 2);
	s->unwound = malloc(s->unwound_len);
	if (!s->unwinder || !s->unwound)
		return fail(e, SESSION_STAGE_NONE, -ENOMEM);
	/* The file's attr says what the written samples hold: a callchain, no stack. */
	a->sample_type = unwinder__written_sample_type(a->sample_type);
	a->sample_regs_user = 0;
	a->sample_stack_user = 0;
	a->exclude_callchain_user = 0;
	return 0;
}

/* prof's corked workload is prof until its exec: its name, as /proc gives it now. */
static void name_workload(struct session *s, pid_t pid)
{
	_cleanup_free_ char *self = NULL;
	char comm[16] = "";

	if (read_file_full(AT_FDCWD, "/proc/self/comm", 64, &self) > 0)
		procfs__comm(self, comm);
	ledger__set_workload(s->ledger, pid, comm[0] ? comm : "prof");
}

/*
 * --uid of someone who is not an admin needs the set*uid() tracepoints: without them a
 * process of theirs that becomes root (su, sudo, a set-user-ID program calling
 * setuid(0)) would stay theirs until its next exec, and root's samples would land in
 * their file.  Admins may record any uid anyway (the command warns them).
 */
static bool creds_missing(const struct session *s, const struct policy_verdict *v)
{
	return s->opts->scope.nr_uids && !events__info(s->events)->creds && !v->admin;
}

/* The tracker and what it works with: the cgroup registry, the ledger. */
static int open_scope(struct session *s, const struct session_config *cfg, struct session_error *e)
{
	const struct events_info *info = events__info(s->events);
	const struct events_creds *creds;
	struct tracker_config tc = {
		.scope = &s->opts->scope, .layout = s->layout, .proc_fd = s->synth.proc_fd,
		.cgroup_fd = cfg->cgroup_fd, .creds_events = info->creds,
		.restrict_uid = cfg->verdict->restrict_uid, .only_uid = cfg->verdict->uid,
		.raw_uid_off = info->raw_uid_off,
	};
	size_t n;
	int err;

	if (creds_missing(s, cfg->verdict))
		return fail(e, SESSION_STAGE_CREDS, info->creds_err);
	err = cgroups__new(&s->opts->scope, cfg->cgroup_fd, &s->cgroups);
	if (err < 0)
		return fail(e, SESSION_STAGE_SCOPE, err);
	tc.cgroups = s->cgroups;
	s->ledger = ledger__new(s->cgroups);
	if (!s->ledger || tracker__new(&tc, &s->tracker) < 0)
		return fail(e, SESSION_STAGE_SCOPE, -ENOMEM);
	n = events__creds(s->events, &creds);
	for (size_t i = 0; i < n; i++)
		if (tracker__add_creds_ids(s->tracker, (enum creds_call)creds[i].call, creds[i].ids,
					   creds[i].nr_ids) < 0)
			return fail(e, SESSION_STAGE_NONE, -ENOMEM);
	if (s->opts->scope.workload && tracker__add_tree_root(s->tracker, s->opts->scope.workload) < 0)
		return fail(e, SESSION_STAGE_NONE, -ENOMEM);
	if (cfg->workload)
		name_workload(s, cfg->workload);
	return 0;
}

int session__new(const struct session_config *cfg, struct session **ret, struct session_error *ret_err)
{
	struct session *s = calloc(1, sizeof(*s));
	struct session_error e = { 0 };
	int err;

	if (!s)
		return fail(ret_err, SESSION_STAGE_NONE, -ENOMEM);
	s->opts = cfg->opts;
	s->privs = *cfg->privs;
	s->sink = cfg->sink;
	s->sink_ctx = cfg->sink_ctx;
	s->synth.proc_fd = -1;
	err = open_events(s, &e);
	if (err < 0)
		goto err;
	s->queue = ordered_queue__new();
	s->dedup = map_dedup__new();
	if (!s->queue || !s->dedup) {
		err = fail(&e, SESSION_STAGE_NONE, -ENOMEM);
		goto err;
	}
	s->synth.sample_type = s->attrs[0].attr.sample_type;
	s->synth.proc_fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->synth.proc_fd < 0) {
		err = fail(&e, SESSION_STAGE_PROC, -errno);
		goto err;
	}
	err = open_scope(s, cfg, &e);
	if (err < 0)
		goto err;
	*ret = s;
	return 0;
err:
	*ret_err = e;
	session__free(s);
	return err;
}

struct session *session__free(struct session *s)
{
	if (!s)
		return NULL;
	events__free(s->events);
	ordered_queue__free(s->queue);
	free(s->read.recs);
	tracker__free(s->tracker);
	ledger__free(s->ledger);
	cgroups__free(s->cgroups);
	map_dedup__free(s->dedup);
	unwinder__free(s->unwinder);
	free(s->unwound);
	if (s->synth.proc_fd >= 0)
		close(s->synth.proc_fd);
	free(s);
	return NULL;
}

int session__start(struct session *s, struct session_error *ret_err)
{
	/* No kernel map for those the policy keeps away from kernel addresses. */
	int err = s->opts->no_kernel ? 0 : synth__kernel_maps(&s->synth, sink, s);

	if (s->sink_err)
		return fail(ret_err, SESSION_STAGE_SINK, s->sink_err);
	s->st.kernel_hidden = err == -EPERM;
	s->start_ns = clock_mono_ns();
	events__enable(s->events);
	return 0;
}

int session__drop_privileges(struct session *s)
{
	return privs__drop_after_start(&s->privs);
}

/* ---- what the commands read ---------------------------------------------------- */

const struct perf_data_event *session__attrs(const struct session *s, size_t *ret_nr)
{
	*ret_nr = s->nr_attrs;
	return s->attrs;
}

const struct events_info *session__info(const struct session *s)
{
	return events__info(s->events);
}

const struct sample_layout *session__layout(const struct session *s)
{
	return s->layout;
}

uint64_t session__start_time(const struct session *s)
{
	return s->start_ns;
}

void session__stats(const struct session *s, struct session_stats *ret)
{
	*ret = s->st;
	ledger__written_tasks(s->ledger, &ret->tasks_written);
	ret->scope = tracker__stats(s->tracker);
	ret->unwind = s->unwinder ? unwinder__stats(s->unwinder) : NULL;
}

bool session__uid(const struct session *s, int32_t tid, uint32_t *ret)
{
	return tracker__uid(s->tracker, tid, ret);
}

const struct ledger *session__ledger(const struct session *s)
{
	return s->ledger;
}
