/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --off-cpu under a CPU quota: how long a thread of the scope waited for a CPU because
 * its cgroup (or an ancestor) had spent its quota, so that this part of its
 * offcpu-runq is charged to "idle" (nobody else kept it off) and never to whoever ran
 * on its CPU meanwhile.
 *
 * Without BPF the kernel tells a cgroup's throttling only as a counter: cpu.stat's
 * throttled_usec (cgroup v2) or throttled_time (ns, the v1 cpu hierarchy of a hybrid
 * host), grown by the length of a throttling when it ends (at the unthrottle).  It is
 * read at every drain of the ring buffers (25 ms apart at most) for the limited
 * cgroups of the scope's threads only, each rise kept as a jump: ns throttled,
 * ended between the readings lo and hi.  A wait [t0, t1) is given the jumps that
 * ended within it: those read within it, and one read across t0 only when it is
 * short enough to have begun at t0 or later (ns <= hi - t0; the longer one is the
 * throttling before, which ended before the wait began), each at most from t0 to hi
 * and to t1, all at most t1 - t0.  Exact for a cgroup throttled on one CPU at a time
 * while the readings are closer together than the runs between two throttlings; a
 * cgroup throttled on several CPUs at once sums them in its counter, and a wait is
 * then given its time from t0 to the reading that saw the throttling end (up to a
 * drain interval more than it was).
 *
 * Which cgroup: /proc/TID/cgroup's of the cpu controller (the v1 cpu hierarchy where
 * it is mounted, else cgroup2's), and among it and its ancestors those with a quota
 * (cpu.max not "max", cpu.cfs_quota_us not -1); read when a thread's wait opens for
 * the first time, again after its exec and when older than QUOTA_RECHECK_NS.
 */
#ifndef PROF_OFFCPU_OFFCPU_QUOTA_H
#define PROF_OFFCPU_OFFCPU_QUOTA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The jumps a limited cgroup keeps: at one per drain, seconds of them. */
#define QUOTA_JUMPS 512

/* A cgroup's throttled time as read: its rises, oldest first in a ring. */
struct quota_timeline {
	bool read;                      /* last_* hold */
	uint64_t last_time, last_ns;    /* the last reading: when, the counter (ns) */
	uint32_t head, nr;              /* j[head - 1] is the newest */
	struct quota_jump {
		uint64_t lo, hi;        /* ended after lo, by hi (two readings' times) */
		uint64_t ns;            /* throttled that long */
	} j[QUOTA_JUMPS];
};

/* A reading at time: the counter was throttled_ns (a counter that went back starts
 * over from there; a reading older than the last is ignored). */
void quota_timeline__note(struct quota_timeline *tl, uint64_t time, uint64_t throttled_ns);
/* The throttled time that ended within the wait [t0, t1): at most t1 - t0. */
uint64_t quota_timeline__within(const struct quota_timeline *tl, uint64_t t0, uint64_t t1);

/* cpu.stat's text: the throttled time in ns (throttled_usec, or v1's throttled_time).
 * false when it has none (no cpu controller). */
bool quota__parse_cpu_stat(const char *text, uint64_t *ret_ns);

/* The tenants' cgroups with a quota, their readings, and which thread is in which. */
struct offcpu_quota;

/* Threads' cgroups from /proc at proc_fd, under the cpu controller's hierarchy: the v1
 * cpu one at v1_fd where it is mounted (>= 0), else cgroup2's at cgroup2_fd (-1: none);
 * all borrowed.  NULL on ENOMEM. */
struct offcpu_quota *offcpu_quota__new(int proc_fd, int cgroup2_fd, int v1_fd);
struct offcpu_quota *offcpu_quota__free(struct offcpu_quota *q);

/* Recheck a thread's cgroup this long (record time) after it was last read. */
#define QUOTA_RECHECK_NS 2000000000ull

/* Thread tid's wait opens at time (a record's): its limited cgroups found (a new one
 * read at now, the clock's time) unless known since less than QUOTA_RECHECK_NS. */
void offcpu_quota__watch(struct offcpu_quota *q, int32_t tid, uint64_t time, uint64_t now);
/* tid exec'd or exited: its cgroups read again at its next wait. */
void offcpu_quota__forget(struct offcpu_quota *q, int32_t tid);
/* Every limited cgroup's cpu.stat read at now (a drain). */
void offcpu_quota__read(struct offcpu_quota *q, uint64_t now);
/* How long within [t0, t1) tid's cgroup or an ancestor was throttled (the largest of
 * theirs): at most t1 - t0, 0 for a thread not watched or without a quota. */
uint64_t offcpu_quota__throttled(const struct offcpu_quota *q, int32_t tid, uint64_t t0, uint64_t t1);
/* The limited cgroups read at each drain. */
size_t offcpu_quota__nr_limited(const struct offcpu_quota *q);

#endif
