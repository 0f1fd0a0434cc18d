/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The output file of a recording: the .old rename, abort putting the old file back,
 * refusing what is not a regular file, and (as root) acting as the invoking user.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prof/sys/output_file.h"
#include "prof/base/util.h"
#include "tenant.h"

#define TENANT 64997

struct dir {
	char path[64];
	char out[96], old[96], target[96];
};

static void dir_make(struct dir *d)
{
	snprintf(d->path, sizeof(d->path), "/tmp/prof-test-output.XXXXXX");
	cr_assert_not_null(mkdtemp(d->path));
	snprintf(d->out, sizeof(d->out), "%s/perf.data", d->path);
	snprintf(d->old, sizeof(d->old), "%s/perf.data.old", d->path);
	snprintf(d->target, sizeof(d->target), "%s/target", d->path);
}

static void dir_remove(struct dir *d)
{
	unlink(d->out);
	unlink(d->old);
	unlink(d->target);
	rmdir(d->path);
}

static void put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write_full(fd, text, strlen(text)), 0);
	close(fd);
}

/* The file's text ("" when empty), or NULL when there is no such file. */
static char *text_of(const char *path)
{
	char *buf = NULL;

	if (read_file_full(AT_FDCWD, path, 1 << 16, &buf) < 0)
		return NULL;
	return buf;
}

static void assert_text(const char *path, const char *want)
{
	char *got = text_of(path);

	cr_assert_not_null(got, "%s is missing", path);
	cr_assert_str_eq(got, want, "%s", path);
	free(got);
}

static void assert_missing(const char *path)
{
	struct stat st;

	cr_assert(lstat(path, &st) < 0 && errno == ENOENT, "%s exists", path);
}

Test(output_file, creates_a_new_file_0600)
{
	struct output_file o;
	struct dir d;
	struct stat st;

	dir_make(&d);
	cr_assert_eq(output_file__create(&o, d.out), 0);
	cr_assert_geq(o.fd, 0);
	cr_assert_null(o.old_path);
	cr_assert_eq(fstat(o.fd, &st), 0);
	cr_assert(S_ISREG(st.st_mode));
	cr_assert_eq(st.st_mode & 0777, 0600);
	cr_assert_eq(st.st_uid, getuid());
	cr_assert(fcntl(o.fd, F_GETFD) & FD_CLOEXEC);
	cr_assert_eq(write_full(o.fd, "new", 3), 0);
	cr_assert_eq(output_file__close(&o), 0);
	cr_assert_eq(o.fd, -1);
	assert_text(d.out, "new");
	assert_missing(d.old);
	dir_remove(&d);
}

Test(output_file, keeps_an_existing_file_as_old)
{
	struct output_file o;
	struct dir d;

	dir_make(&d);
	put(d.out, "first");
	put(d.old, "older still");
	cr_assert_eq(output_file__create(&o, d.out), 0);
	cr_assert_str_eq(o.old_path, d.old);
	assert_text(d.old, "first");
	assert_text(d.out, "");
	cr_assert_eq(write_full(o.fd, "second", 6), 0);
	cr_assert_eq(output_file__close(&o), 0);
	cr_assert_null(o.old_path);
	assert_text(d.out, "second");
	assert_text(d.old, "first");
	/* an empty file is kept too: it is the user's */
	put(d.out, "");
	cr_assert_eq(output_file__create(&o, d.out), 0);
	assert_text(d.old, "");
	output_file__close(&o);
	dir_remove(&d);
}

Test(output_file, abort_puts_the_old_file_back)
{
	struct output_file o;
	struct dir d;

	dir_make(&d);
	put(d.out, "first");
	cr_assert_eq(output_file__create(&o, d.out), 0);
	cr_assert_eq(write_full(o.fd, "partial", 7), 0);
	output_file__abort(&o);
	cr_assert_eq(o.fd, -1);
	cr_assert_null(o.old_path);
	assert_text(d.out, "first");
	assert_missing(d.old);
	output_file__abort(&o);         /* twice: nothing more happens */
	assert_text(d.out, "first");

	/* with nothing before it, abort leaves nothing */
	unlink(d.out);
	cr_assert_eq(output_file__create(&o, d.out), 0);
	output_file__abort(&o);
	assert_missing(d.out);
	assert_missing(d.old);
	dir_remove(&d);
}

Test(output_file, refuses_a_symlink_a_fifo_and_a_directory)
{
	struct output_file o;
	struct dir d;
	struct stat st;

	dir_make(&d);
	put(d.target, "not to be touched");
	cr_assert_eq(symlink(d.target, d.out), 0);
	cr_assert_eq(output_file__create(&o, d.out), -EEXIST, "a symlink is never written through");
	cr_assert_eq(o.fd, -1);
	assert_text(d.target, "not to be touched");
	cr_assert(lstat(d.out, &st) == 0 && S_ISLNK(st.st_mode), "the link stays");
	assert_missing(d.old);
	unlink(d.out);
	/* a dangling link: not followed to create its target either */
	unlink(d.target);
	cr_assert_eq(symlink(d.target, d.out), 0);
	cr_assert_eq(output_file__create(&o, d.out), -EEXIST);
	assert_missing(d.target);
	unlink(d.out);

	cr_assert_eq(mkfifo(d.out, 0600), 0);
	cr_assert_eq(output_file__create(&o, d.out), -EEXIST, "a FIFO: refused, no hang");
	cr_assert(lstat(d.out, &st) == 0 && S_ISFIFO(st.st_mode));
	assert_missing(d.old);
	unlink(d.out);

	cr_assert_eq(mkdir(d.out, 0700), 0);
	cr_assert_eq(output_file__create(&o, d.out), -EEXIST);
	assert_missing(d.old);
	rmdir(d.out);
	cr_assert_eq(output_file__create(&o, "/nonexistent-dir/perf.data"), -ENOENT);
	dir_remove(&d);
}

/* ---- as root: the identities a privileged prof runs with -------------------------- */

Test(output_file, created_renamed_and_removed_as_the_user)
{
	struct output_file o;
	struct dir d;
	struct stat st;

	if (getuid() != 0)
		cr_skip_test("needs root");
	dir_make(&d);                   /* root's 0700 directory */
	put(d.out, "root's");
	become_setuid_tenant(TENANT);
	cr_assert_eq(output_file__create(&o, d.out), -EACCES, "not the tenant's directory");
	assert_text(d.out, "root's");
	assert_missing(d.old);

	/* a directory the tenant may write: the file is theirs */
	cr_assert_eq(chmod(d.path, 0777), 0);
	cr_assert_eq(output_file__create(&o, d.out), 0);
	cr_assert_eq(fstat(o.fd, &st), 0);
	cr_assert_eq(st.st_uid, TENANT);
	assert_text(d.old, "root's");
	output_file__abort(&o);
	assert_text(d.out, "root's");
	assert_missing(d.old);

	/* sticky, as /tmp: the tenant may not move root's file aside, so nothing changes */
	cr_assert_eq(chmod(d.path, 01777), 0);
	cr_assert_eq(output_file__create(&o, d.out), -EPERM);
	assert_text(d.out, "root's");
	assert_missing(d.old);
	dir_remove(&d);
}

/*
 * File capabilities: the tenant's fsuid is theirs already, so only clearing the
 * effective capabilities keeps CAP_DAC_READ_SEARCH from reaching into root's
 * directory (and from creating in one anybody may write inside it).
 */
Test(output_file, file_capabilities_lend_the_user_nothing)
{
	struct output_file o;
	struct dir d;
	char pub[128], out[160], old[168];
	struct stat st;

	if (getuid() != 0)
		cr_skip_test("needs root");
	dir_make(&d);                   /* root's 0700 directory ... */
	snprintf(pub, sizeof(pub), "%s/pub", d.path);
	cr_assert_eq(mkdir(pub, 0777), 0);
	cr_assert_eq(chmod(pub, 0777), 0);      /* ... with one anybody may write inside */
	snprintf(out, sizeof(out), "%s/perf.data", pub);
	snprintf(old, sizeof(old), "%s.old", out);
	put(out, "root's");
	become_capable_tenant(TENANT);
	cr_assert_eq(stat(out, &st), 0, "the premise: the capabilities reach it");
	cr_assert_eq(output_file__create(&o, out), -EACCES);
	assert_text(out, "root's");
	assert_missing(old);
	unlink(out);
	cr_assert_eq(output_file__create(&o, out), -EACCES, "no new file there either");
	assert_missing(out);
	rmdir(pub);
	dir_remove(&d);
}
