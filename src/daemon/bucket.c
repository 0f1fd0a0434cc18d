/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdlib.h>
#include <string.h>

#include "prof/daemon/bucket.h"

/* The sort key of a task: its uid, unknown uids after every known one. */
static uint64_t uid_key(const struct dict *d, uint32_t task)
{
	const struct dict_task *t = dict__task_get(d, task);

	return t->flags & DICT_TASK_UID_KNOWN ? t->uid : UINT64_C(1) << 32;
}

static int cmp_entry(const void *x, const void *y, void *ctx)
{
	const struct bucket_entry *a = x, *b = y;
	uint64_t ka = uid_key(ctx, a->task), kb = uid_key(ctx, b->task);

	if (ka != kb)
		return ka < kb ? -1 : 1;
	if (a->task != b->task)
		return a->task < b->task ? -1 : 1;
	return a->stack < b->stack ? -1 : a->stack > b->stack;
}

void bucket__sort(struct bucket_entry *e, size_t nr, const struct dict *d)
{
	qsort_r(e, nr, sizeof(*e), cmp_entry, (void *)d);
}

struct bucket *bucket__new(const struct bucket_hdr *h, const struct bucket_entry *e, size_t nr,
			   const struct dict *d)
{
	struct bucket *b = malloc(sizeof(*b) + nr * sizeof(*e));

	if (!b)
		return NULL;
	b->h = *h;
	b->persisted = false;
	b->nr = nr;
	if (nr)
		memcpy(b->e, e, nr * sizeof(*e));
	bucket__sort(b->e, nr, d);
	return b;
}

struct bucket *bucket__free(struct bucket *b)
{
	free(b);
	return NULL;
}

/* The first entry whose uid key is at least key. */
static size_t lower_bound(const struct bucket *b, const struct dict *d, uint64_t key)
{
	size_t lo = 0, hi = b->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (uid_key(d, b->e[mid].task) < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void bucket__uid_range(const struct bucket *b, const struct dict *d, bool uid_known, uint32_t uid,
		       size_t *ret_first, size_t *ret_end)
{
	uint64_t key = uid_known ? uid : UINT64_C(1) << 32;

	*ret_first = lower_bound(b, d, key);
	*ret_end = lower_bound(b, d, key + 1);
}

size_t bucket__bytes(const struct bucket *b)
{
	return sizeof(*b) + b->nr * sizeof(b->e[0]);
}

void bucket__add_counts(struct bucket_counts *sum, const struct bucket_counts *c)
{
	sum->samples += c->samples;
	sum->period += c->period;
	sum->cut_samples += c->cut_samples;
	sum->cut_period += c->cut_period;
	sum->lost += c->lost;
	sum->unattributed += c->unattributed;
	sum->offcpu_window_ns += c->offcpu_window_ns;
}
