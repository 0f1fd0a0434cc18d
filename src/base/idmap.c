/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdlib.h>

#include "prof/base/idmap.h"
#include "prof/base/util.h"

struct slot {
	uint64_t key;
	uint32_t value;
	bool used;
};

struct idmap {
	struct slot *slots;
	size_t mask, nr;
};

static inline size_t hash64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (size_t)k;
}

struct idmap *idmap__new(void)
{
	struct idmap *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->mask = 63;
	m->slots = calloc(m->mask + 1, sizeof(*m->slots));
	if (!m->slots) {
		free(m);
		return NULL;
	}
	return m;
}

struct idmap *idmap__free(struct idmap *m)
{
	if (m) {
		free(m->slots);
		free(m);
	}
	return NULL;
}

static struct slot *find(const struct idmap *m, uint64_t key)
{
	for (size_t i = hash64(key) & m->mask;; i = (i + 1) & m->mask)
		if (!m->slots[i].used || m->slots[i].key == key)
			return &m->slots[i];
}

int idmap__set(struct idmap *m, uint64_t key, uint32_t value)
{
	struct slot *s = find(m, key);

	if (!s->used && (m->nr + 1) * 2 > m->mask + 1) {
		size_t ncap = (m->mask + 1) * 2;
		struct slot *old = m->slots, *n = calloc(ncap, sizeof(*n));
		size_t omask = m->mask;

		if (!n)
			return -ENOMEM;
		m->slots = n;
		m->mask = ncap - 1;
		for (size_t i = 0; i <= omask; i++)
			if (old[i].used)
				*find(m, old[i].key) = old[i];
		free(old);
		s = find(m, key);
	}
	if (!s->used)
		m->nr++;
	*s = (struct slot){ .key = key, .value = value, .used = true };
	return 0;
}

bool idmap__get(const struct idmap *m, uint64_t key, uint32_t *ret_value)
{
	const struct slot *s = find(m, key);

	if (!s->used)
		return false;
	if (ret_value)
		*ret_value = s->value;
	return true;
}

size_t idmap__size(const struct idmap *m)
{
	return m->nr;
}
