/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What prof may do: the capabilities it holds (as root, through file capabilities,
 * or none) and the perf_event_paranoid level in force.  Probed once at start,
 * before anything is opened; most capabilities are dropped once recording runs.
 */
#ifndef PROF_SYS_PRIVS_H
#define PROF_SYS_PRIVS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct privs {
	uid_t uid, euid;
	bool perfmon;           /* CAP_PERFMON */
	bool sys_admin;         /* CAP_SYS_ADMIN (works for perf where PERFMON does) */
	bool sys_ptrace;        /* other users' /proc/PID/maps */
	bool setuid, setgid;    /* running the workload as a user */
	bool syslog;            /* kernel addresses in /proc/kallsyms */
	bool kill;              /* signalling a workload that runs as another user */
	int paranoid;           /* kernel.perf_event_paranoid (99 when unreadable) */
};

/* Probe the current process.  0 or -errno. */
int privs__probe(struct privs *p);

/* System-wide (per-CPU) events: CAP_PERFMON/CAP_SYS_ADMIN or paranoid <= 0. */
bool privs__can_record_system_wide(const struct privs *p);

/* Giving the workload another identity: root, or CAP_SETUID and CAP_SETGID. */
bool privs__can_setid(const struct privs *p);

/* Kernel samples and addresses: CAP_PERFMON/CAP_SYS_ADMIN or paranoid <= 1. */
bool privs__can_sample_kernel(const struct privs *p);

/*
 * Once events are open and the workload runs: keep only what the rest of the
 * recording uses (reading /proc maps of any task: CAP_SYS_PTRACE, CAP_PERFMON;
 * stopping a workload of another user: CAP_KILL), drop the rest from the effective,
 * permitted and inheritable sets.  0 or -errno.
 */
int privs__drop_after_start(const struct privs *p);

/*
 * open(2) path with the invoking user's rights only: no effective capability and the
 * real uid/gid as file system ids during the call, restored after it.  For paths the
 * user names (--config, report -i): prof's capabilities must not lend them read
 * access to anything (CAP_SYS_PTRACE opens other users' /proc/PID/maps).  For root,
 * a plain open.  Returns the fd, or -errno.
 */
int privs__open_as_user(const char *path, int flags);

/* "sudo setcap cap_perfmon,cap_sys_ptrace,cap_syslog=ep /path/to/prof" for messages. */
void privs__setcap_hint(char *buf, size_t len);

#endif
