/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What prof may do, and acting as the invoking user.  The as-user checks need root
 * to build the identities prof meets: a process whose real uid is a tenant's but
 * which holds capabilities (a prof installed with file capabilities: every id the
 * tenant's; or set-user-ID root: the effective uid 0).  Criterion runs each test in
 * a process of its own, so a test may change its ids freely.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "prof/sys/privs.h"
#include "prof/base/util.h"
#include "tenant.h"

#define TENANT 64998

Test(privs, predicates)
{
	struct privs p = { .uid = 1000, .euid = 1000, .paranoid = 2 };

	cr_assert_not(privs__can_record_system_wide(&p));
	cr_assert_not(privs__can_sample_kernel(&p));
	cr_assert_not(privs__can_setid(&p));
	p.paranoid = 1;
	cr_assert_not(privs__can_record_system_wide(&p));
	cr_assert(privs__can_sample_kernel(&p));
	p.paranoid = 0;
	cr_assert(privs__can_record_system_wide(&p));
	p = (struct privs){ .uid = 1000, .euid = 1000, .paranoid = 99, .perfmon = true };
	cr_assert(privs__can_record_system_wide(&p));
	cr_assert(privs__can_sample_kernel(&p));
	p = (struct privs){ .uid = 1000, .euid = 1000, .paranoid = 99, .sys_admin = true };
	cr_assert(privs__can_record_system_wide(&p));
	p = (struct privs){ .uid = 1000, .euid = 1000, .setuid = true };
	cr_assert_not(privs__can_setid(&p), "CAP_SETUID without CAP_SETGID");
	p.setgid = true;
	cr_assert(privs__can_setid(&p));
	p = (struct privs){ .uid = 1000, .euid = 0 };
	cr_assert(privs__can_setid(&p), "set-user-ID root");
}

Test(privs, probe)
{
	struct privs p;
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int want = 99;

	if (f) {
		cr_assert_eq(fscanf(f, "%d", &want), 1);
		fclose(f);
	}
	cr_assert_eq(privs__probe(&p), 0);
	cr_assert_eq(p.uid, getuid());
	cr_assert_eq(p.euid, geteuid());
	cr_assert_eq(p.paranoid, want);
	if (getuid() == 0) {
		cr_assert(p.perfmon || p.sys_admin);
		cr_assert(p.sys_ptrace && p.setuid && p.setgid && p.kill);
	}
}

Test(privs, setcap_hint_names_this_program)
{
	char hint[8192], self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	cr_assert_gt(n, 0);
	self[n] = '\0';
	privs__setcap_hint(hint, sizeof(hint));
	cr_assert_not_null(strstr(hint, "sudo setcap cap_perfmon,cap_sys_ptrace,cap_syslog=ep "));
	cr_assert_not_null(strstr(hint, self));
}

/* ---- the mapped-file open: no root needed ----------------------------------------- */

struct scratch {
	char dir[64];
	char file[96], link[96], fifo[96];
	struct stat st;
};

static void scratch_make(struct scratch *s, mode_t dirmode)
{
	int fd;

	snprintf(s->dir, sizeof(s->dir), "/tmp/prof-test-privs.XXXXXX");
	cr_assert_not_null(mkdtemp(s->dir));
	cr_assert_eq(chmod(s->dir, dirmode), 0);
	snprintf(s->file, sizeof(s->file), "%s/file", s->dir);
	snprintf(s->link, sizeof(s->link), "%s/link", s->dir);
	snprintf(s->fifo, sizeof(s->fifo), "%s/fifo", s->dir);
	fd = open(s->file, O_WRONLY | O_CREAT | O_EXCL, 0600);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "secret", 6), 6);
	close(fd);
	cr_assert_eq(stat(s->file, &s->st), 0);
	cr_assert_eq(symlink("file", s->link), 0);
	cr_assert_eq(mkfifo(s->fifo, 0666), 0);
}

static void scratch_remove(struct scratch *s)
{
	char path[128];

	unlink(s->file);
	unlink(s->link);
	unlink(s->fifo);
	snprintf(path, sizeof(path), "%s/new", s->dir);
	unlink(path);
	rmdir(s->dir);
}

static int open_mapped(const char *path, const struct stat *st, uint64_t ino)
{
	return privs__open_mapped(path, major(st->st_dev), minor(st->st_dev), ino);
}

Test(privs, open_mapped_opens_only_the_mapped_regular_file)
{
	struct scratch s;
	struct stat fst, lst, pst;
	char buf[8] = "";
	int fd;

	scratch_make(&s, 0700);
	fd = open_mapped(s.file, &s.st, s.st.st_ino);
	cr_assert_geq(fd, 0, "%s", strerror(-fd));
	cr_assert_eq(fstat(fd, &fst), 0);
	cr_assert_eq(fst.st_ino, s.st.st_ino);
	cr_assert_eq(read(fd, buf, 6), 6);
	cr_assert_str_eq(buf, "secret");
	cr_assert_eq(fcntl(fd, F_GETFL) & O_ACCMODE, O_RDONLY);
	cr_assert(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);

	cr_assert_eq(open_mapped(s.file, &s.st, s.st.st_ino + 1), -ESTALE, "another inode");
	cr_assert_eq(privs__open_mapped(s.file, major(s.st.st_dev) + 1, minor(s.st.st_dev), s.st.st_ino),
		     -ESTALE, "another device");
	/* a symlink (even to the very file) is not followed */
	cr_assert_eq(open_mapped(s.link, &s.st, s.st.st_ino), -ESTALE);
	cr_assert_eq(lstat(s.link, &lst), 0);
	cr_assert_eq(open_mapped(s.link, &lst, lst.st_ino), -ESTALE, "the link itself is no regular file");
	/* a FIFO with its own device and inode: refused, and nothing blocks */
	cr_assert_eq(stat(s.fifo, &pst), 0);
	cr_assert_eq(open_mapped(s.fifo, &pst, pst.st_ino), -ESTALE);
	cr_assert_eq(open_mapped(s.dir, &s.st, s.st.st_ino), -ESTALE);
	cr_assert_eq(open_mapped("/nonexistent/x", &s.st, 1), -ENOENT);
	scratch_remove(&s);
}

Test(privs, open_and_create_as_user)
{
	struct scratch s;
	char path[128];
	struct stat st;
	int fd;

	umask(022);
	scratch_make(&s, 0700);
	cr_assert_eq(privs__open_as_user(s.file, O_RDONLY | O_CREAT), -EINVAL, "a create needs its mode");
	cr_assert_eq(privs__open_as_user(s.file, O_RDWR | O_TMPFILE), -EINVAL);
	fd = privs__open_as_user(s.dir, O_RDONLY | O_DIRECTORY);
	cr_assert_geq(fd, 0, "O_DIRECTORY is no O_TMPFILE: %s", strerror(-fd));
	close(fd);
	fd = privs__open_as_user(s.file, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert_eq(privs__open_as_user(s.link, O_RDONLY | O_NOFOLLOW), -ELOOP);
	fd = privs__open_as_user(s.fifo, O_RDONLY | O_NONBLOCK);
	cr_assert_geq(fd, 0, "O_NONBLOCK: no hang");
	close(fd);
	snprintf(path, sizeof(path), "%s/new", s.dir);
	fd = privs__create_as_user(path, O_WRONLY | O_EXCL | O_CLOEXEC, 0640);
	cr_assert_geq(fd, 0);
	cr_assert_eq(fstat(fd, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0640);
	cr_assert_eq(st.st_uid, getuid());
	close(fd);
	cr_assert_eq(privs__create_as_user(path, O_WRONLY | O_EXCL, 0600), -EEXIST);
	scratch_remove(&s);
}

static int count_calls(void *arg)
{
	return ++*(int *)arg;
}

Test(privs, as_user_runs_fn_once_and_returns_its_value)
{
	int calls = 41;

	cr_assert_eq(privs__as_user(count_calls, &calls), 42);
	cr_assert_eq(calls, 42);
}

/* ---- as root: the identities prof is installed with -------------------------------- */

struct seen {
	bool dac_read_search, dac_override;
	uid_t fsuid;
	gid_t fsgid;
	int open_err;
	const char *path;
};

/* Inside privs__as_user: what rights does the thread have? */
static int look(void *arg)
{
	struct seen *s = arg;
	struct caps c = caps_get();
	int fd;

	s->dac_read_search = cap_effective(&c, CAP_DAC_READ_SEARCH);
	s->dac_override = cap_effective(&c, CAP_DAC_OVERRIDE);
	s->fsuid = (uid_t)setfsuid((uid_t)-1);  /* an invalid id changes nothing, returns the current */
	s->fsgid = (gid_t)setfsgid((gid_t)-1);
	fd = open(s->path, O_RDONLY);
	s->open_err = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	return 7;
}

Test(privs, as_user_clears_file_capabilities_and_restores_them)
{
	struct scratch s;
	struct seen seen = { 0 };
	struct caps c;
	int fd;

	if (getuid() != 0)
		cr_skip_test("needs root");
	scratch_make(&s, 0700);         /* root's directory, root's 0600 file */
	become_capable_tenant(TENANT);
	fd = open(s.file, O_RDONLY);
	cr_assert_geq(fd, 0, "the premise: the capabilities read root's file");
	close(fd);

	seen.path = s.file;
	cr_assert_eq(privs__as_user(look, &seen), 7);
	cr_assert_not(seen.dac_read_search, "no effective capability inside");
	cr_assert_not(seen.dac_override);
	cr_assert_eq(seen.fsuid, TENANT);
	cr_assert_eq(seen.fsgid, TENANT);
	cr_assert_eq(seen.open_err, EACCES, "root's file is not the tenant's to read");

	cr_assert_eq(privs__open_as_user(s.file, O_RDONLY), -EACCES);
	cr_assert_eq(open_mapped(s.file, &s.st, s.st.st_ino), -EACCES);
	cr_assert_eq(privs__create_as_user(s.fifo, O_WRONLY | O_NONBLOCK, 0600), -EACCES);

	/* and back: the capabilities are effective again */
	c = caps_get();
	cr_assert(cap_effective(&c, CAP_DAC_READ_SEARCH) && cap_effective(&c, CAP_DAC_OVERRIDE));
	fd = open(s.file, O_RDONLY);
	cr_assert_geq(fd, 0);
	close(fd);
	scratch_remove(&s);
}

Test(privs, as_user_of_set_user_id_root_restores_fsuid)
{
	struct scratch s;
	struct seen seen = { 0 };
	char path[128];
	struct stat st;
	int fd;

	if (getuid() != 0)
		cr_skip_test("needs root");
	scratch_make(&s, 0755);
	become_setuid_tenant(TENANT);
	cr_assert_eq((uid_t)setfsuid((uid_t)-1), 0);

	seen.path = s.file;
	cr_assert_eq(privs__as_user(look, &seen), 7);
	cr_assert_eq(seen.fsuid, TENANT);
	cr_assert_eq(seen.fsgid, TENANT);
	cr_assert_not(seen.dac_override);
	cr_assert_eq(seen.open_err, EACCES);
	cr_assert_eq((uid_t)setfsuid((uid_t)-1), 0, "fsuid back to the effective uid");
	cr_assert_eq((gid_t)setfsgid((gid_t)-1), 0);
	cr_assert_eq(open_mapped(s.file, &s.st, s.st.st_ino), -EACCES, "root's 0600 file");
	cr_assert_eq(chmod(s.file, 0644), 0);
	fd = open_mapped(s.file, &s.st, s.st.st_ino);
	cr_assert_geq(fd, 0, "a file the tenant may read, reopened through /proc/self/fd: %s", strerror(-fd));
	close(fd);

	/* what it creates is the tenant's, where the tenant may create */
	cr_assert_eq(chmod(s.dir, 0777), 0);
	snprintf(path, sizeof(path), "%s/new", s.dir);
	fd = privs__create_as_user(path, O_WRONLY | O_EXCL, 0600);
	cr_assert_geq(fd, 0, "%s", strerror(-fd));
	cr_assert_eq(fstat(fd, &st), 0);
	cr_assert_eq(st.st_uid, TENANT);
	cr_assert_eq(st.st_gid, TENANT);
	close(fd);
	scratch_remove(&s);
}
