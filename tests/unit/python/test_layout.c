/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CPython 3.11's location tables and strings, parsed from bytes as a process holds
 * them: fixtures taken from python3.11 itself (co_linetable and co_lines() of two
 * functions), and str heads built as 3.11 lays them out.
 */
#include <errno.h>
#include <string.h>
#include <criterion/criterion.h>

#include "prof/python/layout.h"

static const uint8_t id_3112[20] = { 0x57, 0x1d, 0x98, 0xe0, 0x10, 0x96, 0xd5, 0xc1, 0xc3, 0x24,
				     0x20, 0xd2, 0x29, 0xa6, 0x73, 0x1a, 0x0a, 0x50, 0xd2, 0xa0 };

Test(layout, found_by_version_and_build)
{
	const struct python_layout *l = python_layout__find(0x030b02f0, id_3112, 20);
	uint8_t other[20];

	cr_assert_not_null(l);
	cr_expect_eq(l->co_code_adaptive, 184);
	cr_expect_eq(l->cfa_frame, 0xa8);
	cr_expect_null(python_layout__find(0x036302f0, id_3112, 20), "another version");
	memcpy(other, id_3112, 20);
	other[19] ^= 1;
	cr_expect_null(python_layout__find(0x030b02f0, other, 20), "another build of 3.11");
	cr_expect(python_layout__knows_version(0x030b07f0));
	cr_expect_not(python_layout__knows_version(0x030c00f0));
}

/* def f(a):\n x = 1\n if a:\n  return 2\n return x   (first line 2) */
static const uint8_t small[] = { 0x80, 0x00, 0xd8, 0x08, 0x09, 0x80, 0x41, 0xd8, 0x07, 0x08, 0xf0, 0x00, 0x01,
				 0x05, 0x11, 0xd8, 0x0f, 0x10, 0x88, 0x71, 0xd8, 0x0b, 0x0c, 0x80, 0x48 };
static const int small_lines[] = { 2, 3, 3, 4, 4, 5, 5, 6, 6 };

/* Three blank lines (a long-form entry) and a comprehension over two lines (first line 1). */
static const uint8_t jumps[] = { 0x80, 0x00, 0xd8, 0x08, 0x09, 0x80, 0x41, 0xf0, 0x08, 0x01, 0x09, 0x1c, 0xf0, 0x00,
				 0x01, 0x09, 0x1c, 0xdd, 0x12, 0x17, 0x98, 0x01, 0x91, 0x28, 0x94, 0x28, 0xf0, 0x03,
				 0x01, 0x09, 0x1c, 0xf1, 0x00, 0x01, 0x09, 0x1c, 0xf4, 0x00, 0x01, 0x09, 0x1c, 0x80,
				 0x41, 0xe0, 0x0b, 0x0c, 0x80, 0x48 };
static const int jumps_lines[] = { 1, 2, 2, 6, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
				   7, 7, 7, 7, 6, 6, 6, 6, 6, 6, 6, 6, 6, 8, 8 };

Test(linetable, every_instruction_as_co_lines_says)
{
	int line;

	for (uint32_t i = 0; i < sizeof(small_lines) / sizeof(small_lines[0]); i++) {
		cr_assert_eq(python_linetable__line(small, sizeof(small), 2, i, &line), 0, "unit %u", i);
		cr_expect_eq(line, small_lines[i], "unit %u: %d, not %d", i, line, small_lines[i]);
	}
	for (uint32_t i = 0; i < sizeof(jumps_lines) / sizeof(jumps_lines[0]); i++) {
		cr_assert_eq(python_linetable__line(jumps, sizeof(jumps), 1, i, &line), 0, "unit %u", i);
		cr_expect_eq(line, jumps_lines[i], "unit %u: %d, not %d", i, line, jumps_lines[i]);
	}
	cr_expect_eq(python_linetable__line(small, sizeof(small), 2, 9, &line), -ENOENT, "past the table");
}

Test(linetable, malformed_is_an_error)
{
	static const uint8_t not_entry[] = { 0x00, 0x01 };
	static const uint8_t cut[] = { 0xf0, 0x41 };         /* long form, varint cut short */
	static const uint8_t none[] = { 0xf8 };              /* code 15: no location */
	int line;

	cr_expect_eq(python_linetable__line(not_entry, sizeof(not_entry), 1, 0, &line), -EINVAL);
	cr_expect_eq(python_linetable__line(cut, sizeof(cut), 1, 0, &line), -EINVAL);
	cr_expect_eq(python_linetable__line(none, sizeof(none), 1, 0, &line), -ENOENT);
	cr_expect_eq(python_linetable__line(small, 3, 2, 5, &line), -EINVAL, "a table cut in an entry");
}

/* A str head as 3.11 has it: length, state (kind, compact, ascii, ready). */
static void str_head(uint8_t *h, int64_t length, unsigned int kind, int ascii)
{
	uint32_t state = (kind << 2) | (1u << 5) | ((unsigned int)ascii << 6) | (1u << 7);

	memset(h, 0, 72);
	memcpy(h + 16, &length, 8);
	memcpy(h + 32, &state, 4);
}

Test(str, ascii_latin1_and_wide)
{
	const struct python_layout *l = python_layout__find(0x030b02f0, id_3112, 20);
	uint8_t h[72];
	uint32_t off, bytes;
	char buf[32];
	static const uint8_t latin1[] = { 'c', 0xe9, 'p', 'e' };        /* cépe */
	static const uint8_t wide[] = { 0x3b, 0x04, 0x4e, 0x00, 0x0a, 0x00 };  /* л N \n */

	str_head(h, 5, 1, 1);
	cr_assert_eq(python_str__data(l, h, sizeof(h), &off, &bytes), 0);
	cr_expect_eq(off, 48);
	cr_expect_eq(bytes, 5);
	cr_assert_eq(python_str__utf8(l, h, (const uint8_t *)"hello", 5, buf, sizeof(buf)), 0);
	cr_expect_str_eq(buf, "hello");

	str_head(h, 4, 1, 0);
	cr_assert_eq(python_str__data(l, h, sizeof(h), &off, &bytes), 0);
	cr_expect_eq(off, 72);
	cr_assert_eq(python_str__utf8(l, h, latin1, 4, buf, sizeof(buf)), 0);
	cr_expect_str_eq(buf, "c\xc3\xa9pe");

	str_head(h, 3, 2, 0);
	cr_assert_eq(python_str__utf8(l, h, wide, 6, buf, sizeof(buf)), 0);
	cr_expect_str_eq(buf, "\xd0\xbbN?", "a control character is not kept");
	cr_expect_eq(python_str__utf8(l, h, wide, 6, buf, 3), -ENOSPC);

	h[32] &= (uint8_t)~(1u << 5);   /* not compact */
	cr_expect_eq(python_str__data(l, h, sizeof(h), &off, &bytes), -EINVAL);
}
