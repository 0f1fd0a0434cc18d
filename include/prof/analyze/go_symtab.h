/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What perf needs to name a stripped Go program: a debug file that is a symbol
 * table only, made from the program's own .gopclntab (gopclntab.h), kept in perf's
 * build-id cache under the program's build id (build_id_cache__add_debug), where
 * perf report finds it (.build-id/xx/yyyy/debug) and checks its build id.
 *
 * The file: the program's ELF header (class, machine, type) and PT_LOAD program
 * headers (perf maps a symbol's address to a file offset by them), a PT_NOTE and
 * .note.gnu.build-id with the build id, a .text section header with the program's
 * .text address and offset (its bytes are not there), and .symtab/.strtab: one
 * STT_FUNC symbol a function, its start and size.  64-bit objects only.
 *
 * A program needs a GNU build id for this: perf looks debug files up by it.  Go's
 * own linker writes one only when asked (-ldflags=-B ...); external linking (cgo)
 * writes one by default.  Without one, prof report names the program all the same.
 */
#ifndef PROF_ANALYZE_GO_SYMTAB_H
#define PROF_ANALYZE_GO_SYMTAB_H

#include <stddef.h>
#include <stdint.h>
#include <gelf.h>

#include "prof/perfdata/build_id.h"
#include "prof/perfdata/build_id_cache.h"

struct gopclntab;

/* Write the symbol-table ELF of elf (its table t, build id b) to fd (empty, at
 * offset 0).  Its size, or -errno (-ENOTSUP: not a 64-bit ELF). */
int64_t go_symtab__write(int fd, Elf *elf, const struct gopclntab *t, const struct build_id *b);

/*
 * For each object of a recording's HEADER_BUILD_ID records (build_ids, len bytes)
 * that is a Go program without a .symtab (read as the user: its copy in the cache,
 * else its path, with that build id), keep the symbol-table ELF as its debug file
 * in c.  Best effort: how many were kept (or found there already).
 */
size_t go_symtab__keep(struct build_id_cache *c, const void *build_ids, size_t len);

#endif
