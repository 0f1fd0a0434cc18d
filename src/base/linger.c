/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>

#include "prof/base/linger.h"
#include "prof/base/vec.h"

void linger__init(struct linger *l, uint64_t grace_ns)
{
	*l = (struct linger){ .grace = grace_ns };
}

void linger__release(struct linger *l)
{
	free(l->v);
	linger__init(l, l->grace);
}

/* Full: a larger ring with the entries unwrapped, oldest first at 0. */
static int grow(struct linger *l)
{
	struct linger_entry *n = NULL;
	size_t cap = 0;

	if (VEC_RESERVE(n, cap, l->cap + 1) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < l->nr; i++)
		n[i] = l->v[(l->head + i) % l->cap];
	free(l->v);
	l->v = n;
	l->cap = cap;
	l->head = 0;
	return 0;
}

int linger__add(struct linger *l, uint64_t key, uint64_t time, uint64_t tag)
{
	if (l->nr == l->cap && grow(l) < 0)
		return -ENOMEM;
	l->v[(l->head + l->nr) % l->cap] = (struct linger_entry){ .key = key, .time = time, .tag = tag };
	l->nr++;
	return 0;
}

bool linger__expire(struct linger *l, uint64_t now, struct linger_entry *ret)
{
	const struct linger_entry *e;

	if (!l->nr)
		return false;
	e = &l->v[l->head];
	/* exits come in time order: if the oldest stays, they all do */
	if (e->time > now || now - e->time < l->grace)
		return false;
	*ret = *e;
	l->head = (l->head + 1) % l->cap;
	l->nr--;
	return true;
}
