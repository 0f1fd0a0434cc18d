/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prof/scope/cgroup_tree.h"
#include "prof/base/idmap.h"
#include "prof/base/util.h"
#include "prof/base/vec.h"
#include "prof/scope/cgroups.h"

struct cgroup {
	uint64_t id;
	char *path;
	bool in_scope;
	bool written;
};

struct cgroups {
	const struct scope *scope;
	int root_fd;
	struct idmap *index;            /* id -> index in v[] */
	struct cgroup *v;               /* in the order they were learnt */
	size_t nr, cap;
	bool walked;                    /* the whole hierarchy was walked once for unknown ids */
	/* the ids last found (each sample carries one), direct-mapped; an id's index
	 * never changes, so they never go stale */
	struct { uint64_t id; uint32_t idx; } memo[8];
};

static bool index_of(struct cgroups *c, uint64_t id, uint32_t *ret)
{
	typeof(c->memo[0]) *m = &c->memo[id % ARRAY_SIZE(c->memo)];

	if (id && m->id == id) {
		*ret = m->idx;
		return true;
	}
	if (!idmap__get(c->index, id, ret))
		return false;
	m->id = id;
	m->idx = *ret;
	return true;
}

int cgroups__add(struct cgroups *c, uint64_t id, const char *path)
{
	struct cgroup e = { .id = id };
	uint32_t idx;

	if (idmap__get(c->index, id, &idx))
		return 0;
	if (VEC_RESERVE(c->v, c->cap, c->nr + 1) < 0)
		return -ENOMEM;
	e.path = strdup(path);
	if (!e.path)
		return -ENOMEM;
	for (size_t i = 0; i < c->scope->nr_cgroups; i++)
		if (c->scope->cgroups[i].path && cgroup_tree__path_under(path, c->scope->cgroups[i].path))
			e.in_scope = true;
	if (idmap__set(c->index, id, (uint32_t)c->nr) < 0) {
		free(e.path);
		return -ENOMEM;
	}
	c->v[c->nr++] = e;
	return 0;
}

static int walk_fn(const char *path, uint64_t id, void *ctx)
{
	return cgroups__add(ctx, id, path);
}

int cgroups__new(const struct scope *s, int root_fd, struct cgroups **ret)
{
	struct cgroups *c = calloc(1, sizeof(*c));
	int err;

	if (!c)
		return -ENOMEM;
	c->scope = s;
	c->root_fd = root_fd;
	c->index = idmap__new();
	if (!c->index) {
		cgroups__free(c);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->nr_cgroups; i++) {
		if (root_fd < 0 || !s->cgroups[i].path)
			continue;
		err = cgroup_tree__walk(root_fd, s->cgroups[i].path, CGROUP_TREE_ALL, walk_fn, c);
		if (err < 0) {
			cgroups__free(c);
			return err;
		}
	}
	*ret = c;
	return 0;
}

struct cgroups *cgroups__free(struct cgroups *c)
{
	if (!c)
		return NULL;
	for (size_t i = 0; i < c->nr; i++)
		free(c->v[i].path);
	free(c->v);
	idmap__free(c->index);
	free(c);
	return NULL;
}

bool cgroups__in_scope(struct cgroups *c, uint64_t id)
{
	uint32_t idx;

	return index_of(c, id, &idx) && c->v[idx].in_scope;
}

static struct cgroup *find(struct cgroups *c, uint64_t id)
{
	uint32_t idx;

	if (index_of(c, id, &idx))
		return &c->v[idx];
	/* A cgroup made before the recording: learn the whole hierarchy once. */
	if (!c->walked && c->root_fd >= 0) {
		c->walked = true;
		cgroup_tree__walk(c->root_fd, "/", CGROUP_TREE_ALL, walk_fn, c);
		if (idmap__get(c->index, id, &idx))
			return &c->v[idx];
	}
	return NULL;
}

const char *cgroups__mark_written(struct cgroups *c, uint64_t id)
{
	struct cgroup *e = find(c, id);

	if (!e || e->written)
		return NULL;
	e->written = true;
	return e->path;
}

void cgroups__for_each_written(const struct cgroups *c,
			       void (*fn)(uint64_t id, const char *path, void *ctx), void *ctx)
{
	for (size_t i = 0; i < c->nr; i++)
		if (c->v[i].written)
			fn(c->v[i].id, c->v[i].path, ctx);
}
