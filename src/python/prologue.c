/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * 3.11's stack-copy slots from the eval function's prologue: see
 * include/prof/python/prologue.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "prof/python/prologue.h"

/* What a register holds, as far as the straight line from the start says. */
enum val_kind { V_NONE, V_TSTATE, V_FRAME, V_CODE, V_FIRST, V_STACK };

struct val {
	enum val_kind kind;
	int64_t off;                    /* V_STACK: its distance from the CFA (negative) */
};

#define RSP 4
#define MAX_PROLOGUE 1024

/* One instruction's decoded operands. */
struct insn {
	bool p66, rep, w, two, mem_known;
	uint8_t op, mod, reg, rm;       /* reg, rm with their REX bits */
	int base;                       /* the memory operand's base register, -1: none */
	int64_t disp, imm;
};

struct decoder {
	const uint8_t *c;
	size_t len, i;
	struct val v[16];
	const struct python_layout *l;
	int64_t cframe, first_instr;    /* CFA-relative, 0: not stored yet */
};

static bool byte(struct decoder *d, uint8_t *ret)
{
	if (d->i >= d->len)
		return false;
	*ret = d->c[d->i++];
	return true;
}

static bool imm(struct decoder *d, int size, int64_t *ret)
{
	int64_t v = 0;

	if (d->i + (size_t)size > d->len)
		return false;
	for (int k = 0; k < size; k++)
		v |= (int64_t)d->c[d->i + (size_t)k] << (8 * k);
	if (size < 8 && (v & (1ll << (8 * size - 1))))
		v -= 1ll << (8 * size);         /* sign-extended */
	d->i += (size_t)size;
	*ret = v;
	return true;
}

/* The ModRM byte and what follows it of the memory operand. */
static bool modrm(struct decoder *d, uint8_t rex, struct insn *in)
{
	uint8_t m, sib;
	bool disp32 = false;

	if (!byte(d, &m))
		return false;
	in->mod = m >> 6;
	in->reg = (uint8_t)(((m >> 3) & 7) | (rex & 4 ? 8 : 0));
	in->rm = (uint8_t)((m & 7) | (rex & 1 ? 8 : 0));
	in->base = -1;
	if (in->mod == 3)
		return true;
	in->mem_known = true;
	if ((m & 7) == 4) {
		if (!byte(d, &sib))
			return false;
		in->base = (sib & 7) | (rex & 1 ? 8 : 0);
		if ((((sib >> 3) & 7) | (rex & 2 ? 8 : 0)) != 4)
			in->mem_known = false;          /* an index */
		if ((sib & 7) == 5 && in->mod == 0)
			in->base = -1, disp32 = true, in->mem_known = false;
	} else if ((m & 7) == 5 && in->mod == 0) {
		disp32 = true, in->mem_known = false;   /* rip-relative */
	} else {
		in->base = in->rm;
	}
	if (in->mod == 1)
		return imm(d, 1, &in->disp);
	if (in->mod == 2 || disp32)
		return imm(d, 4, &in->disp);
	return true;
}

static void forget(struct decoder *d, int reg)
{
	d->v[reg & 15] = (struct val){ V_NONE, 0 };
}

/* A store of register reg's value at [base + disp]: is it one of the two? */
static void store(struct decoder *d, const struct insn *in)
{
	const struct val *b = &d->v[in->base], *r = &d->v[in->reg];

	if (b->kind == V_TSTATE && in->disp == d->l->ts_cframe && r->kind == V_STACK && !d->cframe)
		d->cframe = r->off;
	else if (b->kind == V_STACK && r->kind == V_FIRST && !d->first_instr)
		d->first_instr = b->off + in->disp;
}

/* mov, lea: the values followed (W: 64 bits).  false when rsp is written otherwise. */
static bool model(struct decoder *d, const struct insn *in)
{
	const struct python_layout *l = d->l;
	int dst = in->op == 0x89 ? in->rm : in->reg;
	struct val v = { V_NONE, 0 };

	if (in->op == 0x89 && in->mod != 3) {
		if (in->w && in->mem_known)
			store(d, in);
		return true;
	}
	if (in->w && in->mod == 3 && in->op != 0x8d)
		v = d->v[in->op == 0x89 ? in->reg : in->rm];
	else if (in->w && in->mem_known && in->op == 0x8b && d->v[in->base].kind == V_FRAME && in->disp == l->f_code)
		v = (struct val){ V_CODE, 0 };
	else if (in->w && in->mem_known && in->op == 0x8d && d->v[in->base].kind == V_STACK)
		v = (struct val){ V_STACK, d->v[in->base].off + in->disp };
	else if (in->w && in->mem_known && in->op == 0x8d && d->v[in->base].kind == V_CODE &&
		 in->disp == l->co_code_adaptive)
		v = (struct val){ V_FIRST, 0 };
	if (dst == RSP)
		return false;
	d->v[dst] = v;
	return true;
}

/* The general-purpose registers an instruction outside the model may write. */
static bool writes(struct decoder *d, const struct insn *in)
{
	uint8_t op = in->op;

	if (!in->two) {
		bool rm_dst = op <= 0x39 && !(op & 2), reg_dst = op <= 0x3b && (op & 2);
		bool cmp = (op & 0xf8) == 0x38 || op == 0x84 || op == 0x85;

		if (op == 0x88 || op == 0xc6 || op == 0xc7)
			rm_dst = true;
		if (op == 0x80 || op == 0x81 || op == 0x83)
			rm_dst = in->reg != 7;  /* /7: cmp */
		if (op == 0x63 || op == 0x8a)
			reg_dst = true;
		if (cmp)
			return true;
		if (reg_dst) {
			if (in->reg == RSP)
				return false;
			forget(d, in->reg);
		}
		if (rm_dst && in->mod == 3) {
			if (in->rm == RSP)
				return false;
			forget(d, in->rm);
		}
		return true;
	}
	if (op == 0xb6 || op == 0xb7 || op == 0xbe || op == 0xbf || op == 0xaf || (op & 0xf0) == 0x40) {
		if (in->reg == RSP)
			return false;
		forget(d, in->reg);
	} else if ((op == 0x7e && !in->rep) || (op & 0xf0) == 0x90) {
		if (in->mod == 3 && in->rm == RSP)
			return false;
		if (in->mod == 3)
			forget(d, in->rm);
	}
	return true;
}

/* Is opcode op (two: after 0f) one of the subset's with a ModRM byte? *imm_size its immediate's. */
static bool with_modrm(bool two, uint8_t op, bool p66, int *imm_size)
{
	static const uint8_t sse[] = { 0x10, 0x11, 0x14, 0x28, 0x29, 0x57, 0x6c, 0x6d, 0x6e, 0x6f, 0x7e, 0x7f, 0xd6, 0xef, 0x1f };

	*imm_size = 0;
	if (two) {
		if (op == 0xb6 || op == 0xb7 || op == 0xbe || op == 0xbf || op == 0xaf || (op & 0xf0) == 0x40 ||
		    (op & 0xf0) == 0x90)
			return true;
		return memchr(sse, op, sizeof(sse)) != NULL;
	}
	if (op <= 0x3b && (op & 7) <= 3)
		return true;            /* add, or, and, sub, xor, cmp (r/m forms) */
	if (op == 0x84 || op == 0x85 || op == 0x88 || op == 0x89 || op == 0x8a || op == 0x8b || op == 0x8d || op == 0x63)
		return true;
	if (op == 0x80 || op == 0x83 || op == 0xc6)
		return *imm_size = 1, true;
	if (op == 0x81 || op == 0xc7)
		return *imm_size = p66 ? 2 : 4, true;
	return false;
}

/* One instruction: 1 decoded, 0 outside the subset (why), -1 out of bytes. */
static int step(struct decoder *d, char *why, size_t why_len)
{
	struct insn in = { 0 };
	uint8_t rex = 0, b;
	size_t at = d->i;
	int isz;

	for (;;) {
		if (!byte(d, &b))
			return -1;
		if (b == 0x66)
			in.p66 = true;
		else if (b == 0xf2 || b == 0xf3)
			in.rep = true;
		else
			break;
	}
	if (b >= 0x40 && b <= 0x4f) {
		rex = b;
		if (!byte(d, &b))
			return -1;
	}
	in.w = rex & 8;
	if (b == 0x0f) {
		in.two = true;
		if (!byte(d, &b))
			return -1;
	}
	in.op = b;
	if (!in.two && b >= 0x50 && b <= 0x57 && !in.p66) {
		d->v[RSP].off -= 8;             /* push */
		return 1;
	}
	if ((!in.two && b >= 0x70 && b <= 0x7f) || (in.two && b >= 0x80 && b <= 0x8f))
		return imm(d, in.two ? 4 : 1, &in.imm) ? 1 : -1;       /* jcc: fall through */
	if (!in.two && (b == 0x90 || b == 0x98)) {
		if (b == 0x98)
			forget(d, 0);
		return 1;
	}
	if (!in.two && b >= 0xb8 && b <= 0xbf) {
		forget(d, (b & 7) | (rex & 1 ? 8 : 0));
		return imm(d, in.w ? 8 : 4, &in.imm) ? 1 : -1;
	}
	if (!with_modrm(in.two, b, in.p66, &isz)) {
		snprintf(why, why_len, "its eval function's byte %#zx is an instruction prof does not decode (%s%02x)",
			 at, in.two ? "0f " : "", b);
		return 0;
	}
	if (!modrm(d, rex, &in) || (isz && !imm(d, isz, &in.imm)))
		return -1;
	/* sub $imm,%rsp: the frame's size */
	if (!in.two && (b == 0x81 || b == 0x83) && in.mod == 3 && in.rm == RSP && in.w && in.reg == 5) {
		d->v[RSP].off -= in.imm;
		return 1;
	}
	if (!in.two && (b == 0x89 || b == 0x8b || b == 0x8d)) {
		if (b == 0x8d && in.mod == 3)
			return snprintf(why, why_len, "a lea with no memory operand at %#zx", at), 0;
		if (!model(d, &in))
			return snprintf(why, why_len, "rsp moved at byte %#zx", at), 0;
		return 1;
	}
	if (!writes(d, &in))
		return snprintf(why, why_len, "rsp moved at byte %#zx", at), 0;
	return 1;
}

int python_prologue__slots(const uint8_t *code, size_t len, const struct python_layout *l, struct python_slots *ret,
			   char *why, size_t why_len)
{
	struct decoder d = { .c = code, .len = len < MAX_PROLOGUE ? len : MAX_PROLOGUE, .l = l };
	int r;

	if (!l->has_is_entry || !l->chain || !l->ts_cframe) {
		snprintf(why, why_len, "only 3.11's eval function keeps first_instr on its stack");
		return -ENOTSUP;
	}
	d.v[7] = (struct val){ V_TSTATE, 0 };   /* rdi */
	d.v[6] = (struct val){ V_FRAME, 0 };    /* rsi */
	d.v[RSP] = (struct val){ V_STACK, -8 }; /* the return address pushed */
	while (!d.cframe || !d.first_instr) {
		r = step(&d, why, why_len);
		if (r == 0)
			return -ENOTSUP;
		if (r < 0) {
			snprintf(why, why_len, "its eval function's first %zu bytes store no %s", d.len,
				 d.cframe ? "first_instr" : "cframe");
			return -ENOTSUP;
		}
	}
	if (d.cframe + (int64_t)l->cframe_current >= 0 || d.first_instr >= 0) {
		snprintf(why, why_len, "its prologue's slots are not below its CFA");
		return -ENOTSUP;
	}
	*ret = (struct python_slots){ .cfa_frame = (uint32_t)-(d.cframe + (int64_t)l->cframe_current),
				      .cfa_first_instr = (uint32_t)-d.first_instr, .stored_by = (uint32_t)d.i };
	return 0;
}
