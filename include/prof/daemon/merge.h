/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Adding up entries (task, stack, samples, period) of several buckets into one set
 * with one entry per (task, stack): a coarse bucket from fine ones, an answer from the
 * buckets of its window.  Bounded: past max distinct entries, what would be a new entry
 * goes to its task's [cut] entry instead (the caller says which that is, so a tenant's
 * cut samples stay the tenant's), counted, and the totals stay exact.
 */
#ifndef PROF_DAEMON_MERGE_H
#define PROF_DAEMON_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "prof/base/hashtable.h"
#include "prof/daemon/bucket.h"

/* The [cut] entry of task: its (task, stack) ids.  0 or -ENOMEM. */
typedef int (*merge_cut_fn)(void *ctx, uint32_t task, uint32_t *ret_task, uint32_t *ret_stack);

struct merge {
	struct bucket_entry *e;
	size_t nr, cap, max;
	struct hashtable ix;            /* of uint32_t (index in e), by (task, stack) */
	merge_cut_fn cut_of;
	void *cut_ctx;
	uint64_t cut_samples, cut_period;
};

/* An empty merge of at most max distinct entries (0: no limit). */
void merge__init(struct merge *m, size_t max, merge_cut_fn cut_of, void *cut_ctx);
void merge__release(struct merge *m);
/* Empty again, keeping the memory. */
void merge__clear(struct merge *m);

/* Count samples and period under (task, stack): 0, 1 when it went to the [cut] entry,
 * -ENOMEM. */
int merge__add(struct merge *m, uint32_t task, uint32_t stack, uint64_t samples, uint64_t period);

/* After the entries' ids were renamed in place (m->e): index them again.  0 or -ENOMEM. */
int merge__reindex(struct merge *m);

size_t merge__bytes(const struct merge *m);

#endif
