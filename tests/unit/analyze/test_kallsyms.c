/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's function table on its own (symbols.c's use of it is tested through
 * the symbolizer in test_resolver.c): names interned in the owner's set only when a
 * lookup answers them, lines that are not "addr type name" skipped, an empty table.
 */
#include <errno.h>
#include <criterion/criterion.h>

#include "prof/analyze/kallsyms.h"
#include "prof/base/strset.h"

Test(kallsyms, empty_table_answers_null)
{
	struct strset names = { 0 };
	struct kallsyms *k = kallsyms__new(&names);

	cr_assert_not_null(k);
	cr_assert_null(kallsyms__find(k, 0xffffffff81000000ull));
	cr_assert_null(kallsyms__free(k));
	cr_assert_null(kallsyms__free(NULL));
	strset__release(&names);
}

Test(kallsyms, names_interned_when_asked_bad_lines_skipped)
{
	static const char ks[] =
		"ffffffff81000000 T _text\n"
		"not a line\n"
		"ffffffff81000100 tx short_type\n"
		"\n"
		"ffffffff81000200 T asked\n"
		"ffffffff81000300 T never_asked";           /* no final newline */
	struct strset names = { 0 };
	struct kallsyms *k = kallsyms__new(&names);

	cr_assert_eq(kallsyms__load(k, ks, "_text", 0xffffffff81000000ull), 0);
	cr_assert_eq(strset__size(&names), 0, "nothing interned by the load");
	cr_assert_str_eq(kallsyms__find(k, 0xffffffff81000250ull), "asked");
	cr_assert_str_eq(kallsyms__find(k, 0xffffffff81000150ull), "_text", "a malformed line is no function");
	cr_assert_str_eq(kallsyms__find(k, 0xffffffff81000350ull), "never_asked", "the last line, unterminated");
	cr_assert_not_null(strset__find(&names, "asked"));
	cr_assert_null(strset__find(&names, "short_type"));
	cr_assert_eq(strset__size(&names), 3);
	kallsyms__free(k);
	strset__release(&names);
}

Test(kallsyms, reference_symbol_missing_is_enoent)
{
	struct strset names = { 0 };
	struct kallsyms *k = kallsyms__new(&names);

	cr_assert_eq(kallsyms__load(k, "ffffffff81000000 T _stext\n", "_text", 0), -ENOENT);
	kallsyms__free(k);
	strset__release(&names);
}
