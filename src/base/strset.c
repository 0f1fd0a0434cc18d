/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "prof/base/strset.h"
#include "prof/base/util.h"

static int grow(struct strset *s)
{
	size_t ncap = s->v ? (s->mask + 1) * 2 : 256;
	char **n = calloc(ncap, sizeof(*n));

	if (!n)
		return -1;
	for (size_t k = 0; s->v && k <= s->mask; k++) {
		if (!s->v[k])
			continue;
		size_t j = hash_bytes(s->v[k], strlen(s->v[k])) & (ncap - 1);
		while (n[j])
			j = (j + 1) & (ncap - 1);
		n[j] = s->v[k];
	}
	free(s->v);
	s->v = n;
	s->mask = ncap - 1;
	return 0;
}

const char *strset__intern_n(struct strset *s, const char *str, size_t n)
{
	uint64_t h = hash_bytes(str, n);
	size_t i;

	if ((!s->v || (s->nr + 1) * 2 > s->mask + 1) && grow(s) < 0)
		return NULL;
	for (i = h & s->mask; s->v[i]; i = (i + 1) & s->mask)
		if (!strncmp(s->v[i], str, n) && s->v[i][n] == '\0')
			return s->v[i];
	s->v[i] = strndup(str, n);
	if (!s->v[i])
		return NULL;
	s->nr++;
	return s->v[i];
}

const char *strset__intern(struct strset *s, const char *str)
{
	return strset__intern_n(s, str, strlen(str));
}

void strset__release(struct strset *s)
{
	for (size_t i = 0; s->v && i <= s->mask; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->nr = 0;
}
