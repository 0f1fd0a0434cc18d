/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A workload with many distinct call chains: each round walks a binary path of
 * DEPTH levels through path_a() and path_b(), chosen by the bits of a counter, so it
 * has 2^DEPTH stacks (frame pointers, no tail calls).  For tests that need answers
 * larger than a socket buffer, and for the daemon's bench.
 *
 *   prof-stacks [SECONDS] [DEPTH]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile double sink;
static volatile int frames;

static __attribute__((noinline)) void frame(void)
{
	frames++;
}

double path_a(unsigned int path, int depth);
double path_b(unsigned int path, int depth);

static __attribute__((noinline)) double leaf(void)
{
	double s = 0;

	frame();
	for (int i = 0; i < 20000; i++)
		s += (double)i * 1.0000001;
	return s;
}

__attribute__((noinline)) double path_a(unsigned int path, int depth)
{
	frame();
	if (!depth)
		return leaf();
	return (path & 1 ? path_b : path_a)(path >> 1, depth - 1) + 1;
}

__attribute__((noinline)) double path_b(unsigned int path, int depth)
{
	frame();
	if (!depth)
		return leaf();
	return (path & 1 ? path_b : path_a)(path >> 1, depth - 1) + 2;
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
	int depth = argc > 2 ? atoi(argv[2]) : 12;
	unsigned int round = 0;

	if (depth < 1 || depth > 24) {
		fprintf(stderr, "prof-stacks: DEPTH is 1 to 24\n");
		return 2;
	}
	while (now() < end)
		sink += path_a(round++ * 2654435761u, depth);
	return 0;
}
