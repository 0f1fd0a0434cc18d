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

/* n samples of comm with the stack given leaf first, its names interned in set s. */
static void add_in(struct strset *s, struct profile *p, const char *comm, int n, const char *const *syms, size_t nr)
{
	struct profile_task t = { .comm = strset__intern(s, comm) };
	struct profile_frame f[16];

	for (size_t i = 0; i < nr; i++)
		f[i] = (struct profile_frame){ .dso = strset__intern(s, "/x"), .sym = strset__intern(s, syms[i]) };
	for (int i = 0; i < n; i++)
		cr_assert_eq(profile__add(p, &t, f, nr, 1), 0);
}

Test(render, diff_of_two_files_merges_names_by_text)
{
	struct strset sa = { 0 }, sb = { 0 };
	struct profile *a = profile__new(0), *b = profile__new(0);
	char *text;
	size_t len;

	/* two files: one name, two pointers */
	add_in(&sa, a, "cmd", 3, (const char *[]){ "hot", "main" }, 2);
	add_in(&sa, a, "cmd", 1, (const char *[]){ "old", "main" }, 2);
	add_in(&sb, b, "cmd", 2, (const char *[]){ "hot", "main" }, 2);
	add_in(&sb, b, "cmd", 4, (const char *[]){ "new", "main" }, 2);
	cr_assert_eq(ui_render__diff(a, b, 0, &text, &len), 0);
	cr_assert_str_eq(text, "{\"total_a\":4,\"total_b\":6,\"min\":1,\"tree\":[\"all\",4,6,[[\"cmd\",4,6,[[\"main\",4,6,"
			 "[[\"hot\",3,2,[]],[\"new\",0,4,[]],[\"old\",1,0,[]]]]]]]]}\n");
	free(text);
	/* min 2: kept when either side has 2 */
	cr_assert_eq(ui_render__diff(a, b, 2, &text, &len), 0);
	cr_assert_str_eq(text, "{\"total_a\":4,\"total_b\":6,\"min\":2,\"tree\":[\"all\",4,6,[[\"cmd\",4,6,[[\"main\",4,6,"
			 "[[\"hot\",3,2,[]],[\"new\",0,4,[]]]]]]]]}\n");
	free(text);
	profile__free(a);
	profile__free(b);
	strset__release(&sa);
	strset__release(&sb);
}

Test(render, sandwich_counts_each_stack_once_through_recursion)
{
	struct profile *p = profile__new(0);
	char *text;
	size_t len;

	add(p, "cmd", "/x", 2, (const char *[]){ "leaf", "f", "g", "main" }, 4);
	add(p, "cmd", "/x", 3, (const char *[]){ "h", "f", "k", "f", "main" }, 5);   /* f calls itself through k */
	add(p, "sh", "/x", 1, (const char *[]){ "f" }, 1);
	add(p, "cmd", "/x", 4, (const char *[]){ "other", "main" }, 2);
	cr_assert_eq(ui_render__sandwich(p, "f", "/x", 0, &text, &len), 0);
	/* callers from its innermost frame (k, f, main for the recursion), callees from its
	 * outermost (k, f, h): each stack's samples once, the root f's total 6 */
	cr_assert_str_eq(text, "{\"sym\":\"f\",\"dso\":\"/x\",\"total\":6,\"min\":1,"
			 "\"callers\":[\"f\",6,[[\"g\",2,[[\"main\",2,[[\"cmd\",2,[]]]]]],"
			 "[\"k\",3,[[\"f\",3,[[\"main\",3,[[\"cmd\",3,[]]]]]]]],[\"sh\",1,[]]]],"
			 "\"callees\":[\"f\",6,[[\"k\",3,[[\"f\",3,[[\"h\",3,[]]]]]],[\"leaf\",2,[]]]]}\n");
	free(text);
	/* another object's f is another function */
	cr_assert_eq(ui_render__sandwich(p, "f", "/y", 0, &text, &len), 0);
	cr_assert(strstr(text, "\"total\":0,"), "%s", text);
	free(text);
	profile__free(p);
}

Test(render, group_and_filter_by_comm)
{
	struct profile *p = profile__new(0), *w;
	char *text;
	size_t len;
	struct ui_filter f = { PROFILE_KEY_COMM, "sh" };

	add(p, "cmd", "/x", 3, (const char *[]){ "b", "main" }, 2);
	add(p, "sh", "/x", 2, (const char *[]){ "z", "main" }, 2);
	add(p, "sh", "/x", 1, (const char *[]){ "y" }, 1);
	cr_assert_eq(ui_render__group(p, NULL, PROFILE_KEY_COMM, &text, &len), 0);
	cr_assert_str_eq(text, "{\"key\":\"comm\",\"total\":6,\"rows\":[{\"value\":\"cmd\",\"name\":null,\"samples\":3,"
			 "\"period\":3},{\"value\":\"sh\",\"name\":null,\"samples\":3,\"period\":3}]}\n");
	free(text);
	cr_assert_eq(ui_filter__apply(p, NULL, &f, 1, &w), 0);
	cr_assert_eq(ui_render__folded(w, &text, &len), 0);
	cr_assert_str_eq(text, "sh;main;z 2\nsh;y 1\n");
	free(text);
	cr_assert_eq(profile__stats(w)->samples, 3);
	cr_assert_eq(profile__stats(w)->period, 3);
	profile__free(w);
	profile__free(p);
}
