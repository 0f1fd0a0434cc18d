/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The model's cgroups: each id's path and container, learnt from CGROUP records as
 * runtimes name their cgroups.
 */
#include <criterion/criterion.h>

#include "prof/analyze/model.h"
#include "prof/perfdata/build_id.h"
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

/* The kernel's build id that prof record writes into the data after the kernel's map
 * (what names the kernel in a killed recording): the model reads back what was
 * written, and a user object's record, or a truncated one, names no kernel. */
Test(model, kernel_build_id_record)
{
	struct model *m = model__new();
	struct build_id b = { .size = 20 };
	uint64_t rec[BUILD_ID_KERNEL_RECORD_SIZE / 8];
	struct perf_event_header *h = (void *)rec;
	char hex[41];

	cr_assert_not_null(m);
	for (int i = 0; i < 20; i++)
		b.data[i] = (uint8_t)(0xa0 + i);
	build_id__hex(&b, hex, sizeof(hex));
	cr_assert_eq(build_id__kernel_record(&b, rec), BUILD_ID_KERNEL_RECORD_SIZE);
	cr_assert_eq(h->size % 8, 0);
	cr_assert_str_eq(model__kernel_build_id(m), "");
	/* a user object's record is not the kernel's */
	h->misc = (h->misc & ~PERF_RECORD_MISC_CPUMODE_MASK) | PERF_RECORD_MISC_USER;
	cr_assert_eq(model__process(m, h), 0);
	cr_assert_str_eq(model__kernel_build_id(m), "");
	/* cut before its name ends */
	build_id__kernel_record(&b, rec);
	h->size = 40;
	cr_assert_eq(model__process(m, h), 0);
	cr_assert_str_eq(model__kernel_build_id(m), "");
	build_id__kernel_record(&b, rec);
	cr_assert_eq(model__process(m, h), 0);
	cr_assert_str_eq(model__kernel_build_id(m), hex);
	model__free(m);
}
