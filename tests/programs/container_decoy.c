/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The host's decoys of the container tests (container.sh): another build at the
 * path where the container has its program (built as a program) or libctr.so (built
 * with -DDECOY_LIB -shared).  8 KiB of code come first, where the container's files
 * have their functions, so their offsets fall inside decoy_first here: a profiler
 * that reads this file for the container's samples names decoy_* (a wrong name).
 */
volatile unsigned long decoy_sink;

__attribute__((noinline)) void decoy_first(void)
{
	__asm__ volatile(".fill 8192, 1, 0x90");
	decoy_sink++;
}

__attribute__((noinline)) void decoy_second(void)
{
	decoy_sink += 2;
}

#ifndef DECOY_LIB
int main(void)
{
	decoy_first();
	decoy_second();
	return 0;
}
#endif
