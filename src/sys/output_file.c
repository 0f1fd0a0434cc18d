/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "prof/sys/output_file.h"
#include "prof/sys/privs.h"
#include "prof/base/util.h"

/*
 * Everything here runs as the invoking user (privs__as_user): the checks, the
 * rename to .old, the new file's owner and the unlink on abort are theirs, whatever
 * capabilities prof holds.
 */
static int create(void *arg)
{
	struct output_file *o = arg;
	_cleanup_free_ char *old = NULL;
	struct stat st;
	int fd;

	if (lstat(o->path, &st) == 0 && S_ISREG(st.st_mode)) {
		if (asprintf(&old, "%s.old", o->path) < 0)
			return -ENOMEM;
		if (rename(o->path, old) < 0)
			return -errno;
	}
	fd = open(o->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		int err = -errno;
		if (old && rename(old, o->path) < 0) {
			/* the old file stays as .old: nothing is lost */
		}
		return err;
	}
	o->fd = fd;
	o->old_path = steal_pointer(&old);
	return 0;
}

/* Remove the new file, put the old one back. */
static int restore(void *arg)
{
	struct output_file *o = arg;

	unlink(o->path);
	if (o->old_path && rename(o->old_path, o->path) < 0) {
		/* the previous recording survives as .old */
	}
	return 0;
}

int output_file__create(struct output_file *o, const char *path)
{
	int r;

	*o = (struct output_file){ .path = path, .fd = -1 };
	r = privs__as_user(create, o);
	if (r < 0 && o->fd >= 0)
		output_file__abort(o);  /* made, but prof's rights could not be restored */
	return r;
}

void output_file__abort(struct output_file *o)
{
	if (o->fd >= 0) {
		close(o->fd);
		o->fd = -1;
		privs__as_user(restore, o);
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
