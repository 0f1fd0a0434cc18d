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
	cr_expect_not(python_layout__knows_version(0x030c00f0));
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
