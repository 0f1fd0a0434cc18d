/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which scope cgroups get a kernel cgroup event: the outermost only, each once. */
#include <criterion/criterion.h>

#include "prof/record/cgroup_sampling.h"

Test(cgroup_sampling, a_descendant_is_counted_by_its_ancestor)
{
	const char *paths[] = { "/a/b", "/a", "/ab", "/c/d" };
	bool keep[4];

	cr_assert_eq(cgroup_sampling__outermost(paths, 4, keep), 3);
	cr_assert_not(keep[0], "/a/b is under /a");
	cr_assert(keep[1]);
	cr_assert(keep[2], "/ab is not under /a");
	cr_assert(keep[3]);
}

Test(cgroup_sampling, the_same_cgroup_twice_is_one_event)
{
	const char *paths[] = { "/x", "/x", "/x/y" };
	bool keep[3];

	cr_assert_eq(cgroup_sampling__outermost(paths, 3, keep), 1);
	cr_assert(keep[0]);
	cr_assert_not(keep[1]);
	cr_assert_not(keep[2]);
}

Test(cgroup_sampling, the_root_holds_everything)
{
	const char *paths[] = { "/a", "/", "/b/c" };
	bool keep[3];

	cr_assert_eq(cgroup_sampling__outermost(paths, 3, keep), 1);
	cr_assert(keep[1]);
}

/* Opening needs the kernel: an event on a directory that is no cgroup is refused and
 * leaves nothing open. */
Test(cgroup_sampling, a_bad_cgroup_descriptor_is_an_error)
{
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
				     .config = PERF_COUNT_SW_CPU_CLOCK, .disabled = 1 };
	struct cgroup_sampling *c = (void *)1;
	int fds[] = { -1 }, cpus[] = { 0 };

	cr_assert_lt(cgroup_sampling__open(&a, fds, 1, cpus, 1, &c), 0);
	cr_assert_eq(c, (void *)1, "*ret untouched on failure");
}
