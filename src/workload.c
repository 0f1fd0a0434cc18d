/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "prof/util.h"
#include "prof/workload.h"

static int check_exec(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EACCES;
	if (access(path, X_OK) < 0)
		return -errno;
	return 0;
}

int workload__resolve(const char *file, char **ret_path)
{
	const char *path_env, *p;
	int first_err = -ENOENT;

	if (!file || !file[0])
		return -ENOENT;
	if (strchr(file, '/')) {
		int r = check_exec(file);
		if (r < 0)
			return r == -ENOTDIR ? -ENOENT : r;
		*ret_path = strdup(file);
		return *ret_path ? 0 : -ENOMEM;
	}
	path_env = getenv("PATH");
	if (!path_env)
		path_env = "/usr/local/bin:/usr/bin:/bin";
	for (p = path_env;; ) {
		const char *colon = strchr(p, ':');
		size_t len = colon ? (size_t)(colon - p) : strlen(p);
		_cleanup_free_ char *cand = NULL;

		if (asprintf(&cand, "%.*s%s%s", (int)len, p, len ? "/" : "", file) < 0)
			return -ENOMEM;
		int r = check_exec(cand);
		if (r == 0) {
			*ret_path = steal_pointer(&cand);
			return 0;
		}
		/* Like execvp: a file found but not executable wins over "not found". */
		if (r == -EACCES)
			first_err = -EACCES;
		if (!colon)
			break;
		p = colon + 1;
	}
	return first_err;
}

int workload__prepare(struct workload *wl, const char *path, char **argv)
{
	int cork[2], err[2];
	pid_t pid;

	if (pipe2(cork, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(err, O_CLOEXEC) < 0) {
		int r = -errno;
		close(cork[0]);
		close(cork[1]);
		return r;
	}
	pid = fork();
	if (pid < 0) {
		int r = -errno;
		close(cork[0]), close(cork[1]), close(err[0]), close(err[1]);
		return r;
	}
	if (pid == 0) {
		char c;
		int e;

		close(cork[1]);
		close(err[0]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGCHLD, SIG_DFL);
		/* One byte means "go"; EOF means prof gave up or died: do not run. */
		if (read(cork[0], &c, 1) != 1)
			_exit(127);
		execv(path, argv);
		e = errno;
		if (write(err[1], &e, sizeof(e)) < 0) {
			/* prof is gone: nothing to report to */
		}
		_exit(e == ENOENT ? 127 : 126);
	}
	close(cork[0]);
	close(err[1]);
	*wl = (struct workload){ .pid = pid, .cork_fd = cork[1], .err_fd = err[0] };
	return 0;
}

int workload__start(struct workload *wl)
{
	int e = 0;
	ssize_t r;

	if (write(wl->cork_fd, "g", 1) != 1) {
		int err = -errno;
		close(steal_fd(&wl->cork_fd));
		return err;
	}
	close(steal_fd(&wl->cork_fd));
	do
		r = read(wl->err_fd, &e, sizeof(e));
	while (r < 0 && errno == EINTR);
	close(steal_fd(&wl->err_fd));
	if (r == (ssize_t)sizeof(e)) {
		while (waitpid(wl->pid, &wl->status, 0) < 0 && errno == EINTR)
			;
		wl->reaped = 1;
		return -e;
	}
	return 0;
}

int workload__poll(struct workload *wl)
{
	pid_t r;

	if (wl->reaped)
		return 1;
	r = waitpid(wl->pid, &wl->status, WNOHANG);
	if (r == wl->pid) {
		wl->reaped = 1;
		return 1;
	}
	return 0;
}

void workload__stop(struct workload *wl, int grace_ms)
{
	if (wl->pid <= 0 || workload__poll(wl))
		return;
	kill(wl->pid, SIGTERM);
	for (int waited = 0; waited < grace_ms; waited += 10) {
		if (workload__poll(wl))
			return;
		nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000 * 1000 }, NULL);
	}
	kill(wl->pid, SIGKILL);
	while (waitpid(wl->pid, &wl->status, 0) < 0 && errno == EINTR)
		;
	wl->reaped = 1;
}

int workload__exit_code(const struct workload *wl)
{
	if (WIFEXITED(wl->status))
		return WEXITSTATUS(wl->status);
	if (WIFSIGNALED(wl->status))
		return 128 + WTERMSIG(wl->status);
	return 1;
}
