/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rings read by a thread of their own while the main one is busy (judging,
 * looking tasks up in /proc, copying objects into the build-id cache, writing).
 *
 * On two busy CPUs the main thread, always runnable once it falls behind, got its
 * CPU share in long waits on the run queue (/proc/PID/schedstat: ~4.8 s waiting for
 * ~0.4 s run over a 4 s recording at 40 kHz) and read its rings 5-10 times in 4 s,
 * the longest gap 0.4-2.6 s: a fifth to a half of the records were lost where perf,
 * which sleeps between short copies, lost few.  This thread only copies: when the
 * main thread has been out of its poll for SPILL_AFTER_NS without reading the rings,
 * it copies each ring's records, whole and in order, into that ring's blocks, and
 * again every SPILL_TICK_NS while the main thread stays away.  The main thread's
 * read (events_spill__read) appends each ring's new records to its blocks under the
 * same lock and swaps the block lists out, to judge them with the lock let go: a
 * ring's records reach the queue in the order the kernel wrote them, whichever
 * thread copied them.
 *
 * The blocks are the ordered queue's own chunks (ordered_queue__block_new): a record
 * copied here is queued where it lies, and its block goes back to the queue's spare
 * chunks once its last record is flushed.  With a buffer of the thread's own, grown
 * as the backlog grew and handed over to be copied into the queue, a backlog was
 * written up to three times into memory touched for the first time, and the page
 * faults of that fresh heap were 30-40 % of prof's CPU once it fell behind.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <perf/event.h>
#include <perf/mmap.h>

#include "prof/base/util.h"
#include "prof/base/vec.h"
#include "events_internal.h"

/* The main thread's ordinary turn (a 25 ms poll, 5 ms rounds) is well under
 * SPILL_AFTER_NS, so a host that lets it keep up sees no copy of the thread's (nor
 * the heap it would take); the rings hold ~150 ms at the rate they are sized for
 * (record_opts__auto_pages), several ticks past it. */
#define SPILL_TICK_NS (10ull * 1000 * 1000)
#define SPILL_AFTER_NS (40ull * 1000 * 1000)
/* past this the rings are left to the kernel, which counts what it loses (as the
 * session's queue does past its bound) */
#define SPILL_MAX_BYTES (128ull << 20)

/* A block of the queue's, filled up to len, handed over up to start.  A ring's last
 * block stays its own across reads (the next records go after the ones handed
 * over) until full: a block per read would hold ~1 MB for a few records until they
 * are flushed (profd's fork storm: +14 MB of RSS). */
struct spill_block {
	struct ordered_block *b;
	uint8_t *data;
	size_t start, len;
};

struct spill_ring {
	struct spill_block *v;
	size_t nr, cap;
};

struct events_spill {
	pthread_t thread;
	bool running;
	pthread_mutex_t lock;           /* the rings' read positions and rings[] */
	struct perf_evlist *evlist;
	struct ordered_queue *q;        /* whose blocks the records are copied into */
	struct spill_ring *rings;       /* what the spill thread copied, per ring */
	struct spill_ring *taken;       /* ... swapped out by the main thread, read by it */
	size_t nr_rings;
	size_t bytes;                   /* in rings[] */
	uint64_t last_read;             /* the main thread's last read (ns), atomic */
	bool idle;                      /* ... it waits in its poll, atomic */
	bool stop;                      /* atomic */
	uint64_t deadline;              /* --duration's end (ns), 0: none; atomic */
	bool deadline_hit;              /* the thread stopped the sampling events there */
	struct events *events;
	struct events_spill_stats st;
};

static uint64_t load_u64(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/* Room for sz more bytes at the end of r's last block, or a new block: where they
 * go, or NULL (no memory). */
static uint8_t *ring_room(struct events_spill *s, struct spill_ring *r, size_t sz)
{
	struct spill_block *last = r->nr ? &r->v[r->nr - 1] : NULL;
	struct spill_block n = { 0 };

	if (last && ORDERED_BLOCK_SIZE - last->len >= sz)
		return last->data + last->len;
	if (VEC_RESERVE(r->v, r->cap, r->nr + 1) < 0 || !(n.b = ordered_queue__block_new(s->q, &n.data)))
		return NULL;
	r->v[r->nr++] = n;
	return n.data;
}

/* One ring's records appended to r, while below max bytes.  Under s->lock. */
static void copy_ring(struct events_spill *s, struct perf_mmap *map, struct spill_ring *r, size_t max,
		      uint64_t *nr)
{
	union perf_event *ev;
	bool any = false;

	if (perf_mmap__read_init(map) < 0)
		return;
	while (s->bytes < max && (ev = perf_mmap__read_event(map)) != NULL) {
		/* (the kernel's records are 8-byte multiples; the queue's are 8-aligned) */
		size_t sz = ev->header.size, step = ALIGN_UP(sz, 8);
		uint8_t *to = ring_room(s, r, step);

		if (!to)
			break;  /* the record stays in the ring: perf_mmap__consume moves to it only */
		memcpy(to, ev, sz);
		r->v[r->nr - 1].len += step;
		s->bytes += step;
		(*nr)++;
		any = true;
	}
	if (any)
		perf_mmap__consume(map);
}

static void spill_all(struct events_spill *s)
{
	struct perf_mmap *map;
	size_t i = 0;

	pthread_mutex_lock(&s->lock);
	/* the main thread may have read them while this one waited for the lock */
	if (clock_mono_ns() - load_u64(&s->last_read) >= SPILL_AFTER_NS) {
		perf_evlist__for_each_mmap(s->evlist, map, false)
			if (i < s->nr_rings)
				copy_ring(s, map, &s->rings[i++], SPILL_MAX_BYTES, &s->st.records);
		s->st.spills++;
		s->st.peak_bytes = MAX(s->st.peak_bytes, s->bytes);
	}
	pthread_mutex_unlock(&s->lock);
}

/*
 * It sleeps until the main thread has been away SPILL_AFTER_NS since its last read,
 * then copies every SPILL_TICK_NS while it stays away: a main thread that reads
 * every 25 ms or waits in its poll wakes this one ~25 times a second, not 100.
 */
static void *spill_main(void *arg)
{
	struct events_spill *s = arg;

	while (!__atomic_load_n(&s->stop, __ATOMIC_RELAXED)) {
		uint64_t now = clock_mono_ns(), due = load_u64(&s->last_read) + SPILL_AFTER_NS;
		struct timespec ts;

		uint64_t deadline = load_u64(&s->deadline);

		if (deadline && !s->deadline_hit && now >= deadline) {
			/*
			 * --duration ends here even while the main thread is busy with a
			 * backlog (a step of its can take seconds on a loaded host): no sample
			 * after the deadline is taken; the main thread sees it when its step
			 * returns, stops and drains what was taken before it.
			 */
			events__stop_sampling(s->events);
			s->deadline_hit = true;
		}
		if (__atomic_load_n(&s->idle, __ATOMIC_RELAXED)) {
			due = now + SPILL_AFTER_NS;     /* in its poll: it reads when it returns */
		} else if (now >= due) {
			spill_all(s);
			due = now + SPILL_TICK_NS;
		}
		if (deadline && !s->deadline_hit && deadline < due)
			due = deadline;
		ts.tv_sec = (time_t)(due / 1000000000ull);
		ts.tv_nsec = (long)(due % 1000000000ull);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
	}
	return NULL;
}

int events_spill__start(struct events *e, struct ordered_queue *q)
{
	struct events_spill *s;
	struct perf_mmap *map;
	sigset_t all, old;

	if (e->spill)
		return 0;
	if (!q)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	perf_evlist__for_each_mmap(e->evlist, map, false)
		s->nr_rings++;
	s->rings = calloc(s->nr_rings + 1, sizeof(*s->rings));
	s->taken = calloc(s->nr_rings + 1, sizeof(*s->taken));
	/* every list with room for one block from the start: events_spill__read keeps
	 * a ring's last block in the list it swaps in, with no allocation there */
	for (size_t i = 0; s->rings && s->taken && i < s->nr_rings; i++)
		if (VEC_RESERVE(s->rings[i].v, s->rings[i].cap, 4) < 0 ||
		    VEC_RESERVE(s->taken[i].v, s->taken[i].cap, 4) < 0) {
			e->spill = s;
			events_spill__free(e);
			return -ENOMEM;
		}
	if (!s->rings || !s->taken) {
		free(s->rings);
		free(s->taken);
		free(s);
		return -ENOMEM;
	}
	s->evlist = e->evlist;
	s->events = e;
	s->q = q;
	s->last_read = clock_mono_ns();
	pthread_mutex_init(&s->lock, NULL);
	e->spill = s;
	/* signals stay the main thread's (its poll returns on them); without the thread
	 * the main one reads alone, through the same buffers */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	s->running = pthread_create(&s->thread, NULL, spill_main, s) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return s->running ? 0 : -EAGAIN;
}

void events_spill__deadline(struct events *e, uint64_t ns)
{
	if (e->spill)
		__atomic_store_n(&e->spill->deadline, ns, __ATOMIC_RELAXED);
}

void events_spill__stop(struct events *e)
{
	struct events_spill *s = e->spill;

	if (!s || !s->running)
		return;
	__atomic_store_n(&s->stop, true, __ATOMIC_RELAXED);
	pthread_join(s->thread, NULL);
	s->running = false;
}

void events_spill__free(struct events *e)
{
	struct events_spill *s = e->spill;

	if (!s)
		return;
	events_spill__stop(e);
	pthread_mutex_destroy(&s->lock);
	/* (blocks not handed over are the queue's: its chunks, freed with it) */
	for (size_t i = 0; i < s->nr_rings; i++) {
		free(s->rings[i].v);
		free(s->taken[i].v);
	}
	free(s->rings);
	free(s->taken);
	free(s);
	e->spill = NULL;
}

void events_spill__idle(struct events *e, bool idle)
{
	if (e->spill)
		__atomic_store_n(&e->spill->idle, idle, __ATOMIC_RELAXED);
}

int events_spill__read(struct events *e, events_ring_fn direct, void *ctx, size_t *ret_nr)
{
	struct events_spill *s = e->spill;
	struct perf_mmap *map;
	uint64_t nr = 0;
	size_t i = 0;
	int err = 0;

	pthread_mutex_lock(&s->lock);
	perf_evlist__for_each_mmap(s->evlist, map, false) {
		struct spill_ring *r = &s->rings[i], t;

		if (i++ >= s->nr_rings)
			break;
		s->taken[i - 1].nr = 0;
		if (r->nr <= 1 && (!r->nr || r->v[0].len == r->v[0].start)) {
			/* nothing copied: read in place, as without the thread */
			err = direct(map, ctx);
			if (err < 0)
				break;
			continue;
		}
		copy_ring(s, map, r, SIZE_MAX, &nr);
		t = s->taken[i - 1];
		s->taken[i - 1] = *r;
		*r = t;
		/* the last block stays the ring's, its records up to here handed over (every
		 * list has room for one: events_spill__start) */
		r->v[0] = s->taken[i - 1].v[s->taken[i - 1].nr - 1];
		r->v[0].start = r->v[0].len;
		r->nr = 1;
	}
	s->bytes = 0;
	__atomic_store_n(&s->last_read, clock_mono_ns(), __ATOMIC_RELAXED);
	pthread_mutex_unlock(&s->lock);
	*ret_nr = s->nr_rings;
	return err;
}

const uint8_t *events_spill__taken(struct events *e, size_t ring, size_t k, struct ordered_block **ret_block,
				   size_t *ret_len, bool *ret_done)
{
	const struct spill_ring *t = &e->spill->taken[ring];

	if (k >= t->nr)
		return NULL;
	*ret_block = t->v[k].b;
	*ret_len = t->v[k].len - t->v[k].start;
	*ret_done = k + 1 < t->nr;      /* the last is still the ring's */
	return t->v[k].data + t->v[k].start;
}

void events__spill_stats(struct events *e, struct events_spill_stats *ret)
{
	struct events_spill *s = e->spill;

	*ret = (struct events_spill_stats){ 0 };
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	*ret = s->st;
	pthread_mutex_unlock(&s->lock);
}
