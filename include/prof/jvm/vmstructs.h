/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * HotSpot's self-description, read from the process: the four tables libjvm.so
 * exports in its .dynsym (gHotSpotVMStructs: field offsets and static addresses,
 * gHotSpotVMTypes: class sizes, gHotSpotVMIntConstants, gHotSpotVMLongConstants) and
 * the symbols giving each table's stride and the offsets inside an entry.  Every JDK
 * build describes itself, so no table keyed to a build id is needed: the fields prof
 * uses are matched by name (with the alternative names other JDKs give them, in the
 * order preferred), each JVM_NONE until found, the required ones checked present and
 * every offset checked inside its class's size.  A JVM whose tables do not pass is
 * refused with one line saying why (OpenJ9 and GraalVM native images have no such
 * tables at all: jvm.h refuses them before).
 */
#ifndef PROF_JVM_VMSTRUCTS_H
#define PROF_JVM_VMSTRUCTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Read len bytes of the process at addr into buf: 0 or -errno. */
typedef int (*jvm_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len);

#define JVM_NONE UINT64_MAX

/* What prof reads of a JVM: class sizes (JT_), field offsets (JF_), static
 * addresses as linked (JS_: add the load bias), int constants (JC_). */
enum jvm_item {
	JT_CODEBLOB, JT_CODEHEAP, JT_CONSTANTPOOL, JT_CONSTMETHOD, JT_HEAPBLOCK, JT_INSTANCEKLASS,
	JT_KLASS, JT_METHOD, JT_NMETHOD, JT_PCDESC, JT_SYMBOL, JT_GROWABLE, JT_VIRTUALSPACE,
	JT_GROWABLE_BASE,
	JF_BLOB_NAME, JF_BLOB_SIZE, JF_BLOB_CODE_BEGIN, JF_BLOB_CODE_END, JF_BLOB_FRAME_SIZE, JF_BLOB_FRAME_COMPLETE,
	JF_BLOB_MUTABLE_DATA, JF_BLOB_RELOC_SIZE, JF_BLOB_MUTABLE_SIZE,
	JF_HEAP_MEMORY, JF_HEAP_SEGMAP, JF_HEAP_LOG2_SEGMENT,
	JF_VS_LOW_BOUNDARY, JF_VS_HIGH_BOUNDARY, JF_VS_HIGH,
	JF_GA_LEN, JF_GA_DATA,
	JF_CP_HOLDER, JF_CP_LENGTH, JF_CP_SOURCE_FILE, JF_IK_SOURCE_FILE,
	JF_CM_CONSTANTS, JF_CM_CODE_SIZE, JF_CM_FLAGS, JF_CM_NAME_INDEX, JF_CM_SIGNATURE_INDEX,
	JF_KLASS_NAME, JF_METHOD_CONST_METHOD,
	JF_NM_COMPILE_ID, JF_NM_METHOD, JF_NM_ENTRY_BCI, JF_NM_COMP_LEVEL,
	JF_NM_METADATA_OFFSET, JF_NM_SCOPES_PCS_OFFSET, JF_NM_SCOPES_DATA, JF_NM_DEPENDENCIES_OFFSET,
	JF_NM_IMMUTABLE_DATA, JF_NM_IMMUTABLE_SIZE, JF_NM_IMMUTABLE_REFCOUNT,
	JF_PC_PC_OFFSET, JF_PC_SCOPE_DECODE_OFFSET,
	JF_SYM_LENGTH, JF_SYM_BODY,
	JS_CODE_HEAPS, JS_CODE_LOW, JS_CODE_HIGH,
	JS_VM_RELEASE, JS_VM_MAJOR, JS_VM_MINOR, JS_VM_SECURITY, JS_VM_BUILD, JS_JDK_CURRENT,
	JC_FRAME_SENDER_SP, JC_FRAME_LAST_SP, JC_FRAME_METHOD, JC_FRAME_BCP, JC_FRAME_LOCALS,
	JVM_ITEMS
};

/* Where the four tables are (a table's base is a pointer to its array) and their
 * entry layouts, as libjvm.so's .dynsym gives them: addresses as linked. */
enum jvm_table { JVM_STRUCTS, JVM_TYPES, JVM_INTS, JVM_LONGS, JVM_TABLES };
enum jvm_sym {
	JVM_SYM_BASE, JVM_SYM_STRIDE, JVM_SYM_TYPE_NAME, JVM_SYM_FIELD_NAME, JVM_SYM_IS_STATIC,
	JVM_SYM_OFFSET, JVM_SYM_ADDRESS, JVM_SYM_SIZE, JVM_SYM_NAME, JVM_SYM_VALUE, JVM_SYMS
};
struct jvm_syms {
	uint64_t a[JVM_TABLES][JVM_SYMS];       /* 0: not in the .dynsym */
};

/* The symbol names of table t (NULL: none of that kind), for the .dynsym reader. */
const char *jvm_syms__name(enum jvm_table t, enum jvm_sym s);

/* Did the .dynsym have every symbol the tables need?  NULL, or the first missing one. */
const char *jvm_syms__missing(const struct jvm_syms *s);

struct jvm_layout {
	uint64_t v[JVM_ITEMS];          /* JVM_NONE: not found */
	uint8_t alt[JVM_ITEMS];         /* which of the item's alternative names matched */
	uint32_t version;               /* major << 24 | minor << 16 | security << 8 | build */
	char release[80];               /* Abstract_VM_Version::_s_vm_release */
	bool blob_offsets;              /* CodeBlob's code range as int offsets (JDK 23+), not pointers */
	bool immutable;                 /* nmethod's scopes in _immutable_data (JDK 23+) */
	bool mutable_md;                /* nmethod's metadata in CodeBlob::_mutable_data (JDK 25+) */
	uint8_t u5_x;                   /* UNSIGNED5's excluded low bytes (1 since JDK 20.0.15 / 21) */
	uint32_t entries;               /* table entries walked, for the curious */
};

/* The name of item i ("nmethod._compile_id"), for messages. */
const char *jvm_layout__item_name(enum jvm_item i);

/*
 * Read the tables of a JVM whose libjvm.so is loaded at bias (syms as linked) with
 * read, into *ret, and check them: every required item found, the alternatives of
 * one JDK consistent, each offset inside its class's size (<= 64 KiB), then the
 * version read from the process.  0; -ENOTSUP with why saying what is wrong (one
 * line); -EAGAIN when the tables are not there yet (a JVM still starting); -errno of
 * read (-EPERM, -ESRCH, -EFAULT).
 */
int jvm_layout__read(struct jvm_layout *ret, const struct jvm_syms *syms, uint64_t bias, jvm_read_fn read,
		     void *ctx, char *why, size_t why_len);

#endif
