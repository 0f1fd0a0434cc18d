/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What frames_g.c and frames_early.c share with frames.c: its state and its walk. */
#ifndef PROF_NODE_FRAMES_INTERNAL_H
#define PROF_NODE_FRAMES_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "prof/analyze/unwinder.h"
#include "prof/base/hashtable.h"
#include "prof/node/frames.h"
#include "prof/node/node.h"
#include "prof/runtime/runtime.h"

#define NODE_MAX_DEPTH 64
#define NODE_TEXTS 4
#define REG_BP 6                        /* perf's x86_64 registers */
#define REG_SP 7
#define REG_IP 8                        /* ... and the index of each in unwinder__regs_mask()'s */

struct node_early;
struct node_early_log;

struct node_frames_g {
	struct perf_event_attr attr;    /* the samples' layout */
	struct unwind_regs *regs;       /* a sample's frames' registers, NULL until needed */
};

/* What reads a process: its memory, except the sample's own stack copy and what the
 * sample's log read when it was drained (early.h). */
struct node_reader {
	int32_t pid;
	const uint8_t *stack;           /* the copy of [sp, sp + len), NULL: none */
	uint64_t sp, len;
	const struct node_early_log *from; /* read first, NULL: none */
	struct node_early_log *to;      /* where the process's reads are logged, NULL: not */
};

struct nodeproc {
	struct runtime_proc rp;         /* first: the runtime layer's */
	struct node_v8 v;
	uint64_t text_lo[NODE_TEXTS], text_hi[NODE_TEXTS]; /* V8's object's executable mappings */
	size_t ntext;
	/* its embedded builtins where mapped (V8 may map a second copy of them near its
	 * code: both run), none when unknown */
	uint64_t builtins_lo[NODE_TEXTS], builtins_hi[NODE_TEXTS];
	size_t nbuiltins;
	uint32_t gen;                   /* this attach's, in the name cache's keys */
};

/* A name given to a SharedFunctionInfo, and the words it was made from (checked
 * again before it is used: a moved or freed object's address holds other words). */
struct jsname {
	int32_t pid;
	uint32_t gen;
	uint64_t shared;
	uint64_t map, nos, script;
	uint32_t sym;
};

struct node_frames {
	struct node_frames_config cfg;
	struct runtime_procs procs;
	struct runtime_symbols names;
	struct hashtable cache;         /* struct jsname by (pid, gen, shared) */
	struct node_reader rd;
	uint32_t gens;
	struct node_early *early;       /* the samples' reads when drained */
	struct node_frames_g g;         /* the samples' layout (drained; -g's too) */
	int ri_bp, ri_sp, ri_ip;        /* rbp, rsp, rip's places in a sample's registers */
	struct node_frames_stats st;
};


/* A pc in native code, in V8's object (its builtins, when known, apart), or in no
 * file's mapping (V8's compiled code; strict: in an anonymous executable mapping the
 * records told, for a word of the stack that may as well be a heap pointer). */
enum pc_kind { PC_NATIVE, PC_V8, PC_BUILTIN, PC_JIT };

struct walk {
	struct node_frames *nf;
	struct nodeproc *p;
	uint64_t *out;
	size_t n, max;
	bool all;
	bool early;                     /* when drained: reads logged, nothing counted or named */
	size_t proven;                  /* frames proven */
};

/* nf's (owned by it). */
struct node_frames_g *node_frames__g(struct node_frames *nf);

/* The kind of code pc lies in, in p's process (strict: frames_early.c's scan). */
enum pc_kind node__pc_kind(const struct node_frames *nf, const struct nodeproc *p, uint64_t pc, bool strict);

/* The word at addr of the reader's stack copy: false when outside it. */
bool node__copy_word(const struct node_reader *r, uint64_t addr, uint64_t *ret);

/* The walk from (pc, sp, fp) where code of kind k ran: false when the first frame is
 * not JavaScript's (no edit); the frames in w->out. */
bool node__walk_from(struct walk *w, uint64_t pc, uint64_t sp, uint64_t fp, enum pc_kind k);

/* The drained hook (frames_early.c). */
void node_frames__drained(void *rt, const struct perf_event_header *ev);

#endif
