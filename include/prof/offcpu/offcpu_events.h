/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel side of --off-cpu (offcpu.h turns it into intervals): the context-switch
 * software event, sampled at every switch (period 1; 1 in N past --off-cpu-max-rate,
 * offcpu_events__set_period) with the sampling events' fields and call chain, whose
 * sample is the stack of the task switching out.  It has the sampling events'
 * sample_type but PERIOD (with it the kernel would sample every switch whatever the
 * period): the fields before PERIOD are where one layout reads them, and offcpu.c
 * puts a period back into the copy it keeps.  Its samples never
 * reach the file: the file gets offcpu-runq and offcpu-blocked samples instead, two
 * events of prof's own (a software attr with its name in EVENT_DESC, as perf writes
 * its offcpu-time) with ids the kernel never gives (OFFCPU_ID_*).
 * (PERF_RECORD_SWITCH_CPU_WIDE, the other half, comes from the sideband event's
 * attr.context_switch.)  File descriptors: one per CPU.
 */
#ifndef PROF_OFFCPU_OFFCPU_EVENTS_H
#define PROF_OFFCPU_OFFCPU_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include <perf/cpumap.h>
#include <perf/evlist.h>
#include <perf/threadmap.h>

#include "prof/perfdata/perf_data.h"

/* The sample ids of prof's off-CPU events: the kernel counts its ids up from 1. */
#define OFFCPU_ID_RUNQ 0xfffffffffff0cbe1ull
#define OFFCPU_ID_BLOCKED 0xfffffffffff0cbe2ull
#define OFFCPU_NAME_RUNQ "offcpu-runq"
#define OFFCPU_NAME_BLOCKED "offcpu-blocked"

/*
 * The sched tracepoints' samples (sched_wakeup, sched_migrate_task: offcpu.h's
 * struct offcpu_wakeups), opened per CPU into the same rings by events.c through
 * tracefs: the smallest sample_type whose time is where the sampling events have it
 * (IDENTIFIER, IP, TID, TIME) and whose sample_id trailer is theirs (TID, TIME, CPU,
 * IDENTIFIER), then RAW: its u32 size at OFFCPU_TP_RAW_AT bytes, its data after.
 */
#define OFFCPU_TP_SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
			       PERF_SAMPLE_CPU | PERF_SAMPLE_RAW)
#define OFFCPU_TP_RAW_AT (sizeof(struct perf_event_header) + 5 * 8)

struct offcpu_events;

/*
 * Add the context-switch event to evlist (which gives it the evlist's CPUs) and open
 * it, disabled, with sampling's sample_type and call-chain settings.  0 or -errno
 * (*ret untouched; what was added is removed).
 */
int offcpu_events__open(struct perf_evlist *evlist, struct perf_cpu_map *cpus, struct perf_thread_map *threads,
			const struct perf_event_attr *sampling, struct offcpu_events **ret);
/*
 * For a scope of cgroups only, the kernel's cgroup filter (cgroup_sampling.h), as the
 * sampling events: the switches of other tenants' tasks cost no sample and no stack.
 * The switch records still come for every task (each CPU's timeline needs them).
 * offcpu_events__redirect() sends its records into the rings; 0 or -errno.
 */
int offcpu_events__open_by_cgroup(const struct perf_event_attr *sampling, const int *cgroup_fds, size_t nr_cgroups,
				  const int *cpus, size_t nr_cpus, struct offcpu_events **ret);
int offcpu_events__redirect(struct offcpu_events *o, const int *out_fds);
/* The cgroup events on or off (the evlist's own event goes with the evlist); NULL-safe. */
void offcpu_events__enable(struct offcpu_events *o, bool on);
/* The event on or off whichever it is (evlist's or cgroup events): profd's windows. */
void offcpu_events__window(struct offcpu_events *o, bool on);
struct offcpu_events *offcpu_events__free(struct offcpu_events *o);

/* After the rings are mapped: the sample ids the kernel gave it.  0 or -errno. */
int offcpu_events__read_ids(struct offcpu_events *o);

/* Sample the switches of CPU cpu (its number) 1 in period (1: every one), from its
 * next switch on (PERF_EVENT_IOC_PERIOD on each of its events).  0 or -errno. */
int offcpu_events__set_period(struct offcpu_events *o, int cpu, uint64_t period);
/* ... one per CPU (per CPU and cgroup with the filter), owned by o. */
const uint64_t *offcpu_events__switch_ids(const struct offcpu_events *o, size_t *ret_nr);

/* The file's two events, offcpu-runq then offcpu-blocked, for samples of sampling's
 * fields whose period is nanoseconds. */
void offcpu_events__attrs(const struct perf_event_attr *sampling, struct perf_data_event out[2]);

#endif
