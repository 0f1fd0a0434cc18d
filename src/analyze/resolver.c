/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <fcntl.h>
#include <string.h>
#include <perf/event.h>

#include "prof/sys/procfs.h"
#include "prof/analyze/resolver.h"
#include "prof/base/hash.h"
#include "prof/base/util.h"
#include "prof/jvm/frames.h"

/*
 * The frames met lately, by (task, address): a report's samples hit the same few
 * thousand addresses over and over, and each miss costs a map look-up, the object's
 * entry and a symbol search.  A slot holds while the model's maps stay as they were
 * (model__generation); frames named by a JIT map are not kept (they depend on the
 * uid as well).
 */
#define FRAME_SLOTS 4096

struct frame_slot {
	uint64_t ip;
	uint64_t gen;                   /* the maps' generation + 1; 0: empty */
	int32_t pid;                    /* -1 for kernel addresses: one map for all */
	bool kernel;
	bool ret_addr;                  /* a return address: its inlines are the call's */
	int8_t nr_inl;                  /* inl[0..nr_inl), -1 until asked */
	const struct model_dso *dso;    /* NULL when unmapped; objects move only when the
					 * maps change (a new one is made) */
	uint64_t off;
	struct profile_frame f;
	const char *inl[SYMBOLS_INLINE_MAX];
};

struct resolver_cache {
	struct frame_slot v[FRAME_SLOTS];
	struct frame_slot scratch;      /* a frame not kept (a JIT's) */
};

int resolver__cache_init(struct resolver *r)
{
	r->cache = calloc(1, sizeof(*r->cache));
	return r->cache ? 0 : -ENOMEM;
}

void resolver__cache_flush(struct resolver *r)
{
	if (r->cache)
		memset(r->cache, 0, sizeof(*r->cache));        /* gen 0: no slot matches */
}

void resolver__cache_release(struct resolver *r)
{
	free(r->cache);
	r->cache = NULL;
}

bool resolver__kernel_is(const char *build_id)
{
	_cleanup_free_ char *notes = NULL;
	char here[84] = "";
	ssize_t n;

	if (!build_id || !build_id[0])
		return true;
	n = read_file_full(AT_FDCWD, "/sys/kernel/notes", 1 << 16, &notes);
	return n > 0 && procfs__kernel_build_id((const uint8_t *)notes, (size_t)n, here, sizeof(here)) == 0 &&
	       !strcmp(here, build_id);
}

void resolver__load_kernel(struct resolver *r)
{
	_cleanup_free_ char *ks = NULL;
	const char *ref;
	uint64_t addr;

	r->kernel_tried = true;
	if (!r->kernel_here && !(r->kernel_by_build_id && model__kernel_build_id(r->model)[0] &&
				 resolver__kernel_is(model__kernel_build_id(r->model))))
		return;
	if (!model__kernel_ref(r->model, &ref, &addr) || !ref[0])
		return;
	if (read_file_full(AT_FDCWD, "/proc/kallsyms", 256u << 20, &ks) < 0)
		return;
	r->kernel_ok = symbols__load_kallsyms(r->syms, ks, ref, addr) == 0;
}

/* resolver__frame, and the object (NULL when unmapped) and offset ip is at;
 * *ret_jit when a JIT map was asked. */
static const struct model_dso *frame_find(struct resolver *r, int32_t pid, bool kernel, uint64_t ip,
					  struct profile_frame *ret, uint64_t *ret_off, bool *ret_jit)
{
	struct model_location loc;
	const struct model_dso *d;
	const char *sym = NULL, *live;

	*ret = (struct profile_frame){ .dso = RESOLVE_UNKNOWN, .sym = RESOLVE_UNKNOWN, .kernel = kernel };
	if (!model__resolve(r->model, pid, kernel, ip, &loc))
		return NULL;
	d = model__dso(r->model, loc.dso);
	*ret_off = loc.off;
	ret->dso = d->name;
	if (d->kernel) {
		if (!r->kernel_tried)
			resolver__load_kernel(r);
		if (r->kernel_ok && !strcmp(d->name, "[kernel.kallsyms]"))
			sym = symbols__kernel(r->syms, loc.off);
	} else if (r->object_name && r->object_name(r->object_ctx, d, loc.off, &live)) {
		sym = live ? strset__intern(r->names, live) : NULL;
		/* (a JVM's frames in their own: "[java]", not Python's) */
		if (r->object_dso)
			ret->dso = strcmp(d->name, JAVA_OBJECT_PATH) ? r->object_dso : JAVA_OBJECT_LIVE;
	} else if ((d->name[0] == '/' && d->name[1] != '/' && strncmp(d->name, "/memfd:", 7)) ||
		   d->vdso == MODEL_VDSO_NATIVE) {
		uint64_t into = 0;

		sym = symbols__user_in(r->syms, d, loc.off, r->fn_addrs ? &into : NULL);
		if (!sym)
			into = 0;
		if (r->addrs && symbols__vaddr(r->syms, d, loc.off - into, &ret->addr)) {
			ret->has_addr = true;
			ret->off = loc.off - into;
		}
	} else if (r->jit) {
		/* anonymous code: a JIT may have described it in /tmp/perf-PID.map,
		 * trusted when its own user (as recorded) wrote it */
		uint32_t uid;
		bool known = r->uid_of ? r->uid_of(r->uid_ctx, pid, &uid) : model__uid(r->model, pid, &uid);

		*ret_jit = true;
		r->jit_lookups++;
		sym = jitmap__lookup(r->jit, pid, known ? (int64_t)uid : -1, ip);
	}
	if (sym) {
		ret->sym = sym;
	} else {
		/* unresolved: say so, with the object it is in */
		const char *slash = d->name[0] == '/' && d->name[1] != '/' ? strrchr(d->name, '/') : NULL;
		char name[300];

		snprintf(name, sizeof(name), "[unknown] (%s)", slash && slash[1] ? slash + 1 : d->name);
		sym = strset__intern(r->names, name);
		if (sym)
			ret->sym = sym;
	}
	return d;
}

static struct frame_slot *frame_slot(struct resolver *r, int32_t pid, uint64_t ip, bool ret_addr)
{
	uint64_t h = hash__step(ip, (uint64_t)(uint32_t)pid << 40 ^ (uint64_t)ret_addr << 63);

	return &r->cache->v[hash__top(h, 12)];   /* FRAME_SLOTS: 2^12 */
}

/* frame_at's miss: the frame found and kept in c (a JIT's, in the scratch slot). */
static __attribute__((noinline)) struct frame_slot *frame_miss(struct resolver *r, struct frame_slot *c,
							       uint64_t gen, int32_t pid, bool kernel,
							       uint64_t ip, bool ret_addr)
{
	struct frame_slot *t = &r->cache->scratch;
	bool jit = false;

	*t = (struct frame_slot){ .ip = ip, .gen = gen, .pid = kernel ? -1 : pid, .kernel = kernel,
				  .ret_addr = ret_addr, .nr_inl = -1 };
	t->dso = frame_find(r, pid, kernel, ip, &t->f, &t->off, &jit);
	if (jit)
		return t;
	*c = *t;
	return c;
}

/* The slot that holds ip's frame (r->cache is there).  gen: the model's maps'
 * generation + 1. */
static inline struct frame_slot *frame_at(struct resolver *r, uint64_t gen, int32_t pid, bool kernel,
					  uint64_t ip, bool ret_addr)
{
	int32_t key = kernel ? -1 : pid;
	struct frame_slot *c = frame_slot(r, key, ip, ret_addr);

	if (__builtin_expect(c->gen == gen && c->ip == ip && c->pid == key && c->kernel == kernel &&
			     c->ret_addr == ret_addr, 1))
		return c;
	return frame_miss(r, c, gen, pid, kernel, ip, ret_addr);
}

void resolver__frame(struct resolver *r, int32_t pid, bool kernel, uint64_t ip, struct profile_frame *ret)
{
	uint64_t off;
	bool jit;

	if (!r->cache) {
		frame_find(r, pid, kernel, ip, ret, &off, &jit);
		return;
	}
	*ret = frame_at(r, model__generation(r->model, true) + 1, pid, kernel, ip, false)->f;
}

/* Without a cache: the frame found into c. */
static __attribute__((noinline)) struct frame_slot *frame_uncached(struct resolver *r, int32_t pid, bool kernel,
								   uint64_t ip, struct frame_slot *c)
{
	bool jit;

	*c = (struct frame_slot){ .nr_inl = -1 };
	c->dso = frame_find(r, pid, kernel, ip, &c->f, &c->off, &jit);
	return c;
}

/* The frames of slot c, leaf first, into ret (room for max >= 1): with r->inlines,
 * the functions inlined at it ("f (inlined)", from the object's DWARF), then the
 * one they are in.  A return address (ret_addr) is looked up one byte back, in the
 * call instruction, whose inline chain is the caller's. */
static size_t slot_frames(struct resolver *r, struct frame_slot *c, bool ret_addr, struct profile_frame *ret,
			  size_t max)
{
	const struct model_dso *d = c->dso;
	size_t n = 0;

	if (r->inlines && d && !d->kernel && d->name[0] == '/' && c->f.sym[0] != '[' && max > 1) {
		if (c->nr_inl < 0)
			c->nr_inl = (int8_t)symbols__inlined(r->syms, d, ret_addr && c->off ? c->off - 1 : c->off,
							     c->inl, SYMBOLS_INLINE_MAX);
		n = MIN((size_t)c->nr_inl, max - 1);
		for (size_t i = 0; i < n; i++)
			ret[i] = (struct profile_frame){ .dso = c->f.dso, .sym = c->inl[i], .inlined = true };
	}
	ret[n] = c->f;
	return n + 1;
}

static inline size_t frames_at(struct resolver *r, uint64_t gen, int32_t pid, bool kernel, uint64_t ip,
			       bool ret_addr, struct profile_frame *ret, size_t max)
{
	struct frame_slot tmp;

	if (__builtin_expect(!r->cache, 0))
		return slot_frames(r, frame_uncached(r, pid, kernel, ip, &tmp), ret_addr, ret, max);
	return slot_frames(r, frame_at(r, gen, pid, kernel, ip, ret_addr), ret_addr, ret, max);
}

size_t resolver__stack(struct resolver *r, int32_t pid, uint16_t misc, uint64_t ip, const uint64_t *chain,
		       uint64_t nr_chain, bool with_chain, struct profile_frame *ret, size_t max)
{
	bool kernel = (misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
	uint64_t gen = model__generation(r->model, true) + 1;
	bool skipped_ip = false;
	size_t n = 0;

	if (!max)
		return 0;
	n += frames_at(r, gen, pid, kernel, ip, false, ret, with_chain ? max : 1);
	for (uint64_t i = 0; with_chain && i < nr_chain && n < max; i++) {
		uint64_t a;

		memcpy(&a, (const uint8_t *)chain + 8 * i, 8);
		if (a >= (uint64_t)PERF_CONTEXT_MAX) {
			kernel = a == (uint64_t)PERF_CONTEXT_KERNEL;
			continue;
		}
		/* the chain starts with the sample's own ip */
		if (!skipped_ip && a == ip) {
			skipped_ip = true;
			continue;
		}
		skipped_ip = true;
		n += frames_at(r, gen, pid, kernel, a, true, ret + n, max - n);
	}
	return n;
}
