/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Workloads whose time off a CPU is known by construction, for --off-cpu:
 *
 *   prof-offcpu sleeper SECONDS   spin 10 ms, sleep 30 ms (nanosleep), again: on a
 *                                 CPU 25 % of the time, asleep 75 %
 *   prof-offcpu hog SECONDS       spin: runnable all the time
 *   prof-offcpu mix SECONDS       two hog threads, two sleeper threads and a napper
 *                                 (spin 1 ms, sleep 2 ms: most of its wait for a CPU
 *                                 comes after its wake-ups), each printing its own
 *                                 line at its end:
 *                                 "thread hog|sleeper|napper TID <on> <wait> <life>"
 *
 * At its end it prints its own ground truth from the kernel, one line:
 *   "schedstat <on-CPU ns> <run-queue wait ns> <lifetime ns>"
 * (/proc/self/task/TID/schedstat: time run, time waited on a run queue; the lifetime
 * from its start to that read).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static volatile int frames;
static __attribute__((noinline)) void frame(void)
{
	frames++;
}

static __attribute__((noinline)) void spin(double seconds)
{
	double end = now() + seconds;

	while (now() < end)
		frame();
}

static __attribute__((noinline)) void nap(long ms)
{
	struct timespec t = { 0, ms * 1000000L };

	nanosleep(&t, NULL);
	frame();
}

static void truth(double start)
{
	unsigned long long run = 0, wait = 0;
	FILE *f = fopen("/proc/thread-self/schedstat", "r");

	if (!f || fscanf(f, "%llu %llu", &run, &wait) != 2)
		fprintf(stderr, "prof-offcpu: no schedstat\n");
	if (f)
		fclose(f);
	printf("schedstat %llu %llu %.0f\n", run, wait, (now() - start) * 1e9);
	fflush(stdout);
}

static double seconds;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static void *mix_thread(void *arg)
{
	const char *kind = arg;
	double start = now(), end = start + seconds;
	unsigned long long run = 0, wait = 0;
	FILE *f;

	if (!strcmp(kind, "sleeper")) {
		while (now() < end) {
			spin(0.010);
			nap(30);
		}
	} else if (!strcmp(kind, "napper")) {
		while (now() < end) {
			spin(0.001);
			nap(2);
		}
	} else {
		spin(seconds);
	}
	f = fopen("/proc/thread-self/schedstat", "r");
	if (!f || fscanf(f, "%llu %llu", &run, &wait) != 2)
		fprintf(stderr, "prof-offcpu: no schedstat\n");
	if (f)
		fclose(f);
	pthread_mutex_lock(&out_lock);
	printf("thread %s %ld %llu %llu %.0f\n", kind, (long)syscall(SYS_gettid), run, wait, (now() - start) * 1e9);
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
	return NULL;
}

int main(int argc, char **argv)
{
	double start = now(), end;

	if (argc < 3) {
		fprintf(stderr, "usage: prof-offcpu sleeper|hog SECONDS\n");
		return 2;
	}
	end = start + atof(argv[2]);
	if (!strcmp(argv[1], "mix")) {
		static const char *const kinds[] = { "hog", "hog", "sleeper", "sleeper", "napper" };
		pthread_t th[5];

		seconds = atof(argv[2]);
		for (int i = 0; i < 5; i++)
			if (pthread_create(&th[i], NULL, mix_thread, (void *)kinds[i]))
				return 1;
		for (int i = 0; i < 5; i++)
			pthread_join(th[i], NULL);
		return 0;
	}
	if (!strcmp(argv[1], "sleeper")) {
		while (now() < end) {
			spin(0.010);
			nap(30);
		}
	} else {
		spin(end - start);
	}
	truth(start);
	return 0;
}
