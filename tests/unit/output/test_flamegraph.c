/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The SVG flame graph on generated stacks: pruning of sub-pixel frames, static labels. */
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>

#include "prof/base/strset.h"
#include "prof/output/flamegraph.h"

/* The names of the stacks added: interned, as flamegraph__add wants them. */
static struct strset names;

/* Add a stack written "outer;...;inner". */
static int add(struct flamegraph *f, const char *folded, uint64_t count)
{
	const char *frames[400];
	size_t n = 0;

	for (const char *p = folded; *p && n < 400;) {
		const char *semi = strchrnul(p, ';');

		frames[n] = strset__intern_n(&names, p, (size_t)(semi - p));
		cr_assert_not_null(frames[n++]);
		p = *semi ? semi + 1 : semi;
	}
	return flamegraph__add(f, frames, n, count);
}

/* The SVG of the graph, as a malloc'd string. */
static char *svg_of(struct flamegraph *f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	cr_assert_not_null(out);
	cr_assert_eq(flamegraph__write(f, out, "test"), 0);
	fclose(out);
	return buf;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* The <g> of the frame whose title starts with name, up to its </g>, malloc'd. */
static char *frame(const char *svg, const char *name)
{
	char key[256];
	const char *t, *g, *end;

	snprintf(key, sizeof(key), "<title>%s (", name);
	t = strstr(svg, key);
	cr_assert_not_null(t, "no frame %s", name);
	for (g = t; g > svg && strncmp(g, "<g ", 3); g--)
		;
	end = strstr(t, "</g>");
	cr_assert_not_null(end);
	return strndup(g, (size_t)(end - g));
}

Test(flamegraph, sub_pixel_frames_are_pruned_into_their_parent)
{
	struct flamegraph *f = flamegraph__new();
	char stack[4096], *svg, *g;

	cr_assert_not_null(f);
	/* 1,000,000 samples over 1180 px: one sample is 0.00118 px */
	cr_assert_eq(add(f, "main;big", 997995), 0);
	cr_assert_eq(add(f, "main;small", 1000), 0);       /* 1.18 px: drawn */
	for (int i = 0; i < 500; i++) {                                 /* 0.0024 px each */
		snprintf(stack, sizeof(stack), "main;tiny_%d", i);
		cr_assert_eq(add(f, stack, 2), 0);
	}
	/* a deep chain of 60 sub-pixel frames above big: not drawn, nor their height */
	strcpy(stack, "main;big");
	for (int i = 0; i < 60; i++)
		strcat(stack, ";deep");
	cr_assert_eq(add(f, stack, 5), 0);
	svg = svg_of(f);

	cr_expect_eq(count(svg, "tiny_"), 0, "sub-pixel frames drawn");
	cr_expect_eq(count(svg, "<title>deep ("), 0, "sub-pixel frames drawn");
	cr_expect_eq(count(svg, "<g class=\"f\""), 4, "all, main, big, small");
	/* 34 px of title, 3 rows of 16 (all; main; big and small), 24 below */
	cr_expect_not_null(strstr(svg, "height=\"106\""), "the height counts pruned frames");
	/* main keeps every sample and the full width: the pruned ones are in it */
	g = frame(svg, "main");
	cr_expect_not_null(strstr(g, "(1000000 samples, 100.00%)"), "%s", g);
	cr_expect_not_null(strstr(g, "width=\"1180.00\""), "%s", g);
	free(g);
	g = frame(svg, "small");
	cr_expect_not_null(strstr(g, "width=\"1.18\""), "%s", g);
	free(g);
	free(svg);
	flamegraph__free(f);
}

Test(flamegraph, labels_are_static_and_cut_to_fit)
{
	struct flamegraph *f = flamegraph__new();
	char *svg, *g;

	cr_assert_not_null(f);
	/* of 1000 samples over 1180 px: 60 are 70.8 px, (70.8 - 6) / 7 = 9 characters */
	cr_assert_eq(add(f, "main;long_function_name", 60), 0);
	cr_assert_eq(add(f, "main;<tmpl>&caf\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 60), 0);
	cr_assert_eq(add(f, "main;short", 60), 0);
	cr_assert_eq(add(f, "main;narrow", 10), 0);        /* 11.8 px: no room */
	cr_assert_eq(add(f, "main", 810), 0);
	svg = svg_of(f);

	g = frame(svg, "main");
	cr_expect_not_null(strstr(g, ">main</text>"), "%s", g);
	free(g);
	g = frame(svg, "long_function_name");
	cr_expect_not_null(strstr(g, ">long_fu..</text>"), "%s", g);
	free(g);
	/* cut by characters, not bytes, and escaped after the cut */
	g = frame(svg, "&lt;tmpl&gt;&amp;caf\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9");
	cr_expect_not_null(strstr(g, ">&lt;tmpl&gt;&amp;..</text>"), "%s", g);
	free(g);
	g = frame(svg, "short");
	cr_expect_not_null(strstr(g, ">short</text>"), "%s", g);
	free(g);
	g = frame(svg, "narrow");
	cr_expect_null(strstr(g, "<text"), "%s", g);
	free(g);
	free(svg);
	flamegraph__free(f);
}

/* A deep stack costs its depth, not 2^depth (the sanitizer build's unit run would hang). */
Test(flamegraph, deep_stacks_are_drawn_in_linear_time, .timeout = 20)
{
	struct flamegraph *f = flamegraph__new();
	static char stack[300 * 2];
	char *svg, want[32];

	cr_assert_not_null(f);
	for (int i = 0; i < 300; i++)
		strcat(stack, i ? ";f" : "f");
	cr_assert_eq(add(f, stack, 1), 0);
	svg = svg_of(f);
	cr_expect_eq(count(svg, "<g class=\"f\""), 301);
	snprintf(want, sizeof(want), "height=\"%d\"", 34 + 301 * 16 + 24);
	cr_expect_not_null(strstr(svg, want), "no %s", want);
	free(svg);
	flamegraph__free(f);
}

/* A frame's children are drawn in the order they were first added, however many. */
Test(flamegraph, children_in_the_order_added)
{
	struct flamegraph *f = flamegraph__new();
	char stack[64], *svg;
	const char *prev = NULL;

	cr_assert_not_null(f);
	for (int i = 999; i >= 0; i--) {
		snprintf(stack, sizeof(stack), "main;c%03d", i);
		cr_assert_eq(add(f, stack, 1000), 0);
	}
	cr_assert_eq(add(f, "main;c500", 1000), 0, "an existing child: no new frame");
	svg = svg_of(f);
	cr_expect_eq(count(svg, "<g class=\"f\""), 1002);
	for (int i = 999; i >= 0; i--) {
		char key[32];
		const char *at;

		snprintf(key, sizeof(key), "<title>c%03d (", i);
		at = strstr(svg, key);
		cr_assert_not_null(at, "no %s", key);
		cr_assert(!prev || at > prev, "c%03d drawn out of order", i);
		prev = at;
	}
	free(svg);
	flamegraph__free(f);
}
