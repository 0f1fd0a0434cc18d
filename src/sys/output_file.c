/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>

#include "prof/sys/output_file.h"
#include "prof/base/util.h"

/* Create as the invoking user: file system checks and the new file's owner are
 * theirs even where prof runs set-user-id. */
static int create(struct output_file *o, const char *path);

int output_file__create(struct output_file *o, const char *path)
{
	uid_t old_fsuid = (uid_t)setfsuid(getuid());
	gid_t old_fsgid = (gid_t)setfsgid(getgid());
	int r = create(o, path);

	setfsgid(old_fsgid);
	setfsuid(old_fsuid);
	return r;
}

static int create(struct output_file *o, const char *path)
{
	_cleanup_free_ char *old = NULL;
	struct stat st;
	int fd;

	*o = (struct output_file){ .path = path, .fd = -1 };
	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode)) {
		if (asprintf(&old, "%s.old", path) < 0)
			return -ENOMEM;
		if (rename(path, old) < 0)
			return -errno;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		int err = -errno;
		if (old && rename(old, path) < 0) {
			/* the old file stays as .old: nothing is lost */
		}
		return err;
	}
	o->fd = fd;
	o->old_path = steal_pointer(&old);
	return 0;
}

void output_file__abort(struct output_file *o)
{
	if (o->fd >= 0) {
		close(o->fd);
		o->fd = -1;
		unlink(o->path);
		if (o->old_path && rename(o->old_path, o->path) < 0) {
			/* the previous recording survives as .old */
		}
	}
	free(o->old_path);
	o->old_path = NULL;
}

int output_file__close(struct output_file *o)
{
	int r = 0;

	if (o->fd >= 0 && close(o->fd) < 0)
		r = -errno;
	o->fd = -1;
	free(o->old_path);
	o->old_path = NULL;
	return r;
}
