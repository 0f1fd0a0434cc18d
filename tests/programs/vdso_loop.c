/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Spins in clock_gettime(), which the vDSO answers without a system call: most of
 * its samples are in __vdso_clock_gettime, called from spin_clock (through libc's
 * clock_gettime).  Argument: seconds to run (default 1). */
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) long spin_clock(double secs)
{
	struct timespec start, now;
	long n = 0;

	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		clock_gettime(CLOCK_MONOTONIC, &now);
		n++;
	} while ((double)(now.tv_sec - start.tv_sec) + (double)(now.tv_nsec - start.tv_nsec) / 1e9 < secs);
	return n;
}

int main(int argc, char **argv)
{
	return spin_clock(argc > 1 ? atof(argv[1]) : 1.0) > 0 ? 0 : 1;
}
