/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The reading of HotSpot's self-description (src/jvm/vmstructs.c) over tables laid
 * out as libjvm.so lays them out (VMStructEntry, VMTypeEntry, VMIntConstantEntry,
 * VMLongConstantEntry), in this process's memory: the sizes and offsets of Debian's
 * OpenJDK 17.0.15 where they matter, then the ways a JVM's tables can be wrong.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "prof/jvm/vmstructs.h"

/* HotSpot's entry layouts (vmStructs.hpp), strides as its sizeof gives them */
struct s_entry { const char *type, *field, *type_string; int32_t is_static; uint64_t offset; void *address; };
struct t_entry { const char *type, *super; int32_t is_oop, is_int, is_unsigned; uint64_t size; };
struct i_entry { const char *name; int32_t value; };
struct l_entry { const char *name; uint64_t value; };

static int32_t major = 17, minor = 0, security = 15, build = 6;
static const char *release = "17.0.15+6-Debian-1deb12u1";
static void *heaps, *low, *high;

#define F(t, f, o) { t, f, NULL, 0, o, NULL }
#define S(t, f, a) { t, f, NULL, 1, 0, (void *)(a) }
static struct s_entry structs[128] = {
	F("CodeBlob", "_name", 96), F("CodeBlob", "_size", 12), F("CodeBlob", "_data_offset", 24),
	F("CodeBlob", "_frame_size", 28), F("CodeBlob", "_code_begin", 32), F("CodeBlob", "_code_end", 40),
	F("CodeHeap", "_memory", 8), F("CodeHeap", "_segmap", 120), F("CodeHeap", "_log2_segment_size", 320),
	F("VirtualSpace", "_low_boundary", 0), F("VirtualSpace", "_high_boundary", 8), F("VirtualSpace", "_high", 24),
	F("GrowableArrayBase", "_len", 0), F("GrowableArray<int>", "_data", 16),
	F("ConstantPool", "_pool_holder", 24), F("ConstantPool", "_length", 56),
	F("ConstantPool", "_source_file_name_index", 66),
	F("ConstMethod", "_constants", 8), F("ConstMethod", "_code_size", 38), F("ConstMethod", "_flags", 32),
	F("ConstMethod", "_name_index", 40), F("ConstMethod", "_signature_index", 42),
	F("Klass", "_name", 24), F("Method", "_constMethod", 8),
	F("nmethod", "_compile_id", 308), F("CompiledMethod", "_method", 112), F("nmethod", "_entry_bci", 216),
	F("nmethod", "_comp_level", 312), F("nmethod", "_metadata_offset", 264), F("nmethod", "_scopes_pcs_offset", 268),
	F("CompiledMethod", "_scopes_data_begin", 168), F("nmethod", "_dependencies_offset", 272),
	F("PcDesc", "_pc_offset", 0), F("PcDesc", "_scope_decode_offset", 4),
	F("Symbol", "_length", 4), F("Symbol", "_body", 6),
	S("CodeCache", "_heaps", &heaps), S("CodeCache", "_low_bound", &low), S("CodeCache", "_high_bound", &high),
	S("Abstract_VM_Version", "_s_vm_release", &release), S("Abstract_VM_Version", "_vm_major_version", &major),
	S("Abstract_VM_Version", "_vm_minor_version", &minor),
	S("Abstract_VM_Version", "_vm_security_version", &security),
	S("Abstract_VM_Version", "_vm_build_number", &build),
	F("Thread", "_a_field_prof_does_not_read", 8),
};
#define T(t, s) { t, NULL, 0, 0, 0, s }
static struct t_entry types[64] = {
	T("CodeBlob", 104), T("CodeHeap", 344), T("ConstantPool", 72), T("ConstMethod", 48), T("HeapBlock", 16),
	T("InstanceKlass", 464), T("Klass", 208), T("Method", 88), T("nmethod", 352), T("PcDesc", 16),
	T("Symbol", 8), T("GrowableArray<int>", 24), T("VirtualSpace", 112), T("GrowableArrayBase", 8),
	T("jboolean", 1),
};
static struct i_entry ints[8] = { { "frame::interpreter_frame_last_sp_offset", -2 }, { "Klass::_lh_neutral_value", 0 } };
static struct l_entry longs[4] = { { "markWord::hash_mask", 0x7fffffff } };

static struct s_entry *structs_at = structs;
static struct t_entry *types_at = types;
static struct i_entry *ints_at = ints;
static struct l_entry *longs_at = longs;
static uint64_t vals[JVM_TABLES][JVM_SYMS];

/* As process_vm_readv reads a process: whatever is mapped, past a string's end too
 * (read_str asks for the rest of the page), so not under AddressSanitizer's eye. */
__attribute__((no_sanitize("address"))) static int read_self(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const volatile uint8_t *from = (const volatile uint8_t *)(uintptr_t)addr;
	uint8_t *to = buf;

	(void)ctx;
	for (size_t i = 0; i < len; i++)
		to[i] = from[i];
	return 0;
}

/* The .dynsym's view: each symbol the address of its value here (bias 0). */
static void syms_of(struct jvm_syms *s)
{
	memset(s, 0, sizeof(*s));
	vals[JVM_STRUCTS][JVM_SYM_STRIDE] = sizeof(struct s_entry);
	vals[JVM_STRUCTS][JVM_SYM_TYPE_NAME] = offsetof(struct s_entry, type);
	vals[JVM_STRUCTS][JVM_SYM_FIELD_NAME] = offsetof(struct s_entry, field);
	vals[JVM_STRUCTS][JVM_SYM_IS_STATIC] = offsetof(struct s_entry, is_static);
	vals[JVM_STRUCTS][JVM_SYM_OFFSET] = offsetof(struct s_entry, offset);
	vals[JVM_STRUCTS][JVM_SYM_ADDRESS] = offsetof(struct s_entry, address);
	vals[JVM_TYPES][JVM_SYM_STRIDE] = sizeof(struct t_entry);
	vals[JVM_TYPES][JVM_SYM_TYPE_NAME] = offsetof(struct t_entry, type);
	vals[JVM_TYPES][JVM_SYM_SIZE] = offsetof(struct t_entry, size);
	vals[JVM_INTS][JVM_SYM_STRIDE] = sizeof(struct i_entry);
	vals[JVM_INTS][JVM_SYM_NAME] = offsetof(struct i_entry, name);
	vals[JVM_INTS][JVM_SYM_VALUE] = offsetof(struct i_entry, value);
	vals[JVM_LONGS][JVM_SYM_STRIDE] = sizeof(struct l_entry);
	vals[JVM_LONGS][JVM_SYM_NAME] = offsetof(struct l_entry, name);
	vals[JVM_LONGS][JVM_SYM_VALUE] = offsetof(struct l_entry, value);
	for (int t = 0; t < JVM_TABLES; t++)
		for (int i = 1; i < JVM_SYMS; i++)
			if (jvm_syms__name(t, i))
				s->a[t][i] = (uint64_t)(uintptr_t)&vals[t][i];
	s->a[JVM_STRUCTS][JVM_SYM_BASE] = (uint64_t)(uintptr_t)&structs_at;
	s->a[JVM_TYPES][JVM_SYM_BASE] = (uint64_t)(uintptr_t)&types_at;
	s->a[JVM_INTS][JVM_SYM_BASE] = (uint64_t)(uintptr_t)&ints_at;
	s->a[JVM_LONGS][JVM_SYM_BASE] = (uint64_t)(uintptr_t)&longs_at;
}

static struct s_entry *find_struct(const char *type, const char *field)
{
	for (struct s_entry *e = structs; e->type; e++)
		if (!strcmp(e->type, type) && !strcmp(e->field, field))
			return e;
	cr_assert_fail("no %s.%s in the table", type, field);
	__builtin_unreachable();
}

static void append_struct(struct s_entry e)
{
	struct s_entry *at = structs;

	while (at->type)
		at++;
	*at = e;
}

Test(jvm_vmstructs, reads_a_jdk17_table)
{
	struct jvm_layout l;
	struct jvm_syms s;
	char why[256];

	syms_of(&s);
	cr_assert_null(jvm_syms__missing(&s));
	cr_assert_eq(jvm_layout__read(&l, &s, 0, read_self, NULL, why, sizeof(why)), 0, "%s", why);
	cr_expect_eq(l.version, 17u << 24 | 15u << 8 | 6u);
	cr_expect_str_eq(l.release, release);
	cr_expect_eq(l.v[JT_NMETHOD], 352);
	cr_expect_eq(l.v[JF_NM_COMPILE_ID], 308);
	cr_expect_eq(l.v[JF_NM_METHOD], 112, "CompiledMethod's _method is the nmethod's");
	cr_expect_eq(l.v[JS_CODE_HEAPS], (uint64_t)(uintptr_t)&heaps);
	cr_expect_eq(l.v[JC_FRAME_LAST_SP], (uint64_t)-2);
	cr_expect_eq(l.v[JC_FRAME_METHOD], JVM_NONE, "what a JVM does not export stays unfound");
	cr_expect_eq(l.v[JF_IK_SOURCE_FILE], JVM_NONE);
	/* JDK 17 has _code_begin/_code_end and an unrelated _data_offset: pointers */
	cr_expect_eq(l.v[JF_BLOB_CODE_END], 40);
	cr_expect_not(l.blob_offsets);
	cr_expect_not(l.immutable);
	cr_expect_not(l.mutable_md);
	cr_expect_eq(l.u5_x, 0);
	cr_expect_eq(l.entries, 45 + 15 + 2 + 1);
}

Test(jvm_vmstructs, code_offsets_where_a_jdk_has_no_code_begin)
{
	struct jvm_layout l;
	struct jvm_syms s;
	char why[256];

	find_struct("CodeBlob", "_code_begin")->field = "_code_offset";
	find_struct("CodeBlob", "_code_end")->field = "_not_read";
	syms_of(&s);
	cr_assert_eq(jvm_layout__read(&l, &s, 0, read_self, NULL, why, sizeof(why)), 0, "%s", why);
	cr_expect(l.blob_offsets);
	cr_expect_eq(l.v[JF_BLOB_CODE_BEGIN], 32);
	cr_expect_eq(l.v[JF_BLOB_CODE_END], 24, "the code ends where the data starts");
}

Test(jvm_vmstructs, one_jdks_names_are_not_mixed)
{
	struct jvm_layout l;
	struct jvm_syms s;
	char why[256];

	/* _code_offset (JDK 23+) beside _code_end (up to 22): no one JDK has both alone */
	find_struct("CodeBlob", "_code_begin")->field = "_code_offset";
	find_struct("CodeBlob", "_data_offset")->field = "_unrelated";
	syms_of(&s);
	cr_assert_eq(jvm_layout__read(&l, &s, 0, read_self, NULL, why, sizeof(why)), -ENOTSUP);
	cr_expect(strstr(why, "_code_offset") && strstr(why, "_data_offset"), "%s", why);
}

Test(jvm_vmstructs, a_missing_field_is_named)
{
	struct jvm_layout l;
	struct jvm_syms s;
	char why[256];

	find_struct("nmethod", "_compile_id")->field = "_compile_number";
	syms_of(&s);
	cr_assert_eq(jvm_layout__read(&l, &s, 0, read_self, NULL, why, sizeof(why)), -ENOTSUP);
	cr_expect(strstr(why, "nmethod._compile_id"), "%s", why);
}

Test(jvm_vmstructs, an_offset_past_its_class)
{
	struct jvm_layout l;
	struct jvm_syms s;
	char why[256];

	find_struct("Symbol", "_body")->offset = 8;
	syms_of(&s);
	cr_assert_eq(jvm_layout__read(&l, &s, 0, read_self, NULL, why, sizeof(why)), -ENOTSUP);
	cr_expect(strstr(why, "Symbol._body") && strstr(why, "past"), "%s", why);
}

Test(jvm_vmstructs, a_class_larger_than_a_jvm_has)
{
	struct jvm_layout l;
	struct jvm_syms s;
	char why[256];

	types[8].size = 1u << 20;
	syms_of(&s);
	cr_assert_eq(jvm_layout__read(&l, &s, 0, read_self, NULL, why, sizeof(why)), -ENOTSUP);
	cr_expect(strstr(why, "nmethod"), "%s", why);
}

Test(jvm_vmstructs, a_stride_past_the_bound)
{
	struct jvm_layout l;
	struct jvm_syms s;
	char why[256];

	syms_of(&s);
	vals[JVM_TYPES][JVM_SYM_STRIDE] = 300;
	cr_assert_eq(jvm_layout__read(&l, &s, 0, read_self, NULL, why, sizeof(why)), -ENOTSUP);
	cr_expect(strstr(why, "stride"), "%s", why);
}

Test(jvm_vmstructs, a_name_offset_past_the_stride)
{
	struct jvm_layout l;
	struct jvm_syms s;
	char why[256];

	syms_of(&s);
	vals[JVM_STRUCTS][JVM_SYM_ADDRESS] = 44;
	cr_assert_eq(jvm_layout__read(&l, &s, 0, read_self, NULL, why, sizeof(why)), -ENOTSUP);
	cr_expect(strstr(why, "gHotSpotVMStructEntryAddressOffset"), "%s", why);
}

Test(jvm_vmstructs, a_jvm_still_starting)
{
	struct jvm_layout l;
	struct jvm_syms s;
	char why[256];

	syms_of(&s);
	types_at = NULL;
	cr_expect_eq(jvm_layout__read(&l, &s, 0, read_self, NULL, why, sizeof(why)), -EAGAIN);
	types_at = types;
}

Test(jvm_vmstructs, a_libjvm_without_every_symbol)
{
	struct jvm_layout l;
	struct jvm_syms s;
	char why[256];

	syms_of(&s);
	s.a[JVM_LONGS][JVM_SYM_VALUE] = 0;
	cr_expect_str_eq(jvm_syms__missing(&s), "gHotSpotVMLongConstantEntryValueOffset");
	cr_assert_eq(jvm_layout__read(&l, &s, 0, read_self, NULL, why, sizeof(why)), -ENOTSUP);
	cr_expect(strstr(why, "gHotSpotVMLongConstantEntryValueOffset"), "%s", why);
}

Test(jvm_vmstructs, jdk25s_layout_and_unsigned5)
{
	struct jvm_layout l;
	struct jvm_syms s;
	char why[256];

	major = 25, security = 3, build = 9;
	find_struct("nmethod", "_dependencies_offset")->field = "_immutable_data";
	find_struct("nmethod", "_metadata_offset")->field = "_immutable_data_size";
	find_struct("CompiledMethod", "_scopes_data_begin")->field = "_scopes_data_offset";
	append_struct((struct s_entry)F("CodeBlob", "_mutable_data", 48));
	append_struct((struct s_entry)F("CodeBlob", "_relocation_size", 16));
	append_struct((struct s_entry)F("CodeBlob", "_mutable_data_size", 20));
	syms_of(&s);
	cr_assert_eq(jvm_layout__read(&l, &s, 0, read_self, NULL, why, sizeof(why)), 0, "%s", why);
	cr_expect(l.immutable);
	cr_expect(l.mutable_md);
	cr_expect_eq(l.u5_x, 1);
	cr_expect_eq(l.v[JF_NM_METADATA_OFFSET], JVM_NONE);
}
