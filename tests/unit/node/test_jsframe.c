/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Naming JavaScript frames (src/node/jsframe.c, src/node/v8heap.c) over a heap laid
 * out in this process's memory as node 20's V8 lays it out (node20.h's offsets and
 * types): maps proven maps by their meta map, strings of each representation, a
 * ScopeInfo in each of its shapes, a Script with and without line ends, frames of
 * each kind; then what must be refused.  The read function stays inside the arena:
 * a read past it is -EFAULT, as an unmapped page is.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "node20.h"
#include "prof/node/jsframe.h"
#include "prof/node/v8heap.h"

#define WORDS 8192
static uint64_t arena[WORDS] __attribute__((aligned(64)));
static size_t used;
static struct node_v8 v;
static const char *why;

static int arena_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	(void)ctx;
	if (addr < (uint64_t)(uintptr_t)arena || addr + len > (uint64_t)(uintptr_t)(arena + WORDS) || addr + len < addr)
		return -EFAULT;
	memcpy(buf, (void *)(uintptr_t)addr, len);
	return 0;
}

/* A new object of n words: its tagged address. */
static uint64_t obj(size_t n)
{
	uint64_t at = (uint64_t)(uintptr_t)&arena[used];

	used += n + 1;
	cr_assert(used < WORDS);
	return at + 1;
}

static uint64_t *W(uint64_t tagged, size_t off)
{
	return (uint64_t *)(uintptr_t)(tagged - 1 + off);
}

static uint64_t smi(int64_t x)
{
	return (uint64_t)x << 32;
}

static uint64_t meta_map;

static uint64_t map_of_type(uint16_t type)
{
	uint64_t m = obj(4);

	*W(m, 0) = meta_map;
	memcpy(W(m, 12), &type, 2);
	return m;
}

static uint64_t object(uint16_t type, size_t words)
{
	uint64_t o = obj(words);

	*W(o, 0) = map_of_type(type);
	return o;
}

enum { ONE_BYTE = 8, TWO_BYTE = 0, CONS = 9, SLICED = 11, THIN = 13, EXTERNAL = 10, CONTEXT = 205, ODDBALL = 131 };

static uint64_t str1(const char *s)
{
	size_t n = strlen(s);
	uint64_t o = object(ONE_BYTE, 2 + n / 8 + 1);
	int32_t len = (int32_t)n;

	memcpy(W(o, 12), &len, 4);
	memcpy(W(o, 16), s, n);
	return o;
}

static uint64_t str2(const uint16_t *u, size_t n)
{
	uint64_t o = object(TWO_BYTE, 2 + n / 4 + 1);
	int32_t len = (int32_t)n;

	memcpy(W(o, 12), &len, 4);
	memcpy(W(o, 16), u, n * 2);
	return o;
}

static uint64_t cons(uint64_t a, uint64_t b)
{
	uint64_t o = object(CONS, 4);
	int32_t la, lb, len;

	memcpy(&la, W(a, 12), 4);
	memcpy(&lb, W(b, 12), 4);
	len = la + lb;
	memcpy(W(o, 12), &len, 4);
	*W(o, 16) = a;
	*W(o, 24) = b;
	return o;
}

static void init(void)
{
	used = 0;
	memset(arena, 0, sizeof(arena));
	meta_map = obj(4);
	*W(meta_map, 0) = meta_map;
	memcpy(W(meta_map, 12), &(uint16_t){ 255 }, 2);
	node20_meta(&v.m);
	v.read = arena_read;
	v.ctx = NULL;
}

TestSuite(jsframe, .init = init);

static char buf[256];

Test(jsframe, strings_of_each_representation)
{
	uint64_t s = str1("hotLoop"), t;
	static const uint16_t u[] = { 'x', 0xe7, 0x20ac, 0xd83d, 0xde00 }; /* x ç € 😀 */

	cr_assert_eq(v8_string__utf8(&v, s, buf, sizeof(buf), &why), 0, "%s", why);
	cr_assert_str_eq(buf, "hotLoop");
	cr_assert_eq(v8_string__utf8(&v, str2(u, 5), buf, sizeof(buf), &why), 0, "%s", why);
	cr_assert_str_eq(buf, "x\xc3\xa7\xe2\x82\xac\xf0\x9f\x98\x80");
	t = cons(str1("/srv/app/"), cons(str1("lib/"), str1("hot.js")));
	cr_assert_eq(v8_string__utf8(&v, t, buf, sizeof(buf), &why), 0, "%s", why);
	cr_assert_str_eq(buf, "/srv/app/lib/hot.js");
	/* sliced: "app/lib" of the cons string */
	s = object(SLICED, 4);
	memcpy(W(s, 12), &(int32_t){ 7 }, 4);
	*W(s, 16) = t;
	*W(s, 24) = smi(5);
	cr_assert_eq(v8_string__utf8(&v, s, buf, sizeof(buf), &why), 0, "%s", why);
	cr_assert_str_eq(buf, "app/lib");
	/* thin: the internalized one it points at */
	s = object(THIN, 3);
	memcpy(W(s, 12), &(int32_t){ 7 }, 4);
	*W(s, 16) = str1("hotLoop");
	cr_assert_eq(v8_string__utf8(&v, s, buf, sizeof(buf), &why), 0, "%s", why);
	cr_assert_str_eq(buf, "hotLoop");
}

Test(jsframe, strings_refused)
{
	uint64_t s = object(EXTERNAL, 4), c;

	memcpy(W(s, 12), &(int32_t){ 3 }, 4);
	cr_assert_eq(v8_string__utf8(&v, s, buf, sizeof(buf), &why), -EINVAL);
	cr_assert(strstr(why, "external"), "%s", why);
	/* longer than kept: never cut */
	cr_assert_eq(v8_string__utf8(&v, str1("abcdefgh"), buf, 8, &why), -E2BIG);
	cr_assert_eq(buf[0], '\0');
	/* a cons string that contains itself */
	c = cons(str1("a"), str1("b"));
	*W(c, 16) = c;
	memcpy(W(c, 12), &(int32_t){ 2 }, 4);
	cr_assert_eq(v8_string__utf8(&v, c, buf, sizeof(buf), &why), -EINVAL);
	/* a cons string whose parts are longer than it says it is */
	c = cons(str1("abc"), str1("def"));
	memcpy(W(c, 12), &(int32_t){ 2 }, 4);
	cr_assert_eq(v8_string__utf8(&v, c, buf, sizeof(buf), &why), -EINVAL);
	/* not a string; an untagged word; a map that is no Map; a pointer out of the arena */
	cr_assert_eq(v8_string__utf8(&v, object(167, 4), buf, sizeof(buf), &why), -EINVAL);
	cr_assert_eq(v8_string__utf8(&v, smi(3), buf, sizeof(buf), &why), -EINVAL);
	s = str1("x");
	*W(s, 0) = str1("not a map");
	cr_assert_eq(v8_string__utf8(&v, s, buf, sizeof(buf), &why), -EINVAL);
	cr_assert(strstr(why, "not a Map"), "%s", why);
	cr_assert_eq(v8_string__utf8(&v, 0x10001, buf, sizeof(buf), &why), -EFAULT);
}

/* the ScopeInfo slots' "is a string" for the parser, by the arena's objects */
static int is_string(void *ctx, uint64_t tagged, const char **w)
{
	uint16_t type;
	int err = v8__type(ctx, tagged, &type, w);

	return err < 0 ? err : type < 128;
}

static int parse(const uint64_t *s, size_t n, struct v8_scope_info *si)
{
	size_t need;

	return v8_scope_info__parse(s, n, 2, 3, is_string, &v, si, &need, &why);
}

Test(jsframe, scope_info_shapes)
{
	uint64_t name = str1("hotLoop"), inferred = str1("obj.method"), undef = object(ODDBALL, 2);
	uint64_t local = str1("x"), table = object(200, 4);
	struct v8_scope_info si;

	/* no locals: function variable {name, -1}, inferred undefined, positions */
	uint64_t a[] = { smi(0x1234), smi(1), smi(0), name, smi(-1), undef, smi(40), smi(90), 0, 0, 0, 0 };
	cr_assert_eq(parse(a, 12, &si), 0, "%s", why);
	cr_assert_eq(si.name, name);
	cr_assert_eq(si.inferred, 0);
	cr_assert_eq(si.start, 40);
	cr_assert_eq(si.end, 90);
	/* two locals inline, their infos, then no shared name (0) and an inferred one */
	uint64_t b[] = { smi(1), smi(0), smi(2), local, local, smi(7), smi(9), 0, smi(-1), inferred, smi(5), smi(8), 0, 0, 0, 0 };
	cr_assert_eq(parse(b, 16, &si), 0, "%s", why);
	cr_assert_eq(si.name, 0);
	cr_assert_eq(si.inferred, inferred);
	cr_assert_eq(si.start, 5);
	/* many locals: their names in one table */
	uint64_t c[] = { smi(1), smi(0), smi(2), table, smi(7), smi(9), name, smi(-1), smi(11), smi(12), 0, 0, 0, 0 };
	cr_assert_eq(parse(c, 14, &si), 0, "%s", why);
	cr_assert_eq(si.name, name);
	cr_assert_eq(si.start, 11);
	/* a saved class variable's slot before the function variable */
	uint64_t d[] = { smi(1), smi(0), smi(0), smi(4), name, smi(-1), undef, smi(20), smi(30), 0, 0, 0, 0 };
	cr_assert_eq(parse(d, 13, &si), 0, "%s", why);
	cr_assert_eq(si.name, name);
	cr_assert_eq(si.start, 20);
}

Test(jsframe, scope_info_refused)
{
	uint64_t name = str1("f"), other = object(167, 4);
	struct v8_scope_info si;
	size_t need;

	/* positions out of order */
	uint64_t a[] = { smi(0), smi(1), smi(0), name, smi(-1), smi(90), smi(40), 0, 0, 0, 0, 0 };
	cr_assert_eq(parse(a, 12, &si), -EINVAL);
	cr_assert(strstr(why, "out of order"), "%s", why);
	/* the function name is some other object */
	uint64_t b[] = { smi(0), smi(1), smi(0), other, smi(-1), smi(4), smi(5), 0, 0, 0, 0, 0 };
	cr_assert_eq(parse(b, 12, &si), -EINVAL);
	/* a header that is not Smis */
	uint64_t c[] = { name, smi(1), smi(0), name, smi(-1), smi(4), smi(5), 0, 0, 0, 0, 0 };
	cr_assert_eq(parse(c, 12, &si), -EINVAL);
	/* local infos that are not Smis */
	uint64_t d[] = { smi(0), smi(1), smi(1), name, name, name, smi(-1), smi(4), smi(5), 0, 0, 0, 0 };
	cr_assert_eq(parse(d, 13, &si), -EINVAL);
	/* no positions after the names */
	uint64_t e[] = { smi(0), smi(1), smi(0), name, smi(-1), name, name, name, 0, 0, 0, 0 };
	cr_assert_eq(parse(e, 12, &si), -EINVAL);
	/* too many locals to believe; too few slots given: how many are needed */
	uint64_t f[] = { smi(0), smi(1), smi(5000), 0 };
	cr_assert_eq(parse(f, 4, &si), -EINVAL);
	uint64_t g[] = { smi(0), smi(1), smi(3), name };
	cr_assert_eq(v8_scope_info__parse(g, 4, 2, 3, is_string, &v, &si, &need, &why), -ENOSPC);
	cr_assert_eq(need, 3 + 2 * 3 + 7);
}

Test(jsframe, line_of)
{
	const int32_t ends[] = { 10, 25, 26, 40 };
	int32_t line, col;

	cr_assert(v8_line_of(ends, 4, 0, &line, &col));
	cr_assert_eq(line, 1);
	cr_assert_eq(col, 1);
	cr_assert(v8_line_of(ends, 4, 10, &line, &col));
	cr_assert_eq(line, 1);
	cr_assert_eq(col, 11);
	cr_assert(v8_line_of(ends, 4, 11, &line, &col));
	cr_assert_eq(line, 2);
	cr_assert_eq(col, 1);
	cr_assert(v8_line_of(ends, 4, 26, &line, &col));
	cr_assert_eq(line, 3);
	cr_assert_eq(col, 1);
	cr_assert(!v8_line_of(ends, 4, 41, &line, &col));
}

/* "function a() {}\n" then "function hot(n) {...}" at position 16 + 12 */
static const char *source = "function a() {}\nfunction hot(n) { return n; }\n";

/* A JSFunction of a SharedFunctionInfo named name at start, in a Script of file
 * (line ends made when ends). */
static uint64_t function(const char *name, int32_t start, const char *file, bool ends, uint64_t *ret_sfi)
{
	uint64_t si = object(261, 12), sfi = object(262, 6), script = object(167, 10), fn = object(2066, 6);
	uint64_t undef = object(ODDBALL, 2);

	*W(si, 8) = smi(0);
	*W(si, 16) = smi(1);
	*W(si, 24) = smi(0);
	*W(si, 32) = name ? str1(name) : 0;
	*W(si, 40) = smi(-1);
	*W(si, 48) = undef;
	*W(si, 56) = smi(start);
	*W(si, 64) = smi(start + 10);
	*W(sfi, 16) = si;
	*W(sfi, 32) = script;
	*W(sfi, 8) = object(191, 4);             /* its bytecode */
	*W(script, 16) = str1(file);
	*W(script, 8) = str1(source);
	*W(script, 56) = undef;
	if (ends) {
		uint64_t fa = object(175, 4);

		*W(fa, 8) = smi(2);
		*W(fa, 16) = smi(15);
		*W(fa, 24) = smi(45);
		*W(script, 56) = fa;
	}
	*W(fn, 24) = sfi;
	if (ret_sfi)
		*ret_sfi = sfi;
	return fn;
}

/* A frame at fp (a word of the arena) of function fn, its caller's fp caller. */
static uint64_t frame(size_t at, uint64_t fn, uint64_t caller, uint64_t bytecode, uint64_t offset)
{
	uint64_t fp = (uint64_t)(uintptr_t)&arena[at];

	arena[at] = caller;
	arena[at + 1] = 0x401000;               /* its return address */
	arena[at - 1] = object(CONTEXT, 3);
	arena[at - 2] = fn;
	arena[at - 4] = bytecode;
	arena[at - 5] = offset;
	return fp;
}

Test(jsframe, frames_named)
{
	uint64_t sfi, fn, fp;
	struct js_frame f;

	used = 4096;    /* the frames' words below, the objects above */
	fn = function("hot", 28, "/srv/app/hot.js", true, &sfi);
	fp = frame(100, fn, 0x7ffc0000, 0, smi(0));
	cr_assert_eq(js_frame__read(&v, fp, fp - 16, &f, &why), 0, "%s", why);
	cr_assert_eq(f.kind, JS_FRAME_JS);
	cr_assert_str_eq(f.fn.name, "hot");
	cr_assert_str_eq(f.fn.file, "/srv/app/hot.js");
	cr_assert_eq(f.fn.line, 2);
	cr_assert_eq(f.fn.column, 13);
	cr_assert_eq(f.tier, JS_TIER_COMPILED);
	cr_assert_eq(f.caller_fp, 0x7ffc0000);
	/* interpreted: its own bytecode in the frame, a Smi offset */
	fp = frame(200, fn, 0, *W(sfi, 8), smi(57));
	cr_assert_eq(js_frame__read(&v, fp, 0, &f, &why), 0, "%s", why);
	cr_assert_eq(f.tier, JS_TIER_INTERPRETED);
	cr_assert_eq(f.bytecode_offset, 57);
	/* another function's bytecode: not claimed interpreted */
	fp = frame(300, fn, 0, object(191, 4), smi(57));
	cr_assert_eq(js_frame__read(&v, fp, 0, &f, &why), 0, "%s", why);
	cr_assert_eq(f.tier, JS_TIER_COMPILED);
	/* no line ends yet: the line by the source's breaks; anonymous, by position */
	fn = function(NULL, 28, "/srv/app/hot.js", false, NULL);
	fp = frame(400, fn, 0, 0, 0);
	cr_assert_eq(js_frame__read(&v, fp, 0, &f, &why), 0, "%s", why);
	cr_assert(f.fn.anonymous);
	cr_assert_eq(f.fn.line, 2);
	cr_assert_eq(f.fn.column, 13);
}

Test(jsframe, frames_refused)
{
	uint64_t fn, fp;
	struct js_frame f;

	used = 4096;    /* the frames' words below, the objects above */
	fn = function("hot", 28, "/srv/app/hot.js", true, NULL);
	/* its prologue: the function slot not pushed yet */
	fp = frame(100, fn, 0, 0, 0);
	cr_assert_eq(js_frame__read(&v, fp, fp - 8, &f, &why), -EINVAL);
	cr_assert(strstr(why, "prologue"), "%s", why);
	/* the function slot holds a Script, a Smi */
	fp = frame(200, object(167, 4), 0, 0, 0);
	cr_assert_eq(js_frame__read(&v, fp, 0, &f, &why), -EINVAL);
	cr_assert(strstr(why, "no JSFunction"), "%s", why);
	fp = frame(300, smi(1), 0, 0, 0);
	cr_assert_eq(js_frame__read(&v, fp, 0, &f, &why), -EINVAL);
	/* the context slot holds no Context */
	fp = frame(400, fn, 0, 0, 0);
	arena[399] = str1("no context");
	cr_assert_eq(js_frame__read(&v, fp, 0, &f, &why), -EINVAL);
	cr_assert(strstr(why, "no Context"), "%s", why);
	/* a JSFunction whose shared slot is not a SharedFunctionInfo */
	fn = object(2066, 6);
	*W(fn, 24) = object(167, 4);
	fp = frame(500, fn, 0, 0, 0);
	cr_assert_eq(js_frame__read(&v, fp, 0, &f, &why), -EINVAL);
	/* a V8 frame type: named where a JavaScript frame led to it, never at the top */
	fp = frame(600, fn, 0, 0, 0);
	arena[599] = 1 << 1;                    /* EntryFrame */
	cr_assert_eq(js_frame__read(&v, fp, 0, &f, &why), 0, "%s", why);
	cr_assert_eq(f.kind, JS_FRAME_V8);
	cr_assert_str_eq(f.marker_name, "EntryFrame");
	cr_assert_eq(js_frame__read(&v, fp, fp - 48, &f, &why), -EINVAL);
	arena[599] = 9 << 1;                    /* a type this build does not name */
	cr_assert_eq(js_frame__read(&v, fp, 0, &f, &why), -EINVAL);
	arena[599] = 0;                         /* none */
	cr_assert_eq(js_frame__read(&v, fp, 0, &f, &why), -EINVAL);
	/* unaligned, and outside the process */
	cr_assert_eq(js_frame__read(&v, fp + 4, 0, &f, &why), -EINVAL);
	cr_assert_eq(js_frame__read(&v, 0x10000, 0, &f, &why), -EFAULT);
}
