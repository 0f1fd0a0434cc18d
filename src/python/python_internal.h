/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * python's internals, shared by its files only (libperf's habit: the struct opaque in
 * the public header python.h, whole here): python.c has the public calls, a process's
 * attach and each sample's frames; names.c names code objects and their lines as
 * proven by time, into the symbol table; activation.c finds the activations of a
 * sample and what its stack copy pins of each; chain_frames.c uses the chains read at
 * the sample instant (chain.h).
 */
#ifndef PROF_PYTHON_PYTHON_INTERNAL_H
#define PROF_PYTHON_PYTHON_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/perf_event.h>

#include "prof/base/hashtable.h"
#include "prof/base/util.h"
#include "prof/perfdata/build_id.h"
#include "prof/python/chain.h"
#include "prof/python/early.h"
#include "prof/python/interp.h"
#include "prof/python/python.h"
#include "prof/python/walk.h"
#include "prof/runtime/runtime.h"

/* Symbol 0: what an activation that could not be proven shows. */
#define UNVERIFIED_NAME "[python: unverified]"
/* Symbol 1: above an activation's function when it has callers (not the sample's for sure). */
#define CALLERS_NAME "[python: callers not proven]"
/* Code objects remembered (all forgotten beyond: read again as needed), and the most
 * symbols of the object (beyond: [python: unverified], counted as not readable). */
#define CODES_KEPT (1u << 16)
#define SYMBOLS_MAX (1u << 22)

/* A process whose samples were unwound: its interpreter, once judged (the runtime
 * layer's process table holds it, runtime.h). */
struct pyproc {
	struct runtime_proc rp;         /* pid, judged, counted, own maps, pidfd */
	struct interp in;               /* in.l NULL: not an attached interpreter */
	bool chained;                   /* in the chains' map (chain.h) */
	bool unconfirmed;               /* INTERP_PROLOGUE: no thread state agreed yet */
	uint8_t confirm_tries;          /* ... readings since (python__confirm) */
	bool how_counted;               /* in st.read_by (python__count_how) */
};

/* What a code object's address was read to hold: its name, and since when.  A code
 * object freed and another made at its address (exec in a loop) may have its very
 * pointers and fields, so the name itself is read each time and compared. */
struct pycode {
	int32_t pid;
	uint64_t addr;
	uint64_t name_hash;             /* of the name read */
	uint64_t since_ns;              /* the first reading of that name there (CLOCK_MONOTONIC) */
	uint64_t confirmed_ns;          /* before the last reading of that same name there */
	uint64_t table_hash;            /* part of the name (python__code_symbol) */
	uint32_t sym;                   /* "qualname (file:def N)", 0 when it could not be kept */
};

/* A pinned instruction as named: its code object (fields as read) and symbol. */
struct pyline {
	int32_t pid;
	uint64_t instr;
	uint64_t code, qualname, filename, linetable;
	int32_t firstlineno;
	uint64_t table_hash;            /* of the co_linetable's bytes as read */
	uint32_t code_sym;              /* the code object's proven name (python__code_symbol) */
	uint32_t sym;                   /* "qualname (file:LINE)" */
};

struct python {
	struct python_config cfg;
	struct hashtable lines;         /* struct pyline by (pid, instr) */
	uint8_t table[1 << 16];         /* a co_linetable as read */
	struct runtime_procs procs;     /* struct pyproc by pid (runtime.h) */
	struct hashtable codes;         /* struct pycode by (pid, addr) */
	struct runtime_symbols names;     /* the object's symbols, [0] UNVERIFIED_NAME, [1] CALLERS_NAME,
					 * in windows (live_names: python.h); its build id random,
					 * known before it is written */
	struct perf_event_attr attr;    /* of the kernel's samples (python__early decodes them) */
	struct python_early *early;     /* frames read when drained (early.h) */
	struct interp_cache builds;     /* builds judged by their DWARF (interp.h) */
	struct python_stats st;
};

/* A code object or instruction of a process: the key of py->codes and py->lines. */
struct code_key {
	int32_t pid;
	uint64_t addr;
};

/* Where symbol sym of the current window of names is mapped. */
static inline uint64_t python__addr(const struct python *py, uint32_t sym)
{
	return PYTHON_BASE + py->names.base + sym;
}

/* The process read by python__read_mem (its ctx). */
struct reader {
	int32_t pid;
};

/* An activation of the eval function in a sample: where its native frame is, and what
 * the sample pins of it (activation.c). */
struct activation {
	size_t at;                      /* its native frame's index */
	uint64_t cfa;                   /* its CFA, 0 when unknown */
	uint64_t frame, code;           /* pinned; 0 when not */
	struct python_pinned pin;       /* builds with debug info: what else is pinned */
};

/* ---- python.c ------------------------------------------------------------------ */

/* CLOCK_MONOTONIC now, in ns. */
uint64_t python__now_ns(void);

/* Read len bytes at addr of the process ctx (a struct reader) names: 0, -EFAULT when
 * fewer were read, or a negative errno (process_vm_readv). */
int python__read_mem(void *ctx, uint64_t addr, void *buf, size_t len);

/* -g: the runtime layer's rewrite_g (runtime.h): a sample's user chain with the
 * Python frames its chain read at the sample instant (chain_frames.c). */
int python__rewrite_g(void *rt, const struct perf_event_header *ev, void *out, size_t outlen);

/* The process's interpreter, looked at when its maps changed (NULL on ENOMEM; in.l
 * NULL: not an attached interpreter). */
struct pyproc *python__proc_get(struct python *py, int32_t pid);

/* Are p's slots (INTERP_PROLOGUE) confirmed by its threads, read again now if they
 * were not?  After PYTHON_CONFIRM_TRIES readings none agreed with, its chains alone
 * (INTERP_CHAIN), or no Python frames without them. */
#define PYTHON_CONFIRM_TRIES 100

/* How p's frames are read (st.read_by), counted at its first sample: how (INTERP_CHAIN
 * for -g's, which has no stack copy), why_no_pins the reason for INTERP_CHAIN. */
void python__count_how(struct python *py, struct pyproc *p, enum interp_how how, const char *why_no_pins);
bool python__confirm(struct python *py, struct pyproc *p);

/* The synthetic object mapped into the sample's process before its first frame there:
 * 0 or -errno. */
int python__map_object(struct python *py, const struct sample *s);

/* The sample's new call chain (out[n]) into ips, counted: read at t, all verified;
 * returns n. */
size_t python__frames_done(struct python *py, const struct sample *s, uint64_t *ips, const uint64_t *out, size_t n,
			   uint64_t t, bool all);

/* ---- names.c ------------------------------------------------------------------- */

/* The names table (symbols 0 and 1: UNVERIFIED_NAME, CALLERS_NAME): 0 or -ENOMEM. */
int python__names_init(struct python *py);
/* Before a sample: with live_names, a new window of names when this one is full. */
void python__names_turn(struct python *py);

/* The symbol of name: its index (added when new), or 0 on ENOMEM (unverified). */
uint32_t python__symbol(struct python *py, const char *name);

/* A bytes object of the process (at most len bytes) into buf: its size, or -errno. */
int python__read_bytes(const struct python_layout *l, struct reader *r, uint64_t addr, uint8_t *buf, size_t len);

/* The symbol "qualname (file:def N)" of code object f->code if it is proven to be the
 * one there at sample time t, with table_hash part of its name; 0 with *ret_v saying
 * why not (names.c says what is proven). */
uint32_t python__code_symbol(struct python *py, const struct interp *in, struct reader *r,
			     const struct python_frame *f, uint64_t table_hash, uint64_t t, enum python_verdict *ret_v);

/* Was code object addr of process pid first read (its name kept) after t, so that no
 * reading now can prove it at t (python__code_symbol names a code object only from a
 * reading before the sample): a sample drained late, older than that first reading.
 * Its verdict is PYTHON_NOT_BEFORE whatever a reading would find; none is made. */
bool python__code_late(struct python *py, int32_t pid, uint64_t addr, uint64_t t);

/* The symbol "qualname (file:LINE)" of f's pinned instruction, by the co_linetable in
 * py->table (n bytes, hash th) that python__code_symbol proved with code_sym; 0 when
 * unreadable or where the table gives that instruction no line. */
uint32_t python__line_symbol(struct python *py, const struct interp *in, struct reader *r,
			     const struct python_frame *f, int n, uint64_t th, uint32_t code_sym);

/* The symbols of the activation that pinned (frame, code, and pin where the build's
 * DWARF pins more) into syms, innermost first: its function, and CALLERS_NAME above it
 * when it may have callers; how many, 0 with *ret_v saying why it could not be
 * verified.  t: the sample's time.  Read under the kernel's ptrace rules for a user
 * restricted to their own processes. */
size_t python__walk_symbols(struct python *py, struct pyproc *p, uint64_t frame, uint64_t code,
			    const struct python_pinned *pin, uint64_t t, uint32_t *syms, enum python_verdict *ret_v);

/* ---- activation.c -------------------------------------------------------------- */

/* The word at addr of the sample's stack copy (sp: the copy's start). */
bool python__stack_word(const struct sample *s, uint64_t sp, uint64_t addr, uint64_t *ret);

/* The activations of a sample's native frames, innermost first (at most max). */
size_t python__activations(const struct interp *in, const struct sample *s, const uint64_t *ips,
			   const uint64_t *sps, const struct unwind_regs *regs, size_t nr, struct activation *out,
			   size_t max);

/* ---- chain_frames.c ------------------------------------------------------------ */

/* The process's threads' chains read from now on, where its layout says where its
 * thread states are and they check out; else counted in st.chain_refused, with why. */
void python__chain_attach(struct python *py, struct pyproc *p);

/* A chained process's sample drained: its chain's code objects read now (chain_frames.c
 * says why). */
void python__chain_early(struct python *py, struct pyproc *p, const struct sample *s);

/* The sample's Python frames from its chain (how many written into out, at most max),
 * or SIZE_MAX when the chain does not agree with the sample (then as without one);
 * *ret_all false when a frame could not be named. */
size_t python__chain_frames(struct python *py, struct pyproc *p, const struct sample *s, const uint64_t *ips,
			    size_t nr, const struct activation *acts, size_t nacts, const struct python_chain *ch,
			    uint64_t *out, size_t max, bool *ret_all);

/* A sample's user call chain (ips[nr], leaf first) with the Python frames of its
 * chain ch (NULL: none read) paired as -g pairs them (python__fp_frames), into ips
 * (at most max): how many; nr when there is no chain.  Counted in p's samples. */
size_t python__chain_paired(struct python *py, struct pyproc *p, const struct sample *s,
			    const struct python_chain *ch, uint64_t *ips, size_t nr, size_t max);

#endif
