/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Go's own function table, .gopclntab: every Go binary keeps it, stripped
 * (-ldflags="-s -w") or not, because the runtime needs it for tracebacks.  It maps
 * a pc to its function (name, start, end), file and line, for the header versions
 * Go 1.2-1.15 (magic 0xfffffffb), 1.16-1.17 (0xfffffffa), 1.18-1.19 (0xfffffff0) and
 * 1.20 and later (0xfffffff1); the layout is debug/gosym's (pclntab.go).
 *
 * A table is used only if it checks out whole (never a wrong name): its header
 * (quantum 1/2/4, pointer size 4/8, its sub-tables in order inside the bytes), the
 * text start inside the text given, and every function: entries ascending inside
 * the text, each _func inside the bytes naming the entry its slot has, its name a
 * string inside the name table.  Every read is bounds-checked: hostile bytes give
 * -EINVAL, never a read outside them (tests/fuzz/fuzz_gopclntab.c).
 *
 * The table reads the bytes it is given in place (the caller keeps them: a mapped
 * object's section).  Inlined frames (the funcdata inline trees) are read for Go
 * 1.16 and later's 64-bit tables found in an ELF object (gopclntab__inlined); in a
 * 1.2-1.15 table, or one whose trees are not found, a pc in inlined code is named
 * by the function it was inlined into.
 */
#ifndef PROF_ANALYZE_GOPCLNTAB_H
#define PROF_ANALYZE_GOPCLNTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gelf.h>

#define GOPCLNTAB_MAGIC_12 0xfffffffbu
#define GOPCLNTAB_MAGIC_116 0xfffffffau
#define GOPCLNTAB_MAGIC_118 0xfffffff0u
#define GOPCLNTAB_MAGIC_120 0xfffffff1u

struct gopclntab;

/*
 * The table in buf[0, len) (len may run past its end: to the end of the segment
 * it was found in), for code at [text_lo, text_hi).  text_start_hint is the .text
 * address, used when the header's text start is 0 (a position-independent build
 * relocates it at run time); 0 when not known.  0 with *ret (the caller's, to
 * gopclntab__free), -EINVAL when the bytes are not a table that checks out, -ENOMEM.
 */
int gopclntab__parse(const uint8_t *buf, size_t len, uint64_t text_lo, uint64_t text_hi, uint64_t text_start_hint,
		     struct gopclntab **ret);

/*
 * The table of an ELF object: its .gopclntab section, else (section headers
 * stripped too) the header magic found in a read-only PT_LOAD segment, checked as
 * above against the executable segments.  0, -ENOENT (no table, or none that checks
 * out), -ENOMEM.  elf must outlive the table.
 */
int gopclntab__from_elf(Elf *elf, struct gopclntab **ret);

struct gopclntab *gopclntab__free(struct gopclntab *t);

/* The header's magic (GOPCLNTAB_MAGIC_*). */
uint32_t gopclntab__magic(const struct gopclntab *t);

/* How many functions. */
size_t gopclntab__count(const struct gopclntab *t);

/* Function i: its [start, end) (ELF virtual addresses) and name (in the table's
 * bytes, NUL-terminated inside them).  false when i is out of range. */
bool gopclntab__func(const struct gopclntab *t, size_t i, uint64_t *ret_start, uint64_t *ret_end,
		     const char **ret_name);

/* The function containing pc, or SIZE_MAX. */
size_t gopclntab__find(const struct gopclntab *t, uint64_t pc);

/*
 * The file (in the table's bytes) and line of pc, from its function's pc-value
 * tables.  false when pc is in no function or its tables do not say (bad or
 * truncated varints, an index outside the file table).
 */
bool gopclntab__line(const struct gopclntab *t, uint64_t pc, const char **ret_file, int32_t *ret_line);

/*
 * The functions inlined at pc, innermost first, the function they are inlined into
 * (gopclntab__find's) not included: names in the object's bytes.  At most max are
 * written to ret; their count, 0 when pc is in no inlined call or the table's inline
 * tree is not known (a table not from gopclntab__from_elf, a Go 1.2-1.15 or 32-bit
 * table, 1.18+'s runtime module data not found) or does not check out.
 */
size_t gopclntab__inlined(const struct gopclntab *t, uint64_t pc, const char **ret, size_t max);

#endif
