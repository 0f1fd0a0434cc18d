/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The shared library of the no-frame-pointer workload (record_dwarf.sh builds it
 * with -O2 -fomit-frame-pointer): lib_work() calls back into the program, then
 * burns time in lib_leaf().
 */
#include <stdint.h>

__attribute__((noinline)) uint64_t lib_leaf(uint64_t n)
{
	volatile uint64_t x = 0;

	for (uint64_t i = 0; i < n; i++)
		x += i * i;
	return x;
}

__attribute__((noinline)) uint64_t lib_work(uint64_t n, uint64_t (*cb)(uint64_t))
{
	return cb(n) + lib_leaf(n);
}
