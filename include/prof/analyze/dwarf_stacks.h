/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The user stacks of a file's --call-graph dwarf samples (perf record's: each
 * sample carries the task's user registers and a copy of the top of its user
 * stack), unwound while the file is read, with prof's unwinder (unwinder.h) over
 * the reader's own model of the processes' maps.  The objects are the ones the
 * symbols trust (symbols.h: found by build id, perf's build-id cache first, else
 * the mapped device and inode), so a stack is walked with the CFI of the very file
 * its names come from.  What cannot be unwound (no file, a frame without CFI, a
 * 32-bit task) is a shorter stack, counted, never an error.
 */
#ifndef PROF_ANALYZE_DWARF_STACKS_H
#define PROF_ANALYZE_DWARF_STACKS_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "prof/analyze/model.h"
#include "prof/analyze/symbols.h"
#include "prof/analyze/unwinder.h"
#include "prof/perfdata/sample.h"

struct dwarf_stacks;

/* Does attr's event record what the unwinder walks (user registers and stack)? */
bool dwarf_stacks__wanted(const struct perf_event_attr *attr);

/* Over the reader's model m and symbols syms (borrowed: they outlive it).  NULL on
 * ENOMEM, or where prof cannot unwind (unwinder__supported()). */
struct dwarf_stacks *dwarf_stacks__new(struct model *m, struct symbols *syms);
struct dwarf_stacks *dwarf_stacks__free(struct dwarf_stacks *d);

/* Every record but samples, in place of model__process (the unwinder follows the
 * maps).  0 or -ENOMEM. */
int dwarf_stacks__note(struct dwarf_stacks *d, const struct perf_event_header *ev);

/*
 * If s (a sample of attr) carries user registers and a stack copy: its call chain
 * becomes the kernel's part of it, then PERF_CONTEXT_USER and the unwound user
 * frames, in d's memory (valid until the next call).  True when it did.
 */
bool dwarf_stacks__unwind(struct dwarf_stacks *d, const struct perf_event_attr *attr, struct sample *s);

const struct unwinder_stats *dwarf_stacks__stats(const struct dwarf_stacks *d);

#endif
