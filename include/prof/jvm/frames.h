/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Java frames in --call-graph dwarf recordings, for HotSpot processes in scope.
 *
 * A process is looked at the first time one of its samples is unwound with a
 * mapping of libjvm.so (jvm.h: its self-description read and checked, its code
 * heaps found).  In each of its samples, the first frame whose pc lies in the code
 * cache starts a walk of the sample's own registers and stack copy (HotSpot's own
 * frame::sender, x86_64):
 *   - a compiled frame (nmethod) by its blob's frame size from its sp: its return
 *     address one word below sp + frame_size words, the caller's rbp one below that;
 *     the leaf only once its pc is past the blob's frame set-up (_frame_complete_offset)
 *     and when no other return address is at sp or sp + 8 (its epilogue);
 *   - an interpreted frame by rbp: its Method* and bcp in the interpreter frame's
 *     slots (x86_64's layout, checked against the constants the JVM exports), the
 *     Method* read as one and the bcp inside its bytecodes, its return address above
 *     rbp, its caller's rbp at rbp, a compiled caller's sp in its sender-sp slot;
 *     the leaf only when the frame is fully made and not between a call and its
 *     callee's frame (its last-sp slot 0);
 *   - each return address accepted only if it is one: an nmethod's has a PcDesc at
 *     exactly that pc, an interpreted caller's lands in the interpreter; one in a
 *     stub (the VM's call stub) ends the walk at "[java: called from the VM]".
 * The walk stops at the first frame it cannot prove with "[java: callers not
 * proven]" above the frames it proved.  The native frames the unwinder found below
 * the first Java frame (a leaf in libjvm.so, libc) stay; what it guessed above it is
 * dropped (JIT code has no CFI).
 *
 * Memory is read only of processes whose samples were written (in scope), and for
 * a user who may record only their own with no effective capability: the kernel's
 * ptrace rules decide (their own processes only), as Python's frames are read.
 *
 * Identity: a frame's blob is read when the sample is unwound, after its instant T;
 * it is named only when the same blob (address, compile id, Method*, code range) was
 * read before T too, for an earlier sample of that process: a compile id is given
 * once per JVM, so the code at that pc at T was that compile of that method.  Else
 * one "[java: unverified]" frame, counted by why, never a name.  The first samples
 * of each compile are therefore unverified (a steady program's: a handful).
 *
 * Names are written as symbols of a synthetic object (runtime/elf_writer.h) at
 * JAVA_BASE in each such process, as async-profiler and JFR's views name them:
 * "pkg.Class.method" (no signature: its ';' would split a folded stack's frame, and
 * an overload is told by its line) followed by " (File.java:LINE)" where the line is
 * exact (interpreted frames and compiled callers: a PcDesc at the return
 * address; a compiled leaf only when a PcDesc is at its pc), else " (File.java)".
 * An nmethod's frames are its inlined scopes, innermost first, when they are exact;
 * a compiled leaf between PcDescs is named by its nmethod's own method alone.
 */
#ifndef PROF_JVM_FRAMES_H
#define PROF_JVM_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/analyze/model.h"
#include "prof/analyze/unwinder.h"
#include "prof/perfdata/build_id_cache.h"
#include "prof/perfdata/sample.h"
#include "prof/synth/synth.h"

/*
 * -g: what the kernel is asked for besides its call chain, so that a sample whose leaf
 * is Java code is walked as with dwarf (frames_g.c): perf's x86_64 registers rbp, rsp
 * and rip, and the top of the user stack (enough for a few compiled and interpreted
 * frames; callers beyond it are "[java: callers not proven]").  Every sample's are
 * stripped before the file, which is what -g writes without them.
 */
#define JAVA_G_REGS ((1ull << 6) | (1ull << 7) | (1ull << 8))
#define JAVA_G_STACK 2048u

/* Where the object is mapped in each JVM process (above Python's, 2^60 + 2^40). */
#define JAVA_BASE (1ull << 61)
#define JAVA_OBJECT_PATH "/prof/java-frames"
/* ... in a live reader's history (profd), which holds no file (python.h's "[python]") */
#define JAVA_OBJECT_LIVE "[java]"

struct jvm_frames_config {
	struct model *model;            /* the processes' maps (the unwinder's), borrowed */
	struct build_id_cache *cache;   /* where the object is kept (borrowed), NULL: none */
	struct synth_env synth;         /* the MMAP2s' sample_id trailer */
	synth_sink_fn sink;             /* where those MMAP2s go, before the sample */
	void *sink_ctx;
	bool as_user;                   /* read with no effective capability (privs__as_user):
					 * a user who may record only their own */
	uint64_t g_sample_type;         /* -g: the kernel samples' (with JAVA_G_REGS and a
					 * stack copy, rewrite_g strips them); 0 otherwise */
	bool strip_only;                /* -g with no cache to keep the object: samples
					 * stripped, no frame named */
};

/* Why a Java frame was not named. */
enum java_why {
	JAVA_NOT_SEEN,                  /* its blob not read before the sample (the first of a compile) */
	JAVA_CHANGED,                   /* ... read before with another compile, method or code */
	JAVA_UNREADABLE,                /* its blob, method or scopes did not read or decode */
	JAVA_BETWEEN,                   /* an interpreter leaf between frames (a call being made) */
	JAVA_GONE,                      /* the process exited before the sample was unwound */
	JAVA_WHYS,
};

struct jvm_frames_stats {
	uint64_t processes;             /* JVMs read */
	uint64_t rejected;              /* ... refused */
	char why_rejected[256];         /* the first one's reason */
	uint64_t samples;               /* samples of JVM processes */
	uint64_t with_java;             /* ... with a frame in the code cache */
	uint64_t verified;              /* ... all of whose Java frames were named */
	uint64_t frames;                /* Java frames named (inlined ones each) */
	uint64_t interpreted, compiled, stubs;  /* ... the walk's frames, by kind */
	uint64_t cut;                   /* samples with [java: callers not proven] */
	uint64_t entry;                 /* ... walked to the VM's call stub */
	uint64_t unverified[JAVA_WHYS]; /* [java: unverified] frames by why */
	uint64_t vm_threads;            /* samples of the VM's own threads, named by role */
	uint64_t locations;             /* symbols of the object */
	int kept;                       /* the object's keeping: 0, or -errno */
};

struct jvm_frames;

/* 0 or -ENOMEM. */
int jvm_frames__new(const struct jvm_frames_config *cfg, struct jvm_frames **ret);

/*
 * The role of a JVM's own thread by the name HotSpot gives it as it starts it (its
 * comm: at most 15 bytes): "[jvm: GC]", "[jvm: JIT compiler (C2)]", "[jvm: VM
 * thread]", ...; NULL for any other name.  A sample of a JVM with no Java frame, of a
 * thread so named, gets it as its outermost frame.
 */
const char *jvm_frames__thread_role(const char *comm);
struct jvm_frames *jvm_frames__free(struct jvm_frames *jf);

/* The JVM on the runtime layer (runtime.h): what a recording's pipeline calls on a
 * struct jvm_frames (the edit hook, -g's rewrite, the records written, the names,
 * the end). */
struct runtime_ops;
const struct runtime_ops *jvm_frames__runtime(void);

/* The unwinder's edit hook (unwinder__set_edit): ctx is the struct jvm_frames. */
size_t jvm_frames__edit(void *ctx, const struct sample *s, uint64_t *ips, const uint64_t *sps,
			const struct unwind_regs *regs, size_t nr, size_t max);

/*
 * -g: kernel sample ev of the sampling attr (JAVA_G_REGS and a stack copy) rewritten
 * into out (at least ev->size + 8 * (UNWIND_MAX_OUT_FRAMES + 2) bytes) as the file
 * states it: no registers, no stack, and where its user leaf is in a JVM's code cache,
 * the Java frames walked from it (jvm_frames__edit) in place of the kernel's user
 * chain, the sample's IP the named leaf.  The new size, or -EINVAL for a malformed
 * sample (nothing written).  jf NULL: stripped only.
 */
int jvm_frames__rewrite_g(struct jvm_frames *jf, const struct perf_event_attr *attr,
			  const struct perf_event_header *ev, void *out, size_t outlen);

/* A record as written: a process's EXIT or exec lets its JVM go. */
void jvm_frames__note(struct jvm_frames *jf, const struct perf_event_header *ev);

/*
 * A live reader's name of offset off in object d (prof top, profd: no file, no cache):
 * false when d is not this recording's object; *ret NULL for an offset it never gave.
 * The names live as long as jf (at most JAVA_SYMBOLS_MAX: past it, "[java: unverified]").
 */
struct model_dso;
bool jvm_frames__name(const struct jvm_frames *jf, const struct model_dso *d, uint64_t off, const char **ret);

/* Write the object and keep it in the cache (when any sample used it). */
void jvm_frames__finish(struct jvm_frames *jf);

const struct jvm_frames_stats *jvm_frames__stats(const struct jvm_frames *jf);

/* Do the interpreter frame's slots a JVM exports (frame::interpreter_frame_*_offset,
 * any of them) agree with x86_64's that the walk reads?  False when it exports none. */
struct jvm_layout;
bool jvm_frames__interp_ok(const struct jvm_layout *l);

/* "N samples of M JVM(s), K with Java frames, V all named; F frames (I interpreted,
 * C compiled, S stubs); U [java: unverified] (why); X callers not proven". */
void jvm_frames_stats__describe(const struct jvm_frames_stats *st, char *buf, size_t len);

#endif
