/* SPDX-License-Identifier: GPL-2.0-or-later */
/* prof's section: built, parsed back the same; hostile and truncated text. */
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>

#include "prof/perfdata/prof_section.h"

static struct feat_buf built(const struct prof_section *s)
{
	struct feat_buf b = { 0 };

	prof_section__build(&b, s);
	cr_assert_eq(b.err, 0);
	cr_assert_eq(b.len % 8, 0, "NUL-padded to 8 bytes");
	return b;
}

Test(prof_section, parses_back_what_was_built)
{
	uint32_t uids[] = { 1001, 0 };
	char cg0[] = "/system.slice/nginx.service", cg1[] = "/user.slice/a\nstat lost 99";
	char *cgroups[] = { cg0, cg1 };
	int32_t pids[] = { 1234 };
	struct prof_section_task tasks[] = { { 10, 10, 1001, true }, { 10, 11, 0, false }, { 1, 1, 0, true } };
	struct prof_section in = {
		.kernel_build_id = "0123456789abcdef0123456789abcdef01234567",
		.scope_all = true, .scope_uids = uids, .nr_scope_uids = 2, .scope_cgroups = cgroups,
		.nr_scope_cgroups = 2, .scope_pids = pids, .nr_scope_pids = 1, .scope_workload = 5678,
		.tasks = tasks, .nr_tasks = 3,
		.stats = { .samples_written = 6655, .samples_out_of_scope = 2007, .unattributed_gone = 3,
			   .unattributed_creds = 4, .lost = 5, .lost_samples = 6, .tasks_seen = 27 },
	};
	struct feat_buf b = built(&in);
	struct prof_section out;
	char scope[256];

	cr_assert_eq(prof_section__parse((const char *)b.data, b.len, &out), 0);
	cr_assert_str_eq(out.kernel_build_id, in.kernel_build_id);
	cr_assert(out.scope_all);
	cr_assert_eq(out.nr_scope_uids, 2);
	cr_assert_eq(out.scope_uids[0], 1001);
	cr_assert_eq(out.scope_uids[1], 0);
	cr_assert_eq(out.nr_scope_cgroups, 2);
	cr_assert_str_eq(out.scope_cgroups[0], "/system.slice/nginx.service");
	cr_assert_str_eq(out.scope_cgroups[1], "/user.slice/a", "a path is cut at a newline: no line of its own");
	cr_assert_eq(out.nr_scope_pids, 1);
	cr_assert_eq(out.scope_pids[0], 1234);
	cr_assert_eq(out.scope_workload, 5678);
	cr_assert_eq(out.nr_tasks, 3);
	for (size_t i = 0; i < 3; i++) {
		cr_assert_eq(out.tasks[i].pid, tasks[i].pid);
		cr_assert_eq(out.tasks[i].tid, tasks[i].tid);
		cr_assert_eq(out.tasks[i].uid_known, tasks[i].uid_known, "task %zu", i);
		if (tasks[i].uid_known)
			cr_assert_eq(out.tasks[i].uid, tasks[i].uid);
	}
	cr_assert(out.has_stats);
	cr_assert_eq(memcmp(&out.stats, &in.stats, sizeof(in.stats)), 0, "every stat back (lost stays 5)");
	prof_section__describe_scope(&out, scope, sizeof(scope));
	cr_assert_str_eq(scope, "all, uid 1001, uid 0, cgroup /system.slice/nginx.service, cgroup /user.slice/a, "
				"pid 1234, workload 5678");
	prof_section__describe_scope(&out, scope, 12);
	cr_assert_str_eq(scope, "all, uid 10", "cut to its buffer");
	prof_section__release(&out);
	cr_assert_eq(out.nr_tasks, 0);
	feat_buf__release(&b);
}

Test(prof_section, empty_section_and_no_stats)
{
	struct prof_section in = { 0 }, out;
	struct feat_buf b = built(&in);
	char scope[64];

	cr_assert_eq(prof_section__parse((const char *)b.data, b.len, &out), 0);
	cr_assert_eq(out.kernel_build_id[0], '\0');
	cr_assert_eq(out.nr_tasks + out.nr_scope_uids + out.nr_scope_cgroups + out.nr_scope_pids, 0);
	prof_section__describe_scope(&out, scope, sizeof(scope));
	cr_assert_str_eq(scope, "");
	prof_section__release(&out);
	feat_buf__release(&b);
	cr_assert_eq(prof_section__parse("", 0, &out), 0);
	cr_assert_not(out.has_stats);
	prof_section__release(&out);
}

/* Text from a file is anything: what is not a well-formed line is skipped, never
 * half read. */
Test(prof_section, hostile_lines_are_skipped)
{
	static const char text[] =
		"prof-scope 1\n"
		"task 1 2\n"                            /* too few fields */
		"task 1 2 3 4\n"                        /* too many */
		"task -1 2 3\n"                         /* a sign */
		"task 1 2 -5\n"
		"task 1 2 4294967296\n"                 /* past u32 */
		"task 1 99999999999 3\n"                /* past i32 */
		"task 0x10 2 3\n"
		"task 7 8 1001\n"                       /* the one good line */
		"task 7 9 -\n"                          /* and one without a uid */
		"scope uid alice\n"
		"scope uid\n"
		"scope pid -3\n"
		"scope cgroup \n"
		"scope workload 12x\n"
		"scope frobnicate 1\n"
		"stat lost\n"
		"stat lost 1 2\n"
		"stat lost -1\n"
		"stat no_such_stat 5\n"
		"stat tasks_seen 18446744073709551615\n"
		"cgroup 42 /old/files/had/these\n"
		"kernel-build-id 00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n"
		"\n\n"
		"task 7 10 5\0 trailing after a NUL\n"
		"task 7 12 5";                          /* no newline: cut short */
	struct prof_section out;

	cr_assert_eq(prof_section__parse(text, sizeof(text) - 1, &out), 0);
	cr_assert_eq(out.nr_tasks, 2, "%zu tasks", out.nr_tasks);
	cr_assert_eq(out.tasks[0].tid, 8);
	cr_assert_eq(out.tasks[0].uid, 1001);
	cr_assert(out.tasks[0].uid_known);
	cr_assert_eq(out.tasks[1].tid, 9);
	cr_assert_not(out.tasks[1].uid_known);
	cr_assert_eq(out.nr_scope_uids + out.nr_scope_pids + out.nr_scope_cgroups, 0);
	cr_assert_eq(out.scope_workload, 0);
	cr_assert(out.has_stats);
	cr_assert_eq(out.stats.lost, 0);
	cr_assert_eq(out.stats.tasks_seen, UINT64_MAX);
	cr_assert_eq(strlen(out.kernel_build_id), sizeof(out.kernel_build_id) - 1, "cut to its buffer");
	prof_section__release(&out);
}

/* A section cut anywhere (a file truncated in its last bytes) parses what is whole,
 * and never reads past its length. */
Test(prof_section, truncated_anywhere)
{
	uint32_t uids[] = { 1001 };
	struct prof_section_task tasks[] = { { 10, 10, 1001, true }, { 10, 11, 1001, true } };
	struct prof_section in = { .scope_uids = uids, .nr_scope_uids = 1, .tasks = tasks, .nr_tasks = 2,
				   .stats = { .samples_written = 123456 } };
	struct feat_buf b = built(&in);

	for (size_t cut = 0; cut <= b.len; cut++) {
		char *copy = malloc(cut ? cut : 1);     /* exactly cut bytes: the sanitizers see any overread */
		struct prof_section out;

		memcpy(copy, b.data, cut);
		cr_assert_eq(prof_section__parse(copy, cut, &out), 0);
		cr_assert_leq(out.nr_tasks, 2);
		for (size_t i = 0; i < out.nr_tasks; i++)
			cr_assert_eq(out.tasks[i].uid, 1001, "cut %zu: task %zu", cut, i);
		if (out.has_stats)
			cr_assert_eq(out.stats.samples_written, 123456, "cut %zu", cut);
		prof_section__release(&out);
		free(copy);
	}
	feat_buf__release(&b);
}

#define CID1 "3f2a9c81d0e4b5a69788796a5b4c3d2e1f00112233445566778899aabbccddee"
#define CID2 "b0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0c1c2c3c4c5c6c7c8c9cacbcccdcecf"

/* Containers' names: any byte but NUL survives, one line each; an older reader skips
 * the lines, a reader of an older file finds none. */
Test(prof_section, container_names)
{
	char n0[] = "web", n1[] = "shop/web-0/a b\n%stat lost 99\033[31m", big[PROF_SECTION_NAME_MAX + 2];
	struct prof_section_name names[] = { { CID1, n0 }, { CID2, n1 }, { CID1, big } };
	struct prof_section in = { .names = names, .nr_names = 2 };
	struct feat_buf b;
	struct prof_section out;

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	b = built(&in);
	cr_assert_null(memmem(b.data, b.len, "\nstat lost 99", 13), "a name never starts a line");
	cr_assert_eq(prof_section__parse((const char *)b.data, b.len, &out), 0);
	cr_assert_eq(out.nr_names, 2);
	cr_assert_str_eq(out.names[0].id, CID1);
	cr_assert_str_eq(out.names[0].name, "web");
	cr_assert_str_eq(out.names[1].id, CID2);
	cr_assert_str_eq(out.names[1].name, n1);
	cr_assert_eq(out.stats.lost, 0, "the name's text is no stat line");
	prof_section__release(&out);
	feat_buf__release(&b);

	/* too long: left out, never cut to another name */
	in = (struct prof_section){ .names = &names[2], .nr_names = 1 };
	b = built(&in);
	cr_assert_eq(prof_section__parse((const char *)b.data, b.len, &out), 0);
	cr_assert_eq(out.nr_names, 0);
	prof_section__release(&out);
	feat_buf__release(&b);

	static const char *bad[] = {
		"container-name " CID1 "\n",                          /* no name */
		"container-name 3f2a9c81d0e4 web\n",                  /* a short id */
		"container-name " CID1 " web extra\n",
		"container-name " CID1 " w%00b\n",                    /* a NUL */
		"container-name " CID1 " w%zzb\n",
		"container-name " CID1 " web%2\n",
		"container-name " CID1 " web",                         /* cut: no newline */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_eq(prof_section__parse(bad[i], strlen(bad[i]), &out), 0);
		cr_assert_eq(out.nr_names, 0, "'%s'", bad[i]);
		prof_section__release(&out);
	}
	/* the same id twice: the later line */
	static const char twice[] = "container-name " CID1 " old\ncontainer-name " CID1 " new\n";
	cr_assert_eq(prof_section__parse(twice, strlen(twice), &out), 0);
	cr_assert_eq(out.nr_names, 1);
	cr_assert_str_eq(out.names[0].name, "new");
	prof_section__release(&out);
}

/* A cgroup's pressure over the recording: the known fields back, the others unknown;
 * a file without the lines (older) has none; a bad line is skipped. */
Test(prof_section, pressure)
{
	struct prof_section_pressure p = { .cgroup = (char *)"/user.slice/a b%", .wall_ns = 3000000000 };
	struct prof_section in = { .pressure = &p, .nr_pressure = 1 }, out;
	struct feat_buf b;

	p.d.have = 1u << PRESSURE_CPU_SOME | 1u << PRESSURE_THROTTLED_USEC;
	p.d.v[PRESSURE_CPU_SOME] = 2343000;
	p.d.v[PRESSURE_THROTTLED_USEC] = 812000;
	p.d.v[PRESSURE_IO_SOME] = 99;      /* not known: not written */
	b = built(&in);
	const char *want = "pressure /user.slice/a%20b%25 3000000000 cpu.some=2343000 throttled_usec=812000\n";
	cr_assert_not_null(memmem(b.data, b.len, want, strlen(want)));
	cr_assert_eq(prof_section__parse((const char *)b.data, b.len, &out), 0);
	cr_assert_eq(out.nr_pressure, 1);
	cr_assert_str_eq(out.pressure[0].cgroup, "/user.slice/a b%");
	cr_assert_eq(out.pressure[0].wall_ns, 3000000000);
	cr_assert_eq(out.pressure[0].d.have, p.d.have);
	cr_assert_eq(out.pressure[0].d.v[PRESSURE_THROTTLED_USEC], 812000);
	prof_section__release(&out);
	feat_buf__release(&b);

	const char old[] = "prof-scope 1\nscope uid 5\nstat samples_written 3\n";
	cr_assert_eq(prof_section__parse(old, sizeof(old) - 1, &out), 0);
	cr_assert_eq(out.nr_pressure, 0);
	prof_section__release(&out);

	const char bad[] = "pressure\npressure /a\npressure /a x cpu.some=1\npressure /a 5 cpu.some=x io.x=3 nope\n";
	cr_assert_eq(prof_section__parse(bad, sizeof(bad) - 1, &out), 0);
	cr_assert_eq(out.nr_pressure, 1, "a well-formed head with bad fields: kept, nothing known");
	cr_assert_eq(out.pressure[0].d.have, 0);
	prof_section__release(&out);
}

/* Copied perf maps: each well-formed line back with its pid and lifetime, the name
 * whole whatever bytes it has; malformed lines and names too long are left out. */
Test(prof_section, perf_maps_parse_back)
{
	static const char map1[] = "7f0000001000 30 jitted_spin\n"
				   "7f0000002000 40 JS:*hot /app.js:1:19\n"
				   "zz 10 not_hex\n7f0000003000 0 empty\nffffffffffffffff 2 wraps\n"
				   "7f0000004000 10 \n7f0000005000 8 last_no_newline";
	static const char map2[] = "1000 10 second%life\n";
	char *huge = malloc(5000);
	struct prof_section_perf_map maps[3] = {
		{ 42, 0, 1000, map1, sizeof(map1) - 1 },
		{ 42, 1000, UINT64_MAX, map2, sizeof(map2) - 1 },
	};
	struct prof_section in = { .perf_maps = maps, .nr_perf_maps = 3 }, out;
	struct feat_buf b;

	cr_assert_not_null(huge);
	memcpy(huge, "2000 10 ", 8);
	memset(huge + 8, 'x', 4990);
	huge[4998] = '\n';
	maps[2] = (struct prof_section_perf_map){ 7, 5, 6, huge, 4999 };
	b = built(&in);
	cr_assert_eq(prof_section__parse((const char *)b.data, b.len, &out), 0);
	cr_assert_eq(out.nr_jit, 4, "%zu", out.nr_jit);
	cr_assert_eq(out.jit[0].pid, 42);
	cr_assert_eq(out.jit[0].from, 0);
	cr_assert_eq(out.jit[0].until, 1000);
	cr_assert_eq(out.jit[0].start, 0x7f0000001000ull);
	cr_assert_eq(out.jit[0].size, 0x30);
	cr_assert_str_eq(out.jit[0].name, "jitted_spin");
	cr_assert_str_eq(out.jit[1].name, "JS:*hot /app.js:1:19", "a space in a name");
	cr_assert_str_eq(out.jit[2].name, "last_no_newline");
	cr_assert_eq(out.jit[3].until, UINT64_MAX, "alive at the end");
	cr_assert_eq(out.jit[3].from, 1000);
	cr_assert_str_eq(out.jit[3].name, "second%life");
	prof_section__release(&out);
	feat_buf__release(&b);
	free(huge);
}

/* --off-cpu's holder table: each entry back by its number, a path with any byte, an
 * unknown uid and cgroup; a file without the lines (older, a tenant's) has none; a
 * bad line is skipped. */
Test(prof_section, holders_parse_back)
{
	struct prof_section_holder h[2] = {
		{ .n = 0, .uid = 1001, .uid_known = true, .cgroup = 77, .cgroup_path = (char *)"/b c/%x" },
		{ .n = 1 },
	};
	struct prof_section in = { .holders = h, .nr_holders = 2 }, out;
	struct feat_buf b = built(&in);
	const char *want = "holder 0 1001 77 /b%20c/%25x\nholder 1 - 0 -\n";

	cr_assert_not_null(memmem(b.data, b.len, want, strlen(want)));
	cr_assert_eq(prof_section__parse((const char *)b.data, b.len, &out), 0);
	cr_assert_eq(out.nr_holders, 2);
	cr_assert(out.holders[0].uid_known && out.holders[0].uid == 1001);
	cr_assert_eq(out.holders[0].cgroup, 77);
	cr_assert_str_eq(out.holders[0].cgroup_path, "/b c/%x");
	cr_assert(!out.holders[1].uid_known);
	cr_assert_null(out.holders[1].cgroup_path);
	cr_assert_eq(prof_section__holder(&out, 1), &out.holders[1]);
	cr_assert_null(prof_section__holder(&out, 2));
	prof_section__release(&out);
	feat_buf__release(&b);

	const char old[] = "prof-scope 1\nscope uid 5\n";
	cr_assert_eq(prof_section__parse(old, sizeof(old) - 1, &out), 0);
	cr_assert_eq(out.nr_holders, 0);
	cr_assert_null(prof_section__holder(&out, 0));
	prof_section__release(&out);

	const char bad[] = "holder\nholder 0 x 1 /a\nholder 0 5 1\nholder 3000000000 5 1 /a\nholder 0 5 1 /a extra\n"
			   "holder 2 5 9 /a\n";
	cr_assert_eq(prof_section__parse(bad, sizeof(bad) - 1, &out), 0);
	cr_assert_eq(out.nr_holders, 1);
	cr_assert_eq(prof_section__holder(&out, 2)->cgroup, 9, "found by its number wherever it is");
	prof_section__release(&out);
}
