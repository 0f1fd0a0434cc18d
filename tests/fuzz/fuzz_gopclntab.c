/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: Go's .gopclntab reader (src/analyze/gopclntab.c) on hostile
 * bytes (a tenant's program is its tenant's).  The input: the text range (two
 * little-endian u64, low and high), then the table.  What it answers must stay
 * inside the bytes: every function's name, the function and the line of pcs
 * across the text.  Built and run by tests/fuzz/run; seeded with the table of a Go
 * program the run builds (when go is there).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "prof/analyze/gopclntab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gopclntab *t = NULL;
	uint64_t lo, hi;

	if (size < 16)
		return 0;
	memcpy(&lo, data, 8);
	memcpy(&hi, data + 8, 8);
	if (gopclntab__parse(data + 16, size - 16, lo, hi, lo, &t) != 0)
		return 0;
	for (size_t i = 0; i < gopclntab__count(t); i++) {
		uint64_t s, e;
		const char *name, *file;
		int32_t line;

		if (!gopclntab__func(t, i, &s, &e, &name))
			abort();        /* a table that checked out has every function */
		(void)strlen(name);
		if (gopclntab__find(t, s) != i)
			abort();
		if (gopclntab__line(t, s, &file, &line))
			(void)strlen(file);
	}
	for (uint64_t pc = lo; pc < hi && pc - lo < (1u << 20); pc += 61) {
		const char *file;
		int32_t line;

		(void)gopclntab__find(t, pc);
		if (gopclntab__line(t, pc, &file, &line))
			(void)strlen(file);
	}
	gopclntab__free(t);
	return 0;
}
