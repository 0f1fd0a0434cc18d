/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The tid-keyed task table: basic operations, growth, and deletion under collisions. */
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>

#include "prof/scope/task_table.h"

static struct task_table *new_table(void)
{
	struct task_table *t = task_table__new();

	cr_assert_not_null(t);
	return t;
}

Test(task_table, empty)
{
	struct task_table *t = new_table();

	cr_assert_eq(task_table__size(t), 0);
	cr_assert_null(task_table__find(t, 1));
	cr_assert_null(task_table__find(t, 0));
	task_table__remove(t, 1);       /* no-op */
	cr_assert_eq(task_table__size(t), 0);
	cr_assert_null(task_table__free(t));
	cr_assert_null(task_table__free(NULL));
}

Test(task_table, insert_and_find)
{
	struct task_table *t = new_table();
	bool created = false;
	struct task *a, *b;

	a = task_table__get(t, 100, &created);
	cr_assert_not_null(a);
	cr_assert(created);
	cr_assert_eq(a->tid, 100);
	cr_assert_eq(a->pid, 0, "a new task is zeroed");
	cr_assert_eq(a->flags, 0);
	cr_assert_eq(a->uid, 0);
	cr_assert_eq(a->cgroup, 0);
	cr_assert_eq(task_table__size(t), 1);
	a->pid = 99;
	a->flags = TASK_UID_KNOWN | TASK_EXITED;
	a->uid = 1000;
	a->cgroup = 0x1234;

	b = task_table__get(t, 100, &created);
	cr_assert_eq(b, a, "the same tid is the same entry");
	cr_assert_not(created);
	cr_assert_eq(b->pid, 99, "an existing task is not reset");
	cr_assert_eq(task_table__size(t), 1);

	b = task_table__find(t, 100);
	cr_assert_eq(b, a);
	cr_assert_eq(b->flags, TASK_UID_KNOWN | TASK_EXITED);
	cr_assert_eq(b->uid, 1000);
	cr_assert_eq(b->cgroup, 0x1234);
	cr_assert_null(task_table__find(t, 101));
	task_table__free(t);
}

Test(task_table, created_flag_optional)
{
	struct task_table *t = new_table();
	struct task *a;

	a = task_table__get(t, 7, NULL);
	cr_assert_not_null(a);
	cr_assert_eq(a->tid, 7);
	cr_assert_eq(task_table__get(t, 7, NULL), a);
	cr_assert_eq(task_table__size(t), 1);
	task_table__free(t);
}

Test(task_table, zero_and_negative_tids_are_keys)
{
	struct task_table *t = new_table();
	bool created;

	/* tid 0 (the idle task) must not be confused with an empty slot. */
	cr_assert_null(task_table__find(t, 0));
	cr_assert_not_null(task_table__get(t, 0, &created));
	cr_assert(created);
	cr_assert_not_null(task_table__get(t, -1, &created));
	cr_assert(created);
	cr_assert_not_null(task_table__get(t, INT32_MAX, &created));
	cr_assert(created);
	cr_assert_not_null(task_table__get(t, INT32_MIN, &created));
	cr_assert(created);
	cr_assert_eq(task_table__size(t), 4);
	cr_assert_eq(task_table__find(t, 0)->tid, 0);
	cr_assert_eq(task_table__find(t, -1)->tid, -1);
	cr_assert_eq(task_table__find(t, INT32_MAX)->tid, INT32_MAX);
	cr_assert_eq(task_table__find(t, INT32_MIN)->tid, INT32_MIN);
	task_table__remove(t, 0);
	cr_assert_null(task_table__find(t, 0));
	cr_assert_not_null(task_table__find(t, -1));
	cr_assert_eq(task_table__size(t), 3);
	task_table__free(t);
}

Test(task_table, remove)
{
	struct task_table *t = new_table();
	bool created;

	for (int32_t tid = 1; tid <= 10; tid++)
		task_table__get(t, tid, NULL)->pid = tid * 10;
	cr_assert_eq(task_table__size(t), 10);

	task_table__remove(t, 5);
	cr_assert_null(task_table__find(t, 5));
	cr_assert_eq(task_table__size(t), 9);
	task_table__remove(t, 5);       /* twice: no-op */
	task_table__remove(t, 500);     /* never there: no-op */
	cr_assert_eq(task_table__size(t), 9);
	for (int32_t tid = 1; tid <= 10; tid++) {
		if (tid == 5)
			continue;
		cr_assert_not_null(task_table__find(t, tid), "tid %d lost", tid);
		cr_assert_eq(task_table__find(t, tid)->pid, tid * 10);
	}

	/* A removed tid comes back fresh. */
	cr_assert_eq(task_table__get(t, 5, &created)->pid, 0);
	cr_assert(created);
	cr_assert_eq(task_table__size(t), 10);
	task_table__free(t);
}

Test(task_table, growth)
{
	enum { N = 100000 };
	struct task_table *t = new_table();

	/* Spread tids like real ones (dense runs) and far apart ones. */
	for (int32_t i = 0; i < N; i++) {
		int32_t tid = (i & 1) ? i : (int32_t)((uint32_t)i * 2654435761u) & 0x3fffffff;
		bool created = false;
		struct task *k = task_table__get(t, tid, &created);

		cr_assert_not_null(k);
		if (!created)
			continue;       /* the scrambled half may repeat a dense tid */
		k->pid = ~tid;
		k->cgroup = (uint64_t)tid << 8;
	}
	for (int32_t i = 0; i < N; i++) {
		int32_t tid = (i & 1) ? i : (int32_t)((uint32_t)i * 2654435761u) & 0x3fffffff;
		struct task *k = task_table__find(t, tid);

		cr_assert_not_null(k, "tid %d lost after growth", tid);
		cr_assert_eq(k->tid, tid);
		cr_assert_eq(k->pid, ~tid);
		cr_assert_eq(k->cgroup, (uint64_t)tid << 8);
	}
	cr_assert_leq(task_table__size(t), N);
	cr_assert_geq(task_table__size(t), N / 2);
	task_table__free(t);
}

Test(task_table, growth_exact_count)
{
	enum { N = 5000 };
	struct task_table *t = new_table();

	for (int32_t tid = 1; tid <= N; tid++) {
		task_table__get(t, tid * 7, NULL)->pid = tid;
		cr_assert_eq(task_table__size(t), (size_t)tid);
	}
	for (int32_t tid = 1; tid <= N; tid++) {
		cr_assert_not_null(task_table__find(t, tid * 7), "tid %d lost", tid * 7);
		cr_assert_eq(task_table__find(t, tid * 7)->pid, tid);
		cr_assert_null(task_table__find(t, tid * 7 + 1));
	}
	for (int32_t tid = 1; tid <= N; tid += 2)
		task_table__remove(t, tid * 7);
	cr_assert_eq(task_table__size(t), N / 2);
	for (int32_t tid = 1; tid <= N; tid++) {
		struct task *k = task_table__find(t, tid * 7);

		if (tid & 1)
			cr_assert_null(k, "tid %d still there", tid * 7);
		else
			cr_assert(k && k->pid == tid, "tid %d lost after removals", tid * 7);
	}
	task_table__free(t);
}

/*
 * The table's hash, copied to pick tids that collide in the initial 1024 slots.  If
 * the module's hash changes these tids merely stop colliding: the assertions below
 * check only what the public API promises, and the randomized test still covers
 * collisions.
 */
static size_t home_slot(int32_t tid, size_t mask)
{
	uint64_t x = (uint32_t)tid * 0x9e3779b97f4a7c15ull;

	return (size_t)(x >> 32) & mask;
}

/* Up to n tids >= 1 whose home slot is `slot` in a table of mask + 1 slots. */
static size_t tids_with_home(size_t slot, size_t mask, int32_t *out, size_t n)
{
	size_t found = 0;

	for (int32_t tid = 1; tid < (1 << 24) && found < n; tid++)
		if (home_slot(tid, mask) == slot)
			out[found++] = tid;
	return found;
}

static void check_all(struct task_table *t, const int32_t *tids, const bool *present, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct task *k = task_table__find(t, tids[i]);

		if (present[i]) {
			cr_assert_not_null(k, "tid %d lost", tids[i]);
			cr_assert_eq(k->pid, tids[i] + 1);
		} else {
			cr_assert_null(k, "tid %d should be gone", tids[i]);
		}
	}
}

/* Remove each member of a cluster in turn, from a cluster that wraps the table end. */
static void collide_and_remove(size_t home, size_t pick)
{
	int32_t tids[8];
	bool present[8];
	size_t n = tids_with_home(home, 1023, tids, 6);
	struct task_table *t;

	cr_assert_eq(n, 6);
	/* And neighbours whose home is the next slots, interleaved in the probe chain. */
	n += tids_with_home((home + 1) & 1023, 1023, tids + n, 1);
	n += tids_with_home((home + 2) & 1023, 1023, tids + n, 1);
	cr_assert_eq(n, 8);

	t = new_table();
	for (size_t i = 0; i < n; i++) {
		task_table__get(t, tids[i], NULL)->pid = tids[i] + 1;
		present[i] = true;
	}
	check_all(t, tids, present, n);
	task_table__remove(t, tids[pick]);
	present[pick] = false;
	check_all(t, tids, present, n);
	cr_assert_eq(task_table__size(t), n - 1);
	/* Then everything else, in order. */
	for (size_t i = 0; i < n; i++) {
		task_table__remove(t, tids[i]);
		present[i] = false;
		check_all(t, tids, present, n);
	}
	cr_assert_eq(task_table__size(t), 0);
	task_table__free(t);
}

Test(task_table, colliding_removals)
{
	for (size_t pick = 0; pick < 8; pick++) {
		collide_and_remove(500, pick);
		collide_and_remove(1021, pick);     /* the chain wraps past slot 1023 */
		collide_and_remove(1023, pick);
	}
}

/* xorshift64*: a fixed-seed generator so failures reproduce. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

static void randomized(uint64_t seed, int32_t range, long ops, int remove_pct)
{
	struct task_table *t = new_table();
	int32_t *ref = calloc((size_t)range, sizeof(*ref));    /* 0: absent, else pid */
	size_t live = 0;

	cr_assert_not_null(ref);
	for (long op = 0; op < ops; op++) {
		int32_t key = (int32_t)(rnd(&seed) % (uint64_t)range);
		/* Spread keys over the tid space so high bits matter too. */
		int32_t tid = key * 40503 + 3;
		bool created;

		if ((int)(rnd(&seed) % 100) < remove_pct) {
			task_table__remove(t, tid);
			if (ref[key])
				live--;
			ref[key] = 0;
		} else {
			struct task *k = task_table__get(t, tid, &created);

			cr_assert_not_null(k);
			cr_assert_eq(created, ref[key] == 0, "op %ld: tid %d created=%d", op, tid, created);
			if (!created)
				cr_assert_eq(k->pid, ref[key], "op %ld: tid %d has pid %d, want %d",
					     op, tid, k->pid, ref[key]);
			else
				live++;
			k->pid = (int32_t)(op + 1);
			ref[key] = k->pid;
		}
		cr_assert_eq(task_table__size(t), live, "op %ld", op);
		if (op % 997 == 0 || op == ops - 1) {
			for (int32_t i = 0; i < range; i++) {
				struct task *k = task_table__find(t, i * 40503 + 3);

				if (ref[i])
					cr_assert(k && k->pid == ref[i], "op %ld: tid %d lost", op,
						  i * 40503 + 3);
				else
					cr_assert_null(k, "op %ld: tid %d still there", op, i * 40503 + 3);
			}
		}
	}
	free(ref);
	task_table__free(t);
}

Test(task_table, randomized_near_initial_capacity)
{
	/* About 500 live tasks: a dense 1024-slot table with long probe chains. */
	randomized(0x5eed1234abcdull, 1000, 200000, 50);
}

Test(task_table, randomized_large)
{
	randomized(42, 20000, 300000, 40);
}

Test(task_table, randomized_churn)
{
	/* Mostly removals after a fill: many backward shifts. */
	randomized(0xdeadbeefull, 3000, 150000, 65);
}
