/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A live reader's names in windows (python.h, live_names): a full window is let go
 * before the next sample, its addresses never name anything again, the next
 * window's symbols follow it (no address used twice), and a recording with a file
 * (live_names 0) keeps every name for its object.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "prof/runtime/elf_writer.h"
#include "prof/base/hash.h"
#include "prof/python/layout.h"
#include "prof/python/python.h"
#include "src/python/python_internal.h"

static struct python *new_python(uint32_t live_names)
{
	struct python_config cfg = { .live_names = live_names };
	struct python *py = NULL;

	cr_assert_eq(python__new(&cfg, &py), 0);
	return py;
}

/* The object as a live reader's model knows it: by the recording's build id. */
static struct model_dso dso_of(const struct python *py)
{
	struct model_dso d = { .name = PYTHON_OBJECT_PATH, .build_id_len = (uint8_t)py->names.id.size };

	memcpy(d.build_id, py->names.id.data, py->names.id.size);
	return d;
}

/* The name at the address of symbol sym as given out then: NULL when none. */
static const char *name_at(const struct python *py, uint64_t addr)
{
	struct model_dso d = dso_of(py);
	const char *name = "not asked";

	cr_assert(python__name(py, &d, addr - PYTHON_BASE + RUNTIME_ELF_TEXT, &name));
	return name;
}

Test(names, window_turns_when_full)
{
	struct python *py = new_python(4);
	uint32_t f = python__symbol(py, "f (a.py:1)"), g = python__symbol(py, "g (a.py:5)");
	uint64_t f_at = python__addr(py, f), g_at = python__addr(py, g);

	cr_assert_eq(f, 2);
	cr_assert_eq(g, 3);
	cr_assert_str_eq(name_at(py, f_at), "f (a.py:1)");
	cr_assert_str_eq(name_at(py, python__addr(py, 0)), "[python: unverified]");

	python__names_turn(py);         /* 4 names: full */
	cr_assert_eq(python__stats(py)->name_windows, 1);
	cr_assert_null(name_at(py, f_at), "an address of a window gone names nothing");
	cr_assert_null(name_at(py, g_at));
	/* the new window starts with the two fixed names, after the old one's addresses */
	cr_assert_eq(python__addr(py, 0), g_at + 1);
	cr_assert_str_eq(name_at(py, python__addr(py, 0)), "[python: unverified]");
	cr_assert_str_eq(name_at(py, python__addr(py, 1)), "[python: callers not proven]");
	g = python__symbol(py, "g (a.py:5)");
	cr_assert_eq(g, 2);
	cr_assert_neq(python__addr(py, g), g_at, "an address is never used twice");
	cr_assert_str_eq(name_at(py, python__addr(py, g)), "g (a.py:5)");
	cr_assert_null(name_at(py, python__addr(py, g) + 1), "past the window: nothing yet");
	python__free(py);
}

Test(names, no_turn_below_the_bound)
{
	struct python *py = new_python(8);
	uint32_t f = python__symbol(py, "f (a.py:1)");
	uint64_t f_at = python__addr(py, f);

	python__names_turn(py);
	cr_assert_eq(python__stats(py)->name_windows, 0);
	cr_assert_str_eq(name_at(py, f_at), "f (a.py:1)");
	cr_assert_eq(python__symbol(py, "f (a.py:1)"), f, "a name is one symbol");
	python__free(py);
}

Test(names, a_file_keeps_every_name)
{
	struct python *py = new_python(0);
	char name[32];

	for (int i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "f%d (a.py:%d)", i, i);
		cr_assert_eq(python__symbol(py, name), (uint32_t)i + 2);
		python__names_turn(py);
	}
	cr_assert_eq(python__stats(py)->name_windows, 0);
	cr_assert_str_eq(name_at(py, PYTHON_BASE + 2), "f0 (a.py:0)");
	cr_assert_str_eq(name_at(py, PYTHON_BASE + 101), "f99 (a.py:99)");
	python__free(py);
}

Test(names, another_object_is_not_asked)
{
	struct python *py = new_python(4);
	struct model_dso d = dso_of(py);
	const char *name = NULL;

	d.build_id[0] ^= 1;
	cr_assert_not(python__name(py, &d, RUNTIME_ELF_TEXT, &name));
	d = dso_of(py);
	cr_assert(python__name(py, &d, RUNTIME_ELF_TEXT - 1, &name));
	cr_assert_null(name, "below the object's text: nothing");
	python__free(py);
}

/*
 * A sample older than the first reading of its code object (a backlog drained late):
 * python__code_symbol gives "not seen before the sample" without reading the names,
 * whatever the process holds now; a sample after that reading still reads them.  The
 * process here cannot be read (pid 0x7ffffff0 is none), so a reading made shows as
 * PYTHON_READ_FAILED.
 */
Test(names, a_late_sample_reads_nothing)
{
	struct python *py = new_python(0);
	/* Debian's 3.11.2, as tests/unit/python/test_layout.c finds it */
	static const uint8_t id[20] = { 0x57, 0x1d, 0x98, 0xe0, 0x10, 0x96, 0xd5, 0xc1, 0xc3, 0x24,
					0x20, 0xd2, 0x29, 0xa6, 0x73, 0x1a, 0x0a, 0x50, 0xd2, 0xa0 };
	const struct python_layout *l = python_layout__find(0x030b02f0, id, sizeof(id));
	struct interp in = { .l = l };
	struct reader r = { 0x7ffffff0 };
	struct python_frame f = { .code = 0x10000 };
	struct code_key k = { r.pid, f.code };
	enum python_verdict v = PYTHON_VERIFIED;
	struct pycode *c;
	bool created;

	cr_assert_not_null(l);
	c = hashtable__insert(&py->codes, hash__mix(hash__u64((uint32_t)r.pid), f.code), &k, &created);
	cr_assert_not_null(c);
	*c = (struct pycode){ .pid = r.pid, .addr = f.code, .since_ns = 1000, .confirmed_ns = 1000, .sym = 2 };
	cr_assert(python__code_late(py, r.pid, f.code, 999));
	cr_assert(python__code_late(py, r.pid, f.code, 1000));
	cr_assert_not(python__code_late(py, r.pid, f.code, 1001));
	cr_assert_not(python__code_late(py, r.pid, f.code + 8, 999), "no entry: not known to be late");
	cr_assert_eq(python__code_symbol(py, &in, &r, &f, 0, 999, &v), 0);
	cr_assert_eq(v, PYTHON_NOT_BEFORE, "a late sample read the names: verdict %d", v);
	cr_assert_eq(python__code_symbol(py, &in, &r, &f, 0, 1001, &v), 0);
	cr_assert_eq(v, PYTHON_READ_FAILED, "a sample after the first reading did not read: verdict %d", v);
	c->sym = 0;     /* a name never kept: not late, read as before */
	cr_assert_not(python__code_late(py, r.pid, f.code, 999));
	python__free(py);
}
