/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The readings kept from drain to unwinding: found by (tid, time) only once kept,
 * the oldest forgotten when the ring goes round, and each thread's last hint.
 */
#include <criterion/criterion.h>

#include "prof/python/early.h"

Test(early, kept_found_and_forgotten)
{
	struct python_early *e = python_early__new();
	struct python_early_reading *r;

	cr_assert_not_null(e);
	r = python_early__start(e, 7, 1000);
	r->acts[0].frame = 0xf00;
	cr_expect_null(python_early__find(e, 7, 1000), "not kept yet");
	python_early__keep(e, r, 1);
	cr_assert_not_null(python_early__find(e, 7, 1000));
	cr_expect_eq(python_early__find(e, 7, 1000)->acts[0].frame, 0xf00);
	cr_expect_null(python_early__find(e, 8, 1000), "another thread");
	cr_expect_null(python_early__find(e, 7, 1001), "another sample");
	for (uint64_t t = 0; t < PYTHON_EARLY_N; t++)
		python_early__keep(e, python_early__start(e, 9, 2000 + t), 1);
	cr_expect_null(python_early__find(e, 7, 1000), "gone round the ring");
	cr_expect_not_null(python_early__find(e, 9, 2000 + PYTHON_EARLY_N - 1));
	cr_expect_not_null(python_early__find(e, 9, 2001));
	python_early__free(e);
}

Test(early, hints_per_thread)
{
	struct python_early *e = python_early__new();
	uint64_t cfas[] = { 0x7ffd0100, 0x7ffd0400, 0x7ffd0800, 0x7ffd0900, 0x7ffd0a00 }, got[PYTHON_EARLY_ACTS];

	cr_assert_not_null(e);
	cr_expect_eq(python_early__hints(e, 5, got), 0);
	cr_assert_eq(python_early__hint(e, 5, cfas, 5), 0);
	cr_assert_eq(python_early__hints(e, 5, got), PYTHON_EARLY_ACTS, "at most the kept activations");
	cr_expect_eq(got[1], 0x7ffd0400);
	cr_assert_eq(python_early__hint(e, 5, cfas + 3, 1), 0);
	cr_expect_eq(python_early__hints(e, 5, got), 1, "the last hint only");
	cr_expect_eq(got[0], 0x7ffd0900);
	cr_expect_eq(python_early__hints(e, 6, got), 0);
	python_early__free(e);
}
