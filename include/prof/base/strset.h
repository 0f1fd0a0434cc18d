/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Interned strings: equal text gives the same pointer, so keys compare by pointer. */
#ifndef PROF_BASE_STRSET_H
#define PROF_BASE_STRSET_H

#include <stddef.h>

struct strset {
	char **v;
	size_t mask, nr;
};

/* The interned copy of str (lives until strset__release), or NULL on ENOMEM. */
const char *strset__intern(struct strset *s, const char *str);
/* The same for the first n bytes of str. */
const char *strset__intern_n(struct strset *s, const char *str, size_t n);
void strset__release(struct strset *s);

#endif
