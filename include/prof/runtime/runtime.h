/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The runtime layer: what every language runtime's frames (Python's, the JVM's, a
 * third one's) need of prof beside the runtime's own reading of its memory.
 *
 * - A process table keyed by pid (struct runtime_procs), each entry the runtime's own
 *   state starting with a struct runtime_proc: a process is looked at (attach) at its
 *   first sample and again whenever its own mappings changed, let go (detach) at its
 *   exit (and its exec where the runtime asks), and counted once, either attached or
 *   refused with the first refusal's reason for the summary.
 * - The names of the recording's synthetic object (struct runtime_symbols): a symbol
 *   table with a build id random per recording, bounded (beyond its most names every
 *   symbol is 0, the runtime's "unverified"), kept in windows for a live reader
 *   (top, profd) so that its memory is bounded too, written into the build-id cache
 *   at the end (elf_writer.h), and mapped into each process by one MMAP2.
 * - The "why unverified" counts' one printer (runtime__why_list).
 *
 * A runtime fills a struct runtime_ops: its per-process state's size, attach and
 * detach (called by the table), and what its recording's session calls on it (the
 * frames of a sample, the names of its object, its summary line).  Nothing here prints
 * or reads a process's memory; modules do not log (STYLE.md).
 */
#ifndef PROF_RUNTIME_RUNTIME_H
#define PROF_RUNTIME_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/analyze/model.h"
#include "prof/analyze/unwinder.h"
#include "prof/base/hashtable.h"
#include "prof/perfdata/build_id.h"
#include "prof/perfdata/build_id_cache.h"
#include "prof/perfdata/sample.h"
#include "prof/synth/synth.h"

struct perf_event_header;

/* The head of a runtime's per-process state. */
struct runtime_proc {
	int32_t pid;
	bool judged;                    /* attach was tried with maps_nr own maps */
	bool counted;                   /* in the tally (attached or refused), once */
	bool attached;                  /* attach said 0 (until detached) */
	size_t maps_nr;                 /* the process's own maps when judged */
	uint64_t retry_ns;              /* set by attach: not looked at again before (a
					 * runtime still starting), 0 none */
	int pidfd;                      /* -1, or opened by attach: closed at detach */
};

struct runtime_ops {
	const char *what;               /* "python", "java": for messages */
	size_t proc_size;               /* the runtime's per-process state (>= struct runtime_proc) */
	bool exec_detaches;             /* a COMM exec lets the process go (else only its EXIT) */
	bool keeps_attached;            /* once attached, its maps changing do not attach it
					 * again: only its exit (or exec) lets it go */
	/* Find the runtime in process p (its state zeroed past the head on first use, or
	 * as detach left it) and attach: 0; -ENOENT when it has none (not counted);
	 * -EAGAIN when it cannot say yet (a runtime still starting: not judged, not
	 * counted, asked again at its next sample from p->retry_ns on, which attach sets;
	 * a retry_ns set with -ENOENT holds off a change of maps as long); any other
	 * -errno refuses it, why saying why (a message of its own when why is left
	 * empty). */
	int (*attach)(void *rt, struct runtime_proc *p, char *why, size_t why_len);
	/* Let go what attach took (the table closes pidfd itself). */
	void (*detach)(void *rt, struct runtime_proc *p);
	/*
	 * What a recording's pipeline calls on it, each runtime in its list's order
	 * (record/pipeline.c: the JVM, V8, then Python); any may be NULL.
	 */
	/* A record as written (a process's EXIT, or exec, lets it go: runtime_procs__note). */
	void (*note)(void *rt, const struct perf_event_header *ev);
	/* -g: is a mapping of this name one the runtime is found by (its object, prof's
	 * synthetic one)?  -g's model keeps only those. */
	bool (*mapping)(const char *name);
	/* A record as drained from the rings, long before it is judged (Python's early
	 * readings). */
	void (*drained)(void *rt, const struct perf_event_header *ev);
	/* --call-graph dwarf: a sample's unwound frames edited, the new count (as the
	 * unwinder's edit hook); *ret_named: this runtime named frames of it, the ones
	 * after it are not asked. */
	size_t (*frames)(void *rt, const struct sample *s, uint64_t *ips, const uint64_t *sps,
			 const struct unwind_regs *regs, size_t nr, size_t max, bool *ret_named);
	/* -g: kernel sample ev with this runtime's frames in its user call chain (and as
	 * the file states it), into out (outlen bytes): its size; 0 when it goes on as it
	 * came (nothing written); -EINVAL for a malformed sample. */
	int (*rewrite_g)(void *rt, const struct perf_event_header *ev, void *out, size_t outlen);
	/* The name at offset off of the recording's object d (a live reader's: false,
	 * not this runtime's object; *ret NULL, an offset it never gave). */
	bool (*name)(const void *rt, const struct model_dso *d, uint64_t off, const char **ret);
	/* Its statistics (the runtime's own struct), and their summary line. */
	const void *(*stats)(const void *rt);
	void (*describe)(const void *rt, char *buf, size_t len);
	/* The recording's end: its object written and kept. */
	void (*finish)(void *rt);
	/* Everything let go (rt NULL: nothing). */
	void (*free)(void *rt);
};

/* The counts of processes looked at, in the runtime's own statistics. */
struct runtime_tally {
	uint64_t *processes;            /* attached */
	uint64_t *rejected;             /* refused */
	char *why_rejected;             /* the first refusal's reason */
	size_t why_len;
};

struct runtime_procs {
	const struct runtime_ops *ops;
	void *rt;                       /* the runtime, ops' first argument */
	struct runtime_tally tally;
	struct hashtable procs;         /* ops->proc_size bytes by pid */
};

/* The table of rt's processes (none yet). */
void runtime_procs__init(struct runtime_procs *t, const struct runtime_ops *ops, void *rt,
			 const struct runtime_tally *tally);
/* Every process detached, the table freed. */
void runtime_procs__release(struct runtime_procs *t);

/* Process pid's state when it has one (a hash look-up), else NULL. */
struct runtime_proc *runtime_procs__find(const struct runtime_procs *t, int32_t pid);

/*
 * Process pid's state, attached the first time and again whenever its own mappings
 * (maps_nr of them, the runtime's synthetic one not counted) changed since (unless
 * ops->keeps_attached and it is attached): detached, then attach tried, and counted
 * once (attached, or refused with why).  now: CLOCK_MONOTONIC ns, against the
 * retry_ns attach sets (0 for a runtime that sets none).  NULL on ENOMEM.
 */
struct runtime_proc *runtime_procs__get(struct runtime_procs *t, int32_t pid, size_t maps_nr, uint64_t now);

/* An attached process refused later (counted as refused instead), with why. */
void runtime_procs__refuse(struct runtime_procs *t, struct runtime_proc *p, const char *why);

/* A sideband record as written: a process's EXIT (or exec, ops->exec_detaches)
 * detaches it and forgets it. */
void runtime_procs__note(struct runtime_procs *t, const struct perf_event_header *ev);

/* -g: does one of pids map a file whose path match says is the runtime's (its
 * /proc/PID/maps, as the recording starts)? */
bool runtime__pids_map(const int *pids, size_t n, bool (*match)(const char *path));

/* Does p's process still run (so its pid named it when its memory was read)? */
bool runtime_proc__still_there(const struct runtime_proc *p);

/* len bytes at addr of process pid read (process_vm_readv, with the caller's rights):
 * 0, -EFAULT when fewer were read, or the -errno (-ESRCH: the process is gone). */
int runtime__read_mem(int32_t pid, uint64_t addr, void *buf, size_t len);

/* ---- the names ------------------------------------------------------------------ */

struct runtime_symbols {
	struct hashtable syms;          /* uint32_t index by name (names[i]) */
	char **names;                   /* this window's, [0..nr_fixed) the fixed ones */
	size_t nr, cap;
	uint64_t base;                  /* the window's first symbol */
	uint64_t windows;               /* windows started after the first */
	uint32_t max;                   /* the most names of the object */
	uint32_t window;                /* a live reader's: names kept at once, 0 no bound */
	const char *const *fixed;       /* the names each window starts with (static) */
	size_t nr_fixed;
	struct build_id id;             /* the object's: random per recording */
};

/* The table with its fixed names (symbols 0.. nr_fixed - 1; 0 is the runtime's
 * "unverified"): 0 or -ENOMEM. */
int runtime_symbols__init(struct runtime_symbols *n, const char *const *fixed, size_t nr_fixed, uint32_t max,
			uint32_t window);
void runtime_symbols__release(struct runtime_symbols *n);

/* The symbol of name: its index (added when new), or 0 when it cannot be kept. */
uint32_t runtime_symbols__symbol(struct runtime_symbols *n, const char *name);

/* Before a sample: with a window, a new one when this one is full (true: the names
 * were let go, and what the runtime cached of them must be too). */
bool runtime_symbols__turn(struct runtime_symbols *n);

/* Is d the recording's object (its build id)?  Then *ret is the name at file offset
 * off, NULL when there is none (any more: a window gone names nothing). */
bool runtime_symbols__name(const struct runtime_symbols *n, const struct model_dso *d, uint64_t off, const char **ret);

/* The object mapped into s's process at base (len bytes, named path) before its first
 * frame there, by an MMAP2 through sink: 0 or -errno. */
int runtime_symbols__map(const struct runtime_symbols *n, const struct model *m, const struct synth_env *env,
		       const struct sample *s, uint64_t base, uint64_t len, const char *path, synth_sink_fn sink,
		       void *sink_ctx);

/* The object written (memfd named memfd_name) and kept in cache as path: 0 or -errno
 * (-ENOSPC when the cache would not keep it). */
int runtime_symbols__keep(const struct runtime_symbols *n, struct build_id_cache *cache, const char *path,
			const char *memfd_name);

/* ---- a sample's frames read with the user's rights -------------------------- */

/* fn(ctx, ...) as the unwinder's edit hook calls it, with no effective capability when
 * as_user (privs__as_user: the kernel's ptrace rules, not prof's capabilities, decide
 * what a user restricted to their own may read); nr when that cannot be done. */
size_t runtime__edit_as_user(unwinder_edit_fn fn, void *ctx, bool as_user, const struct sample *s, uint64_t *ips,
			     const uint64_t *sps, const struct unwind_regs *regs, size_t nr, size_t max);

/* -g: the kernel's part of sample s's call chain, up to its PERF_CONTEXT_USER (its
 * nr_callchain when it has none): what a runtime's rewrite_g keeps as it came. */
size_t runtime__kernel_chain(const struct sample *s);

/*
 * -g: sample ev (decoded as s with sample_type) written into out (outlen bytes) with
 * its call chain's user part (after the nk kernel entries and PERF_CONTEXT_USER)
 * replaced by ips[0..n), or no user part when s had none (nk == s->nr_callchain),
 * followed by ev's bytes from offset from on (right after the chain, or later, to
 * drop what lies between); where a runtime named the old leaf (s->ip == leaf, ips[0]
 * another), the sample's IP too, which perf report's symbol column reads.  Its size,
 * or -EINVAL when it does not fit.
 */
int runtime__splice_chain(const struct perf_event_header *ev, const struct sample *s, uint64_t sample_type,
			  size_t nk, const uint64_t *ips, size_t n, uint64_t leaf, size_t from, void *out,
			  size_t outlen);

/* ---- the counts ----------------------------------------------------------------- */

/* " (N why, M why, ...)" of counts[from..to) that are not 0, into buf (nothing when
 * all are): the length written (at most len - 1). */
size_t runtime__why_list(const uint64_t *counts, int from, int to, const char *(*name)(int), char *buf, size_t len);

#endif
