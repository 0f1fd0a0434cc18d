/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading V8's heap of a live process, every read bounded and checked: a word is a
 * Smi or a tagged pointer by its tag; an object's kind is its map's instance type,
 * the map proven a map by its own map's type (MAP_TYPE), so a word of the tenant's
 * data that merely looks tagged is refused; strings of every representation prof
 * meets (sequential one- and two-byte, cons, sliced, thin) read within a length and
 * a depth bound.  External strings (the embedder's bytes, not the heap's) are refused.
 *
 * Errors: -errno of the read (-EFAULT: unmapped, -ESRCH: gone), else -EINVAL with
 * *why set to a static line saying what was odd (callers count refusals by it).
 */
#ifndef PROF_NODE_V8HEAP_H
#define PROF_NODE_V8HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/node/node.h"

#define V8_STRING_DEPTH 16              /* cons/sliced/thin hops */

static inline bool v8__is_smi(uint64_t w)
{
	return (w & 1) == 0;
}

static inline int64_t v8__smi(uint64_t w)
{
	return (int64_t)w >> 32;
}

/* A Smi as a 64-bit V8 makes it: its low 32 bits zero. */
static inline bool v8__is_smi64(uint64_t w)
{
	return (w & 0xffffffffu) == 0;
}

static inline bool v8__is_object(uint64_t w)
{
	return (w & 3) == 1 && w > 0xffff;
}

/* The word at offset off of the object tagged. */
int v8__word(const struct node_v8 *v, uint64_t tagged, int64_t off, uint64_t *ret);

/* The instance type of the object tagged (its map proven a map). */
int v8__type(const struct node_v8 *v, uint64_t tagged, uint16_t *ret, const char **why);

/* Is type that of a string? */
bool v8__is_string_type(const struct node_v8 *v, uint16_t type);

/*
 * Call fn for each run of the string tagged's code units [from, from + len) in
 * order: units are 1 or 2 bytes wide (width).  len UINT32_MAX: to its end.  0, or fn's
 * negative return, or an error as above.
 */
typedef int (*v8_units_fn)(void *ctx, const void *units, size_t n, unsigned width);
int v8_string__walk(const struct node_v8 *v, uint64_t tagged, uint32_t from, uint32_t len, v8_units_fn fn,
		    void *ctx, const char **why);

/* The string's length (its type checked). */
int v8_string__length(const struct node_v8 *v, uint64_t tagged, uint32_t *ret, const char **why);

/* The string as UTF-8 into buf (size bytes, NUL-terminated); -E2BIG (why set) when
 * it does not fit: never cut. */
int v8_string__utf8(const struct node_v8 *v, uint64_t tagged, char *buf, size_t size, const char **why);

#endif
