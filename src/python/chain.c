/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Python callers read at the sample instant: see include/prof/python/chain.h.  The
 * program's object is built from bpf/chain.bpf.c and linked in (src/meson.build).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "prof/base/hash.h"
#include "prof/base/hashtable.h"
#include "prof/base/util.h"
#include "config.h"
#include "prof/python/chain.h"

#if HAVE_LIBBPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

extern const unsigned char python_chain_bpf[];
extern const size_t python_chain_bpf_len;
#endif

/*
 * Chains kept until their samples are unwound (~65 ms later when prof keeps up).  The
 * store starts at CHAINS_KEPT and doubles while its oldest chain is still waiting for
 * its sample: a backlog the rings' spill thread hands over at once (up to the
 * session's queue bound, 256 MB: ~10^6 samples) has a chain for each of its samples,
 * where a fixed 8,192 left the older ones without one.  Past CHAINS_MAX the oldest go
 * first (counted: evicted; their samples counted as without a chain, never misnamed).
 */
#define CHAINS_KEPT 8192u
#define CHAINS_MAX (1u << 20)
/* The record's sample fields before its raw data: IDENTIFIER, TID, TIME, CPU. */
#define CHAIN_SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | \
			   PERF_SAMPLE_RAW)
#define RAW_AT (sizeof(struct perf_event_header) + 4 * 8)

struct key {
	int32_t tid;
	uint64_t time;
};

struct slot {
	struct python_chain c;          /* c.f: frames, cap of them */
	struct python_chain_frame *frames;
	uint16_t cap;
	bool used;
	bool pending;                   /* kept, not taken yet */
};

struct idx {
	struct key k;
	uint32_t slot;
};

struct python_chains {
#if HAVE_LIBBPF
	struct bpf_object *obj;
#endif
	int prog_fd, procs_fd, out_fd;
	struct slot *ring;              /* nr_slots, the oldest at next */
	uint32_t next, nr_slots;
	struct hashtable idx;           /* struct idx by (tid, time) */
	struct python_chain_stats st;
};

static bool idx_eq(const void *e, const void *key, const void *ctx)
{
	const struct key *a = &((const struct idx *)e)->k, *b = key;

	(void)ctx;
	return a->tid == b->tid && a->time == b->time;
}

static uint64_t key_hash(const struct key *k)
{
	return hash__mix(hash__u64((uint32_t)k->tid), k->time);
}

void python_chains__attr(const struct perf_event_attr *sampling, struct perf_event_attr *ret)
{
	*ret = (struct perf_event_attr){
		.size = sizeof(*ret), .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_BPF_OUTPUT,
		.sample_type = CHAIN_SAMPLE_TYPE, .read_format = PERF_FORMAT_ID, .sample_period = 1,
		.use_clockid = sampling->use_clockid, .clockid = sampling->clockid,
		/* on from the start: the kernel writes a bpf-output record only for an
		 * event running on its CPU; it has nothing to write until a sampling
		 * event's sample runs the program */
		.disabled = 0,
	};
}

static struct python_chains *store_new(void)
{
	struct python_chains *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->prog_fd = c->procs_fd = c->out_fd = -1;
	c->ring = calloc(CHAINS_KEPT, sizeof(*c->ring));
	if (!c->ring) {
		free(c);
		return NULL;
	}
	c->nr_slots = CHAINS_KEPT;
	hashtable__init(&c->idx, sizeof(struct idx), idx_eq, NULL);
	return c;
}

static void store_free(struct python_chains *c)
{
	for (size_t i = 0; c->ring && i < c->nr_slots; i++)
		free(c->ring[i].frames);
	free(c->ring);
	hashtable__release(&c->idx);
}

int python_chains__new_store(struct python_chains **ret)
{
	*ret = store_new();
	return *ret ? 0 : -ENOMEM;
}

#if HAVE_LIBBPF
static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level, (void)fmt, (void)ap;
	return 0;
}

int python_chains__new(struct python_chains **ret, char *why, size_t why_len)
{
	struct python_chains *c = store_new();
	struct bpf_program *prog;
	int err;

	if (!c)
		return -ENOMEM;
	libbpf_set_print(quiet);
	c->obj = bpf_object__open_mem(python_chain_bpf, python_chain_bpf_len, NULL);
	if (!c->obj) {
		err = -errno;
		snprintf(why, why_len, "prof's BPF object did not open: %s", strerror(-err));
		goto err;
	}
	err = bpf_object__load(c->obj);
	if (err) {
		err = err < 0 ? err : -EINVAL;
		if (err == -EPERM || err == -EACCES)
			snprintf(why, why_len, "loading a BPF program needs CAP_BPF and CAP_PERFMON (or root)");
		else
			snprintf(why, why_len, "the kernel refused prof's BPF program: %s", strerror(-err));
		goto err;
	}
	prog = bpf_object__find_program_by_name(c->obj, "python_chain");
	c->prog_fd = prog ? bpf_program__fd(prog) : -1;
	c->procs_fd = bpf_object__find_map_fd_by_name(c->obj, "procs");
	c->out_fd = bpf_object__find_map_fd_by_name(c->obj, "out");
	if (c->prog_fd < 0 || c->procs_fd < 0 || c->out_fd < 0) {
		err = -ENOENT;
		snprintf(why, why_len, "prof's BPF object lacks its program or maps");
		goto err;
	}
	*ret = c;
	return 0;
err:
	python_chains__free(c);
	return err;
}

struct python_chains *python_chains__free(struct python_chains *c)
{
	if (!c)
		return NULL;
	bpf_object__close(c->obj);
	store_free(c);
	free(c);
	return NULL;
}

int python_chains__set_output(struct python_chains *c, int cpu, int fd)
{
	uint32_t k = (uint32_t)cpu, v = (uint32_t)fd;

	return bpf_map_update_elem(c->out_fd, &k, &v, BPF_ANY) ? -errno : 0;
}

int python_chains__attach(struct python_chains *c, int fd)
{
	return ioctl(fd, PERF_EVENT_IOC_SET_BPF, c->prog_fd) ? -errno : 0;
}

int python_chains__add(struct python_chains *c, int32_t pid, const struct python_chain_proc *p)
{
	uint32_t k = (uint32_t)pid;

	if (c->procs_fd < 0)
		return 0;       /* a store with no program (a ring replay's): no kernel to tell */
	return bpf_map_update_elem(c->procs_fd, &k, p, BPF_ANY) ? -errno : 0;
}

void python_chains__remove(struct python_chains *c, int32_t pid)
{
	uint32_t k = (uint32_t)pid;

	if (c->procs_fd >= 0)
		bpf_map_delete_elem(c->procs_fd, &k);
}
#else
int python_chains__new(struct python_chains **ret, char *why, size_t why_len)
{
	*ret = NULL;
	snprintf(why, why_len, "this prof was built without libbpf");
	return -ENOTSUP;
}

struct python_chains *python_chains__free(struct python_chains *c)
{
	if (c) {
		store_free(c);
		free(c);
	}
	return NULL;
}

int python_chains__set_output(struct python_chains *c, int cpu, int fd)
{
	return -ENOTSUP;
}

int python_chains__attach(struct python_chains *c, int fd)
{
	return -ENOTSUP;
}

int python_chains__add(struct python_chains *c, int32_t pid, const struct python_chain_proc *p)
{
	return -ENOTSUP;
}

void python_chains__remove(struct python_chains *c, int32_t pid)
{
}
#endif

/*
 * The store twice as large, its slots in age order from 0 (the oldest, at next, first)
 * and next at the first new one; the index rebuilt for the new places.  0 or -ENOMEM
 * (the store as it was).
 */
static int store_grow(struct python_chains *c)
{
	uint32_t n = c->nr_slots, k = 0;
	struct slot *v = calloc(2 * (size_t)n, sizeof(*v));
	struct hashtable idx;

	if (!v)
		return -ENOMEM;
	hashtable__init(&idx, sizeof(struct idx), idx_eq, NULL);
	if (hashtable__reserve(&idx, hashtable__size(&c->idx) + 1) < 0) {
		hashtable__release(&idx);
		free(v);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++, k++) {
		const struct slot *s = &c->ring[(c->next + i) % n];
		struct key key = { s->c.tid, s->c.time };
		struct idx *x;
		bool created;

		v[k] = *s;
		if (!s->used || !s->pending)
			continue;
		x = hashtable__insert(&idx, key_hash(&key), &key, &created);
		x->k = key;
		x->slot = k;
	}
	free(c->ring);
	hashtable__release(&c->idx);
	c->idx = idx;
	c->ring = v;
	c->next = n;
	c->nr_slots = 2 * n;
	return 0;
}

int python_chains__keep(struct python_chains *c, const struct perf_event_header *h, int32_t tid, uint64_t time)
{
	const uint8_t *b = (const uint8_t *)h;
	struct python_chain_rec head;
	uint32_t raw, rec_tid, nr;
	struct key k = { tid, time };
	struct slot *s;
	struct idx *x;
	bool created;

	c->st.records++;
	if (h->size < RAW_AT + 4 + PYTHON_CHAIN_HEAD)
		goto bad;
	memcpy(&rec_tid, b + 8 + 12, 4);
	memcpy(&raw, b + RAW_AT, 4);
	if (raw < PYTHON_CHAIN_HEAD || raw > h->size - RAW_AT - 4)
		goto bad;
	memcpy(&head, b + RAW_AT + 4, PYTHON_CHAIN_HEAD);
	nr = head.nr;
	if (head.magic != PYTHON_CHAIN_MAGIC || (int32_t)head.tid != tid || (int32_t)rec_tid != tid ||
	    nr > PYTHON_CHAIN_FRAMES || PYTHON_CHAIN_HEAD + nr * sizeof(struct python_chain_frame) > raw ||
	    head.status > PYTHON_CHAIN_NO_THREAD)
		goto bad;
	c->st.status[head.status]++;
	s = &c->ring[c->next];
	if (s->used && s->pending && c->nr_slots < CHAINS_MAX && store_grow(c) == 0)
		s = &c->ring[c->next];
	if (s->used) {
		struct key old = { s->c.tid, s->c.time };

		if (hashtable__remove(&c->idx, key_hash(&old), &old))
			c->st.evicted++;
		s->used = false;
	}
	if (nr > s->cap) {
		struct python_chain_frame *f = realloc(s->frames, nr * sizeof(*f));

		if (!f)
			return -ENOMEM;
		s->frames = f;
		s->cap = (uint16_t)nr;
	}
	if (nr)         /* (a thread with no frame yet: frames may still be NULL) */
		memcpy(s->frames, b + RAW_AT + 4 + PYTHON_CHAIN_HEAD, nr * sizeof(*s->frames));
	s->c = (struct python_chain){ .tid = tid, .time = time, .nr = (uint16_t)nr, .status = head.status,
				      .f = s->frames };
	x = hashtable__insert(&c->idx, key_hash(&k), &k, &created);
	if (!x)
		return -ENOMEM;
	if (!created)
		c->ring[x->slot].pending = false;       /* a second chain of that sample: this one */
	x->k = k;
	x->slot = c->next;
	s->used = true;
	s->pending = true;
	c->next = (c->next + 1) % c->nr_slots;
	return 0;
bad:
	c->st.unpaired++;
	return -EINVAL;
}

void python_chains__unpaired(struct python_chains *c)
{
	c->st.records++;
	c->st.unpaired++;
}

const struct python_chain *python_chains__peek(const struct python_chains *c, int32_t tid, uint64_t time)
{
	struct key k = { tid, time };
	const struct idx *x = c ? hashtable__find(&c->idx, key_hash(&k), &k) : NULL;

	return x ? &c->ring[x->slot].c : NULL;
}

const struct python_chain *python_chains__take(struct python_chains *c, int32_t tid, uint64_t time)
{
	struct key k = { tid, time };
	uint64_t h = key_hash(&k);
	const struct idx *x = c ? hashtable__find(&c->idx, h, &k) : NULL;
	uint32_t slot;

	if (!x)
		return NULL;
	slot = x->slot;
	hashtable__remove(&c->idx, h, &k);
	c->ring[slot].pending = false;
	return &c->ring[slot].c;
}

const struct python_chain_stats *python_chains__stats(const struct python_chains *c)
{
	return &c->st;
}
