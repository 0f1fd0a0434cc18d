/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf's --call-graph dwarf samples unwound while a file is read: see
 * include/prof/analyze/dwarf_stacks.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prof/analyze/dwarf_stacks.h"
#include "prof/analyze/maps.h"

/* Kernel frames kept ahead of the user ones (the reader's limit of a call chain). */
#define KERNEL_FRAMES_MAX 512

struct dwarf_stacks {
	struct unwinder *u;
	struct model *model;            /* borrowed: the reader's */
	struct symbols *syms;           /* borrowed */
	uint64_t regs[64];              /* a sample's registers, in unwinder__regs_mask() order */
	uint64_t chain[KERNEL_FRAMES_MAX + 1 + UNWIND_MAX_FRAMES];
};

bool dwarf_stacks__wanted(const struct perf_event_attr *attr)
{
	uint64_t need = PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;

	return unwinder__supported() && (attr->sample_type & need) == need &&
	       (attr->sample_regs_user & unwinder__regs_mask()) == unwinder__regs_mask();
}

/*
 * The unwinder's files: the object mapped at f->start, as the symbols find it (by
 * build id, else only the mapped device and inode), whatever the path holds now.
 */
static int open_object(void *ctx, const struct task_file *f)
{
	const struct dwarf_stacks *d = ctx;
	const struct maps *ms = model__maps(d->model, f->pid);
	const struct map *m = ms ? maps__find(ms, f->start) : NULL;

	return m ? symbols__open_object(d->syms, model__dso(d->model, m->dso)) : -ENOENT;
}

struct dwarf_stacks *dwarf_stacks__new(struct model *m, struct symbols *syms)
{
	struct dwarf_stacks *d;

	if (!unwinder__supported() || !(d = calloc(1, sizeof(*d))))
		return NULL;
	*d = (struct dwarf_stacks){ .model = m, .syms = syms };
	d->u = unwinder__new_reading(m, open_object, d);
	if (!d->u) {
		free(d);
		return NULL;
	}
	return d;
}

struct dwarf_stacks *dwarf_stacks__free(struct dwarf_stacks *d)
{
	if (d) {
		unwinder__free(d->u);
		free(d);
	}
	return NULL;
}

int dwarf_stacks__note(struct dwarf_stacks *d, const struct perf_event_header *ev)
{
	return unwinder__note(d->u, ev);
}

/* The registers the unwinder reads, from a sample of mask (a superset of its own). */
static void regs_for_unwinder(uint64_t *out, const uint64_t *in, uint64_t mask)
{
	uint64_t want = unwinder__regs_mask();
	unsigned int k = 0;

	for (unsigned int b = 0; b < 64; b++)
		if (want & (1ull << b))
			out[k++] = in[__builtin_popcountll(mask & ((1ull << b) - 1))];
}

/* The kernel's part of a call chain: up to its PERF_CONTEXT_USER, if any. */
static uint64_t kernel_part(const struct sample *s)
{
	uint64_t n = s->nr_callchain < KERNEL_FRAMES_MAX ? s->nr_callchain : KERNEL_FRAMES_MAX;

	for (uint64_t i = 0; i < n; i++) {
		uint64_t a;

		memcpy(&a, &s->callchain[i], 8);
		if (a == PERF_CONTEXT_USER)
			return i;
	}
	return n;
}

bool dwarf_stacks__unwind(struct dwarf_stacks *d, const struct perf_event_attr *attr, struct sample *s)
{
	struct sample copy = *s;
	uint64_t nr_k, nr_u;

	if (!s->regs_user.regs || !s->stack_user.data || !dwarf_stacks__wanted(attr) ||
	    s->regs_user.nr != (unsigned int)__builtin_popcountll(attr->sample_regs_user))
		return false;
	regs_for_unwinder(d->regs, s->regs_user.regs, attr->sample_regs_user);
	copy.regs_user.regs = d->regs;
	copy.regs_user.nr = (unsigned int)__builtin_popcountll(unwinder__regs_mask());
	nr_k = kernel_part(s);
	nr_u = unwinder__unwind(d->u, &copy, d->chain + nr_k + 1);
	if (!nr_u)
		return false;
	if (nr_k)
		memcpy(d->chain, s->callchain, 8 * nr_k);
	d->chain[nr_k] = PERF_CONTEXT_USER;
	s->callchain = d->chain;
	s->nr_callchain = nr_k + 1 + nr_u;
	return true;
}

const struct unwinder_stats *dwarf_stacks__stats(const struct dwarf_stacks *d)
{
	return unwinder__stats(d->u);
}
