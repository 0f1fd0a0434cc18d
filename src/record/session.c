/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <perf/event.h>

#include "prof/base/util.h"
#include "prof/record/ordered_queue.h"
#include "prof/record/pipeline.h"
#include "prof/record/session.h"
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
/* A round (judging, describing, writing; unwinding with --call-graph dwarf) stops
 * after this long and the ring buffers are read before it goes on, so that a long
 * round does not let them overflow: the queue takes the backlog instead. */
#define ROUND_SLICE_NS (5ull * 1000 * 1000)
/* ... up to this much: past it the rings are left to the kernel (which counts what it
 * loses) until prof has caught up, rather than prof's memory growing without bound. */
#define QUEUE_MAX_BYTES (256ull << 20)

struct session {
	const struct record_opts *opts;
	struct privs privs;
	struct events *events;
	const struct sample_layout *layout;
	struct perf_data_event attrs[RECORD_MAX_EVENTS + 3]; /* as the file states them */
	size_t nr_attrs;
	struct ordered_queue *queue;
	struct drained read;            /* what the last drain read, in the order read */
	uint64_t judge_before;          /* this round judges nothing from here on (look-up) */
	bool round_paused;              /* the last round stopped after its slice */
	unsigned int poll_ms;
	int proc_fd;
	struct pipeline *pipeline;
	uint64_t start_ns;
	bool kernel_hidden;
	struct session_drain_stats st;
	uint64_t last_drain;
	uint64_t judged_upto;           /* every record older than this was passed on */
};

/* Read every ring buffer into the queue, then look up the tasks met for the first time. */
static int drain(struct session *s)
{
	int err;

	uint64_t now = clock_mono_ns(), held = ordered_queue__bytes(s->queue);

	s->read.nr = 0;
	s->st.queue_peak = MAX(s->st.queue_peak, held);
	if (held > QUEUE_MAX_BYTES) {
		s->st.queue_full++;
		return 0;
	}
	if (s->last_drain && now - s->last_drain > s->st.max_gap_ns)
		s->st.max_gap_ns = now - s->last_drain;
	s->last_drain = now;
	s->st.drains++;
	err = events__drain(s->events, s->queue, &s->read);
	return err < 0 ? err : pipeline__look_up(s->pipeline, &s->read, &s->judge_before);
}

/* Everything older than upto, then mark the round (perf's FINISHED_ROUND). */
static int flush_round(struct session *s, uint64_t upto, uint64_t slice)
{
	int err = pipeline__flush(s->pipeline, s->queue, upto, slice);

	s->round_paused = err > 0;
	if (err == 0 && upto > s->judged_upto)
		s->judged_upto = upto;
	return err < 0 ? err : 0;
}

int session__step(struct session *s)
{
	uint64_t now;
	int err;

	err = events__poll(s->events, s->round_paused ? 0
			     : clock_mono_ns() - s->start_ns < START_PHASE_NS ? START_POLL_MS : s->poll_ms);
	if (err < 0 && err != -EINTR)
		return err;
	now = events__now(s->events);
	s->judge_before = UINT64_MAX;
	err = drain(s);
	if (err < 0)
		return err;
	/* a replay's rounds whole: what its drains are does not hang on its speed */
	return flush_round(s, MIN(now > ROUND_SLACK_NS ? now - ROUND_SLACK_NS : 0,
				  s->judge_before ? s->judge_before - 1 : 0),
			   events__replaying(s->events) ? 0 : ROUND_SLICE_NS);
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
	err = flush_round(s, UINT64_MAX, 0);
	pipeline__finish(s->pipeline);
	return err < 0 ? err : pipeline__sink_error(s->pipeline);
}

int session__offcpu_window(struct session *s, bool on, uint64_t *ret_time)
{
	int err = events__offcpu_window(s->events, on, ret_time);

	return err < 0 ? err : pipeline__offcpu_window(s->pipeline, on, *ret_time);
}

void session__each_open_offcpu(const struct session *s, offcpu_open_fn fn, void *ctx)
{
	pipeline__each_open_offcpu(s->pipeline, fn, ctx);
}

bool session__replaying(const struct session *s)
{
	return events__replaying(s->events);
}

bool session__replay_done(const struct session *s)
{
	return events__replay_done(s->events);
}

uint64_t session__judged_upto(const struct session *s)
{
	return s->judged_upto;
}

bool session__build_id(const struct session *s, uint32_t maj, uint32_t min, uint64_t ino, struct build_id *ret)
{
	return pipeline__build_id(s->pipeline, maj, min, ino, ret);
}

bool session__foreign(const struct session *s, uint32_t maj, uint32_t min, uint64_t ino, char *buf, size_t size)
{
	return pipeline__foreign(s->pipeline, maj, min, ino, buf, size);
}

/* ---- life cycle ------------------------------------------------------------- */

static int fail(struct session_error *e, enum session_stage stage, int err)
{
	e->stage = stage;
	e->err = err;
	return err;
}

/* The events, and what the file says of them (with dwarf: a callchain, no stack). */
static int open_events(struct session *s, int cgroup_fd, struct session_error *e)
{
	const struct perf_data_event *evs;
	int err;

	err = events__new(s->opts, cgroup_fd, &s->events, &e->events, &e->event);
	if (err < 0)
		return fail(e, SESSION_STAGE_EVENTS, err);
	s->layout = events__layout(s->events);
	evs = events__attrs(s->events, &s->nr_attrs);
	if (s->nr_attrs > ARRAY_SIZE(s->attrs))
		return fail(e, SESSION_STAGE_EVENTS, -EINVAL);
	memcpy(s->attrs, evs, s->nr_attrs * sizeof(*evs));
	/* the sampling events' and the off-CPU ones' (not the sideband) */
	for (size_t i = 0; (s->opts->dwarf || s->opts->java_stack) && i < s->nr_attrs; i++) {
		struct perf_event_attr *a = &s->attrs[i].attr;

		if (a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_DUMMY)
			continue;
		a->sample_type = unwinder__written_sample_type(a->sample_type);
		a->sample_regs_user = 0;
		a->sample_stack_user = 0;
		a->exclude_callchain_user = 0;
	}
	return 0;
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

/* --off-cpu's bound: a CPU's context-switch event samples 1 switch in period. */
static int offcpu_period(void *ctx, int cpu, uint64_t period)
{
	struct session *s = ctx;

	return events__offcpu_period(s->events, cpu, period);
}

/* The stages after the drain, with the tracepoints' ids.  prof's corked workload is
 * prof until its exec: named as /proc names this process now. */
static int open_pipeline(struct session *s, const struct session_config *cfg, int proc_fd)
{
	const struct events_info *info = events__info(s->events);
	const struct events_creds *creds;
	_cleanup_free_ char *self = NULL;
	char comm[16] = "";
	struct pipeline_config pc = {
		.scope = &s->opts->scope, .verdict = cfg->verdict, .layout = s->layout,
		.sample_type = s->attrs[0].attr.sample_type, .proc_fd = proc_fd,
		.cgroup_fd = cfg->cgroup_fd, .creds_events = info->creds, .raw_uid_off = info->raw_uid_off,
		.unwind = s->opts->dwarf ? events__attrs(s->events, &(size_t){ 0 })[0].attr.sample_type : 0,
		.java_g = s->opts->java_stack && !s->opts->dwarf ? events__attrs(s->events, &(size_t){ 0 })[0].attr.sample_type : 0,
		.python_chains = events__python_chains(s->events),
		.workload = cfg->workload, .workload_comm = comm, .objects = cfg->objects, .cache = cfg->cache,
		.sink = cfg->sink, .sink_ctx = cfg->sink_ctx, .live = cfg->live,
		.switch_ids = info->switch_ids, .nr_switch_ids = info->nr_switch_ids,
		.offcpu_by_uid = s->opts->off_cpu_by_uid, .offcpu_min_period = s->opts->off_cpu_min_period,
		.offcpu_max_rate = s->opts->off_cpu_max_rate == RECORD_OFFCPU_UNBOUNDED ? 0
				   : s->opts->off_cpu_max_rate ? s->opts->off_cpu_max_rate
				   : OFFCPU_DEFAULT_MAX_RATE,
		.offcpu_scoped = info->filter_cgroups > 0, .offcpu_period = offcpu_period, .offcpu_period_ctx = s,
		.offcpu_wakeups = info->wakeups,
	};
	size_t n;
	int err;

	if (cfg->workload && read_file_full(AT_FDCWD, "/proc/self/comm", 64, &self) > 0)
		procfs__comm(self, comm);
	err = pipeline__new(&pc, &s->pipeline);
	if (err < 0)
		return err;
	n = events__creds(s->events, &creds);
	for (size_t i = 0; i < n; i++) {
		err = pipeline__add_creds_ids(s->pipeline, (enum creds_call)creds[i].call, creds[i].ids,
					      creds[i].nr_ids, info->raw_uid_off);
		if (err < 0)
			return err;
	}
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
	s->poll_ms = cfg->poll_ms ? cfg->poll_ms : POLL_MS;
	s->privs = *cfg->privs;
	s->proc_fd = -1;
	err = open_events(s, cfg->cgroup_fd, &e);
	if (err < 0)
		goto err;
	s->queue = ordered_queue__new();
	if (!s->queue) {
		err = fail(&e, SESSION_STAGE_NONE, -ENOMEM);
		goto err;
	}
	s->proc_fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->proc_fd < 0) {
		err = fail(&e, SESSION_STAGE_PROC, -errno);
		goto err;
	}
	if (creds_missing(s, cfg->verdict)) {
		err = fail(&e, SESSION_STAGE_CREDS, events__info(s->events)->creds_err);
		goto err;
	}
	err = open_pipeline(s, cfg, s->proc_fd);
	if (err < 0) {
		fail(&e, SESSION_STAGE_SCOPE, err);
		goto err;
	}
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
	/* the pipeline first: its runtimes let go of what they hold in the events (the
	 * Python chains' map, a process's entry removed at detach) */
	pipeline__free(s->pipeline);
	events__free(s->events);
	ordered_queue__free(s->queue);
	free(s->read.recs);
	if (s->proc_fd >= 0)
		close(s->proc_fd);
	free(s);
	return NULL;
}

int session__start(struct session *s, struct session_error *ret_err)
{
	/* No kernel map for those the policy keeps away from kernel addresses. */
	int err = s->opts->no_kernel ? 0 : pipeline__describe_kernel(s->pipeline);

	if (pipeline__sink_error(s->pipeline))
		return fail(ret_err, SESSION_STAGE_SINK, pipeline__sink_error(s->pipeline));
	s->kernel_hidden = err == -EPERM;
	s->start_ns = clock_mono_ns();
	events__enable(s->events, s->queue);
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

void session__set_deadline(struct session *s, uint64_t ns)
{
	events__set_deadline(s->events, ns);
}

void session__stats(const struct session *s, struct session_stats *ret)
{
	*ret = (struct session_stats){
		.records = pipeline__stats(s->pipeline),
		.scope = pipeline__scope_stats(s->pipeline),
		.unwind = pipeline__unwind_stats(s->pipeline),
		.python = pipeline__python_stats(s->pipeline),
		.jvm = pipeline__jvm_stats(s->pipeline),
		.node = pipeline__node_stats(s->pipeline),
		.python_hint = pipeline__python_hint_stats(s->pipeline),
		.objects = pipeline__objects_stats(s->pipeline),
		.perf_maps = pipeline__perf_maps(s->pipeline),
		.offcpu = pipeline__offcpu_stats(s->pipeline),
		.kernel_hidden = s->kernel_hidden,
		.drain = s->st,
		.filter_cgroups = events__info(s->events)->filter_cgroups,
	};
	ret->drain.foreign_samples = events__foreign_samples(s->events, &ret->drain.foreign_kept);
	events__spill_stats(s->events, &ret->drain.spill);
	ledger__written_tasks(pipeline__ledger(s->pipeline), &ret->tasks_written);
}

bool session__runtime_name(const struct session *s, const struct model_dso *d, uint64_t off, const char **ret)
{
	return pipeline__runtime_name(s->pipeline, d, off, ret);
}

bool session__uid(const struct session *s, int32_t tid, uint32_t *ret)
{
	return pipeline__uid(s->pipeline, tid, ret);
}

const struct offcpu_holder_info *session__offcpu_holder(const struct session *s, uint32_t h)
{
	const struct offcpu *o = pipeline__offcpu(s->pipeline);

	return o ? offcpu__holder(o, h) : NULL;
}

size_t session__nr_offcpu_holders(const struct session *s)
{
	const struct offcpu *o = pipeline__offcpu(s->pipeline);

	return o ? offcpu__nr_holders(o) : 0;
}

const struct ledger *session__ledger(const struct session *s)
{
	return pipeline__ledger(s->pipeline);
}
