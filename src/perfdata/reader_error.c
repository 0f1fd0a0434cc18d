/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "prof/perfdata/reader_error.h"

int reader_error__set(struct reader_error *e, uint64_t off, uint32_t type, const char *fmt, ...)
{
	va_list ap;

	if (e) {
		e->offset = off;
		e->type = type;
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

int reader_error__read(struct reader_error *err, int fd, uint64_t opened_size, uint64_t off, int e)
{
	struct stat st;

	if (e != -ENODATA) {
		reader_error__set(err, off, 0, "cannot read the file at offset %llu: %s", (unsigned long long)off,
				  strerror(-e));
		return e;
	}
	if (fstat(fd, &st) < 0)
		st.st_size = 0;
	reader_error__set(err, off, 0, "the file was cut short while being read: %llu bytes now, %llu when opened "
			  "(rotated, a disk full, or a copy still being written?)", (unsigned long long)st.st_size,
			  (unsigned long long)opened_size);
	return -ENODATA;
}
