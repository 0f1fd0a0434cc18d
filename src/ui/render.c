/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * prof ui's answers, drawn from a window's profile by prof report's own writers
 * (folded.c, flamegraph.c) and its engine's rows (profile__rows), so every number
 * the page shows is one prof report prints for the same samples.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof/base/escape.h"
#include "prof/base/util.h"
#include "prof/output/folded.h"
#include "prof/ui/ui.h"

/* A memory stream closed into *ret: 0, or err (or -EIO) after freeing it. */
static int stream_close(FILE *f, char **buf, size_t *len, int err)
{
	if (ferror(f) && !err)
		err = -EIO;
	if (fclose(f) && !err)
		err = -ENOMEM;
	if (err) {
		free(*buf);
		*buf = NULL;
	}
	return err;
}

/* p's folded stacks into a buffer: as text, or (svg) as a flame graph titled title. */
static int render_folded(const struct profile *p, bool svg, const char *title, char **ret, size_t *ret_len)
{
	struct folded *fo;
	FILE *f;
	int err = folded__new(p, &fo);

	if (err < 0)
		return err;
	*ret = NULL;
	f = open_memstream(ret, ret_len);
	if (!f) {
		folded__free(fo);
		return -ENOMEM;
	}
	err = svg ? folded__write_svg(fo, f, title) : folded__write(fo, f);
	folded__free(fo);
	return stream_close(f, ret, ret_len, err);
}

int ui_render__folded(const struct profile *p, char **ret, size_t *ret_len)
{
	return render_folded(p, false, NULL, ret, ret_len);
}

int ui_render__svg(const struct profile *p, const char *title, char **ret, size_t *ret_len)
{
	return render_folded(p, true, title, ret, ret_len);
}

/* A function (a symbol of an object), its self and total samples; sorted by (dso, sym)
 * pointers to be found (names are interned). */
struct top_row {
	const char *dso, *sym;
	uint64_t self, total, seen;     /* seen: the last entry counted into total, + 1 */
};

static int by_names(const void *x, const void *y)
{
	const struct top_row *a = x, *b = y;

	if (a->dso != b->dso)
		return (uintptr_t)a->dso < (uintptr_t)b->dso ? -1 : 1;
	return a->sym == b->sym ? 0 : (uintptr_t)a->sym < (uintptr_t)b->sym ? -1 : 1;
}

static int by_u64_desc(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? 1 : a > b ? -1 : 0;
}

static int by_self(const void *x, const void *y)
{
	const struct top_row *a = x, *b = y;

	int c;

	if (a->self != b->self)
		return a->self < b->self ? 1 : -1;
	if (a->total != b->total)
		return a->total < b->total ? 1 : -1;
	c = strcmp(a->sym ? a->sym : "", b->sym ? b->sym : "");
	return c ? c : strcmp(a->dso ? a->dso : "", b->dso ? b->dso : "");
}

/* Each entry's samples into the total of every symbol its stack holds, once. */
static void add_totals(const struct profile *p, struct top_row *v, size_t nr)
{
	size_t nr_entries, nr_frames;
	const struct profile_entry *e = profile__entries(p, &nr_entries);
	const struct profile_frame *frames = profile__frames(p, &nr_frames);

	for (size_t i = 0; i < nr_entries; i++) {
		size_t n;
		const uint32_t *ids = profile__stack(p, e[i].stack, &n);

		for (size_t k = 0; k < n; k++) {
			struct top_row key = { .dso = frames[ids[k]].dso, .sym = frames[ids[k]].sym };
			struct top_row *t = bsearch(&key, v, nr, sizeof(*v), by_names);

			if (t && t->seen != i + 1) {
				t->total += e[i].samples;
				t->seen = i + 1;
			}
		}
	}
}

/* The rows (in v's order) of the limit first by self (v's order) and by total. */
static void write_top(FILE *f, const struct profile *p, const struct top_row *v, size_t nr, size_t limit)
{
	uint64_t kth = 0;               /* the limit-th largest total */
	bool first = true;

	if (limit && nr > limit) {
		_cleanup_free_ uint64_t *t = malloc(nr * sizeof(*t));

		for (size_t i = 0; t && i < nr; i++)
			t[i] = v[i].total;
		if (t) {
			qsort(t, nr, sizeof(*t), by_u64_desc);
			kth = t[limit - 1];
		}
	}
	fprintf(f, "{\"total\":%" PRIu64 ",\"functions\":%zu,\"rows\":[", profile__stats(p)->samples, nr);
	for (size_t i = 0; i < nr; i++) {
		if (limit && i >= limit && (!kth || v[i].total < kth))
			continue;
		fputs(first ? "{\"sym\":" : ",{\"sym\":", f);
		first = false;
		escape__json(f, v[i].sym ? v[i].sym : "", v[i].sym ? strlen(v[i].sym) : 0);
		fputs(",\"dso\":", f);
		escape__json(f, v[i].dso ? v[i].dso : "", v[i].dso ? strlen(v[i].dso) : 0);
		fprintf(f, ",\"self\":%" PRIu64 ",\"total\":%" PRIu64 "}", v[i].self, v[i].total);
	}
	fputs("]}\n", f);
}

/* Every function of p's stacks once, sorted by (dso, sym); *ret_nr of them. */
static struct top_row *functions_of(const struct profile *p, size_t *ret_nr)
{
	size_t nr_frames, w = 0;
	const struct profile_frame *frames = profile__frames(p, &nr_frames);
	struct top_row *v = calloc(nr_frames ? nr_frames : 1, sizeof(*v));

	if (!v)
		return NULL;
	for (size_t i = 0; i < nr_frames; i++)
		v[i] = (struct top_row){ .dso = frames[i].dso, .sym = frames[i].sym };
	qsort(v, nr_frames, sizeof(*v), by_names);
	for (size_t i = 0; i < nr_frames; i++)
		if (!w || by_names(&v[w - 1], &v[i]))
			v[w++] = v[i];
	*ret_nr = w;
	return v;
}

int ui_render__top(const struct profile *p, size_t limit, char **ret, size_t *ret_len)
{
	bool key_on[PROFILE_KEY__MAX] = { [PROFILE_KEY_DSO] = true, [PROFILE_KEY_SYM] = true };
	_cleanup_free_ struct profile_row *rows = NULL;
	_cleanup_free_ struct top_row *v = NULL;
	size_t nr, nr_rows;
	FILE *f;
	int err = profile__rows(p, key_on, false, &rows, &nr_rows);

	if (err < 0)
		return err;
	v = functions_of(p, &nr);
	if (!v)
		return -ENOMEM;
	/* self: the rows' (a leaf past its inlined frames is a function of the stack) */
	for (size_t i = 0; i < nr_rows; i++) {
		struct top_row key = { .dso = rows[i].dso, .sym = rows[i].sym };
		struct top_row *t = bsearch(&key, v, nr, sizeof(*v), by_names);

		if (t)
			t->self += rows[i].samples;
	}
	add_totals(p, v, nr);
	qsort(v, nr, sizeof(*v), by_self);
	*ret = NULL;
	f = open_memstream(ret, ret_len);
	if (!f)
		return -ENOMEM;
	write_top(f, p, v, nr, limit);
	return stream_close(f, ret, ret_len, 0);
}
