/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The exit-linger ring: entries come out oldest first, once their grace is over. */
#include <criterion/criterion.h>

#include "prof/base/linger.h"

Test(linger, nothing_expires_before_its_grace)
{
	struct linger l;
	struct linger_entry e;

	linger__init(&l, 1000);
	cr_assert_not(linger__expire(&l, 5000, &e), "an empty ring has nothing");
	cr_assert_eq(linger__add(&l, 7, 100, 70), 0);
	cr_assert_eq(linger__add(&l, 8, 300, 80), 0);
	cr_assert_not(linger__expire(&l, 1099, &e), "100 + 1000 > 1099: still kept");
	cr_assert(linger__expire(&l, 1100, &e), "the grace is over at time + grace");
	cr_assert_eq(e.key, 7);
	cr_assert_eq(e.time, 100);
	cr_assert_eq(e.tag, 70);
	cr_assert_not(linger__expire(&l, 1100, &e), "the next one is younger");
	cr_assert_eq(linger__size(&l), 1);
	cr_assert(linger__expire(&l, 99999, &e));
	cr_assert_eq(e.key, 8);
	cr_assert_eq(linger__size(&l), 0);
	linger__release(&l);
}

/* A clock behind the records' (top compares with its own clock): nothing expires. */
Test(linger, a_time_before_the_entry_expires_nothing)
{
	struct linger l;
	struct linger_entry e;

	linger__init(&l, 10);
	cr_assert_eq(linger__add(&l, 1, 5000, 0), 0);
	cr_assert_not(linger__expire(&l, 10, &e));
	linger__release(&l);
}

/* Growing while the ring has wrapped keeps the order. */
Test(linger, growth_keeps_the_order)
{
	struct linger l;
	struct linger_entry e;
	uint64_t next_out = 0, next_in = 0;

	linger__init(&l, 0);
	for (int round = 0; round < 50; round++) {
		/* add more than take out, so it grows while head is anywhere */
		for (int i = 0; i < 7; i++, next_in++)
			cr_assert_eq(linger__add(&l, next_in, next_in, next_in * 3), 0);
		for (int i = 0; i < 5; i++, next_out++) {
			cr_assert(linger__expire(&l, UINT64_MAX, &e));
			cr_assert_eq(e.key, next_out, "round %d: got %llu, want %llu", round,
				     (unsigned long long)e.key, (unsigned long long)next_out);
			cr_assert_eq(e.tag, next_out * 3);
		}
	}
	cr_assert_eq(linger__size(&l), next_in - next_out);
	while (linger__expire(&l, UINT64_MAX, &e))
		cr_assert_eq(e.key, next_out++);
	cr_assert_eq(next_out, next_in);
	linger__release(&l);
	cr_assert_eq(linger__size(&l), 0);
	cr_assert_eq(l.grace, 0);
}
