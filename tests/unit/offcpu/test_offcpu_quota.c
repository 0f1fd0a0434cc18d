/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CPU quotas under --off-cpu: a cgroup's throttled time read at drains as jumps, a wait
 * given those that ended within it (not the throttling before it, read across its
 * start), at most its length; cpu.stat's counter in v2 and v1; a thread's limited
 * cgroup found from a /proc and a cgroup tree made here (itself or an ancestor), read
 * again after it is forgotten, none without a quota.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <criterion/criterion.h>

#include "prof/offcpu/offcpu_quota.h"
#include "../fixture.h"

#define MS 1000000ull

static struct quota_timeline tl;

Test(offcpu_quota, a_throttling_read_within_a_wait_is_its)
{
	memset(&tl, 0, sizeof(tl));
	quota_timeline__note(&tl, 0, 0);
	quota_timeline__note(&tl, 25 * MS, 0);
	quota_timeline__note(&tl, 50 * MS, 0);
	quota_timeline__note(&tl, 75 * MS, 0);
	quota_timeline__note(&tl, 100 * MS, 70 * MS);   /* throttled 30 to ~100 */
	cr_assert_eq(quota_timeline__within(&tl, 30 * MS, 110 * MS), 70 * MS);
	cr_assert_eq(quota_timeline__within(&tl, 30 * MS, 80 * MS), 50 * MS, "read after its end: at most the wait");
	cr_assert_eq(quota_timeline__within(&tl, 0, 20 * MS), 0, "a wait before");
	cr_assert_eq(quota_timeline__within(&tl, 110 * MS, 130 * MS), 0, "a wait after");
}

/* Read across a wait's start: its own throttling when it is short enough to have begun
 * at the wait's start, else the one before (the thread ran between). */
Test(offcpu_quota, a_throttling_read_across_the_start_is_the_one_before_when_longer)
{
	memset(&tl, 0, sizeof(tl));
	quota_timeline__note(&tl, 0, 0);
	quota_timeline__note(&tl, 100 * MS, 80 * MS);   /* ended by 100 */
	cr_assert_eq(quota_timeline__within(&tl, 90 * MS, 200 * MS), 0, "80 ms cannot fit in 90..100");
	cr_assert_eq(quota_timeline__within(&tl, 10 * MS, 200 * MS), 80 * MS);
	memset(&tl, 0, sizeof(tl));
	quota_timeline__note(&tl, 0, 0);
	quota_timeline__note(&tl, 100 * MS, 5 * MS);
	cr_assert_eq(quota_timeline__within(&tl, 90 * MS, 200 * MS), 5 * MS, "5 ms fits: it may be the wait's");
}

/* Three CPUs throttled 80 ms each, the counter's sum read at 95 ms: a wait from 0 is
 * given up to that reading, not 240 ms. */
Test(offcpu_quota, a_throttling_summed_over_cpus_is_given_up_to_its_reading)
{
	memset(&tl, 0, sizeof(tl));
	quota_timeline__note(&tl, 0, 0);
	quota_timeline__note(&tl, 70 * MS, 0);
	quota_timeline__note(&tl, 95 * MS, 240 * MS);
	cr_assert_eq(quota_timeline__within(&tl, 0, 150 * MS), 95 * MS);
	cr_assert_eq(quota_timeline__within(&tl, 0, 85 * MS), 85 * MS, "and no further than the wait");
}

Test(offcpu_quota, a_counter_that_goes_back_starts_over_and_old_readings_are_ignored)
{
	memset(&tl, 0, sizeof(tl));
	quota_timeline__note(&tl, 10 * MS, 500 * MS);
	quota_timeline__note(&tl, 20 * MS, 100 * MS);   /* a cgroup made anew */
	quota_timeline__note(&tl, 5 * MS, 900 * MS);    /* older than the last: ignored */
	quota_timeline__note(&tl, 30 * MS, 104 * MS);
	cr_assert_eq(tl.nr, 1);
	cr_assert_eq(quota_timeline__within(&tl, 0, 40 * MS), 4 * MS);
}

Test(offcpu_quota, the_ring_keeps_the_newest_jumps)
{
	memset(&tl, 0, sizeof(tl));
	for (uint64_t i = 0; i <= 2 * QUOTA_JUMPS; i++)
		quota_timeline__note(&tl, i * 10 * MS, i * MS);
	cr_assert_eq(tl.nr, QUOTA_JUMPS);
	cr_assert_eq(quota_timeline__within(&tl, 0, 2 * QUOTA_JUMPS * 10 * MS), QUOTA_JUMPS * MS);
}

Test(offcpu_quota, cpu_stat_v2_in_usec_and_v1_in_ns)
{
	uint64_t ns = 0;

	cr_assert(quota__parse_cpu_stat("usage_usec 5\nnr_periods 3\nnr_throttled 2\nthrottled_usec 1500\n", &ns));
	cr_assert_eq(ns, 1500000);
	cr_assert(quota__parse_cpu_stat("nr_periods 3\nnr_throttled 2\nthrottled_time 1234567\nnr_bursts 0\n", &ns));
	cr_assert_eq(ns, 1234567);
	cr_assert_not(quota__parse_cpu_stat("usage_usec 5\nuser_usec 3\n", &ns), "no cpu controller");
}

/* ---- a thread's cgroup, from a /proc and a cgroup tree made here --------------------- */

/* The tree's path and an fd of it (fixture.h's tmpdir_open). */
static char tree[64];
static int tree_fd = -1;

static void put(const char *rel, const char *text)
{
	put_file(tree_fd, rel, text);
}

static int open_dir(const char *rel)
{
	return openat(tree_fd, rel, O_RDONLY | O_DIRECTORY);
}

static void make_tree(void)
{
	static const char *const dirs[] = { "proc", "proc/300", "proc/301", "proc/302",
					    "cg", "cg/job", "cg/job/step", "cg/free" };

	tree_fd = tmpdir_open(tree, "quota");
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		cr_assert_eq(mkdirat(tree_fd, dirs[i], 0755), 0, "%s", dirs[i]);
}

static void remove_tree(void)
{
	close(tree_fd);
	tmpdir_remove(tree);
}

/* cgroup2: /job has cpu.max 20000 100000, /job/step and /free none.  Thread 300 in
 * /job/step (its ancestor's quota), 301 in /free, 302 in /job. */
Test(offcpu_quota, a_thread_of_a_cgroup_v2_under_a_quota_is_given_its_throttled_time)
{
	struct offcpu_quota *q;
	int proc_fd, cg_fd;

	make_tree();
	put("proc/300/cgroup", "0::/job/step\n");
	put("proc/301/cgroup", "0::/free\n");
	put("proc/302/cgroup", "0::/job\n");
	put("cg/job/cpu.max", "20000 100000\n");
	put("cg/job/step/cpu.max", "max 100000\n");
	put("cg/free/cpu.max", "max 100000\n");
	put("cg/job/cpu.stat", "usage_usec 1\nthrottled_usec 1000\n");
	proc_fd = open_dir("proc");
	cg_fd = open_dir("cg");
	q = offcpu_quota__new(proc_fd, cg_fd, -1);
	cr_assert_not_null(q);
	offcpu_quota__watch(q, 300, 10 * MS, 10 * MS);
	offcpu_quota__watch(q, 301, 10 * MS, 10 * MS);
	offcpu_quota__watch(q, 302, 10 * MS, 10 * MS);
	cr_assert_eq(offcpu_quota__nr_limited(q), 1, "the one cgroup with a quota");
	put("cg/job/cpu.stat", "usage_usec 1\nthrottled_usec 81000\n");
	offcpu_quota__read(q, 100 * MS);
	cr_assert_eq(offcpu_quota__throttled(q, 300, 15 * MS, 110 * MS), 80 * MS, "its ancestor's quota");
	cr_assert_eq(offcpu_quota__throttled(q, 302, 15 * MS, 110 * MS), 80 * MS);
	cr_assert_eq(offcpu_quota__throttled(q, 301, 15 * MS, 110 * MS), 0, "no quota");
	cr_assert_eq(offcpu_quota__throttled(q, 303, 15 * MS, 110 * MS), 0, "not watched");
	/* moved out (an exec after it): read again once forgotten, not before */
	put("proc/300/cgroup", "0::/free\n");
	offcpu_quota__watch(q, 300, 20 * MS, 120 * MS);
	cr_assert_eq(offcpu_quota__throttled(q, 300, 15 * MS, 110 * MS), 80 * MS, "known since less than the recheck");
	offcpu_quota__forget(q, 300);
	offcpu_quota__watch(q, 300, 20 * MS, 120 * MS);
	cr_assert_eq(offcpu_quota__throttled(q, 300, 15 * MS, 110 * MS), 0);
	offcpu_quota__free(q);
	close(proc_fd);
	close(cg_fd);
	remove_tree();
}

/* A hybrid host: the v1 cpu hierarchy's line of /proc/TID/cgroup, cpu.cfs_quota_us. */
Test(offcpu_quota, a_thread_of_a_v1_cpu_cgroup_under_a_quota_is_given_its_throttled_time)
{
	struct offcpu_quota *q;
	int proc_fd, v1_fd;

	make_tree();
	put("proc/300/cgroup", "12:memory:/other\n4:cpu,cpuacct:/job\n0::/user.slice\n");
	put("proc/301/cgroup", "4:cpu,cpuacct:/free\n0::/job\n");
	put("cg/job/cpu.cfs_quota_us", "20000\n");
	put("cg/free/cpu.cfs_quota_us", "-1\n");
	put("cg/job/cpu.stat", "nr_periods 1\nnr_throttled 0\nthrottled_time 0\n");
	proc_fd = open_dir("proc");
	v1_fd = open_dir("cg");
	q = offcpu_quota__new(proc_fd, -1, v1_fd);
	offcpu_quota__watch(q, 300, 10 * MS, 10 * MS);
	offcpu_quota__watch(q, 301, 10 * MS, 10 * MS);
	put("cg/job/cpu.stat", "nr_periods 2\nnr_throttled 1\nthrottled_time 60000000\n");
	offcpu_quota__read(q, 100 * MS);
	cr_assert_eq(offcpu_quota__throttled(q, 300, 30 * MS, 100 * MS), 60 * MS);
	cr_assert_eq(offcpu_quota__throttled(q, 301, 30 * MS, 100 * MS), 0, "its v2 path is no matter");
	offcpu_quota__free(q);
	close(proc_fd);
	close(v1_fd);
	remove_tree();
}
