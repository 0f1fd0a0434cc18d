/* SPDX-License-Identifier: GPL-2.0-or-later */
/* util.c: whole-file reads within a bound, full writes, number parsing. */
#include <criterion/criterion.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>

#include "prof/base/util.h"

static int memfd_of(size_t n, char c)
{
	int fd = memfd_create("util", 0);
	char *buf = malloc(n ? n : 1);

	cr_assert_geq(fd, 0);
	cr_assert_not_null(buf);
	memset(buf, c, n);
	cr_assert_eq(write_full(fd, buf, n), 0);
	cr_assert_eq(lseek(fd, 0, SEEK_SET), 0);
	free(buf);
	return fd;
}

Test(util, read_fd_full_reads_below_the_bound)
{
	static const size_t sizes[] = { 0, 1, 63, 4094, 4095, 4096, 4097, 100000 };

	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		int fd = memfd_of(sizes[i], 'a' + (char)i);
		char *buf = NULL;

		cr_assert_eq(read_fd_full(fd, 1 << 20, &buf), (ssize_t)sizes[i], "%zu bytes", sizes[i]);
		cr_assert_eq(strlen(buf), sizes[i], "NUL-terminated");
		cr_assert(sizes[i] == 0 || (buf[0] == 'a' + (char)i && buf[sizes[i] - 1] == 'a' + (char)i));
		free(buf);
		close(fd);
	}
}

Test(util, read_fd_full_refuses_max_bytes_or_more)
{
	/* max bounds the text below it: max - 1 bytes fit, max is too many */
	static const size_t maxes[] = { 64, 4096, 4097, 10000 };

	for (size_t i = 0; i < ARRAY_SIZE(maxes); i++) {
		char *buf = (char *)"untouched";
		int fd = memfd_of(maxes[i] - 1, 'x');

		cr_assert_eq(read_fd_full(fd, maxes[i], &buf), (ssize_t)maxes[i] - 1, "max %zu", maxes[i]);
		free(buf);
		close(fd);
		buf = (char *)"untouched";
		fd = memfd_of(maxes[i], 'x');
		cr_assert_eq(read_fd_full(fd, maxes[i], &buf), -EFBIG, "max %zu", maxes[i]);
		cr_assert_str_eq(buf, "untouched", "*ret_buf untouched on failure");
		close(fd);
		fd = memfd_of(3 * maxes[i], 'x');
		cr_assert_eq(read_fd_full(fd, maxes[i], &buf), -EFBIG);
		close(fd);
	}
}

Test(util, read_fd_full_from_a_pipe)
{
	int p[2];
	char *buf = NULL;

	cr_assert_eq(pipe(p), 0);
	cr_assert_eq(write_full(p[1], "one\ntwo\n", 8), 0);
	close(p[1]);
	cr_assert_eq(read_fd_full(p[0], 4096, &buf), 8);
	cr_assert_str_eq(buf, "one\ntwo\n");
	free(buf);
	close(p[0]);
}

Test(util, parse_u64)
{
	uint64_t v = 7;

	cr_assert_eq(parse_u64("42", 10, &v), 0);
	cr_assert_eq(v, 42);
	cr_assert_eq(parse_u64("0x10", 0, &v), 0);
	cr_assert_eq(v, 16);
	cr_assert_eq(parse_u64("18446744073709551615", 10, &v), 0);
	cr_assert_eq(v, UINT64_MAX);
	v = 7;
	cr_assert_eq(parse_u64("18446744073709551616", 10, &v), -EINVAL, "overflow");
	cr_assert_eq(parse_u64("-1", 10, &v), -EINVAL);
	cr_assert_eq(parse_u64(" 1", 10, &v), -EINVAL);
	cr_assert_eq(parse_u64("1 ", 10, &v), -EINVAL);
	cr_assert_eq(parse_u64("", 10, &v), -EINVAL);
	cr_assert_eq(parse_u64("12a", 10, &v), -EINVAL);
	cr_assert_eq(v, 7, "untouched on failure");
}

Test(util, write_full_and_pwrite_full)
{
	int fd = memfd_of(0, 'x');
	char *buf = NULL;

	cr_assert_eq(write_full(fd, "abcdef", 6), 0);
	cr_assert_eq(pwrite_full(fd, "XY", 2, 2), 0);
	cr_assert_eq(lseek(fd, 0, SEEK_CUR), 6, "pwrite leaves the offset");
	cr_assert_eq(pwrite_full(fd, "Z", 1, 8), 0, "past the end: a hole");
	cr_assert_eq(pwrite_full(fd, "Z", 1, -1), -EINVAL);
	cr_assert_eq(lseek(fd, 0, SEEK_SET), 0);
	cr_assert_eq(read_fd_full(fd, 64, &buf), 9);
	cr_assert_eq(memcmp(buf, "abXYef\0\0Z", 9), 0);
	free(buf);
	close(fd);
	fd = open("/dev/full", O_WRONLY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write_full(fd, "x", 1), -ENOSPC);
	close(fd);
}
