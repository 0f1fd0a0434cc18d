/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "prof/sys/kernel.h"

static int parse_number(const char **s, unsigned *ret)
{
	unsigned v = 0;
	const char *p = *s;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > 100000)
			return -EINVAL;
		v = v * 10 + (unsigned)(*p - '0');
	}
	*s = p;
	*ret = v;
	return 0;
}

int kernel__parse_release(const char *release, unsigned *ret_major, unsigned *ret_minor)
{
	const char *p = release;
	unsigned major, minor;

	if (!p || parse_number(&p, &major) < 0 || *p++ != '.' || parse_number(&p, &minor) < 0)
		return -EINVAL;
	*ret_major = major;
	*ret_minor = minor;
	return 0;
}

int kernel__at_least(const char *release, unsigned major, unsigned minor)
{
	unsigned ma, mi;

	if (kernel__parse_release(release, &ma, &mi) < 0)
		return -EINVAL;
	return ma > major || (ma == major && mi >= minor);
}

int kernel__release(char *buf, size_t size)
{
	struct utsname u;

	if (uname(&u) < 0) {
		int e = -errno;

		snprintf(buf, size, "unknown");
		return e;
	}
	snprintf(buf, size, "%s", u.release);
	return 0;
}
