/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A process's CPython interpreter: the object it maps that holds the eval function
 * (the executable, or libpython3.X.so), found by its .dynsym, and checked against
 * what prof knows (layout.h) and what the process itself holds.
 */
#ifndef PROF_PYTHON_INTERP_H
#define PROF_PYTHON_INTERP_H

#include <stddef.h>
#include <stdint.h>

#include "prof/analyze/model.h"
#include "prof/analyze/unwinder.h"
#include "prof/perfdata/build_id.h"
#include "prof/python/callsite.h"
#include "prof/python/dwarf_pins.h"
#include "prof/python/layout.h"
#include "prof/python/walk.h"

/* How an interpreter's frames are read (the summary says which, python.h). */
enum interp_how {
	INTERP_FIXED,                   /* its layout's fixed slots, by build id (layout.c) */
	INTERP_DWARF,                   /* the stack copy, pinned by its DWARF */
	INTERP_CODE,                    /* ... pinned by its machine code (code_pins.h) */
	INTERP_CHAIN,                   /* no pins: the chain read at the sample instant alone
					 * (chain.h), paired as -g pairs it; why_no_pins says why */
	INTERP_PROLOGUE,                /* the slots its eval function's prologue stores
					 * (prologue.h), checked in the process (interp__check_slots) */
	INTERP_HOWS,
};

struct interp {
	const struct python_layout *l;
	enum interp_how how;
	/* INTERP_FIXED, INTERP_PROLOGUE: cframe.current_frame's and first_instr's slots
	 * below the eval function's CFA, stored once its first stored_by bytes ran */
	uint32_t cfa_frame, cfa_first_instr, stored_by;
	uint64_t eval_lo, eval_hi;      /* _PyEval_EvalFrameDefault, in the process */
	uint64_t code_type;             /* &PyCode_Type */
	uint64_t runtime;               /* &_PyRuntime */
	uint32_t version;               /* Py_Version */
	uint64_t bias;                  /* the object's load bias (pins are as linked) */
	struct python_pins *pins;       /* l->dwarf: where the eval function keeps its state */
	struct python_callsites *calls; /* l->old: what callers passed as f (callsite.h) */
	uint64_t frame_type;            /* l->old: &PyFrame_Type */
	uint64_t text_lo, text_hi;      /* l->old: the object's executable mapping */
	uint8_t f_reg;                  /* l->old: f's register at entry (DWARF number) */
	char path[128];
	char why_no_pins[160];          /* INTERP_CHAIN: why the stack copy pins nothing */
};

/* What an object's .dynsym says (addresses as linked, not loaded). */
struct interp_syms {
	uint64_t eval, eval_size, code_type, runtime, version_addr;
	uint64_t frame_type;            /* PyFrame_Type */
	uint32_t version;               /* Py_Version's value in the file */
};

/*
 * The interpreter symbols of the ELF file open on fd: 0, -ENOENT when it has no
 * eval function, -EPROTO when it has one but no Py_Version (CPython before 3.11),
 * -EINVAL when it is no ELF.
 */
int interp__read_syms(int fd, struct interp_syms *ret);

/*
 * What a build said, by its build id, read once and not at every process of it (a
 * process's interpreter is mostly one of a few builds): its .dynsym's symbols (most
 * of an attach's cost), and for a build without a fixed layout what its DWARF said
 * (its pins, or why they would not do: some 20 ms and 16 MB of libdw's for CPython's,
 * each time).  The pins are shared (python_pins__ref).  The least recently used of
 * INTERP_CACHE_N builds goes.
 */
#define INTERP_CACHE_N 8
struct interp_cache {
	struct interp_cached {
		struct build_id b;              /* size 0: an empty entry */
		uint64_t used;
		bool has_syms, has_dwarf;       /* which of the two below were read */
		struct interp_syms s;
		int syms_err;
		const struct python_layout *l;  /* NULL: refused, why */
		enum interp_how how;
		uint32_t cfa_frame, cfa_first_instr, stored_by;
		char why_no_pins[160];
		struct python_pins *pins;
		int err;
		char why[256];
	} v[INTERP_CACHE_N];
	uint64_t tick;
};
void interp_cache__release(struct interp_cache *c);

/*
 * The interpreter of process pid (its maps in m, its files opened with open): 0 with
 * *ret filled, -ENOENT when it maps none, -ENOTSUP when prof has no layout for it
 * (why says so, for the summary), or -errno.  cache: builds judged by their DWARF
 * before (NULL: none).
 */
int interp__find(const struct model *m, int32_t pid, unwinder_open_fn open, void *ctx, struct interp_cache *cache,
		 struct interp *ret, char *why, size_t why_len);

/* Could the object at path be an interpreter (python3.X, libpython3.X.so)? */
bool interp__looks_like(const char *path);

/* Free what *in holds (its pins); in stays valid to fill again.  NULL-safe. */
void interp__release(struct interp *in);

/*
 * Does a build's DWARF (its member offsets, o) agree with layout l, and for 3.13+
 * does its _Py_DebugOffsets (dbg, 360 bytes from _PyRuntime's start, version the
 * build's Py_Version)?  0, or -ENOTSUP with why saying what differs.
 */
int interp__check_dwarf(const struct python_layout *l, const struct pin_offsets *o, const uint8_t *dbg,
			uint32_t version, char *why, size_t why_len);

/* The _Py_DebugOffsets part of interp__check_dwarf alone (a build with no DWARF);
 * 0 for a layout of a version before them (3.11, 3.12). */
int interp__check_debug_offsets(const struct python_layout *l, const uint8_t *dbg, uint32_t version, char *why,
				size_t why_len);

/*
 * Does the process agree with the layout: PyCode_Type read from it (with read) named
 * "code", of the layout's basic and item sizes?  0, -EPERM/-ESRCH when it cannot be
 * read, -ENOTSUP when it does not agree (why says how).
 */
int interp__check(const struct interp *in, python_read_fn read, void *ctx, char *why, size_t why_len);

/*
 * INTERP_PROLOGUE: does the process agree with the slots found in its code?  One of
 * its thread states (from the first interpreter's threads.head, at most 64) names a
 * cframe on its thread's stack whose current_frame runs the code object whose
 * co_code_adaptive is what the first_instr slot of that very activation holds (the
 * activation's CFA being the cframe's address plus its distance).  0, -EPERM/-ESRCH,
 * or -ENOTSUP with why when none does.
 */
int interp__check_slots(const struct interp *in, python_read_fn read, void *ctx, char *why, size_t why_len);

#endif
