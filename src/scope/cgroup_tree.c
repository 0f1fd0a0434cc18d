/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "prof/base/util.h"
#include "prof/scope/cgroup_tree.h"

bool cgroup_tree__path_under(const char *path, const char *root)
{
	size_t l = strlen(root);

	if (!strcmp(root, "/"))
		return true;
	return !strncmp(path, root, l) && (path[l] == '\0' || path[l] == '/');
}

int cgroup_tree__id(int root_fd, const char *relpath, uint64_t *ret)
{
	struct {
		struct file_handle fh;
		uint64_t id;
	} h = { .fh.handle_bytes = sizeof(uint64_t) };
	int mnt_id;
	const char *p = relpath;
	struct stat st;

	while (*p == '/')
		p++;
	/* The kernel's cgroup id is the kernfs node id, which the file handle carries. */
	if (name_to_handle_at(root_fd, *p ? p : "", &h.fh, &mnt_id, *p ? 0 : AT_EMPTY_PATH) == 0 &&
	    h.fh.handle_bytes == sizeof(uint64_t)) {
		*ret = h.id;
		return 0;
	}
	if (fstatat(root_fd, *p ? p : "", &st, *p ? 0 : AT_EMPTY_PATH) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	*ret = st.st_ino;
	return 0;
}

static int walk(int root_fd, char *path, size_t cap, int depth,
		int (*fn)(const char *, uint64_t, void *), void *ctx)
{
	_cleanup_close_ int fd = -1;
	DIR *d;
	struct dirent *de;
	uint64_t id;
	size_t len = strlen(path);
	int r;

	r = cgroup_tree__id(root_fd, path, &id);
	if (r < 0)
		return r == -ENOENT ? 0 : r;   /* removed while we walked */
	r = fn(*path ? path : "/", id, ctx);
	if (r)
		return r;
	if (depth <= 0)
		return 0;
	fd = openat(root_fd, path[0] == '/' && path[1] ? path + 1 : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	d = fdopendir(steal_fd(&fd));
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		if (len + 1 + strlen(de->d_name) + 1 > cap)
			continue;
		snprintf(path + len, cap - len, "/%s", de->d_name);
		r = walk(root_fd, path, cap, depth - 1, fn, ctx);
		path[len] = '\0';
		if (r)
			break;
	}
	closedir(d);
	return r;
}

int cgroup_tree__walk(int root_fd, const char *relpath, int depth,
		      int (*fn)(const char *path, uint64_t id, void *ctx), void *ctx)
{
	char path[4096];

	if (!strcmp(relpath, "/"))
		relpath = "";
	snprintf(path, sizeof(path), "%s", relpath);
	return walk(root_fd, path, sizeof(path), depth, fn, ctx);
}
