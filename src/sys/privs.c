/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <cap-ng.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <linux/capability.h>

#include "prof/sys/privs.h"
#include "prof/base/util.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_CHECKPOINT_RESTORE
#define CAP_CHECKPOINT_RESTORE 40
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
	/* root's own right, not one a file capability lends a user: privs__as_user
	 * clears it for them */
	p->map_files = p->uid == 0 && has(CAP_CHECKPOINT_RESTORE);
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
		{ CAP_CHECKPOINT_RESTORE, offsetof(struct privs, map_files) },
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

int privs__drop_thread(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3] = { { 0 } };

	return syscall(SYS_capset, &h, none) < 0 ? -errno : 0;
}

int privs__as_user(int (*fn)(void *arg), void *arg)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct saved[_LINUX_CAPABILITY_U32S_3], none[_LINUX_CAPABILITY_U32S_3];
	uid_t fsuid;
	gid_t fsgid;
	int r;

	if (getuid() == 0)
		return fn(arg);
	if (syscall(SYS_capget, &h, saved) < 0)
		return -errno;
	memcpy(none, saved, sizeof(none));
	for (size_t i = 0; i < ARRAY_SIZE(none); i++)
		none[i].effective = 0;
	if (syscall(SYS_capset, &h, none) < 0)
		return -errno;
	fsuid = (uid_t)setfsuid(getuid());
	fsgid = (gid_t)setfsgid(getgid());
	r = fn(arg);
	setfsgid(fsgid);
	setfsuid(fsuid);
	/* back within the permitted set, which was never touched */
	if (syscall(SYS_capset, &h, saved) < 0)
		return -errno;
	return r;
}

struct open_call {
	const char *path;
	int flags;
	mode_t mode;
	uint32_t maj, min;      /* open_mapped's */
	uint64_t ino;
	int fd;                 /* the result, -1 until opened */
};

static int do_open(void *arg)
{
	struct open_call *c = arg;

	c->fd = open(c->path, c->flags, c->mode);
	return c->fd < 0 ? -errno : 0;
}

/*
 * The file at path, opened for reading only if it is the regular file (maj, min,
 * ino): an O_PATH descriptor pins the inode that is checked, and is then reopened
 * through /proc/self/fd, so nothing else (a FIFO, a device swapped in) is opened.
 */
static int do_open_mapped(void *arg)
{
	struct open_call *c = arg;
	_cleanup_close_ int pfd = open(c->path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	char proc[64];
	struct stat st;

	if (pfd < 0)
		return -errno;
	if (fstat(pfd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || major(st.st_dev) != c->maj || minor(st.st_dev) != c->min ||
	    st.st_ino != c->ino)
		return -ESTALE;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
	c->fd = open(proc, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	return c->fd < 0 ? -errno : 0;
}

/* Run an open as the user: the fd, or -errno (an fd opened before a failure is closed). */
static int open_call(int (*fn)(void *arg), struct open_call *c)
{
	int r;

	c->fd = -1;
	r = privs__as_user(fn, c);
	if (r < 0) {
		if (c->fd >= 0)
			close(c->fd);
		return r;
	}
	return c->fd;
}

int privs__open_as_user(const char *path, int flags)
{
	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE)
		return -EINVAL;         /* privs__create_as_user: a mode is needed */
	return open_call(do_open, &(struct open_call){ .path = path, .flags = flags });
}

int privs__create_as_user(const char *path, int flags, mode_t mode)
{
	return open_call(do_open, &(struct open_call){ .path = path, .flags = flags | O_CREAT, .mode = mode });
}

int privs__open_mapped(const char *path, uint32_t maj, uint32_t min, uint64_t ino)
{
	return open_call(do_open_mapped, &(struct open_call){ .path = path, .maj = maj, .min = min, .ino = ino });
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
