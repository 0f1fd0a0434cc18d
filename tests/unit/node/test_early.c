/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A sample's reads logged when drained (src/node/early.c): found by its (tid, time)
 * only, once; a read served only where one logged read covers it whole; a full log
 * drops what does not fit; the oldest log goes when NODE_EARLY_MAX are made.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "prof/node/early.h"

Test(node_early, logged_reads)
{
	struct node_early *e = node_early__new();
	struct node_early_log *l;
	uint8_t bytes[32], got[32];

	cr_assert_not_null(e);
	for (size_t i = 0; i < sizeof(bytes); i++)
		bytes[i] = (uint8_t)(i + 1);
	l = node_early__start(e, 7, 1000);
	cr_assert_not_null(l);
	node_early_log__add(l, 0x1000, bytes, 24);
	node_early_log__add(l, 0x2000, bytes + 24, 8);
	node_early__keep(e, l);
	cr_assert_eq(node_early__kept(e), 1);
	cr_assert_null(node_early__take(e, 8, 1000), "another thread's sample");
	cr_assert_null(node_early__take(e, 7, 1001), "another sample of the thread");
	l = node_early__take(e, 7, 1000);
	cr_assert_not_null(l);
	cr_assert_null(node_early__take(e, 7, 1000), "taken once");
	/* inside a logged read: served; across its end, or between two: not */
	cr_assert(node_early_log__read(l, 0x1008, got, 16));
	cr_assert_eq(memcmp(got, bytes + 8, 16), 0);
	cr_assert(node_early_log__read(l, 0x2000, got, 8));
	cr_assert_eq(memcmp(got, bytes + 24, 8), 0);
	cr_assert_not(node_early_log__read(l, 0x1010, got, 16));
	cr_assert_not(node_early_log__read(l, 0xff8, got, 8));
	cr_assert_not(node_early_log__read(l, 0x3000, got, 1));
	node_early__release(e, l);
	node_early__free(e);
}

Test(node_early, full_and_replaced)
{
	struct node_early *e = node_early__new();
	static uint8_t big[NODE_EARLY_BYTES];
	struct node_early_log *l, *again;
	uint8_t w = 0x5a, got;

	l = node_early__start(e, 1, 1);
	node_early_log__add(l, 0x10000, big, NODE_EARLY_BYTES - 64);
	node_early_log__add(l, 0x20000, big, 128);     /* does not fit: dropped */
	node_early_log__add(l, 0x30000, &w, 1);
	cr_assert_not(node_early_log__read(l, 0x20000, &got, 1));
	cr_assert(node_early_log__read(l, 0x30000, &got, 1));
	cr_assert_eq(got, 0x5a);
	node_early__keep(e, l);
	/* the same sample logged again: the newer log */
	again = node_early__start(e, 1, 1);
	node_early_log__add(again, 0x40000, &w, 1);
	node_early__keep(e, again);
	cr_assert_eq(node_early__kept(e), 1);
	l = node_early__take(e, 1, 1);
	cr_assert_eq(l, again);
	node_early__release(e, l);
	/* an empty log is not kept */
	node_early__keep(e, node_early__start(e, 2, 2));
	cr_assert_eq(node_early__kept(e), 0);
	node_early__free(e);
}

Test(node_early, oldest_goes)
{
	struct node_early *e = node_early__new();
	uint8_t w = 1;

	for (uint64_t t = 0; t < NODE_EARLY_MAX + 2; t++) {
		struct node_early_log *l = node_early__start(e, 3, t);

		cr_assert_not_null(l);
		node_early_log__add(l, 0x1000, &w, 1);
		node_early__keep(e, l);
	}
	cr_assert_eq(node_early__kept(e), NODE_EARLY_MAX);
	cr_assert_null(node_early__take(e, 3, 0), "the oldest went");
	cr_assert_null(node_early__take(e, 3, 1));
	struct node_early_log *l = node_early__take(e, 3, NODE_EARLY_MAX + 1);

	cr_assert_not_null(l);
	node_early__release(e, l);
	node_early__free(e);
}
