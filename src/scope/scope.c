/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <fcntl.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "prof/sys/procfs.h"
#include "prof/scope/cgroup_tree.h"
#include "prof/scope/containers.h"
#include "prof/scope/scope.h"
#include "prof/base/util.h"

#define CGROUP_SEARCH_DEPTH 8
#define MAX_CANDIDATES 8

void scope__release(struct scope *s)
{
	for (size_t i = 0; i < s->nr_cgroups; i++) {
		free(s->cgroups[i].arg);
		free(s->cgroups[i].path);
	}
	free(s->cgroups);
	free(s->uids);
	free(s->pids);
	*s = (struct scope){ 0 };
}

bool scope__narrowed(const struct scope *s)
{
	return s->nr_uids || s->nr_cgroups || s->nr_pids;
}

__attribute__((format(printf, 4, 5)))
static int fail(int err, char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return err;
}

static int push(void **arr, size_t *nr, size_t elem, const void *v)
{
	void *n = realloc(*arr, (*nr + 1) * elem);

	if (!n)
		return -ENOMEM;
	memcpy((char *)n + *nr * elem, v, elem);
	*arr = n;
	(*nr)++;
	return 0;
}

static bool parse_num(const char *s, size_t len, uint64_t max, uint64_t *ret)
{
	uint64_t v = 0;

	if (len == 0 || len > 10)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v > max)
		return false;
	*ret = v;
	return true;
}

int scope__add_uids(struct scope *s, const char *arg, char *err, size_t errlen)
{
	for (const char *p = arg;;) {
		const char *comma = strchrnul(p, ',');
		size_t len = (size_t)(comma - p);
		uint64_t v;
		uint32_t uid;
		int r;

		if (len == 0)
			return fail(-EINVAL, err, errlen, "empty user name in '%s'", arg);
		if (parse_num(p, len, UINT32_MAX - 1, &v)) {
			uid = (uint32_t)v;
		} else {
			char name[256], buf[4096];
			struct passwd pw, *res = NULL;

			if (len >= sizeof(name))
				return fail(-ENOENT, err, errlen, "no such user '%.*s'", (int)len, p);
			memcpy(name, p, len);
			name[len] = '\0';
			r = getpwnam_r(name, &pw, buf, sizeof(buf), &res);
			if (r || !res)
				return fail(-ENOENT, err, errlen, "no such user '%s' (give a user name or a numeric uid)", name);
			uid = res->pw_uid;
		}
		r = push((void **)&s->uids, &s->nr_uids, sizeof(uid), &uid);
		if (r < 0)
			return r;
		if (!*comma)
			return 0;
		p = comma + 1;
	}
}

int scope__add_pids(struct scope *s, const char *arg, char *err, size_t errlen)
{
	for (const char *p = arg;;) {
		const char *comma = strchrnul(p, ',');
		uint64_t v;
		pid_t pid;
		int r;

		if (!parse_num(p, (size_t)(comma - p), 0x3fffffff, &v) || v == 0)
			return fail(-EINVAL, err, errlen, "bad pid '%.*s' in '%s'", (int)(comma - p), p, arg);
		pid = (pid_t)v;
		r = push((void **)&s->pids, &s->nr_pids, sizeof(pid), &pid);
		if (r < 0)
			return r;
		if (!*comma)
			return 0;
		p = comma + 1;
	}
}

int scope__add_cgroup(struct scope *s, const char *arg)
{
	return scope__add_cgroup_of(s, SCOPE_CGROUP_PATH, arg);
}

int scope__add_cgroup_of(struct scope *s, enum scope_cgroup_kind kind, const char *arg)
{
	struct scope_cgroup c = { .kind = kind, .arg = strdup(arg) };

	if (!c.arg)
		return -ENOMEM;
	if (push((void **)&s->cgroups, &s->nr_cgroups, sizeof(c), &c) < 0) {
		free(c.arg);
		return -ENOMEM;
	}
	return 0;
}

int scope__cgroup2_mount(const char *mountinfo, char *ret, size_t len)
{
	return procfs__mount_point(mountinfo, "cgroup2", ret, len);
}

struct search {
	const char *name;
	char *found[MAX_CANDIDATES];
	size_t nr;
};

static int search_fn(const char *path, uint64_t id, void *ctx)
{
	struct search *s = ctx;
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	if (strcmp(base, s->name))
		return 0;
	if (s->nr < MAX_CANDIDATES)
		s->found[s->nr] = strdup(path);
	s->nr++;
	return 0;
}

static int find_by_name(int root_fd, const char *name, char **ret, char *err, size_t errlen,
			const char *mount)
{
	struct search s = { .name = name };
	int r;

	r = cgroup_tree__walk(root_fd, "", CGROUP_SEARCH_DEPTH, search_fn, &s);
	if (r < 0)
		goto out;
	if (s.nr == 0) {
		r = fail(-ENOENT, err, errlen, "no cgroup named '%s' under %s (give its path, e.g. system.slice/%s)",
			 name, mount, name);
	} else if (s.nr > 1) {
		size_t off = (size_t)snprintf(err, errlen, "cgroup name '%s' is ambiguous; give one of:", name);
		for (size_t i = 0; i < s.nr && i < MAX_CANDIDATES && off < errlen; i++)
			off += (size_t)snprintf(err + off, errlen - off, " %s", s.found[i] ? s.found[i] : "?");
		r = -EEXIST;
	} else {
		*ret = steal_pointer(&s.found[0]);
		r = 0;
	}
out:
	for (size_t i = 0; i < s.nr && i < MAX_CANDIDATES; i++)
		free(s.found[i]);
	return r;
}

static int resolve_one(struct scope_cgroup *c, int root_fd, const char *mount, char *err, size_t errlen)
{
	size_t mlen = strlen(mount);
	const char *a = c->arg;
	char *path = NULL;
	int r;

	if (c->kind != SCOPE_CGROUP_PATH) {
		r = containers__find(root_fd, mount, c->kind == SCOPE_CGROUP_POD ? CONTAINERS_POD : CONTAINERS_CONTAINER,
				     a, &path, err, errlen);
		if (r < 0)
			return r;
	} else if (!strncmp(a, mount, mlen) && (a[mlen] == '/' || a[mlen] == '\0')) {
		r = asprintf(&path, "/%s", a[mlen] ? a + mlen + 1 : "");
	} else if (strchr(a, '/')) {
		r = asprintf(&path, "%s%s", a[0] == '/' ? "" : "/", a);
	} else {
		r = find_by_name(root_fd, a, &path, err, errlen, mount);
		if (r < 0)
			return r;
	}
	if (r < 0 || !path)
		return -ENOMEM;
	/* normalise: no trailing '/' except for the root */
	for (size_t l = strlen(path); l > 1 && path[l - 1] == '/'; l--)
		path[l - 1] = '\0';
	r = cgroup_tree__id(root_fd, path, &c->id);
	if (r < 0) {
		fail(r, err, errlen, "cgroup '%s' not found: %s%s is %s", a, mount, path,
		     r == -ENOENT ? "missing" : strerror(-r));
		free(path);
		return r;
	}
	free(c->path);
	c->path = path;
	return 0;
}

int scope__resolve_cgroups(struct scope *s, int root_fd, const char *mount, char *err, size_t errlen)
{
	for (size_t i = 0; i < s->nr_cgroups; i++) {
		int r = resolve_one(&s->cgroups[i], root_fd, mount, err, errlen);
		if (r < 0)
			return r;
	}
	return 0;
}

void scope__describe(const struct scope *s, char *buf, size_t len)
{
	size_t off = 0;

#define ADD(...) do { if (off < len) off += (size_t)snprintf(buf + off, len - off, __VA_ARGS__); } while (0)
	buf[0] = '\0';
	if (s->all)
		ADD("all");
	for (size_t i = 0; i < s->nr_uids; i++) {
		struct passwd pw, *res = NULL;
		char pwbuf[1024];
		ADD("%suid %u", off ? ", " : "", s->uids[i]);
		if (getpwuid_r(s->uids[i], &pw, pwbuf, sizeof(pwbuf), &res) == 0 && res)
			ADD(" (%s)", res->pw_name);
	}
	for (size_t i = 0; i < s->nr_cgroups; i++) {
		const struct scope_cgroup *c = &s->cgroups[i];
		if (c->kind != SCOPE_CGROUP_PATH)
			ADD("%s%s %s (", off ? ", " : "", c->kind == SCOPE_CGROUP_POD ? "pod" : "container", c->arg);
		ADD("%scgroup %s", off && c->kind == SCOPE_CGROUP_PATH ? ", " : "", c->path ? c->path : c->arg);
		if (c->kind != SCOPE_CGROUP_PATH)
			ADD(")");
	}
	for (size_t i = 0; i < s->nr_pids; i++)
		ADD("%spid %d", off ? ", " : "", s->pids[i]);
	if (s->workload)
		ADD("%sworkload pid %d", off ? ", " : "", s->workload);
#undef ADD
}
