/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prof/base/hash.h"
#include "prof/base/strset.h"

struct key {
	const char *s;
	size_t n;
};

static bool eq(const void *entry, const void *key, const void *ctx)
{
	const char *e = *(char *const *)entry;
	const struct key *k = key;

	return !strncmp(e, k->s, k->n) && e[k->n] == '\0';
}

static void ready(struct strset *s)
{
	if (!s->t.eq)
		hashtable__init(&s->t, sizeof(char *), eq, NULL);
}

const char *strset__intern_n(struct strset *s, const char *str, size_t n)
{
	struct key k = { str, strnlen(str, n) };
	uint64_t h = hash__bytes(k.s, k.n);
	char **e, *copy;
	bool created;

	ready(s);
	e = hashtable__find(&s->t, h, &k);
	if (e)
		return *e;
	copy = strndup(k.s, k.n);
	if (!copy)
		return NULL;
	e = hashtable__insert(&s->t, h, &k, &created);
	if (!e) {
		free(copy);
		return NULL;
	}
	*e = copy;
	return copy;
}

const char *strset__intern(struct strset *s, const char *str)
{
	return strset__intern_n(s, str, strlen(str));
}

const char *strset__find(const struct strset *s, const char *str)
{
	struct key k = { str, strlen(str) };
	char *const *e;

	if (!s->t.eq)
		return NULL;
	e = hashtable__find(&s->t, hash__bytes(k.s, k.n), &k);
	return e ? *e : NULL;
}

size_t strset__size(const struct strset *s)
{
	return hashtable__size(&s->t);
}

void strset__release(struct strset *s)
{
	char **e;

	for (size_t i = 0; (e = hashtable__next(&s->t, &i));)
		free(*e);
	hashtable__release(&s->t);
}
