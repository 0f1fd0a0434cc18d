/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdlib.h>
#include <string.h>

#include "prof/base/escape.h"
#include "prof/output/flamegraph.h"
#include "prof/cli/report_opts.h"
#include "prof/base/util.h"

struct stack_slot {
	bool used;
	uint64_t hash;
	char *text;
	uint64_t count;
};

/* Folded stacks ("comm;outer;...;leaf"), fed from the aggregation engine (profile.h),
 * for the folded and SVG outputs. */
struct report_agg {
	struct stack_slot *stacks;
	size_t smask, snr;
};

struct report_agg *report_agg__new(void)
{
	struct report_agg *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->smask = 1023;
	a->stacks = calloc(a->smask + 1, sizeof(*a->stacks));
	if (!a->stacks)
		return report_agg__free(a);
	return a;
}

struct report_agg *report_agg__free(struct report_agg *a)
{
	if (!a)
		return NULL;
	if (a->stacks)
		for (size_t i = 0; i <= a->smask; i++)
			free(a->stacks[i].text);
	free(a->stacks);
	free(a);
	return NULL;
}

int report_agg__add_stack(struct report_agg *a, const char *const *frames, size_t nr, uint64_t count)
{
	char buf[16384];
	size_t len = 0;
	uint64_t h;
	size_t i;

	for (size_t f = 0; f < nr; f++) {
		size_t l = strlen(frames[f]);
		if (len + l + 2 >= sizeof(buf))
			break;          /* a very deep stack keeps its outer frames */
		if (f)
			buf[len++] = ';';
		/* ';' and ' ' are the format's separators: keep them out of names */
		for (size_t c = 0; c < l; c++)
			buf[len++] = (frames[f][c] == ';' || frames[f][c] == ' ' || frames[f][c] == '\n') ? '_' : frames[f][c];
	}
	buf[len] = '\0';
	h = hash_bytes(buf, len);
	for (i = h & a->smask; a->stacks[i].used; i = (i + 1) & a->smask) {
		if (a->stacks[i].hash == h && !strcmp(a->stacks[i].text, buf)) {
			a->stacks[i].count += count;
			return 0;
		}
	}
	if ((a->snr + 1) * 2 > a->smask + 1) {
		size_t ncap = (a->smask + 1) * 2;
		struct stack_slot *n = calloc(ncap, sizeof(*n));
		if (!n)
			return -ENOMEM;
		for (size_t k = 0; k <= a->smask; k++) {
			if (!a->stacks[k].used)
				continue;
			size_t j = a->stacks[k].hash & (ncap - 1);
			while (n[j].used)
				j = (j + 1) & (ncap - 1);
			n[j] = a->stacks[k];
		}
		free(a->stacks);
		a->stacks = n;
		a->smask = ncap - 1;
		for (i = h & a->smask; a->stacks[i].used; i = (i + 1) & a->smask)
			;
	}
	a->stacks[i] = (struct stack_slot){ .used = true, .hash = h, .text = strdup(buf), .count = count };
	if (!a->stacks[i].text) {
		a->stacks[i].used = false;
		return -ENOMEM;
	}
	a->snr++;
	return 0;
}

static int cmp_stack(const void *x, const void *y)
{
	const struct stack_slot *a = *(const struct stack_slot *const *)x, *b = *(const struct stack_slot *const *)y;

	if (a->count != b->count)
		return a->count < b->count ? 1 : -1;
	return strcmp(a->text, b->text);
}

int report_agg__write_folded(struct report_agg *a, FILE *out)
{
	struct stack_slot **v = malloc((a->snr ? a->snr : 1) * sizeof(*v));
	size_t n = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i <= a->smask; i++)
		if (a->stacks[i].used)
			v[n++] = &a->stacks[i];
	qsort(v, n, sizeof(*v), cmp_stack);
	for (size_t i = 0; i < n; i++) {
		/* often read on a terminal: names from the file go through escape__text() */
		size_t len = 4 * strlen(v[i]->text) + 1;
		char *esc = malloc(len);

		if (!esc) {
			free(v);
			return -ENOMEM;
		}
		escape__text(esc, len, v[i]->text);
		fprintf(out, "%s %llu\n", esc, (unsigned long long)v[i]->count);
		free(esc);
	}
	free(v);
	return ferror(out) ? -EIO : 0;
}

int report_agg__write_svg(struct report_agg *a, FILE *out, const char *title)
{
	struct flamegraph *f = flamegraph__new();
	int r = 0;

	if (!f)
		return -ENOMEM;
	for (size_t i = 0; i <= a->smask && !r; i++)
		if (a->stacks[i].used)
			r = flamegraph__add(f, a->stacks[i].text, a->stacks[i].count);
	if (!r)
		r = flamegraph__write(f, out, title);
	flamegraph__free(f);
	return r;
}
