/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Python frames while recording: see include/prof/python/python.h.  This file has
 * the public calls, a process's attach and each sample's frames; the interpreters are
 * found by interp.c, code objects and lines named by names.c, a sample's activations
 * found by activation.c, and the chains read at the sample instant used by
 * chain_frames.c (python_internal.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <perf/event.h>

#include "prof/base/hash.h"
#include "prof/base/hashtable.h"
#include "prof/base/util.h"
#include "prof/python/early.h"
#include "prof/runtime/elf_writer.h"
#include "prof/python/interp.h"
#include "prof/python/python.h"
#include "prof/sys/privs.h"
#include "python_internal.h"

/* Python frames one activation may add: its function, and what stands for its callers. */
#define MAX_PY_FRAMES 2

static bool code_eq(const void *e, const void *key, const void *ctx)
{
	const struct pycode *c = e;
	const struct code_key *k = key;

	return c->pid == k->pid && c->addr == k->addr;
}

static bool line_eq(const void *e, const void *key, const void *ctx)
{
	const struct pyline *c = e;
	const struct code_key *k = key;

	return c->pid == k->pid && c->instr == k->addr;
}

static int attach(void *rt, struct runtime_proc *rp, char *why, size_t why_len);
static void detach(void *rt, struct runtime_proc *rp);
static void describe(const void *rt, char *buf, size_t len);
static bool name_of(const void *rt, const struct model_dso *d, uint64_t off, const char **ret);
static size_t frames_of(void *rt, const struct sample *s, uint64_t *ips, const uint64_t *sps,
			const struct unwind_regs *regs, size_t nr, size_t max, bool *ret_named);
static void drained(void *rt, const struct perf_event_header *ev);

static bool mapping(const char *name)
{
	return interp__looks_like(name) || !strcmp(name, PYTHON_OBJECT_PATH);
}

static void note(void *rt, const struct perf_event_header *ev)
{
	python__note(rt, ev);
}

static const void *stats(const void *rt)
{
	return python__stats(rt);
}

static void finish(void *rt)
{
	python__finish(rt);
}

static void free_rt(void *rt)
{
	python__free(rt);
}

/* Python on the runtime layer (runtime.h): its process table calls attach and detach,
 * a recording's pipeline the rest. */
static const struct runtime_ops python_ops = {
	.what = "python",
	.proc_size = sizeof(struct pyproc),
	/* an exec is seen as its mappings changing: attached again, counted once */
	.exec_detaches = false,
	.attach = attach,
	.detach = detach,
	.note = note,
	.mapping = mapping,
	.drained = drained,
	.frames = frames_of,
	.rewrite_g = python__rewrite_g,
	.name = name_of,
	.stats = stats,
	.describe = describe,
	.finish = finish,
	.free = free_rt,
};

const struct runtime_ops *python__runtime(void)
{
	return &python_ops;
}

int python__new(const struct python_config *cfg, struct python **ret)
{
	struct python *py = calloc(1, sizeof(*py));

	if (!py)
		return -ENOMEM;
	py->cfg = *cfg;
	runtime_procs__init(&py->procs, &python_ops, py,
			    &(struct runtime_tally){ .processes = &py->st.processes, .rejected = &py->st.rejected,
						     .why_rejected = py->st.why_rejected,
						     .why_len = sizeof(py->st.why_rejected) });
	hashtable__init(&py->codes, sizeof(struct pycode), code_eq, NULL);
	hashtable__init(&py->lines, sizeof(struct pyline), line_eq, NULL);
	py->attr = (struct perf_event_attr){ .size = sizeof(py->attr), .sample_type = cfg->kernel_sample_type,
					     .sample_regs_user = unwinder__regs_mask() };
	py->early = python_early__new();
	if (!py->early || python__names_init(py) < 0) {
		python__free(py);
		return -ENOMEM;
	}
	*ret = py;
	return 0;
}

struct python *python__free(struct python *py)
{
	if (!py)
		return NULL;
	runtime_procs__release(&py->procs);
	hashtable__release(&py->lines);
	runtime_symbols__release(&py->names);
	hashtable__release(&py->codes);
	python_early__free(py->early);
	interp_cache__release(&py->builds);
	free(py);
	return NULL;
}

const struct python_stats *python__stats(const struct python *py)
{
	return &py->st;
}

uint64_t python_stats__unverified(const struct python_stats *st)
{
	uint64_t bad = 0;

	for (int v = 1; v < PYTHON_VERDICTS; v++)
		bad += st->unverified[v];
	return bad;
}

static const char *verdict_name(int v)
{
	return python_verdict__name((enum python_verdict)v);
}

void python_stats__describe(const struct python_stats *st, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "%" PRIu64 " samples of %" PRIu64 " interpreter(s), %" PRIu64 " with "
				    "Python frames, %" PRIu64 " of them all verified; %" PRIu64
				    " [python: unverified] frames", st->samples, st->processes, st->with_python,
				    st->verified, python_stats__unverified(st));

	if (n < len)
		n += runtime__why_list(st->unverified, 1, PYTHON_VERDICTS, verdict_name, buf + n, len - n);
	python_stats__how(st, n + 1 < len ? buf + n : NULL, n + 1 < len ? len - n : 0);
}

static void describe(const void *rt, char *buf, size_t len)
{
	python_stats__describe(&((const struct python *)rt)->st, buf, len);
}

/* "; read: N by ..., M by ..." of describe, how the interpreters' frames were read. */
void python_stats__how(const struct python_stats *st, char *buf, size_t len)
{
	static const char *const how[] = {
		[INTERP_FIXED] = "their stack copy, at their build's known slots",
		[INTERP_DWARF] = "their stack copy, pinned by their build's DWARF",
		[INTERP_CODE] = "their stack copy, pinned by their build's machine code",
		[INTERP_CHAIN] = "their chain read at the sample instant alone, no pins",
		[INTERP_PROLOGUE] = "their stack copy, at the slots their eval function's prologue stores",
	};
	size_t n = 0;

	_Static_assert(ARRAY_SIZE(how) == INTERP_HOWS && ARRAY_SIZE(st->read_by) == INTERP_HOWS, "one per way");
	for (int k = 0; k < INTERP_HOWS && buf && n < len; k++) {
		if (!st->read_by[k])
			continue;
		n += (size_t)snprintf(buf + n, len - n, "%s%" PRIu64 " by %s", n ? ", " : "; read: ", st->read_by[k],
				      how[k]);
		if (k == INTERP_CHAIN && n < len)
			n += (size_t)snprintf(buf + n, len - n, " (%s)", st->why_no_pins);
	}
}

bool python__name(const struct python *py, const struct model_dso *d, uint64_t off, const char **ret)
{
	return runtime_symbols__name(&py->names, d, off, ret);
}

static bool name_of(const void *rt, const struct model_dso *d, uint64_t off, const char **ret)
{
	return python__name(rt, d, off, ret);
}

void python__note(struct python *py, const struct perf_event_header *ev)
{
	runtime_procs__note(&py->procs, ev);
}

/* ---- the process ------------------------------------------------------------- */

bool python__has_proc(const struct python *py, int32_t pid)
{
	return runtime_procs__find(&py->procs, pid) != NULL;
}

uint64_t python__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int python__read_mem(void *ctx, uint64_t addr, void *buf, size_t len)
{
	return runtime__read_mem(((const struct reader *)ctx)->pid, addr, buf, len);
}

struct check_call {
	const struct interp *in;
	struct reader *r;
	char *why;
	size_t why_len;
	int slots;                      /* INTERP_PROLOGUE: interp__check_slots's */
	char why_slots[160];
};

static int check_call(void *arg)
{
	struct check_call *c = arg;
	int err = interp__check(c->in, python__read_mem, c->r, c->why, c->why_len);

	if (err == 0 && c->in->how == INTERP_PROLOGUE)
		c->slots = interp__check_slots(c->in, python__read_mem, c->r, c->why_slots, sizeof(c->why_slots));
	return err;
}

/* interp__check, with no effective capability for a user restricted to their own;
 * *ret_unconfirmed: slots found in its code (INTERP_PROLOGUE) that no thread of it
 * confirmed yet (why_slots says why, python__confirm tries again). */
static int check(struct python *py, struct interp *in, struct reader *r, char *why, size_t why_len,
		 bool *ret_unconfirmed, char *why_slots, size_t why_slots_len)
{
	struct check_call c = { .in = in, .r = r, .why = why, .why_len = why_len };
	int err = py->cfg.as_user ? privs__as_user(check_call, &c) : check_call(&c);

	*ret_unconfirmed = err == 0 && c.slots == -ENOTSUP;
	if (*ret_unconfirmed)
		snprintf(why_slots, why_slots_len, "%s", c.why_slots);
	return err == 0 && c.slots != -ENOTSUP ? c.slots : err;
}

void python__count_how(struct python *py, struct pyproc *p, enum interp_how how, const char *why_no_pins)
{
	if (p->how_counted)
		return;
	p->how_counted = true;
	py->st.read_by[how]++;
	if (how == INTERP_CHAIN && !py->st.why_no_pins[0])
		snprintf(py->st.why_no_pins, sizeof(py->st.why_no_pins), "%s", why_no_pins);
}

bool python__confirm(struct python *py, struct pyproc *p)
{
	struct reader r = { p->rp.pid };
	char why[320] = "";
	bool unconfirmed;
	int err;

	if (!p->unconfirmed)
		return true;
	err = check(py, &p->in, &r, why, sizeof(why), &unconfirmed, p->in.why_no_pins, sizeof(p->in.why_no_pins));
	if (err == 0 && !unconfirmed) {
		p->unconfirmed = false;
		return true;
	}
	if (++p->confirm_tries < PYTHON_CONFIRM_TRIES && (err == 0 || err == -ENOTSUP))
		return false;
	p->unconfirmed = false;
	p->in.how = INTERP_CHAIN;
	if (err < 0 && err != -ENOTSUP)
		snprintf(p->in.why_no_pins, sizeof(p->in.why_no_pins), "its slots could not be read (%s)", strerror(-err));
	if (!p->chained) {
		snprintf(why, sizeof(why), "%.64s: CPython %u.%u.%u: %.160s, and its chain is not read at the sample instant",
			 p->in.path, p->in.version >> 24, (p->in.version >> 16) & 0xff, (p->in.version >> 8) & 0xff,
			 p->in.why_no_pins);
		p->in.l = NULL;
		interp__release(&p->in);
		/* counted as attached when its slots were still to be confirmed */
		runtime_procs__refuse(&py->procs, &p->rp, why);
	}
	return false;
}

/* What attach took of a process, let go (the table closes its pidfd). */
static void detach(void *rt, struct runtime_proc *rp)
{
	struct python *py = rt;
	struct pyproc *p = (struct pyproc *)rp;

	if (p->chained)
		python_chains__remove(py->cfg.chains, rp->pid);
	p->chained = false;
	interp__release(&p->in);
}

/* The process's interpreter found, checked and its chains attached: 0, -ENOENT when
 * it has none, else refused with why. */
static int attach(void *rt, struct runtime_proc *rp, char *why, size_t why_len)
{
	struct python *py = rt;
	struct pyproc *p = (struct pyproc *)rp;
	int32_t pid = rp->pid;
	int err;

	err = interp__find(py->cfg.model, pid, py->cfg.open, py->cfg.open_ctx, &py->builds, &p->in, why, why_len);
	if (err == -ENOENT)
		return err;             /* no interpreter */
	if (err == 0) {
		struct reader r = { pid };

		rp->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
		err = rp->pidfd < 0 ? -errno : check(py, &p->in, &r, why, why_len, &p->unconfirmed,
						     p->in.why_no_pins, sizeof(p->in.why_no_pins));
		if (err == 0 && !runtime_proc__still_there(rp))
			err = -ESRCH;
	}
	if (err < 0) {
		if (!why[0])
			snprintf(why, why_len, "%s (pid %d): %s", p->in.path[0] ? p->in.path : "python", pid,
				 strerror(-err));
		p->in.l = NULL;
		interp__release(&p->in);
		return err;
	}
	python__chain_attach(py, p);
	if (p->in.how == INTERP_CHAIN && !p->chained) {
		snprintf(why, why_len, "%.64s: CPython %u.%u.%u: its stack copy pins nothing (%.64s) and its "
			 "chain is not read at the sample instant (%.80s)", p->in.path, p->in.version >> 24,
			 (p->in.version >> 16) & 0xff, (p->in.version >> 8) & 0xff, p->in.why_no_pins,
			 py->st.chain_refused ? py->st.why_chain_refused : "no BPF program loaded");
		p->in.l = NULL;
		interp__release(&p->in);
		return -ENOTSUP;
	}
	return 0;
}

/* How many of the process's own mappings there are (the synthetic one is prof's). */
static size_t own_maps(const struct maps *ms)
{
	return ms ? ms->nr - (maps__find(ms, PYTHON_BASE) ? 1 : 0) : 0;
}

struct pyproc *python__proc_get(struct python *py, int32_t pid)
{
	size_t nr = own_maps(model__maps(py->cfg.model, pid));

	return (struct pyproc *)runtime_procs__get(&py->procs, pid, nr, 0);     /* (no retry_ns) */
}

/* ---- reading early: when the sample is drained (early.h) ------------------------ */

/* The sample's thread's stack shape, for the next samples drained. */
static void hint_note(struct python *py, const struct sample *s, const struct activation *acts, size_t nacts)
{
	uint64_t cfas[PYTHON_EARLY_ACTS];
	size_t n = 0;

	for (; n < nacts && n < PYTHON_EARLY_ACTS; n++)
		cfas[n] = acts[n].cfa;
	python_early__hint(py->early, (int32_t)s->tid, cfas, n);
}

/* The early reading of sample s, if it pinned the same frames as acts. */
static const struct python_early_reading *early_find(struct python *py, const struct sample *s,
						     const struct activation *acts, size_t nacts)
{
	const struct python_early_reading *e = python_early__find(py->early, (int32_t)s->tid, s->time);

	if (!e || e->nacts != nacts)
		return NULL;
	for (size_t i = 0; i < nacts; i++)
		if (!acts[i].frame || e->acts[i].frame != acts[i].frame || e->acts[i].code != acts[i].code)
			return NULL;
	return e;
}

/* -g: python__early for the samples of processes attached before only (a hash
 * look-up, no decode for the others). */
static void drained(void *rt, const struct perf_event_header *ev)
{
	struct python *py = rt;
	int32_t pid, tid;

	if (py->cfg.g_layout && ev->type == PERF_RECORD_SAMPLE && sample_layout__tid(py->cfg.g_layout, ev, &pid, &tid) &&
	    !python__has_proc(py, pid))
		return;
	python__early(py, ev);
}

void python__early(struct python *py, const struct perf_event_header *ev)
{
	const struct python_layout *l;
	struct python_early_reading *e;
	uint64_t cfas[PYTHON_EARLY_ACTS], sp;
	struct sample s;
	struct pyproc *p;
	int32_t pid;
	size_t n;

	if (ev->type != PERF_RECORD_SAMPLE || sample__decode(&s, &py->attr, ev) < 0)
		return;
	python__names_turn(py);
	pid = (int32_t)s.pid;
	/* only processes attached, and threads unwound, before: judged in scope */
	p = (struct pyproc *)runtime_procs__find(&py->procs, pid);
	if (p && p->chained) {
		python__chain_early(py, p, &s);
		return;
	}
	if (!s.regs_user.regs || s.regs_user.nr <= 7 || !s.stack_user.data)
		return;
	n = python_early__hints(py->early, (int32_t)s.tid, cfas);
	/* builds pinned by DWARF need the unwinding's registers: read when unwound;
	 * processes whose chains are read need no early reading */
	if (!p || !p->in.l || (p->in.how != INTERP_FIXED && p->in.how != INTERP_PROLOGUE) || p->unconfirmed ||
	    p->chained || !n)
		return;
	l = p->in.l;
	sp = s.regs_user.regs[7];       /* perf's x86 register 7, the 8th of the mask */
	e = python_early__start(py->early, (int32_t)s.tid, s.time);
	for (size_t i = 0; i < n; i++) {
		struct python_early_act *a = &e->acts[i];
		uint64_t first_instr = 0;

		if (!python__stack_word(&s, sp, cfas[i] - p->in.cfa_frame, &a->frame) ||
		    !python__stack_word(&s, sp, cfas[i] - p->in.cfa_first_instr, &first_instr) ||
		    first_instr < l->co_code_adaptive)
			return;
		a->code = first_instr - l->co_code_adaptive;
	}
	for (size_t i = 0; i < n; i++) {
		struct python_early_act *a = &e->acts[i];
		enum python_verdict v;

		a->n = (uint8_t)python__walk_symbols(py, p, a->frame, a->code, NULL, s.time, a->syms, &v);
		a->verdict = (uint8_t)v;
	}
	e->read_ns = python__now_ns();
	python_early__keep(py->early, e, (uint8_t)n);
}

/* ---- samples ------------------------------------------------------------------ */

/* The synthetic object mapped into pid before its first frame there. */
int python__map_object(struct python *py, const struct sample *s)
{
	return runtime_symbols__map(&py->names, py->cfg.model, &py->cfg.synth, s, PYTHON_BASE,
				  py->cfg.live_names ? 1ull << 40 : 1u << 24, PYTHON_OBJECT_PATH, py->cfg.sink,
				  py->cfg.sink_ctx);
}

/* The symbols of activation i of a sample (read early if it was, else now): how many. */
static size_t activation_symbols(struct python *py, struct pyproc *p, const struct python_early_reading *e, size_t i,
				 const struct activation *a, uint64_t t, uint32_t *syms)
{
	enum python_verdict v;
	size_t nr;

	if (e) {
		v = e->acts[i].verdict;
		nr = e->acts[i].n;
		memcpy(syms, e->acts[i].syms, 4 * nr);
	} else {
		nr = python__walk_symbols(py, p, a->frame, a->code, p->in.pins ? &a->pin : NULL, t, syms, &v);
	}
	if (v != PYTHON_VERIFIED && v != PYTHON_BY_CODE) {
		py->st.unverified[v]++;
		syms[0] = 0;
		return 1;
	}
	py->st.activations++;
	py->st.by_code += v == PYTHON_BY_CODE;
	py->st.callers += nr > 1;
	return nr;
}

/* The sample's new call chain (out[n]) into ips, counted: read at t, all verified. */
size_t python__frames_done(struct python *py, const struct sample *s, uint64_t *ips, const uint64_t *out, size_t n,
			  uint64_t t, bool all)
{
	if (t > s->time) {
		py->st.delay_sum_ns += t - s->time;
		py->st.delay_max_ns = MAX(py->st.delay_max_ns, t - s->time);
	}
	py->st.verified += all;
	memcpy(ips, out, 8 * n);
	return n;
}

size_t python__frames(void *ctx, const struct sample *s, uint64_t *ips, const uint64_t *sps,
		      const struct unwind_regs *regs, size_t nr, size_t max)
{
	struct python *py = ctx;
	struct pyproc *p = python__proc_get(py, (int32_t)s->pid);
	struct activation acts[64];     /* 3.8-3.10: one per Python frame */
	const struct python_early_reading *early;
	const struct python_chain *chain;
	uint32_t syms[MAX_PY_FRAMES];
	uint64_t out[UNWIND_MAX_OUT_FRAMES];
	size_t nacts, n = 0, next = 0;
	bool all = true;

	python__names_turn(py);
	if (!p || !p->in.l || max > UNWIND_MAX_OUT_FRAMES)
		return nr;
	/* taken for every sample of the process, used or not */
	chain = p->chained ? python_chains__take(py->cfg.chains, (int32_t)s->tid, s->time) : NULL;
	if (!python__confirm(py, p) && !p->chained) {
		py->st.samples += p->in.l != NULL;
		return nr;
	}
	if (!p->unconfirmed)
		python__count_how(py, p, p->in.how, p->in.why_no_pins);
	if (p->in.how == INTERP_CHAIN || p->unconfirmed)
		return nr ? python__chain_paired(py, p, s, chain, ips, nr, max) : nr;
	py->st.samples++;
	nacts = python__activations(&p->in, s, ips, sps, regs, nr, acts, ARRAY_SIZE(acts));
	early = early_find(py, s, acts, nacts);
	hint_note(py, s, acts, nacts);
	if (!nacts || python__map_object(py, s) < 0)
		return nr;
	py->st.with_python++;
	if (chain) {
		n = python__chain_frames(py, p, s, ips, nr, acts, nacts, chain, out, max, &all);
		if (n != SIZE_MAX)
			return python__frames_done(py, s, ips, out, n, python__now_ns(), all);
		n = 0;
		all = true;
	} else if (p->chained) {
		py->st.unchained++;
	}
	py->st.early += early != NULL;
	for (size_t i = 0; i < nr; i++) {
		if (next < nacts && acts[next].at == i) {
			size_t k = activation_symbols(py, p, early, next, &acts[next], s->time, syms);

			all &= k != 1 || syms[0] != 0;
			for (size_t j = 0; j < k && n < max; j++)
				out[n++] = python__addr(py, syms[j]);
			next++;
		}
		if (n < max)
			out[n++] = ips[i];
	}
	return python__frames_done(py, s, ips, out, n, early ? early->read_ns : python__now_ns(), all);
}

static size_t frames_of(void *rt, const struct sample *s, uint64_t *ips, const uint64_t *sps,
			const struct unwind_regs *regs, size_t nr, size_t max, bool *ret_named)
{
	const struct python *py = rt;
	uint64_t with = py->st.with_python;
	size_t n = python__frames(rt, s, ips, sps, regs, nr, max);

	*ret_named = py->st.with_python != with;
	return n;
}

void python__finish(struct python *py)
{
	if (py->st.with_python && py->cfg.cache)
		py->st.kept = runtime_symbols__keep(&py->names, py->cfg.cache, PYTHON_OBJECT_PATH, "prof-python");
}
