/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `prof record` command line: defaults, each option, and the messages of bad ones. */
#include <errno.h>
#include <string.h>
#include <linux/perf_event.h>
#include <criterion/criterion.h>

#include "prof/cli/record_opts.h"

/*
 * record_opts__parse() takes a mutable argv and keeps pointers into it, so the words
 * are copied into storage that lives as long as the test.
 */
struct args {
	int argc;
	char *argv[32];
	char buf[2048];
};

static void args__set(struct args *a, const char *const *words)
{
	size_t off = 0;

	a->argc = 0;
	for (; *words; words++) {
		size_t n = strlen(*words) + 1;

		cr_assert_lt(a->argc, 31, "too many words for the fixture");
		cr_assert_leq(off + n, sizeof(a->buf), "words too long for the fixture");
		memcpy(a->buf + off, *words, n);
		a->argv[a->argc++] = a->buf + off;
		off += n;
	}
	a->argv[a->argc] = NULL;
}

struct ctx {
	struct record_opts opts;
	struct args args;
	char err[512];
};

static int parse_words(struct ctx *c, const char *const *words)
{
	record_opts__init(&c->opts);
	memset(c->err, 0, sizeof(c->err));
	args__set(&c->args, words);
	return record_opts__parse(&c->opts, c->args.argc, c->args.argv, c->err, sizeof(c->err));
}

/* PARSE(&c, "-a", "-F", "99"): argv[0] is the verb, as cmd_record passes it. */
#define PARSE(c, ...) parse_words((c), (const char *const[]){ "record", __VA_ARGS__, NULL })

#define assert_err_has(c, needle)                                              \
	cr_assert_not_null(strstr((c)->err, (needle)),                         \
			   "message '%s' should mention '%s'", (c)->err, (needle))

Test(record_opts, defaults)
{
	struct record_opts o;

	memset(&o, 0xa5, sizeof(o));
	record_opts__init(&o);
	cr_assert_not(o.all);
	cr_assert_not(o.freq_max);
	cr_assert_eq(o.freq, RECORD_DEFAULT_FREQ);
	cr_assert_eq(o.freq, 4000);
	cr_assert_eq(o.period, 0);
	cr_assert_eq(o.events[0].type, PERF_TYPE_HARDWARE);
	cr_assert_eq(o.events[0].config, PERF_COUNT_HW_CPU_CYCLES);
	cr_assert_str_eq(o.events[0].name, "cycles");
	cr_assert_not(o.events[0].exclude_user);
	cr_assert_not(o.events[0].exclude_kernel);
	cr_assert_not(o.event_given);
	cr_assert_not(o.callchain);
	cr_assert_eq(o.mmap_pages, RECORD_DEFAULT_PAGES);
	cr_assert_str_eq(o.output, "perf.data");
	cr_assert_eq(o.duration, 0.0);
	cr_assert_not(o.quiet);
	cr_assert_null(o.argv);
	cr_assert_eq(o.argc, 0);
}

Test(record_opts, all_alone_keeps_defaults)
{
	struct ctx c;

	cr_assert_eq(PARSE(&c, "-a"), 0, "err: %s", c.err);
	cr_assert(c.opts.all);
	cr_assert_null(c.opts.argv);
	cr_assert_eq(c.opts.argc, 0);
	cr_assert_eq(c.opts.freq, 4000);
	cr_assert_eq(c.opts.period, 0);
	cr_assert_str_eq(c.opts.output, "perf.data");
	cr_assert_eq(c.opts.mmap_pages, 128);
}

Test(record_opts, long_all_and_all_cpus)
{
	struct ctx c;

	cr_assert_eq(PARSE(&c, "--all"), 0, "err: %s", c.err);
	cr_assert(c.opts.all);
	cr_assert_eq(PARSE(&c, "--all-cpus"), 0, "err: %s", c.err);
	cr_assert(c.opts.all);
}

Test(record_opts, freq)
{
	struct ctx c;

	cr_assert_eq(PARSE(&c, "-a", "-F", "999"), 0, "err: %s", c.err);
	cr_assert_eq(c.opts.freq, 999);
	cr_assert_not(c.opts.freq_max);
	cr_assert_eq(c.opts.period, 0);

	cr_assert_eq(PARSE(&c, "-a", "--freq=50"), 0, "err: %s", c.err);
	cr_assert_eq(c.opts.freq, 50);
}

Test(record_opts, freq_max)
{
	struct ctx c;

	cr_assert_eq(PARSE(&c, "-a", "-F", "max"), 0, "err: %s", c.err);
	cr_assert(c.opts.freq_max);
	cr_assert_eq(c.opts.period, 0);
}

Test(record_opts, freq_bad_values)
{
	static const char *const bad[] = { "0", "-5", "abc", "10x", "", "maxx" };
	struct ctx c;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_eq(PARSE(&c, "-a", "-F", bad[i]), -EINVAL, "-F '%s' accepted", bad[i]);
		assert_err_has(&c, "frequency");
	}
}

Test(record_opts, period)
{
	struct ctx c;

	cr_assert_eq(PARSE(&c, "-a", "-c", "100003"), 0, "err: %s", c.err);
	cr_assert_eq(c.opts.period, 100003);
	cr_assert_eq(c.opts.freq, 0, "a period turns frequency sampling off");
	cr_assert_not(c.opts.freq_max);

	cr_assert_eq(PARSE(&c, "-a", "--count", "0x10"), 0, "err: %s", c.err);
	cr_assert_eq(c.opts.period, 16);
}

Test(record_opts, period_bad_values)
{
	static const char *const bad[] = { "0", "-1", "ten", "" };
	struct ctx c;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_eq(PARSE(&c, "-a", "-c", bad[i]), -EINVAL, "-c '%s' accepted", bad[i]);
		assert_err_has(&c, "period");
	}
}

Test(record_opts, freq_and_period_exclude_each_other)
{
	struct ctx c;

	cr_assert_eq(PARSE(&c, "-a", "-F", "99", "-c", "1000"), -EINVAL);
	assert_err_has(&c, "-F");
	assert_err_has(&c, "-c");

	cr_assert_eq(PARSE(&c, "-a", "-c", "1000", "-F", "max"), -EINVAL);
	assert_err_has(&c, "-F");
}

Test(record_opts, event_cpu_clock)
{
	struct ctx c;

	cr_assert_eq(PARSE(&c, "-a", "-e", "cpu-clock"), 0, "err: %s", c.err);
	cr_assert(c.opts.event_given);
	cr_assert_eq(c.opts.events[0].type, PERF_TYPE_SOFTWARE);
	cr_assert_eq(c.opts.events[0].config, PERF_COUNT_SW_CPU_CLOCK);
	cr_assert_str_eq(c.opts.events[0].name, "cpu-clock");
}

Test(record_opts, event_with_modifier)
{
	struct ctx c;

	cr_assert_eq(PARSE(&c, "-a", "--event=cycles:u"), 0, "err: %s", c.err);
	cr_assert(c.opts.event_given);
	cr_assert_eq(c.opts.events[0].type, PERF_TYPE_HARDWARE);
	cr_assert_eq(c.opts.events[0].config, PERF_COUNT_HW_CPU_CYCLES);
	cr_assert(c.opts.events[0].exclude_kernel);
	cr_assert_not(c.opts.events[0].exclude_user);
	cr_assert_str_eq(c.opts.events[0].name, "cycles:u");
}

Test(record_opts, event_unknown_names_it_and_lists_known)
{
	struct ctx c;

	cr_assert_eq(PARSE(&c, "-a", "-e", "bogus-event"), -EINVAL);
	assert_err_has(&c, "bogus-event");
	assert_err_has(&c, "unknown event");
	assert_err_has(&c, "cycles");
	assert_err_has(&c, "cpu-clock");
	assert_err_has(&c, "page-faults");
}

Test(record_opts, event_bad_modifier)
{
	struct ctx c;

	cr_assert_eq(PARSE(&c, "-a", "-e", "cycles:q"), -EINVAL);
	assert_err_has(&c, "cycles:q");
	assert_err_has(&c, "modifier");
}

Test(record_opts, mmap_pages)
{
	struct ctx c;

	cr_assert_eq(PARSE(&c, "-a", "-m", "256"), 0, "err: %s", c.err);
	cr_assert_eq(c.opts.mmap_pages, 256);
	cr_assert_eq(PARSE(&c, "-a", "--mmap-pages", "1024"), 0, "err: %s", c.err);
	cr_assert_eq(c.opts.mmap_pages, 1024);
}

/* Unset, the ring buffers hold RECORD_RING_MS of samples at the rate, within bounds. */
Test(record_opts, auto_pages_follow_the_rate)
{
	struct ctx c;

	cr_assert_eq(PARSE(&c, "-a"), 0, "err: %s", c.err);
	cr_assert_eq(record_opts__auto_pages(&c.opts, 2), RECORD_DEFAULT_PAGES, "4 kHz: perf's default");
	cr_assert_eq(PARSE(&c, "-a", "-g", "-F", "80000"), 0, "err: %s", c.err);
	/* 80,000 x (80 + 192) bytes x 0.15 s = 3.3 MB: 1024 pages of 4 KiB */
	cr_assert_eq(record_opts__auto_pages(&c.opts, 2), 1024);
	cr_assert_eq(record_opts__auto_pages(&c.opts, 256), 256, "256 CPUs: at most 256 MiB in all");
	cr_assert_eq(record_opts__auto_pages(&c.opts, 4096), RECORD_DEFAULT_PAGES, "never below the default");
	cr_assert_eq(PARSE(&c, "-a", "-g", "-F", "10000000"), 0, "err: %s", c.err);
	cr_assert_eq(record_opts__auto_pages(&c.opts, 1), RECORD_AUTO_MAX_PAGES);
	cr_assert_eq(PARSE(&c, "-a", "-g", "-c", "1000"), 0, "err: %s", c.err);
	cr_assert_eq(record_opts__auto_pages(&c.opts, 2), RECORD_DEFAULT_PAGES, "a period: the rate is unknown");
}

Test(record_opts, mmap_pages_bad_values)
{
	static const char *const bad[] = { "3", "100", "0", "-4", "many", "2097152" };
	struct ctx c;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_eq(PARSE(&c, "-a", "-m", bad[i]), -EINVAL, "-m '%s' accepted", bad[i]);
		assert_err_has(&c, bad[i]);
		assert_err_has(&c, "power of two");
	}
}

Test(record_opts, output)
{
	struct ctx c;

	cr_assert_eq(PARSE(&c, "-a", "-o", "/tmp/x.data"), 0, "err: %s", c.err);
	cr_assert_str_eq(c.opts.output, "/tmp/x.data");
	cr_assert_eq(PARSE(&c, "-a", "--output=y.data"), 0, "err: %s", c.err);
	cr_assert_str_eq(c.opts.output, "y.data");

	cr_assert_eq(PARSE(&c, "-a", "-o", ""), -EINVAL);
	assert_err_has(&c, "output");
}

Test(record_opts, duration)
{
	struct ctx c;

	cr_assert_eq(PARSE(&c, "-a", "-d", "10"), 0, "err: %s", c.err);
	cr_assert_eq(c.opts.duration, 10.0);
	cr_assert_eq(PARSE(&c, "-a", "--duration", "0.5"), 0, "err: %s", c.err);
	cr_assert_eq(c.opts.duration, 0.5);
	cr_assert_eq(PARSE(&c, "-a", "--duration=2.25"), 0, "err: %s", c.err);
	cr_assert_eq(c.opts.duration, 2.25);
}

Test(record_opts, duration_bad_values)
{
	static const char *const bad[] = { "0", "-1", "abc", "10s", "", "inf", "nan", "1e10" };
	struct ctx c;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_eq(PARSE(&c, "-a", "-d", bad[i]), -EINVAL, "-d '%s' accepted", bad[i]);
		assert_err_has(&c, "duration");
	}
}

Test(record_opts, quiet)
{
	struct ctx c;

	cr_assert_eq(PARSE(&c, "-a", "-q"), 0, "err: %s", c.err);
	cr_assert(c.opts.quiet);
}

Test(record_opts, callchain)
{
	struct ctx c;

	cr_assert_eq(PARSE(&c, "-a", "-g"), 0, "err: %s", c.err);
	cr_assert(c.opts.callchain);
	cr_assert_eq(PARSE(&c, "-a", "--call-graph"), 0, "err: %s", c.err);
	cr_assert(c.opts.callchain);
	cr_assert_eq(PARSE(&c, "-a", "--call-graph=fp"), 0, "err: %s", c.err);
	cr_assert(c.opts.callchain);
	cr_assert_eq(PARSE(&c, "-a"), 0, "err: %s", c.err);
	cr_assert_not(c.opts.callchain);
}

Test(record_opts, callchain_dwarf)
{
	struct ctx c;

	/* perf's syntax: the mode as the next word, or joined with '=' */
	cr_assert_eq(PARSE(&c, "--call-graph", "dwarf", "--", "true"), 0, "err: %s", c.err);
	cr_assert(c.opts.callchain);
	cr_assert(c.opts.dwarf);
	cr_assert_eq(c.opts.stack_size, 8192);
	cr_assert_eq(c.opts.argc, 1, "'dwarf' must not be taken as the command");
	cr_assert_str_eq(c.opts.argv[0], "true");
	cr_assert_eq(PARSE(&c, "-a", "--call-graph=dwarf,16384"), 0, "err: %s", c.err);
	cr_assert(c.opts.dwarf);
	cr_assert_eq(c.opts.stack_size, 16384);
	cr_assert_eq(PARSE(&c, "-a", "--call-graph", "dwarf,1000"), 0, "err: %s", c.err);
	cr_assert_eq(c.opts.stack_size, 1000);
	cr_assert_eq(PARSE(&c, "-a", "--call-graph", "dwarf,1001"), 0, "err: %s", c.err);
	cr_assert_eq(c.opts.stack_size, 1008, "rounded up to 8 bytes, as perf does");
	cr_assert_eq(PARSE(&c, "-a", "--call-graph", "dwarf,65528"), 0, "err: %s", c.err);
	cr_assert_eq(c.opts.stack_size, 65528);
	/* fp, and -g after dwarf, are frame pointers again */
	cr_assert_eq(PARSE(&c, "-a", "--call-graph", "fp"), 0, "err: %s", c.err);
	cr_assert(c.opts.callchain);
	cr_assert_not(c.opts.dwarf);
	cr_assert_eq(PARSE(&c, "-a", "--call-graph", "dwarf", "-g"), 0, "err: %s", c.err);
	cr_assert_not(c.opts.dwarf);
	/* bare --call-graph before a command is frame pointers, the command kept */
	cr_assert_eq(PARSE(&c, "--call-graph", "--", "sleep", "1"), 0, "err: %s", c.err);
	cr_assert(c.opts.callchain);
	cr_assert_not(c.opts.dwarf);
	cr_assert_eq(c.opts.argc, 2);
}

Test(record_opts, callchain_bad_modes)
{
	struct ctx c;

	cr_assert_eq(PARSE(&c, "-a", "--call-graph=lbr"), -EINVAL);
	assert_err_has(&c, "'lbr' is not supported");
	cr_assert_eq(PARSE(&c, "-a", "--call-graph", "lbr"), -EINVAL, "lbr is a mode word, not a command");
	cr_assert_eq(PARSE(&c, "-a", "--call-graph=dwarf,0"), -EINVAL);
	assert_err_has(&c, "bad stack dump size");
	cr_assert_eq(PARSE(&c, "-a", "--call-graph", "dwarf,65536"), -EINVAL);
	assert_err_has(&c, "65528");
	cr_assert_eq(PARSE(&c, "-a", "--call-graph", "dwarf,lots"), -EINVAL);
	assert_err_has(&c, "dwarf,lots");
	cr_assert_eq(PARSE(&c, "-a", "--call-graph=dwarf,"), -EINVAL);
	cr_assert_eq(PARSE(&c, "-a", "--call-graph=dwarfish"), -EINVAL);
}

Test(record_opts, workload_after_dashdash)
{
	struct ctx c;

	cr_assert_eq(PARSE(&c, "-F", "99", "--", "sleep", "1"), 0, "err: %s", c.err);
	cr_assert_not(c.opts.all);
	cr_assert_eq(c.opts.argc, 2);
	cr_assert_eq(c.opts.argv, c.args.argv + 4, "argv should point into the caller's argv");
	cr_assert_str_eq(c.opts.argv[0], "sleep");
	cr_assert_str_eq(c.opts.argv[1], "1");
	cr_assert_null(c.opts.argv[2]);
	cr_assert_eq(c.opts.freq, 99);
}

Test(record_opts, workload_options_are_its_own)
{
	struct ctx c;

	/* Options after the command belong to the command, even without "--". */
	cr_assert_eq(PARSE(&c, "-q", "ls", "-l", "-a", "-F", "1"), 0, "err: %s", c.err);
	cr_assert(c.opts.quiet);
	cr_assert_not(c.opts.all);
	cr_assert_eq(c.opts.freq, 4000);
	cr_assert_eq(c.opts.argc, 5);
	cr_assert_str_eq(c.opts.argv[0], "ls");
	cr_assert_str_eq(c.opts.argv[1], "-l");
	cr_assert_str_eq(c.opts.argv[4], "1");
	cr_assert_null(c.opts.argv[5]);

	cr_assert_eq(PARSE(&c, "--", "prog", "--help"), 0, "err: %s", c.err);
	cr_assert_eq(c.opts.argc, 2);
	cr_assert_str_eq(c.opts.argv[1], "--help");
}

Test(record_opts, all_with_workload)
{
	struct ctx c;

	cr_assert_eq(PARSE(&c, "-a", "--", "true"), 0, "err: %s", c.err);
	cr_assert(c.opts.all);
	cr_assert_eq(c.opts.argc, 1);
	cr_assert_str_eq(c.opts.argv[0], "true");
}

Test(record_opts, nothing_to_record)
{
	struct ctx c;

	cr_assert_eq(parse_words(&c, (const char *const[]){ "record", NULL }), -EINVAL);
	assert_err_has(&c, "nothing to record");
	cr_assert_eq(PARSE(&c, "-q", "-F", "99"), -EINVAL);
	assert_err_has(&c, "nothing to record");
	cr_assert_eq(PARSE(&c, "-q", "--"), -EINVAL);
	assert_err_has(&c, "nothing to record");
}

Test(record_opts, help)
{
	struct ctx c;

	cr_assert_eq(PARSE(&c, "--help"), 1);
	cr_assert_eq(PARSE(&c, "-h"), 1);
	cr_assert_eq(PARSE(&c, "-a", "-h", "-F", "0"), 1, "--help wins over later bad options");
	cr_assert_not_null(strstr(record_opts__usage, "--duration"));
	cr_assert_not_null(strstr(record_opts__usage, "usage:"));
}

Test(record_opts, unknown_long_option)
{
	struct ctx c;

	cr_assert_eq(PARSE(&c, "--bogus", "--", "true"), -EINVAL);
	assert_err_has(&c, "unknown option");
	assert_err_has(&c, "--bogus");
}

Test(record_opts, unknown_short_option)
{
	struct ctx c;

	cr_assert_eq(PARSE(&c, "-x", "--", "true"), -EINVAL);
	assert_err_has(&c, "unknown option");
	assert_err_has(&c, "-x");
}

Test(record_opts, unknown_short_option_in_cluster)
{
	struct ctx c;

	/* The unknown letter comes first in a cluster: the message must still name it. */
	cr_assert_eq(PARSE(&c, "-xa", "--", "true"), -EINVAL);
	assert_err_has(&c, "unknown option");
	assert_err_has(&c, "-x");
}

Test(record_opts, missing_value)
{
	struct ctx c;

	cr_assert_eq(PARSE(&c, "-a", "-F"), -EINVAL);
	assert_err_has(&c, "needs a value");
	assert_err_has(&c, "-F");
	cr_assert_eq(PARSE(&c, "-a", "--output"), -EINVAL);
	assert_err_has(&c, "--output");
}

Test(record_opts, parse_twice_in_one_process)
{
	struct ctx c1, c2;

	/*
	 * The first parse fails in the middle of the cluster "-qzq", leaving getopt's
	 * state on the last 'q'; the second must start afresh from its own argv[1],
	 * not resume the first one's cluster (which would set quiet).
	 */
	cr_assert_eq(PARSE(&c1, "-qzq", "--", "true"), -EINVAL);
	cr_assert_eq(PARSE(&c2, "-F", "99", "-o", "two.data", "--", "sleep", "2"), 0, "err: %s", c2.err);
	cr_assert_eq(c2.opts.freq, 99);
	cr_assert_str_eq(c2.opts.output, "two.data");
	cr_assert_not(c2.opts.quiet);
	cr_assert_eq(c2.opts.argc, 2);
	cr_assert_str_eq(c2.opts.argv[0], "sleep");

	/* And a third, successful one, after a successful one. */
	cr_assert_eq(PARSE(&c1, "-a", "-g"), 0, "err: %s", c1.err);
	cr_assert(c1.opts.all);
	cr_assert(c1.opts.callchain);
	cr_assert_null(c1.opts.argv);
}

/* -e a,b: several sampling events, as perf record takes them; -e a -e b is the same. */
Test(record_opts, several_events)
{
	struct ctx c;

	cr_assert_eq(PARSE(&c, "-a", "-e", "cpu-clock,page-faults:u"), 0, "err: %s", c.err);
	cr_assert_eq(c.opts.nr_events, 2);
	cr_assert_str_eq(c.opts.events[0].name, "cpu-clock");
	cr_assert_eq(c.opts.events[1].config, PERF_COUNT_SW_PAGE_FAULTS);
	cr_assert(c.opts.events[1].exclude_kernel);
	cr_assert_eq(PARSE(&c, "-a", "-e", "cpu-clock", "-e", "page-faults"), 0, "err: %s", c.err);
	cr_assert_eq(c.opts.nr_events, 2, "a second -e adds, the first replaces the default");
	cr_assert_str_eq(c.opts.events[1].name, "page-faults");
	cr_assert_eq(PARSE(&c, "-a", "-e", "cpu-clock,cpu-clock"), -EINVAL);
	assert_err_has(&c, "given twice");
	cr_assert_eq(PARSE(&c, "-a", "-e", "cpu-clock,"), -EINVAL);
	assert_err_has(&c, "separated by commas");
	cr_assert_eq(PARSE(&c, "-a", "-e", "cpu-clock,bogus"), -EINVAL);
	assert_err_has(&c, "unknown event 'bogus'");
	cr_assert_eq(PARSE(&c, "-a", "-e", "cycles,instructions,branches,branch-misses,cache-misses,"
			   "cache-references,cpu-clock,task-clock,page-faults"), -EINVAL);
	assert_err_has(&c, "at most 8");
}

Test(record_opts, off_cpu_max_rate)
{
	struct ctx c;

	cr_assert_eq(PARSE(&c, "-a", "--off-cpu"), 0, "err: %s", c.err);
	cr_assert_eq(c.opts.off_cpu_max_rate, 0, "0: the default");
	cr_assert_eq(PARSE(&c, "-a", "--off-cpu", "--off-cpu-max-rate", "2000"), 0, "err: %s", c.err);
	cr_assert_eq(c.opts.off_cpu_max_rate, 2000);
	cr_assert_eq(PARSE(&c, "-a", "--off-cpu", "--off-cpu-max-rate=0"), 0, "err: %s", c.err);
	cr_assert_eq(c.opts.off_cpu_max_rate, RECORD_OFFCPU_UNBOUNDED, "0: a stack at every switch");
	cr_assert_lt(PARSE(&c, "-a", "--off-cpu", "--off-cpu-max-rate", "x"), 0);
	cr_assert(strstr(c.err, "--off-cpu-max-rate"), "err: %s", c.err);
	cr_assert_lt(PARSE(&c, "-a", "--off-cpu-max-rate", "100"), 0, "without --off-cpu");
	cr_assert(strstr(c.err, "give --off-cpu too"), "err: %s", c.err);
}
