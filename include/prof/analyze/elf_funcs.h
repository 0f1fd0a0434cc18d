/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An object's functions as perf names them, read from one libdwfl module: .symtab,
 * else .dynsym (from the file or its debug file), and its PLT stubs as "f@plt";
 * C++ names demangled without their parameters; one function per address (perf's
 * choice among aliases); a size-0 symbol running to the next, not past its section.
 * symbols.c reads each object it opens through this; the lookups stay there.
 */
#ifndef PROF_ANALYZE_ELF_FUNCS_H
#define PROF_ANALYZE_ELF_FUNCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <elfutils/libdwfl.h>

struct strset;

struct elf_func {
	uint64_t start, end;            /* module addresses (bias applied) */
	uint64_t sec_end;               /* the end of its section (0: not known) */
	const char *name;               /* interned; lean: the file's own until named */
	uint8_t bind;
	bool named;                     /* name is demangled and interned */
};

/*
 * The functions of mod sorted by start, names interned in names: how many, and in
 * *ret the array (the caller's to free), left untouched when none was made (no
 * symbol table nor PLT, or ENOMEM).  A name that fails to intern ends the list.
 * lean (a long-lived reader's, profd's): the names are the module's own strings, not
 * demangled (named false, valid while mod lives: the caller copies them), PLT stubs'
 * aside; among aliases the one their demangled names make perf choose.
 */
size_t elf_funcs__read(Dwfl_Module *mod, struct strset *names, bool lean, struct elf_func **ret);

/*
 * Go's own table (gopclntab.h) of an object without a .symtab (a Go binary built
 * with -ldflags="-s -w", or stripped): its functions that no function of
 * (*funcs)[0, n) covers are added, named as Go names them, and the whole sorted
 * again.  *funcs (n functions, the caller's, may be NULL when n is 0) is
 * reallocated; the new count, n when nothing was added (no table, none that checks
 * out, ENOMEM).  lean as for elf_funcs__read (the names are the file's own).
 * ret_table (may be NULL): the table, when one named functions or the object has
 * a .symtab besides (for its inline chains and lines; the caller's, to
 * gopclntab__free before mod's Dwfl ends: it reads mod's mapped bytes).
 */
struct gopclntab;
size_t elf_funcs__add_go(Dwfl_Module *mod, struct strset *names, bool lean, struct elf_func **funcs, size_t n,
			 struct gopclntab **ret_table);

/* name demangled as perf shows a C++ name ("ns::f", no parameters), interned in
 * names; a name that is not mangled, interned as it is.  NULL on ENOMEM. */
const char *elf_funcs__demangle(struct strset *names, const char *name);

#endif
