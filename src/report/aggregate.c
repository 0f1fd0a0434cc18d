/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdlib.h>
#include <string.h>

#include "prof/escape.h"
#include "prof/flamegraph.h"
#include "prof/report.h"
#include "prof/util.h"

struct row_slot {
	bool used;
	uint64_t hash;
	struct report_row row;
};

struct stack_slot {
	bool used;
	uint64_t hash;
	char *text;
	uint64_t count;
};

struct report_agg {
	bool key_on[KEY__MAX];
	struct row_slot *rows;
	size_t mask, nr;
	struct report_row *sorted;
	struct stack_slot *stacks;
	size_t smask, snr;
};

struct report_agg *report_agg__new(const struct report_opts *o)
{
	struct report_agg *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	for (size_t i = 0; i < o->nr_keys; i++)
		a->key_on[o->keys[i]] = true;
	a->mask = 1023;
	a->rows = calloc(a->mask + 1, sizeof(*a->rows));
	a->smask = 1023;
	a->stacks = calloc(a->smask + 1, sizeof(*a->stacks));
	if (!a->rows || !a->stacks)
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
	free(a->rows);
	free(a->sorted);
	free(a);
	return NULL;
}

static inline uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h;
}

/* The key of a sample: only the fields sorted on; strings are interned (by pointer). */
static void project(const struct report_agg *a, const struct report_sample *s, struct report_sample *k)
{
	memset(k, 0, sizeof(*k));
	if (a->key_on[KEY_UID]) {
		k->uid = s->uid;
		k->uid_known = s->uid_known;
	}
	if (a->key_on[KEY_CGROUP])
		k->cgroup = s->cgroup;
	if (a->key_on[KEY_PID])
		k->pid = s->pid;
	if (a->key_on[KEY_COMM])
		k->comm = s->comm;
	/* as perf's --sort sym: a symbol is its name, wherever it lives, unless the
	 * object is a key too */
	if (a->key_on[KEY_DSO])
		k->dso = s->dso;
	if (a->key_on[KEY_SYM]) {
		k->sym = s->sym;
		k->kernel = s->kernel;
	}
}

static uint64_t key_hash(const struct report_sample *k)
{
	uint64_t h = 0;

	h = mix(h, k->uid | (uint64_t)k->uid_known << 32);
	h = mix(h, k->cgroup);
	h = mix(h, (uint64_t)(uint32_t)k->pid);
	h = mix(h, (uintptr_t)k->comm);
	h = mix(h, (uintptr_t)k->dso);
	h = mix(h, (uintptr_t)k->sym);
	return h;
}

static bool key_eq(const struct report_sample *x, const struct report_sample *y)
{
	return x->uid == y->uid && x->uid_known == y->uid_known && x->cgroup == y->cgroup &&
	       x->pid == y->pid && x->comm == y->comm && x->dso == y->dso && x->sym == y->sym;
}

static int rows_grow(struct report_agg *a)
{
	size_t ncap = (a->mask + 1) * 2;
	struct row_slot *n = calloc(ncap, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (size_t i = 0; i <= a->mask; i++) {
		if (!a->rows[i].used)
			continue;
		size_t j = a->rows[i].hash & (ncap - 1);
		while (n[j].used)
			j = (j + 1) & (ncap - 1);
		n[j] = a->rows[i];
	}
	free(a->rows);
	a->rows = n;
	a->mask = ncap - 1;
	return 0;
}

int report_agg__add(struct report_agg *a, const struct report_sample *s)
{
	struct report_sample k;
	uint64_t h;
	size_t i;

	project(a, s, &k);
	h = key_hash(&k);
	for (i = h & a->mask; a->rows[i].used; i = (i + 1) & a->mask) {
		if (a->rows[i].hash == h && key_eq(&a->rows[i].row.key, &k)) {
			a->rows[i].row.samples++;
			a->rows[i].row.period += s->period;
			return 0;
		}
	}
	if ((a->nr + 1) * 2 > a->mask + 1) {
		if (rows_grow(a) < 0)
			return -ENOMEM;
		for (i = h & a->mask; a->rows[i].used; i = (i + 1) & a->mask)
			;
	}
	a->rows[i] = (struct row_slot){ .used = true, .hash = h,
					.row = { .key = k, .samples = 1, .period = s->period } };
	a->nr++;
	return 0;
}

static int cmp_row(const void *x, const void *y)
{
	const struct report_row *a = x, *b = y;

	if (a->period != b->period)
		return a->period < b->period ? 1 : -1;
	if (a->samples != b->samples)
		return a->samples < b->samples ? 1 : -1;
	return 0;
}

const struct report_row *report_agg__rows(struct report_agg *a, size_t *ret_nr, uint64_t *ret_total_period,
					  uint64_t *ret_total_samples)
{
	size_t n = 0;
	uint64_t tp = 0, ts = 0;

	free(a->sorted);
	a->sorted = malloc((a->nr ? a->nr : 1) * sizeof(*a->sorted));
	if (!a->sorted)
		return NULL;
	for (size_t i = 0; i <= a->mask; i++) {
		if (!a->rows[i].used)
			continue;
		a->sorted[n++] = a->rows[i].row;
		tp += a->rows[i].row.period;
		ts += a->rows[i].row.samples;
	}
	qsort(a->sorted, n, sizeof(*a->sorted), cmp_row);
	*ret_nr = n;
	*ret_total_period = tp;
	*ret_total_samples = ts;
	return a->sorted;
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
