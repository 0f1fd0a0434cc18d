/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <cap-ng.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "prof/base/util.h"
#include "prof/sys/workload.h"

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

int workload_identity__from_uid(struct workload_identity *id, uid_t uid)
{
	struct passwd pw, *res = NULL;
	char buf[4096];

	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &res) != 0 || !res)
		return -ENOENT;
	*id = (struct workload_identity){ .as_user = true, .uid = uid, .gid = res->pw_gid };
	snprintf(id->name, sizeof(id->name), "%s", res->pw_name);
	snprintf(id->home, sizeof(id->home), "%s", res->pw_dir && res->pw_dir[0] ? res->pw_dir : "/");
	snprintf(id->shell, sizeof(id->shell), "%s", res->pw_shell && res->pw_shell[0] ? res->pw_shell : "/bin/sh");
	return 0;
}

/* In the child: become the user, with nothing of prof's privileges left. */
static int become(const struct workload_identity *id)
{
	capng_clear(CAPNG_SELECT_ALL);
	/* setresgid/setresuid with the supplementary groups of the user (initgroups),
	 * bounding and ambient sets emptied, no capabilities kept. */
	if (capng_change_id((int)id->uid, (int)id->gid,
			    CAPNG_INIT_SUPP_GRP | CAPNG_CLEAR_BOUNDING | CAPNG_CLEAR_AMBIENT) < 0)
		return errno ? errno : EPERM;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return errno;
	if (setenv("HOME", id->home, 1) < 0 || setenv("USER", id->name, 1) < 0 ||
	    setenv("LOGNAME", id->name, 1) < 0 || setenv("SHELL", id->shell, 1) < 0)
		return ENOMEM;
	return 0;
}

/* What the child tells its parent when it cannot exec: step and errno. */
struct child_error {
	int stage;
	int err;
};

int workload__prepare(struct workload *wl, const char *path, char **argv,
		      const struct workload_identity *id)
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
		struct child_error ce = { .stage = WORKLOAD_STAGE_IDENTITY };
		if (id && id->as_user && (e = become(id)) != 0) {
			ce.err = e;
		} else {
			execv(path, argv);
			ce = (struct child_error){ .stage = WORKLOAD_STAGE_EXEC, .err = errno };
		}
		if (write(err[1], &ce, sizeof(ce)) < 0) {
			/* prof is gone: nothing to report to */
		}
		_exit(ce.stage == WORKLOAD_STAGE_EXEC && ce.err == ENOENT ? 127 : 126);
	}
	close(cork[0]);
	close(err[1]);
	*wl = (struct workload){ .pid = pid, .cork_fd = cork[1], .err_fd = err[0] };
	return 0;
}

int workload__start(struct workload *wl, enum workload_stage *ret_stage)
{
	struct child_error ce = { 0 };
	ssize_t r;

	if (write(wl->cork_fd, "g", 1) != 1) {
		int err = -errno;
		close(steal_fd(&wl->cork_fd));
		return err;
	}
	close(steal_fd(&wl->cork_fd));
	do
		r = read(wl->err_fd, &ce, sizeof(ce));
	while (r < 0 && errno == EINTR);
	close(steal_fd(&wl->err_fd));
	if (r == (ssize_t)sizeof(ce)) {
		while (waitpid(wl->pid, &wl->status, 0) < 0 && errno == EINTR)
			;
		wl->reaped = 1;
		*ret_stage = (enum workload_stage)ce.stage;
		return -(ce.err ? ce.err : EIO);
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
