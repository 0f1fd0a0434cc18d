/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The mapped file's identity as task_file checks it: device, inode and, where the
 * kernel's MMAP2 gave it, the inode's generation.  Real files in a directory of
 * /var/tmp (skipped where its file system does not give generations: tmpfs,
 * overlayfs).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "prof/sys/task_file.h"

static char dir[] = "/var/tmp/prof-task-file.XXXXXX";

static void make_dir(void)
{
	cr_assert_not_null(mkdtemp(dir));
}

static void remove_dir(void)
{
	char cmd[64 + sizeof(dir)];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

/* path made with some bytes; its task_file (the host way: pid 0), generation read. */
static struct task_file make_file(const char *path, unsigned int *ret_gen)
{
	struct stat st;
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "\177ELF", 4), 4);
	cr_assert_eq(fstat(fd, &st), 0);
	*ret_gen = 0;
	if (ioctl(fd, FS_IOC_GETVERSION, ret_gen) < 0) {
		close(fd);
		cr_skip_test("%s: no inode generations on this file system", dir);
	}
	close(fd);
	return (struct task_file){ .pid = 0, .path = strdup(path), .maj = major(st.st_dev),
				   .min = minor(st.st_dev), .ino = st.st_ino };
}

static int open_host(const struct task_file *f)
{
	enum task_file_way way;
	int fd = task_file__open(f, TASK_FILE_TRY_HOST, &way, NULL);

	if (fd >= 0) {
		cr_assert_eq(way, TASK_FILE_HOST);
		close(fd);
		return 0;
	}
	return fd;
}

Test(task_file, generation, .init = make_dir, .fini = remove_dir)
{
	char path[PATH_MAX];
	unsigned int gen;
	struct task_file f;

	snprintf(path, sizeof(path), "%s/obj", dir);
	f = make_file(path, &gen);
	/* without a generation (a synthesized MMAP2): device and inode decide */
	f.gen = gen + 1;
	cr_expect_eq(open_host(&f), 0);
	f.has_gen = true;
	f.gen = gen;
	cr_expect_eq(open_host(&f), 0);
	f.gen = gen + 1;
	cr_expect_eq(open_host(&f), -ESTALE, "another generation of the inode was taken for it");
	free((char *)f.path);
}

/* The file unlinked and another made that got its inode number (ext4 gives it out
 * again at once): the same device and inode, another generation, refused. */
Test(task_file, inode_number_reused, .init = make_dir, .fini = remove_dir)
{
	char path[PATH_MAX], other[PATH_MAX + 16];
	unsigned int gen, gen2;
	struct task_file f, g;
	int i;

	snprintf(path, sizeof(path), "%s/obj", dir);
	f = make_file(path, &gen);
	f.has_gen = true;
	f.gen = gen;
	cr_assert_eq(unlink(path), 0);
	for (i = 0; i < 64; i++) {
		snprintf(other, sizeof(other), "%s/new%d", dir, i);
		g = make_file(other, &gen2);
		free((char *)g.path);
		if (g.ino == f.ino)
			break;
	}
	if (i == 64)
		cr_skip_test("no file got inode %llu again", (unsigned long long)f.ino);
	cr_assert_eq(rename(other, path), 0);
	cr_expect_neq(gen, gen2);
	cr_expect_eq(open_host(&f), -ESTALE, "a file given a freed inode number was taken for the mapped one");
	f.gen = gen2;
	cr_expect_eq(open_host(&f), 0);
	free((char *)f.path);
}
