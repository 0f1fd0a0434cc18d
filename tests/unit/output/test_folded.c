/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Folded stacks from the engine's entries, byte for byte: stacks of equal text
 * merged, the format's separators kept out of names, names escaped for a terminal,
 * most samples first and then the text's order, a deep stack cut to its outer
 * frames; and the SVG drawn from the same stacks.
 */
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>

#include "prof/base/strset.h"
#include "prof/output/folded.h"

static struct strset names;

static const char *in(const char *s)
{
	const char *p = strset__intern(&names, s);

	cr_assert_not_null(p);
	return p;
}

/* Count n samples of comm (pid) with the stack given leaf first, all in one object. */
static void add(struct profile *p, int32_t pid, const char *comm, const char *dso, int n, const char *const *syms,
		size_t nr)
{
	struct profile_task t = { .pid = pid, .comm = in(comm) };
	struct profile_frame f[64];

	for (size_t i = 0; i < nr; i++)
		f[i] = (struct profile_frame){ .dso = in(dso), .sym = in(syms[i]) };
	for (int i = 0; i < n; i++)
		cr_assert_eq(profile__add(p, &t, f, nr, 1), 0);
}

static char *output(const struct folded *f, bool svg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	cr_assert_not_null(out);
	cr_assert_eq(svg ? folded__write_svg(f, out, "t") : folded__write(f, out), 0);
	fclose(out);
	return buf;
}

Test(folded, the_exact_text)
{
	struct profile *p = profile__new(0);
	struct folded *f;
	char *text;

	/* leaf first, as the engine keeps stacks */
	add(p, 1, "cmd", "/x", 3, (const char *[]){ "b", "a" }, 2);
	add(p, 2, "cmd", "/y", 2, (const char *[]){ "b", "a" }, 2);        /* same text: merged */
	add(p, 1, "my cmd", "/x", 4, (const char *[]){ "x;y z\nw" }, 1);
	add(p, 1, "cmd", "/x", 1, (const char *[]){ "x", "f" }, 2);        /* cmd;f;x ... */
	add(p, 1, "cmd", "/x", 1, (const char *[]){ "f0" }, 1);            /* ... after cmd;f0: '0' < ';' */
	add(p, 1, "cmd", "/x", 1, (const char *[]){ "g (inlined)", "g" }, 2);
	add(p, 1, "esc", "/x", 2, (const char *[]){ "\033[31mred" }, 1);
	add(p, 1, "cmd", "/x", 6, NULL, 0);                                 /* no frames at all */
	cr_assert_eq(folded__new(p, &f), 0);
	text = output(f, false);
	cr_assert_str_eq(text,
			 "cmd 6\n"
			 "cmd;a;b 5\n"
			 "my_cmd;x_y_z_w 4\n"
			 "esc;\\x1b[31mred 2\n"
			 "cmd;f0 1\n"
			 "cmd;f;x 1\n"
			 "cmd;g;g_(inlined) 1\n");
	free(text);
	folded__free(f);
	profile__free(p);
}

/* The text of a stack is at most 16 KiB: a deeper one keeps its outer frames, and
 * two stacks that differ only past that are one. */
Test(folded, a_deep_stack_keeps_its_outer_frames)
{
	struct profile *p = profile__new(0);
	const char *syms[40];
	char name[40][600], *text, *line;
	struct folded *f;
	size_t frames = 0;

	for (int i = 0; i < 40; i++) {
		memset(name[i], 'a' + i % 26, 499);
		snprintf(name[i] + 499, 100, "%02d", i);
		syms[39 - i] = name[i];         /* name[0] outermost */
	}
	add(p, 1, "deep", "/x", 1, syms, 40);
	syms[0] = "another_leaf";               /* past the cut: the same text */
	add(p, 1, "deep", "/x", 1, syms, 40);
	cr_assert_eq(folded__new(p, &f), 0);
	text = output(f, false);
	line = strchr(text, '\n');
	cr_assert_not_null(line);
	cr_assert_eq(line[1], '\0', "one line: %.60s...", line + 1);
	cr_assert_lt(line - text, 16384 + 8);
	cr_assert_eq(strncmp(text, "deep;", 5), 0);
	cr_assert_str_eq(line - 2, " 2\n", "both samples");
	for (char *s = text; (s = strchr(s, ';')); s++)
		frames++;
	cr_assert_eq(frames, 32, "(16384 - 5) / 502 whole frames: %zu", frames);
	free(text);
	folded__free(f);
	profile__free(p);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *s = hay; (s = strstr(s, needle)); s += strlen(needle))
		n++;
	return n;
}

/* The SVG's frames are the folded stacks' tree, callers' children in text order. */
Test(folded, the_svg_of_the_same_stacks)
{
	struct profile *p = profile__new(0);
	struct folded *f;
	char *svg;

	add(p, 1, "cmd", "/x", 30, (const char *[]){ "zeta", "main" }, 2);
	add(p, 2, "cmd", "/y", 20, (const char *[]){ "alpha", "main" }, 2);
	add(p, 3, "cmd", "/x", 10, (const char *[]){ "main" }, 1);
	add(p, 3, "cmd", "/x", 40, (const char *[]){ "zeta", "other" }, 2);
	cr_assert_eq(folded__new(p, &f), 0);
	svg = output(f, true);
	cr_assert_eq(count(svg, "<g class=\"f\""), 7, "all, cmd, main, alpha, zeta, other, zeta");
	cr_assert_not_null(strstr(svg, "<title>all (100 samples, 100.00%)</title>"));
	cr_assert_not_null(strstr(svg, "<title>cmd (100 samples, 100.00%)</title>"));
	cr_assert_not_null(strstr(svg, "<title>main (60 samples, 60.00%)</title>"));
	cr_assert_not_null(strstr(svg, "<title>other (40 samples, 40.00%)</title>"));
	cr_assert_lt(strstr(svg, "<title>alpha ("), strstr(svg, "<title>zeta (30"), "alpha left of zeta");
	cr_assert_lt(strstr(svg, "<title>main ("), strstr(svg, "<title>other ("), "main left of other");
	free(svg);
	folded__free(f);
	profile__free(p);
}
