/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The v8dbg_* values prof reads, as node v20.20.2's .dynsym gives them (V8 11.3),
 * for tests/unit/node.  Included by the test files.
 */
#ifndef PROF_TESTS_UNIT_NODE20_H
#define PROF_TESTS_UNIT_NODE20_H

#include "prof/node/v8meta.h"

static const struct { const char *name; int64_t value; } node20[] = {
	{ "v8dbg_HeapObjectTag", 1 }, { "v8dbg_HeapObjectTagMask", 3 }, { "v8dbg_SmiTag", 0 },
	{ "v8dbg_SmiTagMask", 1 }, { "v8dbg_SmiShiftSize", 31 }, { "v8dbg_TaggedSize", 8 },
	{ "v8dbg_SystemPointerSize", 8 }, { "v8dbg_FirstNonstringType", 128 }, { "v8dbg_StringEncodingMask", 8 },
	{ "v8dbg_StringRepresentationMask", 7 }, { "v8dbg_SeqStringTag", 0 }, { "v8dbg_ConsStringTag", 1 },
	{ "v8dbg_SlicedStringTag", 3 }, { "v8dbg_ThinStringTag", 5 }, { "v8dbg_ExternalStringTag", 2 },
	{ "v8dbg_OneByteStringTag", 8 }, { "v8dbg_TwoByteStringTag", 0 }, { "v8dbg_FirstContextType", 205 },
	{ "v8dbg_LastContextType", 214 }, { "v8dbg_scopeinfo_idx_first_vars", 3 },
	{ "v8dbg_scopeinfo_idx_ncontextlocals", 2 }, { "v8dbg_off_fp_context_or_frame_type", -8 },
	{ "v8dbg_off_fp_context", -8 }, { "v8dbg_off_fp_function", -16 }, { "v8dbg_off_fp_bytecode_array", -32 },
	{ "v8dbg_off_fp_bytecode_offset", -40 }, { "v8dbg_class_HeapObject__map__Map", 0 },
	{ "v8dbg_class_Map__instance_type__uint16_t", 12 }, { "v8dbg_class_JSFunction__shared__SharedFunctionInfo", 24 },
	{ "v8dbg_class_SharedFunctionInfo__name_or_scope_info__Object", 16 },
	{ "v8dbg_class_SharedFunctionInfo__script_or_debug_info__HeapObject", 32 },
	{ "v8dbg_class_SharedFunctionInfo__function_data__Object", 8 }, { "v8dbg_class_Script__name__Object", 16 },
	{ "v8dbg_class_Script__source__Object", 8 }, { "v8dbg_class_Script__line_ends__Object", 56 },
	{ "v8dbg_class_String__length__int32_t", 12 }, { "v8dbg_class_SeqOneByteString__chars__char", 16 },
	{ "v8dbg_class_SeqTwoByteString__chars__char", 16 }, { "v8dbg_class_ConsString__first__String", 16 },
	{ "v8dbg_class_ConsString__second__String", 24 }, { "v8dbg_class_SlicedString__parent__String", 16 },
	{ "v8dbg_class_SlicedString__offset__SMI", 24 }, { "v8dbg_class_ThinString__actual__String", 16 },
	{ "v8dbg_class_FixedArrayBase__length__SMI", 8 }, { "v8dbg_class_FixedArray__data__uintptr_t", 16 },
	{ "v8dbg_type_Map__MAP_TYPE", 255 }, { "v8dbg_type_JSFunction__JS_FUNCTION_TYPE", 2066 },
	{ "v8dbg_type_SharedFunctionInfo__SHARED_FUNCTION_INFO_TYPE", 262 }, { "v8dbg_type_Script__SCRIPT_TYPE", 167 },
	{ "v8dbg_type_ScopeInfo__SCOPE_INFO_TYPE", 261 }, { "v8dbg_type_FixedArray__FIXED_ARRAY_TYPE", 175 },
	{ "v8dbg_type_BytecodeArray__BYTECODE_ARRAY_TYPE", 191 }, { "v8dbg_frametype_EntryFrame", 1 },
	{ "v8dbg_frametype_ExitFrame", 3 }, { "v8dbg_frametype_InterpretedFrame", 13 },
	{ "v8dbg_frametype_InternalFrame", 22 }, { "v8dbg_frametype_StubFrame", 17 },
	/* a compiled frame's code (optional: node 20 has no JSFunction::code nor Code's
	 * instruction fields) */
	{ "v8dbg_class_JSFunction__raw_feedback_cell__FeedbackCell", 40 },
	{ "v8dbg_class_JSFunction__prototype_or_initial_map__HeapObject", 56 },
	{ "v8dbg_class_InstructionStream__instruction_start__uintptr_t", 16 },
	{ "v8dbg_class_Code__bytecode_or_interpreter_data__HeapObject", 16 },
	{ "v8dbg_type_Code__CODE_TYPE", 245 }, { "v8dbg_type_InstructionStream__INSTRUCTION_STREAM_TYPE", 252 },
	{ "v8dbg_CodeKindFieldMask", 15 }, { "v8dbg_CodeKindFieldShift", 0 },
	/* ones prof does not read */
	{ "v8dbg_class_Map__bit_field__char", 14 }, { "v8dbg_APIObjectType", 1058 },
};

static inline void node20_meta(struct v8_meta *m)
{
	v8_meta__init(m);
	for (size_t i = 0; i < sizeof(node20) / sizeof(node20[0]); i++)
		v8_meta__note(m, node20[i].name, node20[i].value);
}

#endif
