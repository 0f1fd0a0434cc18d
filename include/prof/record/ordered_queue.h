/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The time-ordered merge of records read from every CPU's ring buffer.
 *
 * Each CPU's buffer is (nearly) in time order, the buffers together are not.  Records
 * are copied in as they are read and handed out, oldest first, once nothing older can
 * still arrive: the caller says up to which timestamp that holds (a "round", as perf's
 * ordered events call it).  Records with equal timestamps keep their arrival order.
 *
 * Memory is taken from a chunk arena that is reused as records are flushed, so a
 * recording in steady state does not allocate.
 */
#ifndef PROF_RECORD_ORDERED_QUEUE_H
#define PROF_RECORD_ORDERED_QUEUE_H

#include <stdint.h>
#include <linux/perf_event.h>

struct ordered_queue;

/* Returns NULL on ENOMEM. */
struct ordered_queue *ordered_queue__new(void);
/* NULL-safe; returns NULL. */
struct ordered_queue *ordered_queue__free(struct ordered_queue *q);

/* Copies the record (header.size bytes) in, keyed by time.  0 or -ENOMEM, -EINVAL. */
int ordered_queue__push(struct ordered_queue *q, const struct perf_event_header *ev, uint64_t time);

/*
 * The copy of the record pushed last (NULL before the first push): it stays where
 * it is until it is flushed, so a caller may look at what it pushed before the
 * records are handed out in time order.
 */
const struct perf_event_header *ordered_queue__last(const struct ordered_queue *q);

/*
 * Hand every queued record with time <= upto, oldest first, to take(); the
 * record is only valid during the call.  A non-zero return from take() stops the
 * flush and is returned (the record it was given is consumed).
 */
typedef int (*ordered_take_fn)(const struct perf_event_header *ev, uint64_t time, void *ctx);
int ordered_queue__flush(struct ordered_queue *q, uint64_t upto, ordered_take_fn take, void *ctx);

/*
 * A block of the queue's memory for records copied in by another thread (the rings'
 * spill thread, events_spill.c), so that they are queued where they were copied,
 * not copied again, and the memory is the queue's reused chunks rather than fresh
 * heap.  block_new may be called from any thread (the chunks' spare list is locked):
 * NULL on ENOMEM, else the block, with its bytes in *ret_data (ORDERED_BLOCK_SIZE
 * of them), held by its writer until block_done.  push_in queues a record that lies
 * in the block (8-byte aligned) without copying it: 0 or -ENOMEM, -EINVAL; the
 * block stays alive until its last record queued so is flushed.  push_in and
 * block_done are the queue owner's thread's, as push and flush are.
 */
#define ORDERED_BLOCK_SIZE (1u << 20)
struct ordered_block;
struct ordered_block *ordered_queue__block_new(struct ordered_queue *q, uint8_t **ret_data);
int ordered_queue__push_in(struct ordered_queue *q, struct ordered_block *b, const struct perf_event_header *ev,
			   uint64_t time);
void ordered_queue__block_done(struct ordered_queue *q, struct ordered_block *b);

/* Number of records queued, and the oldest queued time (UINT64_MAX when empty). */
size_t ordered_queue__size(const struct ordered_queue *q);
/* Bytes of records held (chunks in use, not the spare ones kept for reuse). */
size_t ordered_queue__bytes(const struct ordered_queue *q);
uint64_t ordered_queue__oldest(const struct ordered_queue *q);

#endif
