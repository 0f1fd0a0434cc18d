/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * events' internals, shared by its two files only (libperf's habit: the struct opaque
 * in the public header events.h, whole here): events.c opens the sampling events and
 * the sideband and maps the rings, events_tracepoints.c the tracepoint events and
 * their closing.
 */
#ifndef PROF_RECORD_EVENTS_INTERNAL_H
#define PROF_RECORD_EVENTS_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include <perf/cpumap.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/threadmap.h>

#include "prof/record/cgroup_sampling.h"
#include "prof/record/events.h"
#include "prof/python/chain.h"
#include "prof/offcpu/offcpu_events.h"

/* Everything a record needs to be judged and written; same for both events so any
 * record's trailer parses alike (perf requires IDENTIFIER when types differ). */
#define SAMPLE_TYPE_BASE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
			  PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |   \
			  PERF_SAMPLE_CGROUP)

struct events {
	struct perf_evlist *evlist;
	struct perf_evsel *sampling[RECORD_MAX_EVENTS], *sideband;
	struct cgroup_sampling *by_cgroup[RECORD_MAX_EVENTS];  /* instead of sampling[] */
	struct perf_event_attr attrs[RECORD_MAX_EVENTS];        /* the sampling events' */
	struct perf_cpu_map *cpus;
	struct perf_thread_map *threads;
	struct events_info info;
	struct sample_layout layout;
	/* the sampling ones, the sideband, then with --off-cpu prof's two (offcpu_events.h) */
	struct perf_data_event events[RECORD_MAX_EVENTS + 3];
	struct offcpu_events *offcpu;   /* --off-cpu: the context-switch event */
	uint64_t *ids[RECORD_MAX_EVENTS + 1];
	struct events_creds creds[3];
	size_t nr_creds;
	uint64_t *creds_ids[3];
	/* --off-cpu's sched tracepoints (sched_wakeup, sched_migrate_task) and their ids */
	struct perf_evsel *wake_sel[2];
	/* off_cpu_windowed: the switch records' own event (the sideband then has none), so
	 * that windows can turn them off and the tasks' records stay (events__offcpu_window) */
	struct perf_evsel *switch_sel;
	uint64_t *wake_ids[2];
	int release_fd;                 /* the closing child waits for its EOF (events__free) */
	/* every sample id the kernel gave this recording's events: a sample in its rings
	 * with another id is another recording's (events__drain) */
	struct idmap *own_ids;
	uint64_t foreign_samples;       /* dropped */
	uint64_t foreign_kept;          /* told for the context-switch event's and kept */
	bool salvage;                   /* another id may be the context-switch event's */
	/* the context-switch event's last sample, until the ring's next record (events__drain) */
	uint8_t *held;
	size_t held_len, held_cap;
	bool held_foreign;              /* it has another recording's id */
	/* --call-graph dwarf: the Python chains' program and its bpf-output event, whose
	 * record stays here until the ring's next record, its sample (events__drain) */
	struct python_chains *chains;
	struct perf_evsel *chain_sel;
	uint64_t *chain_ids;
	uint8_t *chain;
	size_t chain_len, chain_cap;
	/* a LOST record of an event the file does not name, renamed (events_lost.c) */
	uint8_t *lost_fix;
	size_t lost_fix_cap;
	uint64_t last_time;             /* ... its time: the latest the rings gave */
	/* the rings read by a thread of their own while the main one is busy (events_spill.c) */
	struct events_spill *spill;
	/* a ring replay (events_replay.c): saving what is drained (ring_save), or the
	 * drains read from a saved file instead of the kernel's rings */
	struct events_replay *replay;
	bool ring_save;
};

/* What a sample id in the rings is (events__drain). */
enum { OWN_EVENT = 1, OWN_SWITCH, OWN_CHAIN, FOREIGN };

/* The fd of each of ids[n], told by the id the kernel gave it, into fds: 0, or -ENOENT
 * when one has none (events_chains.c). */
int events__fds_of_ids(const uint64_t *ids, size_t n, int *fds);

/* --call-graph dwarf: the Python chains' program and its bpf-output event, opened
 * before the rings are mapped (best effort: events_info says why not), attached
 * after (0 or -errno), and the held chain record paired with the ring's next record
 * (events_chains.c). */
void events__open_chains(struct events *e);
int events__attach_chains(struct events *e);
void events__pair_chain(struct events *e, const struct perf_event_header *next);

/* A LOST or LOST_SAMPLES record *pev of an event whose records the file does not
 * name (the chains' bpf-output event, the tracepoints, the context-switch event):
 * *pev then points to a copy named for the first sampling event, with its trailer
 * (time: when the kernel gave none).  0 or -ENOMEM (events_lost.c). */
int events__fix_lost(struct events *e, const struct perf_event_header **pev, uint64_t time);

/* Add evsel to e's evlist (which owns it from then) and open it on every CPU: 0 or a
 * negative errno (events.c). */
int events__open_evsel(struct events *e, struct perf_evsel *evsel);

/* The sample id the kernel gave evsel on each CPU, into *ret (the caller's to free): 0
 * or a negative errno (events.c). */
int events__evsel_ids(struct events *e, struct perf_evsel *evsel, uint64_t **ret);

/* Is fd a perf event's, and its sample id into *ret (events.c). */
bool perf_event_fd__id(int fd, uint64_t *ret);

/* The set*uid() tracepoints opened, their ids into e->creds: 0 or a negative errno,
 * what was added left in the evlist (the caller removes it). */
int events__open_creds(struct events *e);

/* --off-cpu's sched tracepoints opened, their fields' offsets into e->info.wakeups: 0
 * or a negative errno (also in info.wakeups.err), what was added removed again. */
int events__open_wakeups(struct events *e);

/* After the rings are mapped: the sched tracepoints' ids, into info.wakeups. */
int events__read_wakeup_ids(struct events *e);

/* Before the evlist closes: the tracepoints' last close handed to a child (its pipe in
 * e->release_fd, -1 without one). */
void events__close_creds_later(struct events *e);

/*
 * The spill thread (events_spill.c): it copies the rings' records into blocks of q's
 * (ordered_queue__block_new), a list per ring, while the main thread has not read them for a few milliseconds and is not
 * waiting in its poll.  start: after the rings are mapped (e->spill then; the thread
 * best effort: 0 or -errno, the buffers serve the main thread alone then).  stop:
 * joined (before the last drain).  read: under the lock, a ring the thread copied
 * nothing of is read in place by direct (0 or -errno: the read stops); any other
 * ring's new records are appended to what the thread copied, and all of it swapped
 * out for the main thread, its records then from taken, block k of ring after
 * block k - 1 (none for the rings read in place; NULL past the last), each the
 * main thread's to push_in from, and to block_done when *ret_done (the last stays
 * the ring's, filled on by the next copies); *ret_nr: the number of rings.  0 or direct's -errno.  idle: the main thread is in its poll.
 */
struct perf_mmap;
typedef int (*events_ring_fn)(struct perf_mmap *map, void *ctx);
struct ordered_queue;
struct ordered_block;
int events_spill__start(struct events *e, struct ordered_queue *q);
void events_spill__stop(struct events *e);
/* the thread stops the sampling events at ns (CLOCK_MONOTONIC) if the main one is busy then */
void events_spill__deadline(struct events *e, uint64_t ns);
void events_spill__free(struct events *e);
void events_spill__idle(struct events *e, bool idle);
int events_spill__read(struct events *e, events_ring_fn direct, void *ctx, size_t *ret_nr);
const uint8_t *events_spill__taken(struct events *e, size_t ring, size_t k, struct ordered_block **ret_block,
				   size_t *ret_len, bool *ret_done);

/* The own_ids of e's events (events.c), also for a replay's. */
int events__collect_own_ids(struct events *e);

/*
 * A ring replay (events_replay.c).  save: after events__new, the file at path made
 * (0600, not through a symlink) with what the replay needs; 0, -EOPNOTSUPP (--off-cpu,
 * the set*uid() tracepoints: not replayed) or -errno.  record and ring_end: each
 * record take() is given, each ring's end; drain_begin and drain_end around a drain
 * (a block written: 0 or -EIO).  open: events made from a saved file, no kernel event
 * opened; 0, -EBADMSG (not such a file), -EPROTO (another build's) or -errno.  drain:
 * the next drain's records, fn called with each ring's (whole records at 8-byte
 * multiples), after events_replay__disable every drain left; 0 or fn's -errno.  done:
 * the drains before the events were disabled are all taken.
 */
typedef int (*events_chunk_fn)(void *ctx, const uint8_t *buf, size_t len);
int events_replay__save(struct events *e, const char *path);
void events_replay__record(struct events *e, const struct perf_event_header *h);
void events_replay__ring_end(struct events *e);
void events_replay__drain_begin(struct events *e);
int events_replay__drain_end(struct events *e);
int events_replay__open(const char *path, struct events **ret);
int events_replay__drain(struct events *e, events_chunk_fn fn, void *ctx);
bool events_replay__done(const struct events *e);
void events_replay__disable(struct events *e);
void events_replay__free(struct events *e);

#endif
