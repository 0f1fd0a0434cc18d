/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One activation's frames proven or refused, over a fixture address space laid out
 * as 3.11 lays out a thread's frame chunk and its code objects: the chain as it is,
 * a pinned frame that moved on, a code pointer that is no code object, frames not
 * contiguous, an entry frame of another activation, no entry frame, and a caller
 * that changes while the frames are read (a() returning and b() calling at the same
 * addresses).
 */
#include <errno.h>
#include <string.h>
#include <criterion/criterion.h>

#include "prof/python/layout.h"
#include "prof/python/walk.h"

#define BASE 0x7f0000100000ull
#define SIZE 0x4000
#define CODE_TYPE 0x959440ull
#define CHUNK (BASE + 0x1000)

static const uint8_t id_3112[20] = { 0x57, 0x1d, 0x98, 0xe0, 0x10, 0x96, 0xd5, 0xc1, 0xc3, 0x24,
				     0x20, 0xd2, 0x29, 0xa6, 0x73, 0x1a, 0x0a, 0x50, 0xd2, 0xa0 };

struct space {
	uint8_t mem[SIZE];
	unsigned int reads;             /* calls so far */
	unsigned int switch_at;         /* at this call, run switch_fn (0: never) */
	void (*switch_fn)(struct space *);
};

static struct space sp;
static const struct python_layout *L;

static void put64(uint64_t addr, uint64_t v)
{
	memcpy(sp.mem + (addr - BASE), &v, 8);
}

static void put32(uint64_t addr, int32_t v)
{
	memcpy(sp.mem + (addr - BASE), &v, 4);
}

static void tick(void)
{
	if (sp.switch_at && ++sp.reads == sp.switch_at)
		sp.switch_fn(&sp);
}

static int rd(void *ctx, uint64_t addr, void *buf, size_t len)
{
	tick();
	if (addr < BASE || addr + len > BASE + SIZE)
		return -EFAULT;
	memcpy(buf, sp.mem + (addr - BASE), len);
	return 0;
}

static int rdv(void *ctx, const uint64_t *addrs, size_t n, size_t len, void *out)
{
	tick();
	for (size_t k = 0; k < n; k++) {
		if (addrs[k] < BASE || addrs[k] + len > BASE + SIZE)
			return -EFAULT;
		memcpy((uint8_t *)out + 80 * k, sp.mem + (addrs[k] - BASE), len);
	}
	return 0;
}

/* A code object at addr whose frames take 72 + 8 * (nlocals + stack) bytes. */
static void code(uint64_t addr, int32_t nlocals, int32_t stack)
{
	put64(addr + 8, CODE_TYPE);
	put32(addr + L->co_nlocalsplus, nlocals);
	put32(addr + L->co_stacksize, stack);
}

static void frame(uint64_t f, uint64_t c, uint64_t previous, uint64_t prev_instr, bool entry)
{
	put64(f + L->f_code, c);
	put64(f + L->f_previous, previous);
	put64(f + L->f_prev_instr, prev_instr);
	sp.mem[f - BASE + L->f_is_entry] = entry;
}

#define CODE_MAIN (BASE + 0x100)
#define CODE_A (BASE + 0x200)
#define CODE_B (BASE + 0x300)
#define CODE_HELPER (BASE + 0x400)
#define OUTER (BASE + 0x3000)
/* main (2 + 3 slots), a (1 + 2), helper: at 72 + 40 and 72 + 24 bytes above */
#define F_MAIN CHUNK
#define F_A (CHUNK + 112)
#define F_HELPER (CHUNK + 112 + 96)

static void init(void)
{
	memset(&sp, 0, sizeof(sp));
	L = python_layout__find(0x030b02f0, id_3112, 20);
	cr_assert_not_null(L);
	code(CODE_MAIN, 2, 3);
	code(CODE_A, 1, 2);
	code(CODE_B, 1, 2);
	code(CODE_HELPER, 1, 1);
	frame(F_MAIN, CODE_MAIN, OUTER, CODE_MAIN + 184 + 10, true);
	frame(F_A, CODE_A, F_MAIN, CODE_A + 184 + 4, false);
	frame(F_HELPER, CODE_HELPER, F_A, CODE_HELPER + 184 + 8, false);
}

static enum python_verdict walk(uint64_t f, uint64_t c, uint64_t outer, struct python_frame *out, size_t max,
				size_t *nr)
{
	struct python_walk w = { .l = L, .read = rd, .readv = rdv, .code_type = CODE_TYPE };

	return python_walk__activation(&w, f, c, outer, out, max, nr);
}

static struct python_frame out[8];

Test(walk, the_chain_as_it_is, .init = init)
{
	size_t nr;

	cr_assert_eq(walk(F_HELPER, CODE_HELPER, OUTER, out, 8, &nr), PYTHON_VERIFIED);
	cr_assert_eq(nr, 3);
	cr_expect_eq(out[0].code, CODE_HELPER);
	cr_expect_eq(out[1].code, CODE_A);
	cr_expect_eq(out[2].code, CODE_MAIN);
	cr_expect_eq(out[1].prev_instr, CODE_A + 184 + 4);
	cr_assert_eq(walk(F_HELPER, CODE_HELPER, 0, out, 8, &nr), PYTHON_VERIFIED, "outer unknown");
}

Test(walk, refusals, .init = init)
{
	size_t nr;

	cr_expect_eq(walk(F_HELPER, CODE_A, 0, out, 8, &nr), PYTHON_MOVED, "pinned another code");
	cr_expect_eq(walk(F_HELPER, CODE_HELPER, OUTER + 8, out, 8, &nr), PYTHON_WRONG_ENTRY);
	cr_expect_eq(walk(F_HELPER, CODE_HELPER, 0, out, 2, &nr), PYTHON_NO_ENTRY);
	cr_expect_eq(walk(BASE + SIZE, CODE_HELPER, 0, out, 8, &nr), PYTHON_READ_FAILED);
	cr_expect_eq(nr, 0);

	put64(CODE_A + 8, CODE_TYPE + 8);
	cr_expect_eq(walk(F_HELPER, CODE_HELPER, 0, out, 8, &nr), PYTHON_NOT_CODE, "a's type is no PyCode_Type");
	put64(CODE_A + 8, CODE_TYPE);

	put32(CODE_A + L->co_stacksize, 3);     /* a's frame would end 8 bytes above helper's start */
	cr_expect_eq(walk(F_HELPER, CODE_HELPER, 0, out, 8, &nr), PYTHON_NOT_CONTIGUOUS);
	put32(CODE_A + L->co_stacksize, 2);

	put64(F_A + L->f_previous, F_HELPER + 8); /* a caller above its callee */
	cr_expect_eq(walk(F_HELPER, CODE_HELPER, 0, out, 8, &nr), PYTHON_NOT_CONTIGUOUS);
}

/* a() returned, b() called helper() again: same frame addresses, b's code. */
static void switch_to_b(struct space *s)
{
	frame(F_A, CODE_B, F_MAIN, CODE_B + 184 + 4, false);
	frame(F_HELPER, CODE_HELPER, F_A, CODE_HELPER + 184 + 20, false);
}

Test(walk, a_switch_while_reading_is_seen, .init = init)
{
	size_t nr;

	/* reads: helper, its code, a, its code, main, its code, then the second pass */
	for (unsigned int at = 1; at <= 7; at++) {
		init();
		sp.switch_at = at;
		sp.switch_fn = switch_to_b;
		enum python_verdict v = walk(F_HELPER, CODE_HELPER, OUTER, out, 8, &nr);

		if (at <= 3) {
			/* before a's frame was read: the chain is b's, helper at b's instruction */
			cr_expect_eq(v, PYTHON_VERIFIED, "switch at read %u", at);
			cr_expect_eq(out[1].code, CODE_B, "switch at read %u", at);
			cr_expect_eq(out[0].prev_instr, CODE_HELPER + 184 + 20, "switch at read %u", at);
		} else {
			cr_expect_eq(v, PYTHON_MOVED, "switch at read %u: helper under a, now under b", at);
		}
	}
}

/* A clock that moves 150 us per look: every second reading took too long. */
static uint64_t slow_clock(void)
{
	static uint64_t t;

	return t += 150000;
}

Test(walk, a_slow_second_reading_proves_nothing, .init = init)
{
	struct python_walk w = { .l = L, .read = rd, .readv = rdv, .code_type = CODE_TYPE, .clock_ns = slow_clock };
	size_t nr;

	cr_expect_eq(python_walk__activation(&w, F_HELPER, CODE_HELPER, OUTER, out, 8, &nr), PYTHON_SLOW);
}
