// SPDX-License-Identifier: GPL-2.0-or-later
/* History: fine buckets add up into coarse ones, spans and the memory cap hold, and
 * dropping unused dictionary items keeps every bucket's meaning. */
#include <criterion/criterion.h>
#include <stdio.h>

#include "hist.h"

static uint32_t one_stack(struct dict *d, const char *sym)
{
	uint32_t f = frame_of(d, "/bin/p", sym, 0755, 0);

	return stack_of(d, &f, 1);
}

Test(history, fine_buckets_add_up_at_coarse_boundaries)
{
	struct history_config c = hist_config();
	struct history *h;
	struct bucket_entry e;

	cr_assert_eq(history__new(&c, &h), 0);
	history__lock(h);
	e = (struct bucket_entry){ task_of(history__dict(h), 1000, "a", "/u"), one_stack(history__dict(h), "f"), 1, 10 };
	history__unlock(h);
	/* 100 s .. 125 s: coarse spans [100, 110) and [110, 120) close, [120, 130) is open */
	for (uint64_t t = 100; t < 125; t++)
		cr_assert_geq(add_fine(h, t * SEC, &e, 1), 0);
	history__rlock(h);
	cr_assert_eq(history__nr(h, false), 2);
	struct bucket *b = history__at(h, false, 1);
	cr_assert_eq(b->h.start_ns, 110 * SEC);
	cr_assert_eq(b->h.end_ns, 120 * SEC);
	cr_assert_eq(b->nr, 1);
	cr_assert_eq(b->e[0].samples, 10);
	cr_assert_eq(b->e[0].period, 100);
	cr_assert_eq(b->h.c.samples, 10);
	cr_assert_eq(history__nr(h, true), 25);
	history__runlock(h);
	history__lock(h);
	cr_assert_eq(history__close_coarse(h, BUCKET_PARTIAL), 1);
	history__unlock(h);
	b = history__at(h, false, 2);
	cr_assert_eq(b->h.start_ns, 120 * SEC);
	cr_assert_eq(b->h.end_ns, 125 * SEC);   /* partial: up to the last fine bucket */
	cr_assert(b->h.flags & BUCKET_PARTIAL);
	cr_assert_eq(b->h.c.samples, 5);
	history__free(h);
}

Test(history, spans_expire)
{
	struct history_config c = hist_config();
	struct history *h;
	struct history_stats st;

	c.span_ns = 60 * SEC;
	c.fine_span_ns = 20 * SEC;
	cr_assert_eq(history__new(&c, &h), 0);
	for (uint64_t t = 0; t < 200; t++)
		add_fine(h, t * SEC, NULL, 0);
	history__stats(h, &st);
	cr_assert_leq(st.fine, 21);
	cr_assert_leq(st.coarse, 6);
	cr_assert_geq(st.coarse, 5);
	cr_assert_gt(st.expired_buckets, 10);
	cr_assert_eq(st.evicted_buckets, 0);
	history__free(h);
}

/* Past memory_max the oldest coarse buckets go, counted, and the gap is known. */
Test(history, memory_cap_evicts_oldest_and_says_so)
{
	struct history_config c = hist_config();
	struct history *h;
	struct history_stats st;
	struct bucket_entry e[200];

	c.memory_max = 256 << 10;
	cr_assert_eq(history__new(&c, &h), 0);
	for (uint64_t t = 0; t < 600; t++) {
		history__lock(h);
		for (int i = 0; i < 200; i++) {
			char sym[32];

			snprintf(sym, sizeof(sym), "f%d", i);
			e[i] = (struct bucket_entry){ task_of(history__dict(h), 1000 + (uint32_t)i, "a", NULL),
						      one_stack(history__dict(h), sym), 1, 1 };
		}
		history__unlock(h);
		add_fine(h, t * SEC, e, 200);
		history__stats(h, &st);
		cr_assert_leq(st.bytes, c.memory_max + (64 << 10), "at %zu s: %zu bytes", (size_t)t, st.bytes);
	}
	cr_assert_gt(st.evicted_buckets, 0);
	cr_assert_gt(st.evicted_samples, 0);
	cr_assert_gt(st.evicted_before, 0);
	cr_assert_leq(st.evicted_before, st.oldest_ns);
	history__free(h);
}

/* A fork storm of new names: the dictionary is copied down to what buckets use, and the
 * buckets still name the same things. */
Test(history, compaction_keeps_meaning)
{
	struct history_config c = hist_config();
	struct history *h;
	struct history_stats st;

	c.span_ns = 20 * SEC;
	c.fine_span_ns = 20 * SEC;
	cr_assert_eq(history__new(&c, &h), 0);
	for (uint64_t t = 0; t < 6000; t++) {
		struct bucket_entry e[4];
		char comm[32];

		history__lock(h);
		for (int i = 0; i < 4; i++) {
			snprintf(comm, sizeof(comm), "job-%llu-%d", (unsigned long long)t, i);
			e[i] = (struct bucket_entry){ task_of(history__dict(h), 5, comm, "/x"),
						      one_stack(history__dict(h), comm), 1, 1 };
		}
		history__unlock(h);
		add_fine(h, t * SEC, e, 4);
	}
	history__stats(h, &st);
	cr_assert_gt(st.compactions, 1);
	cr_assert_gt(history__generation(h), 0);
	cr_assert_lt(st.dict_items[DICT_TASK], 8000, "%zu of 24000 tasks kept", st.dict_items[DICT_TASK]);
	/* the newest fine bucket still names its own jobs */
	struct bucket *b = history__at(h, true, history__nr(h, true) - 1);
	const struct dict *d = history__dict(h);
	for (size_t i = 0; i < b->nr; i++) {
		const char *comm = dict__text(d, dict__task_get(d, b->e[i].task)->comm);
		size_t nr;
		const uint32_t *f = dict__stack_get(d, b->e[i].stack, &nr);
		cr_assert_str_eq(dict__text(d, dict__frame_get(d, f[0])->sym), comm);
		cr_assert_eq(strncmp(comm, "job-5999-", 9), 0, "%s", comm);
	}
	history__free(h);
}

Test(history, bad_configurations)
{
	struct history_config c = hist_config();
	struct history *h;

	c.bucket_ns = 1500000000;       /* not a multiple of the fine span */
	cr_assert_eq(history__new(&c, &h), -EINVAL);
	c = hist_config();
	c.fine_span_ns = c.bucket_ns;   /* fewer than two coarse spans of fine buckets */
	cr_assert_eq(history__new(&c, &h), -EINVAL);
}
