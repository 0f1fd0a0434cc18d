/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A workload with a known profile: hot_function() takes ~90% of the CPU time,
 * cold_function() ~10%.  With "fork", a child forked mid-run renames itself
 * (prof-child) and spends its time in child_function().
 *
 *   prof-hot [SECONDS] [fork]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile double sink;

/*
 * Each function has its own loop, so each is a symbol of its own in a profile.  Each
 * also calls frame(), so it is not a leaf: gcc keeps no frame pointer in a leaf even
 * with -fno-omit-frame-pointer, and a frame-pointer unwind from a leaf skips its
 * caller (main would be missing from every call chain).
 */
static volatile int frames;
static __attribute__((noinline)) void frame(void)
{
	frames++;
}

#define SPIN(n, k)                                                             \
	({                                                                     \
		double s_ = 0;                                                 \
		for (long i_ = 0; i_ < (n); i_++)                              \
			s_ += (double)i_ * (k);                                \
		s_;                                                            \
	})

double hot_function(void);
__attribute__((noinline)) double hot_function(void)
{
	frame();
	return SPIN(9000000, 1.0000001);
}

double cold_function(void);
__attribute__((noinline)) double cold_function(void)
{
	frame();
	return SPIN(1000000, 0.9999999);
}

double child_function(void);
__attribute__((noinline)) double child_function(void)
{
	frame();
	return SPIN(5000000, 1.0000002);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	int do_fork = argc > 2 && !strcmp(argv[2], "fork");
	double start = now(), end = start + secs;
	pid_t child = -1;

	while (now() < end) {
		sink += hot_function();
		sink += cold_function();
		if (do_fork && child < 0 && now() > start + secs / 3) {
			child = fork();
			if (child == 0) {
				prctl(PR_SET_NAME, "prof-child");
				while (now() < end)
					sink += child_function();
				_exit(0);
			}
		}
	}
	if (child > 0)
		waitpid(child, NULL, 0);
	return 0;
}
