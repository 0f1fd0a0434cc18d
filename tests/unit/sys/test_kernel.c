/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The running kernel's release against prof's minimum (5.7). */
#include <errno.h>
#include <string.h>
#include <criterion/criterion.h>

#include "prof/sys/kernel.h"

Test(kernel, parse_distribution_releases)
{
	unsigned ma = 99, mi = 99;

	cr_assert_eq(kernel__parse_release("6.1.0-28-amd64", &ma, &mi), 0);
	cr_assert_eq(ma, 6);
	cr_assert_eq(mi, 1);
	cr_assert_eq(kernel__parse_release("5.14.0-427.13.1.el9_4.x86_64", &ma, &mi), 0);
	cr_assert_eq(ma, 5);
	cr_assert_eq(mi, 14);
	cr_assert_eq(kernel__parse_release("5.15.0-91-generic", &ma, &mi), 0);
	cr_assert_eq(mi, 15);
	cr_assert_eq(kernel__parse_release("6.18", &ma, &mi), 0);
	cr_assert_eq(ma, 6);
	cr_assert_eq(mi, 18);
}

Test(kernel, unparseable_left_alone)
{
	unsigned ma = 7, mi = 8;

	cr_assert_eq(kernel__parse_release("", &ma, &mi), -EINVAL);
	cr_assert_eq(kernel__parse_release("6", &ma, &mi), -EINVAL);
	cr_assert_eq(kernel__parse_release("6.", &ma, &mi), -EINVAL);
	cr_assert_eq(kernel__parse_release("v6.1", &ma, &mi), -EINVAL);
	cr_assert_eq(kernel__parse_release("99999999999.1", &ma, &mi), -EINVAL);
	cr_assert_eq(kernel__parse_release(NULL, &ma, &mi), -EINVAL);
	cr_assert_eq(ma, 7);
	cr_assert_eq(mi, 8);
	cr_assert_eq(kernel__at_least("linux", 5, 7), -EINVAL);
}

Test(kernel, minimum)
{
	/* 5.7 added attr.cgroup and PERF_SAMPLE_CGROUP */
	cr_assert_eq(kernel__at_least("5.7.0", KERNEL_MIN_MAJOR, KERNEL_MIN_MINOR), 1);
	cr_assert_eq(kernel__at_least("5.6.19", KERNEL_MIN_MAJOR, KERNEL_MIN_MINOR), 0);
	cr_assert_eq(kernel__at_least("4.18.0-553.el8_10.x86_64", KERNEL_MIN_MAJOR, KERNEL_MIN_MINOR), 0);
	cr_assert_eq(kernel__at_least("5.10.0-30-amd64", KERNEL_MIN_MAJOR, KERNEL_MIN_MINOR), 1);
	/* a minor compared as a number, not as text */
	cr_assert_eq(kernel__at_least("5.10", 5, 9), 1);
	cr_assert_eq(kernel__at_least("6.0", KERNEL_MIN_MAJOR, KERNEL_MIN_MINOR), 1);
	cr_assert_eq(kernel__at_least("3.10.0-1160.el7.x86_64", KERNEL_MIN_MAJOR, KERNEL_MIN_MINOR), 0);
}

Test(kernel, running)
{
	char buf[256];

	cr_assert_eq(kernel__release(buf, sizeof(buf)), 0);
	cr_assert_neq(strcmp(buf, "unknown"), 0);
	/* every Linux release string starts with major.minor */
	cr_assert_geq(kernel__at_least(buf, KERNEL_MIN_MAJOR, KERNEL_MIN_MINOR), 0, "%s", buf);
}
