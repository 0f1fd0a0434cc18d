/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>

#include "prof/base/hash.h"
#include "prof/base/vec.h"
#include "prof/daemon/merge.h"

struct key {
	uint32_t task, stack;
};

static bool entry_eq(const void *e, const void *key, const void *ctx)
{
	const struct bucket_entry *x = &((const struct merge *)ctx)->e[*(const uint32_t *)e];
	const struct key *k = key;

	return x->task == k->task && x->stack == k->stack;
}

static uint64_t key_hash(uint32_t task, uint32_t stack)
{
	return hash__u64((uint64_t)task << 32 | stack);
}

void merge__init(struct merge *m, size_t max, merge_cut_fn cut_of, void *cut_ctx)
{
	*m = (struct merge){ .max = max ? max : SIZE_MAX, .cut_of = cut_of, .cut_ctx = cut_ctx };
	hashtable__init(&m->ix, sizeof(uint32_t), entry_eq, m);
}

void merge__release(struct merge *m)
{
	hashtable__release(&m->ix);
	free(m->e);
	m->e = NULL;
	m->nr = m->cap = 0;
}

void merge__clear(struct merge *m)
{
	hashtable__clear(&m->ix);
	m->nr = 0;
	m->cut_samples = m->cut_period = 0;
}

/* The entry of (task, stack), made when missing and allowed (may_exceed: the cap does
 * not apply).  NULL: over the cap (*err 0) or out of memory (*err -ENOMEM). */
static struct bucket_entry *entry(struct merge *m, uint32_t task, uint32_t stack, bool may_exceed, int *err)
{
	struct key k = { task, stack };
	uint64_t h = key_hash(task, stack);
	uint32_t *slot = hashtable__find(&m->ix, h, &k);
	bool created;

	*err = 0;
	if (slot)
		return &m->e[*slot];
	if (m->nr >= m->max && !may_exceed)
		return NULL;
	*err = -ENOMEM;
	if (m->nr >= UINT32_MAX || VEC_RESERVE(m->e, m->cap, m->nr + 1) < 0)
		return NULL;
	slot = hashtable__insert(&m->ix, h, &k, &created);
	if (!slot)
		return NULL;
	*err = 0;
	*slot = (uint32_t)m->nr;
	m->e[m->nr] = (struct bucket_entry){ .task = task, .stack = stack };
	return &m->e[m->nr++];
}

int merge__add(struct merge *m, uint32_t task, uint32_t stack, uint64_t samples, uint64_t period)
{
	struct bucket_entry *e;
	int err, cut = 0;

	e = entry(m, task, stack, false, &err);
	if (!e && !err) {
		/* the task's [cut] entry: one per task at most, past the cap */
		if (!m->cut_of || m->cut_of(m->cut_ctx, task, &task, &stack) < 0)
			return -ENOMEM;
		e = entry(m, task, stack, true, &err);
		m->cut_samples += samples;
		m->cut_period += period;
		cut = 1;
	}
	if (!e)
		return err;
	e->samples += samples;
	e->period += period;
	return cut;
}

int merge__reindex(struct merge *m)
{
	hashtable__clear(&m->ix);
	for (size_t i = 0; i < m->nr; i++) {
		struct key k = { m->e[i].task, m->e[i].stack };
		bool created;
		uint32_t *slot = hashtable__insert(&m->ix, key_hash(k.task, k.stack), &k, &created);

		if (!slot)
			return -ENOMEM;
		*slot = (uint32_t)i;
	}
	return 0;
}

size_t merge__bytes(const struct merge *m)
{
	return m->cap * sizeof(*m->e) + hashtable__bytes(&m->ix);
}
