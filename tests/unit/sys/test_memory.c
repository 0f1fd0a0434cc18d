/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What a report's memory budget is sized by: /proc/meminfo and cgroup text. */
#include <errno.h>
#include <stdint.h>
#include <criterion/criterion.h>

#include "prof/sys/memory.h"

Test(memory, meminfo_available)
{
	uint64_t v;

	cr_assert_eq(memory__meminfo_available("MemTotal:       24731648 kB\nMemFree:        23404000 kB\n"
					       "MemAvailable:   24204404 kB\nBuffers:           60000 kB\n", &v), 0);
	cr_assert_eq(v, 24204404ull * 1024);
	cr_assert_eq(memory__meminfo_available("MemTotal:       24731648 kB\n", &v), -ENOENT);
}

Test(memory, cgroup_room)
{
	uint64_t v;

	cr_assert_eq(memory__cgroup_room("max\n", "123\n", &v), 0);
	cr_assert_eq(v, UINT64_MAX);
	cr_assert_eq(memory__cgroup_room("1073741824\n", "73741824\n", &v), 0);
	cr_assert_eq(v, 1000000000);
	cr_assert_eq(memory__cgroup_room("100\n", "200\n", &v), 0, "over its limit: no room");
	cr_assert_eq(v, 0);
	cr_assert_eq(memory__cgroup_room("lots\n", "1\n", &v), -EINVAL);
	cr_assert_eq(memory__cgroup_room("1\n2\n", "1\n", &v), -EINVAL);
}

/* A limit's room is what the process does not hold of it yet. */
Test(memory, limit_room)
{
	const char *status = "Name:\tprof\nVmPeak:\t  300000 kB\nVmSize:\t  204800 kB\nVmData:\t   10240 kB\n";
	uint64_t v;

	cr_assert_eq(memory__limit_room(300ull << 20, status, "VmSize:", &v), 0);
	cr_assert_eq(v, 100ull << 20);
	cr_assert_eq(memory__limit_room(300ull << 20, status, "VmData:", &v), 0);
	cr_assert_eq(v, 290ull << 20);
	cr_assert_eq(memory__limit_room(100ull << 20, status, "VmSize:", &v), 0, "over its limit: no room");
	cr_assert_eq(v, 0);
	cr_assert_eq(memory__limit_room(1, "Name:\tprof\n", "VmSize:", &v), -ENOENT);
}

/* This process may take something, and not more than the host has. */
Test(memory, available_here)
{
	uint64_t v = memory__available();

	cr_assert_gt(v, 0);
}
