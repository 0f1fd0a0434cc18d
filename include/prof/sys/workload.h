/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The command prof runs and records: forked before the events are opened (so it
 * inherits none of their fds), held on a "cork" until recording is armed, so its
 * first instructions are sampled.
 */
#ifndef PROF_SYS_WORKLOAD_H
#define PROF_SYS_WORKLOAD_H

#include <stdbool.h>
#include <sys/types.h>

/* Who the workload runs as: the invoker's identity, or a user's (needs CAP_SETUID/GID). */
struct workload_identity {
	bool as_user;           /* false: keep prof's own identity */
	uid_t uid;
	gid_t gid;
	char name[64];
	char home[256];
	char shell[256];
};

struct workload {
	pid_t pid;
	int cork_fd;    /* write end: one byte lets the child exec, EOF makes it exit */
	int err_fd;     /* read end: the child's exec errno, or EOF once exec succeeded */
	int status;     /* wait status once reaped */
	int reaped;
};

/*
 * Find argv[0] like execvp does, before anything is forked.  0, -ENOENT (not found:
 * exit 127) or -EACCES (found but not executable: exit 126).  *ret_path is malloc'd.
 */
int workload__resolve(const char *file, char **ret_path);

/* Fill id from the password database.  0, -ENOENT for an unknown uid. */
int workload_identity__from_uid(struct workload_identity *id, uid_t uid);

/*
 * Fork the corked child that will exec path with argv, as id (NULL: unchanged): it
 * then gets the user's uid, gid and supplementary groups, HOME/USER/LOGNAME/SHELL,
 * no capabilities in any set (bounding and ambient too) and no_new_privs.
 * 0 or -errno.
 */
int workload__prepare(struct workload *wl, const char *path, char **argv,
		      const struct workload_identity *id);

enum workload_stage {
	WORKLOAD_STAGE_EXEC = 1,        /* execv() failed */
	WORKLOAD_STAGE_IDENTITY,        /* becoming the user failed */
};

/*
 * Uncork and wait for exec: 0, or the child's failure as -errno with *ret_stage
 * saying at which step (child reaped).
 */
int workload__start(struct workload *wl, enum workload_stage *ret_stage);

/* Reap without blocking: 1 when the child has exited (wl->status set), 0 if running. */
int workload__poll(struct workload *wl);

/* Stop a still-running workload: SIGTERM, then SIGKILL after grace_ms; reaps it. */
void workload__stop(struct workload *wl, int grace_ms);

/* Shell-like exit code of a reaped workload: its status, or 128+signal. */
int workload__exit_code(const struct workload *wl);

#endif
