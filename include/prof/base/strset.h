/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Interned strings: equal text gives the same pointer, so keys compare by pointer. */
#ifndef PROF_BASE_STRSET_H
#define PROF_BASE_STRSET_H

#include <stddef.h>

#include "prof/base/hashtable.h"

/* A member of its owner, zero-initialized: usable without an init call. */
struct strset {
	struct hashtable t;             /* of char *, NUL-terminated copies */
};

/* The interned copy of str (lives until strset__release), or NULL on ENOMEM. */
const char *strset__intern(struct strset *s, const char *str);
/* The same for the first n bytes of str. */
const char *strset__intern_n(struct strset *s, const char *str, size_t n);
/* The interned copy of str, or NULL when it was never interned. */
const char *strset__find(const struct strset *s, const char *str);
size_t strset__size(const struct strset *s);
void strset__release(struct strset *s);

#endif
