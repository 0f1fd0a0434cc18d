/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What frames.c (the processes, the symbols, the object) and frames_walk.c (one
 * sample's walk) share.
 */
#ifndef PROF_JVM_FRAMES_INTERNAL_H
#define PROF_JVM_FRAMES_INTERNAL_H

#include "prof/base/hashtable.h"
#include "prof/jvm/frames.h"
#include "prof/jvm/jvm.h"
#include "prof/perfdata/build_id.h"
#include "prof/runtime/runtime.h"

#define JAVA_UNVERIFIED_NAME "[java: unverified]"
#define JAVA_CALLERS_NAME "[java: callers not proven]"
#define JAVA_ENTRY_NAME "[java: called from the VM]"
#define JAVA_INTERPRETER_NAME "[java: interpreter]"
enum { JAVA_SYM_UNVERIFIED, JAVA_SYM_CALLERS, JAVA_SYM_ENTRY, JAVA_SYM_INTERPRETER };
#define JAVA_SYMBOLS_MAX (1u << 22)

/* A blob as read before: what a later reading must match for its samples. */
struct jblob_seen {
	uint64_t start;
	uint64_t code_begin, code_end, method;
	int32_t compile_id;
	uint32_t kind;
	uint64_t seen_ns;               /* when first read so */
};

/* A method's frame named: (Method*, bci, whether the line is exact) -> symbol. */
struct jmethod_sym {
	uint64_t method;
	int32_t bci;
	uint32_t exact;
	uint32_t sym;
};

/* A compile's frames at a pc, named (its scopes read once: a compile's never change). */
#define JAVA_PC_FRAMES 16
struct jpc_syms {
	uint64_t start, pc;
	int32_t compile_id;
	uint8_t leaf, n;                /* n 0: the pc has no pc desc (no return address) */
	uint32_t syms[JAVA_PC_FRAMES];
};

/* A process with a libjvm.so mapped, on the runtime layer's table (runtime.h): its JVM
 * read when rp.attached (judged again while it is starting, rp.retry_ns). */
struct jproc {
	struct runtime_proc rp;         /* pid, judged, attached, counted, own maps */
	bool has_layout;                /* j's tables read (once: kept across a retry) */
	bool interp_ok;                 /* its exported interpreter frame constants agree with x86_64's */
	struct jvm j;
	struct hashtable blobs;         /* struct jblob_seen by start */
	struct hashtable methods;       /* struct jmethod_sym */
	struct hashtable pcs;           /* struct jpc_syms */
};

/* A thread named as one of a JVM's own (its last COMM record's name): its role. */
struct jrole {
	int32_t tid;
	const char *role;               /* jvm_frames__thread_role's, static */
};

struct jvm_frames {
	struct jvm_frames_config cfg;
	struct hashtable roles;         /* struct jrole by tid: the threads named so now */
	struct runtime_procs procs;     /* struct jproc by pid (runtime.h) */
	struct runtime_symbols names;   /* the object's symbols, [0..JAVA_SYM_INTERPRETER] fixed */
	struct jvm_frames_stats st;
	uint64_t now;                   /* the sample's reading's (CLOCK_MONOTONIC), for attach */
	struct perf_event_attr g_attr;  /* -g: the kernel's samples (cfg.g_sample_type) */
	struct unwind_regs *gregs;      /* -g: the leaf's registers as the walk reads them */
};

/* The symbol of name (runtime_symbols__symbol): JAVA_SYM_UNVERIFIED when it cannot be kept. */
uint32_t jvm_frames__symbol(struct jvm_frames *jf, const char *name);
/* pid's JVM when it has one prof read (judged again as its maps change), else NULL. */
struct jproc *jvm_frames__proc(struct jvm_frames *jf, int32_t pid, uint64_t now);
int jvm_frames__map_object(struct jvm_frames *jf, const struct sample *s);
bool jvm_frames__blob_eq(const void *e, const void *key, const void *ctx);
bool jvm_frames__method_eq(const void *e, const void *key, const void *ctx);
bool jvm_frames__pc_eq(const void *e, const void *key, const void *ctx);

static inline uint64_t jvm_frames__addr(uint32_t sym)
{
	return JAVA_BASE + (uint64_t)sym;
}

#endif
