/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inline chains (symbols__inlined): from an object's DWARF, or a Go program's own
 * table, cached per object and address.
 */
#include <dwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof/base/hash.h"
#include "prof/base/util.h"
#include "prof/base/vec.h"
#include "symbols_impl.h"

static bool inl_eq(const void *entry, const void *key, const void *ctx)
{
	return ((const struct inl *)entry)->addr == *(const uint64_t *)key;
}

void symbols_inline__init(struct dso_entry *d)
{
	hashtable__init(&d->inl, sizeof(struct inl), inl_eq, NULL);
}

/* An inlined subroutine's name: its linkage name demangled, else its name (both
 * through DW_AT_abstract_origin), as "f (inlined)" the way perf shows it. */
static const char *inlined_name(struct symbols *s, Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
	char buf[512];

	if (!n)
		n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
	if (!n || !n[0])
		return NULL;
	n = elf_funcs__demangle(&s->names, n);
	if (!n)
		return NULL;
	snprintf(buf, sizeof(buf), "%s (inlined)", n);
	return strset__intern(&s->names, buf);
}

/*
 * The inline chain at module address a, innermost first, read from the DWARF (as
 * eu-addr2line -i): dwarf_getscopes finds the innermost inlined subroutine (past
 * it, it lists the inlined function's abstract definition), then the DIEs that
 * contain that one hold the rest, out to the concrete subprogram.
 */
/* A Go program's inline chain at module address a, from its own table. */
static size_t go_inline_lookup(struct symbols *s, struct dso_entry *d, uint64_t a, const char **ret, size_t max)
{
	const char *raw[SYMBOLS_INLINE_MAX];
	size_t n = gopclntab__inlined(d->go, a - d->bias, raw, MIN(max, (size_t)SYMBOLS_INLINE_MAX)), k = 0;
	char buf[512];

	for (size_t i = 0; i < n; i++) {
		snprintf(buf, sizeof(buf), "%s (inlined)", raw[i]);
		if (!(ret[k] = strset__intern(&s->names, buf)))
			return 0;       /* a chain with a gap would misname the callers */
		k++;
	}
	return k;
}

static size_t inline_lookup(struct symbols *s, struct dso_entry *d, uint64_t a, const char **ret, size_t max)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = dwfl_module_addrdie(d->mod, a, &bias);
	Dwarf_Die *scopes = NULL, *outer = NULL;
	int nr, i;
	size_t n = 0;

	if (d->go)
		return go_inline_lookup(s, d, a, ret, max);     /* Go's DWARF gives none here */
	if (!cu)
		return 0;
	nr = dwarf_getscopes(cu, a - bias, &scopes);
	for (i = 0; i < nr; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine)
			break;
	}
	if (i < nr && dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine) {
		nr = dwarf_getscopes_die(&scopes[i], &outer);
		for (i = 0; i < nr && n < max; i++) {
			int tag = dwarf_tag(&outer[i]);

			if (tag == DW_TAG_subprogram)
				break;
			if (tag != DW_TAG_inlined_subroutine)
				continue;
			ret[n] = inlined_name(s, &outer[i]);
			if (ret[n])
				n++;
		}
	}
	free(outer);
	free(scopes);
	return n;
}

/*
 * Keep a's chain and its names in the entry's pool: at most SYMBOLS_INLINE_CACHE
 * chains an object (past that, chains are read each time), not when out of memory.
 */
static void inline_keep(struct dso_entry *d, uint64_t a, const char **names, size_t n)
{
	struct inl *e;
	bool created;

	if (hashtable__size(&d->inl) >= SYMBOLS_INLINE_CACHE ||
	    VEC_RESERVE(d->inl_names, d->cap_inl_names, d->nr_inl_names + n) < 0)
		return;
	e = hashtable__insert(&d->inl, hash__u64(a), &a, &created);
	if (!e)
		return;
	if (n)
		memcpy(d->inl_names + d->nr_inl_names, names, n * sizeof(*names));
	*e = (struct inl){ .addr = a, .first = (uint32_t)d->nr_inl_names, .n = (uint8_t)n };
	d->nr_inl_names += n;
}

size_t symbols__inlined(struct symbols *s, const struct model_dso *o, uint64_t off, const char **ret, size_t max)
{
	const char *names[SYMBOLS_INLINE_MAX];
	const struct inl *cached;
	struct dso_entry *d;
	uint64_t a;
	size_t n;

	d = symbols__dso_addr(s, o, off, &a);
	if (!d || !d->mod || !max)
		return 0;
	cached = hashtable__find(&d->inl, hash__u64(a), &a);
	if (cached) {
		n = MIN((size_t)cached->n, max);
		if (n)
			memcpy(ret, d->inl_names + cached->first, n * sizeof(*ret));
		return n;
	}
	n = inline_lookup(s, d, a, names, SYMBOLS_INLINE_MAX);
	inline_keep(d, a, names, n);
	n = MIN(n, max);
	if (n)
		memcpy(ret, names, n * sizeof(*ret));
	return n;
}
