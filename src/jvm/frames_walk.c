/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One sample's Java frames: the walk of its registers and stack copy from its first
 * frame in the code cache, each frame proven by time (include/prof/jvm/frames.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "prof/base/hash.h"
#include "prof/base/util.h"
#include "prof/jvm/method.h"
#include "frames_internal.h"

/* x86_64's interpreter frame (HotSpot's frame_x86.hpp), in words from rbp; the ones
 * a JVM exports must say the same (interp_ok). */
enum { IF_SENDER_SP = -1, IF_LAST_SP = -2, IF_METHOD = -3, IF_LOCALS = -7, IF_BCP = -8, IF_INITIAL_SP = -9 };

#define JAVA_MAX_DEPTH 64

/* proven()'s answers besides enum java_why */
#define W_PROVEN JAVA_WHYS
#define W_NOT_CODE (JAVA_WHYS + 1)

bool jvm_frames__blob_eq(const void *e, const void *key, const void *ctx)
{
	(void)ctx;
	return ((const struct jblob_seen *)e)->start == *(const uint64_t *)key;
}

bool jvm_frames__method_eq(const void *e, const void *key, const void *ctx)
{
	const struct jmethod_sym *a = e, *b = key;

	(void)ctx;
	return a->method == b->method && a->bci == b->bci && a->exact == b->exact;
}

bool jvm_frames__interp_ok(const struct jvm_layout *l)
{
	static const struct { enum jvm_item item; int32_t words; } slots[] = {
		{ JC_FRAME_SENDER_SP, IF_SENDER_SP }, { JC_FRAME_LAST_SP, IF_LAST_SP }, { JC_FRAME_METHOD, IF_METHOD },
		{ JC_FRAME_BCP, IF_BCP }, { JC_FRAME_LOCALS, IF_LOCALS },
	};
	int found = 0;

	for (size_t i = 0; i < ARRAY_SIZE(slots); i++) {
		if (l->v[slots[i].item] == JVM_NONE)
			continue;
		if ((int32_t)l->v[slots[i].item] != slots[i].words)
			return false;
		found++;
	}
	return found > 0;
}

bool jvm_frames__pc_eq(const void *e, const void *key, const void *ctx)
{
	const struct jpc_syms *a = e, *b = key;

	(void)ctx;
	return a->start == b->start && a->pc == b->pc && a->compile_id == b->compile_id && a->leaf == b->leaf;
}

struct walk {
	struct jvm_frames *jf;
	struct jproc *p;
	const struct sample *s;
	uint64_t now, sp0;
	const uint8_t *stack;
	size_t stack_len;
	uint64_t *out;
	size_t n, max;
	bool all, cut, entry;
};

/* One frame of the walk: its pc, sp, rbp, and for the sender of an interpreted
 * frame the sp it had before the interpreter extended it (0: sp). */
struct jfr {
	uint64_t pc, sp, fp, usp;
	bool fp_ok, leaf;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static bool word_at(const struct walk *w, uint64_t addr, uint64_t *ret)
{
	if (addr < w->sp0 || addr - w->sp0 > w->stack_len || w->stack_len - (addr - w->sp0) < 8)
		return false;
	memcpy(ret, w->stack + (addr - w->sp0), 8);
	return true;
}

static void emit(struct walk *w, uint32_t sym)
{
	if (w->n < w->max)
		w->out[w->n++] = jvm_frames__addr(sym);
}

/* Blob b, read at now, into p's readings: its entry (NULL when out of memory), and in
 * *ret whether the one there was the same blob (kept with the time it was first read
 * so), none or another. */
enum { SAW_SAME, SAW_NEW, SAW_CHANGED };

static struct jblob_seen *saw(struct jproc *p, const struct jvm_blob *b, uint64_t now, int *ret)
{
	struct jblob_seen *e;
	bool created;

	if (!(e = hashtable__insert(&p->blobs, hash__u64(b->start), &b->start, &created)))
		return NULL;
	if (!created && e->compile_id == b->compile_id && e->method == b->method && e->kind == b->kind &&
	    e->code_begin == b->code_begin && e->code_end == b->code_end) {
		*ret = SAW_SAME;
		return e;
	}
	*e = (struct jblob_seen){ .start = b->start, .code_begin = b->code_begin, .code_end = b->code_end,
				  .method = b->method, .compile_id = b->compile_id, .kind = b->kind, .seen_ns = now };
	*ret = created ? SAW_NEW : SAW_CHANGED;
	return e;
}

/*
 * The blob at pc, read now (after the sample), proven to have been there at the
 * sample's instant by a reading of the same blob before it: W_PROVEN, W_NOT_CODE,
 * or why not (enum java_why).
 */
static int proven(struct walk *w, uint64_t pc, struct jvm_blob *b)
{
	int err = jvm__find_blob(&w->p->j, pc, b), how;
	struct jblob_seen *e;

	if (err == -ENOENT)
		return W_NOT_CODE;
	if (err < 0)
		return err == -ESRCH ? JAVA_GONE : JAVA_UNREADABLE;
	if (!(e = saw(w->p, b, w->now, &how)))
		return JAVA_UNREADABLE;
	if (how == SAW_SAME)
		return e->seen_ns < w->s->time ? W_PROVEN : JAVA_NOT_SEEN;
	return how == SAW_NEW ? JAVA_NOT_SEEN : JAVA_CHANGED;
}

/* The symbol of a method's frame: "pkg.Class.method (File.java:LINE)", the line
 * only where exact; UINT32_MAX when the method does not read. */
static uint32_t method_sym(struct walk *w, uint64_t method, int32_t bci, bool exact)
{
	struct jmethod_sym key = { .method = method, .bci = exact ? bci : -1, .exact = exact }, *e;
	uint64_t h = hash__mix(hash__u64(method), (uint64_t)(uint32_t)key.bci * 2 + exact);
	struct jvm_method m;
	char name[800], full[1024];
	int line = 0;
	bool created;

	if ((e = hashtable__find(&w->p->methods, h, &key)))
		return e->sym;
	if (jvm_method__read(&w->p->j, method, &m) < 0)
		return UINT32_MAX;
	jvm_method__format_short(&m, name, sizeof(name));
	if (exact && bci >= 0 && (line = jvm_method__line(&w->p->j, &m, bci)) < 0)
		return UINT32_MAX;
	if (line > 0)
		snprintf(full, sizeof(full), "%s (%s:%d)", name, m.file[0] ? m.file : "?", line);
	else if (m.file[0])
		snprintf(full, sizeof(full), "%s (%s)", name, m.file);
	else
		snprintf(full, sizeof(full), "%s", name);
	key.sym = jvm_frames__symbol(w->jf, full);
	if (key.sym != JAVA_SYM_UNVERIFIED && (e = hashtable__insert(&w->p->methods, h, &key, &created)))
		*e = key;
	return key.sym;
}

static void unverified(struct walk *w, int why)
{
	w->jf->st.unverified[why]++;
	w->all = false;
	emit(w, JAVA_SYM_UNVERIFIED);
}

/* An nmethod's frames at f named into *e (its inlined ones innermost first): 0, or
 * -why; e->n 0 when f's pc is no return address (a caller's pc must have its own pc
 * desc). */
static int compiled_syms(struct walk *w, const struct jvm_blob *b, const struct jfr *f, struct jpc_syms *e)
{
	struct jvm_frame fr[JAVA_PC_FRAMES + 1];
	int n = jvm_nmethod__frames_exact(&w->p->j, b, f->pc, fr, JAVA_PC_FRAMES + 1);
	bool exact = n > 0;

	e->n = 0;
	if (n > JAVA_PC_FRAMES)
		return -JAVA_UNREADABLE;       /* inlined deeper than kept: not cut short */
	/* a caller's pc must be a call site: its own pc desc; a native method's wrapper
	 * has none, and its every call (the native function, the VM's helpers) is made
	 * with its frame complete, so a return address into it past that is one */
	if (n == -ENOENT && !f->leaf &&
	    (strcmp(b->name, "native nmethod") != 0 || b->frame_complete < 0 ||
	     f->pc <= b->code_begin + (uint64_t)b->frame_complete))
		return 0;
	if (n < 0 && n != -ENOENT)
		return -JAVA_UNREADABLE;
	if (!exact) {
		/* a leaf between pc descs: the nmethod's own method, no line */
		fr[0] = (struct jvm_frame){ .method = b->method, .bci = -1 };
		n = 1;
	}
	for (int i = 0; i < n; i++)
		if ((e->syms[i] = method_sym(w, fr[i].method, fr[i].bci, exact)) == UINT32_MAX)
			return -JAVA_UNREADABLE;
	e->n = (uint8_t)n;
	return 0;
}

/* An nmethod's frames at f (kept per compile and pc): false when f's pc is no
 * return address. */
static bool compiled_frames(struct walk *w, const struct jvm_blob *b, const struct jfr *f)
{
	struct jpc_syms key = { .start = b->start, .pc = f->pc, .compile_id = b->compile_id, .leaf = f->leaf }, *e;
	uint64_t h = hash__mix(hash__mix(hash__u64(b->start), f->pc), (uint64_t)(uint32_t)b->compile_id * 2 + f->leaf);
	bool created;
	int err;

	if (!(e = hashtable__find(&w->p->pcs, h, &key))) {
		if ((err = compiled_syms(w, b, f, &key)) < 0) {
			unverified(w, -err);
			return true;
		}
		if ((e = hashtable__insert(&w->p->pcs, h, &key, &created)))
			*e = key;
		else
			e = &key;
	}
	if (!e->n)
		return false;
	for (int i = 0; i < e->n; i++)
		emit(w, e->syms[i]);
	w->jf->st.frames += e->n;
	w->jf->st.compiled++;
	return true;
}

/* Could v be a return address: an nmethod's call site (a pc desc at exactly v), or
 * in the interpreter?  Read now, not proven: for refusing an ambiguous leaf only. */
static bool return_address(const struct walk *w, uint64_t v)
{
	struct jvm_frame fr[1];
	struct jvm_blob b;

	if (!jvm__in_code(&w->p->j, v) || jvm__find_blob(&w->p->j, v, &b) < 0)
		return false;
	if (b.kind == JVM_BLOB_INTERPRETER)
		return true;
	return b.kind == JVM_BLOB_NMETHOD && jvm_nmethod__frames_exact(&w->p->j, &b, v, fr, 1) != -ENOENT;
}

/* The caller of compiled frame f (frame::sender_for_compiled_frame): false when it
 * cannot be found (a leaf still making its frame, a frame size that is not one). */
static bool compiled_sender(const struct walk *w, const struct jvm_blob *b, const struct jfr *f, struct jfr *ret)
{
	uint64_t sp = (f->usp ? f->usp : f->sp) + 8 * (uint64_t)b->frame_size, ra, fp, v;

	if (f->leaf && (b->frame_complete < 0 || f->pc < b->code_begin + (uint64_t)b->frame_complete))
		return false;
	if (b->frame_size < 2 || b->frame_size > 65536 || !word_at(w, sp - 8, &ra) || !word_at(w, sp - 16, &fp))
		return false;
	/* a leaf in its epilogue (its frame popped: the return address at sp or one word
	 * above) reads its caller's words there: a return address at either that is not
	 * the one the frame size gives makes the caller ambiguous, not proven */
	if (f->leaf)
		for (int k = 0; k < 2; k++)
			if (word_at(w, f->sp + 8 * (uint64_t)k, &v) && v != ra && return_address(w, v))
				return false;
	*ret = (struct jfr){ .pc = ra, .sp = sp, .fp = fp, .fp_ok = true };
	return true;
}

/* An interpreted frame at f (its Method* and bcp by rbp), and its caller: 1 named
 * with *ret its caller, 0 when its caller cannot be found, -why when unnamed. */
static int interpreted(struct walk *w, const struct jfr *f, struct jfr *ret)
{
	uint64_t method, bcp, last_sp, sender_sp, link, ra;
	struct jvm_method m;
	int32_t bci;
	uint32_t sym;

	if (!f->fp_ok || !w->p->interp_ok || f->fp <= f->sp || !word_at(w, f->fp + 8 * IF_METHOD, &method) ||
	    !word_at(w, f->fp + 8 * IF_BCP, &bcp) || !word_at(w, f->fp + 8 * IF_LAST_SP, &last_sp) ||
	    !word_at(w, f->fp + 8 * IF_SENDER_SP, &sender_sp))
		return f->leaf ? -JAVA_UNREADABLE : 0;
	/* a leaf: its frame made (the slots down to the expression stack's written) and
	 * running its own bytecodes (not between a call and its callee's frame) */
	if (f->leaf && (f->sp > f->fp + 8 * IF_INITIAL_SP || last_sp != 0))
		return -JAVA_BETWEEN;
	if (jvm_method__read(&w->p->j, method, &m) < 0 || (bci = jvm_method__bci(&w->p->j, &m, bcp)) < 0)
		return -JAVA_UNREADABLE;
	if ((sym = method_sym(w, method, bci, true)) == UINT32_MAX)
		return -JAVA_UNREADABLE;
	emit(w, sym);
	w->jf->st.frames++;
	w->jf->st.interpreted++;
	if (!word_at(w, f->fp, &link) || !word_at(w, f->fp + 8, &ra))
		return 0;
	*ret = (struct jfr){ .pc = ra, .sp = f->fp + 16, .fp = link, .fp_ok = true, .usp = sender_sp };
	return 1;
}

/* A stub: a leaf named as what it is; a caller's return into the VM's call stub
 * ends the walk. */
static bool stub(struct walk *w, const struct jvm_blob *b, const struct jfr *f)
{
	char name[96];

	if (!f->leaf) {
		if (strncmp(b->name, "StubRoutines", 12) != 0)
			return false;
		emit(w, JAVA_SYM_ENTRY);
		w->entry = true;
		return true;
	}
	snprintf(name, sizeof(name), "[java stub: %s]", b->name);
	emit(w, jvm_frames__symbol(w->jf, name));
	w->jf->st.stubs++;
	return false;
}

/* Walk from f: 0 when done (named, cut or ended), -1 when f is no Java frame at all. */
static int walk_from(struct walk *w, struct jfr f)
{
	for (int depth = 0; depth < JAVA_MAX_DEPTH; depth++) {
		struct jvm_blob b;
		struct jfr next = { 0 };
		int v = proven(w, f.pc, &b), r;

		if (v == W_NOT_CODE && f.leaf)
			return -1;
		if (v == W_NOT_CODE)
			break;
		if (v != W_PROVEN) {
			unverified(w, v);
			break;
		}
		if (b.kind == JVM_BLOB_STUB) {
			if (stub(w, &b, &f))
				return 0;
			break;
		}
		if (b.kind == JVM_BLOB_INTERPRETER) {
			if (f.leaf && !f.fp_ok) {
				emit(w, JAVA_SYM_INTERPRETER);
				break;
			}
			if ((r = interpreted(w, &f, &next)) < 0)
				unverified(w, -r);
			if (r <= 0)
				break;
		} else {
			if (!compiled_frames(w, &b, &f) || w->out[w->n - 1] == jvm_frames__addr(JAVA_SYM_UNVERIFIED) ||
			    !compiled_sender(w, &b, &f, &next))
				break;
		}
		if (next.sp <= f.sp)
			break;
		f = next;
	}
	w->cut = true;
	emit(w, JAVA_SYM_CALLERS);
	return 0;
}

/* The first frame in the code cache: its index, or nr. */
static size_t first_java(const struct jproc *p, const uint64_t *ips, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		if (jvm__in_code(&p->j, ips[i]))
			return i;
	return nr;
}

/*
 * The role of a JVM's own thread, by the name HotSpot gives it (os::set_native_thread_name,
 * the comm's 15 bytes): the threads that run no Java code of the program (JDK 11 to
 * 25's names).  NULL for any other name.
 */
const char *jvm_frames__thread_role(const char *comm)
{
	static const struct { const char *prefix, *role; } roles[] = {
		{ "VM Thread", "[jvm: VM thread]" },
		{ "C1 CompilerThre", "[jvm: JIT compiler (C1)]" },
		{ "C2 CompilerThre", "[jvm: JIT compiler (C2)]" },
		{ "JVMCI CompilerT", "[jvm: JIT compiler (JVMCI)]" },
		{ "GC Thread#", "[jvm: GC]" },
		{ "ParGC Thread#", "[jvm: GC]" },
		{ "G1 ", "[jvm: GC]" },
		{ "ZDirector", "[jvm: GC]" },
		{ "ZDriver", "[jvm: GC]" },
		{ "ZStat", "[jvm: GC]" },
		{ "ZWorker", "[jvm: GC]" },
		{ "ZUnmapper", "[jvm: GC]" },
		{ "ZUncommitter", "[jvm: GC]" },
		{ "Shenandoah", "[jvm: GC]" },
		{ "VM Periodic Tas", "[jvm: periodic tasks]" },
		{ "Sweeper thread", "[jvm: code cache sweeper]" },
		{ "Service Thread", "[jvm: service thread]" },
		{ "Monitor Deflati", "[jvm: service thread]" },
	};

	for (size_t i = 0; comm && i < ARRAY_SIZE(roles); i++)
		if (strncmp(comm, roles[i].prefix, strlen(roles[i].prefix)) == 0)
			return roles[i].role;
	return NULL;
}

/* A sample of a JVM with no Java frame, of one of the VM's own threads: its role as
 * the outermost frame.  The new count. */
static size_t thread_role(struct walk *w, uint64_t *ips, size_t nr, size_t max)
{
	int32_t tid = (int32_t)w->s->tid;
	const struct jrole *r = hashtable__find(&w->jf->roles, hash__u64((uint64_t)(uint32_t)tid), &tid);
	uint32_t sym;

	if (!r || nr >= max || (sym = jvm_frames__symbol(w->jf, r->role)) == JAVA_SYM_UNVERIFIED ||
	    jvm_frames__map_object(w->jf, w->s) < 0)
		return nr;
	w->jf->st.vm_threads++;
	ips[nr] = jvm_frames__addr(sym);
	return nr + 1;
}

static size_t edit_now(void *ctx, const struct sample *s, uint64_t *ips, const uint64_t *sps,
		       const struct unwind_regs *regs, size_t nr, size_t max)
{
	struct jvm_frames *jf = ctx;
	uint64_t out[UNWIND_MAX_OUT_FRAMES];
	struct walk w = { .jf = jf, .s = s, .now = now_ns(), .out = out, .max = MIN(max, ARRAY_SIZE(out)),
			  .all = true };
	struct jfr f;
	size_t i;

	if (!nr || !(w.p = jvm_frames__proc(jf, (int32_t)s->pid, w.now)))
		return nr;
	jf->st.samples++;
	if ((i = first_java(w.p, ips, nr)) == nr)
		return thread_role(&w, ips, nr, max);
	if (!sps[i] || !(regs->known[0] & (1u << 7)))
		return nr;
	w.sp0 = regs->v[0][7];
	w.stack = s->stack_user.data;
	w.stack_len = s->stack_user.dyn_size;
	f = (struct jfr){ .pc = ips[i], .sp = sps[i], .fp = regs->v[i][6], .fp_ok = (regs->known[i] >> 6) & 1,
			  .leaf = i == 0 };
	memcpy(out, ips, 8 * i);
	w.n = i;
	if (walk_from(&w, f) < 0 || jvm_frames__map_object(jf, s) < 0)
		return nr;
	jf->st.with_java++;
	jf->st.verified += w.all;
	jf->st.cut += w.cut;
	jf->st.entry += w.entry;
	memcpy(ips, out, 8 * w.n);
	return w.n;
}

/* (the kernel's ptrace rules, not prof's capabilities, decide what is read) */
size_t jvm_frames__edit(void *ctx, const struct sample *s, uint64_t *ips, const uint64_t *sps,
			const struct unwind_regs *regs, size_t nr, size_t max)
{
	struct jvm_frames *jf = ctx;

	return runtime__edit_as_user(edit_now, jf, jf->cfg.as_user, s, ips, sps, regs, nr, max);
}
