/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "prof/base/util.h"
#include "prof/sys/memory.h"
#include "prof/sys/procfs.h"

int memory__meminfo_available(const char *meminfo, uint64_t *ret)
{
	uint64_t kb;

	if (procfs__status_u64(meminfo, "MemAvailable:", &kb) < 0 || kb > UINT64_MAX / 1024)
		return -ENOENT;
	*ret = kb * 1024;
	return 0;
}

/* A cgroup file's one number ("123\n"), or "max" as UINT64_MAX. */
static int cgroup_value(const char *text, uint64_t *ret)
{
	char buf[32];
	size_t l = strcspn(text, "\n");

	if (l >= sizeof(buf) || text[l + (text[l] == '\n')])
		return -EINVAL;
	memcpy(buf, text, l);
	buf[l] = '\0';
	if (!strcmp(buf, "max")) {
		*ret = UINT64_MAX;
		return 0;
	}
	return parse_u64(buf, 10, ret);
}

int memory__cgroup_room(const char *max, const char *current, uint64_t *ret)
{
	uint64_t m, c;

	if (cgroup_value(max, &m) < 0 || cgroup_value(current, &c) < 0)
		return -EINVAL;
	*ret = m == UINT64_MAX ? m : m > c ? m - c : 0;
	return 0;
}

/* The least room under the memory.max of dir (under the cgroup2 mount) and its
 * ancestors. */
static uint64_t cgroup_room(const char *mnt, char *dir)
{
	uint64_t least = UINT64_MAX;

	for (;;) {
		_cleanup_free_ char *max = NULL, *cur = NULL;
		char path[4096 + 32];
		char *slash = strrchr(dir, '/');
		uint64_t room;

		if (!slash || !slash[1])
			return least;   /* the root has no memory.max */
		snprintf(path, sizeof(path), "%s%s/memory.max", mnt, dir);
		if (read_file_full(AT_FDCWD, path, 64, &max) > 0) {
			snprintf(path, sizeof(path), "%s%s/memory.current", mnt, dir);
			if (read_file_full(AT_FDCWD, path, 64, &cur) > 0 && memory__cgroup_room(max, cur, &room) == 0)
				least = MIN(least, room);
		}
		*slash = '\0';
	}
}

int memory__limit_room(uint64_t limit, const char *status, const char *key, uint64_t *ret)
{
	uint64_t kb;

	if (procfs__status_u64(status, key, &kb) < 0 || kb > UINT64_MAX / 1024)
		return -ENOENT;
	*ret = limit > kb * 1024 ? limit - kb * 1024 : 0;
	return 0;
}

/* The room a resource limit leaves, past what the process holds of it already (key
 * of /proc/self/status: RLIMIT_AS counts VmSize, the file's mapping too; RLIMIT_DATA
 * VmData); the limit itself when status cannot be read. */
static uint64_t rlimit_room(int resource, const char *status, const char *key)
{
	struct rlimit rl;
	uint64_t room;

	if (getrlimit(resource, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return UINT64_MAX;
	return status && memory__limit_room(rl.rlim_cur, status, key, &room) == 0 ? room : rl.rlim_cur;
}

uint64_t memory__available(void)
{
	_cleanup_free_ char *meminfo = NULL, *cg = NULL, *mi = NULL, *status = NULL;
	char dir[4096], mnt[4096];
	uint64_t least = UINT64_MAX, v;

	if (read_file_full(AT_FDCWD, "/proc/meminfo", 1 << 16, &meminfo) > 0 &&
	    memory__meminfo_available(meminfo, &v) == 0)
		least = v;
	if (read_file_full(AT_FDCWD, "/proc/self/cgroup", 1 << 16, &cg) > 0 &&
	    procfs__cgroup2_path(cg, dir, sizeof(dir)) == 0 &&
	    read_file_full(AT_FDCWD, "/proc/self/mountinfo", 16u << 20, &mi) > 0 &&
	    procfs__mount_point(mi, "cgroup2", mnt, sizeof(mnt)) == 0)
		least = MIN(least, cgroup_room(mnt, dir));
	if (read_file_full(AT_FDCWD, "/proc/self/status", 1 << 16, &status) <= 0)
		status = NULL;
	least = MIN(least, rlimit_room(RLIMIT_AS, status, "VmSize:"));
	least = MIN(least, rlimit_room(RLIMIT_DATA, status, "VmData:"));
	return least;
}
