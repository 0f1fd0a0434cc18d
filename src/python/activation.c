/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A sample's activations of the eval function (python_internal.h), and what its
 * stack copy pins of each: the frame, code object and instruction, where the layout
 * puts them, or the build's DWARF (in a register the unwinding recovered, a stack
 * slot, or what its caller's call site passed).
 */
#include <string.h>

#include "prof/base/util.h"
#include "prof/python/callsite.h"
#include "prof/python/dwarf_pins.h"
#include "prof/python/interp.h"
#include "python_internal.h"

/* The word at addr of the sample's stack copy. */
bool python__stack_word(const struct sample *s, uint64_t sp, uint64_t addr, uint64_t *ret)
{
	uint64_t len = MIN(s->stack_user.dyn_size, s->stack_user.size);

	if (addr < sp || addr - sp > len || len - (addr - sp) < 8)
		return false;
	memcpy(ret, (const uint8_t *)s->stack_user.data + (addr - sp), 8);
	return true;
}

/* The value of pin kind k of activation a (native frame i at pc) where the build's
 * DWARF puts it: a register the unwinder knows for that frame, or a word of the
 * stack copy (want_addr: the slot's address itself).  False when not pinned. */
static bool pinned(const struct interp *in, const struct sample *s, const uint64_t *sps,
		   const struct unwind_regs *regs, size_t i, uint64_t pc, uint64_t cfa, enum pin_kind k,
		   int64_t add, bool want_addr, uint64_t *ret)
{
	struct pin_loc loc;

	if (!python_pins__at(in->pins, k, pc - in->bias, &loc) || (loc.op != PIN_REG && loc.op != PIN_CFA_SLOT))
		return false;
	if (loc.op == PIN_REG) {
		if (want_addr || !regs || i >= UNWIND_MAX_FRAMES || !(regs->known[i] & (1u << loc.reg)))
			return false;
		*ret = regs->v[i][loc.reg] + (uint64_t)loc.off;
		return true;
	}
	if (!cfa)
		return false;
	if (want_addr) {
		*ret = cfa + (uint64_t)loc.off;
		return true;
	}
	return python__stack_word(s, sps[0], cfa + (uint64_t)(loc.off + add), ret);
}

/* Activation a's frame, code and instruction as the build's DWARF pins them at its
 * pc (an outer frame's: its call instruction's, before its return address). */
static void activation_dwarf(const struct interp *in, const struct sample *s, const uint64_t *ips,
			     const uint64_t *sps, const struct unwind_regs *regs, struct activation *a)
{
	const struct python_layout *l = in->l;
	const struct pin_offsets *o = python_pins__offsets(in->pins);
	size_t i = a->at;
	uint64_t pc = i ? ips[i] - 1 : ips[i], cfa = a->cfa, v;

	/* cframe.current_frame is stored with frame at each call and return */
	if (!pinned(in, s, sps, regs, i, pc, cfa, PIN_FRAME, 0, false, &a->frame) &&
	    !(o->cframe_current >= 0 &&
	      pinned(in, s, sps, regs, i, pc, cfa, PIN_CFRAME, o->cframe_current, false, &a->frame)))
		a->frame = 0;
	if (pinned(in, s, sps, regs, i, pc, cfa, PIN_FIRST_INSTR, 0, false, &v) && v >= l->co_code_adaptive)
		a->code = v - l->co_code_adaptive;
	if (pinned(in, s, sps, regs, i, pc, cfa, PIN_THIS_INSTR, 0, false, &v))
		a->pin.instr = v;
	else if (pinned(in, s, sps, regs, i, pc, cfa, PIN_NEXT_INSTR, 0, false, &v) && v >= 2)
		a->pin.instr = v - 2, a->pin.before_next = true;      /* the running instruction's unit */
	if (!pinned(in, s, sps, regs, i, pc, cfa, PIN_ENTRY_FRAME, 0, true, &a->pin.entry_frame))
		a->pin.entry_frame = 0;
	if (!a->frame)
		a->code = 0;
}

/* The value register reg had when native frame j's function was entered: what its
 * caller (frame j + 1) passed there, by the caller's call site (callsite.h), in its
 * registers as the unwinding recovered them at its call, or its stack slots; or
 * the caller's own entry value, one caller up (depth bounds the chain). */
static bool entry_value(const struct interp *in, const struct sample *s, const uint64_t *ips, const uint64_t *sps,
			const struct unwind_regs *regs, size_t nr, size_t j, uint8_t reg, int depth, uint64_t *ret)
{
	size_t k = j + 1;
	struct pin_loc loc;
	uint64_t cfa;

	if (depth > 4 || k >= nr || k >= UNWIND_MAX_FRAMES || ips[k] < in->text_lo || ips[k] >= in->text_hi ||
	    !python_callsites__find(in->calls, ips[k] - in->bias, &loc))
		return false;
	switch (loc.op) {
	case PIN_REG:
		if (!regs || !(regs->known[k] & (1u << loc.reg)))
			return false;
		*ret = regs->v[k][loc.reg] + (uint64_t)loc.off;
		return true;
	case PIN_CFA_SLOT:
		cfa = k + 1 < nr ? sps[k + 1] : 0;
		return cfa && python__stack_word(s, sps[0], cfa + (uint64_t)loc.off, ret);
	case PIN_ENTRY_REG:
		return loc.reg == reg && entry_value(in, s, ips, sps, regs, nr, k, reg, depth + 1, ret);
	default:
		return false;
	}
}

/* 3.8-3.10 (frame_old.h): activation a's f where the build's DWARF puts it at its
 * pc (or its caller's call site, for f's entry value), and co, first_instr and
 * next_instr where it gives them there. */
static void activation_old(const struct interp *in, const struct sample *s, const uint64_t *ips,
			   const uint64_t *sps, const struct unwind_regs *regs, size_t nr, struct activation *a)
{
	size_t i = a->at;
	uint64_t pc = i ? ips[i] - 1 : ips[i], cfa = a->cfa, v;
	struct pin_loc loc;

	if (python_pins__at(in->pins, PIN_F, pc - in->bias, &loc) && loc.op == PIN_ENTRY_REG) {
		if (loc.reg != in->f_reg || !entry_value(in, s, ips, sps, regs, nr, i, loc.reg, 0, &a->frame))
			a->frame = 0;
	} else if (!pinned(in, s, sps, regs, i, pc, cfa, PIN_F, 0, false, &a->frame)) {
		a->frame = 0;
	}
	if (pinned(in, s, sps, regs, i, pc, cfa, PIN_CODE, 0, false, &v))
		a->code = v;
	if (pinned(in, s, sps, regs, i, pc, cfa, PIN_FIRST_INSTR, 0, false, &v))
		a->pin.first_instr = v;
	if (pinned(in, s, sps, regs, i, pc, cfa, PIN_NEXT_INSTR, 0, false, &v) && v >= 2)
		a->pin.instr = v - 2, a->pin.before_next = true;
	if (!a->frame)
		a->code = 0;
}

/* The activations of a sample's native frames, innermost first (at most max). */
size_t python__activations(const struct interp *in, const struct sample *s, const uint64_t *ips,
			   const uint64_t *sps, const struct unwind_regs *regs, size_t nr, struct activation *out,
			   size_t max)
{
	const struct python_layout *l = in->l;
	size_t n = 0;

	for (size_t i = 0; i < nr && n < max; i++) {
		uint64_t ip = ips[i], cfa, first_instr = 0;
		struct activation *a;

		if (ip < in->eval_lo || ip >= in->eval_hi)
			continue;
		a = &out[n++];
		*a = (struct activation){ .at = i };
		/* the slots hold this activation's only after its prologue stored them */
		if (i == 0 && ip < in->eval_lo + MAX(in->stored_by, 0xc0u))
			continue;
		cfa = a->cfa = i + 1 < nr ? sps[i + 1] : 0;
		if (l->old) {
			activation_old(in, s, ips, sps, regs, nr, a);
			continue;
		}
		if (in->pins) {
			activation_dwarf(in, s, ips, sps, regs, a);
			continue;
		}
		if (!cfa || !python__stack_word(s, sps[0], cfa - in->cfa_frame, &a->frame) ||
		    !python__stack_word(s, sps[0], cfa - in->cfa_first_instr, &first_instr) ||
		    first_instr < l->co_code_adaptive)
			a->frame = 0;
		else
			a->code = first_instr - l->co_code_adaptive;
	}
	return n;
}
