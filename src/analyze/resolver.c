/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <fcntl.h>
#include <string.h>
#include <perf/event.h>

#include "prof/sys/procfs.h"
#include "prof/analyze/resolver.h"
#include "prof/base/util.h"

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
};

int resolver__cache_init(struct resolver *r)
{
	r->cache = calloc(1, sizeof(*r->cache));
	return r->cache ? 0 : -ENOMEM;
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
	if (!r->kernel_here || !model__kernel_ref(r->model, &ref, &addr) || !ref[0])
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
	const char *sym = NULL;

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
	} else if (d->name[0] == '/' && d->name[1] != '/' && strncmp(d->name, "/memfd:", 7)) {
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
	uint64_t h = (ip ^ (uint64_t)(uint32_t)pid << 40 ^ (uint64_t)ret_addr << 63) * 0x9e3779b97f4a7c15ull;

	return &r->cache->v[h >> 52];   /* FRAME_SLOTS: 2^12 */
}

/* frame_find through the cache; *ret_slot is the slot that now holds the frame
 * (NULL: none, as for a JIT's). */
static const struct model_dso *frame_at(struct resolver *r, int32_t pid, bool kernel, uint64_t ip, bool ret_addr,
					struct profile_frame *ret, uint64_t *ret_off, struct frame_slot **ret_slot)
{
	uint64_t gen = model__generation(r->model, true) + 1;
	int32_t key = kernel ? -1 : pid;
	const struct model_dso *d;
	struct frame_slot *c;
	bool jit = false;

	*ret_slot = NULL;
	if (!r->cache)
		return frame_find(r, pid, kernel, ip, ret, ret_off, &jit);
	c = frame_slot(r, key, ip, ret_addr);
	if (c->gen == gen && c->ip == ip && c->pid == key && c->kernel == kernel && c->ret_addr == ret_addr) {
		*ret = c->f;
		*ret_off = c->off;
		*ret_slot = c;
		return c->dso;
	}
	*ret_off = 0;
	d = frame_find(r, pid, kernel, ip, ret, ret_off, &jit);
	if (jit)
		return d;
	*c = (struct frame_slot){ .ip = ip, .gen = gen, .pid = key, .kernel = kernel, .ret_addr = ret_addr,
				  .nr_inl = -1, .off = *ret_off, .dso = d, .f = *ret };
	*ret_slot = c;
	return d;
}

void resolver__frame(struct resolver *r, int32_t pid, bool kernel, uint64_t ip, struct profile_frame *ret)
{
	struct frame_slot *c;
	uint64_t off;

	frame_at(r, pid, kernel, ip, false, ret, &off, &c);
}

/*
 * The frames of ip, leaf first, into ret (room for max >= 1): with r->inlines, the
 * functions inlined at it ("f (inlined)", from the object's DWARF), then the one
 * they are in.  A return address (ret_addr) is looked up one byte back, in the call
 * instruction, whose inline chain is the caller's.
 */
static size_t frames_at(struct resolver *r, int32_t pid, bool kernel, uint64_t ip, bool ret_addr,
			struct profile_frame *ret, size_t max)
{
	const char *found[SYMBOLS_INLINE_MAX];
	const char *const *inl = found;
	struct profile_frame f;
	const struct model_dso *d;
	struct frame_slot *c;
	uint64_t off = 0;
	size_t n = 0;

	d = frame_at(r, pid, kernel, ip, ret_addr, &f, &off, &c);
	if (r->inlines && d && !d->kernel && d->name[0] == '/' && f.sym[0] != '[' && max > 1) {
		if (c && c->nr_inl >= 0) {
			inl = c->inl;
			n = (size_t)c->nr_inl;
		} else {
			n = symbols__inlined(r->syms, d, ret_addr && off ? off - 1 : off, found, SYMBOLS_INLINE_MAX);
			if (c) {
				memcpy(c->inl, found, n * sizeof(*found));
				c->nr_inl = (int8_t)n;
			}
		}
		n = MIN(n, max - 1);
	}
	for (size_t i = 0; i < n; i++)
		ret[i] = (struct profile_frame){ .dso = f.dso, .sym = inl[i], .inlined = true };
	ret[n] = f;
	return n + 1;
}

size_t resolver__stack(struct resolver *r, int32_t pid, uint16_t misc, uint64_t ip, const uint64_t *chain,
		       uint64_t nr_chain, bool with_chain, struct profile_frame *ret, size_t max)
{
	bool kernel = (misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
	bool skipped_ip = false;
	size_t n = 0;

	if (!max)
		return 0;
	n += frames_at(r, pid, kernel, ip, false, ret, with_chain ? max : 1);
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
		n += frames_at(r, pid, kernel, a, true, ret + n, max - n);
	}
	return n;
}
