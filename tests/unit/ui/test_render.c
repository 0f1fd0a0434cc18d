/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * prof ui's answers from a profile, byte for byte: /api/top's functions, every one
 * its stacks hold, self (the leaf's symbol of its object, as profile__rows counts
 * it) and total (each stack once, however often it holds the function: recursion),
 * most self first, then most total, names as JSON
 * strings whatever bytes they hold; /api/folded is folded.c's text.
 */
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>

#include "prof/base/strset.h"
#include "prof/output/folded.h"
#include "prof/ui/ui.h"

static struct strset names;

static const char *in(const char *s)
{
	const char *p = strset__intern(&names, s);

	cr_assert_not_null(p);
	return p;
}

/* n samples of comm with the stack given leaf first, all in dso. */
static void add(struct profile *p, const char *comm, const char *dso, int n, const char *const *syms, size_t nr)
{
	struct profile_task t = { .comm = in(comm) };
	struct profile_frame f[16];

	for (size_t i = 0; i < nr; i++)
		f[i] = (struct profile_frame){ .dso = in(dso), .sym = in(syms[i]) };
	for (int i = 0; i < n; i++)
		cr_assert_eq(profile__add(p, &t, f, nr, 1), 0);
}

Test(render, top_self_and_total)
{
	struct profile *p = profile__new(0);
	char *text;
	size_t len;

	add(p, "cmd", "/x", 3, (const char *[]){ "b", "a", "main" }, 3);
	add(p, "cmd", "/x", 2, (const char *[]){ "b", "main" }, 2);
	add(p, "cmd", "/x", 4, (const char *[]){ "a", "a", "a", "main" }, 4);      /* a recursion */
	add(p, "cmd", "/y", 1, (const char *[]){ "a", "main" }, 2);                 /* another object's a */
	cr_assert_eq(ui_render__top(p, 0, &text, &len), 0);
	cr_assert_eq(len, strlen(text));
	cr_assert_str_eq(text, "{\"total\":10,\"functions\":5,\"rows\":["
			 "{\"sym\":\"b\",\"dso\":\"/x\",\"self\":5,\"total\":5},"
			 "{\"sym\":\"a\",\"dso\":\"/x\",\"self\":4,\"total\":7},"
			 "{\"sym\":\"a\",\"dso\":\"/y\",\"self\":1,\"total\":1},"
			 "{\"sym\":\"main\",\"dso\":\"/x\",\"self\":0,\"total\":9},"
			 "{\"sym\":\"main\",\"dso\":\"/y\",\"self\":0,\"total\":1}]}\n");
	free(text);
	profile__free(p);
}

Test(render, top_names_are_json_strings)
{
	struct profile *p = profile__new(0);
	char *text;
	size_t len;

	add(p, "cmd", "/x \"y\"", 1, (const char *[]){ "f\\\n\x01\xff" }, 1);
	cr_assert_eq(ui_render__top(p, 0, &text, &len), 0);
	cr_assert_str_eq(text, "{\"total\":1,\"functions\":1,\"rows\":[{\"sym\":\"f\\\\\\u000a\\u0001\\ufffd\",\"dso\":\"/x \\\"y\\\"\","
			 "\"self\":1,\"total\":1}]}\n");
	free(text);
	profile__free(p);
}

Test(render, folded_is_folded_c_text)
{
	struct profile *p = profile__new(0);
	struct folded *f;
	char *text, *want = NULL;
	size_t len, wlen = 0;
	FILE *out = open_memstream(&want, &wlen);

	add(p, "cmd", "/x", 3, (const char *[]){ "b", "a" }, 2);
	add(p, "my cmd", "/x", 1, (const char *[]){ "x;y" }, 1);
	cr_assert_eq(folded__new(p, &f), 0);
	cr_assert_eq(folded__write(f, out), 0);
	fclose(out);
	folded__free(f);
	cr_assert_eq(ui_render__folded(p, &text, &len), 0);
	cr_assert_str_eq(text, want);
	cr_assert_str_eq(text, "cmd;a;b 3\nmy_cmd;x_y 1\n");
	free(text);
	free(want);
	profile__free(p);
}

Test(render, an_empty_window)
{
	struct profile *p = profile__new(0);
	char *text;
	size_t len;

	cr_assert_eq(ui_render__top(p, 0, &text, &len), 0);
	cr_assert_str_eq(text, "{\"total\":0,\"functions\":0,\"rows\":[]}\n");
	free(text);
	cr_assert_eq(ui_render__folded(p, &text, &len), 0);
	cr_assert_eq(len, 0);
	free(text);
	profile__free(p);
}

Test(render, top_limit_keeps_the_first_by_self_and_by_total)
{
	struct profile *p = profile__new(0);
	char *text;
	size_t len;

	add(p, "cmd", "/x", 3, (const char *[]){ "b", "a", "main" }, 3);
	add(p, "cmd", "/x", 2, (const char *[]){ "c", "main" }, 2);
	/* limit 1: b, first by self, and main, first by total */
	cr_assert_eq(ui_render__top(p, 1, &text, &len), 0);
	cr_assert_str_eq(text, "{\"total\":5,\"functions\":4,\"rows\":["
			 "{\"sym\":\"b\",\"dso\":\"/x\",\"self\":3,\"total\":3},"
			 "{\"sym\":\"main\",\"dso\":\"/x\",\"self\":0,\"total\":5}]}\n");
	free(text);
	profile__free(p);
}

Test(render, flame_tree_merged_sorted_and_pruned)
{
	struct profile *p = profile__new(0);
	char *text;
	size_t len;

	add(p, "cmd", "/x", 3, (const char *[]){ "b", "a", "main" }, 3);
	add(p, "cmd", "/y", 2, (const char *[]){ "b", "a", "main" }, 3);   /* one name, another object: merged */
	add(p, "cmd", "/x", 1, (const char *[]){ "a", "main" }, 2);
	add(p, "sh", "/x", 1, (const char *[]){ "z \"q\"" }, 1);
	cr_assert_eq(ui_render__flame(p, 0, &text, &len), 0);
	cr_assert_str_eq(text, "{\"total\":7,\"min\":1,\"tree\":[\"all\",7,[[\"cmd\",6,[[\"main\",6,[[\"a\",6,"
			 "[[\"b\",5,[]]]]]]]],[\"sh\",1,[[\"z \\\"q\\\"\",1,[]]]]]]}\n");
	free(text);
	/* below 2 samples: sh and its frame are not drawn (all's count keeps them) */
	cr_assert_eq(ui_render__flame(p, 2, &text, &len), 0);
	cr_assert_str_eq(text, "{\"total\":7,\"min\":2,\"tree\":[\"all\",7,[[\"cmd\",6,[[\"main\",6,[[\"a\",6,"
			 "[[\"b\",5,[]]]]]]]]]]}\n");
	free(text);
	profile__free(p);
}

Test(render, search_counts_each_stack_once)
{
	struct profile *p = profile__new(0);
	char *text;
	size_t len;

	add(p, "cmd", "/x", 3, (const char *[]){ "hot_a", "hot_b", "main" }, 3);
	add(p, "cmd", "/x", 2, (const char *[]){ "cold", "main" }, 2);
	add(p, "hot-cmd", "/x", 1, (const char *[]){ "other" }, 1);        /* the comm matches */
	cr_assert_eq(ui_render__search(p, "hot", &text, &len), 0);
	cr_assert_str_eq(text, "{\"term\":\"hot\",\"samples\":4,\"total\":6,\"names\":[\"hot_a\",\"hot_b\"]}\n");
	free(text);
	cr_assert_eq(ui_render__search(p, "", &text, &len), 0);
	cr_assert_str_eq(text, "{\"term\":\"\",\"samples\":0,\"total\":6,\"names\":[]}\n");
	free(text);
	profile__free(p);
}
