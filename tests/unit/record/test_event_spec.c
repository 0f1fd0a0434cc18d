/* SPDX-License-Identifier: GPL-2.0-or-later */
/* -e event names: the table, aliases, modifiers, raw codes and the error returns. */
#include <errno.h>
#include <string.h>
#include <linux/perf_event.h>
#include <criterion/criterion.h>

#include "prof/record/event_spec.h"

/* A spec no parse produces, to prove failures leave *ret untouched. */
static void poison(struct event_spec *e)
{
	memset(e, 0x5a, sizeof(*e));
	e->name[sizeof(e->name) - 1] = '\0';
}

static void assert_untouched(const struct event_spec *e)
{
	struct event_spec ref;

	poison(&ref);
	cr_assert_arr_eq(e, &ref, sizeof(ref), "a failed parse changed *ret");
}

static void assert_event(const char *str, uint32_t type, uint64_t config, const char *name)
{
	struct event_spec e;
	int r;

	poison(&e);
	r = event_spec__parse(str, &e);
	cr_assert_eq(r, 0, "'%s' -> %d", str, r);
	cr_assert_eq(e.type, type, "'%s': type %u, want %u", str, e.type, type);
	cr_assert_eq(e.config, config, "'%s': config %#llx, want %#llx", str,
		     (unsigned long long)e.config, (unsigned long long)config);
	cr_assert_str_eq(e.name, name);
	cr_assert_not(e.exclude_user, "'%s' excludes user", str);
	cr_assert_not(e.exclude_kernel, "'%s' excludes kernel", str);
}

Test(event_spec, hardware_names)
{
	assert_event("cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cycles");
	assert_event("instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "instructions");
	assert_event("cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, "cache-misses");
	assert_event("branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, "branch-misses");
	assert_event("ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, "ref-cycles");
}

Test(event_spec, software_names)
{
	assert_event("cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, "cpu-clock");
	assert_event("task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "task-clock");
	assert_event("page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "page-faults");
	assert_event("major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, "major-faults");
	assert_event("context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES,
		     "context-switches");
}

Test(event_spec, aliases)
{
	assert_event("cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cpu-cycles");
	assert_event("branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "branches");
	assert_event("branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
		     "branch-instructions");
	assert_event("faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "faults");
	assert_event("cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "cs");
	assert_event("migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, "migrations");
	assert_event("cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, "cpu-migrations");
}

Test(event_spec, modifier_u)
{
	struct event_spec e;

	cr_assert_eq(event_spec__parse("cycles:u", &e), 0);
	cr_assert_eq(e.type, PERF_TYPE_HARDWARE);
	cr_assert_eq(e.config, PERF_COUNT_HW_CPU_CYCLES);
	cr_assert_not(e.exclude_user);
	cr_assert(e.exclude_kernel);
	cr_assert_str_eq(e.name, "cycles:u");
}

Test(event_spec, modifier_k)
{
	struct event_spec e;

	cr_assert_eq(event_spec__parse("cpu-clock:k", &e), 0);
	cr_assert_eq(e.type, PERF_TYPE_SOFTWARE);
	cr_assert_eq(e.config, PERF_COUNT_SW_CPU_CLOCK);
	cr_assert(e.exclude_user);
	cr_assert_not(e.exclude_kernel);
	cr_assert_str_eq(e.name, "cpu-clock:k");
}

Test(event_spec, modifier_uk)
{
	struct event_spec e;

	cr_assert_eq(event_spec__parse("instructions:uk", &e), 0);
	cr_assert_not(e.exclude_user);
	cr_assert_not(e.exclude_kernel);
	cr_assert_str_eq(e.name, "instructions:uk");

	/* Order does not matter; the name is written the canonical way. */
	poison(&e);
	cr_assert_eq(event_spec__parse("instructions:ku", &e), 0);
	cr_assert_not(e.exclude_user);
	cr_assert_not(e.exclude_kernel);
	cr_assert_str_eq(e.name, "instructions:uk");
}

Test(event_spec, bad_modifier)
{
	static const char *const bad[] = { "cycles:x", "cycles:", "cycles:up", "cycles:u:k",
					   "cpu-clock:U" };
	struct event_spec e;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r;

		poison(&e);
		r = event_spec__parse(bad[i], &e);
		cr_assert_eq(r, -EINVAL, "'%s' -> %d, want -EINVAL", bad[i], r);
		assert_untouched(&e);
	}
}

Test(event_spec, unknown)
{
	static const char *const bad[] = { "nope", "", "cycle", "cyclesx", "Xcycles", "cpu_clock",
					   ":u", "r", "r:u",
					   "an-event-name-that-is-much-too-long-for-the-name-field" };
	struct event_spec e;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r;

		poison(&e);
		r = event_spec__parse(bad[i], &e);
		cr_assert_eq(r, -ENOENT, "'%s' -> %d, want -ENOENT", bad[i], r);
		assert_untouched(&e);
	}
}

Test(event_spec, unknown_name_with_modifier_is_unknown)
{
	struct event_spec e;

	poison(&e);
	cr_assert_eq(event_spec__parse("nope:u", &e), -ENOENT);
	assert_untouched(&e);
}

Test(event_spec, raw)
{
	struct event_spec e;

	assert_event("r01c2", PERF_TYPE_RAW, 0x1c2, "r01c2");
	assert_event("rC0", PERF_TYPE_RAW, 0xc0, "rC0");
	assert_event("r0", PERF_TYPE_RAW, 0, "r0");

	cr_assert_eq(event_spec__parse("r1a:u", &e), 0);
	cr_assert_eq(e.type, PERF_TYPE_RAW);
	cr_assert_eq(e.config, 0x1a);
	cr_assert(e.exclude_kernel);
	cr_assert_not(e.exclude_user);
	cr_assert_str_eq(e.name, "r1a:u");
}

Test(event_spec, raw_bad_codes)
{
	/*
	 * Not hex digits after 'r': rejected (the header says -EINVAL for a bad raw code;
	 * either error is a clear message to the user, so only failure is asserted).
	 * "r-1" must not wrap to 0xffffffffffffffff, nor "r 1c2" skip the blank.
	 */
	static const char *const bad[] = { "rxyz", "r12g", "r-1", "r+1c2", "r 1c2",
					   "r10000000000000000" };
	struct event_spec e;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r;

		/* Expect, not assert: report every code that slips through. */
		poison(&e);
		r = event_spec__parse(bad[i], &e);
		cr_expect_lt(r, 0, "'%s' accepted (config %#llx)", bad[i],
			     (unsigned long long)e.config);
		if (r < 0)
			assert_untouched(&e);
	}
}

Test(event_spec, cpu_clock_fallback)
{
	struct event_spec e, parsed;

	memset(&e, 0xff, sizeof(e));
	event_spec__cpu_clock(&e);
	cr_assert_eq(e.type, PERF_TYPE_SOFTWARE);
	cr_assert_eq(e.config, PERF_COUNT_SW_CPU_CLOCK);
	cr_assert_not(e.exclude_user);
	cr_assert_not(e.exclude_kernel);
	cr_assert_str_eq(e.name, "cpu-clock");
	cr_assert_not(event_spec__is_hardware(&e));

	/* The fallback is the same event -e cpu-clock names. */
	cr_assert_eq(event_spec__parse("cpu-clock", &parsed), 0);
	cr_assert_eq(parsed.type, e.type);
	cr_assert_eq(parsed.config, e.config);
	cr_assert_str_eq(parsed.name, e.name);
}

Test(event_spec, is_hardware)
{
	static const struct {
		const char *name;
		bool hw;
	} cases[] = {
		{ "cycles", true },
		{ "instructions:u", true },
		{ "branch-misses", true },
		{ "r01c2", true },
		{ "cpu-clock", false },
		{ "task-clock", false },
		{ "page-faults", false },
		{ "cs:k", false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct event_spec e;

		cr_assert_eq(event_spec__parse(cases[i].name, &e), 0, "%s", cases[i].name);
		cr_assert_eq(event_spec__is_hardware(&e), cases[i].hw, "%s", cases[i].name);
	}
}

Test(event_spec, known_names_full)
{
	char buf[2048];
	const char *p;

	event_spec__known_names(buf, sizeof(buf));
	cr_assert_eq(strncmp(buf, "cycles, ", 8), 0, "list starts '%.20s'", buf);
	cr_assert_not_null(strstr(buf, ", cpu-clock, "));
	cr_assert_not_null(strstr(buf, ", page-faults, "));
	p = strstr(buf, "rNNNN (raw)");
	cr_assert_not_null(p, "raw syntax missing from '%s'", buf);
	cr_assert_str_eq(p, "rNNNN (raw)", "raw syntax should end the list");

	/* Every listed name parses. */
	for (p = buf; *p;) {
		char name[64];
		size_t n = strcspn(p, ",");
		struct event_spec e;

		cr_assert_lt(n, sizeof(name));
		memcpy(name, p, n);
		name[n] = '\0';
		if (strcmp(name, "rNNNN (raw)"))
			cr_assert_eq(event_spec__parse(name, &e), 0, "listed '%s' does not parse", name);
		p += n;
		if (*p == ',')
			p += 2;
	}
}

Test(event_spec, known_names_small_buffers)
{
	char full[2048];
	size_t full_len;

	event_spec__known_names(full, sizeof(full));
	full_len = strlen(full);
	cr_assert_gt(full_len, 100);

	/* Every size up to past the full length: NUL-terminated, a prefix, no overrun. */
	for (size_t size = 1; size <= full_len + 2; size++) {
		char buf[2048 + 64];
		size_t len;

		memset(buf, '#', sizeof(buf));
		event_spec__known_names(buf, size);
		for (size_t i = size; i < sizeof(buf); i++)
			cr_assert_eq(buf[i], '#', "size %zu: byte %zu written", size, i);
		len = strnlen(buf, size);
		cr_assert_lt(len, size, "size %zu: not NUL-terminated", size);
		cr_assert_eq(strncmp(buf, full, len), 0, "size %zu: '%s' not a prefix", size, buf);
		if (size > full_len)
			cr_assert_str_eq(buf, full, "size %zu: truncated needlessly", size);
	}
}
