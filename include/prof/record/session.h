/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A live recording session, shared by prof record and prof top: privileges, the
 * configuration and the policy, the scope, the events, and the pipeline that
 * merges every CPU's records in time order, judges them against the scope and
 * describes tasks the first time they matter.  What passes goes to a sink: the
 * perf.data writer for record, the live aggregation for top.  Part of the
 * commands: it prints its errors.
 */
#ifndef PROF_RECORD_SESSION_H
#define PROF_RECORD_SESSION_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "prof/perfdata/build_id_table.h"
#include "prof/cli/config.h"
#include "prof/synth/map_dedup.h"
#include "prof/record/ordered_queue.h"
#include "prof/perfdata/perf_data.h"
#include "prof/scope/policy.h"
#include "prof/sys/privs.h"
#include "prof/cli/record_opts.h"
#include "prof/sys/output_file.h"
#include "prof/record/events.h"
#include "prof/synth/ledger.h"
#include "prof/synth/synth.h"
#include "prof/scope/tracker.h"
#include "prof/analyze/unwinder.h"
#include "prof/sys/workload.h"

struct record_stats {
	uint64_t lost;                  /* PERF_RECORD_LOST: records the ring buffer dropped */
	uint64_t lost_samples;          /* PERF_RECORD_LOST_SAMPLES */
	uint64_t synth_tasks;           /* tasks described from /proc */
	uint64_t synth_gone;            /* ... that were gone by then */
	uint64_t records;               /* everything written to the data section */
	uint64_t malformed;             /* samples too short for what they should carry */
};

/* Where what passes the scope goes: 0 or -errno (which stops the session). */
typedef int (*record_sink_fn)(const void *rec, size_t len, void *ctx);

struct record {
	struct record_opts opts;
	record_sink_fn sink;
	void *sink_ctx;
	struct events *events;
	const struct sample_layout *layout;
	struct ordered_queue *queue;
	struct perf_writer *writer;
	struct build_id_table *build_ids;       /* record's: build ids of the mapped objects */
	struct tracker *tracker;
	struct cgroups *cgroups;
	struct ledger *ledger;
	struct map_dedup *dedup;
	struct unwinder *unwinder;      /* --call-graph dwarf: samples passed on unwound */
	uint8_t *unwound;               /* ... one rewritten sample */
	size_t unwound_len;
	uint64_t synth_until;           /* while describing a task: when its /proc read ended */
	uint64_t hold;                  /* this round judges nothing from here on (see peek) */
	uint64_t round_deadline;        /* with an unwinder: pause the round past this time */
	bool round_paused;              /* ... it did: go on at once after reading the buffers */
	struct synth_env synth;
	int cgroup_fd;
	char cgroup_mount[4096];
	struct output_file out;
	struct privs privs;
	struct prof_config cfg;
	struct policy_verdict verdict;
	char output_buf[4096];
	struct workload wl;
	bool has_workload;
	int write_err;
	uint64_t start_ns;
	struct record_stats st;
};

/* The signal that asked to stop (SIGINT, SIGTERM, SIGHUP), 0 while none did. */
int record__stop_signal(void);
/* Stop signals set a flag (poll() returns EINTR); SIGPIPE is ignored. */
void record__install_signals(void);

void record__explain_no_privilege(const char *why, int paranoid);

/*
 * Privileges, configuration, scope and policy, in that order, before anything is
 * opened.  Returns 0, or an exit code after a message.
 */
int record__prepare(struct record *r);

/*
 * Open the events (disabled), and with --call-graph dwarf the unwinder: samples
 * then reach the sink with their user stacks unwound into the callchain, without
 * the registers and the stack copy (unwind.h).  0 or -errno after a message.
 */
int record__open_events(struct record *r);
/* With the sink set: /proc, the kernel's maps, the tracker.  0 or -errno after a message. */
int record__start(struct record *r);

/* One turn: wait for data (up to the poll interval), drain, pass on what is old
 * enough.  0 or -errno. */
int record__step(struct record *r);
/* Stop the events and pass on everything still buffered.  0 or -errno. */
int record__drain_all(struct record *r);

void record__free(struct record *r);

#endif
