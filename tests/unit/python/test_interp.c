/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The interpreter symbols of Debian 12's python3.11 (stripped: .dynsym only), and
 * of a file that has none (this test program).  Skipped where that interpreter is
 * not installed.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <criterion/criterion.h>

#include "prof/python/interp.h"

Test(interp, debian_python3_11)
{
	struct interp_syms s;
	int fd = open("/usr/bin/python3.11", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		cr_skip_test("no /usr/bin/python3.11");
	cr_assert_eq(interp__read_syms(fd, &s), 0);
	cr_expect_eq(s.version >> 16, 0x030b, "Py_Version %#x", s.version);
	cr_expect_gt(s.eval_size, 1000);
	cr_expect_neq(s.code_type, 0);
	cr_expect_neq(s.runtime, 0);
	close(fd);
}

Test(interp, not_an_interpreter)
{
	struct interp_syms s;
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

	cr_assert_geq(fd, 0);
	cr_expect_eq(interp__read_syms(fd, &s), -ENOENT);
	close(fd);
	fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	cr_expect_eq(interp__read_syms(fd, &s), -EINVAL);
	close(fd);
}
