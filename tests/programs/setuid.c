/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Runs as root in before_setuid() for SECONDS, then calls setuid(UID) without exec
 * (threads too, as glibc does for every thread) and runs in after_setuid() for SECONDS.
 *
 *   prof-setuid UID SECONDS
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile double sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double before_setuid(double until);
__attribute__((noinline)) double before_setuid(double until)
{
	double s = 0;

	while (now() < until)
		for (long i = 0; i < 1000000; i++)
			s += (double)i * 1.0000001;
	return s;
}

double after_setuid(double until);
__attribute__((noinline)) double after_setuid(double until)
{
	double s = 0;

	while (now() < until)
		for (long i = 0; i < 1000000; i++)
			s += (double)i * 0.9999999;
	return s;
}

int main(int argc, char **argv)
{
	double secs;
	uid_t uid;

	if (argc != 3) {
		fprintf(stderr, "usage: prof-setuid UID SECONDS\n");
		return 2;
	}
	uid = (uid_t)atoi(argv[1]);
	secs = atof(argv[2]);
	sink += before_setuid(now() + secs);
	if (setuid(uid) < 0) {
		perror("setuid");
		return 1;
	}
	sink += after_setuid(now() + secs);
	return 0;
}
