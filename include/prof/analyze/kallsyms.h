/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The running kernel's functions, from /proc/kallsyms text, for a report of a
 * recording made on this host.  A table of (address, name) sorted by address; a
 * name is copied as it is read and interned the first time a lookup answers it
 * (most of kallsyms' 100,000 never are).  symbols.c holds one; nothing else does.
 */
#ifndef PROF_ANALYZE_KALLSYMS_H
#define PROF_ANALYZE_KALLSYMS_H

#include <stdint.h>

struct strset;
struct kallsyms;

/* An empty table whose names are interned in names (borrowed: it must outlive the
 * table); NULL on ENOMEM. */
struct kallsyms *kallsyms__new(struct strset *names);
/* NULL-safe; returns NULL. */
struct kallsyms *kallsyms__free(struct kallsyms *k);

/*
 * Add the functions (types t, T, w, W) of kallsyms text, relocated so that ref_addr
 * (the reference symbol's address in the recording, e.g. _text) maps to this
 * kernel's.  0, -ENOENT when the reference symbol is missing, or -ENOMEM.
 */
int kallsyms__load(struct kallsyms *k, const char *text, const char *ref_name, uint64_t ref_addr);

/* The function at the recording's address addr (interned in names), or NULL. */
const char *kallsyms__find(struct kallsyms *k, uint64_t addr);

#endif
