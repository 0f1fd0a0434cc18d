/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The hash functions of every table in prof (hashtable.h): one for a 64-bit word,
 * one to fold further words in, one for bytes.  Tables choose what they hash; these
 * say how.
 */
#ifndef PROF_BASE_HASH_H
#define PROF_BASE_HASH_H

#include <stddef.h>
#include <stdint.h>

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
	return hash__u64(h ^ (v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2)));
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

#endif
