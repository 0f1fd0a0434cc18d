/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * prof record: arm the events, run the workload, merge every CPU's records in time
 * order, decide per record what goes to the file, describe tasks the first time they
 * matter, and leave a valid perf.data whatever stops the recording.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "prof/commands.h"
#include "prof/ordered.h"
#include "prof/perf_data.h"
#include "prof/record_features.h"
#include "prof/record_opts.h"
#include "prof/record_output.h"
#include "prof/recorder.h"
#include "prof/synth.h"
#include "prof/task_table.h"
#include "prof/util.h"
#include "prof/workload.h"

/*
 * A record stamped t may still be invisible in its ring buffer shortly after t (the
 * kernel stamps it before it commits it).  Records are judged only once they are
 * this much older than the moment the buffers were read.
 */
#define ROUND_SLACK_NS (50ull * 1000 * 1000)
#define POLL_MS 100

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

struct record_stats {
	uint64_t samples;               /* written */
	uint64_t out_of_scope;          /* dropped: not in scope */
	uint64_t lost;                  /* PERF_RECORD_LOST: records the ring buffer dropped */
	uint64_t lost_samples;          /* PERF_RECORD_LOST_SAMPLES */
	uint64_t tasks_seen;
	uint64_t synth_tasks;           /* tasks described from /proc */
	uint64_t synth_gone;            /* ... that were gone by then */
	uint64_t records;               /* everything written to the data section */
	uint64_t first_time, last_time;
};

struct record {
	struct record_opts opts;
	struct recorder *rec;
	const struct sample_layout *layout;
	struct ordered_queue *queue;
	struct perf_data_writer *writer;
	struct task_table *tasks;
	struct synth_env synth;
	struct record_output out;
	struct workload wl;
	bool has_workload;
	int write_err;
	uint64_t start_ns;
	struct record_stats st;
};

static int emit(const void *rec, size_t len, void *ctx)
{
	struct record *r = ctx;
	int err;

	if (r->write_err)
		return r->write_err;
	err = perf_data_writer__write(r->writer, rec, len);
	if (err < 0) {
		r->write_err = err;
		return err;
	}
	r->st.records++;
	return 0;
}

static struct task *get_task(struct record *r, int32_t tid, int32_t pid)
{
	bool created;
	struct task *t = task_table__get(r->tasks, tid, &created);

	if (t && created) {
		t->pid = pid;
		r->st.tasks_seen++;
	}
	return t;
}

/*
 * Make sure the file describes task tid (comm) and its process (maps) before its
 * sample: tasks that existed before the recording are read from /proc now, once.
 */
static int describe_task(struct record *r, int32_t pid, int32_t tid, uint64_t time)
{
	struct task *t, *leader;
	unsigned int what = 0;
	int err;

	if (!get_task(r, pid, pid) || !get_task(r, tid, pid))
		return -ENOMEM;
	/* No inserts from here on: both pointers stay valid. */
	leader = task_table__find(r->tasks, pid);
	t = task_table__find(r->tasks, tid);
	if (!(t->flags & (TASK_COMM_KNOWN | TASK_SYNTH_TRIED)))
		what |= SYNTH_COMM;
	if (!(leader->flags & (TASK_MAPS_KNOWN | TASK_MAPS_TRIED)))
		what |= SYNTH_MAPS;
	if (!what)
		return 0;
	t->flags |= TASK_SYNTH_TRIED;
	if (what & SYNTH_MAPS)
		leader->flags |= TASK_MAPS_TRIED;
	err = synth__task(&r->synth, pid, tid, what, time, emit, r);
	if (r->write_err)
		return r->write_err;
	if (err < 0) {
		/* Gone, or unreadable: the sample is kept, perf shows it by pid. */
		r->st.synth_gone++;
		return 0;
	}
	if (what & SYNTH_COMM)
		t->flags |= TASK_COMM_KNOWN;
	if (what & SYNTH_MAPS)
		leader->flags |= TASK_MAPS_KNOWN;
	r->st.synth_tasks++;
	return 0;
}

static bool task_in_scope(struct record *r, int32_t tid)
{
	struct task *t;

	if (r->opts.all)
		return true;
	t = task_table__find(r->tasks, tid);
	return t && (t->flags & TASK_IN_SCOPE);
}

static int on_sample(struct record *r, const struct perf_event_header *ev, uint64_t time)
{
	int32_t pid, tid;
	int err;

	if (!sample_layout__tid(r->layout, ev, &pid, &tid))
		return emit(ev, ev->size, r);
	if (!task_in_scope(r, tid)) {
		r->st.out_of_scope++;
		return 0;
	}
	if (tid > 0 && pid > 0) {
		err = describe_task(r, pid, tid, time);
		if (err < 0)
			return err;
	}
	if (!r->st.first_time)
		r->st.first_time = time;
	r->st.last_time = time;
	r->st.samples++;
	return emit(ev, ev->size, r);
}

static int on_fork(struct record *r, const struct perf_event_header *ev)
{
	const struct perf_record_fork *f = (const void *)ev;
	struct task *parent, *child;
	uint32_t inherit = 0;

	if (ev->size < sizeof(*f))
		return emit(ev, ev->size, r);
	parent = task_table__find(r->tasks, (int32_t)f->ptid);
	if (!r->opts.all && !(parent && (parent->flags & TASK_IN_SCOPE)))
		return 0;
	if (parent) {
		inherit = parent->flags & (TASK_IN_SCOPE | TASK_COMM_KNOWN);
		if (f->pid != f->ppid) {
			/* A new process copies its parent's maps (perf's model too). */
			struct task *pl = task_table__find(r->tasks, (int32_t)f->ppid);
			if (pl && (pl->flags & TASK_MAPS_KNOWN))
				inherit |= TASK_MAPS_KNOWN;
		}
	}
	/* A FORK for a tid we know means the old task is gone: pid reuse. */
	task_table__remove(r->tasks, (int32_t)f->tid);
	child = get_task(r, (int32_t)f->tid, (int32_t)f->pid);
	if (!child)
		return -ENOMEM;
	child->flags = inherit;
	return emit(ev, ev->size, r);
}

static int on_comm(struct record *r, const struct perf_event_header *ev)
{
	const struct perf_record_comm *c = (const void *)ev;
	struct task *t;

	if (ev->size < sizeof(struct perf_event_header) + 8)
		return emit(ev, ev->size, r);
	if (!task_in_scope(r, (int32_t)c->tid))
		return 0;
	t = get_task(r, (int32_t)c->tid, (int32_t)c->pid);
	if (!t)
		return -ENOMEM;
	t->flags |= TASK_COMM_KNOWN;
	if (ev->misc & PERF_RECORD_MISC_COMM_EXEC) {
		/* exec: the kernel now reports every mapping of the new image. */
		struct task *l = get_task(r, (int32_t)c->pid, (int32_t)c->pid);
		if (!l)
			return -ENOMEM;
		l->flags |= TASK_MAPS_KNOWN;
	}
	return emit(ev, ev->size, r);
}

static int on_exit_record(struct record *r, const struct perf_event_header *ev)
{
	const struct perf_record_fork *e = (const void *)ev;
	int err = 0;

	if (ev->size < sizeof(*e))
		return emit(ev, ev->size, r);
	if (task_in_scope(r, (int32_t)e->tid))
		err = emit(ev, ev->size, r);
	/* Records are in time order: nothing of this task can follow its exit. */
	task_table__remove(r->tasks, (int32_t)e->tid);
	return err;
}

/* Sideband records that name a task: written when the task is in scope. */
static int on_task_record(struct record *r, const struct perf_event_header *ev)
{
	uint32_t ids[2];

	if (ev->size < sizeof(*ev) + sizeof(ids))
		return emit(ev, ev->size, r);
	memcpy(ids, ev + 1, sizeof(ids));
	if (!task_in_scope(r, (int32_t)ids[1]))
		return 0;
	return emit(ev, ev->size, r);
}

static int deliver(const struct perf_event_header *ev, uint64_t time, void *ctx)
{
	struct record *r = ctx;

	switch (ev->type) {
	case PERF_RECORD_SAMPLE:
		return on_sample(r, ev, time);
	case PERF_RECORD_FORK:
		return on_fork(r, ev);
	case PERF_RECORD_COMM:
		return on_comm(r, ev);
	case PERF_RECORD_EXIT:
		return on_exit_record(r, ev);
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_NAMESPACES:
		return on_task_record(r, ev);
	case PERF_RECORD_LOST:
		if (ev->size >= sizeof(struct perf_record_lost))
			r->st.lost += ((const struct perf_record_lost *)(const void *)ev)->lost;
		return emit(ev, ev->size, r);
	case PERF_RECORD_LOST_SAMPLES:
		if (ev->size >= sizeof(struct perf_record_lost_samples))
			r->st.lost_samples += ((const struct perf_record_lost_samples *)(const void *)ev)->lost;
		return emit(ev, ev->size, r);
	default:
		/* CGROUP (names every cgroup id samples carry), THROTTLE, ... */
		return emit(ev, ev->size, r);
	}
}

/* Judge and write everything older than upto, then mark the round for perf. */
static int flush_round(struct record *r, uint64_t upto)
{
	uint64_t before = r->st.records;
	int err = ordered_queue__flush(r->queue, upto, deliver, r);

	if (err < 0)
		return err;
	if (r->st.records != before) {
		struct perf_event_header round = { .type = PERF_RECORD_FINISHED_ROUND,
						   .size = sizeof(round) };
		err = emit(&round, sizeof(round), r);
	}
	return err;
}

static int paranoid_level(void)
{
	_cleanup_free_ char *buf = NULL;

	if (read_file_full(AT_FDCWD, "/proc/sys/kernel/perf_event_paranoid", 64, &buf) < 0)
		return 99;
	return atoi(buf);
}

static void explain_open_error(const struct record *r, int err, enum recorder_stage stage)
{
	const char *what = stage == RECORDER_STAGE_SIDEBAND ? "the sideband (task tracking) event"
			   : stage == RECORDER_STAGE_MMAP   ? "the ring buffers"
			   : stage == RECORDER_STAGE_IDS    ? "the event ids"
							    : "the sampling event";

	if (err == -EACCES || err == -EPERM) {
		if (stage == RECORDER_STAGE_MMAP) {
			fprintf(stderr,
				"prof: cannot map %u pages per CPU of ring buffer: %s\n"
				"  Use a smaller -m, or raise kernel.perf_event_mlock_kb (sysctl -w kernel.perf_event_mlock_kb=...).\n",
				r->opts.mmap_pages, strerror(-err));
			return;
		}
		fprintf(stderr,
			"prof: not allowed to open system-wide perf events (%s).\n"
			"  System-wide events need CAP_PERFMON (or CAP_SYS_ADMIN), or kernel.perf_event_paranoid <= -1;\n"
			"  it is %d here.  Run prof as root, or install it with capabilities:\n"
			"    sudo setcap cap_perfmon,cap_sys_ptrace,cap_syslog=ep \"$(command -v prof)\"\n",
			strerror(-err), paranoid_level());
		return;
	}
	if (err == -EMFILE || err == -ENFILE) {
		fprintf(stderr,
			"prof: out of file descriptors opening %s: prof needs 2 per CPU, %d in all here.\n"
			"  Raise the limit (ulimit -n) and retry.\n",
			what, 2 * (int)sysconf(_SC_NPROCESSORS_ONLN));
		return;
	}
	if (stage == RECORDER_STAGE_SAMPLING &&
	    (err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV || err == -ENXIO)) {
		fprintf(stderr,
			"prof: event '%s' is not supported on this machine (%s); try -e cpu-clock.\n",
			r->opts.event.name, strerror(-err));
		return;
	}
	if (stage == RECORDER_STAGE_SAMPLING && err == -EINVAL) {
		fprintf(stderr,
			"prof: the kernel rejected event '%s' with these settings (%s): check -F/-c and the event's modifiers.\n",
			r->opts.event.name, strerror(-err));
		return;
	}
	if (stage == RECORDER_STAGE_MMAP && err == -ENOMEM) {
		fprintf(stderr, "prof: cannot map %u pages per CPU of ring buffer: out of memory; use a smaller -m.\n",
			r->opts.mmap_pages);
		return;
	}
	fprintf(stderr, "prof: cannot open %s: %s\n", what, strerror(-err));
}

static void install_signals(void)
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

static void human_size(uint64_t bytes, char *buf, size_t len)
{
	if (bytes >= 10ull << 20)
		snprintf(buf, len, "%.1f MB", (double)bytes / (1 << 20));
	else if (bytes >= 10ull << 10)
		snprintf(buf, len, "%.1f kB", (double)bytes / 1024);
	else
		snprintf(buf, len, "%" PRIu64 " bytes", bytes);
}

static void status_line(const struct record *r, uint64_t now)
{
	fprintf(stderr, "\r[ prof: %.0fs, %" PRIu64 " samples, %" PRIu64 " tasks, %" PRIu64 " lost ]\033[K",
		(double)(now - r->start_ns) / 1e9, r->st.samples, r->st.tasks_seen,
		r->st.lost + r->st.lost_samples);
	fflush(stderr);
}

static void summary(const struct record *r)
{
	const struct record_stats *s = &r->st;
	char size[32], scope[64] = "";

	human_size(perf_data_writer__file_size(r->writer), size, sizeof(size));
	if (!r->opts.all)
		snprintf(scope, sizeof(scope), ", %" PRIu64 " outside scope", s->out_of_scope);
	fprintf(stderr, "[ prof record: %" PRIu64 " samples written%s, %" PRIu64 " lost, %" PRIu64
		" tasks seen, %s to '%s' ]\n",
		s->samples, scope, s->lost + s->lost_samples, s->tasks_seen, size, r->out.path);
	if (s->lost + s->lost_samples)
		fprintf(stderr,
			"prof: warning: %" PRIu64 " records lost (ring buffer overflow) and %" PRIu64
			" samples dropped by the kernel; use a larger -m or a lower -F.\n",
			s->lost, s->lost_samples);
}

/* The main loop: until the workload ends, a signal, or --duration. */
static int record_loop(struct record *r)
{
	bool tty = !r->opts.quiet && isatty(STDERR_FILENO);
	uint64_t deadline = r->opts.duration > 0 ? r->start_ns + (uint64_t)(r->opts.duration * 1e9) : 0;
	uint64_t next_status = r->start_ns + 1000000000ull;
	int err;

	while (!stop_signal) {
		uint64_t now;

		err = recorder__poll(r->rec, POLL_MS);
		if (err < 0 && err != -EINTR)
			return err;
		now = clock_mono_ns();
		err = recorder__drain(r->rec, r->queue);
		if (err < 0)
			return err;
		err = flush_round(r, now > ROUND_SLACK_NS ? now - ROUND_SLACK_NS : 0);
		if (err < 0)
			return err;
		if (r->has_workload && workload__poll(&r->wl))
			break;
		if (deadline && now >= deadline)
			break;
		if (tty && now >= next_status) {
			status_line(r, now);
			next_status = now + 1000000000ull;
		}
	}
	if (tty)
		fputs("\r\033[K", stderr);
	return 0;
}

/* Stop the events and write out everything still buffered. */
static int record_drain_all(struct record *r)
{
	int err;

	recorder__disable(r->rec);
	err = recorder__drain(r->rec, r->queue);
	if (err < 0)
		return err;
	return flush_round(r, UINT64_MAX);
}

static int write_trailer(struct record *r, int argc, char **argv)
{
	struct record_features f = {
		.argc = argc,
		.argv = argv,
		.first_sample_time = r->st.first_time,
		.last_sample_time = r->st.last_time,
		.clockid = CLOCK_MONOTONIC,
	};
	int err = record_features__add(r->writer, &f);
	int err2 = perf_data_writer__finish(r->writer);

	return err2 < 0 ? err2 : err;
}

static int start_recording(struct record *r)
{
	const struct perf_data_event *evs;
	enum recorder_stage stage = RECORDER_STAGE_NONE;
	size_t nr;
	int err;

	err = recorder__new(&r->opts, &r->rec, &stage);
	if (err < 0) {
		explain_open_error(r, err, stage);
		return err;
	}
	r->layout = recorder__layout(r->rec);
	if (recorder__info(r->rec)->fell_back && r->opts.event_given && !r->opts.quiet)
		fprintf(stderr, "prof: %s is not supported here (no PMU); sampling cpu-clock instead.\n",
			r->opts.event.name);
	if (recorder__info(r->rec)->freq_lowered)
		fprintf(stderr, "prof: -F %" PRIu64 " is above kernel.perf_event_max_sample_rate; using %" PRIu64 ".\n",
			r->opts.freq, recorder__info(r->rec)->freq);

	evs = recorder__events(r->rec, &nr);
	err = perf_data_writer__new(r->out.fd, evs, nr, &r->writer);
	if (err < 0) {
		fprintf(stderr, "prof: cannot write '%s': %s\n", r->out.path, strerror(-err));
		return err;
	}
	r->synth = (struct synth_env){ .sample_type = evs[0].attr.sample_type, .id = 0 };
	r->synth.proc_fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r->synth.proc_fd < 0) {
		err = -errno;
		fprintf(stderr, "prof: cannot open /proc: %s\n", strerror(-err));
		return err;
	}
	err = synth__kernel_maps(&r->synth, emit, r);
	if (r->write_err) {
		fprintf(stderr, "prof: cannot write '%s': %s\n", r->out.path, strerror(-r->write_err));
		return r->write_err;
	}
	if (err == -EPERM && !r->opts.quiet)
		fprintf(stderr, "prof: warning: kernel addresses are hidden (kernel.kptr_restrict); kernel symbols will not resolve.\n");
	return 0;
}

static int report_exec_error(const char *cmd, int err)
{
	if (err == -ENOENT) {
		fprintf(stderr, "prof: cannot run '%s': command not found\n", cmd);
		return EXIT_PROF_NOTFOUND;
	}
	fprintf(stderr, "prof: cannot run '%s': %s\n", cmd, strerror(-err));
	return EXIT_PROF_NOEXEC;
}

static void record_free(struct record *r)
{
	recorder__free(r->rec);
	perf_data_writer__free(r->writer);
	ordered_queue__free(r->queue);
	task_table__free(r->tasks);
	if (r->synth.proc_fd > 0)
		close(r->synth.proc_fd);
}

int cmd_record(int argc, char **argv)
{
	struct record r = { .synth.proc_fd = -1 };
	_cleanup_free_ char *exe = NULL;
	char errbuf[1400];
	int err, ret = EXIT_PROF_FAIL;

	record_opts__init(&r.opts);
	err = record_opts__parse(&r.opts, argc, argv, errbuf, sizeof(errbuf));
	if (err == 1) {
		fputs(record_opts__usage, stdout);
		return EXIT_PROF_OK;
	}
	if (err < 0) {
		fprintf(stderr, "prof record: %s\n", errbuf);
		return EXIT_PROF_USAGE;
	}
	if (r.opts.argv) {
		err = workload__resolve(r.opts.argv[0], &exe);
		if (err < 0)
			return report_exec_error(r.opts.argv[0], err);
	}
	r.queue = ordered_queue__new();
	r.tasks = task_table__new();
	if (!r.queue || !r.tasks) {
		fprintf(stderr, "prof: out of memory\n");
		goto out;
	}
	err = record_output__create(&r.out, r.opts.output);
	if (err < 0) {
		fprintf(stderr, "prof: cannot create output file '%s': %s; choose another path with -o.\n",
			r.opts.output, err == -EEXIST ? "it exists and is not a regular file (a symlink?)" : strerror(-err));
		goto out;
	}
	if (r.opts.argv) {
		/* Forked before any event is open, so the child inherits none of their fds. */
		err = workload__prepare(&r.wl, exe, r.opts.argv);
		if (err < 0) {
			fprintf(stderr, "prof: cannot start '%s': %s\n", r.opts.argv[0], strerror(-err));
			record_output__abort(&r.out);
			goto out;
		}
		r.has_workload = true;
		if (!r.opts.all) {
			/* No other scope: the workload's process tree. */
			struct task *t = get_task(&r, r.wl.pid, r.wl.pid);
			if (!t) {
				err = -ENOMEM;
				goto abort;
			}
			t->flags |= TASK_IN_SCOPE;
		}
	}
	err = start_recording(&r);
	if (err < 0)
		goto abort;

	install_signals();
	r.start_ns = clock_mono_ns();
	recorder__enable(r.rec);
	if (r.has_workload) {
		err = workload__start(&r.wl);
		if (err < 0) {
			ret = report_exec_error(r.opts.argv[0], err);
			r.has_workload = false;
			goto abort;
		}
	}

	err = record_loop(&r);
	if (err == 0)
		err = record_drain_all(&r);
	if (r.has_workload)
		workload__stop(&r.wl, 2000);
	if (err < 0 && !r.write_err)
		fprintf(stderr, "prof: recording failed: %s\n", strerror(-err));
	if (r.write_err)
		fprintf(stderr, "prof: writing '%s' failed: %s; recording stopped, the file keeps what was written before.\n",
			r.out.path, strerror(-r.write_err));

	err = write_trailer(&r, argc, argv);
	if (err < 0 && !r.write_err)
		fprintf(stderr, "prof: finishing '%s' failed: %s\n", r.out.path, strerror(-err));
	if (record_output__close(&r.out) < 0 && !r.write_err)
		fprintf(stderr, "prof: closing '%s' failed\n", r.out.path);
	if (!r.opts.quiet)
		summary(&r);

	if (r.write_err || err < 0)
		ret = EXIT_PROF_FAIL;
	else if (r.has_workload)
		ret = workload__exit_code(&r.wl);
	else
		ret = EXIT_PROF_OK;
	goto out;

abort:
	if (r.has_workload) {
		/* EOF on the cork: the child exits without running anything. */
		if (r.wl.cork_fd >= 0)
			close(steal_fd(&r.wl.cork_fd));
		if (r.wl.err_fd >= 0)
			close(steal_fd(&r.wl.err_fd));
		workload__stop(&r.wl, 2000);
	}
	record_output__abort(&r.out);
out:
	record_free(&r);
	return ret;
}
