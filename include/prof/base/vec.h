/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Growable arrays: the one "grow" of prof's dense tables. */
#ifndef PROF_BASE_VEC_H
#define PROF_BASE_VEC_H

#include <stddef.h>

/*
 * Make room for need elements of elem bytes in *arr, whose capacity is *cap:
 * doubled (at least 16) until it fits.  0, or -ENOMEM with *arr and *cap untouched.
 */
int vec__reserve(void **arr, size_t *cap, size_t need, size_t elem);

/* The bytes such a reserve would add (0 when need fits; SIZE_MAX when it cannot),
 * so that a bounded table can refuse to grow before it does. */
size_t vec__grow_bytes(size_t cap, size_t need, size_t elem);

#define VEC_GROW_BYTES(arr, cap, need) vec__grow_bytes((cap), (need), sizeof(*(arr)))
#define VEC_RESERVE(arr, cap, need) vec__reserve((void **)&(arr), &(cap), (need), sizeof(*(arr)))

#endif
