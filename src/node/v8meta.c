/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * V8's postmortem metadata: see include/prof/node/v8meta.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof/node/v8meta.h"

/* Bounds on what a build may claim (the file is the tenant's to choose). */
#define MAX_FIELD    4096       /* a field prof reads lies in an object's first 4 KiB */
#define MAX_FP_SLOT  256        /* a frame's fixed slots lie within 256 bytes of fp */
#define MAX_TYPE     0xffff     /* Map::instance_type is a uint16_t */

enum kind { CONST = 1, SLOT, FIELD, TAGGED, TYPE };
#define OPT 1u

/* The names of each item, '|'-separated, the newer V8's first. */
static const struct want {
	const char *names;
	uint8_t kind, flags;
} wants[V8_ITEMS] = {
	[VC_HEAP_OBJECT_TAG] = { "HeapObjectTag", CONST },
	[VC_HEAP_OBJECT_TAG_MASK] = { "HeapObjectTagMask", CONST },
	[VC_SMI_TAG] = { "SmiTag", CONST },
	[VC_SMI_TAG_MASK] = { "SmiTagMask", CONST },
	[VC_SMI_SHIFT_SIZE] = { "SmiShiftSize", CONST },
	[VC_TAGGED_SIZE] = { "TaggedSize", CONST, OPT },
	[VC_POINTER_SIZE] = { "SystemPointerSize", CONST, OPT },
	[VC_FIRST_NONSTRING_TYPE] = { "FirstNonstringType", CONST },
	[VC_STRING_ENCODING_MASK] = { "StringEncodingMask", CONST },
	[VC_STRING_REPRESENTATION_MASK] = { "StringRepresentationMask", CONST },
	[VC_SEQ_STRING_TAG] = { "SeqStringTag", CONST },
	[VC_CONS_STRING_TAG] = { "ConsStringTag", CONST },
	[VC_SLICED_STRING_TAG] = { "SlicedStringTag", CONST },
	[VC_THIN_STRING_TAG] = { "ThinStringTag", CONST },
	[VC_EXTERNAL_STRING_TAG] = { "ExternalStringTag", CONST },
	[VC_ONE_BYTE_STRING_TAG] = { "OneByteStringTag", CONST },
	[VC_TWO_BYTE_STRING_TAG] = { "TwoByteStringTag", CONST },
	[VC_FIRST_CONTEXT_TYPE] = { "FirstContextType", CONST },
	[VC_LAST_CONTEXT_TYPE] = { "LastContextType", CONST },
	[VC_FIRST_JS_FUNCTION_TYPE] = { "FirstJSFunctionType", CONST, OPT },
	[VC_LAST_JS_FUNCTION_TYPE] = { "LastJSFunctionType", CONST, OPT },
	[VC_SCOPEINFO_FIRST_VARS] = { "scopeinfo_idx_first_vars", CONST },
	[VC_SCOPEINFO_NCONTEXTLOCALS] = { "scopeinfo_idx_ncontextlocals", CONST },
	[VF_CONTEXT_OR_TYPE] = { "off_fp_context_or_frame_type|off_fp_context", SLOT },
	[VF_FUNCTION] = { "off_fp_function", SLOT },
	[VF_BYTECODE_ARRAY] = { "off_fp_bytecode_array", SLOT },
	[VF_BYTECODE_OFFSET] = { "off_fp_bytecode_offset", SLOT },
	[VO_HEAP_OBJECT_MAP] = { "class_HeapObject__map__Map|class_HeapObject__map__Tagged_Map_", TAGGED },
	[VO_MAP_INSTANCE_TYPE] = { "class_Map__instance_type__uint16_t", FIELD },
	[VO_JSFUNCTION_SHARED] = { "class_JSFunction__shared__SharedFunctionInfo|"
				   "class_JSFunction__shared__Tagged_SharedFunctionInfo_", TAGGED },
	[VO_SFI_NAME_OR_SCOPE_INFO] = { "class_SharedFunctionInfo__name_or_scope_info__Object|"
					"class_SharedFunctionInfo__name_or_scope_info__Tagged_Object_|"
					"class_SharedFunctionInfo__name_or_scope_info__Tagged_NameOrScopeInfoT_", TAGGED },
	[VO_SFI_SCRIPT_OR_DEBUG_INFO] = { "class_SharedFunctionInfo__script_or_debug_info__HeapObject|"
					  "class_SharedFunctionInfo__script_or_debug_info__Object|"
					  "class_SharedFunctionInfo__script__Tagged_HeapObject_", TAGGED },
	[VO_SFI_FUNCTION_DATA] = { "class_SharedFunctionInfo__function_data__Object|"
				   "class_SharedFunctionInfo__function_data__Tagged_Object_", TAGGED, OPT },
	[VO_SCRIPT_NAME] = { "class_Script__name__Object|class_Script__name__Tagged_Object_", TAGGED },
	[VO_SCRIPT_SOURCE] = { "class_Script__source__Object|class_Script__source__Tagged_Object_", TAGGED },
	[VO_SCRIPT_LINE_ENDS] = { "class_Script__line_ends__Object|class_Script__line_ends__Tagged_Object_", TAGGED },
	[VO_STRING_LENGTH] = { "class_String__length__int32_t", FIELD },
	[VO_SEQ_ONE_BYTE_CHARS] = { "class_SeqOneByteString__chars__char", FIELD },
	[VO_SEQ_TWO_BYTE_CHARS] = { "class_SeqTwoByteString__chars__char", FIELD },
	[VO_CONS_FIRST] = { "class_ConsString__first__String|class_ConsString__first__Tagged_String_", TAGGED },
	[VO_CONS_SECOND] = { "class_ConsString__second__String|class_ConsString__second__Tagged_String_", TAGGED },
	[VO_SLICED_PARENT] = { "class_SlicedString__parent__String|class_SlicedString__parent__Tagged_String_", TAGGED },
	[VO_SLICED_OFFSET] = { "class_SlicedString__offset__SMI", TAGGED },
	[VO_THIN_ACTUAL] = { "class_ThinString__actual__String|class_ThinString__actual__Tagged_String_", TAGGED },
	[VO_FIXED_ARRAY_LENGTH] = { "class_FixedArrayBase__length__SMI", TAGGED },
	[VO_FIXED_ARRAY_DATA] = { "class_FixedArray__data__uintptr_t", TAGGED },
	[VC_CODE_KIND_MASK] = { "CodeKindFieldMask", CONST, OPT },
	[VC_CODE_KIND_SHIFT] = { "CodeKindFieldShift", CONST, OPT },
	[VO_JSFUNCTION_CODE] = { "class_JSFunction__code__CodeT|class_JSFunction__code__Code|"
				 "class_JSFunction__code__Tagged_Code_", TAGGED, OPT },
	[VO_JSFUNCTION_FEEDBACK_CELL] = { "class_JSFunction__raw_feedback_cell__FeedbackCell|"
					  "class_JSFunction__raw_feedback_cell__Tagged_FeedbackCell_", TAGGED, OPT },
	[VO_JSFUNCTION_PROTO] = { "class_JSFunction__prototype_or_initial_map__HeapObject|"
				  "class_JSFunction__prototype_or_initial_map__Tagged_HeapObject_", TAGGED, OPT },
	[VO_CODE_INSTRUCTION_START] = { "class_Code__instruction_start__uintptr_t", FIELD, OPT },
	[VO_CODE_INSTRUCTION_SIZE] = { "class_Code__instruction_size__int", FIELD, OPT },
	[VO_IS_INSTRUCTION_START] = { "class_InstructionStream__instruction_start__uintptr_t", FIELD, OPT },
	[VO_CODE_BYTECODE] = { "class_Code__bytecode_or_interpreter_data__HeapObject|"
			       "class_Code__bytecode_or_interpreter_data__Tagged_HeapObject_", TAGGED, OPT },
	[VT_MAP] = { "type_Map__MAP_TYPE", TYPE },
	[VT_JS_FUNCTION] = { "type_JSFunction__JS_FUNCTION_TYPE", TYPE },
	[VT_SHARED_FUNCTION_INFO] = { "type_SharedFunctionInfo__SHARED_FUNCTION_INFO_TYPE", TYPE },
	[VT_SCRIPT] = { "type_Script__SCRIPT_TYPE", TYPE },
	[VT_SCOPE_INFO] = { "type_ScopeInfo__SCOPE_INFO_TYPE", TYPE },
	[VT_FIXED_ARRAY] = { "type_FixedArray__FIXED_ARRAY_TYPE", TYPE },
	[VT_BYTECODE_ARRAY] = { "type_BytecodeArray__BYTECODE_ARRAY_TYPE", TYPE },
	[VT_CODE] = { "type_Code__CODE_TYPE", TYPE, OPT },
	[VT_INSTRUCTION_STREAM] = { "type_InstructionStream__INSTRUCTION_STREAM_TYPE", TYPE, OPT },
};

const char *v8_meta__item_name(enum v8_item i)
{
	return (unsigned)i < V8_ITEMS ? wants[i].names : "?";
}

void v8_meta__init(struct v8_meta *m)
{
	memset(m, 0, sizeof(*m));
}

/* Is name the alt-th of the '|'-separated names? */
static int alt_of(const char *names, const char *name)
{
	size_t len = strlen(name);
	int alt = 0;

	for (const char *p = names; *p; alt++) {
		const char *bar = strchr(p, '|');
		size_t n = bar ? (size_t)(bar - p) : strlen(p);

		if (n == len && memcmp(p, name, n) == 0)
			return alt;
		p += n + (bar ? 1 : 0);
	}
	return -1;
}

bool v8_meta__note(struct v8_meta *m, const char *name, int64_t value)
{
	bool used = false;

	if (strncmp(name, "v8dbg_", 6) == 0)
		name += 6;
	m->n_symbols++;
	if (strncmp(name, "frametype_", 10) == 0) {
		if (value >= 0 && value < V8_FRAME_TYPES) {
			snprintf(m->frame_type[value], sizeof(m->frame_type[value]), "%s", name + 10);
			used = true;
		}
		return used;
	}
	for (int i = 0; i < V8_ITEMS; i++) {
		int alt = alt_of(wants[i].names, name);

		if (alt < 0)
			continue;
		used = true;
		/* the first name listed wins where a build has two */
		if (m->found[i] && m->alt[i] < alt)
			continue;
		m->v[i] = value;
		m->found[i] = true;
		m->alt[i] = (uint8_t)alt;
	}
	return used;
}

/* The first name of item i, for a message. */
static void first_name(enum v8_item i, char *buf, size_t len)
{
	const char *bar = strchr(wants[i].names, '|');
	size_t n = bar ? (size_t)(bar - wants[i].names) : strlen(wants[i].names);

	snprintf(buf, len, "v8dbg_%.*s", (int)(n < 120 ? n : 120), wants[i].names);
}

static int odd(enum v8_item i, const struct v8_meta *m, const char *what, char *why, size_t why_len)
{
	char name[128];

	first_name(i, name, sizeof(name));
	snprintf(why, why_len, "its %s is %lld: %s", name, (long long)m->v[i], what);
	return -ENOTSUP;
}

/* Each item on its own. */
static int check_items(const struct v8_meta *m, char *why, size_t why_len)
{
	for (int i = 0; i < V8_ITEMS; i++) {
		int64_t v = m->v[i];

		if (!m->found[i]) {
			char name[128];

			if (wants[i].flags & OPT)
				continue;
			first_name(i, name, sizeof(name));
			snprintf(why, why_len, "its V8 metadata has no %s", name);
			return -ENOTSUP;
		}
		switch (wants[i].kind) {
		case SLOT:
			if (v >= 0 || v < -MAX_FP_SLOT || v % 8)
				return odd(i, m, "a frame slot is an aligned word below the frame pointer", why, why_len);
			break;
		case FIELD:
			if (v < 0 || v >= MAX_FIELD)
				return odd(i, m, "a field lies in an object's first 4 KiB", why, why_len);
			break;
		case TAGGED:
			if (v < 0 || v >= MAX_FIELD || v % 8)
				return odd(i, m, "a tagged field is an aligned word in an object's first 4 KiB", why,
					   why_len);
			break;
		case TYPE:
			if (v <= 0 || v > MAX_TYPE)
				return odd(i, m, "an instance type is a uint16_t", why, why_len);
			break;
		}
	}
	return 0;
}

int v8_meta__check(const struct v8_meta *m, char *why, size_t why_len)
{
	const int64_t *v = m->v;
	int err;

	if ((err = check_items(m, why, why_len)) < 0)
		return err;
	if (v[VC_HEAP_OBJECT_TAG_MASK] != 3 || v[VC_HEAP_OBJECT_TAG] != 1)
		return odd(VC_HEAP_OBJECT_TAG, m, "not the tagging prof reads (HeapObjectTag 1 under mask 3)", why,
			   why_len);
	if (v[VC_SMI_TAG_MASK] != 1 || v[VC_SMI_TAG] != 0)
		return odd(VC_SMI_TAG_MASK, m, "not the Smi tagging prof reads (tag 0 under mask 1)", why, why_len);
	if (v[VC_SMI_SHIFT_SIZE] != 31)
		return odd(VC_SMI_SHIFT_SIZE, m, "31-bit Smis (a build with pointer compression: not read yet)", why,
			   why_len);
	if (m->found[VC_TAGGED_SIZE] && v[VC_TAGGED_SIZE] != 8)
		return odd(VC_TAGGED_SIZE, m, "compressed pointers (not read yet)", why, why_len);
	if (m->found[VC_POINTER_SIZE] && v[VC_POINTER_SIZE] != 8)
		return odd(VC_POINTER_SIZE, m, "not a 64-bit V8", why, why_len);
	if (v[VF_FUNCTION] == v[VF_CONTEXT_OR_TYPE] || v[VF_BYTECODE_ARRAY] == v[VF_BYTECODE_OFFSET] ||
	    v[VF_BYTECODE_ARRAY] >= v[VF_FUNCTION] || v[VF_BYTECODE_OFFSET] >= v[VF_FUNCTION])
		return odd(VF_FUNCTION, m, "the frame's slots overlap or are out of order", why, why_len);
	if (v[VC_FIRST_NONSTRING_TYPE] <= 0 || v[VC_FIRST_NONSTRING_TYPE] > MAX_TYPE ||
	    (v[VC_STRING_REPRESENTATION_MASK] & v[VC_STRING_ENCODING_MASK]) ||
	    v[VC_STRING_REPRESENTATION_MASK] <= 0 || v[VC_STRING_ENCODING_MASK] <= 0)
		return odd(VC_STRING_REPRESENTATION_MASK, m, "the string masks are not disjoint bits of a string type",
			   why, why_len);
	for (int i = VC_SEQ_STRING_TAG; i <= VC_EXTERNAL_STRING_TAG; i++) {
		if (v[i] & ~v[VC_STRING_REPRESENTATION_MASK])
			return odd(i, m, "a representation tag outside its mask", why, why_len);
		for (int j = VC_SEQ_STRING_TAG; j < i; j++)
			if (v[i] == v[j])
				return odd(i, m, "two string representations share a tag", why, why_len);
	}
	if ((v[VC_ONE_BYTE_STRING_TAG] & ~v[VC_STRING_ENCODING_MASK]) ||
	    (v[VC_TWO_BYTE_STRING_TAG] & ~v[VC_STRING_ENCODING_MASK]) ||
	    v[VC_ONE_BYTE_STRING_TAG] == v[VC_TWO_BYTE_STRING_TAG])
		return odd(VC_ONE_BYTE_STRING_TAG, m, "the encodings are not two values of their mask", why, why_len);
	if (v[VC_FIRST_CONTEXT_TYPE] <= 0 || v[VC_FIRST_CONTEXT_TYPE] > v[VC_LAST_CONTEXT_TYPE] ||
	    v[VC_LAST_CONTEXT_TYPE] > MAX_TYPE)
		return odd(VC_FIRST_CONTEXT_TYPE, m, "not a range of instance types", why, why_len);
	if (m->found[VC_FIRST_JS_FUNCTION_TYPE] != m->found[VC_LAST_JS_FUNCTION_TYPE] ||
	    (m->found[VC_FIRST_JS_FUNCTION_TYPE] &&
	     (v[VC_FIRST_JS_FUNCTION_TYPE] > v[VT_JS_FUNCTION] || v[VC_LAST_JS_FUNCTION_TYPE] < v[VT_JS_FUNCTION])))
		return odd(VC_FIRST_JS_FUNCTION_TYPE, m, "a range of function types without JS_FUNCTION_TYPE", why,
			   why_len);
	for (int i = VT_MAP; i < V8_ITEMS; i++) {
		if (!m->found[i])
			continue;       /* an optional one */
		if (v[i] < v[VC_FIRST_NONSTRING_TYPE])
			return odd(i, m, "a non-string's type below FirstNonstringType", why, why_len);
		if (v[i] >= v[VC_FIRST_CONTEXT_TYPE] && v[i] <= v[VC_LAST_CONTEXT_TYPE])
			return odd(i, m, "an object's type among the contexts'", why, why_len);
		for (int j = VT_MAP; j < i; j++)
			if (m->found[j] && v[i] == v[j])
				return odd(i, m, "two kinds of object share an instance type", why, why_len);
	}
	if (v[VC_SCOPEINFO_NCONTEXTLOCALS] < 0 || v[VC_SCOPEINFO_FIRST_VARS] <= v[VC_SCOPEINFO_NCONTEXTLOCALS] ||
	    v[VC_SCOPEINFO_FIRST_VARS] > 16)
		return odd(VC_SCOPEINFO_FIRST_VARS, m, "not the ScopeInfo header prof parses", why, why_len);
	return 0;
}
