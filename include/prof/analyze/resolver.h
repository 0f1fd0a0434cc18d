/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * From addresses to frames: which object an address of a task falls in (the model)
 * and which function (the symbolizer, a JIT's /tmp/perf-PID.map), as interned names
 * for the aggregation engine.  Shared by prof report and prof top.
 */
#ifndef PROF_ANALYZE_RESOLVER_H
#define PROF_ANALYZE_RESOLVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/analyze/model.h"
#include "prof/analyze/profile.h"
#include "prof/base/strset.h"
#include "prof/analyze/symbols.h"
#include "prof/analyze/jitmap.h"

#define RESOLVE_UNKNOWN "[unknown]"

struct resolver {
	struct model *model;            /* borrowed */
	struct symbols *syms;           /* borrowed */
	struct jitmap *jit;             /* borrowed, may be NULL */
	struct strset *names;           /* borrowed: "[unknown] (obj)" names are interned here */
	/* the uid a process ran as, whose /tmp/perf-PID.map alone is trusted (jitmap.h):
	 * NULL asks the model (prof's header section) */
	bool (*uid_of)(void *ctx, int32_t pid, uint32_t *ret);
	void *uid_ctx;
	/* kernel symbols come from this host's /proc/kallsyms only when the recording was
	 * made by this kernel: the caller says so (host, release, build id) */
	bool kernel_here;
	/* ... or when the data itself names the running kernel's build id (prof record
	 * writes it after the kernel's map): a killed recording has no header to say more */
	bool kernel_by_build_id;
	bool kernel_tried, kernel_ok;
	/* with_chain stacks show inlined functions as frames of their own (symbols__inlined) */
	bool inlines;
	/* frames of user objects carry their ELF virtual address (profile_frame.addr), for
	 * pprof; they then stay apart by address in the engine */
	bool addrs;
	/* with addrs, a named frame's address is its function's start: one frame per
	 * function, as a backend symbolizing by address names it alike (profd's history,
	 * where every distinct address would be a distinct stack kept for hours) */
	bool fn_addrs;
	/* a live reader's objects that no file holds yet (prof top's Python frames, named
	 * by the session): true when d is one, *ret its name at off (NULL: none); the
	 * name is interned.  NULL: none */
	bool (*object_name)(void *ctx, const struct model_dso *d, uint64_t off, const char **ret);
	void *object_ctx;
	const char *object_dso;         /* ... what their frames are in (NULL: d's name;
					 * a JVM's: JAVA_OBJECT_LIVE) */
	struct resolver_cache *cache;   /* owned (resolver__cache_init); NULL: none */
	uint64_t jit_lookups;           /* frames a JIT map was asked of: their answers are
					 * not dated by the model (callers' caches skip them) */
};

/* The cache of frames met lately, which the resolver uses when it has one (a
 * report's samples resolve the same addresses again and again).  0 or -ENOMEM. */
int resolver__cache_init(struct resolver *r);
/* Forget every frame kept (an object's names changed: symbols__refresh). */
void resolver__cache_flush(struct resolver *r);
void resolver__cache_release(struct resolver *r);

/* Read the kernel's symbols now (else at the first kernel frame): before privileges
 * that show kallsyms' addresses are dropped. */
void resolver__load_kernel(struct resolver *r);

/* The object and function of ip in task pid, as interned names ("[unknown]" ones when
 * not known: never a wrong name). */
void resolver__frame(struct resolver *r, int32_t pid, bool kernel, uint64_t ip, struct profile_frame *ret);

/*
 * The frames of a sample, leaf first: its ip, then (with_chain) its call chain
 * without the chain's copy of the ip, each address expanded into its inline chain
 * when r->inlines.  misc is the sample's header misc (its cpu
 * mode).  Returns the number of frames written to ret (at most max).
 */
size_t resolver__stack(struct resolver *r, int32_t pid, uint16_t misc, uint64_t ip, const uint64_t *chain,
		       uint64_t nr_chain, bool with_chain, struct profile_frame *ret, size_t max);

/* Does /sys/kernel/notes name this build id (hex)?  An empty id matches. */
bool resolver__kernel_is(const char *build_id);

#endif
