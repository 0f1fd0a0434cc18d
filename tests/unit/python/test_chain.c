/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The chains the BPF program writes, as the drain hands them over: kept by their
 * sample's (tid, time) only when whole and that thread's, taken once, and the oldest
 * forgotten (counted) when the ring goes round.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "prof/python/chain.h"

/* A bpf-output record as the kernel writes it: IDENTIFIER, TID, TIME, CPU, RAW. */
static size_t record(uint8_t *buf, uint32_t tid, uint32_t rec_tid, uint16_t nr, uint16_t claimed, uint32_t magic)
{
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE };
	struct python_chain_rec r = { .magic = magic, .tid = rec_tid, .nr = claimed };
	uint64_t id = 77, time = 5, cpu = 1;
	uint32_t pidtid[2] = { 100, tid };
	uint32_t raw = PYTHON_CHAIN_HEAD + nr * (uint32_t)sizeof(struct python_chain_frame);
	size_t at = sizeof(h);

	for (uint16_t i = 0; i < nr; i++)
		r.f[i] = (struct python_chain_frame){ 0x1000 + 0x50 * i, 0x7000 + i, 0x70c0 + i };
	memcpy(buf + at, &id, 8), at += 8;
	memcpy(buf + at, pidtid, 8), at += 8;
	memcpy(buf + at, &time, 8), at += 8;
	memcpy(buf + at, &cpu, 8), at += 8;
	memcpy(buf + at, &raw, 4), at += 4;
	memcpy(buf + at, &r, raw), at += raw;
	h.size = (uint16_t)((at + 7) & ~7ul);
	memcpy(buf, &h, sizeof(h));
	return h.size;
}

Test(chain, kept_taken_once)
{
	static uint8_t buf[4096];
	struct python_chains *c;
	const struct python_chain *ch;

	cr_assert_eq(python_chains__new_store(&c), 0);
	record(buf, 42, 42, 3, 3, PYTHON_CHAIN_MAGIC);
	cr_assert_eq(python_chains__keep(c, (void *)buf, 42, 1000), 0);
	cr_expect_null(python_chains__take(c, 42, 1001), "another sample");
	cr_expect_not_null(python_chains__peek(c, 42, 1000));
	ch = python_chains__take(c, 42, 1000);
	cr_assert_not_null(ch);
	cr_expect_eq(ch->nr, 3);
	cr_expect_eq(ch->f[2].frame, 0x10a0);
	cr_expect_eq(ch->f[2].code, 0x7002);
	cr_expect_null(python_chains__take(c, 42, 1000), "taken once");
	cr_expect_eq(python_chains__stats(c)->records, 1);
	python_chains__free(c);
}

Test(chain, no_frames)
{
	static uint8_t buf[4096];
	struct python_chains *c;
	const struct python_chain *ch;

	cr_assert_eq(python_chains__new_store(&c), 0);
	record(buf, 9, 9, 0, 0, PYTHON_CHAIN_MAGIC);
	cr_assert_eq(python_chains__keep(c, (void *)buf, 9, 50), 0, "a thread with no frame yet");
	ch = python_chains__take(c, 9, 50);
	cr_assert_not_null(ch);
	cr_expect_eq(ch->nr, 0);
	python_chains__free(c);
}

Test(chain, refused)
{
	static uint8_t buf[4096];
	struct python_chains *c;

	cr_assert_eq(python_chains__new_store(&c), 0);
	record(buf, 42, 42, 2, 2, PYTHON_CHAIN_MAGIC);
	cr_expect_lt(python_chains__keep(c, (void *)buf, 43, 1000), 0, "another thread's sample follows");
	record(buf, 42, 41, 2, 2, PYTHON_CHAIN_MAGIC);
	cr_expect_lt(python_chains__keep(c, (void *)buf, 42, 1000), 0, "the chain says another thread");
	record(buf, 42, 42, 2, 2, 0xdeadbeef);
	cr_expect_lt(python_chains__keep(c, (void *)buf, 42, 1000), 0, "not a chain");
	record(buf, 42, 42, 2, 9, PYTHON_CHAIN_MAGIC);
	cr_expect_lt(python_chains__keep(c, (void *)buf, 42, 1000), 0, "more frames claimed than written");
	cr_expect_null(python_chains__take(c, 42, 1000));
	python_chains__unpaired(c);
	cr_expect_eq(python_chains__stats(c)->unpaired, 5);
	python_chains__free(c);
}

Test(chain, ring_goes_round)
{
	static uint8_t buf[4096];
	struct python_chains *c;
	uint64_t n = 0;

	cr_assert_eq(python_chains__new_store(&c), 0);
	record(buf, 7, 7, 1, 1, PYTHON_CHAIN_MAGIC);
	for (uint64_t t = 1; python_chains__stats(c)->evicted == 0 && t < 3000000; t++, n++)
		cr_assert_eq(python_chains__keep(c, (void *)buf, 7, t), 0);
	cr_expect_geq(n, 1u << 20, "a backlog's worth kept before the first is forgotten: %lu", (unsigned long)n);
	cr_expect_null(python_chains__take(c, 7, 1), "the oldest forgotten");
	cr_expect_not_null(python_chains__take(c, 7, n));
	python_chains__free(c);
}

/* A backlog handed over at once (the rings' spill thread): more chains kept than the
 * store's first size before any is taken, each found for its sample; the taken ones
 * make room again without growing it further. */
Test(chain, backlog_larger_than_the_first_store)
{
	static uint8_t buf[4096];
	struct python_chains *c;
	uint64_t t;

	cr_assert_eq(python_chains__new_store(&c), 0);
	for (t = 1; t <= 50000; t++) {
		record(buf, (uint32_t)(t % 3 + 1), (uint32_t)(t % 3 + 1), (uint16_t)(t % 5), (uint16_t)(t % 5),
		       PYTHON_CHAIN_MAGIC);
		cr_assert_eq(python_chains__keep(c, (void *)buf, (int32_t)(t % 3 + 1), t), 0);
	}
	for (t = 1; t <= 50000; t++) {
		const struct python_chain *ch = python_chains__take(c, (int32_t)(t % 3 + 1), t);

		cr_assert_not_null(ch, "sample %lu found no chain", (unsigned long)t);
		cr_assert_eq(ch->nr, t % 5);
		cr_assert_eq(ch->time, t);
	}
	cr_expect_eq(python_chains__stats(c)->evicted, 0);
	/* taken: their slots are reused, so a steady stream keeps and takes forever */
	record(buf, 4, 4, 1, 1, PYTHON_CHAIN_MAGIC);
	for (t = 100000; t < 400000; t++) {
		cr_assert_eq(python_chains__keep(c, (void *)buf, 4, t), 0);
		cr_assert_not_null(python_chains__take(c, 4, t));
	}
	cr_expect_eq(python_chains__stats(c)->evicted, 0);
	python_chains__free(c);
}
