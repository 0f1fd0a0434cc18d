/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CPython 3.8-3.10: what each caller passed as the eval function's frame.
 *
 * Their _PyEval_EvalFrameDefault never changes its parameter f, and its DWARF says
 * so over most of the function: "the value the register had at entry"
 * (DW_OP_entry_value), the register being reused.  That value is the caller's:
 * its call site (DW_TAG_call_site, by its return address, which the unwinding
 * gives) says what it passed in that register (DW_AT_call_value), in terms of
 * its own callee-saved registers or stack slots, which the unwinding recovers as
 * they were at the call.  Kept from the object's DWARF, for one register:
 *   - call sites whose callee is the eval function, or a function all of whose
 *     calls are tail calls passing that register on unchanged
 *     (3.8's PyEval_EvalFrameEx), or an indirect call (3.9/3.10's
 *     tstate->interp->eval_frame(...));
 *   - whose value is register + offset (DW_OP_bregN), the word in a slot off the
 *     caller's CFA (DW_OP_fbreg, DW_OP_deref, its frame base being the CFA), or
 *     the caller's own entry value of that same register (DW_OP_entry_value: one
 *     more caller up).
 * Anything else pins nothing.
 */
#ifndef PROF_PYTHON_CALLSITE_H
#define PROF_PYTHON_CALLSITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <libelf.h>

#include "prof/python/dwarf_pins.h"

struct python_callsites;

/*
 * The call sites of the object (elf, else the debug file debug_path) passing reg
 * (a DWARF register number) to the function named eval.  0 with *ret (the caller's,
 * python_callsites__free), -ENOENT when its DWARF has none, -E2BIG, -ENOMEM.
 */
int python_callsites__read(Elf *elf, const char *debug_path, uint8_t reg, const char *eval,
			   struct python_callsites **ret);
struct python_callsites *python_callsites__free(struct python_callsites *c);

/*
 * What the call whose return address is ra (as linked) passed: *ret with op
 * PIN_REG (register reg + off), PIN_CFA_SLOT (the word at the caller's CFA + off)
 * or PIN_ENTRY_REG (the caller's own entry value of reg); false when none is kept.
 */
bool python_callsites__find(const struct python_callsites *c, uint64_t ra, struct pin_loc *ret);

size_t python_callsites__count(const struct python_callsites *c);

#endif
