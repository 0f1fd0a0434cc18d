/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * -g: a JVM's Java frames from the kernel's sample (include/prof/jvm/frames.h,
 * jvm_frames__rewrite_g).  The kernel's frame-pointer chain through compiled Java code
 * proves nothing (C2 keeps no frame pointer: rbp is one of its registers), so the
 * user part of a sample whose leaf lies in a JVM's code cache is replaced by the walk
 * of the dwarf recordings (frames_walk.c) over the leaf's registers and the stack copy
 * the kernel took at the sample (JAVA_G_REGS, JAVA_G_STACK): the leaf proven by time,
 * its callers where the walk proves them, "[java: callers not proven]" above.  A
 * native leaf (libjvm.so, libc, the vDSO) keeps the kernel's chain: the walk would
 * start from a frame whose stack pointer nothing gives, and its Java callers stay
 * unnamed, as before.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prof/base/util.h"
#include "frames_internal.h"

/* perf's x86_64 registers of JAVA_G_REGS, in the sample's order (the mask's bits) */
enum { G_BP, G_SP, G_IP, G_REGS };

/* The user frames ips (nu of them, room for max) edited where the leaf is a JVM's
 * Java code: the new count. */
static size_t edit(struct jvm_frames *jf, const struct sample *s, uint64_t *ips, size_t nu, size_t max)
{
	uint64_t sps[UNWIND_MAX_OUT_FRAMES] = { 0 };
	const uint64_t *r = s->regs_user.regs;

	if (!nu || !r || s->regs_user.abi != PERF_SAMPLE_REGS_ABI_64 || s->regs_user.nr != G_REGS ||
	    r[G_IP] != ips[0] || !s->stack_user.data)
		return nu;
	if (!jf->gregs && !(jf->gregs = calloc(1, sizeof(*jf->gregs))))
		return nu;
	/* the leaf's: DWARF's rbp (6) and rsp (7), as frames_walk.c reads the unwinder's */
	jf->gregs->v[0][6] = r[G_BP];
	jf->gregs->v[0][7] = r[G_SP];
	jf->gregs->known[0] = (1u << 6) | (1u << 7);
	sps[0] = r[G_SP];
	return jvm_frames__edit(jf, s, ips, sps, jf->gregs, nu, max);
}

int jvm_frames__rewrite_g(struct jvm_frames *jf, const struct perf_event_attr *attr,
			  const struct perf_event_header *ev, void *out, size_t outlen)
{
	uint64_t ips[UNWIND_MAX_OUT_FRAMES], leaf = 0;
	size_t nk, nu, n = 0;
	struct sample s;

	if (sample__decode(&s, attr, ev) < 0 || s.size != ev->size || !s.callchain)
		return -EINVAL;
	nk = runtime__kernel_chain(&s);
	if (nk < s.nr_callchain) {
		nu = MIN(s.nr_callchain - nk - 1, (uint64_t)UNWIND_MAX_FRAMES);
		memcpy(ips, s.callchain + nk + 1, 8 * nu);
		leaf = nu ? ips[0] : 0;
		n = jf ? edit(jf, &s, ips, nu, UNWIND_MAX_OUT_FRAMES) : nu;
	}
	/* the registers and the stack copy dropped: no reader after this one needs them */
	return runtime__splice_chain(ev, &s, attr->sample_type, nk, ips, n, leaf, s.after_stack_user, out, outlen);
}
