/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Python frames of one activation of the eval function, read from the process
 * after the sample, as a consistent chain rooted at what the sample pinned.  Only
 * the pinned frame's code object is the sample's for sure: a chain read later may
 * be of a later call of the same function at the same place (docs/DESIGN.md,
 * "Python frames": measured by tests/integration/python/caller_truth.sh).
 *
 * The sample's stack copy pins, exactly, the activation's current frame F and code
 * object C (layout.h).  The callers inside the activation live only in the heap (the
 * thread's frame chunks) and are read late, so they are accepted only when the chain
 * read proves itself: F still holds C; each frame's code is a code object (its type
 * is PyCode_Type); each caller ends exactly where its callee starts (frames are
 * pushed contiguously in a chunk, a caller's size being its code's frame size); the
 * chain ends at an entry frame (is_entry); and, where the sample pinned the next
 * activation's frame too, the entry frame's previous is that frame.  Anything else
 * is a verdict saying what failed, and the caller writes no Python frame for it.
 */
#ifndef PROF_PYTHON_WALK_H
#define PROF_PYTHON_WALK_H

#include <stddef.h>
#include <stdint.h>

#include "prof/python/layout.h"

/* Read len bytes of the process at addr into buf: 0 or -errno. */
typedef int (*python_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len);
/* Read len bytes at each of addrs[0..n) into out (n * 80 bytes), in one call: 0 or -errno. */
typedef int (*python_readv_fn)(void *ctx, const uint64_t *addrs, size_t n, size_t len, void *out);

/* The most frames of one activation. */
#define PYTHON_WALK_MAX 96

/* A code object's head as read (up to co_code_adaptive). */
#define PYTHON_CODE_HEAD 192

struct python_frame {
	uint64_t frame, code;
	uint64_t prev_instr, previous;
	uint8_t head[PYTHON_CODE_HEAD]; /* the code object's head, as read */
};

enum python_verdict {
	PYTHON_VERIFIED,
	PYTHON_READ_FAILED,             /* the memory could not be read (gone, no rights) */
	PYTHON_MOVED,                   /* the pinned frame holds another code object now */
	PYTHON_NOT_CODE,                /* a frame's code is not a code object */
	PYTHON_NOT_CONTIGUOUS,          /* a caller does not end where its callee starts */
	PYTHON_NO_ENTRY,                /* no entry frame within the frames kept */
	PYTHON_WRONG_ENTRY,             /* the entry frame's previous is not the outer pinned one */
	PYTHON_SLOW,                    /* the second reading took too long to prove anything */
	PYTHON_VERDICTS,
};

/* A word for the summary: "read failed", "moved", ... */
const char *python_verdict__name(enum python_verdict v);

struct python_walk {
	const struct python_layout *l;
	python_read_fn read;
	python_readv_fn readv;
	void *ctx;
	uint64_t code_type;             /* &PyCode_Type in the process */
	uint64_t (*clock_ns)(void);     /* NULL: the second reading is not timed */
};

/* The longest second reading that proves a chain (see walk.c, again()). */
#define PYTHON_AGAIN_MAX_NS 100000

/*
 * The frames of the activation whose current frame and code the sample pinned
 * (frame, code; first_instr - co_code_adaptive), innermost first, into out (max of
 * them), *ret_nr set.  outer: the next (outer) activation's pinned frame, 0 when none
 * or unknown.
 */
enum python_verdict python_walk__activation(const struct python_walk *w, uint64_t frame, uint64_t code,
					    uint64_t outer, struct python_frame *out, size_t max, size_t *ret_nr);

#endif
