/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A cgroup's PSI and cpu.stat text, their differences and the line shown. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <criterion/criterion.h>

#include "prof/scope/scope.h"
#include "prof/sys/pressure.h"

#define BIT(f) (1u << (f))

Test(pressure, psi)
{
	struct pressure p = { 0 };

	pressure__parse_psi("some avg10=78.10 avg60=40.00 avg300=12.00 total=2343000\n"
			    "full avg10=0.00 avg60=0.00 avg300=0.00 total=17\n", PRESSURE_CPU_SOME, &p);
	cr_assert_eq(p.have, BIT(PRESSURE_CPU_SOME) | BIT(PRESSURE_CPU_FULL));
	cr_assert_eq(p.v[PRESSURE_CPU_SOME], 2343000);
	cr_assert_eq(p.v[PRESSURE_CPU_FULL], 17);
	/* a kernel before 5.13: no full line for cpu; nothing else is taken for it */
	p = (struct pressure){ 0 };
	pressure__parse_psi("some avg10=0.00 avg60=0.00 avg300=0.00 total=5\n", PRESSURE_IO_SOME, &p);
	cr_assert_eq(p.have, BIT(PRESSURE_IO_SOME));
	p = (struct pressure){ 0 };
	pressure__parse_psi("garbage\nsome total=\nfull avg10=1\n", PRESSURE_MEMORY_SOME, &p);
	cr_assert_eq(p.have, 0);
}

Test(pressure, cpu_stat)
{
	struct pressure p = { 0 };

	pressure__parse_cpu_stat("usage_usec 1200000\nuser_usec 1100000\nsystem_usec 100000\n"
				 "nr_periods 50\nnr_throttled 41\nthrottled_usec 812000\nnr_bursts 0\n", &p);
	cr_assert_eq(p.have, BIT(PRESSURE_USAGE_USEC) | BIT(PRESSURE_NR_PERIODS) | BIT(PRESSURE_NR_THROTTLED) |
				     BIT(PRESSURE_THROTTLED_USEC));
	cr_assert_eq(p.v[PRESSURE_THROTTLED_USEC], 812000);
	cr_assert_eq(p.v[PRESSURE_NR_THROTTLED], 41);
	/* no cpu controller: usage only */
	p = (struct pressure){ 0 };
	pressure__parse_cpu_stat("usage_usec 7\nuser_usec 5\nsystem_usec 2\n", &p);
	cr_assert_eq(p.have, BIT(PRESSURE_USAGE_USEC));
}

Test(pressure, diff_keeps_only_what_both_know)
{
	struct pressure a = { .have = BIT(PRESSURE_CPU_SOME) | BIT(PRESSURE_IO_SOME) | BIT(PRESSURE_USAGE_USEC) };
	struct pressure b = { .have = BIT(PRESSURE_CPU_SOME) | BIT(PRESSURE_USAGE_USEC) }, d;

	a.v[PRESSURE_CPU_SOME] = 100;
	b.v[PRESSURE_CPU_SOME] = 350;
	a.v[PRESSURE_USAGE_USEC] = 10;
	b.v[PRESSURE_USAGE_USEC] = 5;      /* went back (another cgroup by that name): unknown */
	pressure__diff(&a, &b, &d);
	cr_assert_eq(d.have, BIT(PRESSURE_CPU_SOME));
	cr_assert_eq(d.v[PRESSURE_CPU_SOME], 250);
}

Test(pressure, describe)
{
	struct pressure d = { 0 };
	char buf[512];

	for (int f = 0; f < PRESSURE__MAX; f++)
		d.have |= BIT(f);
	d.v[PRESSURE_CPU_SOME] = 781000;   /* of 1 s */
	d.v[PRESSURE_IO_SOME] = 2000;
	d.v[PRESSURE_THROTTLED_USEC] = 812000;
	d.v[PRESSURE_NR_THROTTLED] = 41;
	d.v[PRESSURE_NR_PERIODS] = 50;
	d.v[PRESSURE_USAGE_USEC] = 200000;
	pressure__describe(&d, 1000000000, buf, sizeof(buf));
	cr_assert_str_eq(buf, "cpu.stat: throttled 812 ms in 41 of 50 periods, usage 0.20 s; pressure cpu some 78.1% "
			      "full 0.0%, io some 0.2% full 0.0%, memory some 0.0% full 0.0%");
	/* PSI off, no cpu controller: said once, at the end */
	d.have = BIT(PRESSURE_USAGE_USEC);
	pressure__describe(&d, 1000000000, buf, sizeof(buf));
	cr_assert_str_eq(buf, "cpu.stat: usage 0.20 s; no throttling in cpu.stat (no cpu controller on the cgroup); "
			      "no PSI (psi=0 on the kernel's command line, or no cgroup v2)");
	d.have |= BIT(PRESSURE_CPU_SOME);
	d.v[PRESSURE_CPU_SOME] = 0;
	pressure__describe(&d, 1000000000, buf, sizeof(buf));
	cr_assert_str_eq(buf, "cpu.stat: usage 0.20 s; pressure cpu some 0.0%; no throttling in cpu.stat (no cpu "
			      "controller on the cgroup); no io.pressure; no memory.pressure");
	/* nothing at all: a cgroup gone */
	d.have = 0;
	pressure__describe(&d, 1000000000, buf, sizeof(buf));
	cr_assert_str_eq(buf, "no cpu.stat; no PSI (psi=0 on the kernel's command line, or no cgroup v2)");
	cr_assert_eq(pressure__field("throttled_usec"), PRESSURE_THROTTLED_USEC);
	cr_assert_eq(pressure__field("nope"), PRESSURE__MAX);
	cr_assert_str_eq(pressure__name(PRESSURE_MEMORY_FULL), "memory.full");
}

/* A hybrid host: the throttling in the v1 cpu hierarchy (ns), found in the mounts. */
Test(pressure, v1)
{
	struct pressure p = { 0 };
	char dir[256];

	pressure__parse_cpu_stat_v1("nr_periods 50\nnr_throttled 41\nthrottled_time 812000123\nnr_bursts 0\n", &p);
	cr_assert_eq(p.have, BIT(PRESSURE_NR_PERIODS) | BIT(PRESSURE_NR_THROTTLED) | BIT(PRESSURE_THROTTLED_USEC));
	cr_assert_eq(p.v[PRESSURE_THROTTLED_USEC], 812000);
	cr_assert_eq(pressure__v1_cpu_mount("tmpfs /sys/fs/cgroup tmpfs rw 0 0\n"
					    "cgroup /sys/fs/cgroup/cpuacct cgroup rw,relatime,cpuacct 0 0\n"
					    "cgroup /sys/fs/cgroup/cpu,cpuacct cgroup rw,nosuid,cpu,cpuacct 0 0\n"
					    "cgroup2 /sys/fs/cgroup/unified cgroup2 rw 0 0\n", dir, sizeof(dir)), 0);
	cr_assert_str_eq(dir, "/sys/fs/cgroup/cpu,cpuacct");
	cr_assert_eq(pressure__v1_cpu_mount("cgroup2 /sys/fs/cgroup cgroup2 rw 0 0\n", dir, sizeof(dir)), -ENOENT);
	p.have |= BIT(PRESSURE_USAGE_USEC);
	p.throttling_v1 = true;
	p.v[PRESSURE_USAGE_USEC] = 200000;
	pressure__describe(&p, 1000000000, dir, sizeof(dir));
	cr_assert(!strncmp(dir, "cpu.stat: throttled 812 ms in 41 of 50 periods (the v1 cpu cgroup's), usage 0.20 s;", 82),
		  "%s", dir);
}

static void put(int dir, const char *name, const char *text)
{
	int fd = openat(dir, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* A --uid scope's systemd slice, where there is one; a --cgroup's directory; the
 * files read from a fixture tree standing for the cgroup2 root. */
Test(pressure, set_of_a_scope)
{
	char root[] = "/tmp/prof-pressure-XXXXXX";
	uint32_t uids[] = { 1001, 1002 };
	struct scope_cgroup cg = { .kind = SCOPE_CGROUP_PATH, .path = (char *)"/jobs/a" };
	struct scope sc = { .uids = uids, .nr_uids = 2, .cgroups = &cg, .nr_cgroups = 1 };
	struct pressure_set s;
	char cmd[128];
	int rfd, d;

	cr_assert_not_null(mkdtemp(root));
	rfd = open(root, O_RDONLY | O_DIRECTORY);
	cr_assert_eq(mkdirat(rfd, "user.slice", 0755), 0);
	cr_assert_eq(mkdirat(rfd, "user.slice/user-1001.slice", 0755), 0);   /* none for 1002 */
	d = openat(rfd, "user.slice/user-1001.slice", O_RDONLY | O_DIRECTORY);
	put(d, "cpu.pressure", "some avg10=0.00 avg60=0.00 avg300=0.00 total=10\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=4\n");
	put(d, "cpu.stat", "usage_usec 100\nuser_usec 90\nsystem_usec 10\n");
	close(d);
	cr_assert_eq(pressure_set__open(&s, rfd, &sc), 0);
	cr_assert_eq(s.nr, 2, "the cgroup, and 1001's slice only");
	cr_assert_str_eq(s.cg[0].path, "/jobs/a");
	cr_assert_lt(s.cg[0].fd, 0, "/jobs/a is not there");
	cr_assert_str_eq(s.cg[1].path, "/user.slice/user-1001.slice");
	pressure_set__read(&s, true);
	d = openat(rfd, "user.slice/user-1001.slice", O_RDONLY | O_DIRECTORY);
	put(d, "cpu.pressure", "some avg10=0.00 avg60=0.00 avg300=0.00 total=35\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=4\n");
	put(d, "cpu.stat", "usage_usec 400\nuser_usec 90\nsystem_usec 10\n");
	close(d);
	pressure_set__read(&s, false);
	{
		struct pressure diff;

		pressure__diff(&s.cg[1].first, &s.cg[1].last, &diff);
		cr_assert_eq(diff.have, BIT(PRESSURE_CPU_SOME) | BIT(PRESSURE_CPU_FULL) | BIT(PRESSURE_USAGE_USEC));
		cr_assert_eq(diff.v[PRESSURE_CPU_SOME], 25);
		cr_assert_eq(diff.v[PRESSURE_USAGE_USEC], 300);
		cr_assert_eq(s.cg[0].first.have, 0);
	}
	pressure_set__release(&s);
	close(rfd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	cr_assert_eq(system(cmd), 0);
}
