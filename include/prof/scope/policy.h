/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Who may profile what.  Root and members of the configured admin group may select
 * any scope.  Any other invoker (prof installed with file capabilities) may select
 * only their own uid, their own processes and cgroups delegated to them (owned by
 * them); whatever they select is also intersected with their uid, so nothing of
 * another tenant reaches their file; and they get no kernel samples or addresses
 * unless the policy allows it.
 */
#ifndef PROF_SCOPE_POLICY_H
#define PROF_SCOPE_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "prof/cli/config.h"
#include "prof/cli/record_opts.h"

struct policy_verdict {
	bool admin;
	bool restrict_uid;      /* intersect the scope with uid */
	uid_t uid;
	bool kernel;            /* kernel samples, call chains and maps allowed */
};

/*
 * Decide for the invoker (real uid and groups of this process).  0, or -EPERM with
 * a message in err naming the rule that refused; cgroups must be resolved first.
 */
int policy__check(const struct prof_config *c, const struct record_opts *o, int cgroup_fd,
		  struct policy_verdict *v, char *err, size_t errlen);

/*
 * The sampling rate someone who is not an admin may ask for (a high rate slows every
 * other tenant's fork and exec): an -F above c->user_max_frequency is refused, -F max
 * and a configured frequency above it are lowered to it; -c is allowed on the clock
 * events only (their period is in ns) and within the same rate.  Admins (v->admin,
 * or sys_admin: CAP_SYS_ADMIN) are not limited.  0, 1 when a configured frequency
 * was lowered, or -EPERM with a message in err.
 */
int policy__check_rate(const struct prof_config *c, const struct policy_verdict *v, bool sys_admin,
		       struct record_opts *o, char *err, size_t errlen);

/*
 * The same for --off-cpu's stack samples (every context switch of the CPU is one,
 * whoever switches, unless the kernel filters the scope's cgroup): someone who is not
 * an admin gets at most c->user_off_cpu_max_rate per CPU per second before 1 in N.
 * --off-cpu-max-rate above it, or 0 (a stack at every switch), is refused; the same
 * from the configuration (configured: o's rate is prof.conf's) and the built-in
 * default are lowered to it.  0, 1 when a configured rate was lowered, or -EPERM with
 * a message in err.
 */
int policy__check_off_cpu_rate(const struct prof_config *c, const struct policy_verdict *v, bool sys_admin,
			       bool configured, struct record_opts *o, char *err, size_t errlen);

#endif
