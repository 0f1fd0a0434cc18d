/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The access policy: who may record what, from prof.conf fixtures and command lines.
 * policy__check judges the real uid and groups of the process, so a test that needs
 * a tenant becomes one: criterion runs every test in a process of its own, which,
 * started as root, drops to TENANT (else the invoking user is the tenant).
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <grp.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "prof/cli/config.h"
#include "prof/cli/record_opts.h"
#include "prof/offcpu/offcpu.h"
#include "prof/scope/policy.h"
#include "prof/base/util.h"

#define TENANT 64999            /* a uid and gid no account has */

struct fixture {
	struct prof_config cfg;
	struct record_opts o;
	bool parsed;
	char *argv[16];
	char words[16][64];
	char err[1024];
};

/* prof.conf text, as the system file (where [policy] is allowed). */
static void conf(struct fixture *f, const char *text)
{
	char err[256];

	config__defaults(&f->cfg);
	cr_assert_eq(config__parse(&f->cfg, text, "prof.conf", true, err, sizeof(err)), 0, "%s", err);
}

/* A record command line (without the verb). */
static void cmdline(struct fixture *f, const char *const *words)
{
	int argc = 0;
	char err[256];

	f->argv[argc++] = strcpy(f->words[0], "record");
	for (; *words; words++, argc++) {
		cr_assert_lt(argc, 15);
		f->argv[argc] = strcpy(f->words[argc], *words);
	}
	f->argv[argc] = NULL;
	if (f->parsed)
		record_opts__release(&f->o);
	record_opts__init(&f->o);
	f->parsed = true;
	cr_assert_eq(record_opts__parse(&f->o, argc, f->argv, err, sizeof(err)), 0, "%s", err);
}

static void done(struct fixture *f)
{
	if (f->parsed)
		record_opts__release(&f->o);
	f->parsed = false;
}
#define CMDLINE(f, ...) cmdline((f), (const char *const[]){ __VA_ARGS__, NULL })

static int check(struct fixture *f, int cgroup_fd, struct policy_verdict *v)
{
	f->err[0] = '\0';
	return policy__check(&f->cfg, &f->o, cgroup_fd, v, f->err, sizeof(f->err));
}

#define assert_err_has(f, needle) \
	cr_assert_not_null(strstr((f)->err, (needle)), "'%s' should say '%s'", (f)->err, (needle))

/* Become the tenant: with extra (a gid) as a supplementary group, or none (-1). */
static uid_t become_tenant(gid_t extra)
{
	if (getuid() != 0) {
		if (extra != (gid_t)-1)
			cr_skip_test("needs root to take another group");
		return getuid();
	}
	cr_assert_eq(setgroups(extra != (gid_t)-1, &extra), 0);
	cr_assert_eq(setgid(TENANT), 0);
	cr_assert_eq(setuid(TENANT), 0);
	return TENANT;
}

/* A group that exists and is not the tenant's: its name and gid. */
static gid_t some_group(char *name, size_t len)
{
	struct group *g;

	setgrent();
	while ((g = getgrent()) && (g->gr_gid == 0 || g->gr_gid == TENANT))
		;
	if (!g)
		cr_skip_test("no group to test admin_group with");
	snprintf(name, len, "%s", g->gr_name);
	endgrent();
	return g->gr_gid;
}

/* A pid no process has. */
static const char *no_such_pid(void)
{
	static char buf[32];
	FILE *f = fopen("/proc/sys/kernel/pid_max", "r");
	long max = 32768;

	if (f) {
		if (fscanf(f, "%ld", &max) != 1)
			max = 32768;
		fclose(f);
	}
	for (long pid = max - 1; pid > 1; pid--) {
		if (kill((pid_t)pid, 0) < 0 && errno == ESRCH) {
			snprintf(buf, sizeof(buf), "%ld", pid);
			return buf;
		}
	}
	cr_assert_fail("every pid is in use");
	return NULL;
}

Test(policy, root_is_admin_whatever_it_asks)
{
	struct fixture f = { 0 };
	struct policy_verdict v;

	if (getuid() != 0)
		cr_skip_test("needs root");
	conf(&f, "[policy]\nuser_kernel = no\n");
	CMDLINE(&f, "-a");
	cr_assert_eq(check(&f, -1, &v), 0, "%s", f.err);
	cr_assert(v.admin);
	cr_assert_not(v.restrict_uid);
	cr_assert(v.kernel, "user_kernel = no is for users who are not admins");
	cr_assert_eq(v.uid, 0);
	CMDLINE(&f, "--uid", "12345", "--pid", "1", "--run-as", "nobody", "--", "true");
	cr_assert_eq(check(&f, -1, &v), 0, "%s", f.err);
	cr_assert(v.admin);
	done(&f);
}

Test(policy, a_tenant_is_restricted_to_their_uid)
{
	struct fixture f = { 0 };
	struct policy_verdict v;
	uid_t me = become_tenant((gid_t)-1);
	char uid[32];

	conf(&f, "");
	snprintf(uid, sizeof(uid), "%u", me);
	CMDLINE(&f, "--uid", uid, "-o", "x.data", "--", "true");
	cr_assert_eq(check(&f, -1, &v), 0, "%s", f.err);
	cr_assert_not(v.admin);
	cr_assert(v.restrict_uid, "whatever a tenant selects is intersected with their uid");
	cr_assert_eq(v.uid, me);
	cr_assert_not(v.kernel, "no kernel samples unless [policy] user_kernel");

	conf(&f, "[policy]\nuser_kernel = yes\n");
	cr_assert_eq(check(&f, -1, &v), 0, "%s", f.err);
	cr_assert(v.kernel);
	cr_assert(v.restrict_uid);

	/* a workload of their own, run as themselves */
	CMDLINE(&f, "--run-as", "self", "--", "true");
	cr_assert_eq(check(&f, -1, &v), 0, "%s", f.err);
	done(&f);
}

Test(policy, a_tenant_is_refused_others)
{
	struct fixture f = { 0 };
	struct policy_verdict v;
	uid_t me = become_tenant((gid_t)-1);
	char uids[64];

	conf(&f, "");
	CMDLINE(&f, "-a");
	cr_assert_eq(check(&f, -1, &v), -EPERM);
	assert_err_has(&f, "only root may record every task (-a)");

	snprintf(uids, sizeof(uids), "%u,%u", me, me + 1);
	CMDLINE(&f, "--uid", uids);
	cr_assert_eq(check(&f, -1, &v), -EPERM);
	snprintf(uids, sizeof(uids), "not uid %u", me + 1);
	assert_err_has(&f, uids);
	assert_err_has(&f, "only root may record other users");

	CMDLINE(&f, "--pid", "1");
	cr_assert_eq(check(&f, -1, &v), -EPERM);
	assert_err_has(&f, "process 1 is not yours");

	CMDLINE(&f, "--pid", no_such_pid());     /* not theirs either */
	cr_assert_eq(check(&f, -1, &v), -EPERM);

	CMDLINE(&f, "--run-as", "nobody", "--", "true");
	cr_assert_eq(check(&f, -1, &v), -EPERM);
	assert_err_has(&f, "--run-as");

	/* the rule named is the configured one */
	conf(&f, "[policy]\nadmin_group = prof-admins-nonexistent\n");
	CMDLINE(&f, "-a");
	cr_assert_eq(check(&f, -1, &v), -EPERM);
	assert_err_has(&f, "only root and members of the admin group may record every task");
	cr_assert_not(v.admin, "a group that does not exist has no members");
	done(&f);
}

Test(policy, a_tenant_may_record_their_own_process)
{
	struct fixture f = { 0 };
	struct policy_verdict v;
	char pid[32];

	become_tenant((gid_t)-1);
	conf(&f, "");
	snprintf(pid, sizeof(pid), "%d", getpid());
	CMDLINE(&f, "--pid", pid);
	cr_assert_eq(check(&f, -1, &v), 0, "%s", f.err);
	cr_assert(v.restrict_uid);
	done(&f);
}

/*
 * Cgroups: the policy looks at who owns the directory under the cgroup2 root; a
 * scratch directory stands for that root (mine: the tenant's, theirs: root's).
 */
static int cgroup_root(char *dir, uid_t tenant)
{
	char path[PATH_MAX + 16];
	int fd;

	snprintf(dir, PATH_MAX, "/tmp/prof-test-policy.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	/* the tenant's, so that the tenant the test becomes can remove it */
	cr_assert_eq(chmod(dir, 0755), 0);
	cr_assert_eq(chown(dir, tenant, (gid_t)-1), 0);
	snprintf(path, sizeof(path), "%s/mine", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	cr_assert_eq(chown(path, tenant, (gid_t)-1), 0);
	snprintf(path, sizeof(path), "%s/theirs", dir);
	cr_assert_eq(symlink("/", path), 0);     /* root's, for any test user */
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	return fd;
}

static void cgroup_root_remove(const char *dir)
{
	char path[PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/mine", dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/theirs", dir);
	unlink(path);
	rmdir(dir);
}

Test(policy, a_tenant_may_record_cgroups_delegated_to_them)
{
	struct fixture f = { 0 };
	struct policy_verdict v;
	char dir[PATH_MAX];
	uid_t tenant = getuid() == 0 ? TENANT : getuid();
	int fd = cgroup_root(dir, tenant);

	/* the scratch root is made while still root, then the test becomes the tenant */
	become_tenant((gid_t)-1);
	conf(&f, "");
	CMDLINE(&f, "--cgroup", "/mine");
	f.o.scope.cgroups[0].path = strdup("/mine");    /* as scope__resolve_cgroups leaves it */
	cr_assert_eq(check(&f, fd, &v), 0, "%s", f.err);
	cr_assert(v.restrict_uid);

	CMDLINE(&f, "--cgroup", "/theirs");
	f.o.scope.cgroups[0].path = strdup("/theirs");
	cr_assert_eq(check(&f, fd, &v), -EPERM);
	assert_err_has(&f, "cgroup /theirs is not delegated to you");

	CMDLINE(&f, "--cgroup", "/mine");
	f.o.scope.cgroups[0].path = strdup("/mine");
	cr_assert_eq(check(&f, -1, &v), -EPERM, "no cgroup root: nothing is delegated");
	close(fd);
	cgroup_root_remove(dir);
	done(&f);
}

Test(policy, the_admin_group_may_record_anything)
{
	struct fixture f = { 0 };
	struct policy_verdict v;
	char name[64], text[128];
	gid_t gid = some_group(name, sizeof(name));

	become_tenant(gid);
	snprintf(text, sizeof(text), "[policy]\nadmin_group = %s\nuser_kernel = no\n", name);
	conf(&f, text);
	CMDLINE(&f, "-a");
	cr_assert_eq(check(&f, -1, &v), 0, "%s", f.err);
	cr_assert(v.admin, "a member of %s (supplementary) is an admin", name);
	cr_assert_not(v.restrict_uid);
	cr_assert(v.kernel);
	CMDLINE(&f, "--pid", "1", "--uid", "0");
	cr_assert_eq(check(&f, -1, &v), 0, "%s", f.err);

	/* another group's name: a tenant again */
	conf(&f, "[policy]\nadmin_group = root\n");
	cr_assert_eq(check(&f, -1, &v), -EPERM);
	cr_assert_not(v.admin);
	done(&f);
}

Test(policy, the_admin_group_as_primary_group)
{
	struct fixture f = { 0 };
	struct policy_verdict v;
	char name[64], text[128];
	gid_t gid = some_group(name, sizeof(name));

	if (getuid() != 0)
		cr_skip_test("needs root");
	cr_assert_eq(setgroups(0, NULL), 0);
	cr_assert_eq(setgid(gid), 0);
	cr_assert_eq(setuid(TENANT), 0);
	snprintf(text, sizeof(text), "[policy]\nadmin_group = %s\n", name);
	conf(&f, text);
	CMDLINE(&f, "-a");
	cr_assert_eq(check(&f, -1, &v), 0, "%s", f.err);
	cr_assert(v.admin);
	done(&f);
}

/* ---- the sampling rate: judged from the verdict, no identity needed ---------------- */

static int rate(struct fixture *f, bool admin, bool sys_admin)
{
	struct policy_verdict v = { .admin = admin, .restrict_uid = !admin };

	f->err[0] = '\0';
	return policy__check_rate(&f->cfg, &v, sys_admin, &f->o, f->err, sizeof(f->err));
}

Test(policy, rate_of_a_tenant)
{
	struct fixture f = { 0 };

	conf(&f, "[policy]\nuser_max_frequency = 1000\n");
	CMDLINE(&f, "-F", "1000", "--", "true");
	cr_assert_eq(rate(&f, false, false), 0, "at the limit");
	cr_assert_eq(f.o.freq, 1000);
	CMDLINE(&f, "-F", "1001", "--", "true");
	cr_assert_eq(rate(&f, false, false), -EPERM);
	assert_err_has(&f, "-F 1001 is above the 1000 Hz");
	CMDLINE(&f, "-F", "max", "--", "true");
	cr_assert_eq(rate(&f, false, false), 0);
	cr_assert_eq(f.o.freq, 1000, "-F max is the limit");
	cr_assert_not(f.o.freq_max);

	/* a frequency from the configuration, not the command line: lowered, said so */
	CMDLINE(&f, "-o", "x.data", "--", "true");
	f.o.freq = 4000;
	cr_assert_eq(rate(&f, false, false), 1);
	cr_assert_eq(f.o.freq, 1000);
	done(&f);
}

Test(policy, rate_periods_only_on_the_clocks)
{
	struct fixture f = { 0 };

	conf(&f, "[policy]\nuser_max_frequency = 1000\n");
	CMDLINE(&f, "-c", "100000", "--", "true");
	cr_assert_eq(rate(&f, false, false), -EPERM, "-c on cycles: its rate is not known");
	assert_err_has(&f, "-c (a sampling period) is allowed only with -e cpu-clock or task-clock");
	CMDLINE(&f, "-e", "cpu-clock", "-c", "1000000", "--", "true");
	cr_assert_eq(rate(&f, false, false), 0, "1 ms: 1000 Hz, the limit");
	CMDLINE(&f, "-e", "task-clock", "-c", "999999", "--", "true");
	cr_assert_eq(rate(&f, false, false), -EPERM);
	assert_err_has(&f, "-c 1000000 or more");
	done(&f);
}

Test(policy, rate_of_admins_is_not_limited)
{
	struct fixture f = { 0 };

	conf(&f, "[policy]\nuser_max_frequency = 1000\n");
	CMDLINE(&f, "-F", "50000", "--", "true");
	cr_assert_eq(rate(&f, true, false), 0);
	cr_assert_eq(f.o.freq, 50000);
	cr_assert_eq(rate(&f, false, true), 0, "CAP_SYS_ADMIN is not limited");
	cr_assert_eq(f.o.freq, 50000);
	CMDLINE(&f, "-c", "1000", "--", "true");
	cr_assert_eq(rate(&f, true, false), 0);
	CMDLINE(&f, "-F", "max", "--", "true");
	cr_assert_eq(rate(&f, true, false), 0);
	cr_assert(f.o.freq_max, "an admin's -F max is left to the kernel's limit");
	done(&f);
}

/* The limit is the recording's: two events share it (each at most half). */
Test(policy, rate_shared_by_events)
{
	struct fixture f = { 0 };

	conf(&f, "[policy]\nuser_max_frequency = 1000\n");
	CMDLINE(&f, "-e", "cpu-clock,page-faults", "-F", "500", "--", "true");
	cr_assert_eq(rate(&f, false, false), 0, "2 x 500 Hz: the limit");
	CMDLINE(&f, "-e", "cpu-clock,page-faults", "-F", "501", "--", "true");
	cr_assert_eq(rate(&f, false, false), -EPERM);
	assert_err_has(&f, "-F 501 is above the 500 Hz allowed to users who are not admins for each of 2 events");
	CMDLINE(&f, "-e", "cpu-clock,page-faults", "-F", "max", "--", "true");
	cr_assert_eq(rate(&f, false, false), 0);
	cr_assert_eq(f.o.freq, 500);
	CMDLINE(&f, "-e", "cpu-clock,page-faults", "-c", "1000000", "--", "true");
	cr_assert_eq(rate(&f, false, false), -EPERM, "-c on page-faults: its rate is not known");
	CMDLINE(&f, "-e", "cpu-clock,task-clock", "-c", "1000000", "--", "true");
	cr_assert_eq(rate(&f, false, false), -EPERM, "2 x 1000 Hz");
	assert_err_has(&f, "-c 2000000 or more");
	CMDLINE(&f, "-e", "cpu-clock,task-clock", "-c", "2000000", "--", "true");
	cr_assert_eq(rate(&f, false, false), 0);
	done(&f);
}

/* ---- --off-cpu's stack samples: the same pattern as the sampling rate ------------- */

static int off_rate(struct fixture *f, bool admin, bool configured)
{
	struct policy_verdict v = { .admin = admin, .restrict_uid = !admin };

	f->err[0] = '\0';
	return policy__check_off_cpu_rate(&f->cfg, &v, false, configured, &f->o, f->err, sizeof(f->err));
}

Test(policy, off_cpu_rate_of_a_tenant)
{
	struct fixture f = { 0 };

	conf(&f, "[policy]\nuser_off_cpu_max_rate = 2000\n");
	CMDLINE(&f, "--off-cpu", "--off-cpu-max-rate", "2000", "--", "true");
	cr_assert_eq(off_rate(&f, false, false), 0, "at the limit");
	cr_assert_eq(f.o.off_cpu_max_rate, 2000);
	CMDLINE(&f, "--off-cpu", "--off-cpu-max-rate", "2001", "--", "true");
	cr_assert_eq(off_rate(&f, false, false), -EPERM);
	assert_err_has(&f, "--off-cpu-max-rate 2001 is above the 2000 stack samples");
	assert_err_has(&f, "user_off_cpu_max_rate");
	CMDLINE(&f, "--off-cpu", "--off-cpu-max-rate", "0", "--", "true");
	cr_assert_eq(off_rate(&f, false, false), -EPERM, "a stack at every switch: admins only");
	assert_err_has(&f, "--off-cpu-max-rate 0 (a stack sample at every context switch");
	CMDLINE(&f, "--off-cpu", "--", "true");
	cr_assert_eq(off_rate(&f, false, false), 0);
	cr_assert_eq(f.o.off_cpu_max_rate, 2000, "the built-in 10000 lowered to the limit");
	/* prof.conf's [record] off_cpu_max_rate = 0: lowered, said so */
	CMDLINE(&f, "--off-cpu", "--", "true");
	f.o.off_cpu_max_rate = RECORD_OFFCPU_UNBOUNDED;
	cr_assert_eq(off_rate(&f, false, true), 1);
	cr_assert_eq(f.o.off_cpu_max_rate, 2000);
	/* admins, and recordings without --off-cpu, are not limited */
	CMDLINE(&f, "--off-cpu", "--off-cpu-max-rate", "0", "--", "true");
	cr_assert_eq(off_rate(&f, true, false), 0);
	cr_assert_eq(f.o.off_cpu_max_rate, RECORD_OFFCPU_UNBOUNDED);
	CMDLINE(&f, "--", "true");
	cr_assert_eq(off_rate(&f, false, false), 0);
	done(&f);
}

Test(policy, off_cpu_rate_default_limit_is_the_built_in_rate)
{
	struct fixture f = { 0 };

	conf(&f, "");
	cr_assert_eq(f.cfg.user_off_cpu_max_rate, OFFCPU_DEFAULT_MAX_RATE);
	CMDLINE(&f, "--off-cpu", "--", "true");
	cr_assert_eq(off_rate(&f, false, false), 0);
	cr_assert_eq(f.o.off_cpu_max_rate, 0, "the built-in default, untouched");
	done(&f);
}
