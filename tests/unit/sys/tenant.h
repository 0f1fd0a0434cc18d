/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The identities a privileged prof runs with, built from root in a test's own
 * process (criterion runs each test in one): a tenant's real uid with capabilities
 * (file capabilities) or with effective uid 0 (set-user-ID root).
 */
#ifndef PROF_TEST_TENANT_H
#define PROF_TEST_TENANT_H

#include <criterion/criterion.h>
#include <grp.h>
#include <stdbool.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>

struct caps {
	struct __user_cap_header_struct h;
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
};

static inline struct caps caps_get(void)
{
	struct caps c = { .h = { .version = _LINUX_CAPABILITY_VERSION_3 } };

	cr_assert_eq(syscall(SYS_capget, &c.h, c.d), 0);
	return c;
}

static inline bool cap_effective(const struct caps *c, int cap)
{
	return c->d[cap / 32].effective & (1u << (cap % 32));
}

/*
 * prof installed with file capabilities, run by uid: every uid and gid theirs,
 * CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH and CAP_FOWNER effective (what an install
 * might hold, and what would let it read and write anything; FOWNER also lets the
 * test remove its scratch directory from the sticky /tmp).  Skips without root.
 */
static inline void become_capable_tenant(uid_t uid)
{
	struct caps c;

	if (getuid() != 0)
		cr_skip_test("needs root to build the identity");
	cr_assert_eq(prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0), 0);
	cr_assert_eq(setgroups(0, NULL), 0);
	cr_assert_eq(setresgid(uid, uid, uid), 0);
	cr_assert_eq(setresuid(uid, uid, uid), 0);
	c = caps_get();
	for (int cap = CAP_DAC_OVERRIDE; cap <= CAP_FOWNER; cap++) {
		cr_assert(c.d[0].permitted & (1u << cap), "kept in the permitted set");
		c.d[0].effective |= 1u << cap;
	}
	cr_assert_eq(syscall(SYS_capset, &c.h, c.d), 0);
	c = caps_get();
	cr_assert(cap_effective(&c, CAP_DAC_READ_SEARCH));
}

/* prof set-user-ID root, run by uid: real ids theirs, effective and saved root's. */
static inline void become_setuid_tenant(uid_t uid)
{
	if (getuid() != 0)
		cr_skip_test("needs root to build the identity");
	cr_assert_eq(setgroups(0, NULL), 0);
	cr_assert_eq(setresgid(uid, 0, 0), 0);
	cr_assert_eq(setresuid(uid, 0, 0), 0);
}

#endif
