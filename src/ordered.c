/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdlib.h>
#include <string.h>

#include "prof/ordered.h"
#include "prof/util.h"

/* Records live in chunks; a chunk goes back on the free list when its last record is flushed. */
#define CHUNK_SIZE (1u << 20)

struct chunk {
	struct chunk *next;     /* on the spare list */
	struct chunk *all;      /* every normal chunk, for teardown */
	size_t used;
	size_t live;
	char data[];
};

struct entry {
	uint64_t time;
	uint64_t seq;
	struct perf_event_header *ev;
	struct chunk *chunk;
};

struct ordered_queue {
	struct entry *heap;
	size_t nr, cap;
	uint64_t seq;
	struct chunk *cur;      /* chunk being filled */
	struct chunk *spare;    /* empty chunks kept for reuse */
	struct chunk *all;      /* every normal chunk allocated */
};

struct ordered_queue *ordered_queue__new(void)
{
	return calloc(1, sizeof(struct ordered_queue));
}

struct ordered_queue *ordered_queue__free(struct ordered_queue *q)
{
	if (!q)
		return NULL;
	/* Oversized chunks hold one record each and are reachable only from the heap. */
	for (size_t i = 0; i < q->nr; i++)
		if (q->heap[i].chunk->used == SIZE_MAX)
			free(q->heap[i].chunk);
	for (struct chunk *c = q->all, *n; c; c = n) {
		n = c->all;
		free(c);
	}
	free(q->heap);
	free(q);
	return NULL;
}

static inline int entry_before(const struct entry *a, const struct entry *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static void heap_up(struct entry *h, size_t i)
{
	struct entry e = h[i];

	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!entry_before(&e, &h[p]))
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = e;
}

static void heap_down(struct entry *h, size_t n, size_t i)
{
	struct entry e = h[i];

	for (;;) {
		size_t l = 2 * i + 1, m;
		if (l >= n)
			break;
		m = (l + 1 < n && entry_before(&h[l + 1], &h[l])) ? l + 1 : l;
		if (!entry_before(&h[m], &e))
			break;
		h[i] = h[m];
		i = m;
	}
	h[i] = e;
}

static struct chunk *chunk_get(struct ordered_queue *q, size_t need)
{
	struct chunk *c;

	if (need > CHUNK_SIZE) {
		/* A record larger than a chunk (only possible with huge callchains). */
		c = malloc(sizeof(*c) + need);
		if (!c)
			return NULL;
		c->used = SIZE_MAX;     /* marks "free when empty, never reuse" */
		c->live = 0;
		return c;
	}
	if (q->cur && CHUNK_SIZE - q->cur->used >= need)
		return q->cur;
	/* Retire the current chunk: it is freed by its last record's flush. */
	if (q->cur && q->cur->live == 0) {
		q->cur->next = q->spare;
		q->spare = q->cur;
	}
	if (q->spare) {
		c = q->spare;
		q->spare = c->next;
	} else {
		c = malloc(sizeof(*c) + CHUNK_SIZE);
		if (!c)
			return NULL;
		c->all = q->all;
		q->all = c;
	}
	c->next = NULL;
	c->used = 0;
	c->live = 0;
	q->cur = c;
	return c;
}

int ordered_queue__push(struct ordered_queue *q, const struct perf_event_header *ev, uint64_t time)
{
	size_t sz = ev->size, need = ALIGN_UP(sz, 8);
	struct chunk *c;
	void *dst;

	if (sz < sizeof(*ev))
		return -EINVAL;
	if (q->nr == q->cap) {
		size_t ncap = q->cap ? q->cap * 2 : 4096;
		struct entry *n = realloc(q->heap, ncap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		q->heap = n;
		q->cap = ncap;
	}
	c = chunk_get(q, need);
	if (!c)
		return -ENOMEM;
	if (c->used == SIZE_MAX) {
		dst = c->data;
	} else {
		dst = c->data + c->used;
		c->used += need;
	}
	c->live++;
	memcpy(dst, ev, sz);
	q->heap[q->nr] = (struct entry){ .time = time, .seq = q->seq++, .ev = dst, .chunk = c };
	heap_up(q->heap, q->nr++);
	return 0;
}

static void release(struct ordered_queue *q, struct chunk *c)
{
	if (--c->live)
		return;
	if (c->used == SIZE_MAX) {
		free(c);
	} else if (c != q->cur) {
		c->next = q->spare;
		q->spare = c;
	} else {
		c->used = 0;    /* the chunk being filled is empty again: rewind it */
	}
}

int ordered_queue__flush(struct ordered_queue *q, uint64_t upto, ordered_deliver_fn deliver, void *ctx)
{
	while (q->nr && q->heap[0].time <= upto) {
		struct entry e = q->heap[0];
		int r;

		q->heap[0] = q->heap[--q->nr];
		if (q->nr)
			heap_down(q->heap, q->nr, 0);
		r = deliver(e.ev, e.time, ctx);
		release(q, e.chunk);
		if (r)
			return r;
	}
	return 0;
}

size_t ordered_queue__size(const struct ordered_queue *q)
{
	return q->nr;
}

uint64_t ordered_queue__oldest(const struct ordered_queue *q)
{
	return q->nr ? q->heap[0].time : UINT64_MAX;
}
