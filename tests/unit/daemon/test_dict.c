// SPDX-License-Identifier: GPL-2.0-or-later
/* The daemon's dictionary: interning, references checked, and copying between two. */
#include <criterion/criterion.h>
#include <string.h>

#include "prof/daemon/dict_import.h"
#include "hist.h"

Test(dict, interns_once_dense_ids)
{
	struct dict *d = dict__new();
	uint32_t a = str_of(d, "alpha"), b = str_of(d, "beta");
	size_t len;

	cr_assert_eq(a, 0);
	cr_assert_eq(b, 1);
	cr_assert_eq(str_of(d, "alpha"), a);
	cr_assert_str_eq(dict__str_get(d, b, &len), "beta");
	cr_assert_eq(len, 4);
	uint32_t f1 = frame_of(d, "/bin/x", "main", 0755, 0), f2 = frame_of(d, "/bin/x", "f", 0755, 0);
	uint32_t st[2] = { f2, f1 };
	cr_assert_eq(stack_of(d, st, 2), stack_of(d, st, 2));
	cr_assert_neq(stack_of(d, st, 1), stack_of(d, st, 2));
	cr_assert_eq(task_of(d, 1000, "cmd", "/a"), task_of(d, 1000, "cmd", "/a"));
	cr_assert_neq(task_of(d, 1000, "cmd", "/a"), task_of(d, 1001, "cmd", "/a"));
	cr_assert_eq(dict__nr(d, DICT_OBJ), 1);
	cr_assert_eq(dict__nr(d, DICT_FRAME), 2);
	cr_assert_gt(dict__bytes(d), 0);
	dict__free(d);
}

Test(dict, refuses_unknown_references)
{
	struct dict *d = dict__new();
	uint32_t bad = 5;

	cr_assert_eq(dict__obj(d, &(struct dict_obj){ .path = 3 }), -EINVAL);
	cr_assert_eq(dict__frame(d, &(struct dict_frame){ .obj = 0, .sym = 0 }), -EINVAL);
	cr_assert_eq(dict__stack(d, &bad, 1), -EINVAL);
	cr_assert_eq(dict__task(d, &(struct dict_task){ .comm = 9, .cgroup = DICT_NONE, .container = DICT_NONE }),
		     -EINVAL);
	cr_assert_eq(dict__stack(d, NULL, 0), 0);       /* an empty stack is a stack */
	dict__free(d);
}

Test(dict, long_strings_keep_their_tail)
{
	struct dict *d = dict__new();
	char buf[DICT_MAX_STR + 100];
	size_t len;

	memset(buf, 'a', sizeof(buf));
	memcpy(buf + sizeof(buf) - 4, "/end", 4);
	uint32_t id = (uint32_t)dict__str(d, buf, sizeof(buf));
	const char *s = dict__str_get(d, id, &len);
	cr_assert_eq(len, DICT_MAX_STR);
	cr_assert_eq(memcmp(s + len - 4, "/end", 4), 0);
	dict__free(d);
}

Test(dict, import_copies_what_an_item_names)
{
	struct dict *src = dict__new(), *dst = dict__new();
	struct dict_import im;
	uint32_t f[3] = { frame_of(src, "/lib/a.so", "x", 0644, 0), frame_of(src, NULL, "k", 0, 0),
			  frame_of(src, "/lib/a.so", "y", 0644, 0) };
	uint32_t s = stack_of(src, f, 3), t = task_of(src, 42, "job", "/u/42");
	size_t nr;

	str_of(dst, "unrelated");
	str_of(src, "unused");
	dict_import__init(&im, src, dst);
	int64_t ds = dict_import__stack(&im, s), dt = dict_import__task(&im, t);
	cr_assert_geq(ds, 0);
	cr_assert_geq(dt, 0);
	cr_assert_eq(dict_import__stack(&im, s), ds);
	const uint32_t *ids = dict__stack_get(dst, (uint32_t)ds, &nr);
	cr_assert_eq(nr, 3);
	cr_assert_str_eq(dict__text(dst, dict__frame_get(dst, ids[1])->sym), "k");
	cr_assert(dict__frame_get(dst, ids[1])->flags & DICT_FRAME_KERNEL);
	cr_assert_str_eq(dict__text(dst, dict__obj_get(dst, dict__frame_get(dst, ids[2])->obj)->path), "/lib/a.so");
	cr_assert_str_eq(dict__text(dst, dict__task_get(dst, (uint32_t)dt)->comm), "job");
	cr_assert_eq(dict__task_get(dst, (uint32_t)dt)->uid, 42);
	cr_assert_eq(dict__nr(dst, DICT_OBJ), 2);     /* the file and the kernel, nothing else */
	cr_assert_null(strstr(dict__text(dst, 0), "unused"));
	cr_assert_eq(dict_import__task(&im, 99), -EINVAL);
	dict_import__release(&im);
	dict__free(src);
	dict__free(dst);
}
