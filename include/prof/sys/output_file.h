/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The output file of a recording.  An existing regular file is kept as FILE.old
 * (perf's habit) and put back if the recording is abandoned before it starts; the
 * new file is created exclusively, mode 0600, never through a symlink.  All of it
 * (the rename, the create, the unlink on abort) is done with the invoking user's
 * rights only (privs__as_user): prof never writes where the user could not.
 */
#ifndef PROF_SYS_OUTPUT_FILE_H
#define PROF_SYS_OUTPUT_FILE_H

#include <stdbool.h>

struct output_file {
	const char *path;
	char *old_path;         /* set when an existing file was moved aside */
	int fd;
};

/* 0 or -errno; on failure nothing was changed on disk. */
int output_file__create(struct output_file *o, const char *path);

/* Abandon: remove the new file and put the old one back.  Closes the fd. */
void output_file__abort(struct output_file *o);

/* Keep the file: close the fd, forget the .old name.  0 or -errno from close. */
int output_file__close(struct output_file *o);

#endif
