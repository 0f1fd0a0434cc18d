/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

#include "prof/sys/procfs.h"
#include "prof/sys/tracefs.h"
#include "prof/base/util.h"

int tracefs__find_mount(const char *mountinfo, char *ret, size_t len)
{
	char debugfs[4096];

	if (procfs__mount_point(mountinfo, "tracefs", ret, len) == 0)
		return 0;
	/* older systems: tracing under debugfs */
	if (procfs__mount_point(mountinfo, "debugfs", debugfs, sizeof(debugfs)) < 0)
		return -ENOENT;
	if ((size_t)snprintf(ret, len, "%s/tracing", debugfs) >= len)
		return -ENAMETOOLONG;
	return 0;
}

int tracefs__field_offset(const char *format, const char *name, int *ret)
{
	size_t nlen = strlen(name);

	for (const char *p = strstr(format, "field:"); p; p = strstr(p + 1, "field:")) {
		const char *semi = strchr(p, ';'), *n;

		if (!semi)
			break;
		/* the field name is the last word before ';', possibly with [N] */
		n = semi;
		while (n > p && n[-1] != ' ' && n[-1] != '\t' && n[-1] != '*')
			n--;
		if ((size_t)(semi - n) >= nlen && !strncmp(n, name, nlen) &&
		    (n[nlen] == ';' || n[nlen] == '[')) {
			const char *o = strstr(semi, "offset:");
			if (!o)
				return -EINVAL;
			*ret = atoi(o + 7);
			return 0;
		}
	}
	return -ENOENT;
}

int tracefs__dir(char *ret, size_t len)
{
	_cleanup_free_ char *mi = NULL;

	if (read_file_full(AT_FDCWD, "/proc/self/mountinfo", 16u << 20, &mi) >= 0 &&
	    tracefs__find_mount(mi, ret, len) == 0)
		return 0;
	/* Not mounted: mount it where systemd would (perf does the same). */
	if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) < 0)
		return -errno;
	if (strlen("/sys/kernel/tracing") >= len)
		return -ENAMETOOLONG;
	strcpy(ret, "/sys/kernel/tracing");
	return 0;
}

int tracefs__event(const char *dir, const char *system, const char *event, const char *field,
		   unsigned long long *ret_id, int *ret_off)
{
	_cleanup_free_ char *idbuf = NULL, *fmt = NULL;
	char path[4096];
	ssize_t r;

	snprintf(path, sizeof(path), "%s/events/%s/%s/id", dir, system, event);
	r = read_file_full(AT_FDCWD, path, 64, &idbuf);
	if (r < 0)
		return (int)r;
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", dir, system, event);
	r = read_file_full(AT_FDCWD, path, 1 << 16, &fmt);
	if (r < 0)
		return (int)r;
	r = tracefs__field_offset(fmt, field, ret_off);
	if (r < 0)
		return (int)r;
	*ret_id = strtoull(idbuf, NULL, 10);
	return 0;
}
