/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CPython 3.8-3.10: their line tables, parsed as each version's own dis module
 * reads them, the layouts by minor version, and the version by an object's name.
 */
#include <criterion/criterion.h>

#include "prof/python/frame_old.h"
#include "prof/python/layout.h"

/*
 *     def f(n):              # 2
 *         x = 0              # 3
 *         for i in range(n): # 4
 *             x += i         # 5
 *                            # 6
 *         return x           # 7
 *
 *     def g(a):              # 8
 *         while a:           # 9
 *             a -= 1         # 10
 *         try:               # 11
 *             return [x for x in range(a)]   # 12
 *         finally:           # 13
 *             a = 0          # 14
 *
 * co_lnotab (3.8.18; 3.9.18's is the same) and co_linetable (3.10.13) as compiled,
 * and each instruction's line as dis.findlinestarts (3.8) and co_lines() (3.10)
 * give it.  3.10's g jumps back to line 9 (a negative delta).
 */
static const uint8_t f38[] = { 0x00, 0x01, 0x04, 0x01, 0x0c, 0x01, 0x0a, 0x02 };
static const uint8_t g38[] = { 0x00, 0x01, 0x04, 0x01, 0x0a, 0x01, 0x02, 0x01, 0x16, 0x02 };
static const uint8_t f310[] = { 0x04, 0x01, 0x0c, 0x01, 0x0a, 0x01, 0x04, 0x02 };
static const uint8_t g310[] = { 0x04, 0x01, 0x08, 0x01, 0x04, 0xff, 0x02, 0x02, 0x12, 0x01, 0x0c, 0x02 };
static const int flines[] = { 3, 3, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 7, 7 };
static const int glines38[] = { 9, 9, 10, 10, 10, 10, 10, 11, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12,
				14, 14, 14, 14, 14 };
static const int glines310[] = { 9, 9, 10, 10, 10, 10, 9, 9, 11, 12, 12, 12, 12, 12, 12, 12, 12, 12,
				 14, 14, 14, 14, 14, 14 };

#define N(a) (sizeof(a) / sizeof((a)[0]))

Test(lnotab, each_instruction_its_line)
{
	for (uint32_t u = 0; u < N(flines); u++)
		cr_expect_eq(python_lnotab__line(f38, sizeof(f38), 2, 2 * u), flines[u], "f, instruction %u", u);
	for (uint32_t u = 0; u < N(glines38); u++)
		cr_expect_eq(python_lnotab__line(g38, sizeof(g38), 8, 2 * u), glines38[u], "g, instruction %u", u);
	/* an odd byte at the end is no pair */
	cr_expect_eq(python_lnotab__line(f38, 3, 2, 28), 3);
	cr_expect_eq(python_lnotab__line(NULL, 0, 2, 0), 2, "no table: the first line");
}

Test(linetable310, each_instruction_its_line)
{
	static const uint8_t none[] = { 0x02, 0x01, 0x02, 0x80, 0x02, 0x01 };

	for (uint32_t u = 0; u < N(flines); u++)
		cr_expect_eq(python_linetable310__line(f310, sizeof(f310), 2, 2 * u), flines[u], "f, instruction %u", u);
	for (uint32_t u = 0; u < N(glines310); u++)
		cr_expect_eq(python_linetable310__line(g310, sizeof(g310), 8, 2 * u), glines310[u],
			     "g, instruction %u", u);
	/* past the table: none; -128: no line there, and the next delta from before it */
	cr_expect_eq(python_linetable310__line(f310, sizeof(f310), 2, 2 * N(flines)), -1);
	cr_expect_eq(python_linetable310__line(none, sizeof(none), 1, 0), 2);
	cr_expect_eq(python_linetable310__line(none, sizeof(none), 1, 2), -1);
	cr_expect_eq(python_linetable310__line(none, sizeof(none), 1, 4), 3);
}

Test(lines, by_layout)
{
	const struct python_layout *l8 = python_layout__find_old(8), *l10 = python_layout__find_old(10);

	cr_assert(l8 && l10 && python_layout__find_old(9));
	cr_expect_null(python_layout__find_old(7));
	cr_expect_null(python_layout__find_old(11), "3.11 has Py_Version and its own layouts");
	cr_expect_eq(python_lines__line(l8, f38, sizeof(f38), 2, 26), 7);
	cr_expect_eq(python_lines__line(l10, g310, sizeof(g310), 8, 12), 9);
	cr_expect(l8->dwarf && l8->str_ready);
	cr_expect_eq(l8->code_basicsize, 176);
	cr_expect_eq(l8->co_qualname, 112, "co_name: no co_qualname before 3.11");
}

Test(version, by_name)
{
	cr_expect_eq(python_old__minor("/root/.pyenv/versions/3.8.18/lib/libpython3.8.so.1.0"), 8);
	cr_expect_eq(python_old__minor("/usr/lib/x86_64-linux-gnu/libpython3.10.so"), 10);
	cr_expect_eq(python_old__minor("/usr/bin/python3.9"), 9);
	cr_expect_eq(python_old__minor("/usr/bin/python3.9d"), 9);
	cr_expect_eq(python_old__minor("/usr/bin/python3"), -1);
	cr_expect_eq(python_old__minor("/usr/bin/python3.x"), -1);
	cr_expect_eq(python_old__minor("/opt/python3.8/bin/spam"), -1);
}
