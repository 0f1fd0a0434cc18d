/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Exited tasks, kept a while before they are forgotten.  The kernel samples a task's
 * exit teardown after its EXIT record, so whoever keeps facts about tasks (the
 * tracker, prof top's model) forgets one only some time after its EXIT: each adds the
 * exits it sees here, in record time order, and forgets what comes out once the grace
 * is over.  A FIFO ring: adding and expiring are O(1), and a ring that stopped growing
 * does not allocate.
 *
 * The struct is public so that a ring can be a member of its owner; its fields are
 * the ring's own.
 */
#ifndef PROF_BASE_LINGER_H
#define PROF_BASE_LINGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct linger_entry {
	uint64_t key;           /* the owner's: a tid, a (pid, tid) pair */
	uint64_t time;          /* of the exit */
	uint64_t tag;           /* the owner's, e.g. to tell a reused tid apart */
};

struct linger {
	struct linger_entry *v; /* v[(head + i) % cap] for i < nr, oldest first */
	size_t head, nr, cap;
	uint64_t grace;         /* ns an entry is kept after its time */
};

/* An empty ring whose entries expire grace_ns after their time (no memory yet). */
void linger__init(struct linger *l, uint64_t grace_ns);
/* Free what it holds; it is empty again. */
void linger__release(struct linger *l);

/* Add an exit; times must not decrease (exits in record order).  0 or -ENOMEM. */
int linger__add(struct linger *l, uint64_t key, uint64_t time, uint64_t tag);

/*
 * The oldest entry whose grace is over at `now` (its time + grace <= now), taken out
 * of the ring into *ret: true; false when there is none.  The owner forgets the key
 * unless it was given to a new task since (which the tag or its own record tells).
 */
bool linger__expire(struct linger *l, uint64_t now, struct linger_entry *ret);

static inline size_t linger__size(const struct linger *l)
{
	return l->nr;
}

#endif
