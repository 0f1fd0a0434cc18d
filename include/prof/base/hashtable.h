/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one hash table of prof.  Entries of a fixed size live inline in the table;
 * the caller chooses the key (a field of its entry, compared by its eq function)
 * and the hash (hash.h).  Open addressing with linear probing, at most half full,
 * deletion by backward shift (no tombstones): every operation is O(1) on average,
 * and a table that stopped growing never allocates.
 *
 * The struct is public so that a table can be a member of its owner (no allocation
 * of its own until the first insert); its fields are the table's own.  Pointers to
 * entries stay valid until the next insert or remove.
 */
#ifndef PROF_BASE_HASHTABLE_H
#define PROF_BASE_HASHTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Does entry hold key?  ctx is the table's (hashtable__init). */
typedef bool (*hashtable_eq_fn)(const void *entry, const void *key, const void *ctx);

struct hashtable {
	unsigned char *entries;         /* (mask + 1) * entry_size bytes */
	uint64_t *hashes;               /* per slot; 0 marks an empty slot */
	size_t entry_size, mask, nr;
	hashtable_eq_fn eq;
	const void *ctx;
	/* Changes whenever an entry may have moved or gone (an insert of a new key, a
	 * remove, a clear): a caller's memo of an entry's address holds while it is the same. */
	uint64_t gen;
};

/* An empty table (no memory until the first insert). */
void hashtable__init(struct hashtable *t, size_t entry_size, hashtable_eq_fn eq, const void *ctx);
/* Free what it holds (not what its entries point to); it is empty again. */
void hashtable__release(struct hashtable *t);
/* Forget every entry, keep the memory. */
void hashtable__clear(struct hashtable *t);

/* The entry for key, or NULL. */
void *hashtable__find(const struct hashtable *t, uint64_t hash, const void *key);

/*
 * The entry for key, inserted zeroed when missing (*ret_created says which; the
 * caller then stores the key in it).  NULL on ENOMEM, the table unchanged.
 */
void *hashtable__insert(struct hashtable *t, uint64_t hash, const void *key, bool *ret_created);

/* Remove the entry for key; false when there was none. */
bool hashtable__remove(struct hashtable *t, uint64_t hash, const void *key);

/*
 * Walk the entries (in no order): for (size_t i = 0; (e = hashtable__next(t, &i));).
 * The table must not change during the walk.
 */
void *hashtable__next(const struct hashtable *t, size_t *iter);

static inline size_t hashtable__size(const struct hashtable *t)
{
	return t->nr;
}

/*
 * A memo of one entry found, for hot paths that look the same few keys up again and
 * again (a sample's task): valid while the table's gen is the one it was taken at.
 * Zeroed, it matches nothing.
 */
struct hashtable_memo {
	uint64_t gen, key;
	void *entry;
};

static inline void *hashtable_memo__get(const struct hashtable_memo *m, const struct hashtable *t, uint64_t key)
{
	return m->gen == t->gen && m->key == key ? m->entry : NULL;
}

static inline void hashtable_memo__set(struct hashtable_memo *m, const struct hashtable *t, uint64_t key,
				       void *entry)
{
	*m = (struct hashtable_memo){ .gen = t->gen, .key = key, .entry = entry };
}

/* hashtable__find through memo m: memo_key names key in it (a tid, an id). */
static inline void *hashtable__find_memo(const struct hashtable *t, struct hashtable_memo *m, uint64_t memo_key,
					 uint64_t hash, const void *key)
{
	void *e = hashtable_memo__get(m, t, memo_key);

	if (e)
		return e;
	e = hashtable__find(t, hash, key);
	if (e)
		hashtable_memo__set(m, t, memo_key, e);
	return e;
}

/* Bytes the table holds (for the engine's and top's memory figures). */
size_t hashtable__bytes(const struct hashtable *t);
/* Bytes the inserts of n more keys would add (0 unless they make the table grow). */
size_t hashtable__grow_bytes(const struct hashtable *t, size_t n);
/* Grow now so that n more inserts do not: 0, or -ENOMEM with the table unchanged. */
int hashtable__reserve(struct hashtable *t, size_t n);

#endif
