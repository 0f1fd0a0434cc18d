/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * prof ui's flame graph and search over a window's profile.  The tree is the folded
 * stacks' (the comm, then the frames outermost first; frames of one name under one
 * parent are one node, as folded.c merges stacks of equal text), with names as the
 * profile has them, and without the nodes too narrow to draw: a million-sample
 * window's tree is a few kB, not the folded text's megabytes.  The search counts
 * every stack, drawn or not.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof/base/escape.h"
#include "prof/base/hash.h"
#include "prof/base/hashtable.h"
#include "prof/base/util.h"
#include "prof/base/vec.h"
#include "prof/ui/ui.h"

struct node {
	const char *name;
	uint64_t value;
	uint32_t child, next;           /* first child, next sibling: index + 1, 0 none */
};

/* A child by its parent and name (names are interned: compared by pointer). */
struct edge {
	uint32_t parent;
	const char *name;
	uint32_t node;
};

struct tree {
	struct node *v;
	size_t nr, cap;
	struct hashtable edges;
};

static bool edge_eq(const void *entry, const void *key, const void *ctx)
{
	const struct edge *a = entry, *b = key;

	(void)ctx;
	return a->parent == b->parent && a->name == b->name;
}

/* The child name of parent, made when missing: its index, or -ENOMEM. */
static int64_t child_of(struct tree *t, uint32_t parent, const char *name)
{
	struct edge key = { parent, name, 0 }, *e;
	bool created;

	e = hashtable__insert(&t->edges, hash__mix(hash__u64(parent), (uint64_t)(uintptr_t)name), &key, &created);
	if (!e || (created && VEC_RESERVE(t->v, t->cap, t->nr + 1) < 0)) {
		if (e && created)
			hashtable__remove(&t->edges, hash__mix(hash__u64(parent), (uint64_t)(uintptr_t)name), &key);
		return -ENOMEM;
	}
	if (created) {
		*e = (struct edge){ parent, name, (uint32_t)t->nr };
		t->v[t->nr] = (struct node){ .name = name, .next = t->v[parent].child };
		t->v[parent].child = (uint32_t)++t->nr;
	}
	return e->node;
}

static int tree_build(struct tree *t, const struct profile *p)
{
	size_t nr_entries, nr_frames;
	const struct profile_entry *e = profile__entries(p, &nr_entries);
	const struct profile_frame *frames = profile__frames(p, &nr_frames);

	hashtable__init(&t->edges, sizeof(struct edge), edge_eq, NULL);
	if (VEC_RESERVE(t->v, t->cap, 1) < 0)
		return -ENOMEM;
	t->v[t->nr++] = (struct node){ .name = "all" };
	for (size_t i = 0; i < nr_entries; i++) {
		size_t n;
		const uint32_t *ids = profile__stack(p, e[i].stack, &n);
		int64_t at = child_of(t, 0, e[i].task.comm ? e[i].task.comm : "");

		t->v[0].value += e[i].samples;
		for (size_t k = 0; at >= 0; k++) {
			t->v[at].value += e[i].samples;
			if (k == n)
				break;
			at = child_of(t, (uint32_t)at, frames[ids[n - 1 - k]].sym);
		}
		if (at < 0)
			return -ENOMEM;
	}
	return 0;
}

static int by_name(const void *x, const void *y, void *ctx)
{
	const struct node *v = ctx;

	return strcmp(v[*(const uint32_t *)x].name, v[*(const uint32_t *)y].name);
}

/* ["name",value,[children]] of node i and what is at least min under it. */
static int tree_write(const struct tree *t, uint32_t i, uint64_t min, FILE *f)
{
	uint32_t kids[64], *k = kids;
	size_t n = 0;
	int err = 0;

	for (uint32_t c = t->v[i].child; c; c = t->v[c - 1].next)
		n += t->v[c - 1].value >= min;
	if (n > ARRAY_SIZE(kids) && !(k = malloc(n * sizeof(*k))))
		return -ENOMEM;
	n = 0;
	for (uint32_t c = t->v[i].child; c; c = t->v[c - 1].next)
		if (t->v[c - 1].value >= min)
			k[n++] = c - 1;
	qsort_r(k, n, sizeof(*k), by_name, t->v);
	fputc('[', f);
	escape__json(f, t->v[i].name, strlen(t->v[i].name));
	fprintf(f, ",%" PRIu64 ",[", t->v[i].value);
	for (size_t j = 0; j < n && !err; j++) {
		if (j)
			fputc(',', f);
		err = tree_write(t, k[j], min, f);
	}
	fputs("]]", f);
	if (k != kids)
		free(k);
	return err;
}

int ui_render__flame(const struct profile *p, uint64_t min, char **ret, size_t *ret_len)
{
	struct tree t = { 0 };
	FILE *f = NULL;
	int err = tree_build(&t, p);

	*ret = NULL;
	if (!err && !(f = open_memstream(ret, ret_len)))
		err = -ENOMEM;
	if (!err) {
		fprintf(f, "{\"total\":%" PRIu64 ",\"min\":%" PRIu64 ",\"tree\":", t.v[0].value, MAX(min, 1));
		err = tree_write(&t, 0, MAX(min, 1), f);
		fputs("}\n", f);
	}
	if (f) {
		bool bad = ferror(f);

		if ((fclose(f) || bad) && !err)
			err = -EIO;
	}
	if (err) {
		free(*ret);
		*ret = NULL;
	}
	hashtable__release(&t.edges);
	free(t.v);
	return err;
}

/* The names that hold term, up to this many, are listed. */
#define SEARCH_NAMES 50

int ui_render__search(const struct profile *p, const char *term, char **ret, size_t *ret_len)
{
	size_t nr_entries, nr_frames, nr_names = 0;
	const struct profile_entry *e = profile__entries(p, &nr_entries);
	const struct profile_frame *frames = profile__frames(p, &nr_frames);
	_cleanup_free_ bool *hit = calloc(nr_frames + 1, sizeof(*hit));
	const char *names[SEARCH_NAMES];
	uint64_t samples = 0, total = 0;
	FILE *f;

	if (!hit)
		return -ENOMEM;
	for (size_t i = 0; i < nr_frames; i++) {
		size_t k = 0;

		hit[i] = term[0] && strstr(frames[i].sym, term);
		while (hit[i] && k < nr_names && strcmp(names[k], frames[i].sym))
			k++;
		if (hit[i] && k == nr_names && nr_names < SEARCH_NAMES)
			names[nr_names++] = frames[i].sym;
	}
	for (size_t i = 0; i < nr_entries; i++) {
		size_t n;
		const uint32_t *ids = profile__stack(p, e[i].stack, &n);
		bool any = term[0] && e[i].task.comm && strstr(e[i].task.comm, term);

		for (size_t k = 0; k < n && !any; k++)
			any = hit[ids[k]];
		samples += any ? e[i].samples : 0;
		total += e[i].samples;
	}
	*ret = NULL;
	if (!(f = open_memstream(ret, ret_len)))
		return -ENOMEM;
	fputs("{\"term\":", f);
	escape__json(f, term, strlen(term));
	fprintf(f, ",\"samples\":%" PRIu64 ",\"total\":%" PRIu64 ",\"names\":[", samples, total);
	for (size_t i = 0; i < nr_names; i++) {
		if (i)
			fputc(',', f);
		escape__json(f, names[i], strlen(names[i]));
	}
	fputs("]}\n", f);
	if (fclose(f)) {
		free(*ret);
		*ret = NULL;
		return -ENOMEM;
	}
	return 0;
}
