/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A live recording session, shared by prof record and prof top.  It owns the events
 * and their ring buffers, and every record goes through its stages in one direction:
 *
 *   drain     every CPU's ring buffer into the time-ordered queue (events.h)
 *   look up   in /proc, the tasks met for the first time in what the drain read
 *   order     oldest first, once nothing older can still arrive
 *   judge     against the scope
 *   describe  what the file lacks to name a written record's task
 *   sink      the caller's: the perf.data writer for record, the live view for top
 *
 * (the stages after the drain: pipeline.h).  The caller prepares the inputs
 * (privileges probed, configuration and policy applied, cgroups resolved) and chooses
 * the sink.  The session prints nothing: a failure is -errno and a struct
 * session_error saying which stage failed.
 */
#ifndef PROF_RECORD_SESSION_H
#define PROF_RECORD_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "prof/analyze/unwinder.h"
#include "prof/cli/record_opts.h"
#include "prof/perfdata/perf_data.h"
#include "prof/perfdata/sample.h"
#include "prof/record/events.h"
#include "prof/record/pipeline.h"
#include "prof/scope/policy.h"
#include "prof/scope/tracker.h"
#include "prof/synth/ledger.h"
#include "prof/sys/privs.h"

struct session;

/* Where what passes the scope goes: 0 or -errno (which stops the session). */
typedef pipeline_sink_fn session_sink_fn;

struct session_config {
	const struct record_opts *opts;         /* configuration and policy applied; outlives
						 * the session */
	const struct policy_verdict *verdict;
	const struct privs *privs;              /* what to keep when dropping (copied) */
	int cgroup_fd;                          /* the cgroup2 root (borrowed), or -1 */
	pid_t workload;                         /* the corked child prof runs, 0 for none */
	bool objects;                           /* reach the objects of what the sink is given
						 * (session__build_id, the unwinder's files) */
	struct build_id_cache *cache;           /* ... and keep those samples hit in it
						 * (borrowed; NULL: no keeping) */
	session_sink_fn sink;                   /* called from session__start() on */
	void *sink_ctx;
	bool live;                              /* prof top, profd: no file, so no list of the tasks
						 * with samples (it would grow with every task) */
	unsigned int poll_ms;                   /* the longest wait for the rings after the start
						 * (0: 25 ms; profd, where every task is known from
						 * its FORK and each wake-up costs, waits longer) */
};

enum session_stage {
	SESSION_STAGE_NONE,             /* memory, mostly */
	SESSION_STAGE_EVENTS,           /* opening the events: events says at which step */
	SESSION_STAGE_PROC,             /* opening /proc */
	SESSION_STAGE_CREDS,            /* --uid of someone who is not an admin needs the set*uid()
					 * tracepoints, which could not be opened (err says why) */
	SESSION_STAGE_SCOPE,            /* setting up the stages (the scoped cgroups' walk) */
	SESSION_STAGE_SINK,             /* the sink failed (describing the kernel at the start) */
};

struct session_error {
	enum session_stage stage;
	enum events_stage events;       /* with SESSION_STAGE_EVENTS */
	size_t event;                   /* ... the sampling event, at EVENTS_STAGE_SAMPLING */
	int err;                        /* -errno */
};

/* How the rings were read: what to change when records were lost. */
struct session_drain_stats {
	uint64_t drains;                /* times the rings were read */
	uint64_t max_gap_ns;            /* the longest time between two reads */
	uint64_t queue_peak;            /* the most bytes the queue held */
	uint64_t queue_full;            /* reads skipped: the queue was at its limit */
	uint64_t foreign_samples;       /* another recording's id: dropped (events__foreign_samples) */
	uint64_t foreign_kept;          /* ... told for the context-switch event's and kept */
	struct events_spill_stats spill; /* the rings read by the spill thread (events.h) */
};

struct session_stats {
	const struct pipeline_stats *records;   /* lost, described, passed to the sink */
	const struct tracker_stats *scope;      /* the judging's accounting */
	const struct unwinder_stats *unwind;    /* NULL without --call-graph dwarf */
	const struct python_stats *python;      /* NULL without Python frames */
	const struct jvm_frames_stats *jvm;     /* NULL without Java frames */
	const struct node_frames_stats *node;   /* NULL without JavaScript frames */
	const struct python_hint_stats *python_hint; /* NULL with unwinding */
	const struct objects_stats *objects;    /* NULL without objects */
	const struct perf_maps *perf_maps;      /* copied from containers (perf_maps.h), or NULL */
	const struct offcpu_stats *offcpu;      /* NULL without --off-cpu */
	size_t tasks_written;                   /* tasks with written samples */
	bool kernel_hidden;                     /* kallsyms shows no addresses: no kernel maps */
	struct session_drain_stats drain;
	size_t filter_cgroups;                  /* the kernel filters samples to these cgroups */
};

/*
 * Open the events (disabled), /proc, the scope's bookkeeping, and with --call-graph
 * dwarf the unwinder.  0, or -errno with *ret_err filled (nothing is left open).
 */
int session__new(const struct session_config *cfg, struct session **ret, struct session_error *ret_err);

/*
 * Close everything.  The set*uid() tracepoints' last close waits for RCU grace
 * periods (tens of ms each): their last references go to a short-lived child that
 * closes them after this process let go (events__free).  NULL-safe; returns NULL.
 */
struct session *session__free(struct session *s);

/* The events as the file must state them (with dwarf: a callchain, no stack). */
const struct perf_data_event *session__attrs(const struct session *s, size_t *ret_nr);
const struct events_info *session__info(const struct session *s);
/* The layout of the samples the sink receives (the kernel's). */
const struct sample_layout *session__layout(const struct session *s);

/* Describe the kernel to the sink, start the clock, enable the events.  0, or -errno
 * with *ret_err filled. */
int session__start(struct session *s, struct session_error *ret_err);
/* No sample is taken past ns (CLOCK_MONOTONIC), even while a step is busy: --duration. */
void session__set_deadline(struct session *s, uint64_t ns);
/* When the session started (CLOCK_MONOTONIC ns). */
uint64_t session__start_time(const struct session *s);

/*
 * Once the rest needs no more of them (record: the workload runs; top: the kernel's
 * symbols are read), keep only what the recording uses (privs.h).  0 or -errno.
 */
int session__drop_privileges(struct session *s);

/* prof top's and profd's runtime frames' names (live: no object in the cache; each
 * runtime's name hook, pipeline__runtime_name): false when d is no runtime's object. */
bool session__runtime_name(const struct session *s, const struct model_dso *d, uint64_t off, const char **ret);

/* One turn: wait for data (up to the poll interval), drain, pass on what is old
 * enough.  0 or -errno (the sink's error, or the drain's). */
int session__step(struct session *s);
/*
 * off_cpu_windowed (profd's duty cycle): the switch records and the context-switch
 * event on or off on every CPU now; the intervals open at an end are cut there
 * (offcpu__window).  *ret_time: the edge (CLOCK_MONOTONIC ns).  0 or -errno (-ENOENT:
 * not windowed).
 */
int session__offcpu_window(struct session *s, bool on, uint64_t *ret_time);
/* --off-cpu's intervals open now, as far as the judged records tell (offcpu.h). */
void session__each_open_offcpu(const struct session *s, offcpu_open_fn fn, void *ctx);
/* The time (CLOCK_MONOTONIC ns) before which every record was passed on to the sink
 * (prof top's shares of the time covered); 0 before the first round. */
uint64_t session__judged_upto(const struct session *s);
/* A ring replay's session (PROF_RING_REPLAY, events.h): replaying; replay_done: its
 * drains up to the recording's stop are all taken (session__stop takes the rest). */
bool session__replaying(const struct session *s);
bool session__replay_done(const struct session *s);
/* Disable the events and pass on everything still buffered; then the objects'
 * copies still due are made.  0 or -errno. */
int session__stop(struct session *s);

/* The build id of object (maj, min, ino) the sink was given (cfg.objects), false
 * when none is known. */
bool session__build_id(const struct session *s, uint32_t maj, uint32_t min, uint64_t ino, struct build_id *ret);
/* Must the MMAP2 of object (maj, min, ino) not name its path on the host
 * (objects__foreign)?  buf gets its place's name. */
bool session__foreign(const struct session *s, uint32_t maj, uint32_t min, uint64_t ino, char *buf, size_t size);

void session__stats(const struct session *s, struct session_stats *ret);

/* The real uid of tid as tracked now; false when not known. */
bool session__uid(const struct session *s, int32_t tid, uint32_t *ret);

/* The holder table's entry of an offcpu-runq sample's holder h (offcpu__holder), NULL
 * when h is none of it (or without --off-cpu).  Valid while the session lives. */
const struct offcpu_holder_info *session__offcpu_holder(const struct session *s, uint32_t h);
/* Entries of the holder table (OFFCPU_HOLDER_TASK + 0 ... + this - 1). */
size_t session__nr_offcpu_holders(const struct session *s);

/* What the file describes (its tasks and cgroups), for prof's section. */
const struct ledger *session__ledger(const struct session *s);

#endif
