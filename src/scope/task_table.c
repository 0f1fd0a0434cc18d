/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdlib.h>
#include <string.h>

#include "prof/scope/task_table.h"
#include "prof/base/util.h"

struct slot {
	bool used;
	struct task task;
};

struct task_table {
	struct slot *slots;
	size_t mask;    /* capacity - 1, capacity a power of two */
	size_t nr;
};

static inline size_t hash_tid(int32_t tid)
{
	uint64_t x = (uint32_t)tid * 0x9e3779b97f4a7c15ull;
	return (size_t)(x >> 32);
}

struct task_table *task_table__new(void)
{
	struct task_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->mask = 1023;
	t->slots = calloc(t->mask + 1, sizeof(*t->slots));
	if (!t->slots) {
		free(t);
		return NULL;
	}
	return t;
}

struct task_table *task_table__free(struct task_table *t)
{
	if (t) {
		free(t->slots);
		free(t);
	}
	return NULL;
}

static struct slot *lookup(const struct task_table *t, int32_t tid)
{
	for (size_t i = hash_tid(tid) & t->mask;; i = (i + 1) & t->mask) {
		struct slot *s = &t->slots[i];
		if (!s->used || s->task.tid == tid)
			return s;
	}
}

struct task *task_table__find(struct task_table *t, int32_t tid)
{
	struct slot *s = lookup(t, tid);
	return s->used ? &s->task : NULL;
}

static int grow(struct task_table *t)
{
	size_t ncap = (t->mask + 1) * 2;
	struct slot *old = t->slots, *n = calloc(ncap, sizeof(*n));

	if (!n)
		return -ENOMEM;
	t->slots = n;
	for (size_t i = 0; i <= t->mask; i++)
		if (old[i].used)
			*lookup(&(struct task_table){ .slots = n, .mask = ncap - 1 }, old[i].task.tid) = old[i];
	t->mask = ncap - 1;
	free(old);
	return 0;
}

struct task *task_table__get(struct task_table *t, int32_t tid, bool *ret_created)
{
	struct slot *s = lookup(t, tid);

	if (s->used) {
		if (ret_created)
			*ret_created = false;
		return &s->task;
	}
	/* Keep the load under 1/2 so probe chains stay short. */
	if ((t->nr + 1) * 2 > t->mask + 1) {
		if (grow(t) < 0)
			return NULL;
		s = lookup(t, tid);
	}
	s->used = true;
	s->task = (struct task){ .tid = tid };
	t->nr++;
	if (ret_created)
		*ret_created = true;
	return &s->task;
}

void task_table__remove(struct task_table *t, int32_t tid)
{
	struct slot *s = lookup(t, tid);
	size_t i, j;

	if (!s->used)
		return;
	/* Backward-shift deletion: no tombstones, probe chains stay exact. */
	i = (size_t)(s - t->slots);
	s->used = false;
	t->nr--;
	for (j = (i + 1) & t->mask; t->slots[j].used; j = (j + 1) & t->mask) {
		size_t home = hash_tid(t->slots[j].task.tid) & t->mask;
		/* Move j into the hole at i if its home is not in (i, j]. */
		if ((j > i && (home <= i || home > j)) || (j < i && (home <= i && home > j))) {
			t->slots[i] = t->slots[j];
			t->slots[j].used = false;
			i = j;
		}
	}
}

size_t task_table__size(const struct task_table *t)
{
	return t->nr;
}
