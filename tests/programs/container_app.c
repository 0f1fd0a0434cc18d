/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The program of the container tests (tests/integration/container.sh): CPU-bound,
 * about half its time in ctr_app_spin() here and half in ctr_lib_spin() of libctr.so,
 * a library that exists only inside the container's root (the host has a decoy with
 * other code at the same path).  The names are distinctive, so a report either names
 * them or does not.  Built with frame pointers (ctr-hot) and without (ctr-hot-nofp);
 * every call keeps its frame: main -> ctr_app_run -> ctr_app_spin, ctr_lib_spin.
 *
 *   ctr-hot [SECONDS]     run for SECONDS (default, or 0: until killed)
 *   ctr-hot pause         idle until killed
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

uint64_t ctr_lib_spin(uint64_t n);

static volatile uint64_t ctr_sink;

__attribute__((noinline)) uint64_t ctr_app_spin(uint64_t n)
{
	volatile uint64_t x = 7;

	for (uint64_t i = 0; i < n; i++)
		x ^= x * 33 + i;
	return x;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* ~1 ms of work between two clock reads: the vDSO's share stays negligible. */
__attribute__((noinline)) void ctr_app_run(double secs)
{
	double end = now() + secs;

	do {
		ctr_sink += ctr_app_spin(300000);
		ctr_sink += ctr_lib_spin(300000);
	} while (secs <= 0 || now() < end);
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "pause") == 0)
		for (;;)
			pause();
	ctr_app_run(argc > 1 ? atof(argv[1]) : 0);
	return (int)(ctr_sink & 0);
}
