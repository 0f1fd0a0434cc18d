// SPDX-License-Identifier: GPL-2.0-or-later
/* The aggregation engine: keys, stacks, rows, and the cap on memory with its cut. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "prof/analyze/profile.h"

static const char *A = "a", *B = "b", *LIB = "/lib/x.so", *COMM = "cmd", *COMM2 = "other";

static struct profile_task task(int32_t pid, const char *comm)
{
	return (struct profile_task){ .uid = 1000, .uid_known = true, .cgroup = 7, .pid = pid, .comm = comm };
}

Test(profile, same_key_same_entry)
{
	struct profile *p = profile__new(0);
	struct profile_frame st[2] = { { LIB, A, false }, { LIB, B, false } };
	struct profile_task t = task(1, COMM);
	size_t nr;

	cr_assert_eq(profile__add(p, &t, st, 2, 10), 0);
	cr_assert_eq(profile__add(p, &t, st, 2, 5), 0);
	cr_assert_eq(profile__add(p, &t, st, 1, 1), 0);        /* a different (shorter) stack */
	const struct profile_entry *e = profile__entries(p, &nr);
	cr_assert_eq(nr, 2);
	cr_assert_eq(e[0].samples, 2);
	cr_assert_eq(e[0].period, 15);
	cr_assert_eq(profile__stats(p)->frames, 2);
	cr_assert_eq(profile__stats(p)->stacks, 2);
	profile__free(p);
}

Test(profile, rows_group_by_keys_and_leaf)
{
	struct profile *p = profile__new(0);
	struct profile_frame s1[2] = { { LIB, A, false }, { LIB, B, false } };
	struct profile_frame s2[1] = { { LIB, A, false } };
	struct profile_frame s3[1] = { { LIB, B, false } };
	struct profile_task t1 = task(1, COMM), t2 = task(2, COMM2);
	bool keys[PROFILE_KEY__MAX] = { [PROFILE_KEY_SYM] = true };
	struct profile_row *rows;
	size_t nr;

	profile__add(p, &t1, s1, 2, 3);
	profile__add(p, &t2, s2, 1, 4);
	profile__add(p, &t1, s3, 1, 1);
	cr_assert_eq(profile__rows(p, keys, false, &rows, &nr), 0);
	cr_assert_eq(nr, 2);
	cr_assert_eq(rows[0].sym, A);                  /* leaf a: 3 + 4 */
	cr_assert_eq(rows[0].period, 7);
	cr_assert_eq(rows[0].samples, 2);
	cr_assert_eq(rows[0].task.comm, NULL);               /* not a key: not grouped on */
	free(rows);
	keys[PROFILE_KEY_COMM] = true;
	cr_assert_eq(profile__rows(p, keys, true, &rows, &nr), 0);
	cr_assert_eq(nr, 3);
	free(rows);
	profile__free(p);
}

/* More distinct keys than the cap: the rest is cut, counted, and kept under
 * "[cut]", so totals stay exact and the tables stop growing. */
/* An inlined frame is a frame of its stack, but a row is the function it is inlined into. */
Test(profile, rows_skip_inlined_leaf)
{
	struct profile *p = profile__new(0);
	static const char *INL = "f (inlined)";
	struct profile_frame s1[3] = { { LIB, INL, false, true }, { LIB, A, false, false }, { LIB, B, false, false } };
	struct profile_frame s2[2] = { { LIB, A, false, false }, { LIB, B, false, false } };
	struct profile_task t = task(1, COMM);
	bool keys[PROFILE_KEY__MAX] = { [PROFILE_KEY_SYM] = true };
	struct profile_row *rows;
	size_t nr;

	profile__add(p, &t, s1, 3, 3);
	profile__add(p, &t, s2, 2, 2);
	cr_assert_eq(profile__stats(p)->stacks, 2, "the inlined frame keeps its stack apart");
	cr_assert_eq(profile__rows(p, keys, false, &rows, &nr), 0);
	cr_assert_eq(nr, 1);
	cr_assert_eq(rows[0].sym, A);
	cr_assert_eq(rows[0].period, 5);
	free(rows);
	profile__free(p);
}

Test(profile, cap_cuts_and_counts)
{
	struct profile *p = profile__new(10);
	char names[100][8];
	struct profile_task t = task(1, COMM);
	uint64_t period = 0;
	size_t nr, bytes_at_cap = 0;

	for (int i = 0; i < 100; i++) {
		struct profile_frame f = { LIB, names[i], false };
		snprintf(names[i], sizeof(names[i]), "f%d", i);
		int r = profile__add(p, &t, &f, 1, (uint64_t)i + 1);
		cr_assert_eq(r, i < 10 ? 0 : 1, "sample %d: %d", i, r);
		period += (uint64_t)i + 1;
		if (i == 20)
			bytes_at_cap = profile__stats(p)->bytes;
	}
	const struct profile_stats *st = profile__stats(p);
	cr_assert_eq(st->samples, 100);
	cr_assert_eq(st->period, period);
	cr_assert_eq(st->cut_samples, 90);
	cr_assert_eq(st->entries, 11);                          /* 10 + the one [cut] */
	cr_assert_eq(st->bytes, bytes_at_cap, "memory grew past the cap");
	const struct profile_entry *e = profile__entries(p, &nr);
	const struct profile_frame *f = profile__frames(p, &(size_t){ 0 });
	size_t n;
	const uint32_t *ids = profile__stack(p, e[10].stack, &n);
	cr_assert_eq(n, 1);
	cr_assert_str_eq(f[ids[0]].sym, PROFILE_CUT_SYM);
	cr_assert_eq(e[10].samples, 90);
	/* a key already kept still counts under its own entry at the cap */
	struct profile_frame f0 = { LIB, names[0], false };
	cr_assert_eq(profile__add(p, &t, &f0, 1, 1), 0);
	profile__reset(p);
	cr_assert_eq(profile__stats(p)->samples, 0);
	cr_assert_eq(profile__entries(p, &nr) != NULL || nr == 0, true);
	cr_assert_eq(nr, 0);
	cr_assert_eq(profile__add(p, &t, &f0, 1, 1), 0);
	profile__free(p);
}

/* Deep stacks use up the frame budget: cut, not grown. */
Test(profile, frame_budget)
{
	struct profile *p = profile__new(2);         /* 2 x 32 frame slots */
	struct profile_frame deep[40];
	struct profile_task t = task(1, COMM);

	for (int i = 0; i < 40; i++)
		deep[i] = (struct profile_frame){ LIB, i % 2 ? A : B, false };
	cr_assert_eq(profile__add(p, &t, deep, 40, 1), 0);
	cr_assert_eq(profile__add(p, &t, deep, 30, 1), 1);     /* 40 + 30 > 64 slots */
	cr_assert_eq(profile__stats(p)->cut_samples, 1);
	profile__free(p);
}

/* A file's report has no entry cap: more keys than the default cap are all kept. */
Test(profile, unlimited_keeps_every_key)
{
	struct profile *p = profile__new(PROFILE_UNLIMITED);
	const struct profile_frame f = { LIB, A, false };

	for (int32_t pid = 1; pid <= 2 * PROFILE_DEFAULT_MAX_ENTRIES; pid++) {
		struct profile_task t = task(pid, COMM);
		cr_assert_eq(profile__add(p, &t, &f, 1, 1), 0, "pid %d cut", pid);
	}
	cr_assert_eq(profile__stats(p)->entries, 2 * PROFILE_DEFAULT_MAX_ENTRIES);
	cr_assert_eq(profile__stats(p)->cut_samples, 0);
	profile__free(p);
}

/* A byte budget shared by two profiles: together they never hold more than it; what
 * does not fit is cut (and says it was the budget), and a profile freed gives its
 * bytes back. */
Test(profile, budget_shared_and_cut)
{
	struct profile_budget b = { .limit = 256 * 1024 };
	struct profile *p = profile__new(PROFILE_UNLIMITED), *q = profile__new(PROFILE_UNLIMITED);
	const struct profile_frame f = { LIB, A, false };
	uint64_t cut = 0;

	profile__set_budget(p, &b);
	profile__set_budget(q, &b);
	cr_assert_eq(b.held, profile__stats(p)->bytes + profile__stats(q)->bytes);
	for (int32_t pid = 1; pid <= 20000; pid++) {
		struct profile_task t = task(pid, COMM);
		int r = profile__add(pid % 2 ? p : q, &t, &f, 1, 1);
		cr_assert_geq(r, 0);
		cut += r == 1;
		cr_assert_leq(b.held, b.limit, "pid %d: %zu bytes held", pid, b.held);
	}
	cr_assert_gt(cut, 0, "nothing cut within 256 KiB");
	cr_assert_eq(profile__stats(p)->cut_samples + profile__stats(q)->cut_samples, cut);
	cr_assert(profile__stats(p)->cut_by_budget);
	cr_assert_eq(profile__stats(p)->samples + profile__stats(q)->samples, 20000, "totals stay exact");
	cr_assert_eq(b.held, profile__stats(p)->bytes + profile__stats(q)->bytes);
	profile__free(p);
	cr_assert_eq(b.held, profile__stats(q)->bytes);
	profile__free(q);
	cr_assert_eq(b.held, 0);
}

/* A symbol row is that symbol of that object, as perf's --sort sym: two copies of a
 * program are two rows, each told it shares its name; with dso a key they need not. */
Test(profile, rows_keep_objects_apart)
{
	static const char *COPY = "/home/b/x.so";
	struct profile *p = profile__new(0);
	struct profile_frame fa = { LIB, A, false }, fb = { COPY, A, false }, fo = { LIB, B, false };
	struct profile_task t = task(1, COMM);
	bool keys[PROFILE_KEY__MAX] = { [PROFILE_KEY_SYM] = true };
	struct profile_row *rows;
	size_t nr;

	profile__add(p, &t, &fa, 1, 5);
	profile__add(p, &t, &fb, 1, 4);
	profile__add(p, &t, &fo, 1, 1);
	cr_assert_eq(profile__rows(p, keys, false, &rows, &nr), 0);
	cr_assert_eq(nr, 3, "%zu rows: one name in two objects was merged", nr);
	cr_assert_eq(rows[0].sym, A);
	cr_assert_eq(rows[0].dso, LIB);
	cr_assert_eq(rows[0].period, 5);
	cr_assert_eq(rows[1].dso, COPY);
	cr_assert(rows[0].sym_shared && rows[1].sym_shared && !rows[2].sym_shared);
	free(rows);
	keys[PROFILE_KEY_DSO] = true;
	cr_assert_eq(profile__rows(p, keys, false, &rows, &nr), 0);
	cr_assert_eq(nr, 3);
	cr_assert(!rows[0].sym_shared && !rows[1].sym_shared, "the object is a column of its own");
	free(rows);
	profile__free(p);
}

/* A ref counts again into its entry, as profile__add would; a reset makes it stale. */
Test(profile, add_again_by_ref)
{
	struct profile *p = profile__new(0);
	struct profile_frame st[2] = { { LIB, A, false }, { LIB, B, false } };
	struct profile_task t = task(1, COMM);
	const struct profile_entry *e;
	uint64_t ref = 0;
	size_t nr;

	cr_assert_eq(profile__add_ref(p, &t, st, 2, 10, &ref), 0);
	cr_assert_eq(profile__add_again(p, ref, 5), 0);
	cr_assert_eq(profile__add(p, &t, st, 2, 1), 0);
	e = profile__entries(p, &nr);
	cr_assert_eq(nr, 1);
	cr_assert_eq(e[0].samples, 3);
	cr_assert_eq(e[0].period, 16);
	cr_assert_eq(profile__stats(p)->samples, 3);
	cr_assert_eq(profile__stats(p)->period, 16);
	profile__reset(p);
	cr_assert_eq(profile__add_again(p, ref, 5), -ESTALE);
	cr_assert_eq(profile__stats(p)->samples, 0);
	profile__free(p);
}
