/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prof/base/hash.h"
#include "prof/base/hashtable.h"
#include "prof/base/util.h"
#include "prof/base/vec.h"
#include "prof/daemon/dict.h"

/*
 * Each kind is a dense array indexed by a base hash table of ids (uint32_t entries,
 * compared against the array through the dictionary).  Strings and stacks keep their
 * bytes in one pool each.
 */
struct span {
	uint32_t off, len;
};

struct dict {
	char *chars;                    /* strings, each NUL-terminated */
	size_t nr_chars, cap_chars;
	struct span *strs;
	size_t nr_strs, cap_strs;
	struct dict_obj *objs;
	size_t nr_objs, cap_objs;
	struct dict_frame *frames;
	size_t nr_frames, cap_frames;
	uint32_t *pool;                 /* stacks' frame ids */
	size_t nr_pool, cap_pool;
	struct span *stacks;
	size_t nr_stacks, cap_stacks;
	struct dict_task *tasks;
	size_t nr_tasks, cap_tasks;
	struct hashtable ix[DICT_KINDS];
};

struct str_key {
	const char *s;
	size_t len;
};

struct stack_key {
	const uint32_t *ids;
	size_t nr;
};

static bool str_eq(const void *e, const void *key, const void *ctx)
{
	const struct dict *d = ctx;
	const struct span *sp = &d->strs[*(const uint32_t *)e];
	const struct str_key *k = key;

	return sp->len == k->len && !memcmp(d->chars + sp->off, k->s, k->len);
}

static bool obj_eq(const void *e, const void *key, const void *ctx)
{
	const struct dict_obj *a = &((const struct dict *)ctx)->objs[*(const uint32_t *)e], *b = key;

	return a->path == b->path && a->kind == b->kind && a->has_stat == b->has_stat && a->mode == b->mode &&
	       a->uid == b->uid && a->gid == b->gid && a->build_id_len == b->build_id_len &&
	       !memcmp(a->build_id, b->build_id, a->build_id_len);
}

static bool frame_eq(const void *e, const void *key, const void *ctx)
{
	const struct dict_frame *a = &((const struct dict *)ctx)->frames[*(const uint32_t *)e], *b = key;

	return a->obj == b->obj && a->sym == b->sym && a->flags == b->flags && a->addr == b->addr;
}

static bool stack_eq(const void *e, const void *key, const void *ctx)
{
	const struct dict *d = ctx;
	const struct span *sp = &d->stacks[*(const uint32_t *)e];
	const struct stack_key *k = key;

	return sp->len == k->nr && (!k->nr || !memcmp(d->pool + sp->off, k->ids, k->nr * sizeof(*k->ids)));
}

static bool task_eq(const void *e, const void *key, const void *ctx)
{
	const struct dict_task *a = &((const struct dict *)ctx)->tasks[*(const uint32_t *)e], *b = key;

	return a->uid == b->uid && a->flags == b->flags && a->cgroup_id == b->cgroup_id && a->cgroup == b->cgroup &&
	       a->container == b->container && a->comm == b->comm && a->holder == b->holder &&
	       a->holder_cgroup_id == b->holder_cgroup_id && a->holder_cgroup == b->holder_cgroup;
}

struct dict *dict__new(void)
{
	static const hashtable_eq_fn eq[DICT_KINDS] = { str_eq, obj_eq, frame_eq, stack_eq, task_eq };
	struct dict *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	for (int k = 0; k < DICT_KINDS; k++)
		hashtable__init(&d->ix[k], sizeof(uint32_t), eq[k], d);
	return d;
}

struct dict *dict__free(struct dict *d)
{
	if (!d)
		return NULL;
	for (int k = 0; k < DICT_KINDS; k++)
		hashtable__release(&d->ix[k]);
	free(d->chars);
	free(d->strs);
	free(d->objs);
	free(d->frames);
	free(d->pool);
	free(d->stacks);
	free(d->tasks);
	free(d);
	return NULL;
}

/* The slot for a new item of kind k whose id will be nr: -ENOMEM, else the slot. */
static uint32_t *new_slot(struct dict *d, enum dict_kind k, uint64_t h, const void *key, size_t nr)
{
	bool created;
	uint32_t *slot;

	if (nr >= UINT32_MAX - 1)
		return NULL;
	slot = hashtable__insert(&d->ix[k], h, key, &created);
	if (slot)
		*slot = (uint32_t)nr;
	return slot;
}

int64_t dict__str(struct dict *d, const char *s, size_t len)
{
	struct str_key k;
	uint64_t h;
	uint32_t *slot;

	/* a path too long keeps its tail: the file name says more than the top directories */
	if (len > DICT_MAX_STR) {
		s += len - DICT_MAX_STR;
		len = DICT_MAX_STR;
	}
	k = (struct str_key){ s, len };
	h = hash__bytes(s, len);
	slot = hashtable__find(&d->ix[DICT_STR], h, &k);
	if (slot)
		return *slot;
	if (d->nr_chars + len + 1 > UINT32_MAX || VEC_RESERVE(d->strs, d->cap_strs, d->nr_strs + 1) < 0 ||
	    VEC_RESERVE(d->chars, d->cap_chars, d->nr_chars + len + 1) < 0 ||
	    !new_slot(d, DICT_STR, h, &k, d->nr_strs))
		return -ENOMEM;
	memcpy(d->chars + d->nr_chars, s, len);
	d->chars[d->nr_chars + len] = '\0';
	d->strs[d->nr_strs] = (struct span){ (uint32_t)d->nr_chars, (uint32_t)len };
	d->nr_chars += len + 1;
	return (int64_t)d->nr_strs++;
}

static uint64_t obj_hash(const struct dict_obj *o)
{
	uint64_t h = hash__mix(hash__u64(o->path), (uint64_t)o->kind | (uint64_t)o->has_stat << 8 |
							 (uint64_t)o->build_id_len << 16);

	h = hash__mix(h, (uint64_t)o->mode << 32 | o->uid);
	return hash__mix(h, hash__bytes(o->build_id, MIN(o->build_id_len, sizeof(o->build_id))) ^ o->gid);
}

int64_t dict__obj(struct dict *d, const struct dict_obj *o)
{
	struct dict_obj c = { .path = o->path, .kind = o->kind, .has_stat = !!o->has_stat,
			      .build_id_len = MIN(o->build_id_len, (uint8_t)sizeof(o->build_id)) };
	uint64_t h;
	uint32_t *slot;

	if (o->path >= d->nr_strs)
		return -EINVAL;
	memcpy(c.build_id, o->build_id, c.build_id_len);
	if (c.has_stat) {
		c.mode = o->mode;
		c.uid = o->uid;
		c.gid = o->gid;
	}
	h = obj_hash(&c);
	slot = hashtable__find(&d->ix[DICT_OBJ], h, &c);
	if (slot)
		return *slot;
	if (VEC_RESERVE(d->objs, d->cap_objs, d->nr_objs + 1) < 0 || !new_slot(d, DICT_OBJ, h, &c, d->nr_objs))
		return -ENOMEM;
	d->objs[d->nr_objs] = c;
	return (int64_t)d->nr_objs++;
}

int64_t dict__frame(struct dict *d, const struct dict_frame *f)
{
	struct dict_frame c = { .obj = f->obj, .sym = f->sym, .flags = f->flags,
				.addr = (f->flags & DICT_FRAME_HAS_ADDR) ? f->addr : 0 };
	uint64_t h = hash__mix(hash__mix(hash__u64((uint64_t)c.obj << 32 | c.sym), c.flags), c.addr);
	uint32_t *slot;

	if (c.obj >= d->nr_objs || c.sym >= d->nr_strs)
		return -EINVAL;
	slot = hashtable__find(&d->ix[DICT_FRAME], h, &c);
	if (slot)
		return *slot;
	if (VEC_RESERVE(d->frames, d->cap_frames, d->nr_frames + 1) < 0 ||
	    !new_slot(d, DICT_FRAME, h, &c, d->nr_frames))
		return -ENOMEM;
	d->frames[d->nr_frames] = c;
	return (int64_t)d->nr_frames++;
}

int64_t dict__stack(struct dict *d, const uint32_t *frames, size_t nr)
{
	struct stack_key k = { frames, MIN(nr, (size_t)DICT_MAX_STACK) };
	uint64_t h = hash__bytes(frames, k.nr * sizeof(*frames));
	uint32_t *slot;

	for (size_t i = 0; i < k.nr; i++)
		if (frames[i] >= d->nr_frames)
			return -EINVAL;
	slot = hashtable__find(&d->ix[DICT_STACK], h, &k);
	if (slot)
		return *slot;
	if (d->nr_pool + k.nr > UINT32_MAX || VEC_RESERVE(d->stacks, d->cap_stacks, d->nr_stacks + 1) < 0 ||
	    VEC_RESERVE(d->pool, d->cap_pool, d->nr_pool + k.nr + 1) < 0 ||
	    !new_slot(d, DICT_STACK, h, &k, d->nr_stacks))
		return -ENOMEM;
	if (k.nr)
		memcpy(d->pool + d->nr_pool, frames, k.nr * sizeof(*frames));
	d->stacks[d->nr_stacks] = (struct span){ (uint32_t)d->nr_pool, (uint32_t)k.nr };
	d->nr_pool += k.nr;
	return (int64_t)d->nr_stacks++;
}

static bool str_ok(const struct dict *d, uint32_t id, bool may_be_none)
{
	return id < d->nr_strs || (may_be_none && id == DICT_NONE);
}

int64_t dict__task(struct dict *d, const struct dict_task *t)
{
	struct dict_task c = { .uid = t->uid, .flags = t->flags & DICT_TASK_FLAGS, .cgroup_id = t->cgroup_id,
			       .cgroup = t->cgroup, .container = t->container, .comm = t->comm,
			       .holder = t->flags & DICT_TASK_RUNQ ? t->holder : 0 };
	uint64_t h;
	uint32_t *slot;

	/* a holder's cgroup: a runq task's, with its id (0: none, and no string) */
	if ((t->flags & DICT_TASK_RUNQ) && t->holder_cgroup_id) {
		c.holder_cgroup_id = t->holder_cgroup_id;
		c.holder_cgroup = t->holder_cgroup;
		if (!str_ok(d, c.holder_cgroup, false))
			return -EINVAL;
	}
	h = hash__mix(hash__mix(hash__u64((uint64_t)c.uid << 3 | c.flags), c.cgroup_id ^ (uint64_t)c.holder << 40),
		      (uint64_t)c.comm << 32 ^ c.cgroup ^ (uint64_t)c.container << 16 ^ c.holder_cgroup_id * 31);
	if (!str_ok(d, c.cgroup, true) || !str_ok(d, c.container, true) || !str_ok(d, c.comm, true))
		return -EINVAL;
	slot = hashtable__find(&d->ix[DICT_TASK], h, &c);
	if (slot)
		return *slot;
	if (VEC_RESERVE(d->tasks, d->cap_tasks, d->nr_tasks + 1) < 0 || !new_slot(d, DICT_TASK, h, &c, d->nr_tasks))
		return -ENOMEM;
	d->tasks[d->nr_tasks] = c;
	return (int64_t)d->nr_tasks++;
}

const char *dict__str_get(const struct dict *d, uint32_t id, size_t *ret_len)
{
	*ret_len = d->strs[id].len;
	return d->chars + d->strs[id].off;
}

const char *dict__text(const struct dict *d, uint32_t id)
{
	return id < d->nr_strs ? d->chars + d->strs[id].off : "";
}

const struct dict_obj *dict__obj_get(const struct dict *d, uint32_t id)
{
	return &d->objs[id];
}

const struct dict_frame *dict__frame_get(const struct dict *d, uint32_t id)
{
	return &d->frames[id];
}

const uint32_t *dict__stack_get(const struct dict *d, uint32_t id, size_t *ret_nr)
{
	*ret_nr = d->stacks[id].len;
	return d->pool + d->stacks[id].off;
}

const struct dict_task *dict__task_get(const struct dict *d, uint32_t id)
{
	return &d->tasks[id];
}

size_t dict__nr(const struct dict *d, enum dict_kind k)
{
	switch (k) {
	case DICT_STR:
		return d->nr_strs;
	case DICT_OBJ:
		return d->nr_objs;
	case DICT_FRAME:
		return d->nr_frames;
	case DICT_STACK:
		return d->nr_stacks;
	case DICT_TASK:
		return d->nr_tasks;
	default:
		return 0;
	}
}

size_t dict__bytes(const struct dict *d)
{
	size_t b = sizeof(*d) + d->cap_chars + d->cap_strs * sizeof(*d->strs) + d->cap_objs * sizeof(*d->objs) +
		   d->cap_frames * sizeof(*d->frames) + d->cap_pool * sizeof(*d->pool) +
		   d->cap_stacks * sizeof(*d->stacks) + d->cap_tasks * sizeof(*d->tasks);

	for (int k = 0; k < DICT_KINDS; k++)
		b += hashtable__bytes(&d->ix[k]);
	return b;
}
