/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A workload that spends its time in zlib (Debian's libz, no frame pointers, no
 * symbols for its static functions): main -> round_trip -> squeeze -> compress2
 * (libz), then uncompress.  report/dwarf.sh builds it with -O2
 * -fomit-frame-pointer -lz.
 *
 *   prof-zlib SECONDS
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <zlib.h>

static unsigned char in[1 << 18], out[1 << 19];
static volatile int level = 6;  /* not a constant: squeeze() is not specialized */

__attribute__((noinline)) static unsigned long squeeze(void)
{
	uLongf n = sizeof(out);

	if (compress2(out, &n, in, sizeof(in), level) != Z_OK)
		abort();
	return n;
}

__attribute__((noinline)) static unsigned long round_trip(void)
{
	unsigned long n = squeeze();
	uLongf m = sizeof(in);

	if (uncompress(in, &m, out, n) != Z_OK)
		abort();
	return n + m;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1;
	struct timespec a, b;
	unsigned long s = 0;
	uint32_t x = 1;

	/* compressible, not trivially: eight letters in a random order */
	for (size_t i = 0; i < sizeof(in); i++) {
		x = x * 1103515245 + 12345;
		in[i] = (unsigned char)"abcdefgh"[(x >> 16) & 7];
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		s += round_trip();
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9 < secs);
	printf("%lu\n", s);
	return 0;
}
