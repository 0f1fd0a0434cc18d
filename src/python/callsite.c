/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The call sites passing the eval function's frame (3.8-3.10): see
 * include/prof/python/callsite.h.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prof/base/hash.h"
#include "prof/base/vec.h"
#include "prof/python/callsite.h"
#include "prof/python/dwarf_pins.h"

/* Call sites kept at most: the object is the tenant's file. */
#define CALLSITES_MAX (1u << 20)

struct site {
	uint64_t ra;
	uint64_t origin;        /* hash of the callee's name, 0: an indirect call */
	uint64_t in;            /* hash of the enclosing function's name */
	bool tail, has;         /* a tail call; passes reg in a form prof reads */
	struct pin_loc v;
};

struct python_callsites {
	struct site *v;
	size_t nr, cap;
	/* functions that do not pass reg through unchanged in every call (by name hash) */
	uint64_t *not_through;
	size_t nr_nt, cap_nt;
	uint64_t *through;      /* ... and those all of whose calls are tail calls that do */
	size_t nr_t, cap_t;
};

struct walk {
	struct python_callsites *c;
	uint8_t reg;
	uint64_t fn;            /* the enclosing function's name hash */
	bool fn_cfa;            /* its frame base is the CFA */
	bool fn_all_calls;      /* DW_AT_call_all_calls: every call it makes is described */
};

static uint64_t name_hash(const char *n)
{
	return n ? hash__bytes(n, strlen(n)) | 1 : 0;
}

/* The value form of a call site parameter (or NONE).  A DW_AT_call_value is a DWARF
 * expression computing the value: DW_OP_bregN off is register N + off, DW_OP_fbreg
 * off with DW_OP_deref the word at CFA + off (a lone DW_OP_fbreg is an address on
 * the caller's stack, which no frame object is). */
static struct pin_loc value_of(Dwarf_Attribute *a, uint8_t reg, bool cfa)
{
	struct pin_loc l = { .op = PIN_NONE };
	Dwarf_Op *e;
	size_t n;

	if (dwarf_getlocation(a, &e, &n) != 0)
		return l;
	if (n == 2 && e[0].atom == DW_OP_fbreg && e[1].atom == DW_OP_deref && cfa)
		l = (struct pin_loc){ .op = PIN_CFA_SLOT, .off = (int64_t)e[0].number };
	else if (n == 1 && e[0].atom >= DW_OP_breg0 && e[0].atom <= DW_OP_breg15)
		l = (struct pin_loc){ .op = PIN_REG, .reg = (uint8_t)(e[0].atom - DW_OP_breg0),
				      .off = (int64_t)e[0].number };
	else if (n == 1 && python_pins__entry_reg(a, &e[0]) == reg)
		l = (struct pin_loc){ .op = PIN_ENTRY_REG, .reg = reg };
	return l;
}

/* Does location attribute a name register reg (DW_OP_regN)? */
static bool is_reg(Dwarf_Attribute *a, uint8_t reg)
{
	Dwarf_Op *e;
	size_t n;

	return dwarf_getlocation(a, &e, &n) == 0 && n == 1 && e[0].atom == DW_OP_reg0 + reg;
}

static int add_u64(uint64_t **v, size_t *nr, size_t *cap, uint64_t x)
{
	if (vec__reserve((void **)v, cap, *nr + 1, sizeof(**v)) < 0)
		return -ENOMEM;
	(*v)[(*nr)++] = x;
	return 0;
}

static int note_site(struct walk *w, Dwarf_Die *cs)
{
	struct python_callsites *c = w->c;
	Dwarf_Attribute a;
	Dwarf_Addr ra;
	Dwarf_Die p, o;
	struct site s = { .in = w->fn };

	if ((!dwarf_attr(cs, DW_AT_call_return_pc, &a) && !dwarf_attr(cs, DW_AT_low_pc, &a)) ||
	    dwarf_formaddr(&a, &ra) != 0)
		return 0;
	s.ra = ra;
	s.tail = dwarf_hasattr(cs, DW_AT_call_tail_call) || dwarf_hasattr(cs, DW_AT_GNU_tail_call);
	if ((dwarf_attr(cs, DW_AT_call_origin, &a) || dwarf_attr(cs, DW_AT_abstract_origin, &a)) &&
	    dwarf_formref_die(&a, &o))
		s.origin = name_hash(dwarf_diename(&o));
	if (dwarf_child(cs, &p) == 0) {
		do {
			if ((dwarf_tag(&p) == DW_TAG_call_site_parameter ||
			     dwarf_tag(&p) == DW_TAG_GNU_call_site_parameter) &&
			    dwarf_attr(&p, DW_AT_location, &a) && is_reg(&a, w->reg) &&
			    (dwarf_attr(&p, DW_AT_call_value, &a) || dwarf_attr(&p, DW_AT_GNU_call_site_value, &a))) {
				s.v = value_of(&a, w->reg, w->fn_cfa);
				s.has = s.v.op != PIN_NONE;
			}
		} while (dwarf_siblingof(&p, &p) == 0);
	}
	/* a function passing reg through: only tail calls, each with reg's entry value */
	if (w->fn && (!s.tail || !s.has || s.v.op != PIN_ENTRY_REG) &&
	    add_u64(&c->not_through, &c->nr_nt, &c->cap_nt, w->fn) < 0)
		return -ENOMEM;
	if (!s.has || s.tail)
		return 0;
	if (c->nr >= CALLSITES_MAX)
		return -E2BIG;
	if (vec__reserve((void **)&c->v, &c->cap, c->nr + 1, sizeof(*c->v)) < 0)
		return -ENOMEM;
	c->v[c->nr++] = s;
	return 0;
}

static bool frame_base_is_cfa(Dwarf_Die *fn)
{
	Dwarf_Attribute a;
	Dwarf_Op *e;
	size_t n;

	return dwarf_attr_integrate(fn, DW_AT_frame_base, &a) && dwarf_getlocation(&a, &e, &n) == 0 && n == 1 &&
	       e[0].atom == DW_OP_call_frame_cfa;
}

static int walk_die(struct walk *w, Dwarf_Die *d)
{
	Dwarf_Die c;
	int err;

	if (dwarf_child(d, &c) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&c);

		if (tag == DW_TAG_subprogram) {
			struct walk in = *w;

			if (!dwarf_hasattr(&c, DW_AT_low_pc) && !dwarf_hasattr(&c, DW_AT_ranges))
				continue;       /* a declaration or an abstract instance */
			in.fn = name_hash(dwarf_diename(&c));
			in.fn_cfa = frame_base_is_cfa(&c);
			in.fn_all_calls = dwarf_hasattr(&c, DW_AT_call_all_calls) ||
					  dwarf_hasattr(&c, DW_AT_GNU_all_call_sites);
			if (in.fn && !in.fn_all_calls &&
			    add_u64(&w->c->not_through, &w->c->nr_nt, &w->c->cap_nt, in.fn) < 0)
				return -ENOMEM;
			if (in.fn && in.fn_all_calls && add_u64(&w->c->through, &w->c->nr_t, &w->c->cap_t, in.fn) < 0)
				return -ENOMEM;
			if ((err = walk_die(&in, &c)) < 0)
				return err;
		} else if (tag == DW_TAG_call_site || tag == DW_TAG_GNU_call_site) {
			if ((err = note_site(w, &c)) < 0)
				return err;
		} else if (tag == DW_TAG_lexical_block || tag == DW_TAG_inlined_subroutine) {
			if ((err = walk_die(w, &c)) < 0)
				return err;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_site(const void *a, const void *b)
{
	return cmp_u64(&((const struct site *)a)->ra, &((const struct site *)b)->ra);
}

static bool has(const uint64_t *v, size_t nr, uint64_t x)
{
	return nr && bsearch(&x, v, nr, sizeof(*v), cmp_u64);
}

/* Keep the sites whose callee is eval, passes reg through, or is not known. */
static void keep(struct python_callsites *c, uint64_t eval)
{
	size_t n = 0;

	qsort(c->not_through, c->nr_nt, sizeof(uint64_t), cmp_u64);
	for (size_t i = 0; i < c->nr_t; i++)
		if (has(c->not_through, c->nr_nt, c->through[i]))
			c->through[i] = 0;
	qsort(c->through, c->nr_t, sizeof(uint64_t), cmp_u64);
	for (size_t i = 0; i < c->nr; i++) {
		const struct site *s = &c->v[i];

		if (!s->origin || s->origin == eval || (s->origin && has(c->through, c->nr_t, s->origin)))
			c->v[n++] = *s;
	}
	c->nr = n;
	qsort(c->v, c->nr, sizeof(*c->v), cmp_site);
}

static int read_all(Dwarf *dbg, struct python_callsites *c, uint8_t reg)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	int err;

	while (dwarf_nextcu(dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		struct walk w = { .c = c, .reg = reg };

		if (dwarf_offdie(dbg, off + hsize, &cu) && (err = walk_die(&w, &cu)) < 0)
			return err;
		off = next;
	}
	return c->nr ? 0 : -ENOENT;
}

struct callsites_read {
	struct python_callsites *c;
	uint8_t reg;
};

static int callsites_read(Dwarf *dbg, void *ctx)
{
	struct callsites_read *r = ctx;

	return read_all(dbg, r->c, r->reg);
}

static void callsites_reset(void *ctx)
{
	struct python_callsites *c = ((struct callsites_read *)ctx)->c;

	c->nr = c->nr_nt = c->nr_t = 0;
}

int python_callsites__read(Elf *elf, const char *debug_path, uint8_t reg, const char *eval,
			   struct python_callsites **ret)
{
	struct python_callsites *c = calloc(1, sizeof(*c));
	struct callsites_read r = { .c = c, .reg = reg };
	int err;

	if (!c)
		return -ENOMEM;
	err = python_dwarf__read(elf, debug_path, callsites_read, callsites_reset, &r);
	if (err == 0)
		keep(c, name_hash(eval));
	free(c->not_through);
	free(c->through);
	c->not_through = c->through = NULL;
	if (err < 0) {
		python_callsites__free(c);
		return err;
	}
	*ret = c;
	return 0;
}

struct python_callsites *python_callsites__free(struct python_callsites *c)
{
	if (c) {
		free(c->v);
		free(c->not_through);
		free(c->through);
		free(c);
	}
	return NULL;
}

bool python_callsites__find(const struct python_callsites *c, uint64_t ra, struct pin_loc *ret)
{
	size_t lo = 0, hi = c->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->v[mid].ra < ra)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* two sites at one return address (inlined copies): only when they agree */
	if (lo >= c->nr || c->v[lo].ra != ra ||
	    (lo + 1 < c->nr && c->v[lo + 1].ra == ra &&
	     (c->v[lo + 1].v.op != c->v[lo].v.op || c->v[lo + 1].v.reg != c->v[lo].v.reg ||
	      c->v[lo + 1].v.off != c->v[lo].v.off)))
		return false;
	*ret = c->v[lo].v;
	return true;
}

size_t python_callsites__count(const struct python_callsites *c)
{
	return c->nr;
}
