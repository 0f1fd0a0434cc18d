/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Python frames in --call-graph dwarf recordings, for Python processes in scope.
 *
 * A process is looked at the first time one of its samples is unwound: an object it
 * maps (the executable, or libpython3.X.so) with _PyEval_EvalFrameDefault,
 * _PyRuntime, PyCode_Type and Py_Version in its .dynsym is an interpreter; its
 * version and build must have a layout (layout.h), and PyCode_Type as the process
 * itself holds it must agree with the layout (its name, its basic and item sizes),
 * else the process gets no Python frames and the reason is counted once.
 *
 * In each of its samples, every native frame in the eval function is an activation;
 * the sample's stack copy pins its current frame and code object, which are checked
 * in the process (process_vm_readv: the frame still runs that code object, a real
 * code object, or the code object is unchanged since so named; walk.h).  The activation's innermost Python function is then written
 * into the call chain just above that native frame, named by its code object
 * "qualname (file:def LINE)" (LINE the function's first line: the code object's own,
 * exact), as an address in the recording's synthetic object (elf_writer.h), mapped in
 * each such process by an MMAP2 at PYTHON_BASE, which no real mapping can use (user
 * addresses end at 2^47, or 2^56 with 5-level paging; kernel ones start at 2^63 +
 * ...).  Its callers and its current line live in the heap, read only after the
 * sample: never shown; an activation whose frame has callers gets one
 * "[python: callers not proven]" frame above it instead.  CPython 3.8-3.10 run each
 * Python call in an activation of its own (frame_old.h): there, each activation's
 * one frame is pinned and nothing is above it.  An activation that cannot be
 * checked gets one "[python: unverified]" frame, counted by why.
 *
 * Memory is read only of processes whose samples were written (in scope, as the
 * tracker judged them): by a user who may record only their own, with no effective
 * capability (the kernel's ptrace rules decide: their own processes only); by root
 * or an admin, with prof's rights.  A pidfd opened at attach says whether the pid
 * still names that process after each read.
 */
#ifndef PROF_PYTHON_PYTHON_H
#define PROF_PYTHON_PYTHON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/analyze/model.h"
#include "prof/analyze/unwinder.h"
#include "prof/perfdata/build_id_cache.h"
#include "prof/perfdata/sample.h"
#include "prof/python/chain.h"
#include "prof/python/walk.h"
#include "prof/synth/synth.h"

/* Where the synthetic object is mapped in each Python process. */
#define PYTHON_BASE (1ull << 60)
/* The names a live reader's recording keeps at once (python_config.live_names):
 * some 6 MB at most. */
#define PYTHON_LIVE_NAMES (1u << 16)
/* Its name in the MMAP2s (and in the build-id cache). */
#define PYTHON_OBJECT_PATH "/prof/python-frames"
/* ... and in profd's history, which names no file for them (sampler.c). */
#define PYTHON_OBJECT_LIVE "[python]"

struct python_config {
	struct model *model;            /* the processes' maps (the unwinder's), borrowed */
	unwinder_open_fn open;          /* the mapped files */
	void *open_ctx;
	struct build_id_cache *cache;   /* where the object is kept (borrowed) */
	struct synth_env synth;         /* the MMAP2s' sample_id trailer */
	uint64_t kernel_sample_type;    /* of the kernel's samples, as drained */
	bool as_user;                   /* read with no effective capability (privs__as_user):
					 * a user who may record only their own */
	struct python_chains *chains;   /* callers read at each sample (chain.h), NULL: none */
	synth_sink_fn sink;             /* where those MMAP2s go, before the sample */
	void *sink_ctx;
	uint32_t live_names;            /* a live reader's (no object written): the most
					 * names kept at once, 0 for no bound (see below) */
	const struct sample_layout *g_layout; /* -g (model holds only interpreters' maps): the
					 * kernel samples' layout, so that a sample of a
					 * process never judged passes undecoded; NULL otherwise */
};

struct python_stats {
	uint64_t processes;             /* interpreters attached */
	uint64_t read_by[5];            /* ... by how their frames are read (interp.h's enum
					 * interp_how: fixed slots, DWARF, code, chain alone,
					 * slots from the prologue) */
	char why_no_pins[160];          /* the first chain-alone one's reason */
	uint64_t rejected;              /* interpreters that got no Python frames */
	char why_rejected[256];         /* the first one's reason */
	uint64_t samples;               /* samples of attached processes */
	uint64_t with_python;           /* ... with at least one activation */
	uint64_t verified;              /* ... all of whose activations were verified */
	uint64_t activations;           /* verified */
	uint64_t by_code;               /* ... by their code object alone (walk.h) */
	uint64_t callers;               /* ... with [python: callers not proven] above */
	uint64_t lines;                 /* ... named with their line (the instruction pinned) */
	uint64_t unverified[PYTHON_VERDICTS]; /* [python: unverified] frames (of an activation, or of a chain), by why */
	uint64_t locations;             /* symbols of the object */
	uint64_t early;                 /* samples whose frames were checked when drained */
	/* chains read at the sample instant (chain.h) */
	uint64_t chain_procs;           /* processes whose threads' chains are read */
	uint64_t chain_refused;         /* processes whose thread states did not check out */
	char why_chain_refused[256];
	uint64_t chained;               /* samples shown from their chain */
	uint64_t chain_frames;          /* ... frames named */
	uint64_t chain_lines;           /* ... with their line */
	uint64_t chain_disagreed;       /* samples whose chain did not match their stack copy */
	uint64_t unchained;             /* samples of such a process with no chain */
	uint64_t fp_cut;                /* -g: samples whose native callers were not shown */
	uint64_t delay_sum_ns, delay_max_ns; /* from a sample to its reading */
	uint64_t name_windows;          /* live_names: windows of names started after the first */
	int kept;                       /* the object's keeping: 0, or -errno */
};

struct python;

/* 0 or -ENOMEM. */
int python__new(const struct python_config *cfg, struct python **ret);
struct python *python__free(struct python *py);

/* Python on the runtime layer (runtime.h): what a recording's pipeline calls on a
 * struct python (the frames of a sample with or without a stack copy, the records
 * drained and written, the names, the end). */
struct runtime_ops;
const struct runtime_ops *python__runtime(void);

/* The unwinder's edit hook (unwinder__set_edit): ctx is the struct python. */
size_t python__frames(void *ctx, const struct sample *s, uint64_t *ips, const uint64_t *sps,
		      const struct unwind_regs *regs, size_t nr, size_t max);

/*
 * -g (frame pointers: no stack copy): a sample's user call chain (ips[nr], leaf
 * first, as the kernel gave it) with the Python frames its chain read at the sample
 * instant (chain.h) into ips (at most max): how many; nr, unchanged, when there is no
 * chain for it.  Where the frame pointers give as many eval frames as the chain has
 * activations, each activation's frames stand above its own, all native frames
 * kept; otherwise (a build without frame pointers) the native frames up to the
 * first eval frame (or the leaf alone), then the activations' frames, and no
 * native caller (counted in fp_cut).
 */
size_t python__fp_frames(struct python *py, const struct sample *s, uint64_t *ips, size_t nr, size_t max);

/*
 * A record as drained from the ring buffers, long before it is unwound: the Python
 * frames of a sample of a process attached before are read now where its thread's
 * last stack shape pins them (python__frames uses that reading only if the sample's
 * own unwinding pins the same frames).
 */
void python__early(struct python *py, const struct perf_event_header *ev);

/*
 * Has process pid been judged (python__fp_frames, python__frames) and not let go
 * since (its EXIT)?  A hash look-up: what lets -g's pipeline pass the samples of
 * a process that never had an interpreter mapped, and was never judged, on untouched.
 */
bool python__has_proc(const struct python *py, int32_t pid);

/* Write the object and keep it in the cache (when any sample used it). */
void python__finish(struct python *py);

/*
 * Live readers (prof top, profd), which have no file and no object in the cache: is
 * d this recording's object (its build id, random per recording, which no other
 * mapping can have)?  Then *ret is the name of its symbol at file offset off, NULL
 * when there is none (any more).  The name is py's, valid until the next sample is
 * given to py: a live reader names each sample as it is handed to it.
 *
 * With live_names, the names are kept in windows: when a window holds live_names,
 * the next sample starts a new one; the old names, and every code object and line
 * named with them, are forgotten.  Addresses are never used twice: a window's
 * symbols follow the last one's (the mapping is 2^40 long), so a name cached by
 * address is never another's, and an address of a window gone names nothing.
 */
bool python__name(const struct python *py, const struct model_dso *d, uint64_t off, const char **ret);

/* A process's EXIT (a sideband record as written): its interpreter and pidfd let go. */
void python__note(struct python *py, const struct perf_event_header *ev);

const struct python_stats *python__stats(const struct python *py);

/* The [python: unverified] frames, every reason together. */
uint64_t python_stats__unverified(const struct python_stats *st);

/* The first line of the statistics: "N samples of M interpreter(s), K with Python
 * frames, V of them all verified; U [python: unverified] frames (why); read: I by
 * ..." (how each interpreter's frames were read, interp.h). */
void python_stats__describe(const struct python_stats *st, char *buf, size_t len);
/* Its last part alone: "; read: N by ..." (nothing written when no interpreter was). */
void python_stats__how(const struct python_stats *st, char *buf, size_t len);

#endif
