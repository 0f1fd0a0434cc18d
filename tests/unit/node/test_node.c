/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Finding V8 (src/node/node.c): which objects may hold it, and the reading of the
 * v8dbg_* symbols from an ELF file (none in this test program; not an ELF at all).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "prof/node/node.h"

Test(node, looks_like)
{
	cr_assert(node__looks_like("/usr/bin/node"));
	cr_assert(node__looks_like("/usr/bin/nodejs"));
	cr_assert(node__looks_like("/opt/node18"));
	cr_assert(node__looks_like("/usr/lib/x86_64-linux-gnu/libnode.so.108"));
	cr_assert(node__looks_like("libnode.so"));
	cr_assert(!node__looks_like("/usr/bin/nodemon"));
	cr_assert(!node__looks_like("/usr/lib/libnode.so.108.bak"));
	cr_assert(!node__looks_like("/usr/bin/python3"));
}

Test(node, read_meta)
{
	struct v8_meta m;
	int fd = open("/proc/self/exe", O_RDONLY);

	cr_assert(fd >= 0);
	cr_assert_eq(node__read_meta(fd, &m), -ENOENT);
	close(fd);
	fd = open("/proc/self/status", O_RDONLY);
	cr_assert(fd >= 0);
	cr_assert_eq(node__read_meta(fd, &m), -EINVAL);
	close(fd);
}
