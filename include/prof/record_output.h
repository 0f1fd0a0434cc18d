/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The output file of a recording.  An existing non-empty file is kept as FILE.old
 * (perf's habit) and put back if the recording is abandoned before it starts; the
 * new file is created exclusively, mode 0600, never through a symlink.
 */
#ifndef PROF_RECORD_OUTPUT_H
#define PROF_RECORD_OUTPUT_H

#include <stdbool.h>

struct record_output {
	const char *path;
	char *old_path;         /* set when an existing file was moved aside */
	int fd;
};

/* 0 or -errno; on failure nothing was changed on disk. */
int record_output__create(struct record_output *o, const char *path);

/* Abandon: remove the new file and put the old one back.  Closes the fd. */
void record_output__abort(struct record_output *o);

/* Keep the file: close the fd, forget the .old name.  0 or -errno from close. */
int record_output__close(struct record_output *o);

#endif
