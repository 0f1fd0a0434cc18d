/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdlib.h>
#include <string.h>

#include "prof/perfdata/file_window.h"
#include "prof/base/util.h"

int file_window__init(struct file_window *w, int fd, size_t cap)
{
	*w = (struct file_window){ .fd = fd, .cap = cap };
	w->buf = aligned_alloc(8, ALIGN_UP(cap, 8));
	return w->buf ? 0 : -ENOMEM;
}

void file_window__release(struct file_window *w)
{
	free(w->buf);
	*w = (struct file_window){ .fd = -1 };
}

/* Read from off: as much as fits and the caller will read, at least len. */
int file_window__fill(struct file_window *w, uint64_t off, size_t len, uint64_t limit)
{
	size_t want = w->cap;
	ssize_t n;

	if (len > w->cap)
		return -E2BIG;
	if (limit > off && limit - off < want)
		want = MAX((size_t)(limit - off), len);
	w->len = 0;
	w->off = off;
	n = pread_full(w->fd, w->buf, want, (off_t)off);
	if (n < 0)
		return (int)n;
	w->len = (size_t)n;
	return w->len < len ? -ENODATA : 0;
}
