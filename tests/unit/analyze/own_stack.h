/* SPDX-License-Identifier: GPL-2.0-or-later */
/* For the unwinding tests: this process's own stack, copied as the kernel copies a
 * sample's user stack. */
#ifndef PROF_TESTS_OWN_STACK_H
#define PROF_TESTS_OWN_STACK_H

#include <stdint.h>
#include <stdio.h>
#include <criterion/criterion.h>

/* Copy the live stack as the kernel does: across other frames' (sanitizer) redzones. */
__attribute__((no_sanitize_address, noinline)) static void copy_stack(uint8_t *to, uint64_t from, uint64_t n)
{
	const volatile uint8_t *p = (const volatile uint8_t *)(uintptr_t)from;

	for (uint64_t i = 0; i < n; i++)
		to[i] = p[i];
}

/* Copy up to max bytes of the stack from sp into to, stopping at the top of the
 * stack as the kernel's copy does.  Returns the bytes copied. */
static inline uint64_t own_stack(uint8_t *to, uint64_t sp, uint64_t max)
{
	uint64_t top = 0, n;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	cr_assert(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && sp >= lo && sp < hi)
			top = hi;
	}
	fclose(f);
	cr_assert(top > sp);
	n = top - sp < max ? top - sp : max;
	copy_stack(to, sp, n);
	return n;
}

#endif
