/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * python's use of the chains read at the sample instant (chain.h, python_internal.h):
 * a process's chains asked for at its attach, its chains' code objects read when
 * their samples are drained, and each sample's chain cut into its activations and
 * named as a pinned frame is.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "prof/base/hash.h"
#include "prof/base/hashtable.h"
#include "prof/base/util.h"
#include "prof/python/chain.h"
#include "prof/python/interp.h"
#include "python_internal.h"

/* ---- attach: the process's chains read from then on ------------------------------ */

/* Where a process's thread states and their current frames are (layout.h's chain
 * offsets, or 3.13's own _Py_DebugOffsets). */
struct chain_offsets {
	uint64_t rt_interp_head, is_next, is_threads_head;
	uint64_t ts_next, ts_interp, ts_native_tid, ts_frame, cframe_current;
};

/* 3.13's _Py_DebugOffsets (at _PyRuntime's start: its cookie checked, and its frame
 * offsets the layout's), as CPython 3.13's Include/internal/pycore_runtime.h lays it
 * out. */
#define DEBUG_OFFSETS_READ 272

static int debug_offsets(const struct interp *in, struct reader *r, struct chain_offsets *o, char *why, size_t len)
{
	const struct python_layout *l = in->l;
	uint8_t d[DEBUG_OFFSETS_READ];

	if (python__read_mem(r, in->runtime, d, sizeof(d)) < 0 || memcmp(d, "xdebugpy", 8) != 0) {
		snprintf(why, len, "%s (pid %d): its _Py_DebugOffsets could not be read", in->path, r->pid);
		return -ENOTSUP;
	}
	*o = (struct chain_offsets){ .rt_interp_head = u64_at(d, 40), .is_next = u64_at(d, 64),
				     .is_threads_head = u64_at(d, 72), .ts_next = u64_at(d, 168),
				     .ts_interp = u64_at(d, 176), .ts_frame = u64_at(d, 184),
				     .ts_native_tid = u64_at(d, 200), .cframe_current = PYTHON_CHAIN_DIRECT };
	if (u64_at(d, 232) != l->f_previous || u64_at(d, 240) != l->f_code || u64_at(d, 248) != l->f_prev_instr ||
	    u64_at(d, 264) != l->f_owner) {
		snprintf(why, len, "%s (pid %d): its _Py_DebugOffsets' frame is not %s's", in->path, r->pid, l->what);
		return -ENOTSUP;
	}
	return 0;
}

/* The process's chain offsets, and does its first thread state check out (chain.h):
 * the interpreter's threads.head is a thread state whose interp is that interpreter
 * and whose native_thread_id is one of the process's threads?  0, or -ENOTSUP with
 * why. */
static int chain_check(const struct interp *in, struct reader *r, struct chain_offsets *o, char *why, size_t len)
{
	const struct python_layout *l = in->l;
	uint64_t interp = 0, ts = 0, back = 0, tid = 0;
	char path[64];

	if (l->debug_offsets && debug_offsets(in, r, o, why, len) < 0)
		return -ENOTSUP;
	if (!l->debug_offsets)
		*o = (struct chain_offsets){ .rt_interp_head = l->rt_interp_head, .is_next = l->is_next,
					     .is_threads_head = l->is_threads_head, .ts_next = l->ts_next,
					     .ts_interp = l->ts_interp, .ts_native_tid = l->ts_native_tid,
					     .ts_frame = l->ts_cframe, .cframe_current = l->cframe_current };
	/* the program's offsets are 16 bits wide */
	if ((o->rt_interp_head | o->is_next | o->is_threads_head | o->ts_next | o->ts_native_tid | o->ts_frame) >
	    UINT16_MAX - 8 || (o->cframe_current > UINT16_MAX - 8 && o->cframe_current != PYTHON_CHAIN_DIRECT)) {
		snprintf(why, len, "%s (pid %d): its thread states' offsets are too large", in->path, r->pid);
		return -ENOTSUP;
	}
	if (python__read_mem(r, in->runtime + o->rt_interp_head, &interp, 8) < 0 || !interp ||
	    python__read_mem(r, interp + o->is_threads_head, &ts, 8) < 0 || !ts ||
	    python__read_mem(r, ts + o->ts_interp, &back, 8) < 0 ||
	    python__read_mem(r, ts + o->ts_native_tid, &tid, 8) < 0) {
		snprintf(why, len, "%s (pid %d): its thread states could not be read", in->path, r->pid);
		return -ENOTSUP;
	}
	snprintf(path, sizeof(path), "/proc/%d/task/%" PRIu64, r->pid, tid);
	if (back != interp || !tid || tid > INT32_MAX || access(path, F_OK) != 0) {
		snprintf(why, len, "%s (pid %d): its thread states are not where %s has them", in->path, r->pid,
			 l->what);
		return -ENOTSUP;
	}
	return 0;
}

/* The process's threads' chains read from now on, where its layout says where its
 * thread states are and they check out. */
void python__chain_attach(struct python *py, struct pyproc *p)
{
	const struct python_layout *l = p->in.l;
	struct reader r = { p->rp.pid };
	struct chain_offsets o;
	char why[512];
	struct python_chain_proc cp;

	if (!py->cfg.chains || !l->chain || l->old)
		return;
	/* a user restricted to their own processes reads them under the kernel's ptrace
	 * rules (privs__as_user): the program would read past them (a set-user-ID
	 * process of theirs), so it reads nothing for them */
	if (py->cfg.as_user) {
		if (!py->st.chain_refused++)
			snprintf(py->st.why_chain_refused, sizeof(py->st.why_chain_refused),
				 "a user who may record only their own processes reads them under the kernel's ptrace "
				 "rules, which a BPF program does not follow");
		return;
	}
	if (chain_check(&p->in, &r, &o, why, sizeof(why)) < 0) {
		if (!py->st.chain_refused++)
			snprintf(py->st.why_chain_refused, sizeof(py->st.why_chain_refused), "%.255s", why);
		return;
	}
	cp = (struct python_chain_proc){
		.runtime = p->in.runtime, .interp_head = (__u16)o.rt_interp_head, .interp_next = (__u16)o.is_next,
		.threads_head = (__u16)o.is_threads_head, .ts_next = (__u16)o.ts_next,
		.ts_native_tid = (__u16)o.ts_native_tid, .ts_cframe = (__u16)o.ts_frame,
		.cframe_current = (__u16)o.cframe_current, .f_code = (__u16)l->f_code,
		.f_previous = (__u16)l->f_previous, .f_instr = (__u16)l->f_prev_instr,
		.f_entry = (__u16)(l->has_is_entry ? l->f_is_entry : l->f_owner),
		.entry_kind = l->has_is_entry ? PYTHON_CHAIN_IS_ENTRY : PYTHON_CHAIN_OWNER,
	};
	if (python_chains__add(py->cfg.chains, p->rp.pid, &cp) == 0) {
		p->chained = true;
		py->st.chain_procs++;
	}
}

/* ---- a sample's chain ----------------------------------------------------------- */

/* The chain's frames of one activation: [start, end), innermost first. */
struct segment {
	uint16_t start, end;
};

/* The chain cut into its activations, innermost first (at most max): 3.11 ends one at
 * each frame marked is_entry (its first frame), 3.12 at each entry shim (not shown).
 * *ret_whole: the last one ends where the chain's does (a frame with no previous). */
static size_t segments(const struct python_layout *l, const struct python_chain *ch, struct segment *out,
		       size_t max, bool *ret_whole)
{
	size_t n = 0;
	uint16_t start = 0;

	for (uint16_t i = 0; i < ch->nr && n < max; i++) {
		if (!(ch->f[i].frame & 1))
			continue;
		out[n++] = (struct segment){ start, l->has_is_entry ? (uint16_t)(i + 1) : i };
		start = (uint16_t)(i + 1);
	}
	*ret_whole = ch->status == PYTHON_CHAIN_COMPLETE && start == ch->nr;
	/* a cut chain's last activation, partly read */
	if (start < ch->nr && n < max && ch->status != PYTHON_CHAIN_COMPLETE)
		out[n++] = (struct segment){ start, ch->nr };
	return n;
}

/* Does the chain's cut agree with the sample's activations: each frame the stack copy
 * pins is its activation's first in the chain, and (none pinned) there are as many? */
static bool chain_agrees(const struct activation *acts, size_t nacts, const struct python_chain *ch,
			 const struct segment *seg, size_t nseg, bool whole)
{
	size_t pinned = 0;

	if (whole && nseg < nacts)
		return false;
	for (size_t k = 0; k < nacts && k < nseg; k++) {
		if (!acts[k].frame)
			continue;
		if (seg[k].start >= seg[k].end || (ch->f[seg[k].start].frame & ~1ull) != acts[k].frame)
			return false;
		pinned++;
	}
	return pinned > 0 || (whole && nseg == nacts);
}

/* The symbol of a chain frame: its code object named as a pinned one is (proven by
 * time, python__code_symbol), with its line where its instruction lies in that code
 * object; 0 with *ret_v saying why not.  A code object proven by a reading after t
 * needs no other. */
static uint32_t chain_symbol(struct python *py, struct pyproc *p, struct reader *r,
			     const struct python_chain_frame *cf, uint64_t t, enum python_verdict *ret_v, bool *ret_line)
{
	const struct python_layout *l = p->in.l;
	struct python_walk w = { .l = l, .read = python__read_mem, .ctx = r, .code_type = p->in.code_type };
	struct code_key k = { r->pid, cf->code };
	const struct pycode *c = hashtable__find(&py->codes, hash__mix(hash__u64((uint32_t)r->pid), cf->code), &k);
	struct python_frame f = { .frame = cf->frame & ~1ull, .code = cf->code };
	uint64_t th = 0;
	uint32_t sym, ls;
	int tn = -1;

	/* proven at t already (a reading before and one after it, same name), and the
	 * line named for that very table before */
	if (c && c->sym && c->since_ns < t && c->confirmed_ns > t) {
		struct code_key lk = { r->pid, cf->instr };
		const struct pyline *pl = hashtable__find(&py->lines, hash__mix(hash__u64((uint32_t)r->pid), cf->instr), &lk);

		*ret_v = PYTHON_VERIFIED;
		*ret_line = pl && pl->code == cf->code && pl->code_sym == c->sym && pl->table_hash == c->table_hash &&
			    pl->sym;
		if (*ret_line)
			return pl->sym;
	}
	*ret_line = false;
	/* first read there after t (every sample of a backlog drained late but the first
	 * of its code object): unverified whatever is read now, so nothing is (the code
	 * object, its line table, its names: 3-4 process_vm_readv a frame) */
	if (c && c->sym && c->since_ns >= t) {
		*ret_v = PYTHON_NOT_BEFORE;
		return 0;
	}
	*ret_v = python_walk__code(&w, cf->code, f.head);
	if (*ret_v != PYTHON_VERIFIED)
		return 0;
	/* the table always: part of the code object's name, whether or not this frame's
	 * instruction is named by it (else the name would flip between readings) */
	tn = python__read_bytes(l, r, u64_at(f.head, l->co_linetable), py->table, sizeof(py->table));
	th = tn >= 0 ? hash__bytes(py->table, (size_t)tn) : 0;
	if (python_walk__holds(l, cf->code, f.head, cf->instr))
		f.instr = cf->instr;
	sym = python__code_symbol(py, &p->in, r, &f, th, t, ret_v);
	ls = sym && f.instr && tn >= 0 ? python__line_symbol(py, &p->in, r, &f, tn, th, sym) : 0;
	/* read from the process that pid named at the sample (not one given its pid since) */
	if (sym && !runtime_proc__still_there(&p->rp)) {
		*ret_v = PYTHON_READ_FAILED;
		return 0;
	}
	*ret_line = ls != 0;
	return ls ? ls : sym;
}

/* Activation k's frames from the chain into syms (at most max; innermost first): how
 * many.  A frame that cannot be named stands as [python: unverified], counted. */
static size_t chain_activation(struct python *py, struct pyproc *p, const struct python_chain *ch,
			       const struct segment *seg, bool partial, uint64_t t, uint32_t *syms, size_t max,
			       bool *ret_all)
{
	struct reader r = { p->rp.pid };
	size_t n = 0;

	for (uint16_t i = seg->start; i < seg->end && n < max; i++) {
		enum python_verdict v;
		bool line;

		syms[n] = chain_symbol(py, p, &r, &ch->f[i], t, &v, &line);
		py->st.chain_lines += syms[n] && line;
		if (!syms[n]) {
			py->st.unverified[v == PYTHON_VERIFIED ? PYTHON_READ_FAILED : v]++;
			*ret_all = false;
		} else {
			py->st.chain_frames++;
		}
		n++;
	}
	if (partial && n < max)
		syms[n++] = 1;  /* read no further: its callers are not known */
	return n;
}

/* The native frames ips[nr] into out (at most max; how many), each activation's frames
 * from the chain just before its native frame, ips[at[k]] (nat of them, innermost
 * first); an activation past the chain read gets the marker, its callers not known. */
static size_t interleave(struct python *py, struct pyproc *p, const struct sample *s, const struct python_chain *ch,
			 const struct segment *seg, size_t nseg, bool whole, const size_t *at, size_t nat,
			 const uint64_t *ips, size_t nr, uint64_t *out, size_t max, bool *ret_all)
{
	uint32_t syms[PYTHON_CHAIN_FRAMES + 1];
	size_t n = 0, next = 0;

	for (size_t i = 0; i < nr; i++) {
		if (next < nat && at[next] == i) {
			size_t k = 0;

			if (next < nseg)
				k = chain_activation(py, p, ch, &seg[next], next + 1 == nseg && !whole, s->time, syms,
						     ARRAY_SIZE(syms), ret_all);
			else
				syms[k++] = 1;  /* past the chain read: not known */
			for (size_t j = 0; j < k && n < max; j++)
				out[n++] = python__addr(py, syms[j]);
			next++;
		}
		if (n < max)
			out[n++] = ips[i];
	}
	return n;
}

/* The sample's Python frames from its chain (how many written into out, at most max),
 * or SIZE_MAX when the chain does not agree with the sample (then as without one). */
size_t python__chain_frames(struct python *py, struct pyproc *p, const struct sample *s, const uint64_t *ips,
			    size_t nr, const struct activation *acts, size_t nacts, const struct python_chain *ch,
			    uint64_t *out, size_t max, bool *ret_all)
{
	struct segment seg[64];
	size_t nseg, at[64];
	bool whole;

	nseg = segments(p->in.l, ch, seg, ARRAY_SIZE(seg), &whole);
	if (!chain_agrees(acts, nacts, ch, seg, nseg, whole)) {
		py->st.chain_disagreed++;
		return SIZE_MAX;
	}
	py->st.chained++;
	nacts = MIN(nacts, ARRAY_SIZE(at));
	for (size_t k = 0; k < nacts; k++)
		at[k] = acts[k].at;
	return interleave(py, p, s, ch, seg, nseg, whole, at, nacts, ips, nr, out, max, ret_all);
}

/* ---- reading early: when the sample is drained (early.h) ------------------------ */

/*
 * A chain's code objects read now, when its sample is drained (a few ms after it, not
 * ~65 ms when it is unwound), unless a reading after the sample was made already: a
 * code object is named only when a reading before the sample and one after it prove
 * it (python__code_symbol), so a new one is proven for the next samples that much
 * sooner, and the one after is there even when the process has exited by the time its
 * sample is unwound.  One reading per code object per drain: the rest find it (chain_symbol).
 */
void python__chain_early(struct python *py, struct pyproc *p, const struct sample *s)
{
	const struct python_chain *ch = python_chains__peek(py->cfg.chains, (int32_t)s->tid, s->time);
	struct reader r = { p->rp.pid };

	for (uint16_t i = 0; ch && i < ch->nr; i++) {
		enum python_verdict v;
		bool line;

		chain_symbol(py, p, &r, &ch->f[i], s->time, &v, &line);
	}
}

/* ---- -g: the chain alone, with no stack copy ------------------------------------- */

size_t python__fp_frames(struct python *py, const struct sample *s, uint64_t *ips, size_t nr, size_t max)
{
	struct pyproc *p = python__proc_get(py, (int32_t)s->pid);
	const struct python_chain *ch;

	python__names_turn(py);
	if (!p || !p->in.l || !nr || max > UNWIND_MAX_OUT_FRAMES)
		return nr;
	ch = p->chained ? python_chains__take(py->cfg.chains, (int32_t)s->tid, s->time) : NULL;
	python__count_how(py, p, INTERP_CHAIN, "-g: no stack copy");
	return python__chain_paired(py, p, s, ch, ips, nr, max);
}

/*
 * -g: may this sample's process have Python frames?  Only if it has an interpreter
 * mapped (-g's model keeps no other mapping) or Python judged it before (an exec
 * away from the interpreter, which python__fp_frames must hear of).  Any other
 * sample, every sample of a recording with no Python process in it, is passed on
 * as it came without being decoded or judged: what Python cost such a recording
 * per sample (a fifth of its instructions: bench/record-instr, c-g) is a look-up or two.
 */
static bool g_maybe(const struct python *py, const struct perf_event_header *ev)
{
	const struct maps *ms;
	int32_t pid, tid;

	if (!sample_layout__tid(py->cfg.g_layout, ev, &pid, &tid))
		return true;    /* sample__decode judges it */
	if (!model__dso(py->cfg.model, 0))      /* no interpreter mapped anywhere yet */
		return python__has_proc(py, pid);
	ms = model__maps(py->cfg.model, pid);
	return (ms && ms->nr) || python__has_proc(py, pid);
}

int python__rewrite_g(void *rt, const struct perf_event_header *ev, void *out, size_t outlen)
{
	struct python *py = rt;
	uint64_t ips[UNWIND_MAX_OUT_FRAMES];
	const uint8_t *in = (const void *)ev;
	size_t at, after, nk = 0, nu, n, size;
	struct sample s;
	uint8_t *o = out;

	if (!g_maybe(py, ev) || sample__decode(&s, &py->attr, ev) < 0 || !s.callchain)
		return 0;
	/* the kernel's part, then PERF_CONTEXT_USER and the user part */
	while (nk < s.nr_callchain && s.callchain[nk] != PERF_CONTEXT_USER)
		nk++;
	if (nk == s.nr_callchain)
		return 0;
	nu = MIN(s.nr_callchain - nk - 1, ARRAY_SIZE(ips));
	memcpy(ips, s.callchain + nk + 1, 8 * nu);
	n = python__fp_frames(py, &s, ips, nu, ARRAY_SIZE(ips));
	if (n == nu && !memcmp(ips, s.callchain + nk + 1, 8 * nu))
		return 0;
	at = (size_t)((const uint8_t *)s.callchain - in) - 8;   /* the chain's nr */
	after = at + 8 + 8 * (size_t)s.nr_callchain;
	size = at + 8 + 8 * (nk + 1 + n) + (ev->size - after);
	if (size > UINT16_MAX || size > outlen)
		return 0;
	memcpy(o, in, at);
	((struct perf_event_header *)(void *)o)->size = (uint16_t)size;
	*(uint64_t *)(void *)(o + at) = nk + 1 + n;
	memcpy(o + at + 8, s.callchain, 8 * (nk + 1));
	memcpy(o + at + 8 + 8 * (nk + 1), ips, 8 * n);
	memcpy(o + at + 8 + 8 * (nk + 1 + n), in + after, ev->size - after);
	return (int)size;
}

size_t python__chain_paired(struct python *py, struct pyproc *p, const struct sample *s,
			    const struct python_chain *ch, uint64_t *ips, size_t nr, size_t max)
{
	struct segment seg[64];
	uint32_t syms[PYTHON_CHAIN_FRAMES + 1];
	uint64_t out[UNWIND_MAX_OUT_FRAMES];
	size_t evals[64], ne = 0, nseg, n = 0, k, j;
	bool whole, all = true;

	py->st.samples++;
	if (!ch) {
		py->st.unchained += p->chained;
		return nr;
	}
	nseg = segments(p->in.l, ch, seg, ARRAY_SIZE(seg), &whole);
	if (!nseg || python__map_object(py, s) < 0)
		return nr;
	py->st.with_python++;
	py->st.chained++;
	for (size_t i = 0; i < nr && ne < ARRAY_SIZE(evals); i++)
		if (ips[i] >= p->in.eval_lo && ips[i] < p->in.eval_hi)
			evals[ne++] = i;
	if (whole && ne == nseg) {
		/* as many eval frames as activations: each one's frames above its own */
		n = interleave(py, p, s, ch, seg, nseg, whole, evals, ne, ips, nr, out, max, &all);
		return python__frames_done(py, s, ips, out, n, python__now_ns(), all);
	}
	/* the frame pointers do not tell the activations apart (a build without them): the
	 * native frames up to the first eval frame (or the leaf alone), the innermost
	 * activation's frames, that eval frame, the others' frames; no native caller */
	py->st.fp_cut++;
	for (j = 0; j < (ne ? evals[0] : 1) && n < max; j++)
		out[n++] = ips[j];
	for (size_t a = 0; a < nseg; a++) {
		k = chain_activation(py, p, ch, &seg[a], a + 1 == nseg && !whole, s->time, syms, ARRAY_SIZE(syms),
				     &all);
		for (j = 0; j < k && n < max; j++)
			out[n++] = python__addr(py, syms[j]);
		if (a == 0 && ne && n < max)
			out[n++] = ips[evals[0]];
	}
	return python__frames_done(py, s, ips, out, n, python__now_ns(), all);
}
