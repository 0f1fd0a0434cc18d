/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A Java method's name, source file and lines, read from a JVM (jvm.h): Method* ->
 * ConstMethod -> ConstantPool -> the holder class's name and the method's name and
 * signature Symbols; the ConstMethod's compressed line number table for a bytecode
 * index (bci); and the frames of an nmethod at a pc, from its scopes (pc descs and
 * scopes data): the compiled method and the ones the compiler inlined into it,
 * innermost first.
 */
#ifndef PROF_JVM_METHOD_H
#define PROF_JVM_METHOD_H

#include <stddef.h>
#include <stdint.h>

#include "prof/jvm/jvm.h"

struct jvm_method {
	uint64_t method, const_method, constants;
	uint32_t code_size;             /* bytecodes */
	char klass[256];                /* "java/lang/String", as the class file names it */
	char name[128];
	char signature[256];            /* "(J)J" */
	char file[128];                 /* "" when the class has no SourceFile */
};

/* One Java frame: a method at a bytecode index (-1: none known) and its line (0: none). */
struct jvm_frame {
	uint64_t method;
	int32_t bci;
	int32_t line;
};

/*
 * Read Method* method's names into *ret: 0, -ESTALE when what was read is no method
 * (a name that is not one, an index past its pool), -errno of the read.
 */
int jvm_method__read(const struct jvm *j, uint64_t method, struct jvm_method *ret);

/* "java.lang.String.hashCode()I": as the JVM prints methods (jcmd Compiler.codelist). */
void jvm_method__format(const struct jvm_method *m, char *buf, size_t len);
/* "java.lang.String.hashCode": async-profiler's and JFR's views' name, no signature
 * (whose ';' a folded stack's frames cannot hold). */
void jvm_method__format_short(const struct jvm_method *m, char *buf, size_t len);

/* The source line of bci in m (its line number table): > 0; 0 when it has none or
 * bci is past its code; -errno of the read; -ESTALE on a table that does not decode. */
int jvm_method__line(const struct jvm *j, const struct jvm_method *m, int32_t bci);

/* The bci of an interpreted frame's bcp (its bytecode pointer) in m, or -1 when bcp
 * is not in m's code. */
int32_t jvm_method__bci(const struct jvm *j, const struct jvm_method *m, uint64_t bcp);

/*
 * The frames at pc of nmethod b (read with jvm__find_blob): the pc desc HotSpot itself
 * would take (the one at pc, else the nearest after it, as nmethod::pc_desc_near),
 * its scope and the scopes it was inlined into, innermost first, at most max of them
 * into ret (lines left 0: jvm_method__line fills them).  The number of frames (>= 1;
 * 1 with bci -1 when the nmethod has no scope for pc), -ESTALE when the scopes do not
 * decode, -errno of the read.
 */
int jvm_nmethod__frames(const struct jvm *j, const struct jvm_blob *b, uint64_t pc, struct jvm_frame *ret,
			size_t max);

/* The same, only for a pc that has a pc desc of its own (a call's return address, a
 * safepoint): -ENOENT when pc has none, its frames and lines then exact. */
int jvm_nmethod__frames_exact(const struct jvm *j, const struct jvm_blob *b, uint64_t pc, struct jvm_frame *ret,
			      size_t max);

/* UNSIGNED5 (HotSpot's CompressedStream) at *at in buf[0, len) with x excluded bytes:
 * 0 with the value, -EINVAL past the end or on an excluded byte.  For tests. */
int jvm_unsigned5__read(const uint8_t *buf, size_t len, size_t *at, uint8_t x, uint32_t *ret);

/* The line of bci in a compressed line number table (tbl, len bytes, ending with a
 * 0 byte): > 0, 0 when none, -EINVAL when it does not decode.  For tests. */
int jvm_line_table__find(const uint8_t *tbl, size_t len, uint8_t x, int32_t bci);

#endif
