/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>

#include "prof/base/hash.h"
#include "prof/base/hashtable.h"
#include "prof/base/idmap.h"

struct entry {
	uint64_t key;
	uint32_t value;
};

struct idmap {
	struct hashtable t;
};

static bool eq(const void *entry, const void *key, const void *ctx)
{
	return ((const struct entry *)entry)->key == *(const uint64_t *)key;
}

struct idmap *idmap__new(void)
{
	struct idmap *m = calloc(1, sizeof(*m));

	if (m)
		hashtable__init(&m->t, sizeof(struct entry), eq, NULL);
	return m;
}

struct idmap *idmap__free(struct idmap *m)
{
	if (m) {
		hashtable__release(&m->t);
		free(m);
	}
	return NULL;
}

int idmap__set(struct idmap *m, uint64_t key, uint32_t value)
{
	bool created;
	struct entry *e = hashtable__insert(&m->t, hash__u64(key), &key, &created);

	if (!e)
		return -ENOMEM;
	e->key = key;
	e->value = value;
	return 0;
}

bool idmap__get(const struct idmap *m, uint64_t key, uint32_t *ret_value)
{
	const struct entry *e = hashtable__find(&m->t, hash__u64(key), &key);

	if (!e)
		return false;
	if (ret_value)
		*ret_value = e->value;
	return true;
}

bool idmap__remove(struct idmap *m, uint64_t key)
{
	return hashtable__remove(&m->t, hash__u64(key), &key);
}

size_t idmap__size(const struct idmap *m)
{
	return hashtable__size(&m->t);
}
