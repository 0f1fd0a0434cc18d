/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prof/daemon/dict_import.h"

void dict_import__init(struct dict_import *im, const struct dict *src, struct dict *dst)
{
	*im = (struct dict_import){ .src = src, .dst = dst };
}

void dict_import__release(struct dict_import *im)
{
	for (int k = 0; k < DICT_KINDS; k++)
		free(im->map[k]);
	*im = (struct dict_import){ .src = im->src, .dst = im->dst };
}

/* The map slot of src item id of kind k, grown to src's size: NULL on ENOMEM or a bad id. */
static uint32_t *slot(struct dict_import *im, enum dict_kind k, uint32_t id, int *err)
{
	size_t nr = dict__nr(im->src, k);

	*err = -EINVAL;
	if (id >= nr)
		return NULL;
	if (nr > im->cap[k]) {
		size_t cap = nr < 64 ? 64 : nr + nr / 2;
		uint32_t *m = realloc(im->map[k], cap * sizeof(*m));

		*err = -ENOMEM;
		if (!m)
			return NULL;
		memset(m + im->cap[k], 0, (cap - im->cap[k]) * sizeof(*m));
		im->map[k] = m;
		im->cap[k] = cap;
	}
	*err = 0;
	return &im->map[k][id];
}

/* Remember that src id became dst id v (or pass on an error). */
static int64_t keep(uint32_t *s, int64_t v)
{
	if (v >= 0)
		*s = (uint32_t)v + 1;
	return v;
}

int64_t dict_import__str(struct dict_import *im, uint32_t id)
{
	size_t len;
	const char *s;
	int err;
	uint32_t *sl;

	if (id == DICT_NONE)
		return DICT_NONE;
	sl = slot(im, DICT_STR, id, &err);
	if (!sl)
		return err;
	if (*sl)
		return *sl - 1;
	s = dict__str_get(im->src, id, &len);
	return keep(sl, dict__str(im->dst, s, len));
}

int64_t dict_import__obj(struct dict_import *im, uint32_t id)
{
	struct dict_obj o;
	int64_t path;
	int err;
	uint32_t *sl = slot(im, DICT_OBJ, id, &err);

	if (!sl)
		return err;
	if (*sl)
		return *sl - 1;
	o = *dict__obj_get(im->src, id);
	path = dict_import__str(im, o.path);
	if (path < 0)
		return path;
	o.path = (uint32_t)path;
	/* found again: the string's copy may have grown the map */
	return keep(&im->map[DICT_OBJ][id], dict__obj(im->dst, &o));
}

int64_t dict_import__frame(struct dict_import *im, uint32_t id)
{
	struct dict_frame f;
	int64_t obj, sym;
	int err;
	uint32_t *sl = slot(im, DICT_FRAME, id, &err);

	if (!sl)
		return err;
	if (*sl)
		return *sl - 1;
	f = *dict__frame_get(im->src, id);
	obj = dict_import__obj(im, f.obj);
	if (obj < 0)
		return obj;
	sym = dict_import__str(im, f.sym);
	if (sym < 0)
		return sym;
	f.obj = (uint32_t)obj;
	f.sym = (uint32_t)sym;
	return keep(&im->map[DICT_FRAME][id], dict__frame(im->dst, &f));
}

int64_t dict_import__stack(struct dict_import *im, uint32_t id)
{
	uint32_t ids[DICT_MAX_STACK];
	const uint32_t *src;
	size_t nr;
	int err;
	uint32_t *sl = slot(im, DICT_STACK, id, &err);

	if (!sl)
		return err;
	if (*sl)
		return *sl - 1;
	src = dict__stack_get(im->src, id, &nr);
	for (size_t i = 0; i < nr; i++) {
		int64_t f = dict_import__frame(im, src[i]);

		if (f < 0)
			return f;
		ids[i] = (uint32_t)f;
	}
	return keep(&im->map[DICT_STACK][id], dict__stack(im->dst, ids, nr));
}

int64_t dict_import__task(struct dict_import *im, uint32_t id)
{
	struct dict_task t;
	int64_t cg, ct, comm;
	int err;
	uint32_t *sl = slot(im, DICT_TASK, id, &err);

	if (!sl)
		return err;
	if (*sl)
		return *sl - 1;
	t = *dict__task_get(im->src, id);
	cg = dict_import__str(im, t.cgroup);
	ct = cg < 0 ? cg : dict_import__str(im, t.container);
	comm = ct < 0 ? ct : dict_import__str(im, t.comm);
	if (comm < 0)
		return comm;
	t.cgroup = (uint32_t)cg;
	t.container = (uint32_t)ct;
	t.comm = (uint32_t)comm;
	if (t.holder_cgroup_id) {
		int64_t hc = dict_import__str(im, t.holder_cgroup);

		if (hc < 0)
			return hc;
		t.holder_cgroup = (uint32_t)hc;
	}
	return keep(&im->map[DICT_TASK][id], dict__task(im->dst, &t));
}
