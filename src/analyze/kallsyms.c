/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prof/analyze/kallsyms.h"
#include "prof/base/strset.h"
#include "prof/base/util.h"
#include "prof/base/vec.h"

/* A kernel function: its name is copied from kallsyms as it is read, and interned
 * the first time a sample names it (most of kallsyms' 100,000 never are). */
struct ksym {
	uint64_t addr;
	const char *name;               /* interned; NULL until asked */
	uint32_t off, len;              /* of the name in ktext */
};

struct kallsyms {
	struct strset *names;           /* the owner's, where an answered name is interned */
	struct ksym *ksyms;
	size_t nr_ksyms, cap_ksyms;
	char *ktext;                    /* the names of ksyms, one after the other */
	size_t nr_ktext, cap_ktext;
	int64_t kshift;                 /* this kernel's address minus the recording's */
};

struct kallsyms *kallsyms__new(struct strset *names)
{
	struct kallsyms *k = calloc(1, sizeof(*k));

	if (k)
		k->names = names;
	return k;
}

struct kallsyms *kallsyms__free(struct kallsyms *k)
{
	if (!k)
		return NULL;
	free(k->ksyms);
	free(k->ktext);
	free(k);
	return NULL;
}

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;
	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* The hexadecimal number text starts with (16 digits at most) and where it ends
 * (text when it has none): strtoull's answer for kallsyms' addresses, without its
 * locale and base handling. */
static uint64_t parse_hex(const char *text, const char **ret_end)
{
	uint64_t v = 0;
	const char *p = text;

	for (; p - text < 16; p++) {
		unsigned c = (unsigned char)*p, d;

		if (c - '0' < 10)
			d = c - '0';
		else if ((c | 0x20) - 'a' < 6)
			d = (c | 0x20) - 'a' + 10;
		else
			break;
		v = v << 4 | d;
	}
	*ret_end = p;
	return v;
}

/* One function of kallsyms, its name copied to ktext.  0 or -ENOMEM. */
static int ksym_add(struct kallsyms *k, uint64_t addr, const char *name, size_t len)
{
	if (len > UINT32_MAX || k->nr_ktext + len > UINT32_MAX)
		return -ENOMEM;
	if (VEC_RESERVE(k->ksyms, k->cap_ksyms, k->nr_ksyms + 1) < 0 ||
	    VEC_RESERVE(k->ktext, k->cap_ktext, k->nr_ktext + len) < 0)
		return -ENOMEM;
	memcpy(k->ktext + k->nr_ktext, name, len);
	k->ksyms[k->nr_ksyms++] = (struct ksym){ .addr = addr, .off = (uint32_t)k->nr_ktext, .len = (uint32_t)len };
	k->nr_ktext += len;
	return 0;
}

/* The functions are sorted already in most kallsyms: the sort (stable in glibc, as
 * its merge sort is at this size) is then skipped. */
static void ksyms_sort(struct kallsyms *k)
{
	for (size_t i = 1; i < k->nr_ksyms; i++) {
		if (k->ksyms[i].addr < k->ksyms[i - 1].addr) {
			qsort(k->ksyms, k->nr_ksyms, sizeof(*k->ksyms), cmp_ksym);
			return;
		}
	}
}

int kallsyms__load(struct kallsyms *k, const char *text, const char *ref_name, uint64_t ref_addr)
{
	size_t ref_len = strlen(ref_name);
	uint64_t here = 0;

	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n'), *end = nl ? nl : line + strlen(line);
		/* "addr type name[\t[module]]", parsed in place: sscanf would measure the
		 * whole remaining text on every call */
		const char *p, *name, *tab;
		uint64_t addr = parse_hex(line, &p);

		name = p + 3;
		if (p > line && p + 3 <= end && p[0] == ' ' && p[2] == ' ') {
			char type = p[1];
			size_t nlen;

			tab = memchr(name, '\t', (size_t)(end - name));
			nlen = (size_t)((tab ? tab : end) - name);
			if (nlen == ref_len && !memcmp(name, ref_name, nlen))
				here = addr;
			if ((type == 't' || type == 'T' || type == 'w' || type == 'W') && ksym_add(k, addr, name, nlen) < 0)
				return -ENOMEM;
		}
		line = nl ? nl + 1 : NULL;
	}
	if (!here)
		return -ENOENT;
	ksyms_sort(k);
	k->kshift = (int64_t)(here - ref_addr);
	return 0;
}

const char *kallsyms__find(struct kallsyms *k, uint64_t addr)
{
	size_t i = sorted_find_le(k->ksyms, k->nr_ksyms, addr, addr + (uint64_t)k->kshift);
	struct ksym *f = i == SIZE_MAX ? NULL : &k->ksyms[i];

	if (f && !f->name)
		f->name = strset__intern_n(k->names, k->ktext + f->off, f->len);
	return f ? f->name : NULL;
}
