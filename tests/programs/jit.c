/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A toy JIT: copies a position-independent function into anonymous executable
 * memory, describes it in /tmp/perf-PID.map as "jitted_spin", and runs it.
 *   prof-jit SECONDS
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

long spin(long n);
__attribute__((noinline, used)) long spin(long n)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		s += i ^ (s >> 3);
	return s;
}
void spin_end(void);
__attribute__((noinline, used)) void spin_end(void) { }

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1;
	size_t len = (size_t)((char *)spin_end - (char *)spin);
	long (*jitted)(long);
	struct timespec a, b;
	char path[64];
	FILE *f;
	void *mem;
	volatile long sink = 0;

	if (len == 0 || len > 4096)
		len = 256;
	mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	memcpy(mem, (void *)spin, len);
	jitted = (long (*)(long))mem;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", getpid());
	f = fopen(path, "w");
	if (!f)
		return 1;
	fprintf(f, "%lx %zx jitted_spin\n", (unsigned long)mem, len);
	fclose(f);
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		sink += jitted(1000000);
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9 < secs);
	printf("%d\n", getpid());
	return 0;
}
