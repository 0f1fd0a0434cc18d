/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An activation's pinned frame checked or refused, over a fixture address space laid
 * out as 3.11 lays out a thread's frame chunk and its code objects: the frame as
 * pinned (with callers or an entry frame), a pinned frame that moved on, a code
 * pointer that is no code object, memory gone; and nothing of the callers is read,
 * so a caller changing while the frame is read (a() returning and b() calling
 * helper() at the same addresses) changes nothing that is returned.
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

/* A code object at addr whose frames take 72 + 8 * (nlocals + stack) bytes. */
static void code(uint64_t addr, int32_t nlocals, int32_t stack)
{
	put64(addr + 8, CODE_TYPE);
	put32(addr + L->co_nlocalsplus, nlocals);
	put32(addr + L->co_stacksize, stack);
}

static void frame(uint64_t f, uint64_t c, uint64_t previous, bool entry)
{
	put64(f + L->f_code, c);
	put64(f + L->f_previous, previous);
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
	frame(F_MAIN, CODE_MAIN, OUTER, true);
	frame(F_A, CODE_A, F_MAIN, false);
	frame(F_HELPER, CODE_HELPER, F_A, false);
}

static enum python_verdict walk(uint64_t f, uint64_t c, struct python_frame *out)
{
	struct python_walk w = { .l = L, .read = rd, .code_type = CODE_TYPE };

	return python_walk__frame(&w, f, c, out);
}

static struct python_frame out;

Test(walk, the_frame_as_pinned, .init = init)
{
	cr_assert_eq(walk(F_HELPER, CODE_HELPER, &out), PYTHON_VERIFIED);
	cr_expect_eq(out.code, CODE_HELPER);
	cr_expect_eq(out.frame, F_HELPER);
	cr_expect(out.callers, "helper is not an entry frame: callers above it");
	cr_assert_eq(walk(F_MAIN, CODE_MAIN, &out), PYTHON_VERIFIED);
	cr_expect_not(out.callers, "main is its activation's entry frame");
}

Test(walk, where_a_frame_starts_proves_no_entry, .init = init)
{
	/* helper called by a generator whose frame is in its object, in a loop that
	 * a() runs: helper's frame starts where a's ends, as a callback's from C would,
	 * and it has a caller (the generator's frame) */
	frame(F_HELPER, CODE_HELPER, BASE + 0x3800, false);
	cr_assert_eq(walk(F_HELPER, CODE_HELPER, &out), PYTHON_VERIFIED);
	cr_expect(out.callers, "not an entry frame, wherever it starts");
	/* a callback's first frame: an entry frame */
	frame(F_HELPER, CODE_HELPER, F_A, true);
	cr_assert_eq(walk(F_HELPER, CODE_HELPER, &out), PYTHON_VERIFIED);
	cr_expect_not(out.callers);
	/* moved on since: either of them */
	frame(F_HELPER, CODE_B, F_A, true);
	cr_assert_eq(walk(F_HELPER, CODE_HELPER, &out), PYTHON_MOVED);
	cr_expect(out.callers, "moved on: whether it had callers is not known");
}

Test(walk, refusals, .init = init)
{
	cr_expect_eq(walk(F_HELPER, CODE_A, &out), PYTHON_MOVED, "pinned another code");
	cr_expect(out.callers, "moved on: whether it had callers is not known");
	cr_expect_eq(walk(BASE + SIZE, CODE_HELPER, &out), PYTHON_READ_FAILED);
	cr_expect_eq(walk(0, CODE_HELPER, &out), PYTHON_READ_FAILED, "no frame pinned");

	put64(CODE_HELPER + 8, CODE_TYPE + 8);
	cr_expect_eq(walk(F_HELPER, CODE_HELPER, &out), PYTHON_NOT_CODE, "helper's type is no PyCode_Type");
	put64(CODE_HELPER + 8, CODE_TYPE);

	frame(F_A, CODE_A + 4, F_MAIN, false);
	cr_expect_eq(walk(F_A, CODE_A + 4, &out), PYTHON_NOT_CODE, "a misaligned code pointer");
	put64(F_A + L->f_code, BASE + SIZE);
	cr_expect_eq(walk(F_A, BASE + SIZE, &out), PYTHON_READ_FAILED, "code not readable");
}

/* a() returned, b() called helper() again: same frame addresses, b's code. */
static void switch_to_b(struct space *s)
{
	frame(F_A, CODE_B, F_MAIN, false);
	frame(F_HELPER, CODE_HELPER, F_A, false);
}

Test(walk, a_caller_switching_changes_nothing_shown, .init = init)
{
	for (unsigned int at = 1; at <= 2; at++) {
		init();
		sp.switch_at = at;
		sp.switch_fn = switch_to_b;
		cr_expect_eq(walk(F_HELPER, CODE_HELPER, &out), PYTHON_VERIFIED, "switch at read %u", at);
		cr_expect_eq(out.code, CODE_HELPER);
		cr_expect(out.callers);
	}
}
