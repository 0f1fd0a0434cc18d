/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * profd's symbols (symbols__set_lean): the same names as a report's for this test's
 * own objects (its program, libc, libstdc++'s C++ names), no object file left mapped,
 * and past the budget the least recently used objects' tables let go and read again.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>

#include "prof/analyze/model.h"
#include "prof/analyze/resolver.h"
#include "prof/analyze/symbols.h"
#include "prof/base/strset.h"
#include "own_maps.h"

static struct model *model;
static struct strset names;

static void feed(const struct perf_event_header *ev, void *ctx)
{
	cr_assert_eq(model__process(model, ev), 0);
}

static void setup(void)
{
	model = model__new();
	cr_assert_not_null(model);
	cr_assert_gt(own_maps(getpid(), feed, NULL), 0);
}

static void teardown(void)
{
	model__free(model);
	strset__release(&names);
}

TestSuite(symbols_lean, .init = setup, .fini = teardown);

__attribute__((noinline)) static int lean_test_target(int x)
{
	return x * 3 + 1;
}

/* The function at ip as a resolver over syms names it. */
static const char *name_at(struct symbols *syms, uint64_t ip)
{
	struct resolver r = { .model = model, .syms = syms, .names = &names };
	struct profile_frame f;

	resolver__frame(&r, getpid(), false, ip, &f);
	return f.sym;
}

/* Addresses in three objects: this program, libc, libstdc++ (a C++ name). */
static uint64_t addrs(uint64_t v[3])
{
	void *cxx = dlsym(RTLD_DEFAULT, "_ZSt9terminatev");     /* std::terminate() */

	cr_assert_not_null(cxx, "libstdc++ is not mapped: %s", dlerror());
	v[0] = (uint64_t)(uintptr_t)lean_test_target + 1;
	v[1] = (uint64_t)(uintptr_t)qsort + 1;
	v[2] = (uint64_t)(uintptr_t)cxx + 1;
	return 3;
}

/* The number of this process's mappings of path. */
static int mapped(const char *path)
{
	char line[4608];
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0;

	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f))
		n += strstr(line, path) != NULL;
	fclose(f);
	return n;
}

Test(symbols_lean, same_names_as_a_report)
{
	struct symbols *full = symbols__new(), *lean = symbols__new();
	uint64_t v[3];

	cr_assert(full && lean);
	symbols__set_lean(lean, 64u << 20);
	addrs(v);
	for (int i = 0; i < 3; i++) {
		const char *a = name_at(full, v[i]), *b = name_at(lean, v[i]);

		cr_assert_str_eq(a, b, "address %d: %s by a report's symbols, %s by lean ones", i, a, b);
		cr_assert(strncmp(a, "[unknown]", 9), "address %d not named: %s", i, a);
	}
	cr_assert_str_eq(name_at(lean, v[0]), "lean_test_target");
	cr_assert_str_eq(name_at(lean, v[2]), "std::terminate");
	symbols__free(full);
	symbols__free(lean);
}

Test(symbols_lean, no_object_file_kept_mapped)
{
	struct symbols *full = symbols__new(), *lean = symbols__new();
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int before;

	cr_assert(full && lean && n > 0);
	exe[n] = '\0';
	symbols__set_lean(lean, 64u << 20);
	before = mapped(exe);
	cr_assert_str_eq(name_at(full, (uint64_t)(uintptr_t)lean_test_target), "lean_test_target");
	cr_assert_gt(mapped(exe), before, "a report's symbols map the file (libelf): the check would prove nothing");
	before = mapped(exe);
	cr_assert_str_eq(name_at(lean, (uint64_t)(uintptr_t)lean_test_target), "lean_test_target");
	cr_assert_eq(mapped(exe), before, "the lean symbols left %s mapped", exe);
	symbols__free(full);
	symbols__free(lean);
}

Test(symbols_lean, least_recently_used_let_go_past_the_budget)
{
	struct symbols *lean = symbols__new();
	struct symbols_stats st, one;
	uint64_t v[3];

	cr_assert_not_null(lean);
	symbols__set_lean(lean, 1);     /* every object is past it: one kept at a time */
	addrs(v);
	cr_assert_str_eq(name_at(lean, v[0]), "lean_test_target");
	symbols__stats(lean, &one);
	cr_assert_eq(one.objects, 1);
	cr_assert_gt(one.bytes, 0);
	cr_assert_str_neq(name_at(lean, v[1]), "lean_test_target");
	cr_assert_str_eq(name_at(lean, v[2]), "std::terminate");
	symbols__stats(lean, &st);
	cr_assert_eq(st.objects, 1, "%lu objects' tables held past the budget", (unsigned long)st.objects);
	cr_assert_eq(st.loaded, 3);
	cr_assert_eq(st.evicted, 2);
	/* the first object, let go, is read again (and named the same) */
	cr_assert_str_eq(name_at(lean, v[0]), "lean_test_target");
	symbols__stats(lean, &st);
	cr_assert_eq(st.loaded, 4);
	cr_assert_eq(st.evicted, 3);
	cr_assert_eq(st.bytes, one.bytes, "the program's table: %lu bytes, then %lu", (unsigned long)one.bytes,
		     (unsigned long)st.bytes);
	symbols__free(lean);

	/* within a budget that holds them all, nothing is let go */
	lean = symbols__new();
	symbols__set_lean(lean, 256u << 20);
	for (int i = 0; i < 3; i++)
		name_at(lean, v[i]);
	name_at(lean, v[0]);
	symbols__stats(lean, &st);
	cr_assert_eq(st.loaded, 3);
	cr_assert_eq(st.evicted, 0);
	cr_assert_eq(st.objects, 3);
	symbols__free(lean);
}
