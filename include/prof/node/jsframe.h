/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A JavaScript frame of a live V8, named from the frame pointer alone (V8 keeps rbp
 * in every frame it makes): the slot below fp says whether the frame is V8's own (a
 * frame type marker: entry, exit, stub...) or a JavaScript one (a Context); a
 * JavaScript frame's function slot must hold a JSFunction (its map's type), whose
 * SharedFunctionInfo gives the name (the ScopeInfo's function name, else its
 * inferred name, else anonymous), the Script (file) and the start position, made
 * line:column by the Script's line ends (or, where V8 has not made them, by counting
 * the source's line breaks).  An interpreted frame also holds its BytecodeArray and
 * the current bytecode offset.  Anything odd refuses the frame with a reason, never
 * a guess.
 */
#ifndef PROF_NODE_JSFRAME_H
#define PROF_NODE_JSFRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/node/node.h"

/* What a ScopeInfo says of its function, parsed from its slots (after the map). */
struct v8_scope_info {
	uint64_t name;                  /* a String, 0: none (no shared name) */
	uint64_t inferred;              /* a String, 0: none */
	int32_t start, end;             /* source positions, -1: none */
};

/* Is the object tagged a string?  1, 0, or -errno / -EINVAL (why). */
typedef int (*v8_is_string_fn)(void *ctx, uint64_t tagged, const char **why);

/*
 * Parse the slots of a ScopeInfo of V8 before 12.8 (flags, parameter count, context
 * local count at ncl, the variable part from first_vars: the context locals' names
 * inline or as one hash table, their infos, the saved class variable slot, the
 * function variable's name and slot, the inferred name, the position info).  The
 * optional parts are told apart by their tags (a Smi or a String), each as V8 writes
 * it, so nothing is guessed: slots that do not parse so are refused (-EINVAL, why).
 * n: the slots given; -ENOSPC when more are needed (*ret_need says how many).
 */
int v8_scope_info__parse(const uint64_t *slots, size_t n, int64_t ncl, int64_t first_vars, v8_is_string_fn is_string,
			 void *ctx, struct v8_scope_info *ret, size_t *ret_need, const char **why);

/* The 1-based line and column of position pos by a Script's line ends (ends[i]: the
 * position of line i+1's line break; n of them): false when pos lies past them. */
bool v8_line_of(const int32_t *ends, size_t n, int32_t pos, int32_t *ret_line, int32_t *ret_col);

struct js_function {
	char name[256];                 /* the shared name, else the inferred one, else "" */
	bool anonymous;                 /* neither: named by position */
	char file[512];                 /* the Script's name, "" unknown (why in file_why) */
	int32_t start;                  /* the function's start position, -1 unknown */
	int32_t line, column;           /* 1-based; 0 unknown (why in line_why) */
	const char *file_why, *line_why;
};

/* Describe the SharedFunctionInfo shared: 0, -errno, -EINVAL (why). */
int js_function__describe(const struct node_v8 *v, uint64_t shared, struct js_function *ret, const char **why);

enum js_frame_kind { JS_FRAME_JS, JS_FRAME_V8 };
enum js_tier { JS_TIER_COMPILED, JS_TIER_INTERPRETED };

struct js_frame {
	enum js_frame_kind kind;
	uint64_t fp, caller_fp, return_address;
	/* JS_FRAME_V8: */
	int marker;
	const char *marker_name;        /* the build's frametype_* name */
	/* JS_FRAME_JS: */
	uint64_t function, shared;
	enum js_tier tier;              /* interpreted: its own bytecode in the frame */
	int64_t bytecode_offset;        /* interpreted: the slot's Smi, -1 otherwise */
	struct js_function fn;
};

/*
 * Read the frame at fp.  sp: for the innermost frame, the thread's stack pointer (a
 * slot below it is not pushed yet: the function is in its prologue, and the slot
 * holds an older frame's word); 0 for a frame a verified frame's saved frame pointer
 * led to.  A V8 frame (a type marker) is read only in the latter: at the top of a
 * stack, native code's frame could hold the same word.  0 with *ret; -EINVAL with why
 * when the frame does not check out; -errno of a read.
 */
int js_frame__read(const struct node_v8 *v, uint64_t fp, uint64_t sp, struct js_frame *ret, const char **why);

/* js_frame__read but for its function's description (ret->fn left empty): a reader
 * that names a SharedFunctionInfo once calls js_function__describe itself. */
int js_frame__read_slots(const struct node_v8 *v, uint64_t fp, uint64_t sp, struct js_frame *ret, const char **why);

#endif
