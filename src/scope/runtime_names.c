/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prof/base/escape.h"
#include "prof/base/util.h"
#include "prof/base/vec.h"
#include "prof/scope/runtime_names.h"

/* Deeper nesting than any runtime writes: a hostile file stops the tokenizer early. */
#define JSON_DEPTH 32

static bool hex_id(const char *s, size_t len)
{
	if (len != CONTAINER_ID_LEN)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isdigit((unsigned char)s[i]) && !(s[i] >= 'a' && s[i] <= 'f'))
			return false;
	return true;
}

/* A pod uid as the kubelet writes it: hex digits and dashes, 32 to 64 of them. */
static bool pod_uid(const char *s, size_t len)
{
	if (len < 32 || len > CONTAINER_POD_UID_MAX)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isxdigit((unsigned char)s[i]) && s[i] != '-')
			return false;
	return true;
}

/* A name prof keeps: not empty, not too long, no NUL (a JSON "\u0000" can carry one). */
static bool good_name(const char *s, size_t len)
{
	return len > 0 && len <= RUNTIME_NAME_MAX && !memchr(s, '\0', len);
}

/* buf[0..len) as JSON, or NULL (truncated, not JSON, too deep, trailing bytes). */
static struct json_object *parse_json(const char *buf, size_t len)
{
	struct json_tokener *tok;
	struct json_object *o;

	if (len > RUNTIME_FILE_MAX)
		return NULL;
	tok = json_tokener_new_ex(JSON_DEPTH);
	if (!tok)
		return NULL;
	o = json_tokener_parse_ex(tok, buf, (int)len);
	if (o && json_tokener_get_error(tok) == json_tokener_success) {
		/* whitespace after the value is fine, anything else is not this file */
		for (size_t i = json_tokener_get_parse_end(tok); i < len; i++)
			if (!isspace((unsigned char)buf[i])) {
				json_object_put(o);
				o = NULL;
				break;
			}
	} else {
		json_object_put(o);
		o = NULL;
	}
	json_tokener_free(tok);
	return o;
}

/* The string member key of object o: its text and length, or NULL. */
static const char *member(struct json_object *o, const char *key, size_t *ret_len)
{
	struct json_object *v;

	if (!json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	*ret_len = (size_t)json_object_get_string_len(v);
	return json_object_get_string(v);
}

int runtime_names__parse_docker(const char *buf, size_t len, char id[CONTAINER_ID_LEN + 1], char **ret_name)
{
	struct json_object *o = parse_json(buf, len);
	const char *i, *name;
	size_t ilen, nlen;
	int r = -EINVAL;

	if (!o)
		return -EINVAL;
	i = member(o, "ID", &ilen);
	name = member(o, "Name", &nlen);
	if (name && nlen && name[0] == '/')     /* docker keeps it as "/web" */
		name++, nlen--;
	if (i && hex_id(i, ilen) && name && good_name(name, nlen)) {
		char *copy = strndup(name, nlen);

		r = copy ? 0 : -ENOMEM;
		if (copy) {
			memcpy(id, i, CONTAINER_ID_LEN + 1);
			*ret_name = copy;
		}
	}
	json_object_put(o);
	return r;
}

int runtime_names__parse_podman(const char *buf, size_t len, struct runtime_names *n, size_t *ret_skipped)
{
	struct json_object *o = parse_json(buf, len);
	size_t skipped = 0;
	int r = 0;

	if (!o || !json_object_is_type(o, json_type_array)) {
		json_object_put(o);
		return -EINVAL;
	}
	for (size_t k = 0; k < json_object_array_length(o) && r == 0; k++) {
		struct json_object *e = json_object_array_get_idx(o, k), *names, *first;
		const char *id = NULL;
		size_t ilen = 0;

		id = member(e, "id", &ilen);
		if (!id || !hex_id(id, ilen) || !json_object_object_get_ex(e, "names", &names) ||
		    !json_object_is_type(names, json_type_array) || json_object_array_length(names) == 0 ||
		    !(first = json_object_array_get_idx(names, 0)) || !json_object_is_type(first, json_type_string) ||
		    !good_name(json_object_get_string(first), (size_t)json_object_get_string_len(first))) {
			skipped++;
			continue;
		}
		r = runtime_names__add(n, RUNTIME_PODMAN, id, json_object_get_string(first));
	}
	json_object_put(o);
	if (ret_skipped)
		*ret_skipped += skipped;
	return r;
}

/* s[0..len) split at '_' into exactly three non-empty parts. */
static bool three_parts(const char *s, size_t len, const char *p[3], size_t l[3])
{
	const char *end = s + len;

	for (int k = 0; k < 3; k++) {
		const char *u = k < 2 ? memchr(s, '_', (size_t)(end - s)) : NULL;
		const char *e = u ? u : end;

		if ((k < 2 && !u) || e == s)
			return false;
		p[k] = s;
		l[k] = (size_t)(e - s);
		s = e + 1;
	}
	return !memchr(p[2], '_', l[2]);
}

/* "<ns>_<pod>_<uid>" of dirname[0..len): its parts, the uid checked. */
static bool pod_dir_parts(const char *dirname, size_t len, const char *p[3], size_t l[3])
{
	return three_parts(dirname, len, p, l) && pod_uid(p[2], l[2]) && !memchr(dirname, '/', len);
}

int runtime_names__parse_pod_dir(const char *dirname, char uid[CONTAINER_POD_UID_MAX + 1], char **ret_name)
{
	const char *p[3];
	size_t l[3];
	char *name;

	if (!pod_dir_parts(dirname, strlen(dirname), p, l) || !good_name(dirname, l[0] + 1 + l[1]))
		return -EINVAL;
	if (asprintf(&name, "%.*s/%.*s", (int)l[0], p[0], (int)l[1], p[1]) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < l[2]; i++)
		uid[i] = (char)tolower((unsigned char)p[2][i]);
	uid[l[2]] = '\0';
	*ret_name = name;
	return 0;
}

int runtime_names__parse_container_link(const char *linkname, const char *target,
					char id[CONTAINER_ID_LEN + 1], char **ret_name)
{
	size_t len = strlen(linkname), tlen = strlen(target);
	const char *c[3], *d[3], *file, *cdir, *pdir;
	size_t cl[3], dl[3], cdl, pdl;
	char *name;

	/* <pod>_<ns>_<container>-<id>.log */
	if (len < 4 + 1 + CONTAINER_ID_LEN + 1 || strcmp(linkname + len - 4, ".log") ||
	    linkname[len - 4 - CONTAINER_ID_LEN - 1] != '-' ||
	    !hex_id(linkname + len - 4 - CONTAINER_ID_LEN, CONTAINER_ID_LEN) ||
	    !three_parts(linkname, len - 4 - CONTAINER_ID_LEN - 1, c, cl))
		return -EINVAL;
	/* .../<ns>_<pod>_<uid>/<container>/<n>.log */
	file = memrchr(target, '/', tlen);
	cdir = file ? memrchr(target, '/', (size_t)(file - target)) : NULL;
	pdir = cdir ? memrchr(target, '/', (size_t)(cdir - target)) : NULL;
	if (!pdir)
		return -EINVAL;
	cdl = (size_t)(file - cdir - 1);
	pdl = (size_t)(cdir - pdir - 1);
	if (!pod_dir_parts(pdir + 1, pdl, d, dl) || cdl != cl[2] || memcmp(cdir + 1, c[2], cdl) ||
	    dl[0] != cl[1] || memcmp(d[0], c[1], dl[0]) || dl[1] != cl[0] || memcmp(d[1], c[0], dl[1]) ||
	    !good_name(linkname, cl[0] + cl[1] + cl[2] + 2))
		return -EINVAL;
	if (asprintf(&name, "%.*s/%.*s/%.*s", (int)cl[1], c[1], (int)cl[0], c[0], (int)cl[2], c[2]) < 0)
		return -ENOMEM;
	memcpy(id, linkname + len - 4 - CONTAINER_ID_LEN, CONTAINER_ID_LEN);
	id[CONTAINER_ID_LEN] = '\0';
	*ret_name = name;
	return 0;
}

int runtime_names__add(struct runtime_names *n, enum runtime_kind kind, const char *id, const char *name)
{
	char *copy = strdup(name);

	if (!copy || VEC_RESERVE(n->v, n->cap, n->nr + 1) < 0) {
		free(copy);
		return -ENOMEM;
	}
	n->v[n->nr] = (struct runtime_name){ .kind = kind, .name = copy };
	snprintf(n->v[n->nr].id, sizeof(n->v[n->nr].id), "%s", id);
	n->nr++;
	return 0;
}

const char *runtime_names__of(const struct runtime_names *n, const char *id, bool pod)
{
	for (size_t i = 0; i < n->nr; i++)
		if ((n->v[i].kind == RUNTIME_POD) == pod && !strcmp(n->v[i].id, id))
			return n->v[i].name;
	return NULL;
}

size_t runtime_names__match(const struct runtime_names *n, const char *arg, bool pod,
			    const struct runtime_name **ret, size_t max)
{
	size_t nr = 0;

	for (size_t i = 0; i < n->nr; i++) {
		if ((n->v[i].kind == RUNTIME_POD) != pod || strcmp(n->v[i].name, arg))
			continue;
		/* the same container named twice (two data roots of one daemon) is one */
		bool dup = false;
		for (size_t k = 0; k < MIN(nr, max); k++)
			dup |= !strcmp(ret[k]->id, n->v[i].id);
		if (dup)
			continue;
		if (nr < max)
			ret[nr] = &n->v[i];
		nr++;
	}
	return nr;
}

void runtime_names__release(struct runtime_names *n)
{
	for (size_t i = 0; i < n->nr; i++)
		free(n->v[i].name);
	free(n->v);
	*n = (struct runtime_names){ 0 };
}

/* ---- where the state is, and the shell that reads it ------------------------------ */

void runtime_dirs__defaults(struct runtime_dirs *d)
{
	*d = (struct runtime_dirs){ .rootless_podman = true };
	strcpy(d->docker[0], "/var/lib/docker");
	strcpy(d->podman[0], "/var/lib/containers/storage");
	strcpy(d->kubelet[0], "/var/log");
}

int runtime_dirs__set(struct runtime_dirs *d, enum runtime_kind kind, const char *list, char *err,
		      size_t errlen)
{
	char (*v)[256] = kind == RUNTIME_DOCKER ? d->docker : kind == RUNTIME_PODMAN ? d->podman : d->kubelet;
	size_t nr = 0;

	memset(v, 0, sizeof(d->docker));
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ":");

		if (len) {
			if (p[0] != '/' || len >= sizeof(d->docker[0]) || nr == RUNTIME_DIRS_MAX)
				return errorf(err, errlen, "bad directory list '%s': up to %d absolute paths, "
					      "separated by ':'", list, RUNTIME_DIRS_MAX);
			memcpy(v[nr++], p, len);
		}
		p += len;
		if (*p == ':')
			p++;
	}
	return 0;
}

void runtime_dirs__describe(const struct runtime_dirs *d, char *buf, size_t len)
{
	size_t off = 0;

#define ADD(...) do { if (off < len) off += (size_t)snprintf(buf + off, len - off, __VA_ARGS__); } while (0)
	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < RUNTIME_DIRS_MAX; i++)
		if (d->docker[i][0])
			ADD("%s%s/containers/*/config.v2.json", off ? ", " : "", d->docker[i]);
	for (size_t i = 0; i < RUNTIME_DIRS_MAX; i++)
		if (d->podman[i][0])
			ADD("%s%s/*-containers/containers.json", off ? ", " : "", d->podman[i]);
	if (d->rootless_podman)
		ADD("%s~/.local/share/containers/storage", off ? ", " : "");
	for (size_t i = 0; i < RUNTIME_DIRS_MAX; i++)
		if (d->kubelet[i][0])
			ADD("%s%s/pods, %s/containers", off ? ", " : "", d->kubelet[i], d->kubelet[i]);
#undef ADD
}

/* A regular file under dirfd, never through a symlink at its last component. */
static ssize_t read_state(int dirfd, const char *path, char **ret)
{
	_cleanup_close_ int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK);
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	return read_fd_full(fd, RUNTIME_FILE_MAX, ret);
}

static void count_denied(int err, size_t *unreadable)
{
	if (err == -EACCES || err == -EPERM)
		(*unreadable)++;
}

/* opendir of <base>/<sub>, or NULL, a refusal counted as unreadable. */
static DIR *open_dir(const char *base, const char *sub, size_t *unreadable)
{
	char path[PATH_MAX];
	DIR *dir;

	snprintf(path, sizeof(path), "%s/%s", base, sub);
	dir = opendir(path);
	if (!dir)
		count_denied(-errno, unreadable);
	return dir;
}

/* Which ids to read: all (NULL), or these. */
struct wanted {
	const char *const *ids;
	size_t nr;
};

static bool wants(const struct wanted *w, const char *id)
{
	if (!w->ids)
		return true;
	for (size_t i = 0; i < w->nr; i++)
		if (!strcmp(w->ids[i], id))
			return true;
	return false;
}

/* <root>/containers/<id>/config.v2.json of one id, named only when it states that id. */
static int load_docker_one(int dirfd, const char *dirname, struct runtime_names *n, size_t *unreadable)
{
	_cleanup_free_ char *buf = NULL, *name = NULL;
	char id[CONTAINER_ID_LEN + 1], file[CONTAINER_ID_LEN + 32];
	ssize_t len;
	int r;

	snprintf(file, sizeof(file), "%s/config.v2.json", dirname);
	len = read_state(dirfd, file, &buf);
	if (len < 0) {
		count_denied((int)len, unreadable);
		return 0;
	}
	r = runtime_names__parse_docker(buf, (size_t)len, id, &name);
	if (r == 0 && !strcmp(id, dirname))
		r = runtime_names__add(n, RUNTIME_DOCKER, id, name);
	return r == -EINVAL ? 0 : r;
}

static int load_docker(const char *root, const struct wanted *w, struct runtime_names *n, size_t *unreadable)
{
	char path[PATH_MAX];
	_cleanup_close_ int fd = -1;
	DIR *dir;
	struct dirent *e;
	int r = 0;

	snprintf(path, sizeof(path), "%s/containers", root);
	if (w->ids) {
		fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0) {
			count_denied(-errno, unreadable);
			return 0;
		}
		for (size_t i = 0; i < w->nr && r == 0; i++)
			if (hex_id(w->ids[i], strlen(w->ids[i])))
				r = load_docker_one(fd, w->ids[i], n, unreadable);
		return r;
	}
	dir = open_dir(root, "containers", unreadable);
	if (!dir)
		return 0;
	while (r == 0 && (e = readdir(dir)))
		if (hex_id(e->d_name, strlen(e->d_name)))
			r = load_docker_one(dirfd(dir), e->d_name, n, unreadable);
	closedir(dir);
	return r;
}

static int load_podman(const char *root, const struct wanted *w, struct runtime_names *n, size_t *unreadable)
{
	DIR *dir = opendir(root);
	struct dirent *e;
	int r = 0;

	if (!dir) {
		count_denied(-errno, unreadable);
		return 0;
	}
	/* <driver>-containers/containers.json: overlay-containers, vfs-containers, ... */
	while (r == 0 && (e = readdir(dir))) {
		_cleanup_free_ char *buf = NULL;
		size_t l = strlen(e->d_name);
		char file[NAME_MAX + 32];
		ssize_t len;

		if (l <= 11 || strcmp(e->d_name + l - 11, "-containers"))
			continue;
		snprintf(file, sizeof(file), "%s/containers.json", e->d_name);
		len = read_state(dirfd(dir), file, &buf);
		if (len < 0) {
			count_denied((int)len, unreadable);
			continue;
		}
		size_t from = n->nr;
		bool any = !w->ids;

		/* none of the ids in the text: nothing to parse (an id written with JSON
		 * escapes is missed, and its container shown by id: never a wrong name) */
		for (size_t i = 0; !any && i < w->nr; i++)
			any = memmem(buf, (size_t)len, w->ids[i], strlen(w->ids[i])) != NULL;
		if (!any)
			continue;
		r = runtime_names__parse_podman(buf, (size_t)len, n, NULL);
		if (r == -EINVAL)
			r = 0;
		/* keep the wanted ones only */
		size_t to = from;
		for (size_t i = from; i < n->nr; i++) {
			if (wants(w, n->v[i].id))
				n->v[to++] = n->v[i];
			else
				free(n->v[i].name);
		}
		n->nr = to;
	}
	closedir(dir);
	return r;
}

static int load_pods(const char *logdir, struct runtime_names *n, size_t *unreadable)
{
	DIR *dir = open_dir(logdir, "pods", unreadable);
	struct dirent *e;
	int r = 0;

	if (!dir)
		return 0;
	while (r == 0 && (e = readdir(dir))) {
		_cleanup_free_ char *name = NULL;
		char uid[CONTAINER_POD_UID_MAX + 1];

		r = runtime_names__parse_pod_dir(e->d_name, uid, &name);
		if (r == 0)
			r = runtime_names__add(n, RUNTIME_POD, uid, name);
		if (r == -EINVAL)
			r = 0;
	}
	closedir(dir);
	return r;
}

/* The kubelet's links <logdir>/containers/<name>.log, whose targets must lie in <logdir>/pods. */
static int load_kube_containers(const char *logdir, const struct wanted *w, struct runtime_names *n,
				size_t *unreadable)
{
	char pods[PATH_MAX];
	DIR *dir = open_dir(logdir, "containers", unreadable);
	struct dirent *e;
	int r = 0;

	if (!dir)
		return 0;
	snprintf(pods, sizeof(pods), "%s/pods/", logdir);
	while (r == 0 && (e = readdir(dir))) {
		_cleanup_free_ char *name = NULL;
		char id[CONTAINER_ID_LEN + 1], target[PATH_MAX];
		ssize_t tl = readlinkat(dirfd(dir), e->d_name, target, sizeof(target) - 1);

		if (tl <= 0)
			continue;
		target[tl] = '\0';
		if (strncmp(target, pods, strlen(pods)))
			continue;
		r = runtime_names__parse_container_link(e->d_name, target, id, &name);
		if (r == 0 && wants(w, id))
			r = runtime_names__add(n, RUNTIME_KUBERNETES, id, name);
		if (r == -EINVAL)
			r = 0;
	}
	closedir(dir);
	return r;
}

static int load(const struct runtime_dirs *d, const struct wanted *w, struct runtime_names *n,
		size_t *ret_unreadable)
{
	size_t unreadable = 0;
	int r = 0;

	for (size_t i = 0; i < RUNTIME_DIRS_MAX && r == 0; i++)
		if (d->docker[i][0])
			r = load_docker(d->docker[i], w, n, &unreadable);
	for (size_t i = 0; i < RUNTIME_DIRS_MAX && r == 0; i++)
		if (d->podman[i][0])
			r = load_podman(d->podman[i], w, n, &unreadable);
	if (r == 0 && d->rootless_podman && getuid() != 0) {
		/* the invoking user's own storage, by the password database (not $HOME:
		 * what prof reads is not the environment's to choose) */
		struct passwd *pw = getpwuid(getuid());
		char path[PATH_MAX];

		if (pw && pw->pw_dir && pw->pw_dir[0] == '/') {
			snprintf(path, sizeof(path), "%s/.local/share/containers/storage", pw->pw_dir);
			r = load_podman(path, w, n, &unreadable);
		}
	}
	for (size_t i = 0; i < RUNTIME_DIRS_MAX && r == 0; i++)
		if (d->kubelet[i][0]) {
			if (!w->ids)
				r = load_pods(d->kubelet[i], n, &unreadable);
			if (r == 0)
				r = load_kube_containers(d->kubelet[i], w, n, &unreadable);
		}
	if (ret_unreadable)
		*ret_unreadable = unreadable;
	return r;
}

int runtime_names__load(const struct runtime_dirs *d, struct runtime_names *n, size_t *ret_unreadable)
{
	return load(d, &(struct wanted){ 0 }, n, ret_unreadable);
}

int runtime_names__load_ids(const struct runtime_dirs *d, const char *const *ids, size_t nr_ids,
			    struct runtime_names *n, size_t *ret_unreadable)
{
	return load(d, &(struct wanted){ .ids = ids, .nr = nr_ids }, n, ret_unreadable);
}

/* ---- an argument's id ------------------------------------------------------------- */

#define MAX_LISTED 8

static const char *kind_name(enum runtime_kind k)
{
	return k == RUNTIME_DOCKER ? "docker" : k == RUNTIME_PODMAN ? "podman" : "kubelet";
}

bool runtime_names__is_name(const char *arg, bool pod)
{
	char id[CONTAINER_ID_LEN + 1], err[8];

	if (pod)
		return strchr(arg, '/') != NULL;
	return containers__parse_id(arg, id, err, sizeof(err)) < 0;
}

bool runtime_names__whole_id(const char *arg)
{
	char id[CONTAINER_ID_LEN + 1], err[8];

	return containers__parse_id(arg, id, err, sizeof(err)) == 0 && strlen(id) == CONTAINER_ID_LEN;
}

int runtime_names__resolve(const struct runtime_names *n, const char *arg, bool pod, const char *where,
			   size_t unreadable, bool (*live)(const char *id, bool pod, void *ctx), void *live_ctx,
			   char id[CONTAINER_POD_UID_MAX + 1], char *err, size_t errlen)
{
	const struct runtime_name *m[MAX_LISTED];
	size_t nr = runtime_names__match(n, arg, pod, m, MAX_LISTED), off;
	bool is_name = runtime_names__is_name(arg, pod);
	char a[4 * 64 + 1], name[4 * 64 + 1];

	escape__text(a, sizeof(a), arg);
	if (!is_name) {
		/* an id prefix that is also the name of a container it is not a prefix of:
		 * which one was meant cannot be known */
		if (nr == 0 || !strncmp(m[0]->id, arg, strlen(arg)))
			return -EAGAIN;
		errorf(err, errlen, "container '%s' is ambiguous: it is the name of %s container %.12s and may be "
		       "the start of an id too; give the full id", a, kind_name(m[0]->kind), m[0]->id);
		return -EEXIST;
	}
	if (nr > 1 && nr <= MAX_LISTED && live) {
		size_t nr_live = 0, which = 0;

		for (size_t i = 0; i < nr; i++)
			if (live(m[i]->id, pod, live_ctx))
				nr_live++, which = i;
		if (nr_live == 1) {
			m[0] = m[which];
			nr = 1;
		}
	}
	if (nr == 1) {
		snprintf(id, CONTAINER_POD_UID_MAX + 1, "%s", m[0]->id);
		return 0;
	}
	if (nr == 0) {
		/* hex digits too few for an id prefix were most likely meant as one */
		bool short_id = !pod && strlen(arg) < CONTAINER_PREFIX_MIN && strspn(arg, "0123456789abcdefABCDEF") ==
				strlen(arg);

		errorf(err, errlen, "no %s named '%s' (looked in %s)%s%s", pod ? "pod" : "container", a, where,
		       unreadable ? "; some of those places are not readable with your rights (the runtimes "
				    "keep them for root): give its id instead" : "",
		       short_id ? "; as an id it is too short: give at least its first 12 hex digits (as docker ps "
				  "or podman ps show it)" : "");
		return -ENOENT;
	}
	off = (size_t)snprintf(err, errlen, "%s name '%s' is ambiguous: %zu match:", pod ? "pod" : "container", a, nr);
	for (size_t i = 0; i < MIN(nr, (size_t)MAX_LISTED) && off < errlen; i++) {
		escape__text(name, sizeof(name), m[i]->name);
		off += (size_t)snprintf(err + off, errlen - off, "%s %s %.*s (%s)", i ? "," : "", name,
					pod ? CONTAINER_POD_UID_MAX : 12, m[i]->id, pod ? "pod" : kind_name(m[i]->kind));
	}
	if (off < errlen)
		snprintf(err + off, errlen - off, "%s; give its id", nr > MAX_LISTED ? " and more" : "");
	return -EEXIST;
}
