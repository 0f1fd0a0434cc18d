/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdlib.h>
#include <string.h>

#include "prof/base/escape.h"
#include "prof/base/strset.h"
#include "prof/base/util.h"
#include "prof/base/vec.h"
#include "prof/output/flamegraph.h"
#include "prof/output/folded.h"

/* The text of a stack is at most this long: a deeper one keeps its outer frames. */
#define MAX_TEXT 16384

/* A stack: names[off .. off + nr), outermost first (the comm first of all). */
struct stack {
	size_t off, nr;
	uint64_t count;
};

struct folded {
	struct strset names;            /* names as they are written: equal text, one pointer */
	const char **pool;              /* the stacks' names */
	size_t nr_pool, cap_pool;
	struct stack *v;
	size_t nr, cap;
	const char **frame_names;       /* the name of each of the engine's frames */
};

/* name as the format allows it, interned. */
static const char *folded_name(struct folded *f, const char *name)
{
	size_t len = strlen(name);
	_cleanup_free_ char *copy = malloc(len + 1);

	if (!copy)
		return NULL;
	for (size_t i = 0; i <= len; i++)
		copy[i] = name[i] == ';' || name[i] == ' ' || name[i] == '\n' ? '_' : name[i];
	return strset__intern(&f->names, copy);
}

/* The stack of entry e: its comm, then its frames outermost first, while the text fits. */
static int add_entry(struct folded *f, const struct profile *p, const struct profile_entry *e)
{
	size_t n, len = 0;
	const uint32_t *ids = profile__stack(p, e->stack, &n);
	const char *comm = folded_name(f, e->task.comm ? e->task.comm : "");
	struct stack s = { .off = f->nr_pool, .count = e->samples };

	if (!comm || VEC_RESERVE(f->pool, f->cap_pool, f->nr_pool + n + 1) < 0 ||
	    VEC_RESERVE(f->v, f->cap, f->nr + 1) < 0)
		return -ENOMEM;
	for (size_t k = 0; k <= n; k++) {
		const char *name = k ? f->frame_names[ids[n - k]] : comm;
		size_t l = strlen(name);

		if (len + l + 2 >= MAX_TEXT)
			break;
		len += l + !!k;
		f->pool[f->nr_pool++] = name;
	}
	s.nr = f->nr_pool - s.off;
	f->v[f->nr++] = s;
	return 0;
}

/* Walks a stack's text ("a;b;c") a character at a time, without writing it. */
struct text_cursor {
	const char *const *names;
	size_t nr, i;
	const char *p;
};

static unsigned char text_next(struct text_cursor *c)
{
	if (*c->p)
		return (unsigned char)*c->p++;
	if (c->i + 1 >= c->nr)
		return 0;
	c->p = c->names[++c->i];
	return ';';
}

/* strcmp() of two stacks' texts. */
static int text_cmp(const struct folded *f, const struct stack *a, const struct stack *b)
{
	struct text_cursor x = { f->pool + a->off, a->nr, 0, a->nr ? f->pool[a->off] : "" };
	struct text_cursor y = { f->pool + b->off, b->nr, 0, b->nr ? f->pool[b->off] : "" };

	for (;;) {
		unsigned char cx = text_next(&x), cy = text_next(&y);

		if (cx != cy || !cx)
			return cx - cy;
	}
}

static bool same_names(const struct folded *f, const struct stack *a, const struct stack *b)
{
	return a->nr == b->nr && (!a->nr || !memcmp(f->pool + a->off, f->pool + b->off, a->nr * sizeof(*f->pool)));
}

static int by_text(const void *x, const void *y, void *f)
{
	return text_cmp(f, x, y);
}

static int by_count(const void *x, const void *y, void *f)
{
	const struct stack *a = x, *b = y;

	if (a->count != b->count)
		return a->count < b->count ? 1 : -1;
	return text_cmp(f, a, b);
}

/* Sorted by text, the stacks of equal text (equal names: names are interned) merged. */
static void merge(struct folded *f)
{
	size_t w = 0;

	if (!f->nr)
		return;
	qsort_r(f->v, f->nr, sizeof(*f->v), by_text, f);
	for (size_t i = 0; i < f->nr; i++) {
		if (w && same_names(f, &f->v[w - 1], &f->v[i]))
			f->v[w - 1].count += f->v[i].count;
		else
			f->v[w++] = f->v[i];
	}
	f->nr = w;
}

size_t folded__keys(enum profile_key keys[PROFILE_KEY__MAX])
{
	keys[0] = PROFILE_KEY_COMM;
	return 1;
}

int folded__new(const struct profile *p, struct folded **ret)
{
	size_t nr_frames, nr;
	const struct profile_frame *frames = profile__frames(p, &nr_frames);
	const struct profile_entry *e = profile__entries(p, &nr);
	struct folded *f = calloc(1, sizeof(*f));

	if (!f || !(f->frame_names = calloc(nr_frames + 1, sizeof(*f->frame_names))))
		goto enomem;
	for (size_t i = 0; i < nr_frames; i++)
		if (!(f->frame_names[i] = folded_name(f, frames[i].sym)))
			goto enomem;
	for (size_t i = 0; i < nr; i++)
		if (add_entry(f, p, &e[i]) < 0)
			goto enomem;
	merge(f);
	*ret = f;
	return 0;
enomem:
	folded__free(f);
	return -ENOMEM;
}

struct folded *folded__free(struct folded *f)
{
	if (!f)
		return NULL;
	strset__release(&f->names);
	free(f->pool);
	free(f->v);
	free(f->frame_names);
	free(f);
	return NULL;
}

/* The text of stack s into buf (MAX_TEXT bytes). */
static void text_of(const struct folded *f, const struct stack *s, char *buf)
{
	size_t len = 0;

	for (size_t k = 0; k < s->nr; k++) {
		size_t l = strlen(f->pool[s->off + k]);

		if (k)
			buf[len++] = ';';
		memcpy(buf + len, f->pool[s->off + k], l);
		len += l;
	}
	buf[len] = '\0';
}

int folded__write(const struct folded *f, FILE *out)
{
	_cleanup_free_ struct stack *v = malloc((f->nr ? f->nr : 1) * sizeof(*v));
	_cleanup_free_ char *text = malloc(MAX_TEXT), *esc = malloc(4 * MAX_TEXT + 1);

	if (!v || !text || !esc)
		return -ENOMEM;
	if (f->nr)
		memcpy(v, f->v, f->nr * sizeof(*v));
	qsort_r(v, f->nr, sizeof(*v), by_count, (void *)f);
	for (size_t i = 0; i < f->nr; i++) {
		text_of(f, &v[i], text);
		/* often read on a terminal: names from the file go through escape__text() */
		escape__text(esc, 4 * MAX_TEXT + 1, text);
		fprintf(out, "%s %llu\n", esc, (unsigned long long)v[i].count);
	}
	return ferror(out) ? -EIO : 0;
}

int folded__write_svg(const struct folded *f, FILE *out, const char *title)
{
	struct flamegraph *g = flamegraph__new();
	int r = 0;

	if (!g)
		return -ENOMEM;
	/* in the order of their text, as flamegraph.pl reads sorted folded stacks */
	for (size_t i = 0; i < f->nr && !r; i++)
		r = flamegraph__add(g, f->pool + f->v[i].off, f->v[i].nr, f->v[i].count);
	if (!r)
		r = flamegraph__write(g, out, title);
	flamegraph__free(g);
	return r;
}
