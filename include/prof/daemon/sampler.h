/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The daemon's sink on the live session (session.h): what passes the scope (-a)
 * feeds a model of the host, the resolver and the aggregation engine, as prof top's
 * does, and every fine span (one second) the engine's entries go into history as a
 * bucket (history.h), named in its dictionary: the task's uid (the tracker's, at
 * judging), cgroup path, container (none yet) and comm, and the stack resolved here,
 * while the maps are known (a tenant asking later cannot resolve them any more).
 *
 * The model forgets exited tasks (model_reaper.h), keys hold no pid, and the engine
 * is reset at each close, so a fork storm costs no memory that stays.
 * Runs in the sampling thread; it takes history's writer lock only to close a bucket.
 */
#ifndef PROF_DAEMON_SAMPLER_H
#define PROF_DAEMON_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/analyze/debuginfod.h"
#include "prof/analyze/symbols.h"
#include "prof/daemon/history.h"
#include "prof/perfdata/sample.h"

/*
 * How long the daemon's session waits for the rings (session_config.poll_ms).  Every
 * wake-up costs a poll over every ring, a drain and a round: at 25 ms (prof record's)
 * they were a fifth of profd's CPU beside a build.  The spans' closing allows for it.
 */
#define SAMPLER_POLL_MS 100

struct model_dso;

struct sampler_config {
	struct history *history;        /* borrowed */
	bool callchain;                 /* stacks of the call chain, else of the ip */
	bool off_cpu_stacks;            /* ... for off-CPU intervals too (else their ip only:
					 * where the task switched out, in the kernel) */
	bool off_cpu;                   /* off-CPU time kept: buckets say over how long
					 * (BUCKET_OFFCPU; all of each, or sampler__offcpu_window's) */
	size_t max_stacks;              /* the live engine's cap per fine span */
	size_t symbols_max;             /* the objects' symbol tables kept, bytes (LRU) */
	bool kernel;                    /* kernel symbols are readable (kallsyms) */
	/* an offcpu-runq holder of the session's holder table (OFFCPU_HOLDER_TASK + n): its
	 * uid and cgroup (session__offcpu_holder); NULL: none */
	const struct offcpu_holder_info *(*holder_info)(void *ctx, uint32_t holder);
	void *holder_ctx;
	/* the tracker's uid of tid, at judging time */
	bool (*uid_of)(void *ctx, int32_t tid, uint32_t *ret);
	void *uid_ctx;
	/* the session's own objects' names (session__runtime_name: its runtimes' frames);
	 * NULL: none.  Such an object is no file (PYTHON_OBJECT_LIVE): its names are
	 * the sampled process's own, shown to whoever may see that process's samples */
	bool (*object_name)(void *ctx, const struct model_dso *d, uint64_t off, const char **ret);
	void *object_ctx;
	/* debug files of objects without symbols, fetched off this thread ([symbols]
	 * debuginfod_urls); borrowed, NULL: none */
	struct debuginfod_worker *debuginfod;
};

struct sampler_stats {
	uint64_t samples;               /* added to the engine (on-CPU) */
	uint64_t runq_ns, blocked_ns;   /* off-CPU intervals added ([daemon] off_cpu) */
	uint64_t short_samples;         /* too short to read */
	uint64_t late;                  /* stamped before the open bucket (added to it) */
	uint64_t lost;                  /* the kernel's LOST and LOST_SAMPLES counts */
	uint64_t closed;                /* fine buckets closed */
	uint64_t coarse;                /* coarse buckets made */
	uint64_t objects;               /* objects described (mode, owner, build id) */
	uint64_t close_wait_max_ns;     /* longest wait for history's lock at a close */
	size_t engine_bytes;            /* the live engine's tables */
	struct symbols_stats syms;      /* the objects' symbol tables (symbols_max) */
	struct debuginfod_stats dbgd;   /* what the debuginfod worker asked */
};

struct sampler;

/* 0 or -ENOMEM. */
int sampler__new(const struct sampler_config *c, struct sampler **ret);
struct sampler *sampler__free(struct sampler *s);

/* Once the session is open: the layout of the samples it passes on. */
void sampler__set_layout(struct sampler *s, const struct sample_layout *l);
/* Read the kernel's symbols now, while kallsyms shows addresses (before privileges go). */
void sampler__load_kernel(struct sampler *s);

/* The session's sink (session_sink_fn): ctx is the sampler.  0 or -ENOMEM. */
int sampler__sink(const void *rec, size_t len, void *ctx);

/*
 * Time passed (CLOCK_MONOTONIC now, with the session's judging done up to about
 * 50 ms before): close every fine span that ended, and have the model forget the
 * tasks exited long enough ago.  unattributed: the session's count so far.
 * Returns how many coarse buckets were made (the store has work), or -ENOMEM.
 */
int sampler__tick(struct sampler *s, uint64_t mono_now, uint64_t unattributed);

/* The daemon stops: close the open fine span and coarse span as PARTIAL.  Coarse
 * buckets made (0 or 1), or -ENOMEM. */
int sampler__finish(struct sampler *s, uint64_t mono_now, uint64_t unattributed);

void sampler__stats(const struct sampler *s, struct sampler_stats *ret);

/*
 * [daemon] off_cpu_window: the switch records went on or off at mono (CLOCK_MONOTONIC
 * ns, session__offcpu_window's edge).  From the first call on, each bucket's
 * c.offcpu_window_ns is its time inside those windows (without any: all of it).
 */
void sampler__offcpu_window(struct sampler *s, bool on, uint64_t mono);

/* Realtime ns now (the clock history's buckets are stamped in). */
uint64_t sampler__realtime_ns(void);

#endif
