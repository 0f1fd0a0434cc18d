/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * HotSpot's compressed streams as src/jvm/method.c decodes them: UNSIGNED5
 * (CompressedStream; one excluded byte since JDK 20.0.15) and the line number table
 * a ConstMethod keeps (CompressedLineNumberWriteStream: a byte (bci delta << 3 |
 * line delta) for small deltas, else 0xff and two signed UNSIGNED5 numbers; a 0 ends
 * it).  The tables here are encoded as HotSpot's writer encodes them.
 */
#include <criterion/criterion.h>
#include <errno.h>

#include "prof/jvm/method.h"

/* UNSIGNED5's writer (unsigned5.hpp), x excluded bytes */
static size_t put_u5(uint8_t *out, uint32_t v, uint8_t x)
{
	const uint32_t L = 192 - x;
	size_t n = 0;

	for (int i = 0; i < 4 && v >= L; i++) {
		out[n++] = (uint8_t)(x + L + ((v - L) & 63));
		v = (v - L) >> 6;
	}
	out[n++] = (uint8_t)(x + v);
	return n;
}

static size_t put_signed(uint8_t *out, int32_t v, uint8_t x)
{
	return put_u5(out, ((uint32_t)v << 1) ^ (uint32_t)(v >> 31), x);
}

Test(jvm_method, unsigned5_round_trips)
{
	const uint32_t values[] = { 0, 1, 191, 192, 255, 4000, 12287, 12288, 1u << 20, 0x7fffffff, 0xffffffffu };

	for (uint8_t x = 0; x <= 1; x++)
		for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
			uint8_t buf[8];
			size_t len = put_u5(buf, values[i], x), at = 0;
			uint32_t got;

			cr_assert_eq(jvm_unsigned5__read(buf, len, &at, x, &got), 0);
			cr_expect_eq(got, values[i], "x %u: %u read as %u", x, values[i], got);
			cr_expect_eq(at, len);
		}
}

Test(jvm_method, unsigned5_refuses_what_is_not_one)
{
	const uint8_t cut[] = { 200, 200 }, zero[] = { 0 };
	size_t at = 0;
	uint32_t v;

	cr_expect_eq(jvm_unsigned5__read(cut, sizeof(cut), &at, 0, &v), -EINVAL, "a number cut short");
	at = 0;
	cr_expect_eq(jvm_unsigned5__read(zero, sizeof(zero), &at, 1, &v), -EINVAL, "an excluded byte");
}

/* The table of (bci, line) pairs as HotSpot writes it. */
static size_t put_table(uint8_t *out, const int32_t (*pairs)[2], size_t n, uint8_t x)
{
	int32_t bci = 0, line = 0;
	size_t at = 0;

	for (size_t i = 0; i < n; i++) {
		int32_t db = pairs[i][0] - bci, dl = pairs[i][1] - line;

		if (db >= 0 && db < 0x20 && dl >= 0 && dl < 0x8) {
			out[at++] = (uint8_t)(db << 3 | dl);
		} else {
			out[at++] = 0xff;
			at += put_signed(out + at, db, x);
			at += put_signed(out + at, dl, x);
		}
		bci = pairs[i][0];
		line = pairs[i][1];
	}
	out[at++] = 0;
	return at;
}

Test(jvm_method, lines_of_bcis)
{
	/* javac's order is not sorted by bci: a loop's condition after its body */
	const int32_t pairs[][2] = { { 0, 12 }, { 4, 13 }, { 9, 300 }, { 40, 14 }, { 27, 15 }, { 2000, 16 } };
	uint8_t tbl[128];

	for (uint8_t x = 0; x <= 1; x++) {
		size_t len = put_table(tbl, pairs, 6, x);

		cr_expect_eq(jvm_line_table__find(tbl, len, x, 0), 12);
		cr_expect_eq(jvm_line_table__find(tbl, len, x, 3), 12, "the last entry before it");
		cr_expect_eq(jvm_line_table__find(tbl, len, x, 9), 300);
		cr_expect_eq(jvm_line_table__find(tbl, len, x, 30), 15, "the nearest bci before, not the last read");
		cr_expect_eq(jvm_line_table__find(tbl, len, x, 40), 14);
		cr_expect_eq(jvm_line_table__find(tbl, len, x, 2500), 16);
		cr_expect_eq(jvm_line_table__find(tbl, len - 1, x, 2500), -EINVAL, "a table with no end");
	}
}

Test(jvm_method, an_empty_table_has_no_line)
{
	const uint8_t tbl[] = { 0 };

	cr_expect_eq(jvm_line_table__find(tbl, 1, 0, 5), 0);
}
