/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof/cli/commands.h"
#include "prof/sys/procfs.h"
#include "prof/base/util.h"
#include "prof/cli/record_config.h"
#include "prof/record/session.h"

/*
 * A record stamped t may still be invisible in its ring buffer shortly after t (the
 * kernel stamps it before it commits it).  Records are judged only once they are
 * this much older than the moment the buffers were read.
 */
#define ROUND_SLACK_NS (50ull * 1000 * 1000)
/* Short, so that tasks met for the first time are looked up in /proc soon after
 * their first sample: the shorter this, the fewer short-lived ones are missed. */
#define POLL_MS 25
/* Right after the start every task is one met for the first time, and those about to
 * exit are gone within milliseconds: drain very often for a moment. */
#define START_POLL_MS 1
#define START_PHASE_NS (300ull * 1000 * 1000)
/* Unwinding (--call-graph dwarf) can take long on a busy host: a round stops after
 * this long and the ring buffers are read before it goes on, so they do not overflow. */
#define UNWIND_SLICE_NS (20ull * 1000 * 1000)

static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t child_exited;

static void on_stop_signal(int sig)
{
	stop_signal = sig;
}

static void on_sigchld(int sig)
{
	child_exited = 1;
}

int record__stop_signal(void)
{
	return stop_signal;
}

static int emit(const void *rec, size_t len, void *ctx)
{
	struct record *r = ctx;
	int err;

	if (r->write_err)
		return r->write_err;
	/* the unwinder knows each process's maps as the sink is told them */
	err = r->unwinder ? unwinder__note(r->unwinder, rec) : 0;
	if (err == 0)
		err = r->sink(rec, len, r->sink_ctx);
	if (err < 0) {
		r->write_err = err;
		return err;
	}
	r->st.records++;
	return 0;
}

/* What synth__task emits while describing a task: written, and its maps remembered. */
static int emit_described(const void *rec, size_t len, void *ctx)
{
	struct record *r = ctx;
	const struct perf_record_mmap2 *m = rec;

	if (m->header.type == PERF_RECORD_MMAP2 &&
	    map_dedup__add(r->dedup, (int32_t)m->pid, r->synth_until, m->start, m->len, m->pgoff) < 0)
		return -ENOMEM;
	return emit(rec, len, ctx);
}

/* Give the file what the tracker says it needs before the record: a cgroup's path,
 * a pre-existing task's comm and maps (read from /proc now). */
static int provide(struct record *r, const struct ledger_need *need, uint64_t time)
{
	struct synth_task task;
	int err;

	if (need->cgroup) {
		err = synth__cgroup(&r->synth, need->cgroup, need->cgroup_path, time, emit, r);
		if (err < 0)
			return err;
	}
	if (!need->what)
		return 0;
	if (need->pre_exec && (need->what & SYNTH_COMM)) {
		/* The name it had then; /proc names what it exec'd since. */
		err = synth__comm(&r->synth, need->pid, need->tid, need->comm ? need->comm : "prof", time, emit, r);
		if (err < 0)
			return err;
		return ledger__described(r->ledger, need, 0);
	}
	err = synth__read_task(&r->synth, need->pid, need->tid, need->what, &task);
	if (err == 0) {
		/* Kernel MMAP2s stamped up to the end of the /proc read repeat what it found. */
		r->synth_until = task.read_done;
		err = synth__task(&r->synth, &task, time, emit_described, r);
	}
	synth_task__release(&task);
	if (r->write_err)
		return r->write_err;
	if (err == -ESRCH && (need->what & SYNTH_COMM) && need->comm) {
		/* Gone since it was first looked up: the comm read then still names it. */
		err = synth__comm(&r->synth, need->pid, need->tid, need->comm, time, emit, r);
		if (err < 0)
			return err;
		err = -ESRCH;   /* the maps are still unknown */
	}
	/* Gone, or unreadable: the sample is kept, perf shows it by pid. */
	if (err < 0)
		r->st.synth_gone++;
	else
		r->st.synth_tasks++;
	return ledger__described(r->ledger, need, err);
}

static int deliver(const struct perf_event_header *ev, uint64_t time, void *ctx)
{
	struct record *r = ctx;
	struct judgement j;
	struct ledger_need need;
	int v, err;

	v = tracker__judge(r->tracker, ev, time, &j);
	if (v < 0)
		return v;
	err = ledger__note(r->ledger, ev, v, &j, time, &need);
	if (err < 0)
		return err;
	if (v != TRACKER_WRITE)
		return 0;
	err = provide(r, &need, time);
	if (err < 0)
		return err;
	if (ev->type == PERF_RECORD_COMM && (ev->misc & PERF_RECORD_MISC_COMM_EXEC))
		map_dedup__forget(r->dedup, (int32_t)((const struct perf_record_comm *)(const void *)ev)->pid);
	if (ev->type == PERF_RECORD_MMAP2 && ev->size >= offsetof(struct perf_record_mmap2, filename)) {
		const struct perf_record_mmap2 *m = (const void *)ev;
		if (map_dedup__repeats(r->dedup, (int32_t)m->pid, time, m->start, m->len, m->pgoff))
			return 0;
	}
	if (ev->type == PERF_RECORD_LOST && ev->size >= sizeof(struct perf_record_lost))
		r->st.lost += ((const struct perf_record_lost *)(const void *)ev)->lost;
	else if (ev->type == PERF_RECORD_LOST_SAMPLES && ev->size >= sizeof(struct perf_record_lost_samples))
		r->st.lost_samples += ((const struct perf_record_lost_samples *)(const void *)ev)->lost;
	if (r->unwinder && ev->type == PERF_RECORD_SAMPLE) {
		/* the stack unwound now: a callchain is passed on, not the registers and stack */
		int len = unwinder__rewrite(r->unwinder, ev, r->unwound, r->unwound_len);
		if (len < 0) {
			r->st.malformed++;
			return 0;
		}
		err = emit(r->unwound, (size_t)len, r);
		if (err == 0 && clock_mono_ns() > r->round_deadline)
			return 1;       /* pause the round (flush_round) */
		return err;
	}
	return emit(ev, ev->size, r);
}

static int peek(const struct perf_event_header *ev, void *ctx)
{
	struct record *r = ctx;
	int ret = tracker__prefetch(r->tracker, ev);

	/* The sample's task was gone and its EXIT may lie past where this pass read
	 * some ring buffer: it must not be judged before the next pass. */
	if (ret > 0) {
		r->hold = MIN(r->hold, sample_layout__time(r->layout, ev));
		ret = 0;
	}
	return ret;
}

/*
 * Judge and write everything older than upto, then mark the round for perf.  With
 * an unwinder and a slice, the round may stop early (r->round_paused): what is left
 * goes in the next one.
 */
static int flush_round(struct record *r, uint64_t upto, uint64_t slice)
{
	uint64_t before = r->st.records;
	int err;

	r->round_deadline = slice ? clock_mono_ns() + slice : UINT64_MAX;
	err = ordered_queue__flush(r->queue, upto, deliver, r);
	r->round_paused = err > 0;
	if (err > 0)
		err = 0;
	if (err < 0)
		return err;
	if (r->st.records != before) {
		struct perf_event_header round = { .type = PERF_RECORD_FINISHED_ROUND,
						   .size = sizeof(round) };
		err = emit(&round, sizeof(round), r);
	}
	return err;
}

void record__explain_no_privilege(const char *why, int paranoid)
{
	char hint[4200];

	privs__setcap_hint(hint, sizeof(hint));
	fprintf(stderr,
		"prof: not allowed to open system-wide perf events (%s).\n"
		"  They need CAP_PERFMON (or CAP_SYS_ADMIN), or kernel.perf_event_paranoid <= 0; it is %d here.\n"
		"  Run prof as root, or give the binary the capabilities:\n"
		"    %s\n"
		"  or lower the sysctl: sudo sysctl kernel.perf_event_paranoid=0\n",
		why, paranoid, hint);
}

static void explain_open_error(const struct record *r, int err, enum events_stage stage)
{
	const char *what = stage == EVENTS_STAGE_SIDEBAND ? "the sideband (task tracking) event"
			   : stage == EVENTS_STAGE_MMAP   ? "the ring buffers"
			   : stage == EVENTS_STAGE_IDS    ? "the event ids"
							    : "the sampling event";

	if (err == -EACCES || err == -EPERM) {
		if (stage == EVENTS_STAGE_MMAP) {
			fprintf(stderr,
				"prof: cannot map %u pages per CPU of ring buffer: %s\n"
				"  Use a smaller -m, or raise kernel.perf_event_mlock_kb (sysctl -w kernel.perf_event_mlock_kb=...).\n",
				r->opts.mmap_pages, strerror(-err));
			return;
		}
		record__explain_no_privilege(strerror(-err), r->privs.paranoid);
		return;
	}
	if (err == -EMFILE || err == -ENFILE) {
		fprintf(stderr,
			"prof: out of file descriptors opening %s: prof needs 2 per CPU, %d in all here.\n"
			"  Raise the limit (ulimit -n) and retry.\n",
			what, 2 * (int)sysconf(_SC_NPROCESSORS_ONLN));
		return;
	}
	if (stage == EVENTS_STAGE_SAMPLING &&
	    (err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV || err == -ENXIO)) {
		fprintf(stderr,
			"prof: event '%s' is not supported on this machine (%s); try -e cpu-clock.\n",
			r->opts.event.name, strerror(-err));
		return;
	}
	if (stage == EVENTS_STAGE_SAMPLING && err == -EINVAL) {
		fprintf(stderr,
			"prof: the kernel rejected event '%s' with these settings (%s): check -F/-c and the event's modifiers.\n",
			r->opts.event.name, strerror(-err));
		return;
	}
	if (stage == EVENTS_STAGE_MMAP && err == -ENOMEM) {
		fprintf(stderr, "prof: cannot map %u pages per CPU of ring buffer: out of memory; use a smaller -m.\n",
			r->opts.mmap_pages);
		return;
	}
	fprintf(stderr, "prof: cannot open %s: %s\n", what, strerror(-err));
}

void record__install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_stop_signal };

	/* No SA_RESTART: poll() returns EINTR and the loop looks at the flags. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_sigchld;
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/*
 * --uid of someone who is not an admin needs the set*uid() tracepoints: without them a
 * process of theirs that becomes root (su, sudo, a set-user-ID program calling
 * setuid(0)) would stay theirs until its next exec, and root's samples would land in
 * their file.  Admins may record any uid anyway: they are warned.  0, or -EPERM after
 * a message.
 */
static int check_creds(const struct record *r, const struct events_info *info)
{
	int e = -info->creds_err;

	if (!r->opts.scope.nr_uids || info->creds)
		return 0;
	if (r->verdict.admin) {
		if (!r->opts.quiet)
			fprintf(stderr,
				"prof: warning: cannot trace set*uid() calls (%s: needs tracefs and the syscalls tracepoints);\n"
				"  a process that changes uid without exec is judged by its uid at its next exec.\n",
				strerror(e));
		return 0;
	}
	fprintf(stderr,
		"prof: --uid cannot be recorded here: prof cannot follow set*uid() calls, because %s (%s).\n"
		"  Without them a process that becomes another user (su, sudo, a set-user-ID program) would\n"
		"  stay yours, and that user's samples would land in your file; prof refuses instead.\n"
		"  An admin can make tracefs readable to a group of yours:\n"
		"    sudo mount -o remount,gid=GROUP,mode=0750 /sys/kernel/tracing   (or the same in /etc/fstab)\n"
		"  or run prof as root.  Or record your command (prof record -- CMD) or a cgroup of yours.\n",
		e == EACCES || e == EPERM ? "tracefs (/sys/kernel/tracing) is not readable by you"
		: e == ENOENT ? "tracefs is not mounted or the kernel has no syscalls tracepoints"
			      : "the syscalls tracepoints cannot be opened",
		strerror(e));
	return -EPERM;
}

static int start_tracker(struct record *r)
{
	const struct events_info *info = events__info(r->events);
	const struct events_creds *creds;
	struct tracker_config cfg = {
		.scope = &r->opts.scope,
		.layout = r->layout,
		.proc_fd = r->synth.proc_fd,
		.cgroup_fd = r->cgroup_fd,
		.cgroups = r->cgroups,
		.creds_events = info->creds,
		.restrict_uid = r->verdict.restrict_uid,
		.only_uid = r->verdict.uid,
		.raw_uid_off = info->raw_uid_off,
	};
	size_t n;
	int err;

	err = check_creds(r, info);
	if (err < 0)
		return err;
	err = cgroups__new(&r->opts.scope, r->cgroup_fd, &r->cgroups);
	if (err == 0) {
		cfg.cgroups = r->cgroups;
		r->ledger = ledger__new(r->cgroups);
		err = r->ledger ? tracker__new(&cfg, &r->tracker) : -ENOMEM;
	}
	if (err < 0) {
		fprintf(stderr, "prof: cannot set up the scope: %s\n", strerror(-err));
		return err;
	}
	n = events__creds(r->events, &creds);
	for (size_t i = 0; i < n; i++) {
		err = tracker__add_creds_ids(r->tracker, (enum creds_call)creds[i].call, creds[i].ids, creds[i].nr_ids);
		if (err < 0)
			return err;
	}
	if (r->opts.scope.workload) {
		err = tracker__add_tree_root(r->tracker, r->opts.scope.workload);
		if (err < 0)
			return err;
	}
	if (r->has_workload) {
		/* Forked from prof and corked: prof's name until it execs. */
		char comm[16] = "";
		_cleanup_free_ char *self = NULL;

		if (read_file_full(AT_FDCWD, "/proc/self/comm", 64, &self) > 0)
			procfs__comm(self, comm);
		ledger__set_workload(r->ledger, r->wl.pid, comm[0] ? comm : "prof");
	}
	return 0;
}

int record__open_events(struct record *r)
{
	enum events_stage stage = EVENTS_STAGE_NONE;
	int err;

	err = events__new(&r->opts, &r->events, &stage);
	if (err < 0) {
		explain_open_error(r, err, stage);
		return err;
	}
	r->layout = events__layout(r->events);
	if (events__info(r->events)->fell_back && r->opts.event_given && !r->opts.quiet)
		fprintf(stderr, "prof: %s is not supported here (no PMU); sampling cpu-clock instead.\n",
			r->opts.event.name);
	if (events__info(r->events)->freq_lowered)
		fprintf(stderr, "prof: -F %" PRIu64 " is above kernel.perf_event_max_sample_rate; using %" PRIu64 ".\n",
			r->opts.freq, events__info(r->events)->freq);
	if (r->opts.dwarf) {
		size_t nr;

		r->unwinder = unwinder__new(events__attrs(r->events, &nr)[0].attr.sample_type);
		r->unwound_len = UINT16_MAX + 8 * (UNWIND_MAX_FRAMES + 2);
		r->unwound = malloc(r->unwound_len);
		if (!r->unwinder || !r->unwound) {
			fprintf(stderr, "prof: out of memory\n");
			return -ENOMEM;
		}
	}
	return 0;
}

int record__start(struct record *r)
{
	const struct perf_data_event *evs;
	size_t nr;
	int err;

	evs = events__attrs(r->events, &nr);
	r->synth = (struct synth_env){ .sample_type = evs[0].attr.sample_type, .id = 0 };
	r->synth.proc_fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r->synth.proc_fd < 0) {
		err = -errno;
		fprintf(stderr, "prof: cannot open /proc: %s\n", strerror(-err));
		return err;
	}
	/* No kernel map for those the policy keeps away from kernel addresses. */
	err = r->opts.no_kernel ? 0 : synth__kernel_maps(&r->synth, emit, r);
	if (r->write_err) {
		if (r->out.path)
			fprintf(stderr, "prof: cannot write '%s': %s\n", r->out.path, strerror(-r->write_err));
		else
			fprintf(stderr, "prof: %s\n", strerror(-r->write_err));
		return r->write_err;
	}
	if (err == -EPERM && !r->opts.quiet)
		fprintf(stderr, "prof: warning: kernel addresses are hidden (kernel.kptr_restrict); kernel symbols will not resolve.\n");
	return start_tracker(r);
}

void record__free(struct record *r)
{
	events__free(r->events);
	perf_writer__free(r->writer);
	build_id_table__free(r->build_ids);
	ordered_queue__free(r->queue);
	tracker__free(r->tracker);
	ledger__free(r->ledger);
	cgroups__free(r->cgroups);
	map_dedup__free(r->dedup);
	unwinder__free(r->unwinder);
	free(r->unwound);
	if (r->synth.proc_fd >= 0)
		close(r->synth.proc_fd);
	if (r->cgroup_fd >= 0)
		close(r->cgroup_fd);
	record_opts__release(&r->opts);
}

/*
 * Find cgroup2 (also at hybrid locations such as /sys/fs/cgroup/unified), resolve
 * --cgroup arguments, check --pid ones.  Returns 0, or an exit code after a message.
 */
static int resolve_scope(struct record *r)
{
	_cleanup_free_ char *mi = NULL;
	char err[2048];

	if (read_file_full(AT_FDCWD, "/proc/self/mountinfo", 16u << 20, &mi) >= 0 &&
	    scope__cgroup2_mount(mi, r->cgroup_mount, sizeof(r->cgroup_mount)) == 0)
		r->cgroup_fd = open(r->cgroup_mount, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r->opts.scope.nr_cgroups) {
		if (r->cgroup_fd < 0) {
			fprintf(stderr, "prof record: --cgroup needs a cgroup v2 hierarchy, and none is mounted "
				"(mount -t cgroup2 none /sys/fs/cgroup/unified).\n");
			return EXIT_PROF_USAGE;
		}
		if (scope__resolve_cgroups(&r->opts.scope, r->cgroup_fd, r->cgroup_mount, err, sizeof(err)) < 0) {
			fprintf(stderr, "prof record: %s\n", err);
			return EXIT_PROF_USAGE;
		}
	}
	for (size_t i = 0; i < r->opts.scope.nr_pids; i++) {
		char path[32];
		snprintf(path, sizeof(path), "/proc/%d", r->opts.scope.pids[i]);
		if (access(path, F_OK) < 0) {
			fprintf(stderr, "prof record: no process with pid %d\n", r->opts.scope.pids[i]);
			return EXIT_PROF_USAGE;
		}
	}
	return 0;
}

int record__prepare(struct record *r)
{
	int ret;

	if (privs__probe(&r->privs) < 0 || !privs__can_record_system_wide(&r->privs)) {
		/* Said before anything is opened or created. */
		record__explain_no_privilege("this process holds neither CAP_PERFMON nor CAP_SYS_ADMIN",
					     r->privs.paranoid);
		return EXIT_PROF_FAIL;
	}
	ret = record_config__apply(&r->opts, &r->privs, &r->cfg, r->output_buf, sizeof(r->output_buf));
	if (ret)
		return ret;
	ret = resolve_scope(r);
	if (ret)
		return ret;
	ret = record_config__policy(&r->opts, &r->cfg, &r->privs, r->cgroup_fd, &r->verdict);
	if (ret)
		return ret;
	if (r->verdict.admin && !r->opts.all && !r->privs.sys_ptrace && !r->privs.perfmon && !r->opts.quiet)
		fprintf(stderr, "prof: warning: without CAP_SYS_PTRACE the maps of other users' tasks cannot be read: their user-space symbols may not resolve.\n");
	return 0;
}

int record__step(struct record *r)
{
	uint64_t now;
	int err;

	err = events__poll(r->events, r->round_paused ? 0
			     : clock_mono_ns() - r->start_ns < START_PHASE_NS ? START_POLL_MS : POLL_MS);
	if (err < 0 && err != -EINTR)
		return err;
	now = clock_mono_ns();
	r->hold = UINT64_MAX;
	err = events__drain(r->events, r->queue, peek, r);
	if (err < 0)
		return err;
	return flush_round(r, MIN(now > ROUND_SLACK_NS ? now - ROUND_SLACK_NS : 0, r->hold ? r->hold - 1 : 0),
			   UNWIND_SLICE_NS);
}

int record__drain_all(struct record *r)
{
	int err;

	events__disable(r->events);
	r->hold = UINT64_MAX;
	err = events__drain(r->events, r->queue, peek, r);
	/* a task found gone: its EXIT may wait past where a buffer was read */
	if (err >= 0 && r->hold != UINT64_MAX)
		err = events__drain(r->events, r->queue, peek, r);
	if (err < 0)
		return err;
	return flush_round(r, UINT64_MAX, 0);
}
