/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * offcpu's internals, shared by its files only (libperf's habit: the struct
 * opaque in the public header offcpu.h, whole here): offcpu.c follows the records
 * (threads, CPUs, who held them), offcpu_interval.c closes a thread's interval and
 * writes its samples, offcpu_creds.c follows a holder's set*uid() calls.
 */
#ifndef PROF_OFFCPU_OFFCPU_INTERNAL_H
#define PROF_OFFCPU_OFFCPU_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/base/hashtable.h"
#include "prof/base/idmap.h"
#include "prof/offcpu/offcpu.h"
#include "prof/offcpu/offcpu_holders.h"
#include "prof/scope/creds.h"

#define MAX_CPUS 4096

/* Distinct holders of one offcpu-runq interval written apart; the rest as [unknown]. */
#define MAX_SPLIT 8

enum thread_state { T_RUNNING, T_STACKED, T_OUT };

/* An offcpu-runq wait's time by holder. */
struct split {
	uint32_t holder[MAX_SPLIT];
	uint64_t ns[MAX_SPLIT];
	size_t nr;
};

/* A thread of the scope: its last switch-out stack sample, its open interval. */
struct thread {
	int32_t tid, pid;
	uint8_t state;
	bool runq;                      /* switched out while runnable */
	bool lost;                      /* a gap in the records since it switched out */
	bool nostack;                   /* switched out without a stack sample first */
	bool dead;                      /* its EXIT came: the interval its last switch-out opens
					 * is never written (but the exit path may be preempted
					 * or sleep before: those are) */
	uint32_t out_cpu;
	uint64_t out_time;
	/* Waiting for a CPU (runq, or woken: a sleep's wake-up came at `woke`): on wait_cpu
	 * since part_since; the wait before, on the CPUs it was moved from, in moved */
	bool woken;
	uint32_t wait_cpu;
	uint64_t woke, part_since;
	struct split moved;
	uint64_t cgroup;                /* of its last stack sample (0: not known) */
	uint8_t *rec;                   /* its context-switch sample (owned) */
	uint32_t rec_len, rec_cap;
};

/* What offcpu.c's idmap of sample ids says a sample is. */
enum own_sample { OWN_SWITCH = 1, OWN_WAKEUP, OWN_MIGRATE, OWN_CREDS /* + enum creds_call */ };

/* Who held each CPU lately: enough to cover a wait of many time slices. */
#define CPU_SEGMENTS 1024

/* Who ran on a CPU when; told apart (holder_of) only when a wait of the scope
 * overlaps it, so most tasks of a busy host are never looked at. */
struct segment {
	uint64_t start, end;
	int32_t pid, tid;
	uint32_t holder;                /* pinned at its runner's set*uid() (0: not) */
};

struct cpu {
	bool known;                     /* runner and since hold */
	int32_t pid, tid;               /* running since `since` */
	uint64_t since;
	uint64_t valid_from;            /* segments older than this (a gap) are not trusted */
	uint32_t head, nr;              /* segs[head - 1] is the newest */
	uint64_t period;                /* its stack samples: 1 switch in period (0: 1) */
	uint64_t win_start, win_n;      /* switches counted since win_start */
	uint64_t degraded_since;        /* when period went above 1 */
	struct segment segs[CPU_SEGMENTS];
};

struct offcpu {
	struct offcpu_config cfg;
	struct idmap *switch_ids;
	struct hashtable threads;       /* struct thread by tid */
	struct hashtable kinds;         /* struct holder_kind by tid */
	struct offcpu_holders *holders; /* name_holders: the holder table */
	struct hashtable born;          /* struct born by tid, until its first switch-in */
	struct cpu *cpus[MAX_CPUS];     /* allocated when first used */
	uint64_t first_time, last_time;
	uint8_t *buf;                   /* one interval's sample */
	size_t buf_cap;
	uint8_t *fix;                   /* one record renamed (rename_id) */
	size_t fix_cap;
	struct offcpu_stats st;
	bool finishing;                 /* offcpu__finish: the sleeps cut there were not woken */
	uint64_t nr_dead, swept;        /* threads exited, kept; when they were last swept */
	/* profd's windows: edges not applied yet (time order), whether the records judged
	 * are outside one, and when the current one opened */
	struct { uint64_t time; bool on; } edges[16];
	size_t nr_edges;
	bool outside;
	uint64_t window_from;
	int creds_uid_off;              /* the set*uid() tracepoints' argument in their raw data */
};

/* Who holder task tid (of process pid) is now: self, system, a holder table entry, ...
 * (offcpu.c; read from /proc once per task, cached until its EXIT, exec or set*uid()). */
uint32_t offcpu__holder_of(struct offcpu *o, int32_t pid, int32_t tid);
/* Forget tid's cached kind: read again the next time it holds a waited-on CPU. */
void offcpu__forget_kind(struct offcpu *o, int32_t tid);
/* Is tid's kind cached (read before)? */
bool offcpu__kind_known(struct offcpu *o, int32_t tid);
/* CPU c's runner leaves it at time: its segment kept, next_tid runs from then. */
void offcpu__cpu_switch(struct offcpu *o, struct cpu *c, int32_t next_pid, int32_t next_tid, uint64_t time);

/* A set*uid() entry of a task at time (offcpu_creds.c): its segments so far pinned to
 * who it was, its cached kind forgotten. */
void offcpu__on_creds(struct offcpu *o, const struct perf_event_header *ev, uint64_t time, enum creds_call call);

/* s += ns held by holder; past MAX_SPLIT holders, the rest is [unknown]'s (offcpu.c). */
void split__add(struct split *s, uint32_t holder, uint64_t ns);

/* ns of the wait s were its cgroup's throttling: idle's, taken from the others (offcpu.c). */
void split__throttled(struct split *s, uint64_t ns);

/* Who held CPU cpu during [t0, t1) while tid waited, into s (offcpu.c). */
void offcpu__split_by_holder(struct offcpu *o, int32_t tid, uint32_t cpu, uint64_t t0, uint64_t t1,
			     struct split *s);

/*
 * Thread t's interval closes at t1 on cpu: counted in o's stats, and its samples
 * handed to o->cfg.emit when it can be written (offcpu_interval.c).  Returns 0, or a
 * negative errno (-ENOMEM) or emit's error.
 */
int offcpu__close_interval(struct offcpu *o, struct thread *t, uint64_t t1, uint32_t cpu);

#endif
