/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <pwd.h>
#include <stdio.h>

#include "prof/sys/users.h"

const struct user_entry *users__get(struct users *c, uint32_t uid)
{
	struct passwd pw, *res = NULL;
	struct user_entry *e;
	char buf[4096];
	unsigned int i;

	for (i = 0; i < c->nr; i++)
		if (c->v[i].uid == uid)
			return &c->v[i];
	i = c->nr < USERS_CACHE ? c->nr++ : c->next++ % USERS_CACHE;
	e = &c->v[i];
	*e = (struct user_entry){ .uid = uid };
	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &res) == 0 && res) {
		e->found = true;
		e->gid = res->pw_gid;
		snprintf(e->name, sizeof(e->name), "%s", res->pw_name);
	}
	return e;
}

const char *users__name(struct users *c, uint32_t uid)
{
	const struct user_entry *e = users__get(c, uid);

	return e->found ? e->name : NULL;
}
