/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

#include "prof/base/util.h"
#include "prof/base/vec.h"

ssize_t read_file_full(int dirfd, const char *path, size_t max, char **ret_buf)
{
	_cleanup_close_ int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return -errno;
	return read_fd_full(fd, max, ret_buf);
}

ssize_t read_fd_full(int fd, size_t max, char **ret_buf)
{
	_cleanup_free_ char *buf = NULL;
	size_t cap = 0, len = 0;

	for (;;) {
		/* room for one more byte and the NUL, within max bytes of text */
		size_t room = MIN(cap, max + 1);

		if (len + 1 >= room) {
			if (len >= max)
				return -EFBIG;
			if (VEC_RESERVE(buf, cap, MIN(MAX(len + 2, 4096), max + 1)) < 0)
				return -ENOMEM;
			room = MIN(cap, max + 1);
		}
		ssize_t r = read(fd, buf + len, room - len - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	buf[len] = '\0';
	*ret_buf = steal_pointer(&buf);
	return (ssize_t)len;
}

/* write(2) (off < 0) or pwrite(2) at off, all of buf. */
static int write_all(int fd, const void *buf, size_t len, off_t off)
{
	const char *p = buf;

	while (len) {
		ssize_t r = off < 0 ? write(fd, p, len) : pwrite(fd, p, len, off);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			return -EIO;
		p += r;
		if (off >= 0)
			off += r;
		len -= (size_t)r;
	}
	return 0;
}

int write_full(int fd, const void *buf, size_t len)
{
	return write_all(fd, buf, len, -1);
}

int pwrite_full(int fd, const void *buf, size_t len, off_t off)
{
	return off < 0 ? -EINVAL : write_all(fd, buf, len, off);
}

ssize_t pread_full(int fd, void *buf, size_t len, off_t off)
{
	size_t done = 0;

	if (off < 0)
		return -EINVAL;
	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, off + (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;          /* the end of the file */
		done += (size_t)n;
	}
	return (ssize_t)done;
}

int parse_u64(const char *s, int base, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	/* strtoull takes a sign and leading blanks: a count or a size has neither */
	if (!s[0] || s[0] == '-' || s[0] == '+' || s[0] == ' ' || s[0] == '\t')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno || *end)
		return -EINVAL;
	*ret = v;
	return 0;
}

uint64_t clock_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int errorf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int getopt_error(int c, char **argv, const char *cmd, char *err, size_t errlen)
{
	const char *word = argv[optind - 1];

	if (c == ':') {
		if (!strncmp(word, "--", 2))
			return errorf(err, errlen, "option '%s' needs a value", word);
		return errorf(err, errlen, "option '-%c' needs a value", optopt);
	}
	/* optopt names a bad short option; a bad long one is the word just read */
	if (optopt)
		return errorf(err, errlen, "unknown option '-%c' (see %s --help)", optopt, cmd);
	return errorf(err, errlen, "unknown option '%s' (see %s --help)", word, cmd);
}
