/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A bounded window over a file, read with pread(2): the report's way through a
 * perf.data's data section.  The file is never mapped, so a file cut short while
 * it is read (log rotation, a full disk, a copy still being written) is a short
 * read, an error the caller can name, and not a SIGBUS.  Memory is the window's
 * size whatever the file's.
 */
#ifndef PROF_PERFDATA_FILE_WINDOW_H
#define PROF_PERFDATA_FILE_WINDOW_H

#include <stddef.h>
#include <stdint.h>

struct file_window {
	int fd;                 /* not owned */
	uint8_t *buf;           /* cap bytes, 8-aligned */
	size_t cap;
	uint64_t off;           /* the file offset of buf[0] */
	size_t len;             /* bytes of buf read from the file */
};

/* A window of cap bytes over fd.  0 or -ENOMEM. */
int file_window__init(struct file_window *w, int fd, size_t cap);
void file_window__release(struct file_window *w);

int file_window__fill(struct file_window *w, uint64_t off, size_t len, uint64_t limit);

/*
 * [off, off + len) of the file, len <= cap: *ret points at it, valid until the next
 * call.  A miss reads from off as far as the window and limit (the end of what the
 * caller will read) allow.  0; -ENODATA when the file now ends before off + len (it
 * was cut short since it was opened); -errno of pread.
 */
static inline int file_window__get(struct file_window *w, uint64_t off, size_t len, uint64_t limit,
				   const uint8_t **ret)
{
	if (off < w->off || off - w->off > w->len || len > w->len - (off - w->off)) {
		int err = file_window__fill(w, off, len, limit);
		if (err < 0)
			return err;
	}
	*ret = w->buf + (off - w->off);
	return 0;
}

#endif
