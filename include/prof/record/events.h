/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel side of a recording, over libperf: the sampling events (one, or those
 * of -e a,b,...) and one sideband (dummy) event on every online CPU, system-wide,
 * their ring buffers (one per CPU, shared by the events), and the drain of those
 * buffers into the time-ordered queue.  File descriptors: (events + 1) x CPUs.
 */
#ifndef PROF_RECORD_EVENTS_H
#define PROF_RECORD_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/record/ordered_queue.h"
#include "prof/perfdata/perf_data.h"
#include "prof/cli/record_opts.h"
#include "prof/perfdata/sample.h"
#include "prof/offcpu/offcpu.h"

enum events_stage {
	EVENTS_STAGE_NONE,
	EVENTS_STAGE_SAMPLING,        /* opening a sampling event (which: *ret_event) */
	EVENTS_STAGE_SIDEBAND,        /* opening the sideband event */
	EVENTS_STAGE_MMAP,            /* mapping ring buffers */
	EVENTS_STAGE_IDS,             /* reading sample ids */
};

struct events;

struct events_info {
	struct event_spec events[RECORD_MAX_EVENTS];    /* the sampling events actually opened */
	size_t nr_events;
	bool fell_back;                 /* the requested hardware event was replaced by cpu-clock */
	uint64_t freq;                  /* frequency in use (0 with a period) */
	bool freq_lowered;              /* -F was above kernel.perf_event_max_sample_rate */
	int nr_cpus;
	size_t nr_fds;
	/* set*uid() tracepoints (for uid scopes): open, or why not */
	bool creds;
	int creds_err;
	int raw_uid_off;                /* of their uid argument in PERF_SAMPLE_RAW */
	unsigned int mmap_pages;        /* ring buffer pages per CPU in use */
	/* a scope of cgroups only: the sampling events are the kernel's cgroup events */
	size_t filter_cgroups;          /* cgroups they were opened on (0: system-wide) */
	int filter_err;                 /* why not, when the scope allowed it (0: it did) */
	bool mmap_lowered;              /* the rate's size could not be locked: the default */
	/* --off-cpu: the context-switch event's sample ids, one per CPU (offcpu_events.h) */
	const uint64_t *switch_ids;
	size_t nr_switch_ids;
	/* ... and the sched tracepoints that time a sleep's wake-up (nr_wake_ids 0: not
	 * open, err why) */
	struct offcpu_wakeups wakeups;
	/* --call-graph dwarf: Python callers read at each sample (python/chain.h), or why
	 * not (chains_err, chains_why) */
	bool chains;
	int chains_err;
	char chains_why[160];
};

/* The set*uid() tracepoint events and their sample ids, for the tracker. */
struct events_creds {
	int call;               /* enum creds_call */
	const uint64_t *ids;
	size_t nr_ids;
};

/*
 * Open, map and leave disabled.  A scope made only of cgroups (--cgroup, --container,
 * --pod) samples through the kernel's cgroup filter (cgroup_sampling.h), opened below
 * cgroup_fd, the cgroup2 root; where the kernel refuses that, system-wide, with
 * filter_err saying why.  Returns 0 or -errno; on failure *ret_stage says
 * which step failed (and *ret_event which sampling event, at EVENTS_STAGE_SAMPLING)
 * and *ret is untouched.
 */
int events__new(const struct record_opts *opts, int cgroup_fd, struct events **ret,
		enum events_stage *ret_stage, size_t *ret_event);
struct events *events__free(struct events *e);

const struct events_info *events__info(const struct events *e);
const struct sample_layout *events__layout(const struct events *e);
/* The events (the sampling ones in -e's order, then the sideband, then with --off-cpu
 * offcpu-runq and offcpu-blocked) with their ids, for the file's attrs.  Every sampling
 * event has the same sample_type (events__layout). */
const struct perf_data_event *events__attrs(const struct events *e, size_t *ret_nr);

struct python_chains;
/* The Python chains' program, NULL when not loaded (events_info says why). */
struct python_chains *events__python_chains(const struct events *e);

/* The creds events opened (0 when none). */
size_t events__creds(const struct events *e, const struct events_creds **ret);

/* --off-cpu: the context-switch event of CPU cpu samples 1 switch in period
 * (offcpu_events__set_period).  0 or -errno. */
int events__offcpu_period(struct events *e, int cpu, uint64_t period);

/* The events on; the rings' spill thread (events_spill.c) copies into q's blocks.  0. */
int events__enable(struct events *e, struct ordered_queue *q);
/* Stop the sampling events only (ioctls: safe from the spill thread); the sideband
 * goes on until events__disable. */
void events__stop_sampling(struct events *e);
/* --duration: the sampling events stop at ns (CLOCK_MONOTONIC) even while the main
 * thread is busy (the spill thread watches it); after events__enable. */
void events__set_deadline(struct events *e, uint64_t ns);
/*
 * off_cpu_windowed: the switch records, the context-switch event and the sched
 * tracepoints on or off on every CPU (the sideband's tasks and maps stay).  Off: the
 * time (CLOCK_MONOTONIC ns) after the last could still be written; on: before the
 * first could.  0 or -ENOENT (not windowed).
 */
int events__offcpu_window(struct events *e, bool on, uint64_t *ret_time);
int events__disable(struct events *e);
/* Wait up to timeout_ms for data; >= 0, or -EINTR. */
int events__poll(struct events *e, int timeout_ms);
/* The records one drain read, in the order read: their copies in the queue. */
struct drained {
	const struct perf_event_header **recs;  /* valid until the queue hands them out */
	size_t nr, cap;
};

/*
 * Samples the rings held with another recording's sample id: dropped (returned), and
 * kept as the context-switch event's (*ret_kept).  The kernel fills one struct
 * perf_sample_data for every software event that fires at once on a CPU
 * (kernel/events/core.c, do_perf_sw_event): when another recording (prof, perf)
 * samples the same one, say context switches, this recording's sample can carry the
 * other's id, time, tid and call chain, read for that other event.  One followed in
 * its ring by the SWITCH_OUT of its own task is this recording's context-switch
 * sample of that switch (its time and id made this recording's); no other is written.
 */
uint64_t events__foreign_samples(const struct events *e, uint64_t *ret_kept);

/*
 * Copy every record available in every ring buffer into q, appending each copy to
 * *read.  Returns records read or -errno.
 */
int events__drain(struct events *e, struct ordered_queue *q, struct drained *read);

/*
 * A ring replay (events_replay.c: PROF_RING_SAVE=FILE saves what a recording drains,
 * PROF_RING_REPLAY=FILE makes events__new read the drains from FILE, opening no kernel
 * event).  now: the moment a session judges up to, taken before a drain
 * (clock_mono_ns(); a replay's, the saved one of its next drain).  replaying: e reads
 * a saved file.  replay_done: ... and every drain before the events were disabled was
 * taken (the session stops then).
 */
uint64_t events__now(struct events *e);
bool events__replaying(const struct events *e);
bool events__replay_done(const struct events *e);

/*
 * PROF_RING_SAVE or PROF_RING_REPLAY (name), honoured for root only: a saved file
 * holds every task's records, before scope decides (a tenant's CAP_PERFMON install
 * would hand them another tenant's samples), and a replayed one makes prof read the
 * processes and objects its records name.  NULL when unset or not root.
 */
const char *events__ring_env(const char *name);

/* The spill thread's work (events_spill.c): the times it read the rings (the main
 * thread busy elsewhere), the records it copied, the most bytes it held. */
struct events_spill_stats {
	uint64_t spills, records, peak_bytes;
};
void events__spill_stats(struct events *e, struct events_spill_stats *ret);

#endif
