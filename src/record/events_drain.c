/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rings read: each record's sample id checked against the recording's own, the
 * context-switch event's sample held for the SWITCH_OUT that follows it, the Python
 * chains' record paired with its sample, and everything else into the ordered queue
 * (events.h: events__drain).
 */
#include <string.h>
#include <linux/perf_event.h>
#include <perf/event.h>
#include <perf/evlist.h>
#include <perf/mmap.h>

#include "prof/base/idmap.h"
#include "prof/base/util.h"
#include "prof/base/vec.h"
#include "prof/record/events.h"
#include "events_internal.h"

/* Into the queue (queued where it lies when it is in block b, a spill block, else
 * copied), and into what this drain read. */
static int push(struct ordered_queue *q, struct drained *read, const struct perf_event_header *ev, uint64_t time,
		struct ordered_block *b)
{
	int err = read->nr < read->cap ? 0 : VEC_RESERVE(read->recs, read->cap, read->nr + 1);

	if (!err)
		err = b ? ordered_queue__push_in(q, b, ev, time) : ordered_queue__push(q, ev, time);
	if (!err)
		read->recs[read->nr++] = ordered_queue__last(q);
	return err;
}

/*
 * The context-switch event's sample held back (e->held) until the ring's next record:
 * the kernel writes it in schedule(), interrupts off, right before the SWITCH_OUT of
 * the same task (perf_event_task_sched_out()).  Its fields may be another
 * recording's (events__foreign_samples: one perf_sample_data for every software
 * event of the CPU), even when its id is this recording's (the other's event had no
 * id to set), so its time is taken from that SWITCH_OUT, this recording's own record,
 * and a SWITCH_OUT of another task there says its tid is not this recording's:
 * dropped.  A sample with another recording's id is held too when the context-switch
 * event is the only software event of the recording's that samples through the
 * kernel's shared data (e->salvage): followed by the SWITCH_OUT of its task, it is
 * that event's sample of that switch, and gets its id; otherwise it is dropped.  Not
 * followed by a SWITCH_OUT (the drain's last record; records lost): as written.
 */
static int push_held(struct events *e, struct ordered_queue *q, struct drained *read,
		     const struct perf_event_header *next)
{
	struct perf_event_header *h = (struct perf_event_header *)(void *)e->held;
	const struct sample_layout *l = &e->layout;
	uint64_t time = sample_layout__time(l, h), tid, *u = (uint64_t *)(void *)(h + 1);
	bool foreign = e->held_foreign;

	e->held_len = 0;
	if (next && (next->type == PERF_RECORD_SWITCH_CPU_WIDE || next->type == PERF_RECORD_SWITCH) &&
	    (next->misc & PERF_RECORD_MISC_SWITCH_OUT) && (tid = sample_layout__trailer(l, next, l->t_tid)) != 0 &&
	    l->s_tid >= 0 && l->s_time >= 0 && h->size >= sizeof(*h) + 8 * (size_t)(l->s_time + 1)) {
		if (u[l->s_tid] != tid) {
			e->foreign_samples++;
			return 0;
		}
		time = sample_layout__time(l, next);
		u[l->s_time] = time;
		if (foreign) {
			u[0] = e->info.switch_ids[0];   /* IDENTIFIER, first */
			e->foreign_kept++;
		}
	} else if (foreign) {
		e->foreign_samples++;
		return 0;
	}
	return push(q, read, h, time, NULL);
}

/* A sample id's kind (own_ids) through a one-entry memo: a ring's records are nearly
 * all its CPU's sampling event's, and the look-up per record was a twentieth of
 * record's instructions per sample (bench/record-instr). */
struct id_memo {
	uint64_t id;
	uint32_t kind;
	bool valid, own;
};

static inline bool own_id(const struct events *e, struct id_memo *m, uint64_t id, uint32_t *kind)
{
	if (!m->valid || m->id != id) {
		m->own = idmap__get(e->own_ids, id, &m->kind);
		m->id = id;
		m->valid = true;
	}
	if (m->own)
		*kind = m->kind;
	return m->own;
}

/* One record read from a ring (or from b, the spill block it lies in) into the
 * queue: 0 or -errno. */
static int take(struct events *e, struct ordered_queue *q, struct drained *read, struct id_memo *memo,
		const struct perf_event_header *h, struct ordered_block *b)
{
	uint32_t kind = OWN_EVENT;
	uint64_t id;
	int err = 0;

	if (e->ring_save)
		events_replay__record(e, h);
	/* every event of prof's has PERF_SAMPLE_IDENTIFIER: its id first,
	 * whatever the layout; another id is another recording's sample */
	if (h->type == PERF_RECORD_SAMPLE && h->size >= sizeof(*h) + 8) {
		memcpy(&id, h + 1, 8);
		if (!own_id(e, memo, id, &kind)) {
			if (!e->salvage) {
				e->foreign_samples++;
				return 0;
			}
			kind = FOREIGN;
		}
	}
	if (e->chain_len)
		events__pair_chain(e, h);
	if (kind == OWN_CHAIN) {
		err = VEC_RESERVE(e->chain, e->chain_cap, h->size);
		if (!err && e->chains) {
			memcpy(e->chain, h, h->size);
			e->chain_len = h->size;
		}
		return err;
	}
	if (e->held_len)
		err = push_held(e, q, read, h);
	if (!err && (kind == OWN_SWITCH || kind == FOREIGN)) {
		err = VEC_RESERVE(e->held, e->held_cap, h->size);
		if (!err) {
			memcpy(e->held, h, h->size);
			e->held_len = h->size;
			e->held_foreign = kind == FOREIGN;
		}
	} else if (!err) {
		const struct perf_event_header *w = h;
		uint64_t time;

		err = events__fix_lost(e, &w, e->last_time);
		time = sample_layout__time(&e->layout, w);
		if (!err)
			err = push(q, read, w, time, w == h ? b : NULL);
		e->last_time = MAX(e->last_time, time);
	}
	return err;
}

/* The records of one spill block, in one go from buf (whole records, in order, each
 * at an 8-byte multiple). */
static int take_buffer(struct events *e, struct ordered_queue *q, struct drained *read, struct id_memo *memo,
		       const uint8_t *buf, size_t len, struct ordered_block *b, int *n)
{
	size_t off = 0;
	int err = 0;

	while (!err && off + sizeof(struct perf_event_header) <= len) {
		struct perf_event_header h;

		memcpy(&h, buf + off, sizeof(h));
		if (h.size < sizeof(h) || off + h.size > len)
			break;          /* cannot be: whole records are copied */
		(*n)++;
		err = take(e, q, read, memo, (const struct perf_event_header *)(const void *)(buf + off), b);
		off += ALIGN_UP((size_t)h.size, 8);
	}
	return err;
}

/* The end of one ring's records this drain. */
static int ring_end(struct events *e, struct ordered_queue *q, struct drained *read)
{
	if (e->ring_save)
		events_replay__ring_end(e);
	if (e->chain_len)
		events__pair_chain(e, NULL);
	return e->held_len ? push_held(e, q, read, NULL) : 0;
}

/*
 * The rings' records, each ring's in the order the kernel wrote them.  A ring is
 * read in place: each record is copied out at once (perf_mmap__read_event's pointer
 * is valid only until the next read), so the ring's tail moves once per ring, after
 * its last record, not once per record: the per-record store and barrier were a
 * tenth of prof record's CPU at 80 kHz.  With the spill thread (events_spill.c) that
 * is done under its lock; a ring it copied some of while this thread was busy has
 * its new records appended to that copy instead, judged from it with the lock let go
 * (an extra copy per record only when the thread stepped in: --uid of an idle user
 * at 40 kHz cost 0.23-0.24 s of user time through the copy for every ring, 0.14-0.30
 * s in place).
 */
struct drain_call {
	struct events *e;
	struct ordered_queue *q;
	struct drained *read;
	struct id_memo memo;
	int n;
};

/* One ring's records, read in place. */
static int drain_ring(struct perf_mmap *map, void *ctx)
{
	struct drain_call *c = ctx;
	union perf_event *ev;
	int err = 0;

	if (perf_mmap__read_init(map) < 0)
		return 0;
	while (!err && (ev = perf_mmap__read_event(map)) != NULL) {
		c->n++;
		err = take(c->e, c->q, c->read, &c->memo, &ev->header, NULL);
	}
	if (!err)
		err = ring_end(c->e, c->q, c->read);
	perf_mmap__consume(map);
	/*
	 * No perf_mmap__read_done(): it sets the read position to the head as it is
	 * *now* (what the backward, overwrite mode needs), so records the kernel
	 * committed since the last read_event found the ring empty were skipped, never
	 * read and never counted as lost: a fork storm's FORK went missing from 1
	 * recording in ~10.  The position read_event left is right.
	 */
	return err;
}

static int drain_rings(struct events *e, struct ordered_queue *q, struct drained *read)
{
	struct drain_call c = { .e = e, .q = q, .read = read };
	struct perf_mmap *map;
	size_t nr;
	int err = 0;

	if (!e->spill) {
		perf_evlist__for_each_mmap(e->evlist, map, false) {
			err = drain_ring(map, &c);
			if (err < 0)
				return err;
		}
		return c.n;
	}
	err = events_spill__read(e, drain_ring, &c, &nr);
	for (size_t i = 0; i < nr; i++) {
		struct ordered_block *b;
		const uint8_t *buf;
		size_t len, k;
		bool done;

		/* every full block handed over is let go, also after an error */
		for (k = 0; (buf = events_spill__taken(e, i, k, &b, &len, &done)) != NULL; k++) {
			if (!err)
				err = take_buffer(e, q, read, &c.memo, buf, len, b, &c.n);
			if (done)
				ordered_queue__block_done(q, b);
		}
		if (!err && k)
			err = ring_end(e, q, read);
	}
	return err < 0 ? err : c.n;
}

/* One ring's records of a replay's drain (events_replay.c), as a spill block's. */
static int replay_ring(void *ctx, const uint8_t *buf, size_t len)
{
	struct drain_call *c = ctx;
	int err = take_buffer(c->e, c->q, c->read, &c->memo, buf, len, NULL, &c->n);

	return err < 0 ? err : ring_end(c->e, c->q, c->read);
}

int events__drain(struct events *e, struct ordered_queue *q, struct drained *read)
{
	struct drain_call c = { .e = e, .q = q, .read = read };
	int n, err;

	if (e->replay && !e->ring_save) {
		err = events_replay__drain(e, replay_ring, &c);
		return err < 0 ? err : c.n;
	}
	if (!e->ring_save)
		return drain_rings(e, q, read);
	events_replay__drain_begin(e);
	n = drain_rings(e, q, read);
	err = events_replay__drain_end(e);
	return n < 0 ? n : err < 0 ? err : n;
}
