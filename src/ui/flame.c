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
	uint64_t value, value2;         /* value2: the second profile's, in a diff */
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
	bool by_text;                   /* names of two sources (a diff's): compared as text */
};

static bool edge_eq(const void *entry, const void *key, const void *ctx)
{
	const struct edge *a = entry, *b = key;
	const struct tree *t = ctx;

	return a->parent == b->parent && (a->name == b->name || (t->by_text && !strcmp(a->name, b->name)));
}

static uint64_t edge_hash(const struct tree *t, uint32_t parent, const char *name)
{
	uint64_t h = t->by_text ? hash__bytes(name, strlen(name)) : (uint64_t)(uintptr_t)name;

	return hash__mix(hash__u64(parent), h);
}

/* The child name of parent, made when missing: its index, or -ENOMEM. */
static int64_t child_of(struct tree *t, uint32_t parent, const char *name)
{
	struct edge key = { parent, name, 0 }, *e;
	bool created;

	e = hashtable__insert(&t->edges, edge_hash(t, parent, name), &key, &created);
	if (!e || (created && VEC_RESERVE(t->v, t->cap, t->nr + 1) < 0)) {
		if (e && created)
			hashtable__remove(&t->edges, edge_hash(t, parent, name), &key);
		return -ENOMEM;
	}
	if (created) {
		*e = (struct edge){ parent, name, (uint32_t)t->nr };
		t->v[t->nr] = (struct node){ .name = name, .next = t->v[parent].child };
		t->v[parent].child = (uint32_t)++t->nr;
	}
	return e->node;
}

/* The tree's root, named name.  0 or -ENOMEM. */
static int tree_init(struct tree *t, const char *name)
{
	hashtable__init(&t->edges, sizeof(struct edge), edge_eq, t);
	if (VEC_RESERVE(t->v, t->cap, 1) < 0)
		return -ENOMEM;
	t->v[t->nr++] = (struct node){ .name = name };
	return 0;
}

static void tree_release(struct tree *t)
{
	hashtable__release(&t->edges);
	free(t->v);
}

/* samples more along the path from the root: a node's value, or value2 (second). */
static void node_add(struct tree *t, int64_t at, uint64_t samples, bool second)
{
	if (second)
		t->v[at].value2 += samples;
	else
		t->v[at].value += samples;
}

/* p's stacks into t (the comm, then the frames outermost first), as value or value2. */
static int tree_build(struct tree *t, const struct profile *p, bool second)
{
	size_t nr_entries, nr_frames;
	const struct profile_entry *e = profile__entries(p, &nr_entries);
	const struct profile_frame *frames = profile__frames(p, &nr_frames);

	for (size_t i = 0; i < nr_entries; i++) {
		size_t n;
		const uint32_t *ids = profile__stack(p, e[i].stack, &n);
		int64_t at = child_of(t, 0, e[i].task.comm ? e[i].task.comm : "");

		node_add(t, 0, e[i].samples, second);
		for (size_t k = 0; at >= 0; k++) {
			node_add(t, at, e[i].samples, second);
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

static bool node_kept(const struct node *n, uint64_t min)
{
	return n->value >= min || n->value2 >= min;
}

/* ["name",value,[children]] of node i and what is at least min under it (diff:
 * ["name",value,value2,[children]]). */
static int tree_write(const struct tree *t, uint32_t i, uint64_t min, bool diff, FILE *f)
{
	uint32_t kids[64], *k = kids;
	size_t n = 0;
	int err = 0;

	for (uint32_t c = t->v[i].child; c; c = t->v[c - 1].next)
		n += node_kept(&t->v[c - 1], min);
	if (n > ARRAY_SIZE(kids) && !(k = malloc(n * sizeof(*k))))
		return -ENOMEM;
	n = 0;
	for (uint32_t c = t->v[i].child; c; c = t->v[c - 1].next)
		if (node_kept(&t->v[c - 1], min))
			k[n++] = c - 1;
	qsort_r(k, n, sizeof(*k), by_name, t->v);
	fputc('[', f);
	escape__json(f, t->v[i].name, strlen(t->v[i].name));
	fprintf(f, ",%" PRIu64, t->v[i].value);
	if (diff)
		fprintf(f, ",%" PRIu64, t->v[i].value2);
	fputs(",[", f);
	for (size_t j = 0; j < n && !err; j++) {
		if (j)
			fputc(',', f);
		err = tree_write(t, k[j], min, diff, f);
	}
	fputs("]]", f);
	if (k != kids)
		free(k);
	return err;
}

/* A memory stream's end: 0, or err (-EIO for a stream error) after freeing *ret. */
static int stream_end(FILE *f, int err, char **ret)
{
	if (f) {
		bool bad = ferror(f);

		if ((fclose(f) || bad) && !err)
			err = -EIO;
	}
	if (err) {
		free(*ret);
		*ret = NULL;
	}
	return err;
}

int ui_render__flame(const struct profile *p, uint64_t min, char **ret, size_t *ret_len)
{
	struct tree t = { 0 };
	FILE *f = NULL;
	int err = tree_init(&t, "all");

	if (!err)
		err = tree_build(&t, p, false);
	*ret = NULL;
	if (!err && !(f = open_memstream(ret, ret_len)))
		err = -ENOMEM;
	if (!err) {
		fprintf(f, "{\"total\":%" PRIu64 ",\"min\":%" PRIu64 ",\"tree\":", t.v[0].value, MAX(min, 1));
		err = tree_write(&t, 0, MAX(min, 1), false, f);
		fputs("}\n", f);
	}
	err = stream_end(f, err, ret);
	tree_release(&t);
	return err;
}

int ui_render__diff(const struct profile *a, const struct profile *b, uint64_t min, char **ret, size_t *ret_len)
{
	struct tree t = { .by_text = true };  /* a and b may be two files: two sets of names */
	FILE *f = NULL;
	int err = tree_init(&t, "all");

	if (!err)
		err = tree_build(&t, a, false);
	if (!err)
		err = tree_build(&t, b, true);
	*ret = NULL;
	if (!err && !(f = open_memstream(ret, ret_len)))
		err = -ENOMEM;
	if (!err) {
		fprintf(f, "{\"total_a\":%" PRIu64 ",\"total_b\":%" PRIu64 ",\"min\":%" PRIu64 ",\"tree\":",
			t.v[0].value, t.v[0].value2, MAX(min, 1));
		err = tree_write(&t, 0, MAX(min, 1), true, f);
		fputs("}\n", f);
	}
	err = stream_end(f, err, ret);
	tree_release(&t);
	return err;
}

/* Stack ids[0..n) (leaf first) of an entry into the sandwich's trees, at the function's
 * outermost frame (callees: down to the leaf) and innermost (callers: up to comm). */
static int sandwich_add(struct tree *callers, struct tree *callees, const struct profile_frame *frames,
			const bool *hit, const uint32_t *ids, size_t n, const char *comm, uint64_t samples)
{
	size_t inner = n, outer = 0;
	int64_t at = 0;

	for (size_t k = 0; k < n; k++)
		if (hit[ids[k]]) {
			inner = MIN(inner, k);
			outer = k;
		}
	if (inner == n)
		return 0;
	callees->v[0].value += samples;
	for (size_t k = outer; k-- > 0 && at >= 0;)
		if ((at = child_of(callees, (uint32_t)at, frames[ids[k]].sym)) >= 0)
			callees->v[at].value += samples;
	if (at < 0)
		return -ENOMEM;
	callers->v[0].value += samples;
	at = 0;
	for (size_t k = inner + 1; k <= n && at >= 0; k++)
		if ((at = child_of(callers, (uint32_t)at, k < n ? frames[ids[k]].sym : comm)) >= 0)
			callers->v[at].value += samples;
	return at < 0 ? -ENOMEM : 0;
}

int ui_render__sandwich(const struct profile *p, const char *sym, const char *dso, uint64_t min, char **ret,
			size_t *ret_len)
{
	size_t nr_entries, nr_frames;
	const struct profile_entry *e = profile__entries(p, &nr_entries);
	const struct profile_frame *frames = profile__frames(p, &nr_frames);
	_cleanup_free_ bool *hit = calloc(nr_frames + 1, sizeof(*hit));
	struct tree callers = { 0 }, callees = { 0 };
	FILE *f = NULL;
	int err = tree_init(&callers, sym), err2 = tree_init(&callees, sym);

	if (!err)
		err = err2 ? err2 : hit ? 0 : -ENOMEM;
	for (size_t i = 0; hit && i < nr_frames; i++)
		hit[i] = frames[i].sym && !strcmp(frames[i].sym, sym) &&
			 (!dso || (frames[i].dso && !strcmp(frames[i].dso, dso)));
	for (size_t i = 0; i < nr_entries && !err; i++) {
		size_t n;
		const uint32_t *ids = profile__stack(p, e[i].stack, &n);

		err = sandwich_add(&callers, &callees, frames, hit, ids, n, e[i].task.comm ? e[i].task.comm : "",
				   e[i].samples);
	}
	*ret = NULL;
	if (!err && !(f = open_memstream(ret, ret_len)))
		err = -ENOMEM;
	if (!err) {
		fputs("{\"sym\":", f);
		escape__json(f, sym, strlen(sym));
		fputs(",\"dso\":", f);
		if (dso)
			escape__json(f, dso, strlen(dso));
		else
			fputs("null", f);
		fprintf(f, ",\"total\":%" PRIu64 ",\"min\":%" PRIu64 ",\"callers\":", callers.v[0].value, MAX(min, 1));
		err = tree_write(&callers, 0, MAX(min, 1), false, f);
		fputs(",\"callees\":", f);
		if (!err)
			err = tree_write(&callees, 0, MAX(min, 1), false, f);
		fputs("}\n", f);
	}
	err = stream_end(f, err, ret);
	tree_release(&callers);
	tree_release(&callees);
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
