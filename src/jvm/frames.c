/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Java frames in unwound samples: see include/prof/jvm/frames.h.  The JVM on the
 * runtime layer (runtime.h: its process table, symbols and counts) here; the walk of
 * one sample's stack in frames_walk.c, -g's samples in frames_g.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <perf/event.h>

#include "prof/base/hash.h"
#include "prof/base/util.h"
#include "frames_internal.h"

static int attach(void *rt, struct runtime_proc *rp, char *why, size_t why_len);
static void detach(void *rt, struct runtime_proc *rp);
static void describe(const void *rt, char *buf, size_t len);
static bool name_of(const void *rt, const struct model_dso *d, uint64_t off, const char **ret);

static void note(void *rt, const struct perf_event_header *ev)
{
	jvm_frames__note(rt, ev);
}

/* -g's model: libjvm.so (and OpenJ9's, refused by name) and prof's object. */
static bool mapping(const char *name)
{
	return jvm__looks_like(name) || jvm__other_vm(name) || !strcmp(name, JAVA_OBJECT_PATH);
}

static size_t frames_of(void *rt, const struct sample *s, uint64_t *ips, const uint64_t *sps,
			const struct unwind_regs *regs, size_t nr, size_t max, bool *ret_named)
{
	const struct jvm_frames *jf = rt;
	uint64_t with = jf->st.with_java;
	size_t n = jvm_frames__edit(rt, s, ips, sps, regs, nr, max);

	/* a sample of a process in which prof read a JVM: not Python's */
	*ret_named = jf->st.with_java != with;
	return n;
}

static int rewrite_g(void *rt, const struct perf_event_header *ev, void *out, size_t outlen)
{
	struct jvm_frames *jf = rt;

	return jvm_frames__rewrite_g(jf->cfg.strip_only ? NULL : jf, &jf->g_attr, ev, out, outlen);
}

static const void *stats(const void *rt)
{
	return jvm_frames__stats(rt);
}

static void finish(void *rt)
{
	jvm_frames__finish(rt);
}

static void free_rt(void *rt)
{
	jvm_frames__free(rt);
}

/* The JVM on the runtime layer (runtime.h). */
static const struct runtime_ops jvm_ops = {
	.what = "java",
	.proc_size = sizeof(struct jproc),
	.exec_detaches = true,
	/* its code heaps are read once attached: a library it maps later changes nothing
	 * (and the blobs seen before, its proofs, are kept) */
	.keeps_attached = true,
	.attach = attach,
	.detach = detach,
	.note = note,
	.mapping = mapping,
	.frames = frames_of,
	.rewrite_g = rewrite_g,
	.name = name_of,
	.stats = stats,
	.describe = describe,
	.finish = finish,
	.free = free_rt,
};

const struct runtime_ops *jvm_frames__runtime(void)
{
	return &jvm_ops;
}

/* The object's first symbols, in the order of JAVA_SYM_*. */
static const char *const fixed_names[] = { JAVA_UNVERIFIED_NAME, JAVA_CALLERS_NAME, JAVA_ENTRY_NAME,
					   JAVA_INTERPRETER_NAME };

/* ---- the symbol table ----------------------------------------------------------- */

uint32_t jvm_frames__symbol(struct jvm_frames *jf, const char *name)
{
	uint32_t sym = runtime_symbols__symbol(&jf->names, name);

	jf->st.locations = jf->names.nr;
	return sym;
}

static bool role_eq(const void *e, const void *key, const void *ctx)
{
	(void)ctx;
	return ((const struct jrole *)e)->tid == *(const int32_t *)key;
}

int jvm_frames__new(const struct jvm_frames_config *cfg, struct jvm_frames **ret)
{
	struct jvm_frames *jf = calloc(1, sizeof(*jf));

	_Static_assert(ARRAY_SIZE(fixed_names) == JAVA_SYM_INTERPRETER + 1, "one per fixed symbol");
	if (!jf)
		return -ENOMEM;
	jf->cfg = *cfg;
	hashtable__init(&jf->roles, sizeof(struct jrole), role_eq, NULL);
	jf->g_attr = (struct perf_event_attr){ .size = sizeof(jf->g_attr), .sample_type = cfg->g_sample_type,
					       .sample_regs_user = JAVA_G_REGS };
	runtime_procs__init(&jf->procs, &jvm_ops, jf,
			    &(struct runtime_tally){ .processes = &jf->st.processes, .rejected = &jf->st.rejected,
						     .why_rejected = jf->st.why_rejected,
						     .why_len = sizeof(jf->st.why_rejected) });
	if (runtime_symbols__init(&jf->names, fixed_names, ARRAY_SIZE(fixed_names), JAVA_SYMBOLS_MAX, 0) < 0) {
		jvm_frames__free(jf);
		return -ENOMEM;
	}
	jf->st.locations = jf->names.nr;
	*ret = jf;
	return 0;
}

struct jvm_frames *jvm_frames__free(struct jvm_frames *jf)
{
	if (!jf)
		return NULL;
	runtime_procs__release(&jf->procs);
	runtime_symbols__release(&jf->names);
	hashtable__release(&jf->roles);
	free(jf->gregs);
	free(jf);
	return NULL;
}

const struct jvm_frames_stats *jvm_frames__stats(const struct jvm_frames *jf)
{
	return &jf->st;
}

static const char *why_name(int why)
{
	static const char *const names[JAVA_WHYS] = { "code not seen before the sample", "code changed",
						      "unreadable", "interpreter between frames",
						      "process gone before the sample was read" };

	return names[why];
}

void jvm_frames_stats__describe(const struct jvm_frames_stats *st, char *buf, size_t len)
{
	uint64_t unverified = 0;
	size_t at;

	for (int i = 0; i < JAVA_WHYS; i++)
		unverified += st->unverified[i];
	at = (size_t)snprintf(buf, len,
			      "%" PRIu64 " samples of %" PRIu64 " JVM(s), %" PRIu64 " with Java frames, %" PRIu64
			      " of them all named; %" PRIu64 " frames named",
			      st->samples, st->processes, st->with_java, st->verified, st->frames);
	/* (a file's section keeps no kinds: none said rather than 0 of each) */
	if (at < len && st->interpreted + st->compiled + st->stubs)
		at += (size_t)snprintf(buf + at, len - at,
				       " (%" PRIu64 " interpreted, %" PRIu64 " compiled, %" PRIu64 " stubs)",
				       st->interpreted, st->compiled, st->stubs);
	if (at < len)
		at += (size_t)snprintf(buf + at, len - at, "; %" PRIu64 " [java: unverified]", unverified);
	if (at < len)
		at += runtime__why_list(st->unverified, 0, JAVA_WHYS, why_name, buf + at, len - at);
	if (at < len)
		at += (size_t)snprintf(buf + at, len - at, "; %" PRIu64 " with callers not proven", st->cut);
	if (at < len && st->vm_threads)
		snprintf(buf + at, len - at, "; %" PRIu64 " samples of the VM's own threads (GC, JIT compiler, VM thread) named by role",
			 st->vm_threads);
}

static void describe(const void *rt, char *buf, size_t len)
{
	jvm_frames_stats__describe(&((const struct jvm_frames *)rt)->st, buf, len);
}

/* ---- the processes ------------------------------------------------------------ */

/* The reader of a process's JVM (jvm.h): ctx is its pid. */
static int read_mem(void *ctx, uint64_t addr, void *buf, size_t len)
{
	return runtime__read_mem((int32_t)(intptr_t)ctx, addr, buf, len);
}

/* Does the model say pid maps a libjvm.so (of its own, prof's object aside)? */
static bool maps_jvm(const struct jvm_frames *jf, const struct maps *ms)
{
	for (size_t i = 0; ms && i < ms->nr; i++) {
		const struct model_dso *d = model__dso(jf->cfg.model, ms->v[i].dso);

		if (d && d->name && (jvm__looks_like(d->name) || jvm__other_vm(d->name)))
			return true;
	}
	return false;
}

/* What attach took of a process (its proofs and names), let go; its JVM's tables are
 * kept for a retry (they are read once). */
static void detach(void *rt, struct runtime_proc *rp)
{
	struct jproc *p = (struct jproc *)rp;

	(void)rt;
	hashtable__release(&p->blobs);
	hashtable__release(&p->methods);
	hashtable__release(&p->pcs);
}

/* Read the process's JVM: its tables and code heaps (again 0.1 s later while it is
 * starting: -EAGAIN, or -ENOENT until its maps change). */
static int attach(void *rt, struct runtime_proc *rp, char *why, size_t why_len)
{
	struct jvm_frames *jf = rt;
	struct jproc *p = (struct jproc *)rp;
	int err;

	/* its tables once (a fifth of a second for a JDK 25's libjvm.so), then its heaps
	 * until the JVM made them */
	err = p->has_layout ? 0 : jvm__find(rp->pid, read_mem, (void *)(intptr_t)rp->pid, &p->j, why, why_len);
	p->has_layout = err == 0;
	if (err == 0)
		err = jvm__read_heaps(&p->j, why, why_len);
	if (err == -EAGAIN || err == -ENOENT) {
		rp->retry_ns = jf->now + 100000000u;   /* a JVM starting: looked at again in 0.1 s */
		return err;
	}
	if (err < 0) {
		if (!why[0])
			snprintf(why, why_len, "process %d's JVM could not be read: %s", rp->pid, strerror(-err));
		return err;
	}
	p->interp_ok = jvm_frames__interp_ok(&p->j.l);
	hashtable__init(&p->blobs, sizeof(struct jblob_seen), jvm_frames__blob_eq, NULL);
	hashtable__init(&p->methods, sizeof(struct jmethod_sym), jvm_frames__method_eq, NULL);
	hashtable__init(&p->pcs, sizeof(struct jpc_syms), jvm_frames__pc_eq, NULL);
	return 0;
}

/* How many of the process's own mappings there are (the synthetic one is prof's). */
static size_t own_maps(const struct maps *ms)
{
	return ms ? ms->nr - (maps__find(ms, JAVA_BASE) ? 1 : 0) : 0;
}

struct jproc *jvm_frames__proc(struct jvm_frames *jf, int32_t pid, uint64_t now)
{
	const struct maps *ms = model__maps(jf->cfg.model, pid);
	struct runtime_proc *rp = runtime_procs__find(&jf->procs, pid);

	/* a process that maps no JVM is not kept: judged again at its next sample (a
	 * cheap walk of its maps) */
	if (!rp && !maps_jvm(jf, ms))
		return NULL;
	jf->now = now;
	rp = runtime_procs__get(&jf->procs, pid, own_maps(ms), now);
	return rp && rp->attached ? (struct jproc *)rp : NULL;
}

/* A thread's name (its COMM record: a JVM names its threads as it starts them, an exec
 * names a process after its program) or its end: its role kept or let go. */
static void note_role(struct jvm_frames *jf, const struct perf_event_header *ev)
{
	const struct perf_record_comm *c = (const void *)ev;
	const struct perf_record_fork *f = (const void *)ev;
	char comm[16] = "";
	const char *role = NULL;
	struct jrole *r;
	int32_t tid;
	bool created;

	if (ev->type == PERF_RECORD_COMM && ev->size > offsetof(struct perf_record_comm, comm)) {
		memcpy(comm, c->comm, MIN(sizeof(comm) - 1, ev->size - offsetof(struct perf_record_comm, comm)));
		role = jvm_frames__thread_role(comm);
		tid = (int32_t)c->tid;
	} else if (ev->type == PERF_RECORD_EXIT && ev->size >= sizeof(*f)) {
		tid = (int32_t)f->tid;
	} else {
		return;
	}
	if (!role) {
		hashtable__remove(&jf->roles, hash__u64((uint64_t)(uint32_t)tid), &tid);
		return;
	}
	if ((r = hashtable__insert(&jf->roles, hash__u64((uint64_t)(uint32_t)tid), &tid, &created)))
		*r = (struct jrole){ .tid = tid, .role = role };
}

void jvm_frames__note(struct jvm_frames *jf, const struct perf_event_header *ev)
{
	runtime_procs__note(&jf->procs, ev);
	note_role(jf, ev);
}

/* ---- the object ---------------------------------------------------------------- */

bool jvm_frames__name(const struct jvm_frames *jf, const struct model_dso *d, uint64_t off, const char **ret)
{
	return runtime_symbols__name(&jf->names, d, off, ret);
}

static bool name_of(const void *rt, const struct model_dso *d, uint64_t off, const char **ret)
{
	return jvm_frames__name(rt, d, off, ret);
}

int jvm_frames__map_object(struct jvm_frames *jf, const struct sample *s)
{
	return runtime_symbols__map(&jf->names, jf->cfg.model, &jf->cfg.synth, s, JAVA_BASE, 1u << 24,
				    JAVA_OBJECT_PATH, jf->cfg.sink, jf->cfg.sink_ctx);
}

void jvm_frames__finish(struct jvm_frames *jf)
{
	if (jf->st.with_java && jf->cfg.cache)
		jf->st.kept = runtime_symbols__keep(&jf->names, jf->cfg.cache, JAVA_OBJECT_PATH, "prof-java");
}
