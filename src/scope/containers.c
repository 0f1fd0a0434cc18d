/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof/scope/cgroup_tree.h"
#include "prof/base/escape.h"
#include "prof/base/util.h"
#include "prof/scope/containers.h"
#include "prof/scope/scope.h"

#define MAX_LISTED 8    /* candidates an error names */

/* The runtimes' names of a container's cgroup: prefix, the id, suffix, and the name
 * its parent must have (NULL: any; "pod*": a pod's, pod<uid> as the kubelet's
 * cgroupfs driver names it, kubepods/<qos>/pod<uid>/<id>). */
static const struct {
	const char *prefix, *suffix, *parent;
} forms[] = {
	{ "docker-", ".scope", NULL },
	{ "", "", "docker" },
	{ "libpod-", ".scope", NULL },
	{ "libpod-", "", "libpod_parent" },
	{ "cri-containerd-", ".scope", NULL },
	{ "crio-", ".scope", NULL },
	{ "", "", "pod*" },
};

#define FORMS_TEXT "docker-<id>.scope, docker/<id>, libpod-<id>.scope, libpod_parent/libpod-<id>, " \
		   "cri-containerd-<id>.scope, crio-<id>.scope, pod<uid>/<id>"

static bool is_hex(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

static bool name_is(const char *s, size_t len, const char *want)
{
	return strlen(want) == len && !memcmp(s, want, len);
}

/* pod<uid>: the kubelet's cgroupfs name of a pod (its uid with dashes). */
static bool is_pod_dir(const char *s, size_t len)
{
	if (len < 3 + 32 || len > 3 + CONTAINER_POD_UID_MAX || memcmp(s, "pod", 3))
		return false;
	for (size_t i = 3; i < len; i++)
		if (!is_hex(&s[i], 1) && s[i] != '-')
			return false;
	return true;
}

/* The id of a cgroup directory called name[0..len), whose parent is called
 * parent[0..plen): where in name it is, or NULL when it is not a container's. */
static const char *id_of_name(const char *parent, size_t plen, const char *name, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(forms); i++) {
		size_t pl = strlen(forms[i].prefix), sl = strlen(forms[i].suffix);

		if (len != pl + CONTAINER_ID_LEN + sl || memcmp(name, forms[i].prefix, pl) ||
		    memcmp(name + len - sl, forms[i].suffix, sl) || !is_hex(name + pl, CONTAINER_ID_LEN))
			continue;
		if (!forms[i].parent || name_is(parent, plen, forms[i].parent) ||
		    (!strcmp(forms[i].parent, "pod*") && is_pod_dir(parent, plen)))
			return name + pl;
	}
	return NULL;
}

/* The pod uid (dashes) of a cgroup directory called name[0..len) whose ancestors are
 * path[0..name): kubepods-...-pod<uid with _>.slice, or pod<uid> under kubepods. */
static bool pod_of_name(const char *path, const char *name, size_t len, char uid[CONTAINER_POD_UID_MAX + 1])
{
	const char *u = NULL, *kubepods = strstr(path, "/kubepods");
	size_t ulen = 0;

	if (len > 14 && !memcmp(name, "kubepods", 8) && !memcmp(name + len - 6, ".slice", 6)) {
		/* the last "-pod": kubepods-<qos>-pod<uid>.slice, kubepods-pod<uid>.slice */
		for (const char *p = name; p + 4 <= name + len - 6; p++)
			if (!memcmp(p, "-pod", 4))
				u = p + 4;
		ulen = u ? (size_t)(name + len - 6 - u) : 0;
	} else if (len > 3 && !memcmp(name, "pod", 3) && kubepods && kubepods < name) {
		u = name + 3;
		ulen = len - 3;
	}
	if (!u || ulen == 0 || ulen > CONTAINER_POD_UID_MAX)
		return false;
	for (size_t i = 0; i < ulen; i++) {
		char c = u[i] == '_' ? '-' : u[i];

		if (c != '-' && !is_hex(&c, 1))
			return false;
		uid[i] = c;
	}
	uid[ulen] = '\0';
	return true;
}

bool containers__of_path(const char *path, char id[CONTAINER_ID_LEN + 1])
{
	const char *parent = "", *found = NULL;
	size_t plen = 0;

	for (const char *p = path; *p;) {
		size_t len = strcspn(p, "/");
		const char *i = len ? id_of_name(parent, plen, p, len) : NULL;

		if (i)
			found = i;
		if (len) {
			parent = p;
			plen = len;
		}
		p += len;
		if (*p == '/')
			p++;
	}
	if (!found)
		return false;
	memcpy(id, found, CONTAINER_ID_LEN);
	id[CONTAINER_ID_LEN] = '\0';
	return true;
}

int containers__parse_id(const char *arg, char id[CONTAINER_ID_LEN + 1], char *err, size_t errlen)
{
	const char *scheme = strstr(arg, "://");
	const char *a = scheme ? scheme + 3 : arg;
	size_t len = strlen(a);

	if (len < CONTAINER_PREFIX_MIN || len > CONTAINER_ID_LEN)
		return errorf(err, errlen, "bad container id '%s': give its id or at least its first %d hex digits "
			      "(as docker ps or podman ps show it)", arg, CONTAINER_PREFIX_MIN);
	for (size_t i = 0; i < len; i++) {
		id[i] = (char)tolower((unsigned char)a[i]);
		if (!is_hex(&id[i], 1))
			return errorf(err, errlen, "bad container id '%s': hex digits only (as docker ps or podman "
				      "ps show it)", arg);
	}
	id[len] = '\0';
	return 0;
}

/* The pod uid of a --pod argument, lower case, with dashes. */
static int parse_pod(const char *arg, char uid[CONTAINER_POD_UID_MAX + 1], char *err, size_t errlen)
{
	size_t len = strlen(arg);

	if (len == 0 || len > CONTAINER_POD_UID_MAX)
		return errorf(err, errlen, "bad pod uid '%s': give the pod's uid (kubectl get pod NAME -o "
			      "jsonpath='{.metadata.uid}')", arg);
	for (size_t i = 0; i < len; i++) {
		char c = (char)tolower((unsigned char)arg[i]);

		uid[i] = c == '_' ? '-' : c;
		if (uid[i] != '-' && !is_hex(&uid[i], 1))
			return errorf(err, errlen, "bad pod uid '%s': hex digits and dashes only, as the kubelet "
				      "gives it (or NAMESPACE/POD for a pod by its name)", arg);
	}
	uid[len] = '\0';
	return 0;
}

struct candidate {
	char *path;
	char id[CONTAINER_POD_UID_MAX + 1];
};

struct find {
	enum containers_kind kind;
	char want[CONTAINER_POD_UID_MAX + 1];
	struct candidate match[MAX_LISTED], seen[MAX_LISTED];
	size_t nr_match, nr_seen;       /* all of them, listed or not */
};

/* What the cgroup at path is: its container's or pod's id into id.  False: neither. */
static bool what_is(const struct find *f, const char *path, char id[CONTAINER_POD_UID_MAX + 1])
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path, *pend = slash ? slash : path, *parent = pend;
	const char *i;

	if (f->kind == CONTAINERS_POD)
		return pod_of_name(path, name, strlen(name), id);
	while (parent > path && parent[-1] != '/')
		parent--;
	i = id_of_name(parent, (size_t)(pend - parent), name, strlen(name));
	if (!i)
		return false;
	memcpy(id, i, CONTAINER_ID_LEN);
	id[CONTAINER_ID_LEN] = '\0';
	return true;
}

static int note(struct candidate *v, size_t *nr, const char *path, const char *id)
{
	if (*nr < MAX_LISTED) {
		v[*nr].path = strdup(path);
		if (!v[*nr].path)
			return -ENOMEM;
		snprintf(v[*nr].id, sizeof(v[*nr].id), "%s", id);
	}
	(*nr)++;
	return 0;
}

static int find_fn(const char *path, uint64_t cgroup_id, void *ctx)
{
	struct find *f = ctx;
	char id[CONTAINER_POD_UID_MAX + 1];
	bool match;

	if (!what_is(f, path, id))
		return 0;
	match = f->kind == CONTAINERS_POD ? !strcmp(id, f->want) : !strncmp(id, f->want, strlen(f->want));
	if (!match)
		return note(f->seen, &f->nr_seen, path, id);
	/* the same one again inside itself (a nested cgroup of the same name) is it */
	for (size_t i = 0; i < MIN(f->nr_match, (size_t)MAX_LISTED); i++)
		if (!strcmp(f->match[i].id, id) && cgroup_tree__path_under(path, f->match[i].path))
			return 0;
	return note(f->match, &f->nr_match, path, id);
}

/* "a (/p), b (/q) and 3 more" into buf, the paths escaped (a tenant names the
 * cgroups delegated to it, and the message goes to a terminal). */
static void list(const struct candidate *v, size_t nr, bool short_ids, char *buf, size_t len)
{
	char path[1024];
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < MIN(nr, (size_t)MAX_LISTED) && off < len; i++) {
		escape__text(path, sizeof(path), v[i].path);
		off += (size_t)snprintf(buf + off, len - off, "%s%.*s (%s)", i ? ", " : "",
					short_ids ? CONTAINER_PREFIX_MIN : CONTAINER_POD_UID_MAX, v[i].id, path);
	}
	if (nr > MAX_LISTED && off < len)
		snprintf(buf + off, len - off, " and %zu more", nr - MAX_LISTED);
}

static int verdict(struct find *f, const char *arg, const char *mount, char **ret, char *err, size_t errlen)
{
	const char *what = f->kind == CONTAINERS_POD ? "pod" : "container";
	char names[1536];

	if (f->nr_match == 1) {
		*ret = steal_pointer(&f->match[0].path);
		return 0;
	}
	if (f->nr_match > 1) {
		list(f->match, f->nr_match, false, names, sizeof(names));
		errorf(err, errlen, "%s '%s' is ambiguous: %zu match: %s (give more of its id)", what, arg,
		       f->nr_match, names);
		return -EEXIST;
	}
	list(f->seen, f->nr_seen, f->kind == CONTAINERS_CONTAINER, names, sizeof(names));
	if (f->kind == CONTAINERS_POD)
		errorf(err, errlen, "no pod with uid '%s' under %s (kubepods*.slice/...pod<uid>.slice); %s%s",
		       arg, mount, f->nr_seen ? "pods here: " : "there are no pods here", names);
	else
		errorf(err, errlen, "no container '%s' under %s (looked for " FORMS_TEXT "); %s%s", arg, mount,
		       f->nr_seen ? "containers here: " : "there are no containers here", names);
	return -ENOENT;
}

int containers__find(int root_fd, const char *mount, enum containers_kind kind, const char *arg, char **ret,
		     char *err, size_t errlen)
{
	struct find f = { .kind = kind };
	int r = kind == CONTAINERS_POD ? parse_pod(arg, f.want, err, errlen)
				       : containers__parse_id(arg, f.want, err, errlen);

	if (r < 0)
		return r;
	r = cgroup_tree__walk(root_fd, "/", CGROUP_TREE_ALL, find_fn, &f);
	if (r == 0)
		r = verdict(&f, arg, mount, ret, err, errlen);
	for (size_t i = 0; i < MAX_LISTED; i++) {
		free(f.match[i].path);
		free(f.seen[i].path);
	}
	return r;
}
