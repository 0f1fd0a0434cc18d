/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>

#include "prof/base/util.h"
#include "prof/sys/privs.h"
#include "prof/sys/procfs.h"
#include "prof/sys/task_file.h"

/* The maps of a task read to find where a mapping lies now (it may have been split
 * or merged since its MMAP2): a bound, not a guess of any real size. */
#define MAPS_MAX (64u << 20)

struct open_call {
	const struct task_file *f;
	unsigned int flags;
	int fd;                         /* the result, -1 until opened */
	enum task_file_way way;
	bool map_files_refused;
	int err_host, err_map_files, err_root;
};

static int openat2_path(int dirfd, const char *path, uint64_t resolve)
{
	struct open_how how = { .flags = O_PATH | O_NOFOLLOW | O_CLOEXEC, .resolve = resolve };
	long fd = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));

	return fd < 0 ? -errno : (int)fd;
}

/* The file fd is the inode of generation f->gen, or its file system cannot say. */
static bool same_generation(int fd, const struct task_file *f)
{
	unsigned int gen = 0;   /* the kernel writes an int (ext4, xfs, btrfs, f2fs) */

	if (!f->has_gen || ioctl(fd, FS_IOC_GETVERSION, &gen) < 0)
		return true;
	return gen == f->gen;
}

/*
 * pfd (O_PATH) is the regular file (maj, min, ino): reopened for reading through
 * /proc/self/fd, so the very inode checked is opened, then its generation checked.
 * The fd, or -errno (-ESTALE: another file).  pfd is the caller's.
 */
static int reopen_checked(int pfd, const struct task_file *f)
{
	char proc[64];
	struct stat st;
	int fd;

	if (fstat(pfd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || major(st.st_dev) != f->maj || minor(st.st_dev) != f->min ||
	    st.st_ino != f->ino)
		return -ESTALE;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
	fd = open(proc, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (!same_generation(fd, f)) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

static int open_host(const struct task_file *f)
{
	_cleanup_close_ int pfd = openat2_path(AT_FDCWD, f->path, RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);

	return pfd < 0 ? pfd : reopen_checked(pfd, f);
}

/* map_files/<start>-<end> is a magic link to the mapped file: opened O_PATH
 * (following it), then checked as any other. */
static int open_map_files_range(const struct task_file *f, uint64_t start, uint64_t end)
{
	char path[96];
	_cleanup_close_ int pfd = -1;

	snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, f->pid, start, end);
	pfd = open(path, O_PATH | O_CLOEXEC);
	if (pfd < 0)
		return -errno;
	return reopen_checked(pfd, f);
}

/* Where the mapping of f->start with f's file lies now, from /proc/PID/maps.
 * 0, or -ENOENT when the task no longer maps it there. */
static int current_range(const struct task_file *f, uint64_t *ret_start, uint64_t *ret_end)
{
	_cleanup_free_ char *maps = NULL;
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/maps", f->pid);
	n = read_file_full(AT_FDCWD, path, MAPS_MAX, &maps);
	if (n < 0)
		return n == -ENOENT ? -ESRCH : (int)n;
	for (char *line = maps, *nl; line < maps + n; line = nl + 1) {
		struct proc_map m;

		nl = memchr(line, '\n', (size_t)(maps + n - line));
		if (!nl)
			nl = maps + n;
		if (procfs__parse_maps_line(line, (size_t)(nl - line), &m) == 0 && m.start <= f->start &&
		    f->start < m.end && m.maj == f->maj && m.min == f->min && m.ino == f->ino) {
			*ret_start = m.start;
			*ret_end = m.end;
			return 0;
		}
	}
	return -ENOENT;
}

static int open_map_files(const struct task_file *f)
{
	uint64_t start = 0, end = 0;
	int fd = open_map_files_range(f, f->start, f->end), err;

	if (fd != -ENOENT)
		return fd;
	/* split (mprotect) or merged since: the range it has now */
	err = current_range(f, &start, &end);
	if (err < 0)
		return err;
	if (start == f->start && end == f->end)
		return -ESRCH;
	return open_map_files_range(f, start, end);
}

static int open_task_root(const struct task_file *f)
{
	char path[64];
	_cleanup_close_ int root = -1, pfd = -1;

	snprintf(path, sizeof(path), "/proc/%d/root", f->pid);
	/* the magic link followed once, here, by the kernel: root is the task's root
	 * directory itself, and what follows is resolved beneath it */
	root = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	pfd = openat2_path(root, f->path, RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	if (pfd < 0)
		return pfd == -ELOOP ? -ESTALE : pfd;
	return reopen_checked(pfd, f);
}

/* The most telling of the failures: not the user's file, the task gone, the path
 * replaced, then whatever else. */
static int worst(const struct open_call *c)
{
	const int errs[] = { c->err_host, c->err_map_files, c->err_root };

	for (size_t i = 0; i < ARRAY_SIZE(errs); i++)
		if (errs[i] == -EACCES)
			return -EACCES;
	if (c->err_root == -ESRCH || c->err_map_files == -ESRCH)
		return -ESRCH;
	for (size_t i = 0; i < ARRAY_SIZE(errs); i++)
		if (errs[i] == -ESTALE)
			return -ESTALE;
	return c->err_root ? c->err_root : c->err_map_files ? c->err_map_files : c->err_host ? c->err_host : -ENOENT;
}

static int do_open(void *arg)
{
	struct open_call *c = arg;
	const struct task_file *f = c->f;

	if (c->flags & TASK_FILE_TRY_HOST) {
		c->fd = open_host(f);
		if (c->fd >= 0) {
			c->way = TASK_FILE_HOST;
			return 0;
		}
		c->err_host = c->fd;
	}
	if (f->pid <= 0)
		return worst(c);
	if (!(c->flags & TASK_FILE_NO_MAP_FILES)) {
		c->fd = open_map_files(f);
		if (c->fd >= 0) {
			c->way = TASK_FILE_MAP_FILES;
			return 0;
		}
		c->err_map_files = c->fd;
		c->map_files_refused = c->fd == -EPERM;
	}
	c->fd = open_task_root(f);
	if (c->fd >= 0) {
		c->way = TASK_FILE_TASK_ROOT;
		return 0;
	}
	c->err_root = c->fd;
	return worst(c);
}

int task_file__open(const struct task_file *f, unsigned int flags, enum task_file_way *ret_way,
		    bool *ret_map_files_refused)
{
	struct open_call c = { .f = f, .flags = flags, .fd = -1 };
	int r;

	if (!f->path || f->path[0] != '/')
		return -EINVAL;
	r = privs__as_user(do_open, &c);
	if (ret_map_files_refused)
		*ret_map_files_refused = c.map_files_refused;
	if (r < 0) {
		if (c.fd >= 0)
			close(c.fd);
		return r;
	}
	*ret_way = c.way;
	return c.fd;
}

/* f's path under root_fd (a task's root directory, held), as open_task_root does. */
struct in_root_call {
	int root_fd;
	const struct task_file *f;
};

static int do_open_in_root(void *arg)
{
	const struct in_root_call *c = arg;
	_cleanup_close_ int pfd = openat2_path(c->root_fd, c->f->path,
					       RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);

	if (pfd < 0)
		return pfd == -ELOOP ? -ESTALE : pfd;
	return reopen_checked(pfd, c->f);
}

int task_file__open_in_root(int root_fd, const struct task_file *f)
{
	struct in_root_call c = { .root_fd = root_fd, .f = f };

	if (root_fd < 0 || !f->path || f->path[0] != '/')
		return -EINVAL;
	return privs__as_user(do_open_in_root, &c);
}

struct root_call {
	int32_t pid;
	int fd;
	char *name;
	size_t size;
};

static int do_root(void *arg)
{
	struct root_call *c = arg;
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/root", c->pid > 0 ? c->pid : getpid());
	c->fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (c->fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	n = c->size ? readlink(path, c->name, c->size - 1) : -1;
	if (c->size)
		c->name[n > 0 ? n : 0] = '\0';
	return 0;
}

int task_file__root(int32_t pid, char *ret_name, size_t size)
{
	struct root_call c = { .pid = pid, .fd = -1, .name = ret_name, .size = size };
	int r = privs__as_user(do_root, &c);

	if (r < 0) {
		if (c.fd >= 0)
			close(c.fd);
		return r;
	}
	return c.fd;
}

struct ns_call {
	int32_t pid;
	struct task_ns ns;
};

static int do_mnt_ns(void *arg)
{
	struct ns_call *c = arg;
	char path[64];
	struct stat st;

	if (c->pid > 0)
		snprintf(path, sizeof(path), "/proc/%d/ns/mnt", c->pid);
	else
		snprintf(path, sizeof(path), "/proc/self/ns/mnt");
	if (stat(path, &st) < 0)
		return -errno;
	/* as the kernel encodes it in NAMESPACES records (new_encode_dev) */
	c->ns = (struct task_ns){ .dev = (minor(st.st_dev) & 0xff) | ((uint64_t)major(st.st_dev) << 8) |
					 ((uint64_t)(minor(st.st_dev) & ~0xffu) << 12),
				  .ino = st.st_ino };
	return 0;
}

int task_file__mnt_ns(int32_t pid, struct task_ns *ret)
{
	struct ns_call c = { .pid = pid };
	int r = privs__as_user(do_mnt_ns, &c);

	if (r == 0)
		*ret = c.ns;
	return r;
}

const char *task_file__way_name(enum task_file_way way)
{
	switch (way) {
	case TASK_FILE_HOST:
		return "host";
	case TASK_FILE_MAP_FILES:
		return "map_files";
	case TASK_FILE_TASK_ROOT:
		return "task root";
	case TASK_FILE_HELD_ROOT:
		return "held root";
	default:
		return "none";
	}
}
