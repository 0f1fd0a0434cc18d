/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The output escapers on hostile names: what each output kind receives. */
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
