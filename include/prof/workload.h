/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The command prof runs and records: forked before the events are opened (so it
 * inherits none of their fds), held on a "cork" until recording is armed, so its
 * first instructions are sampled.
 */
#ifndef PROF_WORKLOAD_H
#define PROF_WORKLOAD_H

#include <sys/types.h>

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

/* Fork the corked child that will exec path with argv.  0 or -errno. */
int workload__prepare(struct workload *wl, const char *path, char **argv);

/* Uncork and wait for exec: 0, or the child's exec failure as -errno (child reaped). */
int workload__start(struct workload *wl);

/* Reap without blocking: 1 when the child has exited (wl->status set), 0 if running. */
int workload__poll(struct workload *wl);

/* Stop a still-running workload: SIGTERM, then SIGKILL after grace_ms; reaps it. */
void workload__stop(struct workload *wl, int grace_ms);

/* Shell-like exit code of a reaped workload: its status, or 128+signal. */
int workload__exit_code(const struct workload *wl);

#endif
