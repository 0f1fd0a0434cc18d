/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prof/base/hashtable.h"

#define MIN_SLOTS 16

/* 0 marks an empty slot: a real hash of 0 is stored as 1 (it only costs a compare). */
static inline uint64_t stored(uint64_t hash)
{
	return hash ? hash : 1;
}

static inline void *slot(const struct hashtable *t, size_t i)
{
	return t->entries + i * t->entry_size;
}

void hashtable__init(struct hashtable *t, size_t entry_size, hashtable_eq_fn eq, const void *ctx)
{
	/* gen starts past 0, so that a zeroed memo never matches */
	*t = (struct hashtable){ .entry_size = entry_size, .eq = eq, .ctx = ctx, .gen = 1 };
}

void hashtable__release(struct hashtable *t)
{
	free(t->entries);
	free(t->hashes);
	t->entries = NULL;
	t->hashes = NULL;
	t->mask = 0;
	t->nr = 0;
	t->gen++;
}

void hashtable__clear(struct hashtable *t)
{
	if (t->hashes)
		memset(t->hashes, 0, (t->mask + 1) * sizeof(*t->hashes));
	t->nr = 0;
	t->gen++;
}

/* The slot holding key, or the empty slot where it would go. */
static size_t probe(const struct hashtable *t, uint64_t h, const void *key, bool *ret_found)
{
	size_t i;

	for (i = h & t->mask; t->hashes[i]; i = (i + 1) & t->mask) {
		if (t->hashes[i] == h && t->eq(slot(t, i), key, t->ctx)) {
			*ret_found = true;
			return i;
		}
	}
	*ret_found = false;
	return i;
}

void *hashtable__find(const struct hashtable *t, uint64_t hash, const void *key)
{
	bool found;
	size_t i;

	if (!t->nr)
		return NULL;
	i = probe(t, stored(hash), key, &found);
	return found ? slot(t, i) : NULL;
}

/* Move every entry into a table of ncap slots (hashes are kept: no rehashing). */
static int resize(struct hashtable *t, size_t ncap)
{
	unsigned char *ne = malloc(ncap * t->entry_size);
	uint64_t *nh = calloc(ncap, sizeof(*nh));

	if (!ne || !nh) {
		free(ne);
		free(nh);
		return -ENOMEM;
	}
	for (size_t i = 0; t->hashes && i <= t->mask; i++) {
		size_t j;

		if (!t->hashes[i])
			continue;
		for (j = t->hashes[i] & (ncap - 1); nh[j]; j = (j + 1) & (ncap - 1))
			;
		nh[j] = t->hashes[i];
		memcpy(ne + j * t->entry_size, slot(t, i), t->entry_size);
	}
	free(t->entries);
	free(t->hashes);
	t->entries = ne;
	t->hashes = nh;
	t->mask = ncap - 1;
	t->gen++;
	return 0;
}

void *hashtable__insert(struct hashtable *t, uint64_t hash, const void *key, bool *ret_created)
{
	uint64_t h = stored(hash);
	bool found = false;
	size_t i = 0;

	if (t->hashes) {
		i = probe(t, h, key, &found);
		if (found) {
			*ret_created = false;
			return slot(t, i);
		}
	}
	if (!t->hashes || (t->nr + 1) * 2 > t->mask + 1) {
		if (resize(t, t->hashes ? (t->mask + 1) * 2 : MIN_SLOTS) < 0)
			return NULL;
		i = probe(t, h, key, &found);
	}
	t->hashes[i] = h;
	memset(slot(t, i), 0, t->entry_size);
	t->nr++;
	t->gen++;
	*ret_created = true;
	return slot(t, i);
}

bool hashtable__remove(struct hashtable *t, uint64_t hash, const void *key)
{
	bool found;
	size_t i, j;

	if (!t->nr)
		return false;
	i = probe(t, stored(hash), key, &found);
	if (!found)
		return false;
	/* Backward shift: pull later entries of the run into the hole when their home
	 * slot is not in (hole, their slot], so every probe still finds them. */
	for (j = (i + 1) & t->mask; t->hashes[j]; j = (j + 1) & t->mask) {
		size_t home = t->hashes[j] & t->mask;

		if (((j - home) & t->mask) >= ((j - i) & t->mask)) {
			t->hashes[i] = t->hashes[j];
			memcpy(slot(t, i), slot(t, j), t->entry_size);
			i = j;
		}
	}
	t->hashes[i] = 0;
	t->nr--;
	t->gen++;
	return true;
}

void *hashtable__next(const struct hashtable *t, size_t *iter)
{
	for (; t->hashes && *iter <= t->mask; (*iter)++)
		if (t->hashes[*iter])
			return slot(t, (*iter)++);
	return NULL;
}

size_t hashtable__bytes(const struct hashtable *t)
{
	return t->hashes ? (t->mask + 1) * (t->entry_size + sizeof(*t->hashes)) : 0;
}

/* The slots n more keys need (the table's own when they fit). */
static size_t slots_for(const struct hashtable *t, size_t n)
{
	size_t slots = t->hashes ? t->mask + 1 : 0;

	if (slots && (t->nr + n) * 2 <= slots)
		return slots;
	for (slots = slots ? slots * 2 : MIN_SLOTS; (t->nr + n) * 2 > slots; slots *= 2)
		;
	return slots;
}

size_t hashtable__grow_bytes(const struct hashtable *t, size_t n)
{
	return slots_for(t, n) * (t->entry_size + sizeof(*t->hashes)) - hashtable__bytes(t);
}

int hashtable__reserve(struct hashtable *t, size_t n)
{
	size_t slots = slots_for(t, n);

	return t->hashes && slots == t->mask + 1 ? 0 : resize(t, slots);
}
