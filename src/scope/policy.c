/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <linux/perf_event.h>

#include "prof/scope/policy.h"
#include "prof/sys/procfs.h"
#include "prof/base/util.h"
#include "prof/offcpu/offcpu.h"

static bool in_group(const char *name)
{
	struct group gr, *res = NULL;
	char buf[8192];
	gid_t groups[256];
	int n;

	if (!name[0] || getgrnam_r(name, &gr, buf, sizeof(buf), &res) != 0 || !res)
		return false;
	if (getgid() == res->gr_gid)
		return true;
	n = getgroups((int)ARRAY_SIZE(groups), groups);
	for (int i = 0; i < n; i++)
		if (groups[i] == res->gr_gid)
			return true;
	return false;
}

static int pid_owner(pid_t pid, uid_t *ret)
{
	_cleanup_free_ char *status = NULL;
	char path[64];
	uint64_t uid;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if (read_file_full(AT_FDCWD, path, 1 << 16, &status) < 0 ||
	    procfs__status_u64(status, "Uid:", &uid) < 0)
		return -ESRCH;
	*ret = (uid_t)uid;
	return 0;
}

int policy__check(const struct prof_config *c, const struct record_opts *o, int cgroup_fd,
		  struct policy_verdict *v, char *err, size_t errlen)
{
	const struct scope *s = &o->scope;
	const char *rule = c->admin_group[0] ? "root and members of the admin group" : "root";
	uid_t uid = getuid();

	*v = (struct policy_verdict){ .uid = uid, .kernel = true };
	if (uid == 0 || in_group(c->admin_group)) {
		v->admin = true;
		return 0;
	}
	v->restrict_uid = true;
	v->kernel = c->user_kernel;
	if (o->all) {
		snprintf(err, errlen, "policy: only %s may record every task (-a); you may record your own uid, "
			 "your processes and cgroups delegated to you ([policy] admin_group in prof.conf)", rule);
		return -EPERM;
	}
	for (size_t i = 0; i < s->nr_uids; i++) {
		if (s->uids[i] != uid) {
			snprintf(err, errlen, "policy: you may record only your own uid (%u), not uid %u; only %s "
				 "may record other users", uid, s->uids[i], rule);
			return -EPERM;
		}
	}
	for (size_t i = 0; i < s->nr_pids; i++) {
		uid_t owner;
		if (pid_owner(s->pids[i], &owner) < 0 || owner != uid) {
			snprintf(err, errlen, "policy: process %d is not yours; you may record only your own processes",
				 s->pids[i]);
			return -EPERM;
		}
	}
	for (size_t i = 0; i < s->nr_cgroups; i++) {
		const char *p = s->cgroups[i].path ? s->cgroups[i].path : "/";
		struct stat st;

		while (*p == '/')
			p++;
		if (cgroup_fd < 0 || fstatat(cgroup_fd, *p ? p : ".", &st, 0) < 0 || st.st_uid != uid) {
			snprintf(err, errlen, "policy: cgroup %s is not delegated to you (it must be owned by uid %u); "
				 "only %s may record other cgroups", s->cgroups[i].path, uid, rule);
			return -EPERM;
		}
	}
	if (o->run_as && strcmp(o->run_as, "self")) {
		snprintf(err, errlen, "policy: only %s may run the command as another user (--run-as)", rule);
		return -EPERM;
	}
	return 0;
}

static bool is_clock(const struct event_spec *e)
{
	return e->type == PERF_TYPE_SOFTWARE &&
	       (e->config == PERF_COUNT_SW_CPU_CLOCK || e->config == PERF_COUNT_SW_TASK_CLOCK);
}

int policy__check_rate(const struct prof_config *c, const struct policy_verdict *v, bool sys_admin,
		       struct record_opts *o, char *err, size_t errlen)
{
	static const char who[] = "root sets it in prof.conf's [policy] user_max_frequency; root, "
				  "CAP_SYS_ADMIN and members of the admin group are not limited";
	/* the limit is the recording's: several events (-e a,b) share it */
	size_t n = o->nr_events > 1 ? o->nr_events : 1;
	uint64_t cap = MAX(c->user_max_frequency / n, 1), min_period = (UINT64_C(1000000000) + cap - 1) / cap;
	const struct event_spec *e = &o->events[0];
	char each[64] = "";

	if (v->admin || sys_admin)
		return 0;
	if (n > 1)
		snprintf(each, sizeof(each), " for each of %zu events", n);
	/* -c applies to every event: each must be a clock */
	for (size_t i = 1; o->period && i < n && is_clock(e); i++)
		e = &o->events[i];
	if (o->period) {
		if (!is_clock(e)) {
			snprintf(err, errlen, "policy: -c (a sampling period) is allowed only with -e cpu-clock or "
				 "task-clock for users who are not admins; use -F (at most %" PRIu64 " Hz%s: %s)",
				 cap, each, who);
			return -EPERM;
		}
		if (o->period < min_period) {
			snprintf(err, errlen, "policy: -c %" PRIu64 " on %s is %" PRIu64 " samples a second; the "
				 "limit for users who are not admins is %" PRIu64 " Hz%s (-c %" PRIu64 " or more): %s",
				 o->period, e->name, UINT64_C(1000000000) / o->period, cap, each, min_period, who);
			return -EPERM;
		}
		return 0;
	}
	if (o->freq_max) {
		o->freq_max = false;
		o->freq = cap;
		return 0;
	}
	if (o->freq <= cap)
		return 0;
	if (o->freq_given) {
		snprintf(err, errlen, "policy: -F %" PRIu64 " is above the %" PRIu64 " Hz allowed to users who "
			 "are not admins%s (ask for less, or -F max for the limit): %s", o->freq, cap, each, who);
		return -EPERM;
	}
	o->freq = cap;
	return 1;
}

int policy__check_off_cpu_rate(const struct prof_config *c, const struct policy_verdict *v, bool sys_admin,
			       bool configured, struct record_opts *o, char *err, size_t errlen)
{
	uint32_t cap = c->user_off_cpu_max_rate ? c->user_off_cpu_max_rate : CONFIG_USER_OFF_CPU_MAX_RATE;
	uint32_t asked = o->off_cpu_max_rate;

	if (!o->off_cpu || v->admin || sys_admin)
		return 0;
	if (!asked) {
		/* the built-in default, under a lower limit: the limit, nothing to say */
		if (OFFCPU_DEFAULT_MAX_RATE > cap)
			o->off_cpu_max_rate = cap;
		return 0;
	}
	if (asked != RECORD_OFFCPU_UNBOUNDED && asked <= cap)
		return 0;
	if (configured) {
		o->off_cpu_max_rate = cap;
		return 1;
	}
	if (asked == RECORD_OFFCPU_UNBOUNDED)
		snprintf(err, errlen, "policy: --off-cpu-max-rate 0 (a stack sample at every context switch of "
			 "the CPUs, any tenant's) is for admins; users who are not admins get at most %u stack "
			 "samples per CPU per second (--off-cpu-max-rate %u or less): root sets it in prof.conf's "
			 "[policy] user_off_cpu_max_rate; root, CAP_SYS_ADMIN and members of the admin group are "
			 "not limited", cap, cap);
	else
		snprintf(err, errlen, "policy: --off-cpu-max-rate %u is above the %u stack samples per CPU per "
			 "second allowed to users who are not admins (ask for %u or less): root sets it in "
			 "prof.conf's [policy] user_off_cpu_max_rate; root, CAP_SYS_ADMIN and members of the admin "
			 "group are not limited", asked, cap, cap);
	return -EPERM;
}
