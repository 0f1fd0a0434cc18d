/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * JavaScript frames read when their sample is drained from the rings (include/prof/
 * node/early.h): the walk of frames.c run early, its reads of the process logged for
 * the judge's walk of the same sample.
 */
#include <stdint.h>
#include <string.h>

#include "prof/base/util.h"
#include "prof/node/early.h"
#include "prof/node/frames.h"
#include "prof/runtime/runtime.h"
#include "prof/sys/privs.h"
#include "frames_internal.h"

#define EARLY_TRIES 4           /* return addresses into V8's code tried as a first frame */
#define EARLY_LINKS 2           /* ... and frame pointers above each */

/* Walk from (pc, sp, fp) as the judge would: did it prove a frame? */
static bool early_walk(struct walk *w, uint64_t pc, uint64_t sp, uint64_t fp, enum pc_kind k)
{
	w->n = 0;
	w->proven = 0;
	return node__walk_from(w, pc, sp, fp, k) && w->proven;
}

struct drain {
	struct node_frames *nf;
	struct nodeproc *p;
	const struct sample *s;
};

/*
 * The walk of a drained sample, its reads logged.  Nothing is unwound yet: a leaf in
 * V8's code starts it as the judge will; a native leaf (a syscall's, an addon's, V8's
 * C++ called from a builtin) by the stack's first words that return into V8's code
 * (strict: in a mapping the records told, so not a heap pointer), each with the
 * leaf's rbp (native code that left it alone) or the first saved frame pointers above
 * it, until one proves a frame.  A wrong guess costs reads, never a name: the judge
 * proves again from its own unwinding.
 */
static int drain_now(void *arg)
{
	const struct drain *d = arg;
	struct node_frames *nf = d->nf;
	const struct node_reader *r = &nf->rd;
	const uint64_t *regs = d->s->regs_user.regs;
	uint64_t out[NODE_MAX_DEPTH + 1], sp = regs[nf->ri_sp], bp = regs[nf->ri_bp], ip = regs[nf->ri_ip];
	uint64_t top = r->sp + r->len;
	struct walk w = { .nf = nf, .p = d->p, .out = out, .max = ARRAY_SIZE(out), .all = true, .early = true };
	enum pc_kind k = node__pc_kind(nf, d->p, ip, true);
	int tries = 0;

	if (k == PC_JIT || k == PC_BUILTIN) {
		early_walk(&w, ip, sp, bp, k);
		return 0;
	}
	for (uint64_t at = sp; at + 8 <= top && tries < EARLY_TRIES; at += 8) {
		uint64_t ra, fp, link;
		int links = 0;

		if (!node__copy_word(r, at, &ra) || ra < 4096 || (ra >= sp && ra < top))
			continue;
		k = node__pc_kind(nf, d->p, ra, true);
		if (k != PC_JIT && k != PC_BUILTIN)
			continue;
		tries++;
		if (bp > at && bp < top && early_walk(&w, ra, at + 8, bp, k))
			return 0;
		for (fp = at + 8; fp + 16 <= top && links < EARLY_LINKS; fp += 8)
			if (fp != bp && node__copy_word(r, fp, &link) && link > fp && link < top && !(link & 7)) {
				links++;
				if (early_walk(&w, ra, at + 8, fp, k))
					return 0;
			}
	}
	return 0;
}

/* A sample drained from the rings: its process's V8 attached before (when judged),
 * its walk's reads logged for the judge. */
void node_frames__drained(void *rt, const struct perf_event_header *ev)
{
	struct node_frames *nf = rt;
	struct node_early_log *log;
	struct nodeproc *p;
	struct sample s;

	if (ev->type != PERF_RECORD_SAMPLE || !nf->g.attr.sample_type || sample__decode(&s, &nf->g.attr, ev) < 0 ||
	    !s.regs_user.regs || s.regs_user.nr <= (uint64_t)nf->ri_ip || !s.stack_user.data)
		return;
	p = (struct nodeproc *)runtime_procs__find(&nf->procs, (int32_t)s.pid);
	if (!p || !p->rp.attached || !p->ntext || !(log = node_early__start(nf->early, (int32_t)s.tid, s.time)))
		return;
	nf->rd = (struct node_reader){ .pid = p->rp.pid, .stack = s.stack_user.data, .sp = s.regs_user.regs[nf->ri_sp],
				       .len = MIN(s.stack_user.dyn_size, s.stack_user.size), .to = log };
	if (nf->cfg.as_user)
		privs__as_user(drain_now, &(struct drain){ nf, p, &s });
	else
		drain_now(&(struct drain){ nf, p, &s });
	nf->rd = (struct node_reader){ 0 };
	node_early__keep(nf->early, log);
}
