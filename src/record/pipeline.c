/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perf/event.h>

#include "prof/base/util.h"
#include "prof/jvm/frames.h"
#include "prof/node/frames.h"
#include "prof/perfdata/build_id.h"
#include "prof/python/hint.h"
#include "prof/python/python.h"
#include "prof/offcpu/offcpu_quota.h"
#include "prof/record/pipeline.h"
#include "prof/runtime/runtime.h"
#include "prof/scope/cgroups.h"
#include "prof/synth/map_dedup.h"
#include "prof/synth/synth.h"
#include "prof/sys/pressure.h"
#include "prof/sys/task_file.h"

/* The most runtimes a recording's samples get frames of (the JVM, Python, ...). */
#define PIPELINE_RUNTIMES 4

struct pipeline {
	const struct sample_layout *layout;
	pipeline_sink_fn sink;
	void *sink_ctx;
	int sink_err;                   /* the sink failed: nothing more goes to it */
	uint64_t round_deadline;        /* pause the round past this time (the rings are read) */
	unsigned int ticks;             /* records judged: the clock is read every SLICE_TICKS */
	struct tracker *tracker;
	struct cgroups *cgroups;
	struct ledger *ledger;
	struct map_dedup *dedup;
	struct synth_env synth;
	struct unwinder *unwinder;      /* --call-graph dwarf: samples passed on unwound */
	struct objects *objects;        /* the mapped objects of what is written */
	struct offcpu *offcpu;          /* --off-cpu: switches into intervals */
	struct offcpu_quota *quota;     /* ... the scope's cgroups' CPU quotas (not profd's) */
	int v1_cpu_fd;                  /* ... the v1 cpu hierarchy, where mounted (-1) */
	/* the runtimes whose frames the samples get (runtime/runtime.h), in the order
	 * each is asked: the JVM's, V8's, then Python's */
	struct runtime_entry {
		const struct runtime_ops *ops;
		void *rt;
	} runtimes[PIPELINE_RUNTIMES];
	size_t nr_runtimes;
	struct python_hint *python_hint; /* without unwinding: Python processes' samples counted */
	/* -g with a runtime's frames (Python's callers read at the sample instant, the
	 * JVM's walked from the registers and stack the kernel copied): the maps the
	 * runtimes are found in */
	struct model *g_model;
	uint8_t *unwound, *unwound2;    /* one sample rewritten (-g: by each runtime in turn) */
	size_t unwound_len;
	struct pipeline_stats st;
};

/* How many records between two looks at the clock for the round's slice. */
#define SLICE_TICKS 64

/* The stages, last first. */

/*
 * -g: the maps of what is written that the runtimes are found in (ops->mapping: an
 * interpreter's, libjvm.so, their synthetic objects), not every mapping as the
 * unwinder keeps them with --call-graph dwarf: on a build host most records are other
 * programs' maps, and a second model of all of them cost a live reader (profd) half
 * as much again per record.
 */
static bool runtime_mapping(const struct pipeline *p, const struct perf_event_header *ev)
{
	const char *name;
	size_t len, at;

	if (ev->type == PERF_RECORD_MMAP2)
		at = offsetof(struct perf_record_mmap2, filename);
	else if (ev->type == PERF_RECORD_MMAP)
		at = offsetof(struct perf_record_mmap, filename);
	else
		return true;    /* not a mapping: the tasks' lives are kept */
	if (ev->size <= at)
		return true;    /* the model judges a malformed record */
	name = (const char *)ev + at;
	len = ev->size - at;
	if (!memchr(name, '\0', len))
		return true;    /* the model judges a malformed record */
	for (size_t i = 0; i < p->nr_runtimes; i++)
		if (p->runtimes[i].ops->mapping && p->runtimes[i].ops->mapping(name))
			return true;
	return false;
}

static int note_model(struct pipeline *p, const void *rec)
{
	const struct perf_event_header *ev = rec;
	const struct perf_record_comm *c = rec;
	const struct perf_record_fork *f = rec;
	struct model *m = p->g_model;

	if (!runtime_mapping(p, ev))
		return 0;

	if (ev->type == PERF_RECORD_COMM && (ev->misc & PERF_RECORD_MISC_COMM_EXEC) && ev->size >= sizeof(*c))
		model__clear_maps(m, (int32_t)c->pid);      /* the new program's mappings follow */
	/* an exited task forgotten at once (a daemon's model would grow with every task
	 * the host ran): its samples that follow the EXIT are in its kernel teardown,
	 * where no interpreter runs */
	if (ev->type == PERF_RECORD_EXIT && ev->size >= sizeof(*f)) {
		model__forget(m, (int32_t)f->pid, (int32_t)f->tid);
		return 0;
	}
	return ev->type == PERF_RECORD_SAMPLE ? 0 : model__process(m, ev);
}

/* The last stage: the caller's sink (the unwinder knows each process's maps as the
 * sink is told them). */
static int sink(const void *rec, size_t len, void *ctx)
{
	struct pipeline *p = ctx;
	int err;

	if (p->sink_err)
		return p->sink_err;
	err = p->unwinder ? unwinder__note(p->unwinder, rec) : p->g_model ? note_model(p, rec) : 0;
	/* before the sink: it asks for the build ids of the objects it is given */
	if (err == 0 && p->objects)
		err = objects__note(p->objects, rec);
	if (p->python_hint)
		python_hint__note(p->python_hint, rec);
	/* an exited process's runtime let go */
	for (size_t i = 0; i < p->nr_runtimes; i++)
		if (p->runtimes[i].ops->note)
			p->runtimes[i].ops->note(p->runtimes[i].rt, rec);
	if (err == 0)
		err = p->sink(rec, len, p->sink_ctx);
	if (err < 0) {
		p->sink_err = err;
		return err;
	}
	p->st.records++;
	return 0;
}

/* A task's description read from /proc at `read_done`: its maps are remembered, so
 * that the kernel's MMAP2s stamped before then, which repeat them, are dropped. */
struct description {
	struct pipeline *p;
	uint64_t read_done;
};

static int sink_description(const void *rec, size_t len, void *ctx)
{
	const struct description *d = ctx;
	const struct perf_record_mmap2 *m = rec;

	if (m->header.type == PERF_RECORD_MMAP2 &&
	    map_dedup__add(d->p->dedup, (int32_t)m->pid, d->read_done, m->start, m->len, m->pgoff) < 0)
		return -ENOMEM;
	return sink(rec, len, d->p);
}

/* A pre-existing task's comm and maps, read from /proc now.  0 or -errno. */
static int describe_task(struct pipeline *p, const struct ledger_need *need, uint64_t time)
{
	struct synth_task task;
	int err;

	err = synth__read_task(&p->synth, need->pid, need->tid, need->what, &task);
	if (err == 0)
		err = synth__task(&p->synth, &task, time, sink_description,
				  &(struct description){ .p = p, .read_done = task.read_done });
	synth_task__release(&task);
	if (p->sink_err)
		return p->sink_err;
	if (err == -ESRCH && (need->what & SYNTH_COMM) && need->comm) {
		/* Gone since it was first looked up: the comm read then still names it. */
		err = synth__comm(&p->synth, need->pid, need->tid, need->comm, time, sink, p);
		if (err < 0)
			return err;
		err = -ESRCH;   /* the maps are still unknown */
	}
	/* Gone, or unreadable: the sample is kept, perf shows it by pid. */
	if (err < 0)
		p->st.described_gone++;
	else
		p->st.described++;
	return ledger__described(p->ledger, need, err);
}

/* Give the file what the ledger says it lacks before a record: a cgroup's path, a
 * task's comm and maps. */
static int describe(struct pipeline *p, const struct ledger_need *need, uint64_t time)
{
	int err;

	if (need->cgroup) {
		err = synth__cgroup(&p->synth, need->cgroup, need->cgroup_path, time, sink, p);
		if (err < 0)
			return err;
	}
	if (!need->what)
		return 0;
	if (need->pre_exec && (need->what & SYNTH_COMM)) {
		/* The name it had then; /proc names what it exec'd since. */
		err = synth__comm(&p->synth, need->pid, need->tid, need->comm ? need->comm : "prof", time, sink, p);
		if (err < 0)
			return err;
		return ledger__described(p->ledger, need, 0);
	}
	return describe_task(p, need, time);
}

/* A kernel MMAP2 that repeats a map just described from /proc: dropped. */
static bool repeats_description(struct pipeline *p, const struct perf_event_header *ev, uint64_t time)
{
	if (ev->type == PERF_RECORD_COMM && (ev->misc & PERF_RECORD_MISC_COMM_EXEC))
		map_dedup__forget(p->dedup, (int32_t)((const struct perf_record_comm *)(const void *)ev)->pid);
	if (ev->type == PERF_RECORD_MMAP2 && ev->size >= offsetof(struct perf_record_mmap2, filename)) {
		const struct perf_record_mmap2 *m = (const void *)ev;

		return map_dedup__repeats(p->dedup, (int32_t)m->pid, time, m->start, m->len, m->pgoff);
	}
	return false;
}

static void count_lost(struct pipeline *p, const struct perf_event_header *ev)
{
	if (ev->type == PERF_RECORD_LOST && ev->size >= sizeof(struct perf_record_lost))
		p->st.lost += ((const struct perf_record_lost *)(const void *)ev)->lost;
	else if (ev->type == PERF_RECORD_LOST_SAMPLES && ev->size >= sizeof(struct perf_record_lost_samples))
		p->st.lost_samples += ((const struct perf_record_lost_samples *)(const void *)ev)->lost;
}

/* A sample passed on with its user stack unwound into the callchain, not the registers
 * and the stack copy. */
static int unwind(struct pipeline *p, const struct perf_event_header *ev)
{
	int len = unwinder__rewrite(p->unwinder, ev, p->unwound, p->unwound_len);

	if (len < 0) {
		p->st.malformed++;
		return 0;
	}
	return sink(p->unwound, (size_t)len, p);
}

/*
 * -g: a sample passed on with each runtime's frames in its user call chain, each
 * given the last one's record (the JVM's: every sample as the file states it, with no
 * registers or stack; Python's: its callers read at the sample instant), as it came
 * where none changed it.
 */
static int rewrite_g(struct pipeline *p, const struct perf_event_header *ev)
{
	uint8_t *out = p->unwound;

	for (size_t i = 0; i < p->nr_runtimes; i++) {
		const struct runtime_entry *r = &p->runtimes[i];
		int len = r->ops->rewrite_g ? r->ops->rewrite_g(r->rt, ev, out, p->unwound_len) : 0;

		if (len < 0) {
			p->st.malformed++;
			return 0;
		}
		if (len > 0) {
			ev = (const void *)out;
			out = out == p->unwound ? p->unwound2 : p->unwound;
		}
	}
	return sink(ev, ev->size, p);
}

static int judge_one(struct pipeline *p, const struct perf_event_header *ev, uint64_t time);

/*
 * Each record the queue hands out, in time order.  1 pauses the round after this
 * record: it took its slice, and the ring buffers are read before it goes on, so a
 * long round (a burst, unwinding, a slow host) does not let them overflow.
 */
static int judge(const struct perf_event_header *ev, uint64_t time, void *ctx)
{
	struct pipeline *p = ctx;
	int err = judge_one(p, ev, time);

	if (err == 0 && ++p->ticks % SLICE_TICKS == 0 && p->round_deadline != UINT64_MAX &&
	    clock_mono_ns() > p->round_deadline)
		return 1;
	return err;
}

/* An exec (a new program may be moved to another cgroup first) or an exit: the
 * thread's cgroup looked up again at its next wait. */
static void forget_quota(struct pipeline *p, const struct perf_event_header *ev)
{
	if (ev->type == PERF_RECORD_COMM && (ev->misc & PERF_RECORD_MISC_COMM_EXEC) && ev->size >= sizeof(*ev) + 8)
		offcpu_quota__forget(p->quota, (int32_t)((const struct perf_record_comm *)(const void *)ev)->tid);
	else if (ev->type == PERF_RECORD_EXIT && ev->size >= sizeof(struct perf_record_fork))
		offcpu_quota__forget(p->quota, (int32_t)((const struct perf_record_fork *)(const void *)ev)->tid);
}

/* Judge, describe, sink. */
static int judge_one(struct pipeline *p, const struct perf_event_header *ev, uint64_t time)
{
	struct judgement j;
	struct ledger_need need;
	int v, err;

	if (p->quota)
		forget_quota(p, ev);
	if (p->offcpu) {
		v = offcpu__judge(p->offcpu, &ev, time);
		if (v != 0)
			return v < 0 ? v : 0;
	}
	v = tracker__judge(p->tracker, ev, time, &j);
	if (v < 0)
		return v;
	/* written or not: a record dropped leaves the file's description stale */
	err = ledger__note(p->ledger, ev, v, &j, time, &need);
	if (err < 0 || v != TRACKER_WRITE)
		return err;
	err = describe(p, &need, time);
	if (err < 0)
		return err;
	if (repeats_description(p, ev, time))
		return 0;
	count_lost(p, ev);
	if (p->unwinder && ev->type == PERF_RECORD_SAMPLE)
		return unwind(p, ev);
	if (p->g_model && p->nr_runtimes && ev->type == PERF_RECORD_SAMPLE)
		return rewrite_g(p, ev);
	return sink(ev, ev->size, p);
}

int pipeline__flush(struct pipeline *p, struct ordered_queue *q, uint64_t upto, uint64_t slice)
{
	uint64_t before = p->st.records;
	int err, paused;

	p->round_deadline = slice ? clock_mono_ns() + slice : UINT64_MAX;
	err = ordered_queue__flush(q, upto, judge, p);
	if (err < 0)
		return err;
	paused = err > 0;
	if (p->objects)
		objects__round(p->objects);
	if (p->st.records != before) {
		struct perf_event_header round = { .type = PERF_RECORD_FINISHED_ROUND,
						   .size = sizeof(round) };
		err = sink(&round, sizeof(round), p);
		if (err < 0)
			return err;
	}
	return paused;
}

int pipeline__look_up(struct pipeline *p, const struct drained *read, uint64_t *judge_before)
{
	/* the rings read: every record judged until the next drain is older than this
	 * reading of the limited cgroups' throttled time */
	if (p->quota)
		offcpu_quota__read(p->quota, clock_mono_ns());
	for (size_t i = 0; i < read->nr; i++) {
		const struct perf_event_header *ev = read->recs[i];
		int ret;

		/* another task's wake-up or move: only offcpu.c reads it (its tid is the
		 * waker's, nothing to look up) */
		if (p->offcpu && offcpu__is_tracepoint_sample(p->offcpu, ev))
			continue;
		ret = tracker__look_up(p->tracker, ev);

		/* objects reached while their tasks run, not a round later */
		int err = p->objects ? objects__look_up(p->objects, ev) : 0;

		if (ret < 0 || err < 0)
			return ret < 0 ? ret : err;
		/* (not the context-switch event's: it has no PERIOD, so not the layout the
		 * sampling attr says: offcpu.c reads it) */
		for (size_t k = 0; k < p->nr_runtimes && !(p->offcpu && offcpu__is_switch_sample(p->offcpu, ev)); k++)
			if (p->runtimes[k].ops->drained)
				p->runtimes[k].ops->drained(p->runtimes[k].rt, ev);
		if (ret == TRACKER_WAIT_FOR_EXIT)
			*judge_before = MIN(*judge_before, sample_layout__time(p->layout, ev));
	}
	return 0;
}

void pipeline__finish(struct pipeline *p)
{
	if (p->offcpu) {
		int err = offcpu__finish(p->offcpu);

		if (err < 0 && !p->sink_err)
			p->sink_err = err;
	}
	if (p->objects)
		objects__finish(p->objects);
	for (size_t i = 0; i < p->nr_runtimes; i++)
		if (p->runtimes[i].ops->finish)
			p->runtimes[i].ops->finish(p->runtimes[i].rt);
}

bool pipeline__build_id(const struct pipeline *p, uint32_t maj, uint32_t min, uint64_t ino, struct build_id *ret)
{
	return p->objects && objects__build_id(p->objects, maj, min, ino, ret);
}

bool pipeline__foreign(const struct pipeline *p, uint32_t maj, uint32_t min, uint64_t ino, char *buf, size_t size)
{
	return p->objects && objects__foreign(p->objects, maj, min, ino, buf, size);
}

/* The running kernel's build id, right after its map: a killed recording, whose
 * features are never written, still says which kernel it ran on. */
static int describe_kernel_build_id(struct pipeline *p)
{
	_cleanup_free_ char *notes = NULL;
	ssize_t n = read_file_full(AT_FDCWD, "/sys/kernel/notes", 1 << 16, &notes);
	uint64_t rec[BUILD_ID_KERNEL_RECORD_SIZE / 8];
	struct build_id b;

	if (n <= 0 || build_id__from_notes((const uint8_t *)notes, (size_t)n, 4, &b) < 0)
		return 0;               /* unknown: the file's features may still name it */
	return sink(rec, build_id__kernel_record(&b, rec), p);
}

int pipeline__describe_kernel(struct pipeline *p)
{
	int err = synth__kernel_maps(&p->synth, sink, p);

	if (err == 0)
		err = describe_kernel_build_id(p);
	return p->sink_err ? p->sink_err : err;
}

/* ---- life cycle ------------------------------------------------------------- */

/* The tracker and what it works with: the cgroup registry, the ledger. */
static int open_scope(struct pipeline *p, const struct pipeline_config *cfg)
{
	struct tracker_config tc = {
		.scope = cfg->scope, .layout = cfg->layout, .proc_fd = cfg->proc_fd,
		.cgroup_fd = cfg->cgroup_fd, .creds_events = cfg->creds_events,
		.restrict_uid = cfg->verdict->restrict_uid, .only_uid = cfg->verdict->uid,
		.raw_uid_off = cfg->raw_uid_off,
	};
	int err = cgroups__new(cfg->scope, cfg->cgroup_fd, &p->cgroups);

	if (err < 0)
		return err;
	tc.cgroups = p->cgroups;
	p->ledger = ledger__new(p->cgroups);
	if (!p->ledger || tracker__new(&tc, &p->tracker) < 0)
		return -ENOMEM;
	if (cfg->scope->workload && tracker__add_tree_root(p->tracker, cfg->scope->workload) < 0)
		return -ENOMEM;
	if (cfg->live)
		ledger__forget_written_tasks(p->ledger);
	if (cfg->workload)
		ledger__set_workload(p->ledger, cfg->workload, cfg->workload_comm ? cfg->workload_comm : "prof");
	return 0;
}

/* What off-CPU asks the scope: judged as a sample of that cgroup would be. */
static int offcpu_in_scope(void *ctx, int32_t pid, int32_t tid, uint64_t cgroup)
{
	struct pipeline *p = ctx;

	return tracker__in_scope(p->tracker, pid, tid, cgroup);
}

static bool offcpu_uid(void *ctx, int32_t tid, uint32_t *ret)
{
	struct pipeline *p = ctx;

	return tracker__uid(p->tracker, tid, ret);
}

static bool offcpu_cgroup(void *ctx, int32_t tid, uint64_t *ret)
{
	struct pipeline *p = ctx;

	return tracker__cgroup(p->tracker, tid, ret);
}

/* An interval's sample: judged, described and written as the kernel's.  1 when
 * written. */
static int offcpu_emit(void *ctx, const struct perf_event_header *ev, uint64_t time)
{
	struct pipeline *p = ctx;
	uint64_t before = p->st.records;
	int err = judge_one(p, ev, time);

	return err < 0 ? err : p->st.records != before;
}

static void offcpu_quota_watch(void *ctx, int32_t tid, uint64_t time)
{
	struct pipeline *p = ctx;

	offcpu_quota__watch(p->quota, tid, time, clock_mono_ns());
}

static uint64_t offcpu_throttled(void *ctx, int32_t tid, uint64_t t0, uint64_t t1)
{
	struct pipeline *p = ctx;

	return offcpu_quota__throttled(p->quota, tid, t0, t1);
}

/*
 * The scope's cgroups' CPU quotas (offcpu_quota.h), under the cpu controller's
 * hierarchy: the v1 one where it is mounted (a hybrid host), else cgroup2's.  Not for
 * profd's scope of the whole host (every thread's cgroup looked up): there a
 * throttled tenant's wait is split by holder.  0 or -ENOMEM.
 */
static int open_quota(struct pipeline *p, const struct pipeline_config *cfg, struct offcpu_config *oc)
{
	_cleanup_free_ char *mounts = NULL;
	char v1[4096];

	p->v1_cpu_fd = -1;
	if (cfg->offcpu_by_uid || !cfg->nr_switch_ids)
		return 0;
	if (read_file_full(AT_FDCWD, "/proc/self/mounts", 1u << 20, &mounts) > 0 &&
	    pressure__v1_cpu_mount(mounts, v1, sizeof(v1)) == 0)
		p->v1_cpu_fd = open(v1, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (p->v1_cpu_fd < 0 && cfg->cgroup_fd < 0)
		return 0;
	p->quota = offcpu_quota__new(cfg->proc_fd, cfg->cgroup_fd, p->v1_cpu_fd);
	if (!p->quota)
		return -ENOMEM;
	oc->quota_watch = offcpu_quota_watch;
	oc->throttled = offcpu_throttled;
	oc->quota_ctx = p;
	return 0;
}

static int open_offcpu(struct pipeline *p, const struct pipeline_config *cfg)
{
	struct offcpu_config oc = {
		.layout = cfg->layout, .switch_ids = cfg->switch_ids, .nr_switch_ids = cfg->nr_switch_ids,
		.proc_fd = cfg->proc_fd, .cgroup_fd = cfg->cgroup_fd, .name_holders = cfg->verdict->admin,
		.user_only = !cfg->verdict->kernel, .in_scope = offcpu_in_scope, .uid_of = offcpu_uid,
		.cgroup_of = offcpu_cgroup, .emit = offcpu_emit, .ctx = p,
		.holders_by_uid = cfg->offcpu_by_uid, .min_period = cfg->offcpu_min_period,
		.max_rate = cfg->offcpu_max_rate, .stacks_scoped = cfg->offcpu_scoped,
		.set_period = cfg->offcpu_period, .period_ctx = cfg->offcpu_period_ctx,
		.wakeups = cfg->offcpu_wakeups,
	};

	int err = open_quota(p, cfg, &oc);

	if (err < 0)
		return err;
	return cfg->nr_switch_ids ? offcpu__new(&oc, &p->offcpu) : 0;
}

/* The unwinder's files: the recorded objects, reached as they are for the file. */
static int open_object(void *ctx, const struct task_file *f)
{
	struct pipeline *p = ctx;

	return p->objects ? objects__open(p->objects, f) : -ENOENT;
}

/*
 * Python's interpreters, in a live pipeline that reaches no object (profd): opened
 * through the task as objects__open would (task_file.h: the user's rights, the
 * MMAP2's device and inode checked), only those whose names look like Python's
 * (interp.h), while their process runs.
 */
static int open_interpreter(void *ctx, const struct task_file *f)
{
	struct pipeline *p = ctx;
	enum task_file_way way;

	if (p->objects)
		return objects__open(p->objects, f);
	return task_file__open(f, TASK_FILE_TRY_HOST, &way, NULL);
}

/* A runtime in the list (rt owned by it from now on; a constructor's error given on):
 * 0 or -errno. */
static int add_runtime(struct pipeline *p, const struct runtime_ops *ops, void *rt, int err)
{
	if (err < 0)
		return err;
	if (p->nr_runtimes == PIPELINE_RUNTIMES) {
		ops->free(rt);
		return -E2BIG;
	}
	p->runtimes[p->nr_runtimes++] = (struct runtime_entry){ ops, rt };
	return 0;
}

/* Java frames (jvm/frames.h): from the unwound stacks, or -g's registers and stack
 * copy (every -g sample stripped of them, named only where a cache keeps the object
 * or a live reader asks). */
static int open_jvm(struct pipeline *p, const struct pipeline_config *cfg, bool names)
{
	struct jvm_frames_config jc = { .model = p->unwinder ? unwinder__model(p->unwinder) : p->g_model,
					.cache = cfg->cache,
					.synth = p->synth, .sink = sink, .sink_ctx = p,
					.as_user = cfg->verdict && cfg->verdict->restrict_uid,
					.g_sample_type = cfg->java_g, .strip_only = !names };
	struct jvm_frames *jf = NULL;
	int err = jvm_frames__new(&jc, &jf);

	return add_runtime(p, jvm_frames__runtime(), jf, err);
}

/* Python frames need the unwound stacks (or -g's chains read at the sample instant)
 * and a cache to keep their names in, or a live reader that asks them of the
 * pipeline (prof top). */
static int open_python(struct pipeline *p, const struct pipeline_config *cfg)
{
	struct python_config pc = { .model = p->unwinder ? unwinder__model(p->unwinder) : p->g_model,
				    .open = cfg->live ? open_interpreter : open_object, .open_ctx = p,
				    .cache = cfg->cache, .synth = p->synth,
				    .kernel_sample_type = cfg->unwind ? cfg->unwind : cfg->sample_type,
				    .as_user = cfg->verdict && cfg->verdict->restrict_uid,
				    .chains = cfg->python_chains,
				    .sink = sink, .sink_ctx = p,
				    .live_names = cfg->live && !cfg->cache ? PYTHON_LIVE_NAMES : 0,
				    .g_layout = p->g_model ? cfg->layout : NULL };
	struct python *py = NULL;
	int err = python__new(&pc, &py);

	return add_runtime(p, python__runtime(), py, err);
}

/* JavaScript frames (node/frames.h): with the unwound stacks, into a file whose cache
 * keeps their object; edited after the JVM's (edit_frames, set by open_jvm). */
static int open_node(struct pipeline *p, const struct pipeline_config *cfg)
{
	struct node_frames_config nc = { .model = p->unwinder ? unwinder__model(p->unwinder) : p->g_model,
					 .cache = cfg->cache,
					 .synth = p->synth, .sink = sink, .sink_ctx = p,
					 .as_user = cfg->verdict && cfg->verdict->restrict_uid,
					 .sample_type = p->unwinder ? cfg->unwind : cfg->java_g,
					 .regs_mask = p->unwinder ? unwinder__regs_mask() : JAVA_G_REGS,
					 .g = !p->unwinder,
					 .live_names = cfg->live && !cfg->cache ? PYTHON_LIVE_NAMES : 0 };
	struct node_frames *nf = NULL;
	int err = node_frames__new(&nc, &nf);

	return add_runtime(p, node_frames__runtime(), nf, err);
}

/* The unwound frames edited by each runtime in turn, until one named frames in it
 * (a sample of a process in which prof read a JVM is not Python's). */
static size_t edit_frames(void *ctx, const struct sample *s, uint64_t *ips, const uint64_t *sps,
			  const struct unwind_regs *regs, size_t nr, size_t max)
{
	struct pipeline *p = ctx;
	bool named = false;

	for (size_t i = 0; i < p->nr_runtimes && !named; i++)
		if (p->runtimes[i].ops->frames)
			nr = p->runtimes[i].ops->frames(p->runtimes[i].rt, s, ips, sps, regs, nr, max, &named);
	return nr;
}

/* The runtimes of this recording, in the order each is asked: 0 or -errno.  With
 * --call-graph dwarf: all (a file whose cache keeps their objects, or a live reader).
 * With -g (frame pointers): V8 and the JVM when the kernel copies the leaf's registers
 * and stack (cfg->java_g; V8 only into a file whose cache keeps its object), Python
 * when its chains are read at the sample instant. */
static int open_runtimes(struct pipeline *p, const struct pipeline_config *cfg)
{
	bool names = cfg->cache || cfg->live;
	int err = 0;

	if (!p->unwinder && !(cfg->sample_type & PERF_SAMPLE_CALLCHAIN))
		return 0;
	if (!p->unwinder && ((cfg->python_chains && names) || cfg->java_g)) {
		p->g_model = model__new();
		p->unwound_len = UINT16_MAX + 8 * (UNWIND_MAX_OUT_FRAMES + 2);
		p->unwound = malloc(p->unwound_len);
		p->unwound2 = malloc(p->unwound_len);
		if (!p->g_model || !p->unwound || !p->unwound2)
			return -ENOMEM;
	}
	/* -g: V8's rewrite before the JVM's, which strips every sample's registers and
	 * stack */
	if (!p->unwinder && cfg->java_g && p->g_model && cfg->cache)
		err = open_node(p, cfg);
	if (err == 0 && (p->unwinder ? names : cfg->java_g && p->g_model))
		err = open_jvm(p, cfg, names);
	if (err == 0 && p->unwinder && names)
		err = open_node(p, cfg);
	if (err == 0 && (p->unwinder ? names : cfg->python_chains && names && p->g_model))
		err = open_python(p, cfg);
	if (err == 0 && p->unwinder && p->nr_runtimes)
		unwinder__set_edit(p->unwinder, edit_frames, p);
	return err;
}

int pipeline__new(const struct pipeline_config *cfg, struct pipeline **ret)
{
	struct pipeline *p = calloc(1, sizeof(*p));
	int err = -ENOMEM;

	if (!p)
		return -ENOMEM;
	p->v1_cpu_fd = -1;
	p->layout = cfg->layout;
	p->sink = cfg->sink;
	p->sink_ctx = cfg->sink_ctx;
	p->synth = (struct synth_env){ .sample_type = cfg->sample_type, .proc_fd = cfg->proc_fd };
	p->dedup = map_dedup__new();
	if (!p->dedup)
		goto err;
	if (cfg->unwind) {
		p->unwinder = unwinder__new(cfg->unwind, cfg->objects ? open_object : NULL, p);
		p->unwound_len = UINT16_MAX + 8 * (UNWIND_MAX_OUT_FRAMES + 2);
		p->unwound = malloc(p->unwound_len);
		if (!p->unwinder || !p->unwound)
			goto err;
	}
	if (cfg->objects) {
		struct objects_config oc = { .sample_type = cfg->sample_type, .cache = cfg->cache,
					     .model = p->unwinder ? unwinder__model(p->unwinder) : NULL,
					     .kernel_layout = cfg->live ? NULL : cfg->layout };

		err = objects__new(&oc, &p->objects);
		if (err < 0)
			goto err;
		err = -ENOMEM;
	}
	err = open_runtimes(p, cfg);
	if (err < 0)
		goto err;
	err = -ENOMEM;
	if (!p->unwinder && !(p->python_hint = python_hint__new(cfg->layout)))
		goto err;
	err = open_scope(p, cfg);
	if (err == 0)
		err = open_offcpu(p, cfg);
	if (err < 0)
		goto err;
	*ret = p;
	return 0;
err:
	pipeline__free(p);
	return err;
}

struct pipeline *pipeline__free(struct pipeline *p)
{
	if (!p)
		return NULL;
	offcpu__free(p->offcpu);
	offcpu_quota__free(p->quota);
	if (p->v1_cpu_fd >= 0)
		close(p->v1_cpu_fd);
	tracker__free(p->tracker);
	ledger__free(p->ledger);
	cgroups__free(p->cgroups);
	map_dedup__free(p->dedup);
	objects__free(p->objects);
	unwinder__free(p->unwinder);
	for (size_t i = 0; i < p->nr_runtimes; i++)
		p->runtimes[i].ops->free(p->runtimes[i].rt);
	model__free(p->g_model);
	python_hint__free(p->python_hint);
	free(p->unwound);
	free(p->unwound2);
	free(p);
	return NULL;
}

int pipeline__add_creds_ids(struct pipeline *p, enum creds_call call, const uint64_t *ids, size_t n, int uid_off)
{
	/* off-CPU's holders follow them too: a holder's uid changed without exec */
	int err = p->offcpu ? offcpu__add_creds_ids(p->offcpu, call, ids, n, uid_off) : 0;

	return err < 0 ? err : tracker__add_creds_ids(p->tracker, call, ids, n);
}

int pipeline__sink_error(const struct pipeline *p)
{
	return p->sink_err;
}

const struct pipeline_stats *pipeline__stats(const struct pipeline *p)
{
	return &p->st;
}

const struct tracker_stats *pipeline__scope_stats(const struct pipeline *p)
{
	return tracker__stats(p->tracker);
}

const struct unwinder_stats *pipeline__unwind_stats(const struct pipeline *p)
{
	return p->unwinder ? unwinder__stats(p->unwinder) : NULL;
}

const void *pipeline__runtime_stats(const struct pipeline *p, const struct runtime_ops *ops)
{
	for (size_t i = 0; i < p->nr_runtimes; i++)
		if (p->runtimes[i].ops == ops)
			return ops->stats(p->runtimes[i].rt);
	return NULL;
}

const struct python_stats *pipeline__python_stats(const struct pipeline *p)
{
	return pipeline__runtime_stats(p, python__runtime());
}

const struct jvm_frames_stats *pipeline__jvm_stats(const struct pipeline *p)
{
	return pipeline__runtime_stats(p, jvm_frames__runtime());
}

const struct node_frames_stats *pipeline__node_stats(const struct pipeline *p)
{
	return pipeline__runtime_stats(p, node_frames__runtime());
}

bool pipeline__runtime_name(const struct pipeline *p, const struct model_dso *d, uint64_t off, const char **ret)
{
	for (size_t i = 0; i < p->nr_runtimes; i++)
		if (p->runtimes[i].ops->name && p->runtimes[i].ops->name(p->runtimes[i].rt, d, off, ret))
			return true;
	return false;
}

const struct python_hint_stats *pipeline__python_hint_stats(const struct pipeline *p)
{
	return p->python_hint ? python_hint__stats(p->python_hint) : NULL;
}

const struct objects_stats *pipeline__objects_stats(const struct pipeline *p)
{
	return p->objects ? objects__stats(p->objects) : NULL;
}

const struct perf_maps *pipeline__perf_maps(const struct pipeline *p)
{
	return p->objects ? objects__perf_maps(p->objects) : NULL;
}

struct open_filter {
	const struct pipeline *p;
	offcpu_open_fn fn;
	void *ctx;
};

/* Only the scope's: offcpu.c also keeps the stacks of tasks not judged yet, whose
 * intervals the scope judges when they are emitted. */
static void open_in_scope(void *ctx, const struct perf_event_header *ev, bool runq, uint64_t since, uint64_t until)
{
	const struct open_filter *f = ctx;
	int32_t pid, tid;

	if (sample_layout__tid(f->p->layout, ev, &pid, &tid) &&
	    tracker__in_scope(f->p->tracker, pid, tid, sample_layout__cgroup(f->p->layout, ev)) > 0)
		f->fn(f->ctx, ev, runq, since, until);
}

void pipeline__each_open_offcpu(const struct pipeline *p, offcpu_open_fn fn, void *ctx)
{
	struct open_filter f = { p, fn, ctx };

	if (p->offcpu)
		offcpu__each_open(p->offcpu, open_in_scope, &f);
}

const struct offcpu_stats *pipeline__offcpu_stats(const struct pipeline *p)
{
	return p->offcpu ? offcpu__stats(p->offcpu) : NULL;
}

int pipeline__offcpu_window(struct pipeline *p, bool on, uint64_t time)
{
	return p->offcpu ? offcpu__window(p->offcpu, on, time) : -ENOENT;
}

const struct offcpu *pipeline__offcpu(const struct pipeline *p)
{
	return p->offcpu;
}

bool pipeline__uid(const struct pipeline *p, int32_t tid, uint32_t *ret)
{
	return tracker__uid(p->tracker, tid, ret);
}

const struct ledger *pipeline__ledger(const struct pipeline *p)
{
	return p->ledger;
}
