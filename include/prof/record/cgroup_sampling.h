/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A sampling event filtered by the kernel to cgroup subtrees: one event per CPU per
 * cgroup, opened with PERF_FLAG_PID_CGROUP (a cgroup2 event counts the tasks of its
 * cgroup and of every descendant, made before or during the recording), so samples of
 * other tenants never reach prof.  libperf opens events for threads or CPUs only, so
 * these are opened here, and their records redirected (PERF_EVENT_IOC_SET_OUTPUT) into
 * the ring buffer libperf maps on the same CPU.  File descriptors: CPUs x cgroups.
 */
#ifndef PROF_RECORD_CGROUP_SAMPLING_H
#define PROF_RECORD_CGROUP_SAMPLING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

struct cgroup_sampling;

/*
 * Open attr (disabled) on each of the nr_cpus CPUs for each of the nr_cgroups cgroup2
 * directories (descriptors, borrowed).  0, or -errno (the kernel's answer for the
 * first that failed) with *ret untouched and nothing left open.
 */
int cgroup_sampling__open(const struct perf_event_attr *attr, const int *cgroup_fds, size_t nr_cgroups,
			  const int *cpus, size_t nr_cpus, struct cgroup_sampling **ret);
struct cgroup_sampling *cgroup_sampling__free(struct cgroup_sampling *c);

/* Send every event's records to out_fds[i], an event of CPU cpus[i] with a ring buffer.
 * 0 or -errno. */
int cgroup_sampling__redirect(struct cgroup_sampling *c, const int *out_fds);

/* The sample ids of every event, nr_cpus x nr_cgroups of them (owned by c). */
const uint64_t *cgroup_sampling__ids(const struct cgroup_sampling *c, size_t *ret_nr);

/* The sample period of the events of the CPU at index cpu (of the cpus opened). */
int cgroup_sampling__set_period(struct cgroup_sampling *c, size_t cpu, uint64_t period);

int cgroup_sampling__enable(struct cgroup_sampling *c);
int cgroup_sampling__disable(struct cgroup_sampling *c);

/*
 * Of the scope's cgroups (paths relative to the cgroup2 root, with a leading '/'), those
 * under none of the others: an event on a cgroup counts its descendants already, and
 * two events matching one task would write each of its samples twice.  Sets keep[i].
 * Returns how many are kept.
 */
size_t cgroup_sampling__outermost(const char *const *paths, size_t n, bool *keep);

#endif
