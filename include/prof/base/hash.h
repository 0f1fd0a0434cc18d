/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The hash functions of every table in prof (hashtable.h): one for a 64-bit word,
 * one to fold further words in, one for bytes.  Tables choose what they hash; these
 * say how.
 *
 * And the report's memos' (direct-mapped caches in front of those tables, one probe
 * per sample or frame): hash__step folds a word in with one multiply, Fibonacci
 * hashing, and hash__top takes the well-mixed high bits as the slot.  Cheaper than
 * hash__mix by a finalizer per word, which a memo hit must not pay; weak in the low
 * bits, so a memo indexes by hash__top (or a shift of the high half).  A memo's hash
 * never decides a result, only whether a lookup is quick.
 */
#ifndef PROF_BASE_HASH_H
#define PROF_BASE_HASH_H

#include <stddef.h>
#include <stdint.h>

/* 2^64 / phi: the golden ratio's odd multiplier (Knuth's multiplicative hashing). */
#define HASH_GOLDEN 0x9e3779b97f4a7c15ull

/* A word (an id, a pid, an address, a pointer): murmur3's 64-bit finalizer. */
static inline uint64_t hash__u64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ull;
	k ^= k >> 33;
	return k;
}

/* Fold one more word into h, for keys of several fields. */
static inline uint64_t hash__mix(uint64_t h, uint64_t v)
{
	return hash__u64(h ^ (v + HASH_GOLDEN + (h << 6) + (h >> 2)));
}

/* n bytes (a name, a path, a packed key): FNV-1a. */
static inline uint64_t hash__bytes(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 1099511628211ull;
	return h;
}

/* A memo's step: v folded into h with one multiply.  hash__step(0, v) hashes v alone. */
static inline uint64_t hash__step(uint64_t h, uint64_t v)
{
	return (h ^ v) * HASH_GOLDEN;
}

/* A memo's slot of 2^bits (1 <= bits <= 63): h's high bits, the mixed ones. */
static inline uint64_t hash__top(uint64_t h, unsigned int bits)
{
	return h >> (64 - bits);
}

#endif
