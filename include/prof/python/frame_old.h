/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CPython 3.8, 3.9 and 3.10 (builds with debug info).
 *
 * There is no _PyInterpreterFrame: every Python call is its own C activation of
 * _PyEval_EvalFrameDefault(f) (3.9+: (tstate, f, throwflag)), which never changes
 * f.  So each activation pins exactly one Python frame, its f, where the build's
 * DWARF says at its pc: a register or stack slot, or (over most of the function)
 * the value f's register had at entry, which the caller's call site says it
 * passed (callsite.h).  co, first_instr and next_instr where the DWARF gives them
 * there.  A whole Python stack is thus pinned by the sample, frame by frame, with
 * no caller chain read afterwards.
 *
 * Such a build exports no Py_Version: the version is the object's name
 * (libpython3.N.so, python3.N), checked against the build's own DWARF (f's
 * register at entry, which 3.9 moved; co_lnotab or 3.10's co_linetable; the
 * structures' offsets, layout.h) and the process's PyCode_Type (interp.h).
 */
#ifndef PROF_PYTHON_FRAME_OLD_H
#define PROF_PYTHON_FRAME_OLD_H

#include <stddef.h>
#include <stdint.h>
#include <libelf.h>

#include "prof/perfdata/build_id.h"
#include "prof/python/interp.h"
#include "prof/python/layout.h"
#include "prof/python/walk.h"

/*
 * The line of the instruction at byte offset off of co_code, from the code
 * object's line table (t, len bytes) and co_firstlineno: 3.8/3.9's co_lnotab
 * (pairs of address and signed line increments), 3.10's co_linetable (PEP 626:
 * pairs of byte range lengths and signed line deltas, -128 for none).  The line,
 * or -1 when the table gives none (or off is past it).
 */
int python_lnotab__line(const uint8_t *t, size_t len, int32_t firstlineno, uint32_t off);
int python_linetable310__line(const uint8_t *t, size_t len, int32_t firstlineno, uint32_t off);

/* The line by layout l's table format (3.8-3.10's, else 3.11+'s, layout.h). */
int python_lines__line(const struct python_layout *l, const uint8_t *t, size_t len, int32_t firstlineno,
		       uint32_t off);

/* CPython 3.N's minor N from the object's path (libpython3.N.so..., python3.N), or -1. */
int python_old__minor(const char *path);

/*
 * A 3.8-3.10 build (no Py_Version; s its symbols, elf open on it, b its build id)
 * at path: its layout, pins and call sites into *ret (ret->path and the addresses
 * set by the caller).  0, -ENOTSUP with why saying why not, or -errno.
 */
int interp_old__judge(Elf *elf, const char *path, const struct interp_syms *s, const struct build_id *b,
		      struct interp *ret, char *why, size_t why_len);

/*
 * The activation's pinned frame (frame; code and pin->instr where pinned, else 0)
 * as read now into *out:
 *   VERIFIED   frame is a frame object whose code object is the pinned one, or
 *              holds the pinned instruction in its co_code (out->instr set); with
 *              neither pinned, out->by_frame: which code object the frame had at
 *              the sample is proven by time, as a code object's name (names.c);
 *   MOVED      the frame runs another code object now: out->code is the pinned
 *              one (if it still is a code object), else 0;
 *   NOT_CODE, READ_FAILED, NOT_PINNED as walk.h.
 */
enum python_verdict python_walk_old__frame(const struct python_walk *w, uint64_t frame, uint64_t code,
					   const struct python_pinned *pin, struct python_frame *out);

#endif
