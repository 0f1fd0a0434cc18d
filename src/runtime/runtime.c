/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The runtime layer's core: see include/prof/runtime/runtime.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "prof/base/hash.h"
#include "prof/base/util.h"
#include "prof/base/vec.h"
#include "prof/runtime/elf_writer.h"
#include "prof/runtime/runtime.h"
#include "prof/sys/privs.h"

/* ---- the processes -------------------------------------------------------------- */

static bool proc_eq(const void *e, const void *key, const void *ctx)
{
	(void)ctx;
	return ((const struct runtime_proc *)e)->pid == *(const int32_t *)key;
}

void runtime_procs__init(struct runtime_procs *t, const struct runtime_ops *ops, void *rt,
			 const struct runtime_tally *tally)
{
	*t = (struct runtime_procs){ .ops = ops, .rt = rt, .tally = *tally };
	hashtable__init(&t->procs, ops->proc_size, proc_eq, NULL);
}

static void detach(struct runtime_procs *t, struct runtime_proc *p)
{
	if (p->pidfd >= 0)
		close(p->pidfd);
	p->pidfd = -1;
	t->ops->detach(t->rt, p);
}

void runtime_procs__release(struct runtime_procs *t)
{
	struct runtime_proc *p;

	for (size_t i = 0; (p = hashtable__next(&t->procs, &i));)
		detach(t, p);
	hashtable__release(&t->procs);
}

struct runtime_proc *runtime_procs__find(const struct runtime_procs *t, int32_t pid)
{
	return t->procs.nr ? hashtable__find(&t->procs, hash__u64((uint32_t)pid), &pid) : NULL;
}

/* p counted as refused (once: a process counted before stays as it was counted),
 * the first refusal's reason kept. */
static void refused(struct runtime_procs *t, struct runtime_proc *p, const char *why)
{
	if (!p->counted)
		(*t->tally.rejected)++;
	p->counted = true;
	if (!t->tally.why_rejected[0])
		snprintf(t->tally.why_rejected, t->tally.why_len, "%s", why);
}

void runtime_procs__refuse(struct runtime_procs *t, struct runtime_proc *p, const char *why)
{
	/* counted as attached until now */
	*t->tally.processes -= p->counted;
	p->counted = false;
	p->attached = false;
	refused(t, p, why);
}

struct runtime_proc *runtime_procs__get(struct runtime_procs *t, int32_t pid, size_t maps_nr, uint64_t now)
{
	struct runtime_proc *p;
	char why[320];
	bool created;
	int err;

	p = hashtable__insert(&t->procs, hash__u64((uint32_t)pid), &pid, &created);
	if (!p)
		return NULL;
	if (created) {
		memset(p, 0, t->ops->proc_size);
		*p = (struct runtime_proc){ .pid = pid, .pidfd = -1 };
	}
	if ((p->attached && t->ops->keeps_attached) || now < p->retry_ns)
		return p;
	/* attached again when a mapping of its own came or went (a runtime mapped after
	 * a first sample, its exec), not for the synthetic one */
	if (p->judged && maps_nr == p->maps_nr)
		return p;
	detach(t, p);
	p->attached = false;
	p->judged = true;
	p->maps_nr = maps_nr;
	p->retry_ns = 0;
	why[0] = '\0';
	err = t->ops->attach(t->rt, p, why, sizeof(why));
	if (err == -EAGAIN)
		p->judged = false;      /* not yet: asked again from retry_ns on */
	if (err == -ENOENT || err == -EAGAIN)
		return p;               /* no runtime (yet) */
	if (err < 0) {
		if (!why[0])
			snprintf(why, sizeof(why), "%s (pid %d): %s", t->ops->what, pid, strerror(-err));
		refused(t, p, why);
		return p;
	}
	if (!p->counted)
		(*t->tally.processes)++;
	p->counted = true;
	p->attached = true;
	return p;
}

/* The pid of a process's EXIT record (its main thread's), or of its exec's COMM. */
static bool exited(const struct perf_event_header *ev, bool exec, int32_t *ret)
{
	if (ev->type == PERF_RECORD_EXIT && ev->size >= sizeof(*ev) + 12) {
		const uint32_t *f = (const void *)(ev + 1);     /* pid, ppid, tid */

		*ret = (int32_t)f[0];
		return f[0] == f[2];
	}
	if (exec && ev->type == PERF_RECORD_COMM && (ev->misc & PERF_RECORD_MISC_COMM_EXEC) &&
	    ev->size >= sizeof(*ev) + 8) {
		*ret = (int32_t)((const uint32_t *)(const void *)(ev + 1))[0];
		return true;
	}
	return false;
}

void runtime_procs__note(struct runtime_procs *t, const struct perf_event_header *ev)
{
	struct runtime_proc *p;
	int32_t pid;

	if (!exited(ev, t->ops->exec_detaches, &pid) || !(p = runtime_procs__find(t, pid)))
		return;
	detach(t, p);
	hashtable__remove(&t->procs, hash__u64((uint32_t)pid), &pid);
}

bool runtime__pids_map(const int *pids, size_t n, bool (*match)(const char *path))
{
	for (size_t i = 0; i < n; i++) {
		char path[64], line[4096];
		bool found = false;
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/maps", pids[i]);
		if (!(f = fopen(path, "re")))
			continue;
		while (!found && fgets(line, sizeof(line), f)) {
			char *name = strchr(line, '/'), *nl = strchr(line, '\n');

			if (nl)
				*nl = '\0';
			found = name && match(name);
		}
		fclose(f);
		if (found)
			return true;
	}
	return false;
}

bool runtime_proc__still_there(const struct runtime_proc *p)
{
	struct pollfd pfd = { .fd = p->pidfd, .events = POLLIN };

	return p->pidfd >= 0 && poll(&pfd, 1, 0) == 0;
}

int runtime__read_mem(int32_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };
	ssize_t n = process_vm_readv((pid_t)pid, &local, 1, &remote, 1, 0);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EFAULT;
}

/* ---- the names ------------------------------------------------------------------ */

static bool sym_eq(const void *e, const void *key, const void *ctx)
{
	const struct runtime_symbols *n = ctx;

	return strcmp(n->names[*(const uint32_t *)e], key) == 0;
}

/* The fixed names, at the start of a window: 0 or -ENOMEM. */
static int names_fixed(struct runtime_symbols *n)
{
	for (size_t i = 0; i < n->nr_fixed; i++)
		if (runtime_symbols__symbol(n, n->fixed[i]) != i || n->nr != i + 1)
			return -ENOMEM;
	return 0;
}

int runtime_symbols__init(struct runtime_symbols *n, const char *const *fixed, size_t nr_fixed, uint32_t max,
			uint32_t window)
{
	*n = (struct runtime_symbols){ .max = max, .window = window, .fixed = fixed, .nr_fixed = nr_fixed };
	hashtable__init(&n->syms, sizeof(uint32_t), sym_eq, n);
	/* unique to this recording: the object is written at its end */
	n->id.size = 20;
	if (getrandom(n->id.data, 20, 0) != 20)
		return -ENOMEM;
	return names_fixed(n);
}

static void names_free(struct runtime_symbols *n)
{
	for (size_t i = 0; i < n->nr; i++)
		free(n->names[i]);
	n->nr = 0;
}

void runtime_symbols__release(struct runtime_symbols *n)
{
	names_free(n);
	free(n->names);
	n->names = NULL;
	hashtable__release(&n->syms);
}

uint32_t runtime_symbols__symbol(struct runtime_symbols *n, const char *name)
{
	uint64_t h = hash__bytes(name, strlen(name));
	uint32_t *e = hashtable__find(&n->syms, h, name);
	char *copy;
	bool created;

	if (e)
		return *e;
	if (n->nr >= n->max || vec__reserve((void **)&n->names, &n->cap, n->nr + 1, sizeof(char *)) < 0 ||
	    !(copy = strdup(name)))
		return 0;
	n->names[n->nr] = copy;
	e = hashtable__insert(&n->syms, h, name, &created);
	if (!e) {
		free(copy);
		return 0;
	}
	*e = (uint32_t)n->nr++;
	return *e;
}

bool runtime_symbols__turn(struct runtime_symbols *n)
{
	if (!n->window || n->nr < n->window)
		return false;
	hashtable__clear(&n->syms);
	n->base += n->nr;
	names_free(n);
	n->windows++;
	/* on ENOMEM the window stays empty: every symbol 0 (unverified) */
	(void)names_fixed(n);
	return true;
}

bool runtime_symbols__name(const struct runtime_symbols *n, const struct model_dso *d, uint64_t off, const char **ret)
{
	if (d->build_id_len != n->id.size || memcmp(d->build_id, n->id.data, n->id.size) != 0)
		return false;
	*ret = NULL;
	if (off < RUNTIME_ELF_TEXT || off - RUNTIME_ELF_TEXT < n->base)
		return true;    /* a window of names gone: nothing, never another's */
	off -= RUNTIME_ELF_TEXT + n->base;
	if (off < n->nr)
		*ret = n->names[off];
	return true;
}

int runtime_symbols__map(const struct runtime_symbols *n, const struct model *m, const struct synth_env *env,
		       const struct sample *s, uint64_t base, uint64_t len, const char *path, synth_sink_fn sink,
		       void *sink_ctx)
{
	const struct maps *ms = model__maps(m, (int32_t)s->pid);

	if (ms && maps__find(ms, base))
		return 0;
	return synth__mmap2_build_id(env, (pid_t)s->pid, (pid_t)s->tid, base, len, RUNTIME_ELF_TEXT, n->id.data,
				     n->id.size, path, s->time, sink, sink_ctx);
}

int runtime_symbols__keep(const struct runtime_symbols *n, struct build_id_cache *cache, const char *path,
			const char *memfd_name)
{
	enum build_id_cache_result res;
	int fd = memfd_create(memfd_name, MFD_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = runtime_elf__write(fd, &n->id, (const char *const *)n->names, n->nr);
	if (err == 0)
		err = build_id_cache__add(cache, fd, path, &n->id, (uint64_t)lseek(fd, 0, SEEK_END), &res);
	if (err == 0 && res != BUILD_ID_CACHE_KEPT && res != BUILD_ID_CACHE_PRESENT)
		err = -ENOSPC;
	close(fd);
	return err;
}

/* ---- a sample's frames read with the user's rights -------------------------- */

struct edit_call {
	unwinder_edit_fn fn;
	void *ctx;
	const struct sample *s;
	uint64_t *ips;
	const uint64_t *sps;
	const struct unwind_regs *regs;
	size_t nr, max, ret;
};

static int edit_call(void *arg)
{
	struct edit_call *c = arg;

	c->ret = c->fn(c->ctx, c->s, c->ips, c->sps, c->regs, c->nr, c->max);
	return 0;
}

size_t runtime__edit_as_user(unwinder_edit_fn fn, void *ctx, bool as_user, const struct sample *s, uint64_t *ips,
			     const uint64_t *sps, const struct unwind_regs *regs, size_t nr, size_t max)
{
	struct edit_call c = { fn, ctx, s, ips, sps, regs, nr, max, nr };

	if (!as_user)
		return fn(ctx, s, ips, sps, regs, nr, max);
	return privs__as_user(edit_call, &c) < 0 ? nr : c.ret;
}

size_t runtime__kernel_chain(const struct sample *s)
{
	for (size_t i = 0; i < s->nr_callchain; i++)
		if (s->callchain[i] == PERF_CONTEXT_USER)
			return i;
	return s->nr_callchain;
}

int runtime__splice_chain(const struct perf_event_header *ev, const struct sample *s, uint64_t sample_type,
			  size_t nk, const uint64_t *ips, size_t n, uint64_t leaf, size_t from, void *out,
			  size_t outlen)
{
	const uint8_t *in = (const void *)ev;
	size_t at = (size_t)((const uint8_t *)s->callchain - in) - 8;  /* the chain's nr */
	bool user = nk < s->nr_callchain;
	uint64_t nr = nk + (user ? 1 + n : 0), ctx = PERF_CONTEXT_USER;
	size_t len = at + 8 + 8 * nr + (ev->size - from);
	uint8_t *o = out;

	if (len > outlen || len > UINT16_MAX)
		return -EINVAL;
	memcpy(o, in, at);
	if (n && leaf && ips[0] != leaf && s->ip == leaf && (sample_type & PERF_SAMPLE_IP))
		memcpy(o + sizeof(struct perf_event_header) + ((sample_type & PERF_SAMPLE_IDENTIFIER) ? 8 : 0),
		       &ips[0], 8);
	o += at;
	memcpy(o, &nr, 8);
	memcpy(o + 8, s->callchain, 8 * nk);
	o += 8 + 8 * nk;
	if (user) {
		memcpy(o, &ctx, 8);
		memcpy(o + 8, ips, 8 * n);
		o += 8 * (1 + n);
	}
	memcpy(o, in + from, ev->size - from);
	((struct perf_event_header *)out)->size = (uint16_t)len;
	return (int)len;
}

/* ---- the counts ----------------------------------------------------------------- */

size_t runtime__why_list(const uint64_t *counts, int from, int to, const char *(*name)(int), char *buf, size_t len)
{
	size_t at = 0;

	if (!len)
		return 0;
	buf[0] = '\0';
	for (int i = from; i < to && at < len; i++) {
		if (!counts[i])
			continue;
		at += (size_t)snprintf(buf + at, len - at, "%s%" PRIu64 " %s", at ? ", " : " (", counts[i], name(i));
	}
	if (at && at < len)
		at += (size_t)snprintf(buf + at, len - at, ")");
	return MIN(at, len - 1);
}
