/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>
#include <string.h>

#include "prof/analyze/model.h"
#include "prof/analyze/resolver.h"
#include "prof/base/escape.h"
#include "prof/base/util.h"
#include "prof/output/keys.h"
#include "prof/offcpu/offcpu.h"
#include "prof/scope/containers.h"
#include "prof/sys/users.h"

/* Characters of a container's name a terminal column shows (its id follows). */
#define NAME_COLUMN 32

static const struct {
	const char *name, *json, *title;
	unsigned int width;
} keys[PROFILE_KEY__MAX] = {
	[PROFILE_KEY_UID] = { "uid", "user", "User", 10 },
	[PROFILE_KEY_CGROUP] = { "cgroup", "cgroup", "Cgroup", 28 },
	[PROFILE_KEY_PID] = { "pid", "pid", "Pid", 7 },
	[PROFILE_KEY_COMM] = { "comm", "comm", "Command", 16 },
	[PROFILE_KEY_DSO] = { "dso", "dso", "Shared Object", 20 },
	[PROFILE_KEY_SYM] = { "sym", "sym", "Symbol", 0 },
	[PROFILE_KEY_CONTAINER] = { "container", "container", "Container", 12 },
	[PROFILE_KEY_HOLDER] = { "holder", "holder", "CPU holder", 14 },
	[PROFILE_KEY_HOLDER_CGROUP] = { "holder_cgroup", "holder_cgroup", "Holder cgroup", 28 },
	[PROFILE_KEY_HOLDER_CONTAINER] = { "holder_container", "holder_container", "Holder container", 14 },
};

int keys__parse(const char *arg, enum profile_key out[PROFILE_KEY__MAX], size_t *ret_nr, char *err, size_t errlen)
{
	size_t nr = 0;

	for (const char *p = arg;;) {
		const char *comma = strchrnul(p, ',');
		size_t len = (size_t)(comma - p);
		int found = -1;

		for (int k = 0; k < PROFILE_KEY__MAX; k++)
			if (strlen(keys[k].name) == len && !strncmp(p, keys[k].name, len))
				found = k;
		if (found < 0)
			return errorf(err, errlen, "unknown sort key '%.*s' (keys: uid, cgroup, container, pid, comm, "
				      "dso, sym, holder, holder_cgroup, holder_container)",
				      (int)len, p);
		for (size_t i = 0; i < nr; i++)
			if ((int)out[i] == found)
				return errorf(err, errlen, "sort key '%s' given twice", keys[found].name);
		out[nr++] = (enum profile_key)found;
		if (!*comma) {
			*ret_nr = nr;
			return 0;
		}
		p = comma + 1;
	}
}

const char *keys__name(enum profile_key k)
{
	return keys[k].name;
}

const char *keys__json_name(enum profile_key k)
{
	return keys[k].json;
}

const char *keys__title(enum profile_key k)
{
	return keys[k].title;
}

unsigned int keys__width(enum profile_key k)
{
	return keys[k].width;
}

/* The chain of a stack, leaf first, as one line. */
static void chain_text(const struct profile *p, uint32_t stack, char *buf, size_t len)
{
	size_t nr, off = 0;
	const uint32_t *ids = profile__stack(p, stack, &nr);
	const struct profile_frame *f = profile__frames(p, &(size_t){ 0 });

	buf[0] = '\0';
	for (size_t i = 0; i < nr && off + 8 < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? " <- " : "", f[ids[i]].sym);
}

void keys__raw_text(const struct profile_row *row, enum profile_key k, const struct model *m,
		    const struct profile *p, char *buf, size_t len)
{
	const struct profile_task *t = &row->task;
	/* a row per uid at most looks its name up: a report may have thousands */
	static __thread struct users users;
	const char *cg, *slash, *user;

	switch (k) {
	case PROFILE_KEY_UID:
		user = t->uid_known ? users__name(&users, t->uid) : NULL;
		if (user)
			snprintf(buf, len, "%s", user);
		else if (t->uid_known)
			snprintf(buf, len, "%u", t->uid);
		else
			snprintf(buf, len, "%s", RESOLVE_UNKNOWN);
		break;
	case PROFILE_KEY_CGROUP:
		cg = model__cgroup(m, t->cgroup);
		snprintf(buf, len, "%s", cg ? cg : t->cgroup ? RESOLVE_UNKNOWN : "-");
		break;
	case PROFILE_KEY_CONTAINER:
		snprintf(buf, len, "%s", t->container ? t->container : RESOLVE_UNKNOWN);
		break;
	case PROFILE_KEY_PID:
		snprintf(buf, len, "%d", t->pid);
		break;
	case PROFILE_KEY_COMM:
		snprintf(buf, len, "%s", t->comm ? t->comm : "");
		break;
	case PROFILE_KEY_DSO:
		slash = row->dso ? strrchr(row->dso, '/') : NULL;
		snprintf(buf, len, "%s", slash ? slash + 1 : row->dso ? row->dso : "");
		break;
	case PROFILE_KEY_SYM:
		if (row->stack != UINT32_MAX)
			chain_text(p, row->stack, buf, len);
		else if (row->sym_shared)
			/* one name in several objects: which one, as the JSON's "dso" says */
			snprintf(buf, len, "[%c] %s (%s)", row->kernel ? 'k' : '.', row->sym ? row->sym : "",
				 row->dso ? row->dso : RESOLVE_UNKNOWN);
		else
			snprintf(buf, len, "[%c] %s", row->kernel ? 'k' : '.', row->sym ? row->sym : "");
		break;
	case PROFILE_KEY_HOLDER:
		user = t->holder >= OFFCPU_HOLDER_UID ? users__name(&users, t->holder - OFFCPU_HOLDER_UID) : NULL;
		offcpu__holder_text(t->holder, user, buf, len);
		break;
	case PROFILE_KEY_HOLDER_CGROUP:
		/* a task's cgroup; self, system, idle, other tenants as they are */
		cg = t->holder_cgroup ? model__cgroup(m, t->holder_cgroup) : NULL;
		if (cg)
			snprintf(buf, len, "%s", cg);
		else if (t->holder >= OFFCPU_HOLDER_UID || t->holder_cgroup)
			snprintf(buf, len, "%s", RESOLVE_UNKNOWN);
		else
			offcpu__holder_text(t->holder, NULL, buf, len);
		break;
	case PROFILE_KEY_HOLDER_CONTAINER:
		if (t->holder_container)
			snprintf(buf, len, "%s", t->holder_container);
		else if (t->holder >= OFFCPU_HOLDER_UID || t->holder_cgroup)
			snprintf(buf, len, "%s", RESOLVE_UNKNOWN);
		else
			offcpu__holder_text(t->holder, NULL, buf, len);
		break;
	default:
		snprintf(buf, len, "%s", "");
	}
}

size_t keys__text(const struct profile_row *row, enum profile_key k, const struct model *m,
		  const struct profile *p, char *buf, size_t len)
{
	char raw[1024];

	keys__raw_text(row, k, m, p, raw, sizeof(raw));
	/* a terminal shows a container as docker ps does: the id's first 12 digits, "-"
	 * for a host task; its runtime's name before it, escaped and cut to a column */
	const char *container = k == PROFILE_KEY_CONTAINER ? row->task.container
				: k == PROFILE_KEY_HOLDER_CONTAINER ? row->task.holder_container : NULL;

	if (container) {
		const char *name = m ? model__container_name(m, container) : NULL;
		char esc[4 * NAME_COLUMN + 1];

		if (!container[0])
			return escape__text(buf, len, "-");
		raw[CONTAINER_PREFIX_MIN] = '\0';
		if (!name)
			return escape__text(buf, len, raw);
		size_t elen = escape__text(esc, sizeof(esc), name);

		if (utf8__count(esc, elen) > NAME_COLUMN)
			strcpy(esc + utf8__prefix(esc, elen, NAME_COLUMN - 3), "...");
		int n = len ? snprintf(buf, len, "%s (%s)", esc, raw) : 0;

		return n < 0 ? 0 : MIN((size_t)n, len ? len - 1 : 0);
	}
	/* names come from the tasks recorded: nothing they hold may reach a terminal raw */
	return escape__text(buf, len, raw);
}
