/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The output escapers on hostile names: what each output kind receives. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>

#include "prof/base/escape.h"

typedef int (*writer)(FILE *, const char *, size_t);

/* What w writes for the string s, as a malloc'd string. */
static char *written(writer w, const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	cr_assert_eq(w(f, s, strlen(s)), 0);
	fclose(f);
	return buf;
}

static void expect(writer w, const char *in, const char *want)
{
	char *got = written(w, in);

	cr_expect_str_eq(got, want, "for %s", in);
	free(got);
}

Test(escape, json_controls_quotes_and_bad_utf8)
{
	expect(escape__json, "plain", "\"plain\"");
	expect(escape__json, "\x1b]0;pwn\x07", "\"\\u001b]0;pwn\\u0007\"");
	expect(escape__json, "a\"b\\c\n\x7f", "\"a\\\"b\\\\c\\u000a\\u007f\"");
	/* a lone byte, a cut sequence, an overlong '/', a surrogate, past U+10FFFF */
	expect(escape__json, "\xff|\xe2\x82|\xc0\xaf|\xed\xa0\x80|\xf4\x90\x80\x80",
	       "\"\\ufffd|\\ufffd\\ufffd|\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd\\ufffd\"");
	/* well-formed UTF-8 passes as it is */
	expect(escape__json, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5", "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5\"");
}

Test(escape, xml_entities_forbidden_chars_and_bad_utf8)
{
	expect(escape__xml, "<a href='x'>&\"]]>", "&lt;a href=&#39;x&#39;&gt;&amp;&quot;]]&gt;");
	/* controls XML 1.0 cannot hold are left out; tab and newline stay */
	expect(escape__xml, "\x1b[2J\x07\x01\r\tx\n", "[2J\tx\n");
	expect(escape__xml, "\xef\xbf\xbe\xef\xbf\xbf.", ".");
	expect(escape__xml, "a\xff" "b", "a\xef\xbf\xbd" "b");
	expect(escape__xml, "\xc2\x9b\xe2\x82\xac", "\xc2\x9b\xe2\x82\xac");
}

Test(escape, text_shows_controls_visibly)
{
	char buf[64];

	cr_expect_eq(escape__text(buf, sizeof(buf), "\x1b]0;pwn\x07<a&\xff\""), 22);
	cr_expect_str_eq(buf, "\\x1b]0;pwn\\x07<a&\\xff\"");
	/* C1 controls (a terminal's 8-bit CSI) and DEL too; other UTF-8 stays */
	escape__text(buf, sizeof(buf), "\xc2\x9b[2J\x7f caf\xc3\xa9");
	cr_expect_str_eq(buf, "\\xc2\\x9b[2J\\x7f caf\xc3\xa9");
	/* a short buffer cuts between escapes, never inside one */
	cr_expect_eq(escape__text(buf, 6, "ab\x1b" "cd"), 2);
	cr_expect_str_eq(buf, "ab");
	cr_expect_eq(escape__text(buf, 1, "abc"), 0);
	cr_expect_str_eq(buf, "");
	cr_expect_eq(escape__text(buf, 3, "\xc3\xa9\xc3\xa9"), 2);
	cr_expect_str_eq(buf, "\xc3\xa9");
}

Test(escape, utf8_counts_characters)
{
	const char *s = "\xc3\xa9t\xff\xe2\x82\xac";

	cr_expect_eq(utf8__count(s, strlen(s)), 4);
	cr_expect_eq(utf8__prefix(s, strlen(s), 0), 0);
	cr_expect_eq(utf8__prefix(s, strlen(s), 1), 2);
	cr_expect_eq(utf8__prefix(s, strlen(s), 3), 4);
	cr_expect_eq(utf8__prefix(s, strlen(s), 9), strlen(s));
}

/* What w writes for the first n bytes of s (which may hold NULs). */
static char *written_n(writer w, const char *s, size_t n, size_t *ret_len)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	cr_assert_eq(w(f, s, n), 0);
	fclose(f);
	*ret_len = len;
	return buf;
}

static void expect_n(writer w, const char *in, size_t n, const char *want)
{
	size_t len;
	char *got = written_n(w, in, n, &len);

	cr_expect_eq(len, strlen(want), "length for %zu bytes: '%s', want '%s'", n, got, want);
	cr_expect_str_eq(got, want);
	free(got);
}

Test(escape, json_takes_n_bytes_nuls_and_cuts_included)
{
	expect_n(escape__json, "a\0b", 3, "\"a\\u0000b\"");
	expect_n(escape__json, "abcdef", 3, "\"abc\"");
	expect_n(escape__json, "", 0, "\"\"");
	/* a character cut by n is invalid where n ends, whatever follows */
	expect_n(escape__json, "x\xe2\x82\xac", 3, "\"x\\ufffd\\ufffd\"");
	/* C1 controls are characters JSON allows; U+10FFFF is the last there is */
	expect(escape__json, "\xc2\x85\xc2\x9f", "\"\xc2\x85\xc2\x9f\"");
	expect(escape__json, "\xf4\x8f\xbf\xbf", "\"\xf4\x8f\xbf\xbf\"");
	/* a lone continuation byte, lead bytes that are never UTF-8, overlong 3 and 4 bytes */
	expect(escape__json, "\x80|\xc1\xbf|\xf5\x80\x80\x80", "\"\\ufffd|\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd\\ufffd\"");
	expect(escape__json, "\xe0\x80\xaf|\xf0\x80\x80\xaf", "\"\\ufffd\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd\\ufffd\"");
	/* a good character right after a bad byte is kept */
	expect(escape__json, "\xff\xc3\xa9", "\"\\ufffd\xc3\xa9\"");
	/* every control */
	for (int c = 1; c < 0x20; c++) {
		char in[2] = { (char)c, 0 }, want[16];

		snprintf(want, sizeof(want), "\"\\u%04x\"", c);
		expect(escape__json, in, want);
	}
}

Test(escape, xml_takes_n_bytes_nuls_and_cuts_included)
{
	expect_n(escape__xml, "a\0b", 3, "ab");
	expect_n(escape__xml, "<b>", 2, "&lt;b");
	expect_n(escape__xml, "x\xe2\x82\xac", 3, "x\xef\xbf\xbd\xef\xbf\xbd");
	/* a surrogate (CESU-8) is three bad bytes, not a character */
	expect(escape__xml, "\xed\xb0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	/* U+FFFD itself and the last plane stay; U+FFFE/U+FFFF do not */
	expect(escape__xml, "\xef\xbf\xbd\xf4\x8f\xbf\xbf", "\xef\xbf\xbd\xf4\x8f\xbf\xbf");
	expect(escape__xml, "a\xef\xbf\xbf\r", "a");
}

Test(escape, writers_report_a_failed_stream)
{
	FILE *f = fopen("/dev/full", "w");

	cr_assert_not_null(f);
	setvbuf(f, NULL, _IONBF, 0);
	cr_expect_eq(escape__json(f, "name", 4), -EIO);
	clearerr(f);
	cr_expect_eq(escape__xml(f, "name", 4), -EIO);
	fclose(f);
}

/* Is s (n bytes) well-formed UTF-8?  (A second decoder, written apart from escape.c's.) */
static bool valid_utf8(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
		uint32_t v = len == 1 ? c : len == 2 ? c & 0x1f : len == 3 ? c & 0xf : c & 7;

		if (!len || i + len > n)
			return false;
		for (size_t k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			v = v << 6 | (s[i + k] & 0x3f);
		}
		if ((len == 2 && v < 0x80) || (len == 3 && v < 0x800) || (len == 4 && v < 0x10000) ||
		    v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
			return false;
		i += len;
	}
	return true;
}

/* Random names, biased to the bytes that matter: whatever they hold, each output is
 * well-formed UTF-8 and holds nothing its reader would take as markup or control. */
Test(escape, random_names_give_well_formed_output)
{
	static const unsigned char pick[] = { 0, 1, 0x1b, 0x07, '\n', '\r', '\t', '"', '\\', '<', '>', '&',
					      '\'', 0x7f, 0x80, 0xbf, 0xc0, 0xc2, 0xe2, 0xed, 0xef, 0xf0,
					      0xf4, 0xf5, 0xff, 'a' };
	unsigned int seed = 12345;

	for (int round = 0; round < 20000; round++) {
		char in[24], text[4 * sizeof(in) + 1];
		size_t n = (size_t)rand_r(&seed) % sizeof(in), len;
		char *out;

		for (size_t i = 0; i < n; i++)
			in[i] = (char)(rand_r(&seed) % 3 ? pick[rand_r(&seed) % sizeof(pick)] : rand_r(&seed));
		out = written_n(escape__json, in, n, &len);
		cr_assert(valid_utf8((unsigned char *)out, len), "json of round %d", round);
		cr_assert(len >= 2 && out[0] == '"' && out[len - 1] == '"');
		for (size_t i = 1; i + 1 < len; i++) {
			cr_assert((unsigned char)out[i] >= 0x20 && out[i] != 0x7f, "raw control in json");
			if (out[i] == '\\')
				i++;    /* an escape: the next byte is its letter */
			else
				cr_assert_neq(out[i], '"', "unescaped quote in json");
		}
		free(out);
		out = written_n(escape__xml, in, n, &len);
		cr_assert(valid_utf8((unsigned char *)out, len), "xml of round %d", round);
		for (size_t i = 0; i < len; i++) {
			unsigned char c = (unsigned char)out[i];

			cr_assert(c >= 0x20 || c == '\t' || c == '\n', "control %#x in xml", c);
			cr_assert(c != '<' && c != '>' && c != '"' && c != '\'', "markup in xml");
			cr_assert(c != 0xef || i + 2 >= len || out[i + 1] != '\xbf' ||
				  (out[i + 2] != '\xbe' && out[i + 2] != '\xbf'), "U+FFFE/U+FFFF in xml");
		}
		free(out);
		in[n] = '\0';   /* escape__text takes a string: up to the first NUL */
		len = escape__text(text, sizeof(text), in);
		cr_assert_eq(len, strlen(text));
		cr_assert(valid_utf8((unsigned char *)text, len), "text of round %d", round);
		for (size_t i = 0; i < len; i++) {
			unsigned char c = (unsigned char)text[i];

			cr_assert(c >= 0x20 && c != 0x7f, "control %#x in text", c);
			cr_assert(!(c == 0xc2 && i + 1 < len && (unsigned char)text[i + 1] <= 0x9f), "C1 in text");
		}
		cr_assert(len <= 4 * strlen(in), "4 * strlen + 1 always holds all");
		cr_assert(strlen(in) == 0 || len > 0);
	}
}
