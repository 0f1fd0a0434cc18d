/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DWARF unwinding while recording (--call-graph dwarf), with elfutils' libdwfl.
 *
 * The kernel gives each sample the task's user registers (PERF_SAMPLE_REGS_USER)
 * and a copy of the top of its user stack (PERF_SAMPLE_STACK_USER).  The unwinder
 * walks that copy with the .eh_frame/.debug_frame CFI of the files the task had
 * mapped at the time of the sample, and the sample is rewritten as an ordinary
 * PERF_SAMPLE_CALLCHAIN one: the kernel's own callchain (kernel frames), then
 * PERF_CONTEXT_USER and the unwound user frames.  The registers and the stack copy
 * are not written: the file is what a frame-pointer recording would be, and any
 * reader shows its stacks without DWARF work.
 *
 * The maps are the file's own: every record written is shown to the unwinder
 * (unwinder__note), which keeps each process's executable file mappings as perf
 * report will see them (MMAP2, FORK copies, exec clears, EXIT forgets) in a model
 * of its own (model.h).  A
 * process's Dwfl is built the first time one of its samples is unwound and kept
 * until its executable mappings change, or until the open files of all Dwfls
 * exceed a budget (the least recently used is dropped).  Files are opened by the
 * caller's opener (the recording's objects: as the invoking user, the very file
 * that was mapped, through the task for a container's: src/synth/objects.c).
 *
 * A 64-bit task's vDSO is unwound with its image's CFI (.eh_frame): while
 * recording, prof's own image (the kernel's); a reader's opener gives the image of
 * the file's [vdso] build id (symbols.h), or nothing.
 *
 * Nothing about the live task is read: a task that exited or exec'd since its
 * sample unwinds as well as any other.  What cannot be unwound (no maps known,
 * a 32-bit task, a frame without CFI) is a shorter stack, counted, never an error.
 *
 * prof report unwinds perf's --call-graph dwarf files with it too (dwarf_stacks.h):
 * over the report's model (unwinder__new_reading), a decoded sample at a time
 * (unwinder__unwind).
 */
#ifndef PROF_ANALYZE_UNWINDER_H
#define PROF_ANALYZE_UNWINDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <libelf.h>
#include <linux/perf_event.h>

#include "prof/analyze/model.h"
#include "prof/perfdata/sample.h"
#include "prof/sys/task_file.h"

/* perf's defaults and limits for --call-graph dwarf,SIZE */
#define UNWIND_DEFAULT_STACK 8192u
#define UNWIND_MAX_STACK 65528u
/* user frames kept per sample (perf's default --max-stack) */
#define UNWIND_MAX_FRAMES 127
/* ... and written, with the frames an edit hook adds (Python's) */
#define UNWIND_MAX_OUT_FRAMES (2 * UNWIND_MAX_FRAMES)

struct unwinder;

/* The load bias of the ELF file mapped by m: its PT_LOAD holding file offset
 * m->pgoff is at m->start.  False when elf is not an ELF file or no PT_LOAD holds it. */
bool unwinder__map_bias(Elf *elf, const struct map *m, uint64_t *ret_bias);

struct unwinder_stats {
	uint64_t samples;               /* samples with user registers, unwound */
	uint64_t frames;                /* user frames written */
	uint64_t truncated;             /* ... whose unwinding stopped before an outermost frame */
	uint64_t no_maps;               /* ... whose process had no known file mapping */
	uint64_t foreign_abi;           /* ... of 32-bit tasks (not unwound: the sampled ip only) */
	uint64_t dwfl_builds;           /* Dwfl (re)built for a process */
	uint64_t dwfl_evictions;        /* ... dropped to keep the files open few */
};

/* True where prof can unwind (x86-64). */
bool unwinder__supported(void);

/* The PERF_SAMPLE_REGS_USER mask the unwinder needs. */
uint64_t unwinder__regs_mask(void);

/* The mapped file of mapping f, opened for reading: an fd (the unwinder's), or -errno. */
typedef int (*unwinder_open_fn)(void *ctx, const struct task_file *f);

/*
 * kernel_sample_type: what the sampling event records (with REGS_USER and
 * STACK_USER, and CALLCHAIN when the kernel's part is wanted).  open (ctx) opens
 * the mapped files; NULL: task_file__open(), from prof's root first.  NULL on ENOMEM.
 */
struct unwinder *unwinder__new(uint64_t kernel_sample_type, unwinder_open_fn open, void *ctx);

/*
 * For a reader of recorded samples (prof report of perf's --call-graph dwarf files):
 * the processes' maps are m, the reader's, which unwinder__note then feeds with
 * every record (in place of model__process: an exec keeps the old image's maps,
 * as perf's reader keeps them).  m outlives the unwinder.  NULL on ENOMEM.
 */
struct unwinder *unwinder__new_reading(struct model *m, unwinder_open_fn open, void *ctx);

/* The processes' maps as the unwinder was shown them (unwinder__note keeps them). */
struct model *unwinder__model(struct unwinder *u);
struct unwinder *unwinder__free(struct unwinder *u);

/* The sample_type the rewritten samples have: CALLCHAIN, no REGS_USER/STACK_USER. */
uint64_t unwinder__written_sample_type(uint64_t kernel_sample_type);

/* A record about to be written (MMAP2, FORK, COMM, EXIT matter).  0 or -ENOMEM. */
int unwinder__note(struct unwinder *u, const struct perf_event_header *ev);

/*
 * The general registers (DWARF numbers 0-15) of each unwound frame where they are
 * known: frame 0's are the sample's own; an outer frame's are only the callee-saved
 * ones (rbx, rbp, r12-r15) its CFI recovers, as they were at its call.  Bit r of
 * known[i] says whether v[i][r] holds.
 */
#define UNWIND_REGS 16
#define UNWIND_CALLEE_SAVED ((1u << 3) | (1u << 6) | (1u << 12) | (1u << 13) | (1u << 14) | (1u << 15))
struct unwind_regs {
	uint64_t v[UNWIND_MAX_FRAMES][UNWIND_REGS];
	uint16_t known[UNWIND_MAX_FRAMES];
};

/*
 * An edit of a sample's unwound user frames before it is written: ips (nr of them,
 * room for max), each frame's stack pointer sps (0 where unknown; sps[i + 1] is
 * frame i's CFA) and registers regs, the sample s (its stack copy, pid, time).
 * Returns the new count.
 */
typedef size_t (*unwinder_edit_fn)(void *ctx, const struct sample *s, uint64_t *ips, const uint64_t *sps,
				   const struct unwind_regs *regs, size_t nr, size_t max);

/* Edit every rewritten sample's user frames with fn (NULL: none). */
void unwinder__set_edit(struct unwinder *u, unwinder_edit_fn fn, void *ctx);

/*
 * Rewrite a kernel sample into out (at least ev->size + 8 * (UNWIND_MAX_OUT_FRAMES + 2)
 * bytes).  Returns the new record's size, or -EINVAL for a malformed sample (the
 * caller writes nothing).
 */
int unwinder__rewrite(struct unwinder *u, const struct perf_event_header *ev, void *out, size_t outlen);

/*
 * Unwind sample s's user stack (its registers in the order of unwinder__regs_mask()'s
 * bits) into ips (room for UNWIND_MAX_FRAMES): the sampled ip, then return
 * addresses.  The count, 0 when s has no such registers.  Counted in the stats.
 */
size_t unwinder__unwind(struct unwinder *u, const struct sample *s, uint64_t *ips);

const struct unwinder_stats *unwinder__stats(const struct unwinder *u);

#endif
