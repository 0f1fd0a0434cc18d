/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A sample's reads of V8's heap, logged when drained: see include/prof/node/early.h.
 */
#include <stdlib.h>
#include <string.h>

#include "prof/base/hash.h"
#include "prof/base/hashtable.h"
#include "prof/node/early.h"

struct key {
	int32_t tid;
	uint64_t time;
};

/* One read in a log: its bytes follow, padded to 8. */
struct entry {
	uint64_t addr;
	uint32_t len, pad;
};

struct node_early_log {
	struct key k;
	struct node_early_log *prev, *next; /* kept: oldest first; free: next only */
	size_t used;
	uint8_t buf[NODE_EARLY_BYTES];
};

struct slot {
	struct key k;
	struct node_early_log *log;
};

struct node_early {
	struct hashtable idx;           /* struct slot by (tid, time) */
	struct node_early_log *free;
	struct node_early_log *oldest, *newest; /* the kept ones */
	size_t made;                    /* logs allocated (kept, in use or free) */
	size_t kept;
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

struct node_early *node_early__new(void)
{
	struct node_early *e = calloc(1, sizeof(*e));

	if (e)
		hashtable__init(&e->idx, sizeof(struct slot), slot_eq, NULL);
	return e;
}

static void free_list(struct node_early_log *l)
{
	while (l) {
		struct node_early_log *next = l->next;

		free(l);
		l = next;
	}
}

struct node_early *node_early__free(struct node_early *e)
{
	if (!e)
		return NULL;
	hashtable__release(&e->idx);
	free_list(e->oldest);
	free_list(e->free);
	free(e);
	return NULL;
}

/* l out of the kept ones (and of the index). */
static void unkeep(struct node_early *e, struct node_early_log *l)
{
	hashtable__remove(&e->idx, key_hash(&l->k), &l->k);
	if (l->prev)
		l->prev->next = l->next;
	else
		e->oldest = l->next;
	if (l->next)
		l->next->prev = l->prev;
	else
		e->newest = l->prev;
	l->prev = l->next = NULL;
	e->kept--;
}

struct node_early_log *node_early__start(struct node_early *e, int32_t tid, uint64_t time)
{
	struct node_early_log *l = e->free;

	if (l) {
		e->free = l->next;
	} else if (e->made < NODE_EARLY_MAX && (l = malloc(sizeof(*l)))) {
		e->made++;
	} else if ((l = e->oldest)) {
		/* the oldest goes: its sample was never judged (out of scope after all),
		 * or prof is that far behind (it is read when judged) */
		unkeep(e, l);
	} else {
		return NULL;
	}
	l->k = (struct key){ tid, time };
	l->prev = l->next = NULL;
	l->used = 0;
	return l;
}

void node_early__release(struct node_early *e, struct node_early_log *l)
{
	if (!l)
		return;
	l->next = e->free;
	e->free = l;
}

void node_early__keep(struct node_early *e, struct node_early_log *l)
{
	bool created;
	struct slot *s;

	if (!l->used) {
		node_early__release(e, l);
		return;
	}
	s = hashtable__insert(&e->idx, key_hash(&l->k), &l->k, &created);
	if (!s) {
		node_early__release(e, l);
		return;
	}
	if (!created) {
		struct node_early_log *old = s->log;

		unkeep(e, old);
		node_early__release(e, old);
		s = hashtable__insert(&e->idx, key_hash(&l->k), &l->k, &created);
		if (!s) {
			node_early__release(e, l);
			return;
		}
	}
	*s = (struct slot){ .k = l->k, .log = l };
	l->prev = e->newest;
	if (e->newest)
		e->newest->next = l;
	else
		e->oldest = l;
	e->newest = l;
	e->kept++;
}

struct node_early_log *node_early__take(struct node_early *e, int32_t tid, uint64_t time)
{
	struct key k = { tid, time };
	struct slot *s;
	struct node_early_log *l;

	if (!e->kept || !(s = hashtable__find(&e->idx, key_hash(&k), &k)))
		return NULL;
	l = s->log;
	unkeep(e, l);
	return l;
}

size_t node_early__kept(const struct node_early *e)
{
	return e->kept;
}

void node_early_log__add(struct node_early_log *l, uint64_t addr, const void *buf, size_t len)
{
	size_t need = sizeof(struct entry) + ((len + 7) & ~(size_t)7);
	struct entry h = { .addr = addr, .len = (uint32_t)len };

	uint8_t had[64];

	/* the same words read again (a map's type, a frame's name twice) */
	if (!len || (len <= sizeof(had) && node_early_log__read(l, addr, had, len)) || len > NODE_EARLY_BYTES ||
	    NODE_EARLY_BYTES - l->used < need)
		return;
	memcpy(l->buf + l->used, &h, sizeof(h));
	memcpy(l->buf + l->used + sizeof(h), buf, len);
	l->used += need;
}

bool node_early_log__read(const struct node_early_log *l, uint64_t addr, void *buf, size_t len)
{
	for (size_t at = 0; at < l->used;) {
		struct entry h;

		memcpy(&h, l->buf + at, sizeof(h));
		if (addr >= h.addr && addr - h.addr <= h.len && h.len - (addr - h.addr) >= len) {
			memcpy(buf, l->buf + at + sizeof(h) + (addr - h.addr), len);
			return true;
		}
		at += sizeof(h) + ((h.len + 7) & ~(size_t)7);
	}
	return false;
}
