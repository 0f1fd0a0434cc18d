/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "prof/record/ordered_queue.h"
#include "prof/base/util.h"

/* Records live in chunks; a chunk goes back on the free list when its last record is flushed. */
#define CHUNK_SIZE ORDERED_BLOCK_SIZE

/* (struct ordered_block is a chunk: ordered_queue__block_new) */
struct chunk {
	struct chunk *next;     /* on the spare list */
	struct chunk *all;      /* every normal chunk, for teardown */
	size_t used;
	size_t live;
	size_t size;            /* of an oversized chunk's data */
	char data[];
};

struct entry {
	uint64_t time;
	uint64_t seq;
	struct perf_event_header *ev;
	struct chunk *chunk;
};

/*
 * The queue is a few sorted runs, not one heap over every record.  Each CPU's ring
 * buffer is read in (nearly) time order, so a push almost always lands at the tail of
 * the run the previous push went to, and a flush merges the runs' heads: a push costs
 * O(1) and a flushed record O(log runs).  (A heap over every queued record was a fifth
 * of prof record's CPU at 40,000 samples a second per CPU: O(log n) cache misses per
 * record.)  A record a little older than its run's tail (an interrupt's record written
 * before the one it interrupted) is inserted in place; input with no order at all
 * starts new runs, and past MAX_RUNS the runs are merged into one.
 */
#define MAX_RUNS 64
#define INSERT_DEPTH 64 /* how far back from a run's tail a late record is inserted */

struct run {
	struct entry *v;        /* v[head..nr) are queued, in order */
	size_t head, nr, cap;
};

struct ordered_queue {
	struct run runs[MAX_RUNS];
	size_t nr_runs;
	size_t cur;             /* the run the last push went to */
	size_t total;
	uint64_t seq;
	struct chunk *cur_chunk; /* chunk being filled */
	const struct perf_event_header *last;   /* the copy pushed last */
	pthread_mutex_t lock;   /* the four below: blocks are taken from another thread */
	struct chunk *spare;    /* empty chunks kept for reuse */
	struct chunk *all;      /* every normal chunk allocated */
	size_t nr_chunks;       /* chunks allocated (normal ones, spare or not) */
	size_t nr_spare;
	size_t big_bytes;       /* oversized chunks alive */
};

struct ordered_queue *ordered_queue__new(void)
{
	struct ordered_queue *q = calloc(1, sizeof(struct ordered_queue));

	if (q)
		pthread_mutex_init(&q->lock, NULL);
	return q;
}

struct ordered_queue *ordered_queue__free(struct ordered_queue *q)
{
	if (!q)
		return NULL;
	for (size_t i = 0; i < MAX_RUNS; i++) { /* empty runs past nr_runs keep memory */
		struct run *r = &q->runs[i];
		/* Oversized chunks hold one record each and are reachable only from here. */
		for (size_t j = r->head; j < r->nr; j++)
			if (r->v[j].chunk->used == SIZE_MAX)
				free(r->v[j].chunk);
		free(r->v);
	}
	for (struct chunk *c = q->all, *n; c; c = n) {
		n = c->all;
		free(c);
	}
	pthread_mutex_destroy(&q->lock);
	free(q);
	return NULL;
}

static inline int entry_before(const struct entry *a, const struct entry *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static inline const struct entry *run_first(const struct run *r)
{
	return &r->v[r->head];
}

/* Room for one more entry at the tail: drop the flushed part, or grow. */
static int run_reserve(struct run *r)
{
	size_t ncap;
	struct entry *n;

	if (r->nr < r->cap)
		return 0;
	if (r->head && r->head >= r->cap / 2) {
		memmove(r->v, r->v + r->head, (r->nr - r->head) * sizeof(*r->v));
		r->nr -= r->head;
		r->head = 0;
		return 0;
	}
	ncap = r->cap ? r->cap * 2 : 1024;
	n = realloc(r->v, ncap * sizeof(*n));
	if (!n)
		return -ENOMEM;
	r->v = n;
	r->cap = ncap;
	return 0;
}

/*
 * Where e goes in r, searching back at most depth entries from the tail (SIZE_MAX:
 * further back than that).  Equal times keep arrival order: e has the largest seq.
 */
static size_t run_slot(const struct run *r, const struct entry *e, size_t depth)
{
	size_t i = r->nr;

	while (i > r->head && entry_before(e, &r->v[i - 1])) {
		if (r->nr - i >= depth)
			return SIZE_MAX;
		i--;
	}
	return i;
}

static int run_put(struct run *r, const struct entry *e, size_t slot)
{
	size_t off = slot - r->head;
	int err = run_reserve(r);       /* may move the run to index 0 */

	if (err)
		return err;
	slot = r->head + off;
	if (slot < r->nr)       /* a late record; nearly all go at the tail */
		memmove(&r->v[slot + 1], &r->v[slot], (r->nr - slot) * sizeof(*r->v));
	r->v[slot] = *e;
	r->nr++;
	return 0;
}

/* The runs as a min-heap of indices by their first entry, for merging. */
static void heap_down(const struct run *runs, size_t *h, size_t n, size_t i)
{
	size_t x = h[i];

	for (;;) {
		size_t l = 2 * i + 1, m;
		if (l >= n)
			break;
		m = (l + 1 < n && entry_before(run_first(&runs[h[l + 1]]), run_first(&runs[h[l]])))
			? l + 1 : l;
		if (!entry_before(run_first(&runs[h[m]]), run_first(&runs[x])))
			break;
		h[i] = h[m];
		i = m;
	}
	h[i] = x;
}

static size_t heap_build(const struct ordered_queue *q, size_t *h)
{
	size_t n = 0;

	for (size_t i = 0; i < q->nr_runs; i++)
		if (q->runs[i].head < q->runs[i].nr)
			h[n++] = i;
	for (size_t i = n / 2; i-- > 0;)
		heap_down(q->runs, h, n, i);
	return n;
}

/* Take the oldest entry from the runs in the heap h of n; the heap stays a heap. */
static struct entry heap_pop(struct ordered_queue *q, size_t *h, size_t *n)
{
	struct run *r = &q->runs[h[0]];
	struct entry e = r->v[r->head++];

	if (r->head == r->nr) {
		r->head = r->nr = 0;
		h[0] = h[--*n];
	}
	if (*n)
		heap_down(q->runs, h, *n, 0);
	return e;
}

/* Drop empty runs (keeping their memory for new ones): runs[0..nr_runs) stay dense. */
static void runs_compact(struct ordered_queue *q)
{
	size_t k = 0;

	for (size_t i = 0; i < q->nr_runs; i++) {
		struct run *r = &q->runs[i];
		if (r->head == r->nr) {
			r->head = r->nr = 0;
			continue;
		}
		if (i != k) {
			struct run t = q->runs[k];
			q->runs[k] = *r;
			*r = t;
		}
		k++;
	}
	q->nr_runs = k;
	if (q->cur >= k)
		q->cur = 0;
}

/* Too many runs: merge them all into one.  0 or -ENOMEM (the queue is unchanged). */
static int runs_merge_all(struct ordered_queue *q)
{
	size_t h[MAX_RUNS], n = heap_build(q, h), k = 0;
	struct entry *v = malloc((q->total ? q->total : 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	while (n)
		v[k++] = heap_pop(q, h, &n);
	for (size_t i = 1; i < q->nr_runs; i++) {
		free(q->runs[i].v);
		q->runs[i] = (struct run){ 0 };
	}
	free(q->runs[0].v);
	q->runs[0] = (struct run){ .v = v, .head = 0, .nr = k, .cap = q->total ? q->total : 1 };
	q->nr_runs = 1;
	q->cur = 0;
	return 0;
}

/* Put e in a run where it keeps the order.  0 or -ENOMEM. */
static int place(struct ordered_queue *q, const struct entry *e)
{
	size_t slot;
	int err;

	/* The common case: after the last record pushed, or just before it. */
	if (q->nr_runs) {
		struct run *r = &q->runs[q->cur];
		slot = run_slot(r, e, INSERT_DEPTH);
		if (slot != SIZE_MAX)
			return run_put(r, e, slot);
	}
	/* Another run it can end, the one with the latest tail (keeps runs few). */
	size_t best = SIZE_MAX;
	for (size_t i = 0; i < q->nr_runs; i++) {
		struct run *r = &q->runs[i];
		if (r->head < r->nr && !entry_before(e, &r->v[r->nr - 1]) &&
		    (best == SIZE_MAX || entry_before(&q->runs[best].v[q->runs[best].nr - 1],
						      &r->v[r->nr - 1])))
			best = i;
	}
	if (best == SIZE_MAX) {
		runs_compact(q);
		if (q->nr_runs == MAX_RUNS) {
			err = runs_merge_all(q);
			if (err)
				return err;
			return run_put(&q->runs[0], e, run_slot(&q->runs[0], e, SIZE_MAX));
		}
		best = q->nr_runs++;
	}
	q->cur = best;
	return run_put(&q->runs[best], e, q->runs[best].nr);
}

/* An empty normal chunk: a spare one, else a new one.  NULL on ENOMEM.  Any thread. */
static struct chunk *chunk_take(struct ordered_queue *q)
{
	struct chunk *c;

	pthread_mutex_lock(&q->lock);
	c = q->spare;
	if (c) {
		q->spare = c->next;
		q->nr_spare--;
	}
	pthread_mutex_unlock(&q->lock);
	if (!c) {
		c = malloc(sizeof(*c) + CHUNK_SIZE);
		if (!c)
			return NULL;
		pthread_mutex_lock(&q->lock);
		c->all = q->all;
		q->all = c;
		q->nr_chunks++;
		pthread_mutex_unlock(&q->lock);
	}
	c->next = NULL;
	c->used = 0;
	c->live = 0;
	return c;
}

static void chunk_spare(struct ordered_queue *q, struct chunk *c)
{
	pthread_mutex_lock(&q->lock);
	c->next = q->spare;
	q->spare = c;
	q->nr_spare++;
	pthread_mutex_unlock(&q->lock);
}

static struct chunk *chunk_get(struct ordered_queue *q, size_t need)
{
	struct chunk *c;

	if (need > CHUNK_SIZE) {
		/* A record larger than a chunk (only possible with huge callchains). */
		c = malloc(sizeof(*c) + need);
		if (!c)
			return NULL;
		q->big_bytes += need;
		c->size = need;
		c->used = SIZE_MAX;     /* marks "free when empty, never reuse" */
		c->live = 0;
		return c;
	}
	if (q->cur_chunk && CHUNK_SIZE - q->cur_chunk->used >= need)
		return q->cur_chunk;
	/* Retire the current chunk: it is freed by its last record's flush. */
	if (q->cur_chunk && q->cur_chunk->live == 0)
		chunk_spare(q, q->cur_chunk);
	q->cur_chunk = NULL;
	c = chunk_take(q);
	if (c)
		q->cur_chunk = c;
	return c;
}

static void release(struct ordered_queue *q, struct chunk *c)
{
	if (--c->live)
		return;
	if (c->used == SIZE_MAX) {
		q->big_bytes -= c->size;
		free(c);
	} else if (c != q->cur_chunk) {
		chunk_spare(q, c);
	} else {
		c->used = 0;    /* the chunk being filled is empty again: rewind it */
	}
}

struct ordered_block *ordered_queue__block_new(struct ordered_queue *q, uint8_t **ret_data)
{
	struct chunk *c = chunk_take(q);

	if (!c)
		return NULL;
	c->live = 1;            /* its writer's, until block_done */
	*ret_data = (uint8_t *)c->data;
	return (struct ordered_block *)c;
}

void ordered_queue__block_done(struct ordered_queue *q, struct ordered_block *b)
{
	if (b)
		release(q, (struct chunk *)b);
}

int ordered_queue__push_in(struct ordered_queue *q, struct ordered_block *b, const struct perf_event_header *ev,
			   uint64_t time)
{
	struct chunk *c = (struct chunk *)b;
	struct entry e = { .time = time, .seq = q->seq, .ev = (struct perf_event_header *)ev, .chunk = c };
	const char *at = (const char *)ev;
	int err;

	if (ev->size < sizeof(*ev) || at < c->data || at + ev->size > c->data + CHUNK_SIZE ||
	    (uintptr_t)at % 8)
		return -EINVAL;
	err = place(q, &e);
	if (err)
		return err;
	c->live++;
	q->last = ev;
	q->seq++;
	q->total++;
	return 0;
}

int ordered_queue__push(struct ordered_queue *q, const struct perf_event_header *ev, uint64_t time)
{
	size_t sz = ev->size, need = ALIGN_UP(sz, 8);
	struct chunk *c;
	struct entry e;
	void *dst;
	int err;

	if (sz < sizeof(*ev))
		return -EINVAL;
	c = chunk_get(q, need);
	if (!c)
		return -ENOMEM;
	dst = c->used == SIZE_MAX ? c->data : c->data + c->used;
	e = (struct entry){ .time = time, .seq = q->seq, .ev = dst, .chunk = c };
	err = place(q, &e);
	if (err) {
		if (c->used == SIZE_MAX) {
			q->big_bytes -= c->size;
			free(c);
		}
		return err;
	}
	if (c->used != SIZE_MAX)
		c->used += need;
	c->live++;
	memcpy(dst, ev, sz);
	q->last = dst;
	q->seq++;
	q->total++;
	return 0;
}

/* The first entry of the run second in the heap h of n (the smaller child of the top). */
static const struct entry *heap_second(const struct ordered_queue *q, const size_t *h, size_t n)
{
	const struct entry *a, *b;

	if (n < 2)
		return NULL;
	a = run_first(&q->runs[h[1]]);
	if (n < 3)
		return a;
	b = run_first(&q->runs[h[2]]);
	return entry_before(b, a) ? b : a;
}

int ordered_queue__flush(struct ordered_queue *q, uint64_t upto, ordered_take_fn take, void *ctx)
{
	size_t h[MAX_RUNS], n = heap_build(q, h);
	int r = 0;

	while (n && run_first(&q->runs[h[0]])->time <= upto) {
		/*
		 * The top run's entries up to the second run's first come out in a row,
		 * with no heap work between them: each CPU's records arrive in bursts.
		 */
		struct run *top = &q->runs[h[0]];
		const struct entry *second = heap_second(q, h, n);
		struct entry e;

		do {
			e = top->v[top->head++];
			q->total--;
			r = take(e.ev, e.time, ctx);
			release(q, e.chunk);
		} while (!r && top->head < top->nr && top->v[top->head].time <= upto &&
			 (!second || entry_before(&top->v[top->head], second)));
		if (top->head == top->nr) {
			top->head = top->nr = 0;
			h[0] = h[--n];
		}
		if (n)
			heap_down(q->runs, h, n, 0);
		if (r)
			break;
	}
	return r;
}

const struct perf_event_header *ordered_queue__last(const struct ordered_queue *q)
{
	return q->last;
}

size_t ordered_queue__bytes(const struct ordered_queue *q)
{
	struct ordered_queue *w = (struct ordered_queue *)q;   /* (its lock only) */
	size_t n;

	pthread_mutex_lock(&w->lock);
	n = (q->nr_chunks - q->nr_spare) * CHUNK_SIZE;
	pthread_mutex_unlock(&w->lock);
	return n + q->big_bytes;
}

size_t ordered_queue__size(const struct ordered_queue *q)
{
	return q->total;
}

uint64_t ordered_queue__oldest(const struct ordered_queue *q)
{
	const struct entry *best = NULL;

	for (size_t i = 0; i < q->nr_runs; i++)
		if (q->runs[i].head < q->runs[i].nr &&
		    (!best || entry_before(run_first(&q->runs[i]), best)))
			best = run_first(&q->runs[i]);
	return best ? best->time : UINT64_MAX;
}
