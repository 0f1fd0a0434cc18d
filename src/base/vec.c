/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "prof/base/vec.h"

/* The capacity a reserve of need grows cap to (cap itself when it fits), 0 on overflow. */
static size_t grown_cap(size_t cap, size_t need, size_t elem)
{
	size_t ncap = cap ? cap : 16;

	if (need <= cap)
		return cap;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return 0;
		ncap *= 2;
	}
	return elem && ncap > SIZE_MAX / elem ? 0 : ncap;
}

size_t vec__grow_bytes(size_t cap, size_t need, size_t elem)
{
	size_t ncap = grown_cap(cap, need, elem);

	return ncap ? (ncap - cap) * elem : SIZE_MAX;
}

int vec__reserve(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = grown_cap(*cap, need, elem);
	void *n;

	if (need <= *cap)
		return 0;
	if (!ncap)
		return -ENOMEM;
	n = realloc(*arr, ncap * elem);
	if (!n)
		return -ENOMEM;
	*arr = n;
	*cap = ncap;
	return 0;
}
