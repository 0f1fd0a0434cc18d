/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CPython 3.11's layouts and strings, parsed from bytes as a process holds them: str
 * heads built as 3.11 lays them out.
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
	cr_expect_not(python_layout__knows_version(0x030a0df0));
}

/* Builds with debug info: a layout per version, whatever the build id. */
Test(layout, dwarf_layouts_by_version)
{
	const struct python_layout *l11 = python_layout__find_dwarf(0x030b07f0);
	const struct python_layout *l12 = python_layout__find_dwarf(0x030c01f0);
	const struct python_layout *l13 = python_layout__find_dwarf(0x030d00f0);

	cr_assert(l11 && l12 && l13);
	cr_expect(l11->dwarf && l12->dwarf && l13->dwarf);
	cr_expect_eq(l11->co_code_adaptive, 184);
	cr_expect_eq(l12->co_code_adaptive, 192);
	cr_expect_eq(l13->co_code_adaptive, 200);
	cr_expect(l11->has_is_entry && !l12->has_is_entry && !l13->has_is_entry);
	cr_expect(l11->str_ready && !l12->str_ready && !l13->str_ready);
	cr_expect(l13->debug_offsets && !l12->debug_offsets);
	cr_expect_null(python_layout__find_dwarf(0x030a0df0));
	cr_expect_null(python_layout__find(0x030c01f0, NULL, 0), "no fixed slots for 3.12");
}

/*
 * co_linetable of
 *
 *     def f(n):              # 1
 *         x = 0              # 2
 *         for i in range(n): # 3
 *             x += i         # 4
 *                            # 5
 *         return x           # 6
 *
 * as 3.11.7 and 3.12.1 compile it, and each code unit's line as their own
 * co_lines() gives it.
 */
static const uint8_t lt311[] = {
	0x80, 0x00, 0xd8, 0x08, 0x09, 0x80, 0x41, 0xdd, 0x0d, 0x12, 0x90, 0x31, 0x89, 0x58, 0x8c, 0x58,
	0xf0, 0x00, 0x01, 0x05, 0x0f, 0xf0, 0x00, 0x01, 0x05, 0x0f, 0x88, 0x01, 0xd8, 0x08, 0x09, 0x88,
	0x51, 0x89, 0x06, 0x88, 0x01, 0x88, 0x01, 0xe0, 0x0b, 0x0c, 0x80, 0x48,
};
static const int lines311[] = { 1, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
				4, 4, 4, 4, 4, 4, 6, 6 };
static const uint8_t lt312[] = {
	0x80, 0x00, 0xd8, 0x08, 0x09, 0x80, 0x41, 0xdc, 0x0d, 0x12, 0x90, 0x31, 0x8b, 0x58, 0xf2, 0x00,
	0x01, 0x05, 0x0f, 0x88, 0x01, 0xd8, 0x08, 0x09, 0x88, 0x51, 0x89, 0x06, 0x89, 0x01, 0xf0, 0x03,
	0x01, 0x05, 0x0f, 0xf0, 0x06, 0x00, 0x0c, 0x0d, 0x80, 0x48,
};
static const int lines312[] = { 1, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 4, 4, 4,
				4, 4, 4, 3, 6, 6 };

Test(linetable, each_unit_its_line)
{
	for (uint32_t u = 0; u < sizeof(lines311) / sizeof(lines311[0]); u++)
		cr_expect_eq(python_linetable__line(lt311, sizeof(lt311), 1, 2 * u), lines311[u], "3.11 unit %u", u);
	for (uint32_t u = 0; u < sizeof(lines312) / sizeof(lines312[0]); u++)
		cr_expect_eq(python_linetable__line(lt312, sizeof(lt312), 1, 2 * u), lines312[u], "3.12 unit %u", u);
	/* past the table, or a table cut short: no line */
	cr_expect_eq(python_linetable__line(lt311, sizeof(lt311), 1, 2 * 28), -1);
	cr_expect_eq(python_linetable__line(lt311, 13, 1, 2 * 27), -1);
	/* not the start of an entry */
	cr_expect_eq(python_linetable__line((const uint8_t[]){ 0x01, 0x02 }, 2, 1, 0), -1);
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
