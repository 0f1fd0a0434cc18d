/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one Python frame of an eval activation that its sample pins, checked.
 *
 * The sample's stack copy pins, exactly, the activation's current frame F and code
 * object C (layout.h).  F and C are in the heap, read after the sample: the reading
 * holds when F still runs C and C's type is PyCode_Type (C still is a code object,
 * kept alive by F).  C's qualname, file and first line are then C's own: a code
 * object never changes them.  Nothing else of the activation is the sample's for
 * sure: its callers (F's previous frames) and F's current instruction (hence the
 * line) may be those of a later call run at the same place by then (docs/DESIGN.md,
 * "Python frames": measured by tests/integration/python/caller_truth.sh), so they
 * are not read.  Whether F is the activation's entry frame (its first) is read
 * (is_entry, while F still runs C): a frame that is not, or that moved on, may have
 * callers above it, shown as one "callers not proven" frame.  Where F starts proves
 * nothing: right where the outer activation's pinned frame ends is both a callback's
 * first frame (sorted(key=)) and the callee of a generator or coroutine, whose own
 * frame lives in its object, not in the thread's frame chunk.
 *
 * Reading F late biases: a function sharing its frame's address with others (a loop
 * calling f() then g()) is found there in proportion to its own share, so requiring
 * F to still run C would keep f's samples in proportion to its share squared
 * (python/shares measured 77.7/20.2/2.0 % for 60/30/10).  When F moved on, C is named
 * if it is still a code object with the very fields (qualname, file, first line) it
 * had when a frame running it was read before: another code object there with those
 * fields has that same name.
 */
#ifndef PROF_PYTHON_WALK_H
#define PROF_PYTHON_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/python/layout.h"

/* Read len bytes of the process at addr into buf: 0 or -errno. */
typedef int (*python_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len);

/* A code object's head as read (up to co_code_adaptive). */
#define PYTHON_CODE_HEAD 256

struct python_frame {
	uint64_t frame, code;
	uint64_t instr;                 /* the running instruction, inside code's bytecode; 0: none */
	bool before_next;               /* instr is the unit before next_instr (python_pinned) */
	bool callers;                   /* not an entry frame: callers above it */
	uint64_t first;                 /* 3.8-3.10: the first instruction (in co_code's bytes) */
	bool by_frame;                  /* 3.8-3.10: the code object as the frame holds it now */
	uint8_t head[PYTHON_CODE_HEAD]; /* the code object's head, as read */
};

enum python_verdict {
	PYTHON_VERIFIED,
	PYTHON_READ_FAILED,             /* the memory could not be read (gone, no rights) */
	PYTHON_MOVED,                   /* the pinned frame holds another code object now */
	PYTHON_NOT_CODE,                /* the pinned code is not a code object */
	PYTHON_BY_CODE,                 /* verified by the code object alone (names.c) */
	PYTHON_NOT_PINNED,              /* the build's DWARF pins no frame or code at that pc */
	PYTHON_NOT_BEFORE,              /* its code object's name not read there before the sample */
	PYTHON_VERDICTS,
};

/* A word for the summary: "memory not readable", "frame moved on", ... */
const char *python_verdict__name(enum python_verdict v);

struct python_walk {
	const struct python_layout *l;
	python_read_fn read;
	void *ctx;
	uint64_t code_type;             /* &PyCode_Type in the process */
	uint64_t frame_type;            /* 3.8-3.10: &PyFrame_Type */
};

/* What else the sample pins of an activation (builds with debug info; 0: nothing). */
struct python_pinned {
	uint64_t instr;                 /* the running instruction's address */
	/* instr is the unit before the pinned next_instr: right after a jump that is
	 * not the instruction that ran (the line is named only where both agree) */
	bool before_next;
	uint64_t entry_frame;           /* 3.12+: the activation's entry shim's address */
	uint64_t first_instr;           /* 3.8-3.10: the first instruction, where pinned */
};

/*
 * The activation's pinned frame (frame, code; first_instr - co_code_adaptive) as
 * read now into *out: VERIFIED when it still runs that code object; MOVED, with *out
 * filled, when the frame runs another one now but the pinned code still is a code
 * object (names.c names it only if its name there is proven at the sample's time).
 */
/* The head of code object `code` into head, if it is one: PYTHON_VERIFIED, else
 * PYTHON_NOT_CODE (no pointer, misaligned, another type) or PYTHON_READ_FAILED. */
enum python_verdict python_walk__code(const struct python_walk *w, uint64_t code, uint8_t *head);

enum python_verdict python_walk__frame(const struct python_walk *w, uint64_t frame, uint64_t code,
				       struct python_frame *out);

/*
 * The same with what else the sample pins (pin): when code is 0 (3.12+ pin no code
 * object), the frame's code object read now stands for it only if its bytecode
 * holds the pinned instruction (VERIFIED; else MOVED with out->code 0, names.c may
 * know the code by that instruction).  out->instr is the pinned instruction when it
 * lies inside the code object's bytecode, else 0 (no line).  A frame with no
 * is_entry (3.12+) is its activation's first when its previous is the pinned entry
 * shim (read while it still runs the code object).
 */
enum python_verdict python_walk__pinned(const struct python_walk *w, uint64_t frame, uint64_t code,
					const struct python_pinned *pin, struct python_frame *out);

/* Does code object head (as read, up to co_code_adaptive) at code hold instr? */
bool python_walk__holds(const struct python_layout *l, uint64_t code, const uint8_t *head, uint64_t instr);

#endif
