/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The eval function's pins from the build's DWARF: see
 * include/prof/python/dwarf_pins.h.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prof/base/util.h"
#include "prof/base/vec.h"
#include "prof/python/dwarf_pins.h"

/* One scope's word on a kind over [lo, hi): a location, or none (a declaration
 * there whose location does not cover pc, or is not a form prof reads). */
struct pin_entry {
	uint64_t lo, hi;
	uint32_t rank;          /* 2 * scope depth, + 1 for a location */
	struct pin_loc loc;
};

struct pin_vec {
	struct pin_entry *v;
	size_t nr, cap;
};

struct python_pins {
	struct pin_vec k[PIN_KINDS];
	struct pin_offsets offs;
	uint32_t refs;                  /* holders beyond the first */
};

static const char *const kind_names[PIN_KINDS] = {
	[PIN_FRAME] = "frame", [PIN_CFRAME] = "cframe", [PIN_FIRST_INSTR] = "first_instr",
	[PIN_NEXT_INSTR] = "next_instr", [PIN_THIS_INSTR] = "this_instr", [PIN_ENTRY_FRAME] = "entry_frame",
	[PIN_F] = "f", [PIN_CODE] = "co",
};

/* Entries kept per kind at most: a build's DWARF is the tenant's file (CPython's
 * keep a few hundred). */
#define PINS_MAX (1u << 16)

static int add(struct pin_vec *pv, uint64_t lo, uint64_t hi, uint32_t rank, const struct pin_loc *loc)
{
	if (lo >= hi)
		return 0;
	if (pv->nr >= PINS_MAX)
		return -E2BIG;
	if (vec__reserve((void **)&pv->v, &pv->cap, pv->nr + 1, sizeof(*pv->v)) < 0)
		return -ENOMEM;
	pv->v[pv->nr++] = (struct pin_entry){ .lo = lo, .hi = hi, .rank = rank, .loc = *loc };
	return 0;
}

int python_pins__entry_reg(Dwarf_Attribute *attr, const Dwarf_Op *op)
{
	Dwarf_Attribute block;
	Dwarf_Op *e;
	size_t n;

	if ((op->atom != DW_OP_entry_value && op->atom != DW_OP_GNU_entry_value) ||
	    dwarf_getlocation_attr(attr, op, &block) != 0 || dwarf_getlocation(&block, &e, &n) != 0 || n != 1 ||
	    e[0].atom < DW_OP_reg0 || e[0].atom > DW_OP_reg15)
		return -1;
	return e[0].atom - DW_OP_reg0;
}

/* A location expression prof reads: one register, or one slot off the CFA, or the
 * value a register had at the function's entry (DW_OP_entry_value(DW_OP_regN),
 * DW_OP_stack_value: what a parameter never changed is, once its register is
 * reused). */
static struct pin_loc loc_of(Dwarf_Attribute *attr, const Dwarf_Op *e, size_t n)
{
	struct pin_loc l = { .op = PIN_NONE };

	if (n == 2 && e[1].atom == DW_OP_stack_value) {
		int reg = python_pins__entry_reg(attr, &e[0]);

		if (reg >= 0)
			l = (struct pin_loc){ .op = PIN_ENTRY_REG, .reg = (uint8_t)reg };
		return l;
	}
	if (n != 1)
		return l;
	if (e[0].atom >= DW_OP_reg0 && e[0].atom <= DW_OP_reg15)
		l = (struct pin_loc){ .op = PIN_REG, .reg = (uint8_t)(e[0].atom - DW_OP_reg0) };
	else if (e[0].atom == DW_OP_regx && e[0].number < 16)
		l = (struct pin_loc){ .op = PIN_REG, .reg = (uint8_t)e[0].number };
	else if (e[0].atom == DW_OP_fbreg)
		l = (struct pin_loc){ .op = PIN_CFA_SLOT, .off = (int64_t)e[0].number };
	return l;
}

/* Variable v (of kind) declared in scope (depth): its scope's ranges as "none" at
 * that depth, and each location list entry within them. */
static int note_var(struct python_pins *p, Dwarf_Die *scope, Dwarf_Die *v, enum pin_kind kind, uint32_t depth)
{
	Dwarf_Attribute attr;
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	Dwarf_Op *e;
	size_t n;
	int err;

	while ((off = dwarf_ranges(scope, off, &base, &lo, &hi)) > 0) {
		struct pin_loc none = { .op = PIN_NONE };
		ptrdiff_t loff = 0;
		Dwarf_Addr lb, llo, lhi;
		bool one;

		if ((err = add(&p->k[kind], lo, hi, 2 * depth, &none)) < 0)
			return err;
		if (!dwarf_attr_integrate(v, DW_AT_location, &attr))
			continue;
		/* one expression for the whole scope, not a list by pc */
		one = dwarf_whatform(&attr) == DW_FORM_exprloc || dwarf_whatform(&attr) == DW_FORM_block1 ||
		      dwarf_whatform(&attr) == DW_FORM_block;
		while ((loff = dwarf_getlocations(&attr, loff, &lb, &llo, &lhi, &e, &n)) > 0) {
			struct pin_loc l = loc_of(&attr, e, n);

			/*
			 * A register for the whole scope is what GCC says when it did no
			 * variable tracking (a function past its limit: pyenv's 3.13.0):
			 * the register its allocator first gave the variable, which the
			 * code reuses for other values (3.13.0's `frame` "in rbp" holds the
			 * value stack across deallocations; `tstate` "in rdi" is each
			 * call's first argument).  A stack slot (an addressed local, such
			 * as entry_frame) is its home for the whole scope and holds.
			 */
			if (one && l.op == PIN_REG)
				l.op = PIN_NONE;
			if (l.op != PIN_NONE &&
			    (err = add(&p->k[kind], MAX(lo, llo), MIN(hi, lhi), 2 * depth + 1, &l)) < 0)
				return err;
		}
	}
	return 0;
}

static int walk_scope(struct python_pins *p, Dwarf_Die *scope, uint32_t depth)
{
	Dwarf_Die c;
	int err;

	if (dwarf_child(scope, &c) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&c);

		if (tag == DW_TAG_lexical_block) {
			if ((err = walk_scope(p, &c, depth + 1)) < 0)
				return err;
		} else if (tag == DW_TAG_variable || tag == DW_TAG_formal_parameter) {
			Dwarf_Attribute a;
			const char *name = dwarf_formstring(dwarf_attr_integrate(&c, DW_AT_name, &a));

			for (int k = 0; name && k < PIN_KINDS; k++)
				if (strcmp(name, kind_names[k]) == 0 && (err = note_var(p, scope, &c, k, depth)) < 0)
					return err;
		}
		/* inlined functions' locals are theirs, not the eval loop's */
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

/* The data member offset of member name of struct die, or -1. */
static int32_t member(Dwarf_Die *st, const char *name)
{
	Dwarf_Die c;

	if (dwarf_child(st, &c) != 0)
		return -1;
	do {
		Dwarf_Attribute a;
		Dwarf_Word w;
		const char *n = dwarf_diename(&c);

		if (dwarf_tag(&c) == DW_TAG_member && n && strcmp(n, name) == 0 &&
		    dwarf_attr(&c, DW_AT_data_member_location, &a) && dwarf_formudata(&a, &w) == 0)
			return (int32_t)w;
	} while (dwarf_siblingof(&c, &c) == 0);
	return -1;
}

/* 3.8-3.10's PyCodeObject and struct _frame (3.8/3.9's PyCodeObject is a typedef
 * of an unnamed struct). */
static void old_offsets_of(struct pin_offsets *o, Dwarf_Die *c, const char *n)
{
	Dwarf_Attribute a;
	Dwarf_Word w;
	Dwarf_Die st;

	if (strcmp(n, "_frame") == 0) {
		o->fo_back = member(c, "f_back");
		o->fo_code = member(c, "f_code");
		o->fo_localsplus = member(c, "f_localsplus");
		return;
	}
	if (dwarf_tag(c) == DW_TAG_typedef) {
		if (!dwarf_formref_die(dwarf_attr(c, DW_AT_type, &a), &st) || dwarf_tag(&st) != DW_TAG_structure_type ||
		    dwarf_hasattr(&st, DW_AT_declaration))
			return;
		c = &st;
	}
	if (member(c, "co_code_adaptive") >= 0 || member(c, "co_code") < 0)
		return;
	o->co_code = member(c, "co_code");
	o->co_name = member(c, "co_name");
	o->co_lnotab = member(c, "co_lnotab");
	o->co_linetable = member(c, "co_linetable");
	o->co_filename = member(c, "co_filename");
	o->co_firstlineno = member(c, "co_firstlineno");
	o->co_stacksize = member(c, "co_stacksize");
	if (dwarf_attr(c, DW_AT_byte_size, &a) && dwarf_formudata(&a, &w) == 0)
		o->co_size = (int32_t)w;
}

/* The structures' member offsets, from the types of the eval function's CU. */
static void offsets_of(struct python_pins *p, Dwarf_Die *cu)
{
	struct pin_offsets *o = &p->offs;
	Dwarf_Die c;

	memset(o, 0xff, sizeof(*o));
	if (dwarf_child(cu, &c) != 0)
		return;
	do {
		const char *n = dwarf_diename(&c);
		int tag = dwarf_tag(&c);

		if (n && tag == DW_TAG_typedef && strcmp(n, "PyCodeObject") == 0)
			old_offsets_of(o, &c, n);
		if (tag != DW_TAG_structure_type || !n || dwarf_hasattr(&c, DW_AT_declaration))
			continue;
		if (strcmp(n, "_PyInterpreterFrame") == 0) {
			o->f_code = member(&c, "f_code");
			if (o->f_code < 0)
				o->f_code = member(&c, "f_executable");
			o->f_previous = member(&c, "previous");
			o->f_owner = member(&c, "owner");
			o->f_is_entry = member(&c, "is_entry");
			o->f_localsplus = member(&c, "localsplus");
		} else if (strcmp(n, "PyCodeObject") == 0) {
			o->co_qualname = member(&c, "co_qualname");
			o->co_filename = member(&c, "co_filename");
			o->co_firstlineno = member(&c, "co_firstlineno");
			o->co_linetable = member(&c, "co_linetable");
			o->co_code_adaptive = member(&c, "co_code_adaptive");
			o->co_stacksize = member(&c, "co_stacksize");
			o->co_nlocalsplus = member(&c, "co_nlocalsplus");
			old_offsets_of(o, &c, n);
		} else if (strcmp(n, "_PyCFrame") == 0) {
			o->cframe_current = member(&c, "current_frame");
		} else if (strcmp(n, "_frame") == 0) {
			old_offsets_of(o, &c, n);
		}
	} while (dwarf_siblingof(&c, &c) == 0);
}

/* The subprogram DIE of the function at eval in dbg, and its CU. */
static bool find_eval(Dwarf *dbg, uint64_t eval, Dwarf_Die *ret_cu, Dwarf_Die *ret_fn)
{
	Dwarf_Die c;

	if (!dwarf_addrdie(dbg, eval, ret_cu)) {
		Dwarf_Off off = 0, next;
		size_t hsize;
		bool found = false;

		while (!found && dwarf_nextcu(dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
			found = dwarf_offdie(dbg, off + hsize, ret_cu) && dwarf_haspc(ret_cu, eval) == 1;
			off = next;
		}
		if (!found)
			return false;
	}
	if (dwarf_child(ret_cu, &c) != 0)
		return false;
	do {
		Dwarf_Addr lo;

		const char *n;

		/* a function split hot and cold has ranges (no low pc) */
		if (dwarf_tag(&c) == DW_TAG_subprogram &&
		    ((dwarf_lowpc(&c, &lo) == 0 && lo == eval) ||
		     ((n = dwarf_diename(&c)) && strcmp(n, "_PyEval_EvalFrameDefault") == 0 &&
		      dwarf_haspc(&c, eval) == 1))) {
			*ret_fn = c;
			return true;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/* Is the function's frame base the CFA (what fbreg slots are relative to here)? */
static bool frame_base_is_cfa(Dwarf_Die *fn)
{
	Dwarf_Attribute a;
	Dwarf_Op *e;
	size_t n;

	return dwarf_attr_integrate(fn, DW_AT_frame_base, &a) && dwarf_getlocation(&a, &e, &n) == 0 && n == 1 &&
	       e[0].atom == DW_OP_call_frame_cfa;
}

static int read_pins(Dwarf *dbg, uint64_t eval, struct python_pins *p)
{
	Dwarf_Die cu, fn;
	int err;

	if (!find_eval(dbg, eval, &cu, &fn))
		return -ENOENT;
	offsets_of(p, &cu);
	err = walk_scope(p, &fn, 0);
	if (err < 0)
		return err;
	if (!frame_base_is_cfa(&fn)) {
		/* fbreg slots are not CFA-relative: keep registers only */
		for (int k = 0; k < PIN_KINDS; k++)
			for (size_t i = 0; i < p->k[k].nr; i++)
				if (p->k[k].v[i].loc.op == PIN_CFA_SLOT)
					p->k[k].v[i].loc.op = PIN_NONE;
	}
	return p->k[PIN_FRAME].nr || p->k[PIN_CFRAME].nr || p->k[PIN_F].nr ? 0 : -ENOENT;
}

int python_dwarf__read(Elf *elf, const char *debug_path, int (*read)(Dwarf *dbg, void *ctx),
		       void (*reset)(void *ctx), void *ctx)
{
	Dwarf *dbg = elf ? dwarf_begin_elf(elf, DWARF_C_READ, NULL) : NULL;
	int fd = -1, err = -ENOENT;

	if (dbg)
		err = read(dbg, ctx);
	if (err == -ENOENT && debug_path) {
		if (dbg)
			dwarf_end(dbg);
		dbg = NULL;
		reset(ctx);
		fd = open(debug_path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0 && (dbg = dwarf_begin(fd, DWARF_C_READ)))
			err = read(dbg, ctx);
	}
	if (dbg)
		dwarf_end(dbg);
	if (fd >= 0)
		close(fd);
	return err;
}

struct pins_read {
	struct python_pins *p;
	uint64_t eval;
};

static int pins_read(Dwarf *dbg, void *ctx)
{
	struct pins_read *r = ctx;

	return read_pins(dbg, r->eval, r->p);
}

static void pins_reset(void *ctx)
{
	struct python_pins *p = ((struct pins_read *)ctx)->p;

	for (int k = 0; k < PIN_KINDS; k++)
		p->k[k].nr = 0;
}

int python_pins__read(Elf *elf, const char *debug_path, uint64_t eval, struct python_pins **ret)
{
	struct python_pins *p = calloc(1, sizeof(*p));
	struct pins_read r = { .p = p, .eval = eval };
	int err;

	if (!p)
		return -ENOMEM;
	err = python_dwarf__read(elf, debug_path, pins_read, pins_reset, &r);
	if (err < 0) {
		python_pins__free(p);
		return err;
	}
	*ret = p;
	return 0;
}

struct python_pins *python_pins__ref(struct python_pins *p)
{
	if (p)
		p->refs++;
	return p;
}

struct python_pins *python_pins__free(struct python_pins *p)
{
	if (p && p->refs) {
		p->refs--;
		return NULL;
	}
	if (p) {
		for (int k = 0; k < PIN_KINDS; k++)
			free(p->k[k].v);
		free(p);
	}
	return NULL;
}

bool python_pins__at(const struct python_pins *p, enum pin_kind kind, uint64_t pc, struct pin_loc *ret)
{
	const struct pin_vec *pv = &p->k[kind];
	const struct pin_entry *best = NULL;

	for (size_t i = 0; i < pv->nr; i++) {
		const struct pin_entry *e = &pv->v[i];

		if (pc >= e->lo && pc < e->hi && (!best || e->rank > best->rank))
			best = e;
	}
	if (!best || best->loc.op == PIN_NONE)
		return false;
	*ret = best->loc;
	return true;
}

int python_pins__add(struct python_pins *p, enum pin_kind kind, uint64_t lo, uint64_t hi, const struct pin_loc *loc)
{
	return add(&p->k[kind], lo, hi, UINT32_MAX, loc);
}

const struct pin_offsets *python_pins__offsets(const struct python_pins *p)
{
	return &p->offs;
}

size_t python_pins__count(const struct python_pins *p, enum pin_kind kind)
{
	size_t n = 0;

	for (size_t i = 0; i < p->k[kind].nr; i++)
		n += p->k[kind].v[i].loc.op == PIN_REG || p->k[kind].v[i].loc.op == PIN_CFA_SLOT;
	return n;
}
