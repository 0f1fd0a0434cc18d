/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where an interpreter build with debug info keeps, at each pc of its eval function,
 * the locals that pin an activation's Python state: the current frame (`frame`, or
 * 3.11/3.12's `cframe.current_frame`), the code object (3.11's `first_instr`), the
 * running instruction (`next_instr`: the unit after it; 3.13's `this_instr`: it) and
 * 3.12+'s `entry_frame` (the activation's entry shim, on the C stack).
 *
 * Read once per build with libdw from the object's own .debug_info or the file its
 * build id names under /usr/lib/debug/.build-id: the variables of the eval
 * function's own scopes (its lexical blocks, not inlined functions), each location
 * list entry kept when it is one register (DW_OP_regN) or one stack slot relative to
 * the CFA (DW_OP_fbreg, the frame base being DW_OP_call_frame_cfa).  A register
 * given as one expression for the whole scope (no list: the DWARF of a function GCC
 * did not track variables in) pins nothing: the code reuses that register.  At a pc the
 * innermost scope's entry holds; anything else (a composite, an entry value, a pc
 * no entry covers) pins nothing there.
 *
 * The build's own DWARF also gives the offsets of _PyInterpreterFrame's and
 * PyCodeObject's members, which interp.c checks against the layout (layout.h).
 */
#ifndef PROF_PYTHON_DWARF_PINS_H
#define PROF_PYTHON_DWARF_PINS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <elfutils/libdw.h>
#include <libelf.h>

enum pin_kind {
	PIN_FRAME,              /* _PyInterpreterFrame * */
	PIN_CFRAME,             /* struct _PyCFrame (its address: fbreg only) */
	PIN_FIRST_INSTR,        /* code + co_code_adaptive */
	PIN_NEXT_INSTR,         /* the instruction after the running one */
	PIN_THIS_INSTR,         /* the running instruction */
	PIN_ENTRY_FRAME,        /* the entry shim's address (fbreg only) */
	PIN_F,                  /* 3.8-3.10: the activation's PyFrameObject * (parameter f) */
	PIN_CODE,               /* 3.8-3.10: its PyCodeObject * (co) */
	PIN_KINDS,
};

enum pin_op {
	PIN_NONE,
	PIN_REG,                /* the value is register reg + off */
	PIN_CFA_SLOT,           /* the value is the word at CFA + off */
	PIN_ENTRY_REG,          /* the value register reg had when the function was entered
				 * (DW_OP_entry_value: what its caller's call site passed) */
};

struct pin_loc {
	enum pin_op op;
	uint8_t reg;            /* DWARF number, 0-15 */
	int64_t off;
};

/* Member offsets as the build's DWARF has them, -1 where it has no such member. */
struct pin_offsets {
	int32_t f_code, f_previous, f_owner, f_is_entry, f_localsplus;
	int32_t co_qualname, co_filename, co_firstlineno, co_linetable, co_code_adaptive;
	int32_t co_stacksize, co_nlocalsplus;
	int32_t cframe_current;         /* _PyCFrame.current_frame */
	/* 3.8-3.10: PyFrameObject (struct _frame) and PyCodeObject's older members */
	int32_t fo_back, fo_code, fo_localsplus;
	int32_t co_code, co_name, co_lnotab, co_size;   /* co_size: sizeof(PyCodeObject);
							 * 3.10's co_linetable is co_linetable's */
};

struct python_pins;

/*
 * read(dbg, ctx) over the DWARF of the ELF elf itself, else (its -ENOENT: nothing
 * there, after reset(ctx) empties what it kept) over the debug file debug_path (NULL:
 * none).  read's result: 0, -ENOENT (no debug info says it), or its error.
 */
int python_dwarf__read(Elf *elf, const char *debug_path, int (*read)(Dwarf *dbg, void *ctx),
		       void (*reset)(void *ctx), void *ctx);

/*
 * The pins of the eval function at eval (its address as linked) of the ELF elf (its
 * own DWARF), else of the debug file debug_path (NULL: none).  0 with *ret (the
 * caller's, python_pins__free), -ENOENT when no debug info describes the function,
 * -E2BIG when it has more location entries than prof keeps, -ENOMEM.
 */
int python_pins__read(Elf *elf, const char *debug_path, uint64_t eval, struct python_pins **ret);
/* Another holder of p (pins are read-only once read): each holder frees its own. */
struct python_pins *python_pins__ref(struct python_pins *p);
struct python_pins *python_pins__free(struct python_pins *p);

/* Where kind is at pc (as linked): *ret, false when nothing pins it there. */
bool python_pins__at(const struct python_pins *p, enum pin_kind kind, uint64_t pc, struct pin_loc *ret);

const struct pin_offsets *python_pins__offsets(const struct python_pins *p);

/* The register N of op, a DW_OP_entry_value(DW_OP_regN) of attribute attr's
 * expression, or -1. */
int python_pins__entry_reg(Dwarf_Attribute *attr, const Dwarf_Op *op);

/* Add a location of kind over [lo, hi) (as linked) that outranks the DWARF's
 * (code_pins.h): 0, -E2BIG, -ENOMEM. */
int python_pins__add(struct python_pins *p, enum pin_kind kind, uint64_t lo, uint64_t hi, const struct pin_loc *loc);

/* Location entries kept, of kind (for tests and the docs' figures). */
size_t python_pins__count(const struct python_pins *p, enum pin_kind kind);

#endif
