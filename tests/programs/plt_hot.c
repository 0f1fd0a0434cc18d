/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A hot loop through a PLT stub (labs, built with -fno-builtin): tests/integration/report/plt.sh. */
#include <stdlib.h>
#include <time.h>
int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1;
	struct timespec t0, t;
	long sum = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		for (int i = 0; i < 1000000; i++)
			sum += labs(i - 500000);
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 >= secs)
			break;
	}
	return sum == 42;
}
