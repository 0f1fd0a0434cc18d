/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A bucket of history: what the host ran during [start, end) (realtime ns), as
 * entries (task, stack, samples, period) of the dictionary (dict.h), sorted by the
 * task's uid so one tenant's entries are one binary-searched range, and what the
 * span lost: samples the engine cut (they are under a [cut] entry too, so totals
 * stay exact), records the kernel lost, samples that could not be attributed.
 * Made once, then only read (except that dropping unused dictionary items renames
 * the ids, history.h).
 */
#ifndef PROF_DAEMON_BUCKET_H
#define PROF_DAEMON_BUCKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/daemon/dict.h"

#define BUCKET_PARTIAL 1u       /* ended before its span did (the daemon stopped) */
#define BUCKET_AFTER_GAP 2u     /* the daemon did not run just before it (a restart) */
#define BUCKET_OFFCPU 4u        /* off-CPU time kept ([daemon] off_cpu): c.offcpu_window_ns
				 * of the span were measured (its windows), the rest not */
#define BUCKET_FLAGS (BUCKET_PARTIAL | BUCKET_AFTER_GAP | BUCKET_OFFCPU)

struct bucket_entry {
	uint32_t task, stack;
	uint64_t samples, period;
};

struct bucket_counts {
	uint64_t samples, period;       /* everything counted, cut or not */
	uint64_t cut_samples, cut_period;
	uint64_t lost;                  /* records the kernel lost (LOST, LOST_SAMPLES) */
	uint64_t unattributed;          /* samples of tasks that could not be told */
	uint64_t offcpu_window_ns;      /* BUCKET_OFFCPU: the span's time inside off-CPU windows
					 * (all of it at off_cpu_window = 0): the off-CPU entries'
					 * time is measured over these, never scaled */
};

struct bucket_hdr {
	uint64_t start_ns, end_ns;      /* realtime */
	uint32_t flags;
	struct bucket_counts c;
};

struct bucket {
	struct bucket_hdr h;
	bool persisted;                 /* written to the history file (store.h's) */
	size_t nr;
	struct bucket_entry e[];
};

/* A bucket of nr entries (copied), sorted by d's task uids.  NULL on ENOMEM. */
struct bucket *bucket__new(const struct bucket_hdr *h, const struct bucket_entry *e, size_t nr,
			   const struct dict *d);
struct bucket *bucket__free(struct bucket *b);

/* Sort entries by their task's uid (unknown uids last), as buckets keep them. */
void bucket__sort(struct bucket_entry *e, size_t nr, const struct dict *d);

/* The entries of uid (uid_known), or of the unknown uids: [*ret_first, *ret_end). */
void bucket__uid_range(const struct bucket *b, const struct dict *d, bool uid_known, uint32_t uid,
		       size_t *ret_first, size_t *ret_end);

/* Bytes the bucket holds. */
size_t bucket__bytes(const struct bucket *b);

/* Add c to *sum. */
void bucket__add_counts(struct bucket_counts *sum, const struct bucket_counts *c);

#endif
