/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The checking of V8's postmortem metadata (src/node/v8meta.c) over node 20's values,
 * then each way a build's metadata can be missing or odd: refused in one line naming
 * the item.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "node20.h"

static char why[256];

Test(v8meta, node20_checks)
{
	struct v8_meta m;

	node20_meta(&m);
	cr_assert_eq(v8_meta__check(&m, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(m.v[VF_FUNCTION], -16);
	cr_assert_eq(m.v[VT_JS_FUNCTION], 2066);
	cr_assert_str_eq(m.frame_type[1], "EntryFrame");
	cr_assert_str_eq(m.frame_type[13], "InterpretedFrame");
	cr_assert_eq(m.frame_type[2][0], '\0');
	cr_assert_eq(m.n_symbols, sizeof(node20) / sizeof(node20[0]));
	/* the first name listed wins: off_fp_context_or_frame_type over off_fp_context */
	cr_assert_eq(m.alt[VF_CONTEXT_OR_TYPE], 0);
}

Test(v8meta, names_without_prefix_and_later_spellings)
{
	struct v8_meta m;

	node20_meta(&m);
	cr_assert(v8_meta__note(&m, "class_JSFunction__shared__Tagged_SharedFunctionInfo_", 40));
	/* a later V8's spelling is second in the list: the first one, noted, stays */
	cr_assert_eq(m.v[VO_JSFUNCTION_SHARED], 24);
	cr_assert(!v8_meta__note(&m, "v8dbg_not_an_item_prof_reads", 1));
	cr_assert(!v8_meta__note(&m, "frametype_Huge", 500));
}

Test(v8meta, each_required_item_missing_is_named)
{
	for (int i = 0; i < V8_ITEMS; i++) {
		struct v8_meta m;
		char first[128];
		const char *bar = strchr(v8_meta__item_name(i), '|');
		int n = bar ? (int)(bar - v8_meta__item_name(i)) : (int)strlen(v8_meta__item_name(i));

		node20_meta(&m);
		m.found[i] = false;
		snprintf(first, sizeof(first), "has no v8dbg_%.*s", n, v8_meta__item_name(i));
		if (i == VC_TAGGED_SIZE || i == VC_POINTER_SIZE || i == VO_SFI_FUNCTION_DATA ||
		    i == VC_FIRST_JS_FUNCTION_TYPE || i == VC_LAST_JS_FUNCTION_TYPE ||
		    (i >= VC_CODE_KIND_MASK && i <= VO_CODE_BYTECODE) || i == VT_CODE || i == VT_INSTRUCTION_STREAM) {
			cr_assert_eq(v8_meta__check(&m, why, sizeof(why)), 0, "optional %s: %s", first, why);
			continue;
		}
		cr_assert_eq(v8_meta__check(&m, why, sizeof(why)), -ENOTSUP, "%s accepted", first);
		cr_assert(strstr(why, first), "%s: %s", first, why);
	}
}

Test(v8meta, code_items)
{
	struct v8_meta m;

	/* node 20: the code slot and Code's instruction fields are not described */
	node20_meta(&m);
	cr_assert_eq(v8_meta__check(&m, why, sizeof(why)), 0, "%s", why);
	cr_assert(!m.found[VO_JSFUNCTION_CODE] && !m.found[VO_CODE_INSTRUCTION_SIZE]);
	cr_assert_eq(m.v[VO_JSFUNCTION_PROTO] - m.v[VO_JSFUNCTION_FEEDBACK_CELL], 16);
	cr_assert_eq(m.v[VT_INSTRUCTION_STREAM], 252);
	/* node 18's (Debian's libnode.so.108): all three are */
	cr_assert(v8_meta__note(&m, "v8dbg_class_JSFunction__code__CodeT", 48));
	cr_assert(v8_meta__note(&m, "v8dbg_class_Code__instruction_start__uintptr_t", 128));
	cr_assert(v8_meta__note(&m, "v8dbg_class_Code__instruction_size__int", 40));
	cr_assert_eq(v8_meta__check(&m, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(m.v[VO_JSFUNCTION_CODE], 48);
	/* an optional type is still one of its own */
	cr_assert(v8_meta__note(&m, "v8dbg_type_Code__CODE_TYPE", 2066));
	cr_assert_eq(v8_meta__check(&m, why, sizeof(why)), -ENOTSUP);
	cr_assert(strstr(why, "share an instance type"), "%s", why);
}

/* note name = value over node 20's, and expect a refusal naming the item */
static void odd(const char *name, int64_t value, const char *expect)
{
	struct v8_meta m;

	node20_meta(&m);
	v8_meta__note(&m, name, value);
	cr_assert_eq(v8_meta__check(&m, why, sizeof(why)), -ENOTSUP, "%s = %lld accepted", name, (long long)value);
	cr_assert(strstr(why, expect), "%s = %lld: %s", name, (long long)value, why);
}

Test(v8meta, flipped_constants_refused)
{
	odd("HeapObjectTag", 3, "v8dbg_HeapObjectTag is 3");
	odd("SmiTagMask", 3, "v8dbg_SmiTagMask is 3");
	odd("SmiShiftSize", 0, "31-bit Smis");
	odd("TaggedSize", 4, "compressed pointers");
	odd("off_fp_function", -12, "v8dbg_off_fp_function is -12");
	odd("off_fp_function", 16, "below the frame pointer");
	odd("off_fp_bytecode_offset", -16, "overlap or are out of order");
	odd("class_Map__instance_type__uint16_t", 8192, "first 4 KiB");
	odd("class_Script__name__Object", 12, "aligned word");
	odd("type_Script__SCRIPT_TYPE", 2066, "two kinds of object share an instance type");
	odd("type_Script__SCRIPT_TYPE", 70000, "uint16_t");
	odd("type_Script__SCRIPT_TYPE", 40, "below FirstNonstringType");
	odd("type_Script__SCRIPT_TYPE", 210, "among the contexts'");
	odd("FirstContextType", 300, "not a range");
	odd("ConsStringTag", 3, "share a tag");
	odd("ThinStringTag", 9, "outside its mask");
	odd("StringEncodingMask", 4, "not disjoint");
	odd("OneByteStringTag", 0, "two values of their mask");
	odd("scopeinfo_idx_first_vars", 2, "ScopeInfo header");
	odd("FirstJSFunctionType", 2000, "a range of function types");
}
