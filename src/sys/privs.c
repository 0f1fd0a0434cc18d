/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <cap-ng.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/syscall.h>
#include <linux/capability.h>

#include "prof/sys/privs.h"
#include "prof/base/util.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif

static bool has(unsigned int cap)
{
	return capng_have_capability(CAPNG_EFFECTIVE, cap) == 1;
}

int privs__probe(struct privs *p)
{
	_cleanup_free_ char *buf = NULL;

	*p = (struct privs){ .uid = getuid(), .euid = geteuid(), .paranoid = 99 };
	/* first: the messages about a missing privilege quote it */
	if (read_file_full(AT_FDCWD, "/proc/sys/kernel/perf_event_paranoid", 64, &buf) >= 0)
		p->paranoid = atoi(buf);
	if (capng_get_caps_process() < 0)
		return -EPERM;
	p->perfmon = has(CAP_PERFMON);
	p->sys_admin = has(CAP_SYS_ADMIN);
	p->sys_ptrace = has(CAP_SYS_PTRACE);
	p->setuid = has(CAP_SETUID);
	p->setgid = has(CAP_SETGID);
	p->syslog = has(CAP_SYSLOG);
	p->kill = has(CAP_KILL);
	return 0;
}

bool privs__can_record_system_wide(const struct privs *p)
{
	return p->perfmon || p->sys_admin || p->paranoid <= 0;
}

bool privs__can_setid(const struct privs *p)
{
	return p->euid == 0 || (p->setuid && p->setgid);
}

bool privs__can_sample_kernel(const struct privs *p)
{
	return p->perfmon || p->sys_admin || p->paranoid <= 1;
}

int privs__drop_after_start(const struct privs *p)
{
	static const struct {
		unsigned int cap;
		size_t off;
	} keep[] = {
		{ CAP_SYS_PTRACE, offsetof(struct privs, sys_ptrace) },
		{ CAP_PERFMON, offsetof(struct privs, perfmon) },
		{ CAP_KILL, offsetof(struct privs, kill) },
	};

	capng_clear(CAPNG_SELECT_CAPS);
	for (size_t i = 0; i < ARRAY_SIZE(keep); i++)
		if (*(const bool *)((const char *)p + keep[i].off) &&
		    capng_update(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED, keep[i].cap) < 0)
			return -EINVAL;
	if (capng_apply(CAPNG_SELECT_CAPS) < 0)
		return -EPERM;
	return 0;
}

int privs__open_as_user(const char *path, int flags)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct saved[_LINUX_CAPABILITY_U32S_3], none[_LINUX_CAPABILITY_U32S_3];
	uid_t fsuid;
	gid_t fsgid;
	int fd, err = 0;

	if (getuid() == 0) {
		fd = open(path, flags);
		return fd < 0 ? -errno : fd;
	}
	if (syscall(SYS_capget, &h, saved) < 0)
		return -errno;
	memcpy(none, saved, sizeof(none));
	for (size_t i = 0; i < ARRAY_SIZE(none); i++)
		none[i].effective = 0;
	if (syscall(SYS_capset, &h, none) < 0)
		return -errno;
	fsuid = (uid_t)setfsuid(getuid());
	fsgid = (gid_t)setfsgid(getgid());
	fd = open(path, flags);
	if (fd < 0)
		err = -errno;
	setfsgid(fsgid);
	setfsuid(fsuid);
	/* back within the permitted set, which was never touched */
	if (syscall(SYS_capset, &h, saved) < 0) {
		err = -errno;
		if (fd >= 0)
			close(fd);
		return err;
	}
	return fd < 0 ? err : fd;
}

void privs__setcap_hint(char *buf, size_t len)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		snprintf(self, sizeof(self), "prof");
	else
		self[n] = '\0';
	snprintf(buf, len, "sudo setcap cap_perfmon,cap_sys_ptrace,cap_syslog=ep %s", self);
}
