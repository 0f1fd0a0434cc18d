/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The model's cgroups: each id's path and container, learnt from CGROUP records as
 * runtimes name their cgroups.
 */
#include <criterion/criterion.h>

#include "prof/analyze/model.h"
#include "../fixture.h"

#define ID "0f1e2d3c4b5a69788796a5b4c3d2e1f00112233445566778899aabbccddeeff0"

Test(model, containers_of_cgroups)
{
	struct model *m = model__new();
	struct rec r;

	cr_assert_not_null(m);
	cr_assert_eq(model__process(m, mk_cgroup(&r, 10, "/system.slice/docker-" ID ".scope", 1)), 0);
	cr_assert_eq(model__process(m, mk_cgroup(&r, 11, "/system.slice/docker-" ID ".scope/init.scope", 2)), 0);
	cr_assert_eq(model__process(m, mk_cgroup(&r, 12, "/system.slice/sshd.service", 3)), 0);
	cr_assert_str_eq(model__cgroup(m, 10), "/system.slice/docker-" ID ".scope");
	cr_assert_str_eq(model__container(m, 10), ID);
	/* one pointer per container, so the engine keys its cgroups' samples as one */
	cr_assert_eq(model__container(m, 11), model__container(m, 10));
	cr_assert_str_eq(model__container(m, 12), "");
	/* unknown: no cgroup (a file without PERF_SAMPLE_CGROUP) or an id never named */
	cr_assert_null(model__container(m, 0));
	cr_assert_null(model__container(m, 13));
	/* an id named again (the cgroup was removed and its id's record came anew) */
	cr_assert_eq(model__process(m, mk_cgroup(&r, 10, "/user.slice", 4)), 0);
	cr_assert_str_eq(model__container(m, 10), "");
	model__free(m);
}
