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
#include <stdint.h>
#include <sys/types.h>

struct privs {
	uid_t uid, euid;
	bool perfmon;           /* CAP_PERFMON */
	bool sys_admin;         /* CAP_SYS_ADMIN (works for perf where PERFMON does) */
	bool sys_ptrace;        /* other users' /proc/PID/maps */
	bool setuid, setgid;    /* running the workload as a user */
	bool syslog;            /* kernel addresses in /proc/kallsyms */
	bool kill;              /* signalling a workload that runs as another user */
	bool map_files;         /* root's CAP_CHECKPOINT_RESTORE: /proc/PID/map_files, the
				 * mapped objects of tasks in other mount namespaces, or
				 * replaced or deleted since (task_file.h) */
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
 * stopping a workload of another user: CAP_KILL; root's mapped objects through
 * /proc/PID/map_files: CAP_CHECKPOINT_RESTORE), drop the rest from the effective,
 * permitted and inheritable sets.  0 or -errno.
 */
int privs__drop_after_start(const struct privs *p);

/*
 * Acting as the invoking user, the one mechanism for every file a user names or a
 * recording maps (--config, report -i and -o, record -o and its .old, the build ids'
 * and the unwinder's mapped files, JIT maps): prof's capabilities must not lend the
 * user access to anything (CAP_DAC_READ_SEARCH reads any file, CAP_SYS_PTRACE opens
 * other users' /proc/PID/maps), and what prof creates is the user's.
 *
 * privs__as_user runs fn(arg) with no effective capability and the real uid/gid as
 * file system ids, both restored after it (the permitted set is never touched, so
 * they can be).  For root (real uid 0) fn just runs.  Only this thread's rights
 * change.  fn's return, or -errno when the rights could not be dropped (fn did not
 * run) or restored (fn ran: the caller undoes what it did).
 */
int privs__as_user(int (*fn)(void *arg), void *arg);

/* The calling thread gives up every capability (effective, permitted, inheritable;
 * the others keep theirs): a helper thread that acts only as the user.  0 or -errno. */
int privs__drop_thread(void);

/* open(2) as the user (no O_CREAT: privs__create_as_user).  The fd, or -errno. */
int privs__open_as_user(const char *path, int flags);

/* open(2) with O_CREAT added, as the user: the new file is theirs.  The fd, or -errno. */
int privs__create_as_user(const char *path, int flags, mode_t mode);

/*
 * Open the file a mapping was made of, read-only, as the user: path is opened
 * without following a final symlink and must be the regular file (maj, min, ino),
 * then that very inode is opened (never a FIFO or device swapped in).  An fd, or
 * -errno (-ESTALE: the path names another file now).
 */
int privs__open_mapped(const char *path, uint32_t maj, uint32_t min, uint64_t ino);

/* "sudo setcap cap_perfmon,cap_sys_ptrace,cap_syslog=ep /path/to/prof" for messages. */
void privs__setcap_hint(char *buf, size_t len);

#endif
