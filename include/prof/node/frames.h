/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * JavaScript frames in unwound samples (--call-graph dwarf), on the runtime layer
 * (runtime/runtime.h): a process with V8 (node.h) is attached at its first sample;
 * each of its samples whose unwound frames reach V8's code (a pc in no file's
 * mapping: its compiled code; or the last frame the native unwinder reached, in V8's
 * own object: its interpreter) gets its JavaScript frames walked by frame pointer
 * from that frame's registers through the sample's own stack copy (every frame
 * slot as at the sample instant; only heap objects are read later, from the
 * process), interleaved after the native frames below them.  A frame is named
 * (`function (file:line:column)`, symbols of the synthetic object /prof/js-frames)
 * only where its pc lies in the code of the function named: a compiled frame's pc
 * in its JSFunction's code's instructions, an interpreted one's in V8's own code and
 * its frame's BytecodeArray its function's; else one `[js: unverified]` frame,
 * counted by why, and no callers.
 */
#ifndef PROF_NODE_FRAMES_H
#define PROF_NODE_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/analyze/model.h"
#include "prof/analyze/unwinder.h"
#include "prof/perfdata/build_id_cache.h"
#include "prof/perfdata/sample.h"
#include "prof/synth/synth.h"

struct runtime_ops;

/* Where the object is mapped in each node process (above Java's 2^61). */
#define NODE_BASE (3ull << 61)
#define NODE_OBJECT_PATH "/prof/js-frames"
#define NODE_UNVERIFIED_NAME "[js: unverified]"
/* -g: the user stack the kernel copies at a sample when a node is in reach (the
 * registers are the JVM's, JAVA_G_REGS: rbp, rsp, rip) */
#define NODE_G_STACK 8192u

struct node_frames_config {
	struct model *model;            /* the processes' maps (the unwinder's), borrowed */
	struct build_id_cache *cache;   /* where the object is kept (borrowed) */
	struct synth_env synth;         /* the MMAP2s' sample_id trailer */
	synth_sink_fn sink;             /* where those MMAP2s go, before the sample */
	void *sink_ctx;
	bool as_user;                   /* read with no effective capability (privs__as_user) */
	/* the samples' sample_type and user registers (unwinder__regs_mask()), to read
	 * them when drained (early.h); 0: read only when judged */
	uint64_t sample_type, regs_mask;
	/* -g: the model keeps only the mappings node_ops.mapping keeps (a pc in no file
	 * is not V8's code for that), the samples are rewritten (frames_g.c) */
	bool g;
	/* a live reader's (prof top, profd: no object written): the most names kept at
	 * once, in windows (runtime_symbols); 0: a recording's, every name kept */
	uint32_t live_names;
};

/* Why a JavaScript frame was not named. */
enum node_why {
	NODE_WHY_FRAME,                 /* its slots are not a JavaScript frame's (a refusal) */
	NODE_WHY_READ,                  /* its objects could not be read (moved, freed, gone) */
	NODE_WHY_PC,                    /* its pc is not in its function's code */
	NODE_WHY_NO_RANGE,              /* its code's range could not be read */
	NODE_WHY_STACK,                 /* its slots lie beyond the stack copy */
	NODE_WHY_GONE,                  /* the process exited before its sample was read */
	NODE_WHYS,
};

struct node_frames_stats {
	uint64_t processes;             /* V8s attached */
	uint64_t rejected;              /* ... refused */
	char why_rejected[320];         /* the first one's reason */
	uint64_t samples;               /* samples of processes with V8 */
	uint64_t with_js;               /* ... whose frames reached V8's code */
	uint64_t verified;              /* ... all of whose JavaScript frames were named */
	uint64_t frames;                /* JavaScript frames named */
	uint64_t interpreted, compiled; /* ... by tier */
	uint64_t native_entry;          /* walks that ended at V8's entry from native code */
	uint64_t unverified[NODE_WHYS]; /* [js: unverified] frames by why */
	uint64_t cached;                /* frames named from the checked cache */
	uint64_t early;                 /* samples with JavaScript frames read when drained */
	int kept;                       /* the object's keeping: 0, or -errno */
};

struct node_frames;

/* 0 or -ENOMEM. */
int node_frames__new(const struct node_frames_config *cfg, struct node_frames **ret);
/* Its hooks on the runtime layer, as a pipeline calls them (runtime/runtime.h). */
const struct runtime_ops *node_frames__runtime(void);
struct node_frames *node_frames__free(struct node_frames *nf);

/* -g: kernel sample ev (its sample_type cfg->sample_type, JAVA_G_REGS) with its
 * JavaScript frames in its user call chain, into out (outlen bytes), its registers
 * and stack kept (the JVM's rewrite strips them after): its size, 0 when it goes on
 * as it came, -EINVAL for a malformed sample (runtime_ops.rewrite_g). */
int node_frames__rewrite_g(struct node_frames *nf, const struct perf_event_header *ev, void *out, size_t outlen);

/* The unwinder's edit hook (unwinder_edit_fn): ctx is the struct node_frames. */
size_t node_frames__edit(void *ctx, const struct sample *s, uint64_t *ips, const uint64_t *sps,
			 const struct unwind_regs *regs, size_t nr, size_t max);

/* A record as written: a process's EXIT (or exec) lets its V8 go. */
void node_frames__note(struct node_frames *nf, const struct perf_event_header *ev);

/* The name at offset off of d when d is this recording's object (a live reader's). */
bool node_frames__name(const struct node_frames *nf, const struct model_dso *d, uint64_t off, const char **ret);

/* Write the object and keep it in the cache (when any sample used it). */
void node_frames__finish(struct node_frames *nf);

const struct node_frames_stats *node_frames__stats(const struct node_frames *nf);

/* "N samples of M node process(es), K with JavaScript frames, V all named; F frames
 * (I interpreted, C compiled); U [js: unverified] (why)". */
void node_frames_stats__describe(const struct node_frames_stats *st, char *buf, size_t len);

#endif
