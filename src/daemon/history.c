/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "prof/analyze/profile.h"
#include "prof/base/util.h"
#include "prof/daemon/dict_import.h"
#include "prof/daemon/history.h"
#include "prof/daemon/merge.h"

/* Compaction runs when the dictionary has doubled since the last one, above this. */
#define COMPACT_FLOOR (1u << 20)

/* Buckets oldest first: a FIFO of pointers that grows. */
struct ring {
	struct bucket **v;
	size_t head, nr, cap;
};

struct history {
	pthread_rwlock_t lock;
	struct history_config c;
	struct dict *dict;
	uint64_t generation;
	struct ring fine, coarse;
	size_t ring_bytes;              /* the buckets of both rings */
	struct merge acc;               /* the coarse span being added up */
	bool acc_open;
	uint64_t acc_start, acc_last_end;
	uint32_t acc_flags;
	struct bucket_counts acc_counts;
	size_t dict_bytes_compacted;    /* after the last compaction */
	struct history_stats st;
};

static struct bucket *ring_at(const struct ring *r, size_t i)
{
	return r->v[(r->head + i) % r->cap];
}

static int ring_push(struct ring *r, struct bucket *b)
{
	if (r->nr == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 64;
		struct bucket **v = malloc(cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		for (size_t i = 0; i < r->nr; i++)
			v[i] = ring_at(r, i);
		free(r->v);
		r->v = v;
		r->cap = cap;
		r->head = 0;
	}
	r->v[(r->head + r->nr++) % r->cap] = b;
	return 0;
}

static struct bucket *ring_pop(struct ring *r)
{
	struct bucket *b = r->v[r->head];

	r->head = (r->head + 1) % r->cap;
	r->nr--;
	return b;
}

static bool config_ok(const struct history_config *c)
{
	return c->fine_ns && c->bucket_ns && c->bucket_ns % c->fine_ns == 0 && c->span_ns >= c->bucket_ns &&
	       c->fine_span_ns >= 2 * c->bucket_ns && c->memory_max && c->bucket_max_stacks;
}

/* The [cut] entry of a task's uid: one per uid, so a tenant's cut samples stay theirs. */
static int cut_of(void *ctx, uint32_t task, uint32_t *ret_task, uint32_t *ret_stack)
{
	struct history *h = ctx;
	const struct dict_task *t = dict__task_get(h->dict, task);
	int64_t name = dict__str(h->dict, PROFILE_CUT_SYM, strlen(PROFILE_CUT_SYM)), obj, frame, stack, id;
	/* off-CPU time stays of its kind and holder when cut */
	struct dict_task cut = { .uid = t->uid, .flags = t->flags, .cgroup = DICT_NONE, .container = DICT_NONE,
				 .holder = t->holder, .holder_cgroup_id = t->holder_cgroup_id,
				 .holder_cgroup = t->holder_cgroup };
	uint32_t fid;

	if (name < 0)
		return (int)name;
	obj = dict__obj(h->dict, &(struct dict_obj){ .path = (uint32_t)name, .kind = DICT_OBJ_OTHER });
	frame = obj < 0 ? obj : dict__frame(h->dict, &(struct dict_frame){ .obj = (uint32_t)obj, .sym = (uint32_t)name });
	if (frame < 0)
		return (int)frame;
	fid = (uint32_t)frame;
	stack = dict__stack(h->dict, &fid, 1);
	cut.comm = (uint32_t)name;
	id = stack < 0 ? stack : dict__task(h->dict, &cut);
	if (id < 0)
		return (int)id;
	*ret_task = (uint32_t)id;
	*ret_stack = (uint32_t)stack;
	return 0;
}

int history__new(const struct history_config *c, struct history **ret)
{
	struct history *h;
	pthread_rwlockattr_t a;

	if (!config_ok(c))
		return -EINVAL;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->c = *c;
	h->dict = dict__new();
	if (!h->dict) {
		free(h);
		return -ENOMEM;
	}
	pthread_rwlockattr_init(&a);
	/* the sampler must not wait behind a queue of readers */
	pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&h->lock, &a);
	pthread_rwlockattr_destroy(&a);
	merge__init(&h->acc, c->bucket_max_stacks, cut_of, h);
	*ret = h;
	return 0;
}

struct history *history__free(struct history *h)
{
	if (!h)
		return NULL;
	while (h->fine.nr)
		bucket__free(ring_pop(&h->fine));
	while (h->coarse.nr)
		bucket__free(ring_pop(&h->coarse));
	free(h->fine.v);
	free(h->coarse.v);
	merge__release(&h->acc);
	dict__free(h->dict);
	pthread_rwlock_destroy(&h->lock);
	free(h);
	return NULL;
}

void history__lock(struct history *h)
{
	pthread_rwlock_wrlock(&h->lock);
}

void history__unlock(struct history *h)
{
	pthread_rwlock_unlock(&h->lock);
}

void history__rlock(struct history *h)
{
	pthread_rwlock_rdlock(&h->lock);
}

void history__runlock(struct history *h)
{
	pthread_rwlock_unlock(&h->lock);
}

const struct history_config *history__config(const struct history *h)
{
	return &h->c;
}

struct dict *history__dict(struct history *h)
{
	return h->dict;
}

uint64_t history__generation(const struct history *h)
{
	return h->generation;
}

size_t history__nr(const struct history *h, bool fine)
{
	return fine ? h->fine.nr : h->coarse.nr;
}

struct bucket *history__at(const struct history *h, bool fine, size_t i)
{
	return ring_at(fine ? &h->fine : &h->coarse, i);
}

/* ---- compaction -------------------------------------------------------------- */

/* Copy what every bucket names into a fresh dictionary (no id changes yet). */
static int import_ring(struct dict_import *im, const struct ring *r)
{
	for (size_t i = 0; i < r->nr; i++) {
		const struct bucket *b = ring_at(r, i);

		for (size_t j = 0; j < b->nr; j++)
			if (dict_import__task(im, b->e[j].task) < 0 || dict_import__stack(im, b->e[j].stack) < 0)
				return -ENOMEM;
	}
	return 0;
}

/* Rename entries to the fresh dictionary's ids (all copied: the lookups cannot fail). */
static void rename_entries(struct dict_import *im, struct bucket_entry *e, size_t nr)
{
	for (size_t j = 0; j < nr; j++) {
		e[j].task = (uint32_t)dict_import__task(im, e[j].task);
		e[j].stack = (uint32_t)dict_import__stack(im, e[j].stack);
	}
}

/* Drop the items no bucket names.  On ENOMEM nothing changed. */
static int compact(struct history *h)
{
	struct dict *nd = dict__new();
	struct dict_import im;
	int err = nd ? 0 : -ENOMEM;

	dict_import__init(&im, h->dict, nd);
	if (!err)
		err = import_ring(&im, &h->fine);
	if (!err)
		err = import_ring(&im, &h->coarse);
	for (size_t j = 0; !err && j < h->acc.nr; j++)
		if (dict_import__task(&im, h->acc.e[j].task) < 0 || dict_import__stack(&im, h->acc.e[j].stack) < 0)
			err = -ENOMEM;
	if (err) {
		dict_import__release(&im);
		dict__free(nd);
		return err;
	}
	for (size_t i = 0; i < h->fine.nr; i++)
		rename_entries(&im, ring_at(&h->fine, i)->e, ring_at(&h->fine, i)->nr);
	for (size_t i = 0; i < h->coarse.nr; i++)
		rename_entries(&im, ring_at(&h->coarse, i)->e, ring_at(&h->coarse, i)->nr);
	rename_entries(&im, h->acc.e, h->acc.nr);
	dict_import__release(&im);
	merge__reindex(&h->acc);        /* as many as before: the table does not grow */
	dict__free(h->dict);
	h->dict = nd;
	h->generation++;
	h->st.compactions++;
	h->dict_bytes_compacted = dict__bytes(nd);
	return 0;
}

/* ---- keeping within span and memory ------------------------------------------ */

static size_t bytes_held(const struct history *h)
{
	return h->ring_bytes + merge__bytes(&h->acc) + dict__bytes(h->dict);
}

static void drop(struct history *h, struct ring *r)
{
	struct bucket *b = ring_pop(r);

	h->ring_bytes -= bucket__bytes(b);
	bucket__free(b);
}

static uint64_t newest_end(const struct history *h)
{
	uint64_t t = h->acc_open ? h->acc_last_end : 0;

	if (h->fine.nr)
		t = MAX(t, ring_at(&h->fine, h->fine.nr - 1)->h.end_ns);
	if (h->coarse.nr)
		t = MAX(t, ring_at(&h->coarse, h->coarse.nr - 1)->h.end_ns);
	return t;
}

static void evict_coarse(struct history *h)
{
	struct bucket *b = ring_at(&h->coarse, 0);

	h->st.evicted_buckets++;
	h->st.evicted_samples += b->h.c.samples;
	h->st.evicted_before = MAX(h->st.evicted_before, b->h.end_ns);
	drop(h, &h->coarse);
}

static void trim(struct history *h)
{
	uint64_t now = newest_end(h);
	size_t keep_fine = 2 * (size_t)(h->c.bucket_ns / h->c.fine_ns);

	while (h->fine.nr && ring_at(&h->fine, 0)->h.end_ns + h->c.fine_span_ns <= now)
		drop(h, &h->fine);
	while (h->coarse.nr && ring_at(&h->coarse, 0)->h.end_ns + h->c.span_ns <= now) {
		h->st.expired_buckets++;
		drop(h, &h->coarse);
	}
	while (bytes_held(h) > h->c.memory_max) {
		if (h->fine.nr > keep_fine)
			drop(h, &h->fine);
		else if (h->coarse.nr)
			evict_coarse(h);
		else
			break;          /* the live spans alone: the engine's caps bound them */
	}
	if (dict__bytes(h->dict) > MAX((size_t)COMPACT_FLOOR, 2 * h->dict_bytes_compacted))
		compact(h);     /* on ENOMEM it waits for the next bucket */
}

/* ---- adding ------------------------------------------------------------------ */

static int push(struct history *h, struct ring *r, struct bucket *b)
{
	int err = ring_push(r, b);

	if (err < 0) {
		bucket__free(b);
		return err;
	}
	h->ring_bytes += bucket__bytes(b);
	return 0;
}

int history__close_coarse(struct history *h, uint32_t flags)
{
	struct bucket_hdr hdr;
	struct bucket *b;

	if (!h->acc_open)
		return 0;
	hdr = (struct bucket_hdr){ .start_ns = h->acc_start, .flags = h->acc_flags | flags, .c = h->acc_counts };
	hdr.end_ns = flags & BUCKET_PARTIAL ? h->acc_last_end : h->acc_start + h->c.bucket_ns;
	hdr.c.cut_samples += h->acc.cut_samples;
	hdr.c.cut_period += h->acc.cut_period;
	b = bucket__new(&hdr, h->acc.e, h->acc.nr, h->dict);
	if (!b)
		return -ENOMEM;
	merge__clear(&h->acc);
	h->acc_open = false;
	h->acc_counts = (struct bucket_counts){ 0 };
	return push(h, &h->coarse, b) < 0 ? -ENOMEM : 1;
}

/* Add b's entries to the coarse span it falls in (opened, or the previous closed). */
static int accumulate(struct history *h, const struct bucket *b)
{
	uint64_t start = b->h.start_ns - b->h.start_ns % h->c.bucket_ns;
	int made = 0;

	if (h->acc_open && start != h->acc_start)
		made = history__close_coarse(h, 0);
	if (made < 0)
		return made;
	if (!h->acc_open) {
		h->acc_open = true;
		h->acc_start = start;
		h->acc_flags = 0;
	}
	h->acc_flags |= b->h.flags & (BUCKET_AFTER_GAP | BUCKET_OFFCPU);
	h->acc_last_end = b->h.end_ns;
	bucket__add_counts(&h->acc_counts, &b->h.c);
	for (size_t i = 0; i < b->nr; i++)
		if (merge__add(&h->acc, b->e[i].task, b->e[i].stack, b->e[i].samples, b->e[i].period) < 0)
			return -ENOMEM;
	return made;
}

int history__add_fine(struct history *h, struct bucket *b)
{
	int made = accumulate(h, b), err;

	bucket__add_counts(&h->st.total, &b->h.c);
	err = push(h, &h->fine, b);
	trim(h);
	return made < 0 ? made : err < 0 ? err : made;
}

int history__add_coarse(struct history *h, struct bucket *b)
{
	int err = push(h, &h->coarse, b);

	trim(h);
	return err;
}

int history__configure(struct history *h, const struct history_config *c)
{
	if (!config_ok(c) || c->fine_ns != h->c.fine_ns || c->bucket_ns != h->c.bucket_ns)
		return -EINVAL;
	h->c = *c;
	h->acc.max = c->bucket_max_stacks;
	trim(h);
	return 0;
}

void history__stats(const struct history *h, struct history_stats *ret)
{
	*ret = h->st;
	ret->fine = h->fine.nr;
	ret->coarse = h->coarse.nr;
	ret->oldest_ns = h->coarse.nr ? ring_at(&h->coarse, 0)->h.start_ns
			 : h->fine.nr ? ring_at(&h->fine, 0)->h.start_ns : 0;
	ret->newest_ns = newest_end(h);
	ret->bytes = bytes_held(h);
	ret->dict_bytes = dict__bytes(h->dict);
	for (int k = 0; k < DICT_KINDS; k++)
		ret->dict_items[k] = dict__nr(h->dict, (enum dict_kind)k);
}
