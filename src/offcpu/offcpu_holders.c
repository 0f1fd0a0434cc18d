/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof/scope/cgroup_tree.h"
#include "prof/base/hash.h"
#include "prof/base/hashtable.h"
#include "prof/base/util.h"
#include "prof/base/vec.h"
#include "prof/offcpu/offcpu_holders.h"
#include "prof/scope/scope.h"
#include "prof/sys/procfs.h"

struct holder_key {
	uint32_t uid;
	bool uid_known;
	uint64_t cgroup;
};

struct holder_slot {
	struct holder_key key;
	uint32_t idx;
};

struct offcpu_holders {
	int proc_fd, cgroup_fd;
	struct hashtable idx;                   /* struct holder_slot by holder_key */
	struct offcpu_holder_info *v;           /* the table (paths owned) */
	size_t nr, cap;
};

static bool key_eq(const void *entry, const void *key, const void *ctx)
{
	const struct holder_key *a = entry, *b = key;

	return a->uid == b->uid && a->uid_known == b->uid_known && a->cgroup == b->cgroup;
}

static uint64_t key_hash(const struct holder_key *k)
{
	return hash__mix(hash__u64((uint64_t)k->uid << 1 | k->uid_known), k->cgroup) | 1;
}

struct offcpu_holders *offcpu_holders__new(int proc_fd, int cgroup_fd)
{
	struct offcpu_holders *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->proc_fd = proc_fd;
	h->cgroup_fd = cgroup_fd;
	hashtable__init(&h->idx, sizeof(struct holder_slot), key_eq, NULL);
	return h;
}

struct offcpu_holders *offcpu_holders__free(struct offcpu_holders *h)
{
	if (!h)
		return NULL;
	hashtable__release(&h->idx);
	for (size_t i = 0; i < h->nr; i++)
		free((char *)h->v[i].cgroup_path);
	free(h->v);
	free(h);
	return NULL;
}

/* tid's cgroup2 path and id from /proc (the id 0 when either is not known). */
static bool cgroup_of(const struct offcpu_holders *h, int32_t tid, char *path, size_t len, uint64_t *ret)
{
	_cleanup_free_ char *cg = NULL;
	char file[32];

	*ret = 0;
	snprintf(file, sizeof(file), "%d/cgroup", tid);
	return h->cgroup_fd >= 0 && read_file_full(h->proc_fd, file, 1 << 16, &cg) > 0 &&
	       procfs__cgroup2_path(cg, path, len) == 0 && cgroup_tree__id(h->cgroup_fd, path, ret) == 0;
}

uint32_t offcpu_holders__of(struct offcpu_holders *h, int32_t tid, uint32_t uid, bool uid_known)
{
	struct holder_key key = { .uid = uid_known ? uid : 0, .uid_known = uid_known };
	char path[4096];
	bool known = cgroup_of(h, tid, path, sizeof(path), &key.cgroup), created;
	struct holder_slot *slot;
	char *copy;

	if (!known)
		key.cgroup = 0;
	slot = hashtable__find(&h->idx, key_hash(&key), &key);
	if (slot)
		return OFFCPU_HOLDER_TASK + slot->idx;
	if (h->nr >= OFFCPU_MAX_HOLDERS || VEC_RESERVE(h->v, h->cap, h->nr + 1) < 0)
		return 0;
	copy = known ? strdup(path) : NULL;
	if (known && !copy)
		return 0;
	slot = hashtable__insert(&h->idx, key_hash(&key), &key, &created);
	if (!slot) {
		free(copy);
		return 0;
	}
	*slot = (struct holder_slot){ .key = key, .idx = (uint32_t)h->nr };
	h->v[h->nr] = (struct offcpu_holder_info){ .uid = key.uid, .uid_known = uid_known, .cgroup = key.cgroup,
						   .cgroup_path = copy };
	return OFFCPU_HOLDER_TASK + (uint32_t)h->nr++;
}

const struct offcpu_holder_info *offcpu_holders__get(const struct offcpu_holders *h, uint32_t value)
{
	return h && value >= OFFCPU_HOLDER_TASK && value - OFFCPU_HOLDER_TASK < h->nr ? &h->v[value - OFFCPU_HOLDER_TASK]
										       : NULL;
}

size_t offcpu_holders__nr(const struct offcpu_holders *h)
{
	return h ? h->nr : 0;
}
