/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The row keys: --sort's names, and a container's text for a terminal and for JSON. */
#include <errno.h>
#include <string.h>
#include <criterion/criterion.h>

#include "prof/analyze/model.h"
#include "prof/output/keys.h"
#include "prof/offcpu/offcpu.h"

#define ID "0f1e2d3c4b5a69788796a5b4c3d2e1f00112233445566778899aabbccddeeff0"

Test(keys, parse_container)
{
	enum profile_key k[PROFILE_KEY__MAX];
	size_t nr;
	char err[256];

	cr_assert_eq(keys__parse("container,comm", k, &nr, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(nr, 2);
	cr_assert_eq(k[0], PROFILE_KEY_CONTAINER);
	cr_assert_str_eq(keys__json_name(PROFILE_KEY_CONTAINER), "container");
	cr_assert_eq(keys__parse("containers", k, &nr, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "container"), "%s", err);
}

static void text_in(const struct model *m, const char *container, const char *want_text, const char *want_raw)
{
	struct profile_row row = { .task.container = container, .stack = UINT32_MAX };
	char buf[256];

	keys__text(&row, PROFILE_KEY_CONTAINER, m, NULL, buf, sizeof(buf));
	cr_assert_str_eq(buf, want_text);
	keys__raw_text(&row, PROFILE_KEY_CONTAINER, NULL, NULL, buf, sizeof(buf));
	cr_assert_str_eq(buf, want_raw);
}

static void text(const char *container, const char *want_text, const char *want_raw)
{
	text_in(NULL, container, want_text, want_raw);
}

Test(keys, container_text)
{
	text(ID, "0f1e2d3c4b5a", ID);          /* the terminal's 12 digits, as docker ps */
	text("", "-", "");                      /* a host task */
	text(NULL, "[unknown]", "[unknown]");   /* its cgroup is not known */
}

/* A container the file names: its runtime's name before the 12 digits, escaped and
 * cut to a column; the raw text (JSON's "container") stays the id. */
Test(keys, container_name_text)
{
	struct model *m = model__new();
	char id2[] = "b" ID;

	id2[64] = '\0';
	cr_assert_not_null(m);
	cr_assert_eq(model__name_container(m, ID, "web"), 0);
	text_in(m, ID, "web (0f1e2d3c4b5a)", ID);
	text_in(m, id2, "b0f1e2d3c4b5", id2);          /* no name: the id alone */
	cr_assert_eq(model__name_container(m, ID, "shop/a-very-long-pod-name-7d4b9c-x2x7q/nginx"), 0);
	text_in(m, ID, "shop/a-very-long-pod-name-7d4... (0f1e2d3c4b5a)", ID);
	cr_assert_eq(model__name_container(m, ID, "evil\033]0;x\007"), 0);
	text_in(m, ID, "evil\\x1b]0;x\\x07 (0f1e2d3c4b5a)", ID);
	text_in(m, "", "-", "");
	model__free(m);
}

static void holder_text(const struct model *m, enum profile_key k, uint32_t holder, uint64_t cgroup,
			const char *container, const char *want)
{
	struct profile_row row = { .task = { .holder = holder, .holder_cgroup = cgroup, .holder_container = container },
				   .stack = UINT32_MAX };
	char buf[256];

	keys__text(&row, k, m, NULL, buf, sizeof(buf));
	cr_assert_str_eq(buf, want, "%s: %s, not %s", keys__name(k), buf, want);
}

/* A CPU holder by its cgroup or container: a task's as the file names them, "[unknown]"
 * where it does not; self, system, idle, other tenants as they are. */
Test(keys, holder_cgroup_and_container)
{
	enum profile_key k[PROFILE_KEY__MAX];
	struct model *m = model__new();
	size_t nr;
	char err[256];

	cr_assert_eq(keys__parse("comm,holder_cgroup,holder_container", k, &nr, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(nr, 3);
	cr_assert_eq(k[1], PROFILE_KEY_HOLDER_CGROUP);
	cr_assert_eq(k[2], PROFILE_KEY_HOLDER_CONTAINER);
	cr_assert_str_eq(keys__json_name(PROFILE_KEY_HOLDER_CGROUP), "holder_cgroup");
	cr_assert_not_null(m);
	cr_assert_eq(model__add_cgroup(m, 77, "/system.slice/docker-" ID ".scope"), 0);
	cr_assert_eq(model__name_container(m, ID, "web"), 0);
	cr_assert_str_eq(model__container(m, 77), ID, "a holder's cgroup names its container");
	holder_text(m, PROFILE_KEY_HOLDER_CGROUP, OFFCPU_HOLDER_UID, 77, NULL, "/system.slice/docker-" ID ".scope");
	holder_text(m, PROFILE_KEY_HOLDER_CGROUP, OFFCPU_HOLDER_UID, 78, NULL, "[unknown]");
	holder_text(m, PROFILE_KEY_HOLDER_CGROUP, OFFCPU_HOLDER_UID + 1001, 0, NULL, "[unknown]");
	holder_text(m, PROFILE_KEY_HOLDER_CGROUP, OFFCPU_HOLDER_SYSTEM, 0, NULL, "system");
	holder_text(m, PROFILE_KEY_HOLDER_CGROUP, OFFCPU_HOLDER_OTHERS, 0, NULL, "other tenants");
	holder_text(m, PROFILE_KEY_HOLDER_CONTAINER, OFFCPU_HOLDER_UID, 77, model__container(m, 77), "web (0f1e2d3c4b5a)");
	holder_text(m, PROFILE_KEY_HOLDER_CONTAINER, OFFCPU_HOLDER_UID, 5, "", "-");
	holder_text(m, PROFILE_KEY_HOLDER_CONTAINER, OFFCPU_HOLDER_UID, 0, NULL, "[unknown]");
	holder_text(m, PROFILE_KEY_HOLDER_CONTAINER, OFFCPU_HOLDER_IDLE, 0, NULL, "idle");
	holder_text(m, PROFILE_KEY_HOLDER_CONTAINER, OFFCPU_HOLDER_SELF, 0, NULL, "self");
	model__free(m);
}
