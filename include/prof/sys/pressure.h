/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A cgroup's pressure over a span: its PSI totals (cpu.pressure, io.pressure,
 * memory.pressure: "some" and "full", microseconds stalled) and cpu.stat (usage_usec,
 * nr_periods, nr_throttled, throttled_usec), read at the start and the end, the
 * differences kept.  A cheap cross-check of --off-cpu that needs no event: a throttled
 * cgroup's throttled_usec against its offcpu-runq time behind "idle".
 *
 * A file that is not there (PSI off: psi=0 on the kernel's command line; cgroup v1;
 * no cpu controller on the cgroup: then no throttling fields in cpu.stat) leaves its
 * fields unknown (not zero): `have` says which are known.  On a hybrid host (cgroup v2
 * without the cpu controller, which v1 holds) the throttling is read from the v1 cpu
 * cgroup of the same path while it holds the very same processes.
 */
#ifndef PROF_SYS_PRESSURE_H
#define PROF_SYS_PRESSURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum pressure_field {
	PRESSURE_CPU_SOME, PRESSURE_CPU_FULL, PRESSURE_IO_SOME, PRESSURE_IO_FULL,
	PRESSURE_MEMORY_SOME, PRESSURE_MEMORY_FULL,
	PRESSURE_USAGE_USEC, PRESSURE_NR_PERIODS, PRESSURE_NR_THROTTLED, PRESSURE_THROTTLED_USEC,
	PRESSURE__MAX
};

struct pressure {
	uint32_t have;                  /* 1 << enum pressure_field: known */
	uint64_t v[PRESSURE__MAX];      /* microseconds, or counts (nr_*) */
	bool throttling_v1;             /* the throttling fields are the v1 cpu cgroup's */
};

/* The field's name in prof's section and JSON: "cpu.some", ..., "throttled_usec". */
const char *pressure__name(enum pressure_field f);
/* The field named name, or PRESSURE__MAX. */
enum pressure_field pressure__field(const char *name);

/* The v1 cpu hierarchy's cpu.stat (nr_periods, nr_throttled, throttled_time in ns). */
void pressure__parse_cpu_stat_v1(const char *text, struct pressure *p);
/* Where the cgroup v1 cpu controller is mounted, from /proc/self/mounts' text:
 * 0, or -ENOENT (none: a cgroup v2 host, or no cpu controller). */
int pressure__v1_cpu_mount(const char *mounts, char *ret, size_t len);

/* One PSI file's text ("some avg10=... total=N\nfull ... total=N") into first (its
 * "some") and first + 1 ("full"; a kernel before 5.13 has no "full" line for cpu). */
void pressure__parse_psi(const char *text, enum pressure_field first, struct pressure *p);
/* cpu.stat's text: usage_usec always, the nr_* and throttled_usec with the cpu
 * controller on. */
void pressure__parse_cpu_stat(const char *text, struct pressure *p);

/* The four files of the cgroup directory dirfd (borrowed) into *ret; what is not
 * there stays unknown.  Never fails: a cgroup gone has nothing known. */
void pressure__read(int dirfd, struct pressure *ret);

/* end - start for the fields both know (a counter that went back: unknown). */
void pressure__diff(const struct pressure *start, const struct pressure *end, struct pressure *ret);

/*
 * One line of it over wall_ns, as report and top show it:
 *   "cpu.stat: throttled 812 ms in 41 of 50 periods, usage 1.20 s; pressure cpu some
 *    78.1% full 0.0%, io some 0.2% full 0.0%, memory some 0.0% full 0.0%"
 * and what is unknown said once at its end ("io.pressure: none (PSI off?)").
 */
void pressure__describe(const struct pressure *d, uint64_t wall_ns, char *buf, size_t len);

/* The cgroups of a scope whose pressure is read, and their readings. */
struct pressure_cgroup {
	char *path;                     /* relative to the cgroup2 root, leading '/' */
	int fd;                         /* its directory, -1 when it could not be opened */
	int open_err;                   /* ... why (-errno) */
	int v1_fd;                      /* the v1 cpu hierarchy's namesake, or -1 */
	struct pressure first, last;
	uint64_t first_ns, last_ns;     /* CLOCK_MONOTONIC when read */
};

struct pressure_set {
	struct pressure_cgroup *cg;
	size_t nr;
};

struct scope;

/*
 * The scope's cgroups (--cgroup, --container, --pod: the resolved directories) and
 * for each --uid its systemd user-UID.slice where there is one, under the cgroup2
 * root root_fd (borrowed), at most 16.  0 or -ENOMEM.
 */
int pressure_set__open(struct pressure_set *s, int root_fd, const struct scope *scope);
/* Read each now: into first (first) or last. */
void pressure_set__read(struct pressure_set *s, bool first);
void pressure_set__release(struct pressure_set *s);

#endif
