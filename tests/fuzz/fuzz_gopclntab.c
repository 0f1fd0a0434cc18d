/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: Go's .gopclntab reader (src/analyze/gopclntab.c) on hostile
 * bytes (a tenant's program is its tenant's).  The input: the text range (two
 * little-endian u64, low and high), then the table; or a whole ELF object (it
 * starts with its magic), read as prof reads one (the table by section or by
 * scanning, the inline tree through the runtime's module data).  What it answers
 * must stay inside the bytes: every function's name, the function, line and
 * inline chain of pcs across the text.  Built and run by tests/fuzz/run; seeded
 * with the table and the object of a Go program the run builds (when go is there).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gelf.h>

#include "prof/analyze/gopclntab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void walk(const struct gopclntab *t, uint64_t lo, uint64_t hi);

/* The input as an ELF object in memory, as libdwfl maps one. */
static void from_elf(const uint8_t *data, size_t size)
{
	char *copy = malloc(size);
	struct gopclntab *t = NULL;
	Elf *e;

	if (!copy)
		abort();
	memcpy(copy, data, size);
	elf_version(EV_CURRENT);
	e = elf_memory(copy, size);
	if (e && gopclntab__from_elf(e, &t) == 0) {
		uint64_t s, end;
		const char *name;

		if (gopclntab__func(t, 0, &s, &end, &name))
			walk(t, s, s + (1u << 20));
		gopclntab__free(t);
	}
	if (e)
		elf_end(e);
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gopclntab *t = NULL;
	uint64_t lo, hi;

	if (size >= 4 && !memcmp(data, "\177ELF", 4)) {
		from_elf(data, size);
		return 0;
	}
	if (size < 16)
		return 0;
	memcpy(&lo, data, 8);
	memcpy(&hi, data + 8, 8);
	if (gopclntab__parse(data + 16, size - 16, lo, hi, lo, &t) != 0)
		return 0;
	walk(t, lo, hi);
	gopclntab__free(t);
	return 0;
}

static void walk(const struct gopclntab *t, uint64_t lo, uint64_t hi)
{
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
		const char *file, *inl[8];
		int32_t line;
		size_t n;

		(void)gopclntab__find(t, pc);
		if (gopclntab__line(t, pc, &file, &line))
			(void)strlen(file);
		n = gopclntab__inlined(t, pc, inl, 8);
		for (size_t k = 0; k < n; k++)
			(void)strlen(inl[k]);
	}
}
