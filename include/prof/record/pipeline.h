/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The way of a record from the time-ordered queue to the sink, in one direction:
 *
 *   look up   in /proc, the tasks met for the first time in what a drain read, while
 *             they most likely still run (tracker__look_up)
 *   order     the queue hands records out oldest first (ordered_queue__flush)
 *   judge     against the scope (tracker__judge)
 *   describe  what the file lacks to name a written record's task: a cgroup's path,
 *             a pre-existing task's comm and maps (ledger.h, synth.h)
 *   sink      the caller's; with --call-graph dwarf, samples reach it unwound; the
 *             objects of what it is given are reached (objects.h), and at the end of
 *             a round those samples hit are kept
 *
 * The session (session.h) drains the ring buffers and drives it; tests feed it
 * records by hand, with a fixture /proc.  It prints nothing.
 */
#ifndef PROF_RECORD_PIPELINE_H
#define PROF_RECORD_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "prof/analyze/unwinder.h"
#include "prof/perfdata/sample.h"
#include "prof/record/events.h"
#include "prof/offcpu/offcpu.h"
#include "prof/record/ordered_queue.h"
#include "prof/scope/creds.h"
#include "prof/scope/policy.h"
#include "prof/scope/scope.h"
#include "prof/scope/tracker.h"
#include "prof/synth/ledger.h"
#include "prof/synth/objects.h"

/* Where what passes the scope goes: 0 or -errno (which stops the pipeline). */
typedef int (*pipeline_sink_fn)(const void *rec, size_t len, void *ctx);

struct pipeline_config {
	const struct scope *scope;              /* outlives the pipeline */
	const struct policy_verdict *verdict;
	const struct sample_layout *layout;     /* of the kernel's records (outlives it) */
	uint64_t sample_type;                   /* of the events as the file states them */
	int proc_fd;                            /* /proc (borrowed), a fixture tree in tests */
	int cgroup_fd;                          /* the cgroup2 root (borrowed), or -1 */
	bool creds_events;                      /* set*uid() tracepoint samples arrive */
	int raw_uid_off;                        /* ... their uid argument in PERF_SAMPLE_RAW */
	uint64_t unwind;                        /* --call-graph dwarf: the sampling event's
						 * sample_type; 0 for no unwinding */
	uint64_t java_g;                        /* -g with Java frames: the sampling event's
						 * sample_type (REGS_USER, STACK_USER: JAVA_G_REGS,
						 * stripped; jvm/frames.h); 0: none */
	bool objects;                           /* reach the mapped objects of what is written
						 * (their build ids, the unwinder's files) */
	struct build_id_cache *cache;           /* ... and keep those samples hit there
						 * (borrowed), NULL: no keeping */
	struct python_chains *python_chains;    /* Python callers read at each sample (borrowed) */
	pid_t workload;                         /* prof's corked child, 0 for none ... */
	const char *workload_comm;              /* ... and its name until its exec */
	pipeline_sink_fn sink;
	void *sink_ctx;
	bool live;                              /* no file: the written-task list is not kept;
						 * runtimes' frames are named by pipeline__runtime_name
						 * (the sink's reader asks it), no object is kept */
	/* --off-cpu (offcpu.h): the context-switch event's ids; none: no off-CPU */
	const uint64_t *switch_ids;
	size_t nr_switch_ids;
	struct offcpu_wakeups offcpu_wakeups;   /* the sched tracepoints' (offcpu.h) */
	bool offcpu_by_uid;                     /* holders by uid (offcpu_config.holders_by_uid) */
	uint64_t offcpu_min_period;              /* offcpu_config.min_period */
	uint32_t offcpu_max_rate;               /* stack samples per CPU per second, then 1 in N
						 * (offcpu.h); 0: no bound */
	bool offcpu_scoped;                     /* the context-switch event is cgroup-filtered */
	offcpu_period_fn offcpu_period;         /* sets a CPU's 1 in N (events__offcpu_period) */
	void *offcpu_period_ctx;
};

struct pipeline_stats {
	uint64_t lost;                  /* PERF_RECORD_LOST: records the ring buffer dropped */
	uint64_t lost_samples;          /* PERF_RECORD_LOST_SAMPLES */
	uint64_t described;             /* tasks described from /proc */
	uint64_t described_gone;        /* ... that were gone by then */
	uint64_t records;               /* everything passed to the sink */
	uint64_t malformed;             /* samples too short for what they should carry */
};

struct pipeline;

/* 0 or -errno (-ENOMEM; the scoped cgroups' walk). */
int pipeline__new(const struct pipeline_config *cfg, struct pipeline **ret);
struct pipeline *pipeline__free(struct pipeline *p);

/* The sample ids of a set*uid() tracepoint.  0 or -ENOMEM. */
int pipeline__add_creds_ids(struct pipeline *p, enum creds_call call, const uint64_t *ids, size_t n, int uid_off);

/*
 * The first-time look-up of the tasks in what a drain read, in the order read, before
 * anything of it is judged.  A task found gone may have its EXIT (which names its
 * parent) in a buffer past where the drain read: *judge_before is lowered to its
 * sample's time, and nothing from there on may be judged before the next drain.
 * With --off-cpu, the scope's CPU-limited cgroups' throttled time is read here too
 * (offcpu_quota.h): after the rings, so newer than anything judged until the next.
 * 0 or -ENOMEM.
 */
int pipeline__look_up(struct pipeline *p, const struct drained *read, uint64_t *judge_before);

/*
 * Judge, describe and pass to the sink every record of q up to time upto, oldest
 * first, then a FINISHED_ROUND if any record was passed.  With a slice (ns), the
 * round may stop early after its slice: 1 (what is left goes in the next
 * one).  0, 1, or -errno (the sink's error, which stops everything after it).
 */
int pipeline__flush(struct pipeline *p, struct ordered_queue *q, uint64_t upto, uint64_t slice);

/* The end of the recording, after the last flush: the off-CPU intervals still open
 * written (an error: pipeline__sink_error), the objects kept (objects__finish). */
void pipeline__finish(struct pipeline *p);

/* The build id of object (maj, min, ino) the sink was given, false when none known. */
bool pipeline__build_id(const struct pipeline *p, uint32_t maj, uint32_t min, uint64_t ino, struct build_id *ret);
/* objects__foreign of the objects the sink was given, false without them. */
bool pipeline__foreign(const struct pipeline *p, uint32_t maj, uint32_t min, uint64_t ino, char *buf, size_t size);

/* The kernel's maps, to the sink (synth__kernel_maps).  0, -EPERM (hidden), or -errno. */
int pipeline__describe_kernel(struct pipeline *p);

/* The sink's error once it failed, else 0. */
int pipeline__sink_error(const struct pipeline *p);

const struct pipeline_stats *pipeline__stats(const struct pipeline *p);
const struct tracker_stats *pipeline__scope_stats(const struct pipeline *p);
/* NULL without unwinding. */
const struct unwinder_stats *pipeline__unwind_stats(const struct pipeline *p);
/* NULL without Python frames (no unwinding, or no build-id cache and not live). */
struct python_stats;
struct python_chains;
struct jvm_frames_stats;
/* The statistics of the recording's runtime ops (runtime/runtime.h: its ops->stats),
 * NULL when it has none; the JVM's and Python's by their own types. */
struct runtime_ops;
const void *pipeline__runtime_stats(const struct pipeline *p, const struct runtime_ops *ops);
const struct jvm_frames_stats *pipeline__jvm_stats(const struct pipeline *p);
struct node_frames_stats;
/* NULL without JavaScript frames (node/frames.h: --call-graph dwarf into a file). */
const struct node_frames_stats *pipeline__node_stats(const struct pipeline *p);
const struct python_stats *pipeline__python_stats(const struct pipeline *p);
/* A live pipeline's runtimes' frames' names (each one's ops->name: Python's, the
 * JVM's): false when d is none of their objects. */
struct model_dso;
bool pipeline__runtime_name(const struct pipeline *p, const struct model_dso *d, uint64_t off, const char **ret);
/* NULL with unwinding (or with no file): Python processes' samples (python/hint.h). */
struct python_hint_stats;
const struct python_hint_stats *pipeline__python_hint_stats(const struct pipeline *p);
/* NULL without objects. */
const struct objects_stats *pipeline__objects_stats(const struct pipeline *p);
/* The perf maps copied from containers and chroots (perf_maps.h), or NULL. */
const struct perf_maps *pipeline__perf_maps(const struct pipeline *p);
/* --off-cpu's intervals open now of the tasks the scope holds (offcpu__each_open);
 * none without --off-cpu. */
void pipeline__each_open_offcpu(const struct pipeline *p, offcpu_open_fn fn, void *ctx);
/* NULL without --off-cpu. */
const struct offcpu_stats *pipeline__offcpu_stats(const struct pipeline *p);
bool pipeline__uid(const struct pipeline *p, int32_t tid, uint32_t *ret);
/* --off-cpu's intervals (its holder table), NULL without. */
const struct offcpu *pipeline__offcpu(const struct pipeline *p);
/* profd's window edge (offcpu__window): 0, -ENOENT without --off-cpu, -ENOMEM. */
int pipeline__offcpu_window(struct pipeline *p, bool on, uint64_t time);
const struct ledger *pipeline__ledger(const struct pipeline *p);

#endif
