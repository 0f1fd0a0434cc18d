/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Python frames read when drained, kept until unwound: see
 * include/prof/python/early.h.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "prof/base/hash.h"
#include "prof/base/hashtable.h"
#include "prof/python/early.h"

struct key {
	int32_t tid;
	uint64_t time;
};

struct slot {
	struct key k;
	uint32_t idx;
};

struct hint {
	int32_t tid;
	uint8_t n;
	uint64_t cfa[PYTHON_EARLY_ACTS];
};

struct python_early {
	struct python_early_reading *ring;      /* PYTHON_EARLY_N */
	uint32_t next;
	struct hashtable idx;                   /* struct slot by (tid, time) */
	struct hashtable hints;                 /* struct hint by tid */
};

static bool slot_eq(const void *e, const void *key, const void *ctx)
{
	const struct key *a = &((const struct slot *)e)->k, *b = key;

	return a->tid == b->tid && a->time == b->time;
}

static uint64_t key_hash(const struct key *k)
{
	return hash__mix(hash__u64((uint32_t)k->tid), k->time);
}

static bool hint_eq(const void *e, const void *key, const void *ctx)
{
	return ((const struct hint *)e)->tid == *(const int32_t *)key;
}

struct python_early *python_early__new(void)
{
	struct python_early *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->ring = calloc(PYTHON_EARLY_N, sizeof(*e->ring));
	if (!e->ring) {
		free(e);
		return NULL;
	}
	hashtable__init(&e->idx, sizeof(struct slot), slot_eq, NULL);
	hashtable__init(&e->hints, sizeof(struct hint), hint_eq, NULL);
	return e;
}

struct python_early *python_early__free(struct python_early *e)
{
	if (e) {
		hashtable__release(&e->idx);
		hashtable__release(&e->hints);
		free(e->ring);
		free(e);
	}
	return NULL;
}

int python_early__hint(struct python_early *e, int32_t tid, const uint64_t *cfas, size_t n)
{
	bool created;
	struct hint *h = hashtable__insert(&e->hints, hash__u64((uint32_t)tid), &tid, &created);

	if (!h)
		return -1;
	h->tid = tid;
	h->n = 0;
	for (size_t k = 0; k < n && k < PYTHON_EARLY_ACTS && cfas[k]; k++)
		h->cfa[h->n++] = cfas[k];
	return 0;
}

size_t python_early__hints(const struct python_early *e, int32_t tid, uint64_t *cfas)
{
	const struct hint *h = hashtable__find(&e->hints, hash__u64((uint32_t)tid), &tid);

	if (!h)
		return 0;
	memcpy(cfas, h->cfa, 8 * h->n);
	return h->n;
}

struct python_early_reading *python_early__start(struct python_early *e, int32_t tid, uint64_t time)
{
	struct python_early_reading *r = &e->ring[e->next];

	if (r->nacts) {
		struct key k = { r->tid, r->time };

		hashtable__remove(&e->idx, key_hash(&k), &k);
	}
	*r = (struct python_early_reading){ .tid = tid, .time = time };
	return r;
}

void python_early__keep(struct python_early *e, struct python_early_reading *r, uint8_t nacts)
{
	struct key k = { r->tid, r->time };
	bool created;
	struct slot *s;

	if (r != &e->ring[e->next] || !nacts)
		return;
	s = hashtable__insert(&e->idx, key_hash(&k), &k, &created);
	if (!s)
		return;
	if (!created)           /* the same sample twice (a duplicate): the newer reading */
		e->ring[s->idx].nacts = 0;
	*s = (struct slot){ .k = k, .idx = e->next };
	r->nacts = nacts;
	e->next = (e->next + 1) % PYTHON_EARLY_N;
}

void python_early__forget(struct python_early *e)
{
	hashtable__clear(&e->idx);
	for (size_t i = 0; i < PYTHON_EARLY_N; i++)
		e->ring[i].nacts = 0;
}

const struct python_early_reading *python_early__find(const struct python_early *e, int32_t tid, uint64_t time)
{
	struct key k = { tid, time };
	const struct slot *s = hashtable__find(&e->idx, key_hash(&k), &k);

	return s ? &e->ring[s->idx] : NULL;
}
