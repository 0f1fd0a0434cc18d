/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libctr.so of the container tests' program (container_app.c): inside the root only. */
#include <stdint.h>

__attribute__((noinline)) static uint64_t ctr_lib_step(uint64_t x, uint64_t i)
{
	return x * 31 + (i ^ (x >> 7));
}

__attribute__((noinline)) uint64_t ctr_lib_spin(uint64_t n)
{
	volatile uint64_t x = 3;

	for (uint64_t i = 0; i < n; i++)
		x = ctr_lib_step(x, i);
	return x;
}
