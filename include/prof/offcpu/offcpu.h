/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --off-cpu: each interval a thread of the scope spends off a CPU, from its switch-out
 * to its next switch-in, as a sample of offcpu-runq (switched out while runnable:
 * preempted) or offcpu-blocked (asleep: I/O, locks, sleeps), whose period is its
 * nanoseconds and whose stack is the one at switch-out.  Fed in time order from the
 * pipeline (before the scope's judging) with:
 *
 *   the context-switch event's samples (offcpu_events.h): the stack of the task
 *           switching out, kept for the switch-out that follows (never written);
 *   PERF_RECORD_SWITCH_CPU_WIDE (the sideband's attr.context_switch): who switched
 *           out (PERF_RECORD_MISC_SWITCH_OUT_PREEMPT: still runnable) and who in, on
 *           which CPU: each CPU's timeline of who held it (never written: it names
 *           every task of the host);
 *   EXIT, FORK (a thread's end, a tid's reuse) and LOST (a gap: the intervals open
 *           across it are counted as lost, never as waiting).
 *
 * An interval's sample is made of its switch-out stack sample with prof's event id,
 * the switch-in's time and CPU (or, when that switch-out had no stack sample: 1 in N
 * past max_rate, throttled, a new thread's wait from its FORK to its first run, a
 * sample made from nothing with no call chain), and goes back to the pipeline to be
 * judged, described and written as any sample.  An offcpu-runq interval is split by who held its CPU
 * meanwhile (the CPU it switched in on), one sample per holder, the holder in the u32
 * after the sample's CPU (struct sample's cpu_res), which the kernel leaves 0 and perf
 * ignores: OFFCPU_HOLDER_*.  A tenant's recording names no other tenant there (only
 * "other tenants"); root's and the admin group's name each other tenant's task by
 * OFFCPU_HOLDER_TASK + an index into the recording's holder table (offcpu__holder: its
 * uid and cgroup, one entry per distinct pair, in prof's section), so a report shows
 * the holder by user, cgroup or container.  Files written before the table named a
 * holder by OFFCPU_HOLDER_UID + uid, as profd still does (holders_by_uid): a value
 * without an entry in its file's table is read that way.
 *
 * With the sched tracepoints (struct offcpu_wakeups: tracefs readable, as root),
 * also fed their samples: sched_wakeup ends a sleep's offcpu-blocked part and starts
 * its offcpu-runq part (wake-up to switch-in, split by holder as a preemption's), and
 * sched_migrate_task moves a waiting thread's remaining wait to another CPU (the part
 * before is split by who held the CPU it left).  Without them the wake-up cannot be
 * timed: a sleep's wait for a CPU after its wake-up is part of its offcpu-blocked.
 */
#ifndef PROF_OFFCPU_OFFCPU_H
#define PROF_OFFCPU_OFFCPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/perf_event.h>

#include "prof/perfdata/sample.h"
#include "prof/scope/creds.h"

/* Who held the CPU an offcpu-runq sample waited on (its cpu_res). */
enum offcpu_holder {
	OFFCPU_HOLDER_NONE = 0,         /* not an offcpu-runq sample (or a file without) */
	OFFCPU_HOLDER_SELF = 1,         /* a task of the same scope */
	OFFCPU_HOLDER_SYSTEM = 2,       /* a kernel thread */
	OFFCPU_HOLDER_IDLE = 3,         /* nobody else: the CPU idle, or the thread's cgroup
					 * throttled (its CPU quota spent) */
	OFFCPU_HOLDER_OTHERS = 4,       /* other tenants (a tenant's own recording) */
	OFFCPU_HOLDER_UNKNOWN = 5,      /* not known: a gap in the records, a task gone */
	OFFCPU_HOLDER_UID = 16,         /* + uid: a task of that (real) uid */
	OFFCPU_HOLDER_TASK = 0x80000000u,       /* + index: a task of the holder table */
};

/* An entry of the holder table: who a holder task was.  Tables are small (one entry per
 * distinct uid and cgroup of the tasks that held a waited-on CPU); past this many, a
 * holder is named by OFFCPU_HOLDER_UID + uid. */
#define OFFCPU_MAX_HOLDERS 65536u

struct offcpu_holder_info {
	uint32_t uid;
	bool uid_known;
	uint64_t cgroup;                /* cgroup2 id, 0 when not known */
	const char *cgroup_path;        /* under the cgroup2 root; NULL when not known */
};

/* The holder's text: "self", "system", "idle", "other tenants", "[unknown]", or for a
 * uid the user's name when name is given (NULL: "uid N"). */
static inline void offcpu__holder_text(uint32_t h, const char *name, char *buf, size_t len)
{
	static const char *const fixed[] = { "-", "self", "system", "idle", "other tenants", "[unknown]" };

	if (h < sizeof(fixed) / sizeof(fixed[0]))
		snprintf(buf, len, "%s", fixed[h]);
	else if (h >= OFFCPU_HOLDER_UID && name)
		snprintf(buf, len, "%s", name);
	else if (h >= OFFCPU_HOLDER_UID)
		snprintf(buf, len, "uid %u", h - OFFCPU_HOLDER_UID);
	else
		snprintf(buf, len, "[unknown]");
}

/* A holder's kind, for rows by its cgroup or container and not its user: a task's
 * (task: its cgroup or container is known, the holder may then be "[unknown]" by uid)
 * is OFFCPU_HOLDER_UID whatever its uid; self, system, idle, ... as they are. */
static inline uint32_t offcpu__holder_kind(uint32_t h, bool task)
{
	return h >= OFFCPU_HOLDER_UID || (task && h) ? OFFCPU_HOLDER_UID : h;
}

/* Is the task in the scope: 1, 0, -1 (not known yet).  cgroup 0: the task's own. */
typedef int (*offcpu_scope_fn)(void *ctx, int32_t pid, int32_t tid, uint64_t cgroup);
/* The real uid of tid, false when not known. */
typedef bool (*offcpu_uid_fn)(void *ctx, int32_t tid, uint32_t *ret);
/* The cgroup2 id of tid as the scope's tracker knows it, false when not known. */
typedef bool (*offcpu_cgroup_fn)(void *ctx, int32_t tid, uint64_t *ret);
/* An interval's sample, to be judged as the kernel's at time: 1 written, 0 not (outside
 * the scope), or -errno. */
typedef int (*offcpu_emit_fn)(void *ctx, const struct perf_event_header *ev, uint64_t time);

/* Sample CPU cpu's context switches 1 in period from now on: 0 or -errno. */
typedef int (*offcpu_period_fn)(void *ctx, int cpu, uint64_t period);

/* A wait of thread tid opens at time: its cgroup's CPU quota looked up (offcpu_quota.h). */
typedef void (*offcpu_watch_fn)(void *ctx, int32_t tid, uint64_t time);
/* How long within [t0, t1) tid's cgroup (or an ancestor) was throttled, its CPU quota
 * spent: ns, at most t1 - t0. */
typedef uint64_t (*offcpu_throttled_fn)(void *ctx, int32_t tid, uint64_t t0, uint64_t t1);

/*
 * The tracepoints' samples (offcpu_events.h's OFFCPU_TP_SAMPLE_TYPE: id, ip, pid/tid,
 * time, cpu, raw) and where their fields are in the raw data; nr_wake_ids 0: not open,
 * err says why (the wake-up is then inside offcpu-blocked).
 */
struct offcpu_wakeups {
	const uint64_t *wake_ids;               /* sched:sched_wakeup's, per CPU */
	size_t nr_wake_ids;
	const uint64_t *migrate_ids;            /* sched:sched_migrate_task's */
	size_t nr_migrate_ids;
	int wake_pid_off, wake_cpu_off;         /* pid, target_cpu */
	int migrate_pid_off, migrate_orig_off, migrate_dest_off;
	int err;                                /* why they are not open (0: they are, or not asked) */
};

/* --off-cpu-max-rate's default: stack samples per CPU per second before 1 in N. */
#define OFFCPU_DEFAULT_MAX_RATE 10000u

struct offcpu_config {
	const struct sample_layout *layout;     /* of the samples and the sideband's trailer */
	const uint64_t *switch_ids;             /* the context-switch event's sample ids */
	size_t nr_switch_ids;
	int proc_fd;                            /* /proc (borrowed): is a holder a kernel thread */
	int cgroup_fd;                          /* the cgroup2 root (borrowed; -1: none): holders'
						 * cgroup ids, with name_holders */
	bool name_holders;                      /* root, admin: other tenants by the holder table */
	bool user_only;                         /* no kernel addresses: the ip is the user leaf */
	offcpu_scope_fn in_scope;
	offcpu_uid_fn uid_of;
	offcpu_cgroup_fn cgroup_of;             /* NULL: none (intervals without a stack sample of
						 * their thread then carry cgroup 0) */
	offcpu_emit_fn emit;
	void *ctx;                              /* of the four */
	/* profd: every holder by its uid (with name_holders, by the holder table while it
	 * has room: its uid and cgroup), never "self": a scope of the whole host would make
	 * every holder self; each tenant's answer tells self apart */
	bool holders_by_uid;
	/* The bound on stack samples: past max_rate switches per second on a CPU (the
	 * context-switch event's, measured over OFFCPU_RATE_WINDOW_NS), its event samples
	 * 1 switch in N (set_period); the intervals without a stack are still timed and
	 * written, with no stack.  0 or no set_period: every switch. */
	uint32_t max_rate;
	/* profd's off_cpu_sample: each CPU's event samples 1 switch in at least min_period
	 * (its period from its first switch on; the bound may raise it, never below it);
	 * every interval is still timed, those without a stack written with none.  0, 1:
	 * none */
	uint64_t min_period;
	bool stacks_scoped;                     /* the event is the kernel's cgroup event: only the
						 * scope's switches are sampled (and counted) */
	offcpu_period_fn set_period;
	void *period_ctx;
	struct offcpu_wakeups wakeups;          /* the sched tracepoints (nr_wake_ids 0: none) */
	/* CPU quotas: the part of an offcpu-runq wait its cgroup spent throttled is
	 * "idle"'s (nobody else kept it off), the rest split by holder.  NULL: none
	 * (profd: the whole host's threads) */
	offcpu_watch_fn quota_watch;
	offcpu_throttled_fn throttled;
	void *quota_ctx;
};

#define OFFCPU_RATE_WINDOW_NS 100000000ull

struct offcpu_stats {
	uint64_t switches;              /* switch records read */
	uint64_t intervals;             /* intervals written (runq ones once, however split); those
					 * the scope did not take (a task not known yet when its
					 * stack came, then judged outside) are not counted */
	uint64_t runq_ns, blocked_ns;   /* ... their time */
	uint64_t lost_intervals, lost_ns;       /* open across a gap (LOST): not written */
	uint64_t nostack_intervals, nostack_ns; /* no switch-out stack (1 in N, throttled, lost
						 * samples): written with no stack */
	uint64_t degraded_intervals, degraded_ns;       /* ... of which on a CPU sampling 1 in N > 1 */
	uint64_t unwritten_intervals, unwritten_ns;     /* no stack and no sample to write it in
							 * (a sample_type prof cannot make) */
	uint64_t max_period;            /* the largest N of 1-in-N stack sampling (min_period's
					 * included), 1: never degraded */
	uint64_t degraded_cpu_ns;       /* CPU-time (per CPU, summed) spent sampling 1 in N above
					 * the base (1, or min_period) */
	uint64_t period_errors;         /* a CPU's period could not be changed */
	uint64_t cut_end;               /* open at the end: cut there, written */
	uint64_t cut_start, cut_start_ns;       /* open at the start (a thread of the scope first
						 * seen switching in): from the first record on,
						 * counted, not written (its kind and stack unknown) */
	uint64_t unknown_holder_ns;     /* runq time whose CPU's holder is not known */
	uint64_t throttled_ns;          /* runq time charged to idle as its cgroup's throttling
					 * (offcpu_config.throttled) */
	/* profd's windows (offcpu__window): opened, and the time inside those closed */
	uint64_t windows, window_ns;
	uint64_t window_cut, window_cut_ns;     /* open at a window's end: cut there, written
						 * (those open at its start are in cut_start) */
	bool wakeups;                   /* sleeps' wake-ups timed (sched_wakeup open) */
	int wakeups_err;                /* ... or why not (0: not asked) */
	uint64_t woken_intervals;       /* sleeps whose wake-up came: blocked then runq */
	uint64_t woken_runq_ns;         /* ... their runq part (in runq_ns) */
	uint64_t unwoken_intervals, unwoken_ns; /* sleeps ended with the tracepoints open but no
						 * wake-up seen (the kernel did not report it):
						 * written wholly offcpu-blocked */
	uint64_t migrations;            /* waits moved to another CPU (sched_migrate_task) */
	uint64_t tp_samples, tp_bytes;  /* the sched tracepoints' samples read (never written) */
	bool holders_named;             /* holders by user and cgroup (name_holders, a table) */
	bool creds;                     /* set*uid() calls followed (offcpu__add_creds_ids) */
	uint64_t creds_calls;           /* set*uid() calls that may change a real uid: the
					 * caller's holder read again after, pinned before */
};

struct offcpu;

/* 0 or -ENOMEM. */
int offcpu__new(const struct offcpu_config *cfg, struct offcpu **ret);
struct offcpu *offcpu__free(struct offcpu *o);

/*
 * One record, in time order, before the scope judges it: 1 when it was off-CPU's own
 * (consumed: a switch record, a context-switch sample), 0 when it goes on (EXIT, FORK
 * and LOST are looked at and go on), or -errno (the emit callback's, -ENOMEM).  A
 * record that goes on but names the context-switch event in its sample id (LOST,
 * THROTTLE of that event: an id the file does not have, on which perf report stops)
 * is replaced in *ev by a copy that names offcpu-runq, valid until the next call.
 */
int offcpu__judge(struct offcpu *o, const struct perf_event_header **ev, uint64_t time);

/* Is ev a sample of the context-switch event or of the sched tracepoints (no PERIOD
 * field: not the sampling events' layout past the CPU). */
bool offcpu__is_switch_sample(const struct offcpu *o, const struct perf_event_header *ev);
/* ... of the sched tracepoints only: another task's wake-up or move, nothing the
 * tracker needs to look up (the task named is the waker's). */
bool offcpu__is_tracepoint_sample(const struct offcpu *o, const struct perf_event_header *ev);

/*
 * profd's duty cycle: the switch records were turned on (on) or off at time (events.h's
 * events__offcpu_window), applied in time order, before the first record judged at or
 * after it.  At an end every interval still open is cut there and written (its kind
 * and time so far are known), every CPU's timeline and thread forgotten; in between no
 * wait is counted (a task forked then is not followed); at a start, a thread first
 * seen switching in is counted as open at the start (cut_start: kind unknown), not
 * written.  0 or -ENOMEM.
 */
int offcpu__window(struct offcpu *o, bool on, uint64_t time);

/*
 * The set*uid() tracepoints' sample ids (events__open_creds; uid_off their argument's
 * offset in the raw data): a holder that changes its real uid without exec is named by
 * the new one after the call, by the old one before (the tracker judges them too).
 * 0 or -ENOMEM.
 */
int offcpu__add_creds_ids(struct offcpu *o, enum creds_call call, const uint64_t *ids, size_t n, int uid_off);

/* The end: the intervals still open are cut at the last record's time and written.
 * 0 or -errno. */
int offcpu__finish(struct offcpu *o);

const struct offcpu_stats *offcpu__stats(const struct offcpu *o);

/* The holder table's entry of holder h (OFFCPU_HOLDER_TASK + index), NULL when h is
 * none of it.  Valid while o lives.  Empty unless name_holders: a tenant's recording
 * has none. */
const struct offcpu_holder_info *offcpu__holder(const struct offcpu *o, uint32_t h);
/* Entries in the table: holder OFFCPU_HOLDER_TASK + 0 to + (this - 1). */
size_t offcpu__nr_holders(const struct offcpu *o);

/* A part of an interval still open: its thread's switch-out stack sample as the kernel
 * wrote it (the context-switch event's: not rewritten), whether it was runnable, from
 * since to until (UINT64_MAX: now; a woken sleep is a blocked part up to its wake-up,
 * then a runq part). */
typedef void (*offcpu_open_fn)(void *ctx, const struct perf_event_header *stack, bool runq, uint64_t since,
			       uint64_t until);

/* For a live view (prof top): each interval open now that would be written when it
 * closes (not those across a gap or without a stack).  Changes nothing. */
void offcpu__each_open(const struct offcpu *o, offcpu_open_fn fn, void *ctx);

#endif
