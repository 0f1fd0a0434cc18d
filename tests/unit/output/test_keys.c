/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The row keys: --sort's names, and a container's text for a terminal and for JSON. */
#include <errno.h>
#include <string.h>
#include <criterion/criterion.h>

#include "prof/output/keys.h"

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

static void text(const char *container, const char *want_text, const char *want_raw)
{
	struct profile_row row = { .task.container = container, .stack = UINT32_MAX };
	char buf[128];

	keys__text(&row, PROFILE_KEY_CONTAINER, NULL, NULL, buf, sizeof(buf));
	cr_assert_str_eq(buf, want_text);
	keys__raw_text(&row, PROFILE_KEY_CONTAINER, NULL, NULL, buf, sizeof(buf));
	cr_assert_str_eq(buf, want_raw);
}

Test(keys, container_text)
{
	text(ID, "0f1e2d3c4b5a", ID);          /* the terminal's 12 digits, as docker ps */
	text("", "-", "");                      /* a host task */
	text(NULL, "[unknown]", "[unknown]");   /* its cgroup is not known */
}
