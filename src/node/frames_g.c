/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * -g: JavaScript frames in a kernel sample's user call chain (node/frames.h,
 * node_frames__rewrite_g).  V8 keeps rbp a frame pointer in every frame it makes, so
 * the kernel's chain passes through JavaScript frames, naming none of them: each
 * frame's function slot lies below its frame pointer, in the stack, which a -g sample
 * does not hold unless asked (NODE_G_STACK bytes and JAVA_G_REGS, as for the JVM).
 * The chain's frame pointers are the kernel's walk again over that copy (frame k's
 * is the word at frame k-1's, its return address the next word: checked equal to the
 * chain's); with them the walk of the dwarf path (frames.c) names and proves the
 * frames, from the first pc in V8's code.  The registers and stack stay in the
 * record: the JVM's rewrite, after this one, strips them from every sample.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prof/base/util.h"
#include "prof/jvm/frames.h"
#include "prof/node/frames.h"
#include "prof/runtime/runtime.h"
#include "frames_internal.h"

/* JAVA_G_REGS in the sample's order (the mask's bits) */
enum { G_BP, G_SP, G_IP, G_REGS };

/* The word at addr of s's stack copy. */
static bool stack_word(const struct sample *s, uint64_t addr, uint64_t *ret)
{
	uint64_t sp = s->regs_user.regs[G_SP], len = MIN(s->stack_user.dyn_size, s->stack_user.size);

	if (addr < sp || addr - sp > len || len - (addr - sp) < 8)
		return false;
	memcpy(ret, s->stack_user.data + (addr - sp), 8);
	return true;
}

/* Each user frame's frame pointer (regs) and stack pointer (sps), as far as the
 * copy holds them and they match the chain's return addresses. */
static void frame_pointers(const struct sample *s, const uint64_t *ips, size_t nu, struct unwind_regs *regs,
			   uint64_t *sps)
{
	uint64_t fp = s->regs_user.regs[G_BP];

	memset(regs->known, 0, sizeof(regs->known));
	regs->v[0][REG_BP] = fp;
	regs->v[0][REG_SP] = sps[0] = s->regs_user.regs[G_SP];
	regs->known[0] = (1u << REG_BP) | (1u << REG_SP);
	for (size_t k = 1; k < nu && k < UNWIND_MAX_FRAMES; k++) {
		uint64_t next, ra;

		if (!stack_word(s, fp, &next) || !stack_word(s, fp + 8, &ra) || ra != ips[k])
			break;
		sps[k] = fp + 16;
		regs->v[k][REG_BP] = next;
		regs->v[k][REG_SP] = fp + 16;
		regs->known[k] = (1u << REG_BP) | (1u << REG_SP);
		fp = next;
	}
}

int node_frames__rewrite_g(struct node_frames *nf, const struct perf_event_header *ev, void *out, size_t outlen)
{
	struct node_frames_g *g = node_frames__g(nf);
	uint64_t ips[UNWIND_MAX_OUT_FRAMES], sps[UNWIND_MAX_FRAMES] = { 0 }, leaf;
	size_t nk, nu, n;
	struct sample s;

	if (sample__decode(&s, &g->attr, ev) < 0 || s.size != ev->size || !s.callchain)
		return -EINVAL;
	nk = runtime__kernel_chain(&s);
	if (nk == s.nr_callchain || !s.regs_user.regs || s.regs_user.abi != PERF_SAMPLE_REGS_ABI_64 ||
	    s.regs_user.nr != G_REGS || !s.stack_user.data)
		return 0;
	nu = MIN(s.nr_callchain - nk - 1, (uint64_t)UNWIND_MAX_FRAMES);
	if (!nu || s.callchain[nk + 1] != s.regs_user.regs[G_IP])
		return 0;
	if (!g->regs && !(g->regs = calloc(1, sizeof(*g->regs))))
		return 0;
	memcpy(ips, s.callchain + nk + 1, 8 * nu);
	leaf = ips[0];
	frame_pointers(&s, ips, nu, g->regs, sps);
	n = node_frames__edit(nf, &s, ips, sps, g->regs, nu, UNWIND_MAX_OUT_FRAMES);
	if (n == nu && !memcmp(ips, s.callchain + nk + 1, 8 * nu))
		return 0;
	/* the registers and the stack kept: the JVM's rewrite, after this one, reads them */
	return runtime__splice_chain(ev, &s, g->attr.sample_type, nk, ips, n, leaf,
				     (size_t)((const uint8_t *)(s.callchain + s.nr_callchain) - (const uint8_t *)ev),
				     out, outlen);
}
