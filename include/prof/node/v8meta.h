/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * V8's postmortem metadata: the v8dbg_* ints that node (or libnode.so) exports in its
 * .dynsym (tools/gen-postmortem-metadata.py in V8: heap object and Smi tagging, string
 * representation tags, instance types, field offsets, the offsets of a JavaScript
 * frame's slots from its frame pointer, frame type markers).  Every build describes
 * itself, so no table keyed by a version or a build id: the items prof uses are
 * matched by name (with the names other V8 versions give them, '|'-separated), each
 * checked present (or optional), then the whole checked for what a 64-bit V8 without
 * pointer compression has (tags, Smi shift, aligned slots inside small objects,
 * distinct types).  A V8 whose metadata does not pass is refused with one line naming
 * the missing or odd item.
 */
#ifndef PROF_NODE_V8META_H
#define PROF_NODE_V8META_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Read len bytes of the process at addr into buf: 0 or -errno. */
typedef int (*v8_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len);

/* What prof reads of V8: constants (VC_), frame slots (VF_), field offsets (VO_),
 * instance types (VT_). */
enum v8_item {
	VC_HEAP_OBJECT_TAG, VC_HEAP_OBJECT_TAG_MASK, VC_SMI_TAG, VC_SMI_TAG_MASK, VC_SMI_SHIFT_SIZE,
	VC_TAGGED_SIZE, VC_POINTER_SIZE,
	VC_FIRST_NONSTRING_TYPE, VC_STRING_ENCODING_MASK, VC_STRING_REPRESENTATION_MASK,
	VC_SEQ_STRING_TAG, VC_CONS_STRING_TAG, VC_SLICED_STRING_TAG, VC_THIN_STRING_TAG, VC_EXTERNAL_STRING_TAG,
	VC_ONE_BYTE_STRING_TAG, VC_TWO_BYTE_STRING_TAG,
	VC_FIRST_CONTEXT_TYPE, VC_LAST_CONTEXT_TYPE, VC_FIRST_JS_FUNCTION_TYPE, VC_LAST_JS_FUNCTION_TYPE,
	VC_SCOPEINFO_FIRST_VARS, VC_SCOPEINFO_NCONTEXTLOCALS,
	VF_CONTEXT_OR_TYPE, VF_FUNCTION, VF_BYTECODE_ARRAY, VF_BYTECODE_OFFSET,
	VO_HEAP_OBJECT_MAP, VO_MAP_INSTANCE_TYPE,
	VO_JSFUNCTION_SHARED,
	VO_SFI_NAME_OR_SCOPE_INFO, VO_SFI_SCRIPT_OR_DEBUG_INFO, VO_SFI_FUNCTION_DATA,
	VO_SCRIPT_NAME, VO_SCRIPT_SOURCE, VO_SCRIPT_LINE_ENDS,
	VO_STRING_LENGTH, VO_SEQ_ONE_BYTE_CHARS, VO_SEQ_TWO_BYTE_CHARS, VO_CONS_FIRST, VO_CONS_SECOND,
	VO_SLICED_PARENT, VO_SLICED_OFFSET, VO_THIN_ACTUAL,
	VO_FIXED_ARRAY_LENGTH, VO_FIXED_ARRAY_DATA,
	/* optional: a compiled frame's code (frames.c) */
	VC_CODE_KIND_MASK, VC_CODE_KIND_SHIFT,
	VO_JSFUNCTION_CODE, VO_JSFUNCTION_FEEDBACK_CELL, VO_JSFUNCTION_PROTO,
	VO_CODE_INSTRUCTION_START, VO_CODE_INSTRUCTION_SIZE, VO_IS_INSTRUCTION_START, VO_CODE_BYTECODE,
	VT_MAP, VT_JS_FUNCTION, VT_SHARED_FUNCTION_INFO, VT_SCRIPT, VT_SCOPE_INFO, VT_FIXED_ARRAY, VT_BYTECODE_ARRAY,
	VT_CODE, VT_INSTRUCTION_STREAM,         /* optional */
	V8_ITEMS
};

#define V8_FRAME_TYPES 64

struct v8_meta {
	int64_t v[V8_ITEMS];
	bool found[V8_ITEMS];
	uint8_t alt[V8_ITEMS];          /* which of the item's names matched */
	char frame_type[V8_FRAME_TYPES][40]; /* frametype_* by marker value ("" unknown) */
	unsigned n_symbols;             /* v8dbg_* symbols seen */
	/* the file offsets [lo, hi) of V8's embedded builtins (its interpreter among
	 * them), from the object's .symtab (Builtins_*); 0, 0 when it has none */
	uint64_t builtins_lo, builtins_hi;
};

/* The item's name(s) as V8 spells them, without "v8dbg_" ("off_fp_function"). */
const char *v8_meta__item_name(enum v8_item i);

/* Start empty. */
void v8_meta__init(struct v8_meta *m);

/* Note one symbol (name with or without "v8dbg_", its int value): true when prof
 * uses it. */
bool v8_meta__note(struct v8_meta *m, const char *name, int64_t value);

/*
 * Check what was noted: every required item present, the tagging that of a 64-bit
 * V8 with 64-bit Smis (pointer compression is refused: not read yet), the frame slots
 * distinct, aligned and below the frame pointer, each field offset aligned inside a
 * small object, the instance types distinct and the string types below the first
 * non-string type.  0, or -ENOTSUP with why (one line naming the item).
 */
int v8_meta__check(const struct v8_meta *m, char *why, size_t why_len);

#endif
