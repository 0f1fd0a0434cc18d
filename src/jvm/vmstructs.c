/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * HotSpot's self-description tables: see include/prof/jvm/vmstructs.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "prof/base/util.h"
#include "prof/jvm/vmstructs.h"

/* Bounds on what a process may claim (its tables are the tenant's memory). */
#define MAX_STRIDE   256
#define MAX_ENTRIES  (1u << 17)
#define MAX_CLASS    (64u * 1024)

static const char *const sym_names[JVM_TABLES][JVM_SYMS] = {
	[JVM_STRUCTS] = {
		[JVM_SYM_BASE] = "gHotSpotVMStructs",
		[JVM_SYM_STRIDE] = "gHotSpotVMStructEntryArrayStride",
		[JVM_SYM_TYPE_NAME] = "gHotSpotVMStructEntryTypeNameOffset",
		[JVM_SYM_FIELD_NAME] = "gHotSpotVMStructEntryFieldNameOffset",
		[JVM_SYM_IS_STATIC] = "gHotSpotVMStructEntryIsStaticOffset",
		[JVM_SYM_OFFSET] = "gHotSpotVMStructEntryOffsetOffset",
		[JVM_SYM_ADDRESS] = "gHotSpotVMStructEntryAddressOffset",
	},
	[JVM_TYPES] = {
		[JVM_SYM_BASE] = "gHotSpotVMTypes",
		[JVM_SYM_STRIDE] = "gHotSpotVMTypeEntryArrayStride",
		[JVM_SYM_TYPE_NAME] = "gHotSpotVMTypeEntryTypeNameOffset",
		[JVM_SYM_SIZE] = "gHotSpotVMTypeEntrySizeOffset",
	},
	[JVM_INTS] = {
		[JVM_SYM_BASE] = "gHotSpotVMIntConstants",
		[JVM_SYM_STRIDE] = "gHotSpotVMIntConstantEntryArrayStride",
		[JVM_SYM_NAME] = "gHotSpotVMIntConstantEntryNameOffset",
		[JVM_SYM_VALUE] = "gHotSpotVMIntConstantEntryValueOffset",
	},
	[JVM_LONGS] = {
		[JVM_SYM_BASE] = "gHotSpotVMLongConstants",
		[JVM_SYM_STRIDE] = "gHotSpotVMLongConstantEntryArrayStride",
		[JVM_SYM_NAME] = "gHotSpotVMLongConstantEntryNameOffset",
		[JVM_SYM_VALUE] = "gHotSpotVMLongConstantEntryValueOffset",
	},
};

const char *jvm_syms__name(enum jvm_table t, enum jvm_sym s)
{
	return sym_names[t][s];
}

const char *jvm_syms__missing(const struct jvm_syms *s)
{
	for (int t = 0; t < JVM_TABLES; t++)
		for (int i = 0; i < JVM_SYMS; i++)
			if (sym_names[t][i] && !s->a[t][i])
				return sym_names[t][i];
	return NULL;
}

enum kind { SIZE = 1, FIELD, STATIC, INT };
#define OPT 1u

/*
 * The items wanted: the class (or classes) naming them and the field's names, each
 * list '|'-separated in the order preferred (a later JDK's name first where an
 * older name still exists beside it with another meaning: JDK 17's CodeBlob has
 * both _code_end and _data_offset).  cls: the class whose size bounds a field.
 */
static const struct want {
	const char *types, *names;
	uint8_t kind, flags;
	uint8_t cls;
} wants[JVM_ITEMS] = {
	[JT_CODEBLOB] = { "CodeBlob", NULL, SIZE },
	[JT_CODEHEAP] = { "CodeHeap", NULL, SIZE },
	[JT_CONSTANTPOOL] = { "ConstantPool", NULL, SIZE },
	[JT_CONSTMETHOD] = { "ConstMethod", NULL, SIZE },
	[JT_HEAPBLOCK] = { "HeapBlock", NULL, SIZE },
	[JT_INSTANCEKLASS] = { "InstanceKlass", NULL, SIZE },
	[JT_KLASS] = { "Klass", NULL, SIZE },
	[JT_METHOD] = { "Method", NULL, SIZE },
	[JT_NMETHOD] = { "nmethod", NULL, SIZE },
	[JT_PCDESC] = { "PcDesc", NULL, SIZE },
	[JT_SYMBOL] = { "Symbol", NULL, SIZE },
	[JT_GROWABLE] = { "GrowableArray<int>", NULL, SIZE },
	[JT_VIRTUALSPACE] = { "VirtualSpace", NULL, SIZE },
	[JT_GROWABLE_BASE] = { "GrowableArrayBase|GenericGrowableArray", NULL, SIZE },
	[JF_BLOB_NAME] = { "CodeBlob", "_name", FIELD, 0, JT_CODEBLOB },
	[JF_BLOB_SIZE] = { "CodeBlob", "_size", FIELD, 0, JT_CODEBLOB },
	[JF_BLOB_CODE_BEGIN] = { "CodeBlob", "_code_begin|_code_offset", FIELD, 0, JT_CODEBLOB },
	[JF_BLOB_CODE_END] = { "CodeBlob", "_code_end|_data_offset", FIELD, 0, JT_CODEBLOB },
	[JF_BLOB_FRAME_SIZE] = { "CodeBlob", "_frame_size", FIELD, 0, JT_CODEBLOB },
	[JF_BLOB_FRAME_COMPLETE] = { "CodeBlob", "_frame_complete_offset", FIELD, OPT, JT_CODEBLOB },
	[JF_BLOB_MUTABLE_DATA] = { "CodeBlob", "_mutable_data", FIELD, OPT, JT_CODEBLOB },
	[JF_BLOB_RELOC_SIZE] = { "CodeBlob", "_relocation_size", FIELD, OPT, JT_CODEBLOB },
	[JF_BLOB_MUTABLE_SIZE] = { "CodeBlob", "_mutable_data_size", FIELD, OPT, JT_CODEBLOB },
	[JF_HEAP_MEMORY] = { "CodeHeap", "_memory", FIELD, 0, JT_CODEHEAP },
	[JF_HEAP_SEGMAP] = { "CodeHeap", "_segmap", FIELD, 0, JT_CODEHEAP },
	[JF_HEAP_LOG2_SEGMENT] = { "CodeHeap", "_log2_segment_size", FIELD, 0, JT_CODEHEAP },
	[JF_VS_LOW_BOUNDARY] = { "VirtualSpace", "_low_boundary", FIELD, 0, JT_VIRTUALSPACE },
	[JF_VS_HIGH_BOUNDARY] = { "VirtualSpace", "_high_boundary", FIELD, 0, JT_VIRTUALSPACE },
	[JF_VS_HIGH] = { "VirtualSpace", "_high", FIELD, 0, JT_VIRTUALSPACE },
	[JF_GA_LEN] = { "GrowableArrayBase|GenericGrowableArray", "_len", FIELD, 0, JT_GROWABLE },
	[JF_GA_DATA] = { "GrowableArray<int>", "_data", FIELD, 0, JT_GROWABLE },
	[JF_CP_HOLDER] = { "ConstantPool", "_pool_holder", FIELD, 0, JT_CONSTANTPOOL },
	[JF_CP_LENGTH] = { "ConstantPool", "_length", FIELD, 0, JT_CONSTANTPOOL },
	[JF_CP_SOURCE_FILE] = { "ConstantPool", "_source_file_name_index", FIELD, OPT, JT_CONSTANTPOOL },
	[JF_IK_SOURCE_FILE] = { "InstanceKlass", "_source_file_name_index", FIELD, OPT, JT_INSTANCEKLASS },
	[JF_CM_CONSTANTS] = { "ConstMethod", "_constants", FIELD, 0, JT_CONSTMETHOD },
	[JF_CM_CODE_SIZE] = { "ConstMethod", "_code_size", FIELD, 0, JT_CONSTMETHOD },
	[JF_CM_FLAGS] = { "ConstMethod", "_flags._flags|_flags", FIELD, 0, JT_CONSTMETHOD },
	[JF_CM_NAME_INDEX] = { "ConstMethod", "_name_index", FIELD, 0, JT_CONSTMETHOD },
	[JF_CM_SIGNATURE_INDEX] = { "ConstMethod", "_signature_index", FIELD, 0, JT_CONSTMETHOD },
	[JF_KLASS_NAME] = { "Klass", "_name", FIELD, 0, JT_KLASS },
	[JF_METHOD_CONST_METHOD] = { "Method", "_constMethod", FIELD, 0, JT_METHOD },
	[JF_NM_COMPILE_ID] = { "nmethod", "_compile_id", FIELD, 0, JT_NMETHOD },
	[JF_NM_METHOD] = { "nmethod|CompiledMethod", "_method", FIELD, 0, JT_NMETHOD },
	[JF_NM_ENTRY_BCI] = { "nmethod", "_entry_bci", FIELD, OPT, JT_NMETHOD },
	[JF_NM_COMP_LEVEL] = { "nmethod", "_comp_level", FIELD, OPT, JT_NMETHOD },
	[JF_NM_METADATA_OFFSET] = { "nmethod", "_metadata_offset", FIELD, OPT, JT_NMETHOD },
	[JF_NM_SCOPES_PCS_OFFSET] = { "nmethod", "_scopes_pcs_offset", FIELD, 0, JT_NMETHOD },
	[JF_NM_SCOPES_DATA] = { "nmethod|CompiledMethod", "_scopes_data_offset|_scopes_data_begin", FIELD, 0,
				JT_NMETHOD },
	[JF_NM_DEPENDENCIES_OFFSET] = { "nmethod", "_dependencies_offset", FIELD, OPT, JT_NMETHOD },
	[JF_NM_IMMUTABLE_DATA] = { "nmethod", "_immutable_data", FIELD, OPT, JT_NMETHOD },
	[JF_NM_IMMUTABLE_SIZE] = { "nmethod", "_immutable_data_size", FIELD, OPT, JT_NMETHOD },
	[JF_NM_IMMUTABLE_REFCOUNT] = { "nmethod", "_immutable_data_ref_count_offset", FIELD, OPT, JT_NMETHOD },
	[JF_PC_PC_OFFSET] = { "PcDesc", "_pc_offset", FIELD, 0, JT_PCDESC },
	[JF_PC_SCOPE_DECODE_OFFSET] = { "PcDesc", "_scope_decode_offset", FIELD, 0, JT_PCDESC },
	[JF_SYM_LENGTH] = { "Symbol", "_length", FIELD, 0, JT_SYMBOL },
	[JF_SYM_BODY] = { "Symbol", "_body", FIELD, 0, JT_SYMBOL },
	[JS_CODE_HEAPS] = { "CodeCache", "_heaps", STATIC },
	[JS_CODE_LOW] = { "CodeCache", "_low_bound", STATIC },
	[JS_CODE_HIGH] = { "CodeCache", "_high_bound", STATIC },
	[JS_VM_RELEASE] = { "Abstract_VM_Version", "_s_vm_release", STATIC },
	[JS_VM_MAJOR] = { "Abstract_VM_Version", "_vm_major_version", STATIC },
	[JS_VM_MINOR] = { "Abstract_VM_Version", "_vm_minor_version", STATIC },
	[JS_VM_SECURITY] = { "Abstract_VM_Version", "_vm_security_version", STATIC },
	[JS_VM_BUILD] = { "Abstract_VM_Version", "_vm_build_number", STATIC },
	[JS_JDK_CURRENT] = { "JDK_Version", "_current", STATIC, OPT },
	[JC_FRAME_SENDER_SP] = { NULL, "frame::interpreter_frame_sender_sp_offset", INT, OPT },
	[JC_FRAME_LAST_SP] = { NULL, "frame::interpreter_frame_last_sp_offset", INT, OPT },
	[JC_FRAME_METHOD] = { NULL, "frame::interpreter_frame_method_offset", INT, OPT },
	[JC_FRAME_BCP] = { NULL, "frame::interpreter_frame_bcp_offset", INT, OPT },
	[JC_FRAME_LOCALS] = { NULL, "frame::interpreter_frame_locals_offset", INT, OPT },
};

const char *jvm_layout__item_name(enum jvm_item i)
{
	static __thread char buf[128];
	const struct want *w = &wants[i];

	if (w->kind == SIZE || w->kind == INT)
		snprintf(buf, sizeof(buf), "%s", w->kind == SIZE ? w->types : w->names);
	else
		snprintf(buf, sizeof(buf), "%s.%s", w->types, w->names);
	return buf;
}

/* The index of s among the '|'-separated alternatives of list, or -1. */
static int alt_of(const char *list, const char *s)
{
	size_t n;

	if (!list || !s)
		return -1;
	n = strlen(s);
	for (int i = 0; *list; i++) {
		size_t len = strcspn(list, "|");

		if (len == n && strncmp(list, s, n) == 0)
			return i;
		list += len;
		if (*list == '|')
			list++;
	}
	return -1;
}

/* A NUL-terminated string of the process at addr, up to len - 1 bytes, read in
 * pieces that do not cross a page (the string may end right before an unmapped one). */
static int read_str(jvm_read_fn read, void *ctx, uint64_t addr, char *buf, size_t len)
{
	size_t have = 0;

	while (have + 1 < len) {
		size_t page_left = 4096 - ((addr + have) & 4095), n = len - 1 - have;
		int err;

		if (n > page_left)
			n = page_left;
		if ((err = read(ctx, addr + have, buf + have, n)) < 0)
			return err;
		buf[have + n] = '\0';
		if (memchr(buf + have, '\0', n))
			return 0;
		have += n;
	}
	return -ENAMETOOLONG;
}

/* Note the entry (type, name, value) against what is wanted of kind k: the
 * alternative matched, the earlier in its list the better.  noipa: Debian's GCC
 * 12.2 at -O1 and above concluded from its interprocedural analysis (modref,
 * pure-const) that this changes nothing and dropped its calls' effects (clang and
 * -O0 do not; -fno-ipa-modref -fno-ipa-pure-const does not either). */
__attribute__((noipa)) static void note(struct jvm_layout *l, uint8_t k, const char *type, const char *name, uint64_t value)
{
	for (int i = 0; i < JVM_ITEMS; i++) {
		const struct want *w = &wants[i];
		int a;

		if (w->kind != k)
			continue;
		if (k == SIZE)
			a = alt_of(w->types, type);
		else if (k == INT)
			a = alt_of(w->names, name);
		else
			a = alt_of(w->types, type) < 0 ? -1 : alt_of(w->names, name);
		if (a < 0 || (l->v[i] != JVM_NONE && l->alt[i] <= a))
			continue;
		l->v[i] = value;
		l->alt[i] = (uint8_t)a;
	}
}

/* Note entry e of table t, whose first string (type or constant name) is s1 (s2:
 * room for a field's name). */
static int entry(struct jvm_layout *l, enum jvm_table t, const uint8_t *e, const uint64_t *off, const char *s1,
		 char *s2, uint64_t bias, jvm_read_fn read, void *ctx)
{
	uint64_t value;
	int err;

	switch (t) {
	case JVM_STRUCTS:
		if (!u64_at(e, off[JVM_SYM_FIELD_NAME]))
			return 0;
		if ((err = read_str(read, ctx, u64_at(e, off[JVM_SYM_FIELD_NAME]), s2, 128)) < 0)
			return err;
		if (i32_at(e, off[JVM_SYM_IS_STATIC])) {
			value = u64_at(e, off[JVM_SYM_ADDRESS]);
			/* an address as linked: the bias comes and goes with the process */
			note(l, STATIC, s1, s2, value ? value - bias : 0);
		} else {
			note(l, FIELD, s1, s2, u64_at(e, off[JVM_SYM_OFFSET]));
		}
		return 0;
	case JVM_TYPES:
		note(l, SIZE, s1, NULL, u64_at(e, off[JVM_SYM_SIZE]));
		return 0;
	case JVM_INTS:
		note(l, INT, NULL, s1, (uint64_t)(int64_t)i32_at(e, off[JVM_SYM_VALUE]));
		return 0;
	default:
		note(l, INT, NULL, s1, u64_at(e, off[JVM_SYM_VALUE]));
		return 0;
	}
}

/* Walk table t: each entry read whole (stride bytes), its strings read, noted. */
static int walk(struct jvm_layout *l, enum jvm_table t, const struct jvm_syms *s, uint64_t bias, jvm_read_fn read,
		void *ctx, char *why, size_t why_len)
{
	const uint64_t *a = s->a[t];
	uint64_t base, stride, off[JVM_SYMS] = { 0 };
	uint8_t e[MAX_STRIDE];
	int err;

	if ((err = read(ctx, a[JVM_SYM_BASE] + bias, &base, 8)) < 0 || (err = read(ctx, a[JVM_SYM_STRIDE] + bias, &stride, 8)) < 0)
		return err;
	for (int i = JVM_SYM_TYPE_NAME; i < JVM_SYMS; i++)
		if (a[i] && (err = read(ctx, a[i] + bias, &off[i], 8)) < 0)
			return err;
	/* the base is relocated by the loader, the stride set by libjvm.so's static
	 * constructors (HotSpot's STRIDE()): read between the two, a JVM starting */
	if (!base || !stride)
		return -EAGAIN;
	if (stride < 16 || stride > MAX_STRIDE) {
		snprintf(why, why_len, "its %s table's stride is %llu bytes (at most %u expected)", sym_names[t][0],
			 (unsigned long long)stride, MAX_STRIDE);
		return -ENOTSUP;
	}
	for (int i = JVM_SYM_TYPE_NAME; i < JVM_SYMS; i++)
		if (a[i] && off[i] + 8 > stride) {
			snprintf(why, why_len, "its %s entries' %s is %llu, past the stride %llu", sym_names[t][0],
				 sym_names[t][i], (unsigned long long)off[i], (unsigned long long)stride);
			return -ENOTSUP;
		}
	for (uint32_t n = 0;; n++) {
		bool named = t == JVM_INTS || t == JVM_LONGS;
		char s1[128], s2[128];
		uint64_t first;

		if (n == MAX_ENTRIES) {
			snprintf(why, why_len, "its %s table has no end within %u entries", sym_names[t][0], MAX_ENTRIES);
			return -ENOTSUP;
		}
		if ((err = read(ctx, base + n * stride, e, stride)) < 0)
			return err;
		first = u64_at(e, named ? off[JVM_SYM_NAME] : off[JVM_SYM_TYPE_NAME]);
		if (!first)
			break;
		l->entries++;
		/* no name prof wants is that long */
		if ((err = read_str(read, ctx, first, s1, sizeof(s1))) == -ENAMETOOLONG)
			continue;
		if (err < 0)
			return err;
		if ((err = entry(l, t, e, off, s1, s2, bias, read, ctx)) < 0 && err != -ENAMETOOLONG)
			return err;
	}
	return 0;
}

/* The JDK's choices among its alternatives, then every required item present and
 * inside its class. */
static int check(struct jvm_layout *l, char *why, size_t why_len)
{
	l->blob_offsets = l->alt[JF_BLOB_CODE_BEGIN] == 1;
	if (l->v[JF_BLOB_CODE_BEGIN] != JVM_NONE && l->v[JF_BLOB_CODE_END] != JVM_NONE &&
	    l->alt[JF_BLOB_CODE_END] != l->alt[JF_BLOB_CODE_BEGIN]) {
		snprintf(why, why_len, "its CodeBlob has %s but not %s", l->blob_offsets ? "_code_offset" : "_code_begin",
			 l->blob_offsets ? "_data_offset" : "_code_end");
		return -ENOTSUP;
	}
	l->immutable = l->v[JF_NM_IMMUTABLE_DATA] != JVM_NONE;
	l->mutable_md = l->v[JF_BLOB_MUTABLE_DATA] != JVM_NONE;
	for (int i = 0; i < JVM_ITEMS; i++) {
		const struct want *w = &wants[i];
		bool need = !(w->flags & OPT);

		if (i == JF_NM_METADATA_OFFSET)
			need = !l->mutable_md;
		else if (i == JF_NM_DEPENDENCIES_OFFSET)
			need = !l->immutable;
		else if (i == JF_NM_IMMUTABLE_SIZE)
			need = l->immutable;
		else if (i == JF_BLOB_RELOC_SIZE || i == JF_BLOB_MUTABLE_SIZE)
			need = l->mutable_md;
		else if (i == JF_CP_SOURCE_FILE)
			need = l->v[JF_IK_SOURCE_FILE] == JVM_NONE;
		if (need && l->v[i] == JVM_NONE) {
			snprintf(why, why_len, "its self-description has no %s", jvm_layout__item_name(i));
			return -ENOTSUP;
		}
		if (w->kind == SIZE && l->v[i] != JVM_NONE && l->v[i] > MAX_CLASS) {
			snprintf(why, why_len, "its %s is %llu bytes (at most %u expected)", w->types,
				 (unsigned long long)l->v[i], MAX_CLASS);
			return -ENOTSUP;
		}
	}
	for (int i = 0; i < JVM_ITEMS; i++) {
		const struct want *w = &wants[i];

		if (w->kind != FIELD || l->v[i] == JVM_NONE || l->v[w->cls] == JVM_NONE ||
		    l->v[i] + 1 <= l->v[w->cls])
			continue;
		snprintf(why, why_len, "its %s is at %llu, past its class's %llu bytes", jvm_layout__item_name(i),
			 (unsigned long long)l->v[i], (unsigned long long)l->v[w->cls]);
		return -ENOTSUP;
	}
	if (l->v[JT_SYMBOL] > 32) {
		snprintf(why, why_len, "its Symbol is %llu bytes (at most 32 expected)", (unsigned long long)l->v[JT_SYMBOL]);
		return -ENOTSUP;
	}
	return 0;
}

/* The version: Abstract_VM_Version's numbers and release string. */
static int version_of(struct jvm_layout *l, uint64_t bias, jvm_read_fn read, void *ctx)
{
	int32_t v[4];
	const int at[4] = { JS_VM_MAJOR, JS_VM_MINOR, JS_VM_SECURITY, JS_VM_BUILD };
	uint64_t rel;
	int err;

	for (int i = 0; i < 4; i++)
		if ((err = read(ctx, l->v[at[i]] + bias, &v[i], 4)) < 0)
			return err;
	l->version = (uint32_t)(v[0] & 0xff) << 24 | (uint32_t)(v[1] & 0xff) << 16 | (uint32_t)(v[2] & 0xff) << 8 |
		     (uint32_t)(v[3] & 0xff);
	if ((err = read(ctx, l->v[JS_VM_RELEASE] + bias, &rel, 8)) < 0)
		return err;
	if (rel && read_str(read, ctx, rel, l->release, sizeof(l->release)) < 0)
		l->release[0] = '\0';
	/* UNSIGNED5 excludes byte 0 since JDK 20.0.15 (JDK-8301346, backported to 20u) */
	l->u5_x = l->version >= 0x1400000f;
	return 0;
}

int jvm_layout__read(struct jvm_layout *ret, const struct jvm_syms *syms, uint64_t bias, jvm_read_fn read,
		     void *ctx, char *why, size_t why_len)
{
	const char *missing = jvm_syms__missing(syms);
	int err;

	why[0] = '\0';
	memset(ret, 0, sizeof(*ret));
	for (int i = 0; i < JVM_ITEMS; i++)
		ret->v[i] = JVM_NONE;
	if (missing) {
		snprintf(why, why_len, "its libjvm.so exports no %s", missing);
		return -ENOTSUP;
	}
	for (int t = 0; t < JVM_TABLES; t++)
		if ((err = walk(ret, t, syms, bias, read, ctx, why, why_len)) < 0)
			return err;
	if ((err = check(ret, why, why_len)) < 0)
		return err;
	return version_of(ret, bias, read, ctx);
}
