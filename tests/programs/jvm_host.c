/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * prof-jvm-host LIB MODE: load LIB (a copy of prof's fake libjvm.so, under the name
 * the test gives it), make its tables wrong as MODE says, print "ready" and sleep
 * until killed:
 *   as-is       tables that describe nothing prof needs
 *   stride      the structs table's stride 4096 (past any JVM's)
 *   no-symbols  (LIB has none: a libjvm.so that is no HotSpot, or OpenJ9's name)
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	void *h;

	if (argc != 3) {
		fprintf(stderr, "usage: %s LIB MODE\n", argv[0]);
		return 2;
	}
	if (!(h = dlopen(argv[1], RTLD_NOW))) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	if (strcmp(argv[2], "stride") == 0) {
		uint64_t *stride = dlsym(h, "gHotSpotVMStructEntryArrayStride");

		if (!stride)
			return 1;
		*stride = 4096;
	}
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
