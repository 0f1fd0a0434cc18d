/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A Python frame's symbol split into qualname, file and line, only for prof's object. */
#include <string.h>
#include <criterion/criterion.h>

#include "prof/output/pyframe.h"
#include "prof/python/python.h"

static void parts(const char *sym, const char *name, const char *file, long line, bool def)
{
	struct pyframe pf;

	cr_assert(pyframe__parse(PYTHON_OBJECT_PATH, sym, &pf), "%s", sym);
	cr_assert_eq(pf.name_len, strlen(name), "%s", sym);
	cr_assert(!strncmp(sym, name, pf.name_len), "%s", sym);
	cr_assert_eq(pf.file_len, strlen(file), "%s", sym);
	cr_assert(!strncmp(sym + pf.file_off, file, pf.file_len), "%s", sym);
	cr_assert_eq(pf.line, line, "%s", sym);
	cr_assert_eq(pf.def, def, "%s", sym);
}

Test(pyframe, def_line_and_line)
{
	parts("sixty (/app/shares.py:def 2)", "sixty", "/app/shares.py", 2, true);
	parts("A.f.<locals>.<lambda> (/srv/a b.py:17)", "A.f.<locals>.<lambda>", "/srv/a b.py", 17, false);
	/* a file name may hold colons and parentheses: the last colon ends it */
	parts("<module> (C:(x)/m.py:def 1)", "<module>", "C:(x)/m.py", 1, true);
	/* compile(src, "", "exec"): an empty file name */
	parts("f (:def 0)", "f", "", 0, true);
}

Test(pyframe, not_a_function)
{
	struct pyframe pf;

	cr_assert(pyframe__is_python(PYTHON_OBJECT_PATH));
	cr_assert(pyframe__is_python(PYTHON_OBJECT_LIVE), "profd's history names them so");
	cr_assert(!pyframe__is_python("/usr/bin/python3.11"));
	cr_assert(!pyframe__is_python(NULL));
	/* the markers are Python frames with no function */
	cr_assert(!pyframe__parse(PYTHON_OBJECT_PATH, "[python: unverified]", &pf));
	cr_assert(!pyframe__parse(PYTHON_OBJECT_PATH, "[python: callers not proven]", &pf));
	/* the same text in another object is a native symbol */
	cr_assert(!pyframe__parse("/usr/lib/libfoo.so", "sixty (/app/shares.py:def 2)", &pf));
	cr_assert(!pyframe__parse(PYTHON_OBJECT_PATH, "sixty (/app/shares.py:def x)", &pf));
	cr_assert(!pyframe__parse(PYTHON_OBJECT_PATH, "sixty (/app/shares.py:2) ", &pf));
	cr_assert(!pyframe__parse(PYTHON_OBJECT_PATH, "sixty (/app/shares.py:-2)", &pf));
	cr_assert(!pyframe__parse(PYTHON_OBJECT_PATH, NULL, &pf));
}
