/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tracepoint events beside the sampling ones (events_internal.h): the set*uid()
 * syscalls' for a uid scope, --off-cpu's sched ones, and the child that takes their
 * slow last close off prof's exit.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <perf/cpumap.h>
#include <perf/evlist.h>
#include <perf/evsel.h>

#include "prof/offcpu/offcpu_events.h"
#include "prof/sys/tracefs.h"
#include "prof/scope/creds.h"
#include "prof/base/util.h"
#include "events_internal.h"

/*
 * The set*uid() syscall tracepoints: how a uid scope sees a process change its real
 * uid without exec.  Optional: without them prof re-reads the uid at exec.
 */
int events__open_creds(struct events *e)
{
	/*
	 * The entries only: their records are judged a round after the call returned,
	 * when /proc tells how it went.  Fewer tracepoints also means less to tear down
	 * at exit (each waits for an RCU grace period).
	 */
	static const struct {
		const char *event, *field;
		int call;
	} tp[] = {
		{ "sys_enter_setuid", "uid", CREDS_SETUID },
		{ "sys_enter_setreuid", "ruid", CREDS_SETREUID },
		{ "sys_enter_setresuid", "ruid", CREDS_SETRESUID },
	};
	struct perf_evsel *evsels[ARRAY_SIZE(tp)] = { 0 };
	char dir[4096];
	int err, off, n = perf_cpu_map__nr(e->cpus);

	err = tracefs__dir(dir, sizeof(dir));
	if (err < 0)
		return err;
	for (size_t i = 0; i < ARRAY_SIZE(tp); i++) {
		unsigned long long id;
		struct perf_event_attr a;

		err = tracefs__event(dir, "syscalls", tp[i].event, tp[i].field, &id, &off);
		if (err < 0)
			return err;
		if (i && off != e->info.raw_uid_off)
			return -EINVAL;         /* the tracker reads one offset for all three */
		e->info.raw_uid_off = off;
		a = (struct perf_event_attr){
			.size = sizeof(a),
			.type = PERF_TYPE_TRACEPOINT,
			.config = id,
			.sample_period = 1,
			/* same fixed fields as the sampling event, then RAW */
			.sample_type = (SAMPLE_TYPE_BASE & ~(uint64_t)PERF_SAMPLE_CGROUP) | PERF_SAMPLE_RAW,
			.read_format = PERF_FORMAT_ID,
			.disabled = 1,
			.sample_id_all = 1,
			.use_clockid = 1,
			.clockid = CLOCK_MONOTONIC,
		};
		evsels[i] = perf_evsel__new(&a);
		if (!evsels[i])
			return -ENOMEM;
		err = events__open_evsel(e, evsels[i]);
		if (err < 0)
			return err;
	}
	for (size_t i = 0; i < ARRAY_SIZE(tp); i++) {
		err = events__evsel_ids(e, evsels[i], &e->creds_ids[i]);
		if (err < 0)
			return err;
		e->creds[i] = (struct events_creds){ .call = tp[i].call, .ids = e->creds_ids[i],
						       .nr_ids = (size_t)n };
	}
	e->nr_creds = ARRAY_SIZE(tp);
	e->info.creds = true;
	return 0;
}

/*
 * --off-cpu's sched tracepoints, per CPU into the rings: sched_wakeup (a sleep's
 * wake-up: its blocked part ends, its wait for a CPU begins) and sched_migrate_task
 * (a waiting thread moved to another CPU).  Optional, both or neither: without them
 * (tracefs not readable by this user, no such tracepoint) the wake-up is inside
 * offcpu-blocked, as before.  The fields are found in tracefs' format files.
 */
int events__open_wakeups(struct events *e)
{
	static const char *const tp[2] = { "sched_wakeup", "sched_migrate_task" };
	struct offcpu_wakeups *w = &e->info.wakeups;
	unsigned long long id[2], other;
	char dir[4096];
	int err;

	err = tracefs__dir(dir, sizeof(dir));
	if (err == 0)
		err = tracefs__event(dir, "sched", tp[0], "pid", &id[0], &w->wake_pid_off);
	if (err == 0)
		err = tracefs__event(dir, "sched", tp[0], "target_cpu", &other, &w->wake_cpu_off);
	if (err == 0)
		err = tracefs__event(dir, "sched", tp[1], "pid", &id[1], &w->migrate_pid_off);
	if (err == 0)
		err = tracefs__event(dir, "sched", tp[1], "orig_cpu", &other, &w->migrate_orig_off);
	if (err == 0)
		err = tracefs__event(dir, "sched", tp[1], "dest_cpu", &other, &w->migrate_dest_off);
	for (int i = 0; i < 2 && err == 0; i++) {
		struct perf_event_attr a = {
			.size = sizeof(a),
			.type = PERF_TYPE_TRACEPOINT,
			.config = id[i],
			.sample_period = 1,
			.sample_type = OFFCPU_TP_SAMPLE_TYPE,
			.read_format = PERF_FORMAT_ID,
			.disabled = 1,
			.sample_id_all = 1,
			.use_clockid = 1,
			.clockid = CLOCK_MONOTONIC,
		};

		e->wake_sel[i] = perf_evsel__new(&a);
		err = e->wake_sel[i] ? events__open_evsel(e, e->wake_sel[i]) : -ENOMEM;
	}
	if (err < 0) {
		/* what was added goes: no tracepoint of theirs in the rings */
		for (int i = 0; i < 2; i++)
			if (e->wake_sel[i]) {
				perf_evsel__close(e->wake_sel[i]);
				perf_evlist__remove(e->evlist, e->wake_sel[i]);
				perf_evsel__delete(e->wake_sel[i]);
				e->wake_sel[i] = NULL;
			}
		w->err = err;
	}
	return err;
}

/* After the rings are mapped: the tracepoints' ids, into info.wakeups. */
int events__read_wakeup_ids(struct events *e)
{
	struct offcpu_wakeups *w = &e->info.wakeups;
	size_t n = (size_t)perf_cpu_map__nr(e->cpus);

	for (int i = 0; i < 2; i++) {
		int err = events__evsel_ids(e, e->wake_sel[i], &e->wake_ids[i]);

		if (err < 0)
			return err;
	}
	w->wake_ids = e->wake_ids[0];
	w->nr_wake_ids = n;
	w->migrate_ids = e->wake_ids[1];
	w->nr_migrate_ids = n;
	return 0;
}

/* Is fd one of the tracepoint events (set*uid(), --off-cpu's sched ones)?  Told by the
 * id the kernel gave it. */
static bool is_creds_fd(const struct events *e, int fd)
{
	size_t n = (size_t)e->info.nr_cpus;
	uint64_t id;

	if (!perf_event_fd__id(fd, &id))
		return false;
	for (size_t i = 0; i < e->nr_creds; i++)
		for (size_t c = 0; c < e->creds[i].nr_ids; c++)
			if (e->creds[i].ids[c] == id)
				return true;
	for (size_t i = 0; i < 2; i++)
		for (size_t c = 0; e->wake_ids[i] && c < n; c++)
			if (e->wake_ids[i][c] == id)
				return true;
	return false;
}

/* The closing child, right after the fork: keep only the tracepoints' fds and `keep`. */
static void keep_only_creds(const struct events *e, int keep)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		int fd = atoi(de->d_name);

		if (de->d_name[0] == '.' || fd == dirfd(d) || fd == keep || is_creds_fd(e, fd))
			continue;
		close(fd);
	}
	closedir(d);
}

/*
 * The last close of each tracepoint event (set*uid(), --off-cpu's sched ones) waits
 * for an RCU grace period (tracepoint_synchronize_unregister(), ~35-45 ms here, one
 * after the other: closing them from several threads takes as long).  Nobody should
 * wait for that: a child takes the last references.  Forked at the end (the file complete and closed, the
 * ring buffers unmapped), it keeps only those fds, leaves the session and the
 * terminal's process group, waits until this process has closed its own copies (EOF
 * on the pipe), then closes them and exits; init reaps it.  Without it (fork fails),
 * they are closed here, the slow way.
 */
void events__close_creds_later(struct events *e)
{
	int p[2];
	pid_t pid;
	char c;

	e->release_fd = -1;
	if ((!e->nr_creds && !e->wake_ids[0]) || pipe2(p, O_CLOEXEC) < 0)
		return;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return;
	}
	if (pid > 0) {
		close(p[0]);
		e->release_fd = p[1];
		return;
	}
	/* named so that one can tell it (tests/integration/record/fds.sh looks for it) */
	prctl(PR_SET_NAME, "prof-closing");
	setsid();
	close(p[1]);
	keep_only_creds(e, p[0]);
	while (read(p[0], &c, 1) < 0 && errno == EINTR)
		;
	close_range(0, ~0u, 0);         /* the last references: the waits are here */
	_exit(0);
}
