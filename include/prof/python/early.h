/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Python frames read when a sample is drained, kept until it is unwound.
 *
 * Samples are unwound when the ordered queue hands them out, ~65 ms after they were
 * taken; the rings are read every few ms.  When a sample is drained, the CFAs of
 * the eval activations of its thread's last unwound sample (a thread in a loop runs
 * its activations at the same stack addresses: a hint) give candidate slots in its
 * stack copy; the frames those pin are checked then (walk.h: the sooner, the more
 * often the pinned frame still runs the pinned code) and kept here, by (tid, time).
 * When the sample is unwound, the reading is used only if the unwinding pins
 * exactly the same frames and code objects (python.c): a wrong guess costs a late
 * reading, never a wrong frame.  A ring of PYTHON_EARLY_N readings: the oldest go.
 */
#ifndef PROF_PYTHON_EARLY_H
#define PROF_PYTHON_EARLY_H

#include <stddef.h>
#include <stdint.h>

#define PYTHON_EARLY_N 4096
#define PYTHON_EARLY_ACTS 4
#define PYTHON_EARLY_SYMS 2     /* the function, and CALLERS_NAME above it */

struct python_early_act {
	uint64_t frame, code;           /* pinned */
	uint8_t verdict, n;             /* enum python_verdict; symbols */
	uint32_t syms[PYTHON_EARLY_SYMS];
};

struct python_early_reading {
	int32_t tid;
	uint64_t time, read_ns;         /* the sample's; when it was read */
	uint8_t nacts;                  /* 0: not kept */
	struct python_early_act acts[PYTHON_EARLY_ACTS];
};

struct python_early;

/* NULL on ENOMEM. */
struct python_early *python_early__new(void);
struct python_early *python_early__free(struct python_early *e);

/* Thread tid's activations' CFAs (innermost first, at most PYTHON_EARLY_ACTS kept). */
int python_early__hint(struct python_early *e, int32_t tid, const uint64_t *cfas, size_t n);
/* ... as last hinted, into cfas (PYTHON_EARLY_ACTS): how many, 0 when none. */
size_t python_early__hints(const struct python_early *e, int32_t tid, uint64_t *cfas);

/* The slot of the next reading (the oldest one forgotten), for sample (tid, time). */
struct python_early_reading *python_early__start(struct python_early *e, int32_t tid, uint64_t time);
/* The reading in the slot python_early__start gave, with nacts activations, kept. */
void python_early__keep(struct python_early *e, struct python_early_reading *r, uint8_t nacts);

/* Every reading forgotten (their symbols are of a window of names gone: python.h). */
void python_early__forget(struct python_early *e);

/* The reading of sample (tid, time), NULL when none is kept. */
const struct python_early_reading *python_early__find(const struct python_early *e, int32_t tid, uint64_t time);

#endif
