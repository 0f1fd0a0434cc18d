/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A process's HotSpot JVM: found by its mapping of libjvm.so (opened as every mapped
 * object is, sys/task_file.h: inside a container through the task's root), its
 * self-description read and checked (vmstructs.h), and its code cache read: which
 * CodeBlob holds a pc (the CodeHeaps' segment maps, as the JVM's own
 * CodeHeap::find_blob), of which kind, and for an nmethod which compile of which
 * Method.  The process's memory is read with the caller's read function (the one
 * reader of src/python: process_vm_readv with the user's rights).
 *
 * Identity: a compile id is given once per JVM (CompileBroker's counter), so an
 * nmethod is (its CodeBlob's address, its compile id, its Method*).  jvm_blob__same
 * on a reading before and one after an instant T proves that the code at the pc
 * belonged to that compile of that method at T: the code cache reuses the address
 * of a flushed nmethod only for a later compile, with another id.
 */
#ifndef PROF_JVM_JVM_H
#define PROF_JVM_JVM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/jvm/vmstructs.h"

#define JVM_HEAPS_MAX 16

struct jvm {
	struct jvm_layout l;
	uint64_t bias;                  /* libjvm.so's load bias */
	char path[256];                 /* libjvm.so, as the task names it */
	jvm_read_fn read;
	void *ctx;
	struct jvm_heap {
		uint64_t lo, hi;        /* reserved: [lo, hi) */
		uint64_t segmap;        /* one byte per segment of (1 << log2_segment) bytes */
	} heaps[JVM_HEAPS_MAX];
	unsigned n_heaps;
	uint32_t log2_segment;
};

/*
 * The .dynsym symbols of libjvm.so open on fd (as linked) into *ret.  0; -ENOENT
 * when it has none of them (no HotSpot); -ENOTSUP when only some (why names the
 * first missing); -EINVAL when fd is no ELF.
 */
int jvm__read_syms(int fd, struct jvm_syms *ret, char *why, size_t why_len);

/* Could the object at path be HotSpot's (libjvm.so)?  And is it another JVM prof
 * refuses (OpenJ9's libj9vm, libj9jit: why, or NULL)?  A GraalVM native image maps
 * no JVM at all: its code is the executable's own, compiled ahead of time, named as
 * any native code is. */
bool jvm__looks_like(const char *path);
const char *jvm__other_vm(const char *path);

/*
 * Is a JVM in a recording's reach when it starts: the workload a JVM's launcher
 * (argv0's name "java"), or one of pids (n) mapping a libjvm.so now?  -g asks the
 * kernel for a stack copy of every sample only then (jvm/frames.h, JAVA_G_STACK):
 * a copy costs every sample of the host's other processes too.
 */
bool jvm__in_reach(const char *argv0, const int *pids, size_t n);

/*
 * Find the JVM of process pid through its /proc/PID/maps (the thin shell: the maps
 * text goes to jvm__find_in_maps): 0 with ret->bias, ret->path and ret's layout
 * read with read/ctx and checked; -ENOENT (no JVM mapped); -ENOTSUP with why (one
 * line: a JVM prof refuses, and why); -EAGAIN (a JVM still starting: its tables or
 * code cache not there yet); -errno.
 */
int jvm__find(int32_t pid, jvm_read_fn read, void *ctx, struct jvm *ret, char *why, size_t why_len);

/* The same, over the text of /proc/PID/maps (maps, NUL-terminated). */
int jvm__find_in_maps(int32_t pid, const char *maps, jvm_read_fn read, void *ctx, struct jvm *ret, char *why,
		      size_t why_len);

/* Read the code heaps (CodeCache::_heaps): 0, -EAGAIN before the JVM made them,
 * -ENOTSUP when they are not what a JVM has (why), -errno. */
int jvm__read_heaps(struct jvm *j, char *why, size_t why_len);

enum jvm_blob_kind { JVM_BLOB_NMETHOD, JVM_BLOB_INTERPRETER, JVM_BLOB_STUB };

struct jvm_blob {
	uint64_t start;                 /* the CodeBlob */
	uint64_t code_begin, code_end;
	uint32_t size;                  /* CodeBlob::_size */
	int32_t frame_size;             /* in words */
	int32_t frame_complete;         /* from code_begin: where its frame is set up; -1 unknown */
	enum jvm_blob_kind kind;
	char name[64];                  /* CodeBlob::_name: "nmethod", "Interpreter", a stub's */
	/* an nmethod's: */
	int32_t compile_id, comp_level, entry_bci;  /* entry_bci -1: a normal (not OSR) compile */
	uint64_t method;                /* Method* */
};

/* Is pc in one of the code heaps (reserved)? */
bool jvm__in_code(const struct jvm *j, uint64_t pc);

/*
 * The CodeBlob holding pc, read now: 0 with *ret; -ENOENT when pc is in no heap, in
 * a free block, or not inside the blob's code; -ESTALE when what was read does not
 * hold together (a blob being freed or made as it was read); -errno of read.
 */
int jvm__find_blob(const struct jvm *j, uint64_t pc, struct jvm_blob *ret);

/* Are a and b the same blob (same address, kind, compile id, Method*, code)? */
bool jvm_blob__same(const struct jvm_blob *a, const struct jvm_blob *b);

#endif
