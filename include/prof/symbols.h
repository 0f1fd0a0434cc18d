/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Symbol lookup.  User space through elfutils' libdwfl (.symtab, .dynsym, build-id
 * and .gnu_debuglink debug files); the kernel through /proc/kallsyms, when the
 * recording host is this host.  A lookup that cannot be trusted (no file, a build id
 * that does not match) answers NULL: the caller shows [unknown], never a wrong name.
 */
#ifndef PROF_SYMBOLS_H
#define PROF_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct symbols;

struct symbols *symbols__new(void);
struct symbols *symbols__free(struct symbols *s);

/*
 * The function at file offset `off` of the ELF file `path` (as mapped by an MMAP2
 * record).  build_id (may be NULL) must match the file's when given.  The returned
 * name lives as long as s.  NULL when unknown.
 */
const char *symbols__user(struct symbols *s, const char *path, const uint8_t *build_id,
			  size_t build_id_len, uint64_t off);

/*
 * Load the running kernel's symbols from kallsyms text, relocated so that ref_addr
 * (the address of the reference symbol in the recording, e.g. _text) maps to this
 * kernel's.  0, or -ENOENT when the reference symbol is missing.
 */
int symbols__load_kallsyms(struct symbols *s, const char *kallsyms, const char *ref_name, uint64_t ref_addr);

/* The kernel function at addr, or NULL. */
const char *symbols__kernel(struct symbols *s, uint64_t addr);

#endif
