/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A hot noinline function whose time is spent in functions inlined into it:
 * main -> hot_caller -> inl_outer (inlined) -> inl_inner (inlined).
 * report_inline.sh builds it with -O2 -g.
 *
 *   prof-inline SECONDS
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;  /* the result is used: nothing is optimised away */

static inline __attribute__((always_inline)) uint64_t inl_inner(uint64_t x)
{
	for (int i = 0; i < 256; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

static inline __attribute__((always_inline)) uint64_t inl_outer(uint64_t x)
{
	return inl_inner(x ^ (x >> 7));
}

uint64_t hot_caller(uint64_t n);

/* not static: no .constprop clone, so perf and prof name it alike */
__attribute__((noinline)) uint64_t hot_caller(uint64_t n)
{
	uint64_t s = 0;

	for (uint64_t i = 0; i < n; i++)
		s += inl_outer(i + sink);
	return s;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 1.0);

	while (now() < end)
		sink = hot_caller(20000);
	return 0;
}
