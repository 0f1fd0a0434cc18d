/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdlib.h>

#include "prof/base/hash.h"
#include "prof/base/hashtable.h"
#include "prof/scope/task_table.h"

/*
 * The tasks last found, direct-mapped by tid: a sample's task is looked up several
 * times (look-up, judging, its leader), and the same few tasks run for long.
 */
#define MEMO_SLOTS 32

struct task_table {
	struct hashtable t;     /* of struct task, keyed by tid */
	struct hashtable_memo memo[MEMO_SLOTS];
};

static bool eq(const void *entry, const void *key, const void *ctx)
{
	return ((const struct task *)entry)->tid == *(const int32_t *)key;
}

static inline uint64_t hash_tid(int32_t tid)
{
	return hash__u64((uint32_t)tid);
}

struct task_table *task_table__new(void)
{
	struct task_table *t = calloc(1, sizeof(*t));

	if (t)
		hashtable__init(&t->t, sizeof(struct task), eq, NULL);
	return t;
}

struct task_table *task_table__free(struct task_table *t)
{
	if (t) {
		hashtable__release(&t->t);
		free(t);
	}
	return NULL;
}

struct task *task_table__find(struct task_table *t, int32_t tid)
{
	return hashtable__find_memo(&t->t, &t->memo[(uint32_t)tid % MEMO_SLOTS], (uint32_t)tid, hash_tid(tid), &tid);
}

struct task *task_table__get(struct task_table *t, int32_t tid, bool *ret_created)
{
	bool created;
	struct task *task = hashtable__insert(&t->t, hash_tid(tid), &tid, &created);

	if (!task)
		return NULL;
	if (created)
		task->tid = tid;        /* the rest is zeroed */
	if (ret_created)
		*ret_created = created;
	return task;
}

void task_table__remove(struct task_table *t, int32_t tid)
{
	hashtable__remove(&t->t, hash_tid(tid), &tid);
}

size_t task_table__size(const struct task_table *t)
{
	return hashtable__size(&t->t);
}
