/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The time-ordered merge: records from several "CPUs", each nearly ordered, interleaved. */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "prof/record/ordered_queue.h"

struct rec {
	struct perf_event_header h;
	uint64_t time;
	uint32_t cpu;
	uint32_t seq;
	char pad[];
};

struct seen {
	uint64_t time[100000];
	uint32_t cpu[100000];
	uint32_t seq[100000];
	uint16_t size[100000];
	size_t n;
};

static int collect(const struct perf_event_header *ev, uint64_t time, void *ctx)
{
	struct seen *s = ctx;
	const struct rec *r = (const void *)ev;

	cr_assert_eq(r->time, time, "delivered time matches the record");
	s->time[s->n] = time;
	s->cpu[s->n] = r->cpu;
	s->seq[s->n] = r->seq;
	s->size[s->n] = ev->size;
	s->n++;
	return 0;
}

static void push(struct ordered_queue *q, uint64_t time, uint32_t cpu, uint32_t seq, size_t extra)
{
	size_t size = sizeof(struct rec) + extra;
	struct rec *r = calloc(1, size);

	r->h = (struct perf_event_header){ .type = PERF_RECORD_SAMPLE, .size = (uint16_t)size };
	r->time = time;
	r->cpu = cpu;
	r->seq = seq;
	memset(r->pad, 0xab, extra);
	cr_assert_eq(ordered_queue__push(q, &r->h, time), 0);
	free(r);
}

Test(ordered, merges_cpus_by_time)
{
	struct ordered_queue *q = ordered_queue__new();
	static struct seen s;

	/* CPU 0 reads 10,20,30; CPU 1 reads 5,15,25 after it: arrival is not time order. */
	push(q, 10, 0, 0, 0);
	push(q, 20, 0, 1, 0);
	push(q, 30, 0, 2, 0);
	push(q, 5, 1, 0, 0);
	push(q, 15, 1, 1, 0);
	push(q, 25, 1, 2, 0);
	s.n = 0;
	cr_assert_eq(ordered_queue__flush(q, UINT64_MAX, collect, &s), 0);
	cr_assert_eq(s.n, 6);
	uint64_t want[] = { 5, 10, 15, 20, 25, 30 };
	for (size_t i = 0; i < 6; i++)
		cr_assert_eq(s.time[i], want[i], "position %zu: %lu", i, (unsigned long)s.time[i]);
	ordered_queue__free(q);
}

Test(ordered, flush_stops_at_the_round_boundary)
{
	struct ordered_queue *q = ordered_queue__new();
	static struct seen s;

	push(q, 100, 0, 0, 0);
	push(q, 300, 1, 0, 0);
	push(q, 200, 0, 1, 0);
	s.n = 0;
	ordered_queue__flush(q, 200, collect, &s);
	cr_assert_eq(s.n, 2);
	cr_assert_eq(s.time[1], 200);
	cr_assert_eq(ordered_queue__size(q), 1);
	cr_assert_eq(ordered_queue__oldest(q), 300);
	/* A late record older than what is queued still goes out before it. */
	push(q, 250, 1, 1, 0);
	ordered_queue__flush(q, UINT64_MAX, collect, &s);
	cr_assert_eq(s.n, 4);
	cr_assert_eq(s.time[2], 250);
	cr_assert_eq(s.time[3], 300);
	cr_assert_eq(ordered_queue__oldest(q), UINT64_MAX);
	ordered_queue__free(q);
}

Test(ordered, equal_times_keep_arrival_order)
{
	struct ordered_queue *q = ordered_queue__new();
	static struct seen s;

	for (uint32_t i = 0; i < 50; i++)
		push(q, 7, i % 3, i, 0);
	s.n = 0;
	ordered_queue__flush(q, 7, collect, &s);
	cr_assert_eq(s.n, 50);
	for (uint32_t i = 0; i < 50; i++)
		cr_assert_eq(s.seq[i], i, "record %u kept its place among equal times", i);
	ordered_queue__free(q);
}

Test(ordered, random_interleaving_of_many_cpus)
{
	struct ordered_queue *q = ordered_queue__new();
	static struct seen s;
	uint64_t next[8] = { 0 };
	unsigned seed = 12345;
	size_t total = 0;

	s.n = 0;
	/* 8 CPUs, each monotonic on its own, read in bursts of random length. */
	for (int round = 0; round < 200; round++) {
		for (int cpu = 0; cpu < 8; cpu++) {
			int burst = rand_r(&seed) % 40;
			for (int i = 0; i < burst; i++) {
				next[cpu] += 1 + (uint64_t)(rand_r(&seed) % 1000);
				push(q, next[cpu], (uint32_t)cpu, (uint32_t)total, (size_t)(rand_r(&seed) % 5) * 8);
				total++;
			}
		}
		/* Everything older than the slowest CPU's newest record is final. */
		uint64_t min = UINT64_MAX;
		for (int cpu = 0; cpu < 8; cpu++)
			if (next[cpu] < min)
				min = next[cpu];
		ordered_queue__flush(q, min, collect, &s);
	}
	ordered_queue__flush(q, UINT64_MAX, collect, &s);
	cr_assert_eq(s.n, total);
	for (size_t i = 1; i < s.n; i++)
		cr_assert_leq(s.time[i - 1], s.time[i], "out of order at %zu", i);
	ordered_queue__free(q);
}

Test(ordered, reuses_memory_and_carries_big_records)
{
	struct ordered_queue *q = ordered_queue__new();
	static struct seen s;

	/* Far more data than one chunk, flushed as it goes: chunks are recycled. */
	for (uint64_t t = 1; t <= 60000; t++) {
		push(q, t, 0, (uint32_t)t, 200);
		if (t % 1000 == 0) {
			s.n = 0;
			ordered_queue__flush(q, t, collect, &s);
			cr_assert_eq(s.n, 1000);
			cr_assert_eq(s.size[999], sizeof(struct rec) + 200);
		}
	}
	/* A record of the maximum size a perf record can have. */
	push(q, 70000, 0, 1, 65535 - sizeof(struct rec) - 7);
	s.n = 0;
	ordered_queue__flush(q, UINT64_MAX, collect, &s);
	cr_assert_eq(s.n, 1);
	cr_assert_eq(s.size[0], 65535 - 7);
	ordered_queue__free(q);
}

static int stop_at_second(const struct perf_event_header *ev, uint64_t time, void *ctx)
{
	int *calls = ctx;
	return ++*calls == 2 ? -EIO : 0;
}

Test(ordered, deliver_error_stops_the_flush)
{
	struct ordered_queue *q = ordered_queue__new();
	int calls = 0;

	push(q, 1, 0, 0, 0);
	push(q, 2, 0, 1, 0);
	push(q, 3, 0, 2, 0);
	cr_assert_eq(ordered_queue__flush(q, UINT64_MAX, stop_at_second, &calls), -EIO);
	cr_assert_eq(ordered_queue__size(q), 1);
	cr_assert_eq(ordered_queue__oldest(q), 3);
	ordered_queue__free(q);
}

Test(ordered, rejects_runt_records)
{
	struct ordered_queue *q = ordered_queue__new();
	struct perf_event_header h = { .type = 9, .size = 4 };

	cr_assert_eq(ordered_queue__push(q, &h, 1), -EINVAL);
	cr_assert_eq(ordered_queue__size(q), 0);
	ordered_queue__free(q);
	cr_assert_null(ordered_queue__free(NULL));
}

/* No order at all: more "runs" than the queue keeps, so it merges them; still sorted. */
Test(ordered, input_without_order)
{
	struct ordered_queue *q = ordered_queue__new();
	static struct seen s;
	unsigned seed = 777;

	s.n = 0;
	for (uint32_t i = 0; i < 20000; i++)
		push(q, (uint64_t)(rand_r(&seed) % 5000), 0, i, 0);
	cr_assert_eq(ordered_queue__size(q), 20000);
	ordered_queue__flush(q, 2500, collect, &s);
	for (uint32_t i = 0; i < 3000; i++)     /* more arrive, some older than what is queued */
		push(q, 2501 + (uint64_t)(rand_r(&seed) % 5000), 1, 20000 + i, 0);
	ordered_queue__flush(q, UINT64_MAX, collect, &s);
	cr_assert_eq(s.n, 23000);
	for (size_t i = 1; i < s.n; i++) {
		cr_assert_leq(s.time[i - 1], s.time[i], "out of order at %zu", i);
		if (s.time[i - 1] == s.time[i])
			cr_assert_lt(s.seq[i - 1], s.seq[i], "equal times lost arrival order at %zu", i);
	}
	ordered_queue__free(q);
}

/* Descending input: every record older than all before it. */
Test(ordered, reverse_order)
{
	struct ordered_queue *q = ordered_queue__new();
	static struct seen s;

	s.n = 0;
	for (uint32_t i = 0; i < 5000; i++)
		push(q, 100000 - (uint64_t)i * 7, 0, i, 0);
	cr_assert_eq(ordered_queue__oldest(q), 100000 - 4999 * 7);
	ordered_queue__flush(q, UINT64_MAX, collect, &s);
	cr_assert_eq(s.n, 5000);
	for (size_t i = 1; i < s.n; i++)
		cr_assert_lt(s.time[i - 1], s.time[i], "out of order at %zu", i);
	ordered_queue__free(q);
}

/* A CPU's buffer holds a record a little older than the one before it (an interrupt's
 * record written first): it goes in its place, not at the end. */
Test(ordered, late_record_within_a_buffer)
{
	struct ordered_queue *q = ordered_queue__new();
	static struct seen s;

	s.n = 0;
	push(q, 10, 0, 0, 0);
	push(q, 30, 0, 1, 0);
	push(q, 20, 0, 2, 0);   /* late */
	push(q, 25, 1, 3, 0);
	push(q, 5, 1, 4, 0);    /* another CPU, older than everything */
	push(q, 30, 1, 5, 0);   /* ties with seq 1: after it */
	ordered_queue__flush(q, UINT64_MAX, collect, &s);
	cr_assert_eq(s.n, 6);
	uint32_t want[] = { 4, 0, 2, 3, 1, 5 };
	for (size_t i = 0; i < 6; i++)
		cr_assert_eq(s.seq[i], want[i], "position %zu: seq %u", i, s.seq[i]);
	ordered_queue__free(q);
}

/* What the queue holds in bytes: the session stops draining past a limit on it. */
Test(ordered, bytes_held_grow_and_come_back)
{
	struct ordered_queue *q = ordered_queue__new();
	static struct seen s;
	size_t held;

	cr_assert_eq(ordered_queue__bytes(q), 0);
	for (uint64_t t = 1; t <= 20000; t++)
		push(q, t, 0, (uint32_t)t, 200);
	held = ordered_queue__bytes(q);
	cr_assert_geq(held, 20000 * 200, "at least the records: %zu", held);
	for (uint64_t t = 20001; t <= 30000; t++)
		push(q, t, 0, (uint32_t)t, 200);
	cr_assert_gt(ordered_queue__bytes(q), held, "more records, more bytes");
	s.n = 0;
	ordered_queue__flush(q, UINT64_MAX, collect, &s);
	cr_assert_eq(s.n, 30000);
	cr_assert_leq(ordered_queue__bytes(q), 1u << 20, "flushed: at most the chunk being filled");
	ordered_queue__free(q);
}

/* A spill thread's block: records written into the queue's own memory by another
 * thread are queued where they lie, merged in time order with copied ones, and the
 * block goes back to the queue's spare memory once its last record is flushed. */
struct block_fill {
	struct ordered_queue *q;
	struct ordered_block *b;
	uint8_t *data;
	size_t len;
};

static void *fill_block(void *arg)
{
	struct block_fill *f = arg;

	f->b = ordered_queue__block_new(f->q, &f->data);
	for (uint32_t i = 0; f->b && i < 1000; i++) {
		struct rec r = { .h = { .type = PERF_RECORD_SAMPLE, .size = sizeof(r) },
				 .time = 2 * i + 1, .cpu = 1, .seq = i };

		memcpy(f->data + f->len, &r, sizeof(r));
		f->len += sizeof(r);
	}
	return NULL;
}

Test(ordered, block_records_queued_in_place)
{
	struct block_fill f = { .q = ordered_queue__new() };
	static struct seen s;
	pthread_t t;
	size_t held;

	cr_assert_eq(pthread_create(&t, NULL, fill_block, &f), 0);
	cr_assert_eq(pthread_join(t, NULL), 0);
	cr_assert_not_null(f.b);
	for (uint32_t i = 0; i < 1000; i++)
		push(f.q, 2 * i + 2, 0, i, 0);
	for (size_t off = 0; off < f.len; off += sizeof(struct rec)) {
		const struct perf_event_header *h = (const void *)(f.data + off);

		if (((const struct rec *)(const void *)h)->seq % 10 == 9)
			continue;       /* some are not kept (another recording's): never queued */
		cr_assert_eq(ordered_queue__push_in(f.q, f.b, h, ((const struct rec *)(const void *)h)->time), 0);
		cr_assert_eq(ordered_queue__last(f.q), h, "queued where it lies, not copied");
	}
	cr_assert_eq(ordered_queue__push_in(f.q, f.b, (const void *)&s, 1), -EINVAL, "not in the block");
	ordered_queue__block_done(f.q, f.b);
	held = ordered_queue__bytes(f.q);
	cr_assert_eq(held, 2u << 20, "the block and the chunk of the copies: %zu", held);
	s.n = 0;
	ordered_queue__flush(f.q, 1000, collect, &s);
	cr_assert_eq(ordered_queue__bytes(f.q), held, "records of the block left: it stays");
	ordered_queue__flush(f.q, UINT64_MAX, collect, &s);
	cr_assert_eq(s.n, 1900);
	for (size_t i = 1; i < s.n; i++)
		cr_assert_lt(s.time[i - 1], s.time[i], "position %zu out of order", i);
	cr_assert_leq(ordered_queue__bytes(f.q), 1u << 20, "the block went back to the spare chunks");
	/* ... and is the next block's memory, not fresh heap */
	cr_assert_eq((void *)ordered_queue__block_new(f.q, &f.data), (void *)f.b);
	ordered_queue__free(f.q);
}
