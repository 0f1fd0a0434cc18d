/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A workload without frame pointers that calls through a shared library and back:
 * main -> app_outer -> lib_work (libprof-nofp.so) -> app_callback, lib_leaf.
 * record_dwarf.sh builds it with -O2 -fomit-frame-pointer.
 *
 *   prof-nofp SECONDS [PROGRAM ARGS...]    then exec PROGRAM, if given
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

uint64_t lib_work(uint64_t n, uint64_t (*cb)(uint64_t));

static volatile uint64_t sink;  /* the result is used: no tail call drops app_outer's frame */

__attribute__((noinline)) static uint64_t app_callback(uint64_t n)
{
	volatile uint64_t x = 1;

	for (uint64_t i = 0; i < n; i++)
		x ^= x * 31 + i;
	return x;
}

__attribute__((noinline)) static uint64_t app_outer(uint64_t n)
{
	return lib_work(n, app_callback) + 1;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1;
	struct timespec a, b;
	uint64_t s = 0;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		s += app_outer(20000);
		sink = s;
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9 < secs);
	if (argc > 2) {
		execv(argv[2], argv + 2);
		perror(argv[2]);
		return 127;
	}
	return 0;
}
