/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * prof record: arm the events, run the workload, merge every CPU's records in time
 * order, decide per record what goes to the file, describe tasks the first time they
 * matter, and leave a valid perf.data whatever stops the recording.
 */
#include <fcntl.h>
#include <stddef.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>

#include "prof/build_id_table.h"
#include "prof/commands.h"
#include "prof/map_dedup.h"
#include "prof/ordered.h"
#include "prof/perf_data.h"
#include "prof/record_features.h"
#include "prof/record_opts.h"
#include "prof/record_output.h"
#include "prof/recorder.h"
#include "prof/synth.h"
#include "prof/privs.h"
#include "prof/procfs.h"
#include "prof/prof_section.h"
#include "prof/tracker.h"
#include "prof/unwind.h"
#include "prof/util.h"
#include "prof/workload.h"
#include "record_config.h"

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

struct record_stats {
	uint64_t lost;                  /* PERF_RECORD_LOST: records the ring buffer dropped */
	uint64_t lost_samples;          /* PERF_RECORD_LOST_SAMPLES */
	uint64_t synth_tasks;           /* tasks described from /proc */
	uint64_t synth_gone;            /* ... that were gone by then */
	uint64_t records;               /* everything written to the data section */
	uint64_t malformed;             /* samples too short for what they should carry */
};

struct record {
	struct record_opts opts;
	struct recorder *rec;
	const struct sample_layout *layout;
	struct ordered_queue *queue;
	struct perf_data_writer *writer;
	struct build_id_table *build_ids;
	struct tracker *tracker;
	struct map_dedup *dedup;
	struct unwinder *unwinder;      /* --call-graph dwarf */
	uint8_t *unwound;               /* a rewritten sample */
	size_t unwound_len;
	uint64_t synth_until;           /* while describing a task: when its /proc read ended */
	uint64_t hold;                  /* this round judges nothing from here on (see peek) */
	uint64_t round_deadline;        /* with an unwinder: pause the round past this time */
	bool round_paused;              /* ... it did: go on at once after reading the buffers */
	struct synth_env synth;
	int cgroup_fd;
	char cgroup_mount[4096];
	struct record_output out;
	struct privs privs;
	struct prof_config cfg;
	struct policy_verdict verdict;
	char output_buf[4096];
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
	/* an executable mapping's object: its build id is read now, while it is the mapped file */
	err = build_id_table__note(r->build_ids, rec);
	/* the unwinder knows each process's maps as the file describes them */
	if (err == 0 && r->unwinder)
		err = unwinder__note(r->unwinder, rec);
	if (err == 0)
		err = perf_data_writer__write(r->writer, rec, len);
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
static int provide(struct record *r, const struct tracker_need *need, uint64_t time)
{
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
		tracker__described(r->tracker, need, 0);
		return 0;
	}
	/* Kernel MMAP2s stamped up to the end of the /proc read repeat what it found. */
	r->synth.read_done = &r->synth_until;
	err = synth__task(&r->synth, need->pid, need->tid, need->what, time, emit_described, r);
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
	tracker__described(r->tracker, need, err);
	return 0;
}

static int deliver(const struct perf_event_header *ev, uint64_t time, void *ctx)
{
	struct record *r = ctx;
	struct tracker_need need;
	int v, err;

	v = tracker__judge(r->tracker, ev, time, &need);
	if (v < 0)
		return v;
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
		/* the stack unwound now: a callchain is written, not the registers and stack */
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

static void explain_no_privilege(const char *why, int paranoid)
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
		explain_no_privilege(strerror(-err), r->privs.paranoid);
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
	const struct tracker_stats *t = tracker__stats(r->tracker);

	fprintf(stderr, "\r[ prof: %.0fs, %" PRIu64 " samples, %" PRIu64 " tasks, %" PRIu64 " lost ]\033[K",
		(double)(now - r->start_ns) / 1e9, t->samples_written, t->tasks_seen,
		r->st.lost + r->st.lost_samples);
	fflush(stderr);
}

static void summary(const struct record *r)
{
	const struct record_stats *s = &r->st;
	const struct tracker_stats *t = tracker__stats(r->tracker);
	uint64_t unattributed = t->unattributed_gone + t->unattributed_creds;
	char size[32], scope[160] = "";

	human_size(perf_data_writer__file_size(r->writer), size, sizeof(size));
	if (!r->opts.all)
		snprintf(scope, sizeof(scope), ", %" PRIu64 " outside scope, %" PRIu64 " unattributed",
			 t->samples_out_of_scope, unattributed);
	fprintf(stderr, "[ prof record: %" PRIu64 " samples written%s, %" PRIu64 " lost, %" PRIu64
		" tasks seen, %s to '%s' ]\n",
		t->samples_written, scope, s->lost + s->lost_samples, t->tasks_seen, size, r->out.path);
	if (s->lost + s->lost_samples)
		fprintf(stderr,
			"prof: warning: %" PRIu64 " records lost (ring buffer overflow) and %" PRIu64
			" samples dropped by the kernel; use a larger -m or a lower -F.\n",
			s->lost, s->lost_samples);
	if (r->unwinder) {
		const struct unwinder_stats *u = unwinder__stats(r->unwinder);
		fprintf(stderr, "prof: %" PRIu64 " user stacks unwound, %.1f frames on average; %" PRIu64
			" stopped before the outermost frame (no unwind information, or the stack copy too short: "
			"see dwarf,SIZE), %" PRIu64 " of processes whose maps were unknown%s\n",
			u->samples, u->samples ? (double)u->frames / (double)u->samples : 0.0, u->truncated,
			u->no_maps, u->foreign_abi ? ", and 32-bit tasks are not unwound" : "");
		if (r->opts.verbose)
			fprintf(stderr, "prof: %" PRIu64 " unwinders built (%" PRIu64 " dropped to bound the open files), %"
				PRIu64 " samples of 32-bit tasks, %" PRIu64 " malformed samples\n",
				u->dwfl_builds, u->dwfl_evictions, u->foreign_abi, s->malformed);
	}
	if (unattributed)
		fprintf(stderr,
			"prof: %" PRIu64 " samples unattributed: their task exited before its uid or parent "
			"could be read (%" PRIu64 "), or changed uid and vanished (%" PRIu64 ").\n",
			unattributed, t->unattributed_gone, t->unattributed_creds);
	if (r->opts.verbose) {
		fprintf(stderr, "prof: %" PRIu64 " tasks written, %" PRIu64 " /proc lookups (%" PRIu64
			" found the task gone), %" PRIu64 " described from /proc, %" PRIu64 " uid changes\n",
			t->tasks_written, t->lookups, t->lookups_failed, s->synth_tasks, t->creds_changes);
		if (t->nr_unattributed_tids) {
			fprintf(stderr, "prof: unattributed tasks:");
			for (unsigned int i = 0; i < t->nr_unattributed_tids; i++)
				fprintf(stderr, " %d", t->unattributed_tids[i]);
			fputc('\n', stderr);
		}
	}
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

		err = recorder__poll(r->rec, r->round_paused ? 0
					 : clock_mono_ns() - r->start_ns < START_PHASE_NS ? START_POLL_MS : POLL_MS);
		if (err < 0 && err != -EINTR)
			return err;
		now = clock_mono_ns();
		r->hold = UINT64_MAX;
		err = recorder__drain(r->rec, r->queue, peek, r);
		if (err < 0)
			return err;
		err = flush_round(r, MIN(now > ROUND_SLACK_NS ? now - ROUND_SLACK_NS : 0,
					 r->hold ? r->hold - 1 : 0), UNWIND_SLICE_NS);
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
	r->hold = UINT64_MAX;
	err = recorder__drain(r->rec, r->queue, peek, r);
	/* a task found gone: its EXIT may wait past where a buffer was read */
	if (err >= 0 && r->hold != UINT64_MAX)
		err = recorder__drain(r->rec, r->queue, peek, r);
	if (err < 0)
		return err;
	return flush_round(r, UINT64_MAX, 0);
}

static int write_trailer(struct record *r, int argc, char **argv)
{
	const struct tracker_stats *t = tracker__stats(r->tracker);
	struct record_features f = {
		.argc = argc,
		.argv = argv,
		.first_sample_time = t->first_time,
		.last_sample_time = t->last_time,
		.clockid = CLOCK_MONOTONIC,
	};
	struct prof_section_stats extra = { .lost = r->st.lost, .lost_samples = r->st.lost_samples };
	_cleanup_free_ char *notes = NULL;
	ssize_t n = read_file_full(AT_FDCWD, "/sys/kernel/notes", 1 << 16, &notes);
	struct build_id kbid;

	if (n > 0 && build_id__from_notes((const uint8_t *)notes, (size_t)n, 4, &kbid) == 0) {
		build_id__hex(&kbid, extra.kernel_build_id, sizeof(extra.kernel_build_id));
		if (!r->opts.no_kernel)
			build_id_table__set_kernel(r->build_ids, &kbid);
	}
	struct feat_buf b = { 0 }, bids = { 0 };
	int err = record_features__add(r->writer, &f), err2;

	build_id_table__write(r->build_ids, &bids);
	if (!err && bids.len)
		err = bids.err ? bids.err : perf_data_writer__add_feature(r->writer, HEADER_BUILD_ID, bids.data, bids.len);
	feat_buf__release(&bids);
	prof_section__build(&b, &r->opts.scope, r->tracker, &extra);
	if (!err)
		err = b.err ? b.err : perf_data_writer__set_prof_section(r->writer, b.data, b.len);
	feat_buf__release(&b);
	err2 = perf_data_writer__finish(r->writer);
	return err2 < 0 ? err2 : err;
}

/*
 * --uid of someone who is not an admin needs the set*uid() tracepoints: without them a
 * process of theirs that becomes root (su, sudo, a set-user-ID program calling
 * setuid(0)) would stay theirs until its next exec, and root's samples would land in
 * their file.  Admins may record any uid anyway: they are warned.  0, or -EPERM after
 * a message.
 */
static int check_creds(const struct record *r, const struct recorder_info *info)
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
	const struct recorder_info *info = recorder__info(r->rec);
	const struct recorder_creds *creds;
	struct tracker_config cfg = {
		.scope = &r->opts.scope,
		.layout = r->layout,
		.proc_fd = r->synth.proc_fd,
		.cgroup_fd = r->cgroup_fd,
		.creds_events = info->creds,
		.restrict_uid = r->verdict.restrict_uid,
		.only_uid = r->verdict.uid,
		.raw_uid_off = info->raw_uid_off,
		.raw_ret_off = info->raw_ret_off,
	};
	size_t n;
	int err;

	err = check_creds(r, info);
	if (err < 0)
		return err;
	err = tracker__new(&cfg, &r->tracker);
	if (err < 0) {
		fprintf(stderr, "prof: cannot set up the scope: %s\n", strerror(-err));
		return err;
	}
	n = recorder__creds(r->rec, &creds);
	for (size_t i = 0; i < n; i++) {
		err = tracker__add_ids(r->tracker, creds[i].kind, creds[i].ids, creds[i].nr_ids);
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
		tracker__add_workload(r->tracker, r->wl.pid, comm[0] ? comm : "prof");
	}
	return 0;
}

static int start_recording(struct record *r)
{
	const struct perf_data_event *evs;
	struct perf_data_event written[2];
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
	r->build_ids = build_id_table__new();
	if (!r->build_ids)
		return -ENOMEM;
	if (r->opts.dwarf) {
		/* The file's attr says what the written samples hold: a callchain, no stack. */
		struct perf_event_attr *a = &written[0].attr;

		if (nr > ARRAY_SIZE(written))
			return -EINVAL;
		memcpy(written, evs, nr * sizeof(*evs));
		r->unwinder = unwinder__new(a->sample_type);
		r->unwound_len = UINT16_MAX + 8 * (UNWIND_MAX_FRAMES + 2);
		r->unwound = malloc(r->unwound_len);
		if (!r->unwinder || !r->unwound)
			return -ENOMEM;
		a->sample_type = unwinder__written_sample_type(a->sample_type);
		a->sample_regs_user = 0;
		a->sample_stack_user = 0;
		a->exclude_callchain_user = 0;
		evs = written;
	}
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
	/* No kernel map for those the policy keeps away from kernel addresses. */
	err = r->opts.no_kernel ? 0 : synth__kernel_maps(&r->synth, emit, r);
	if (r->write_err) {
		fprintf(stderr, "prof: cannot write '%s': %s\n", r->out.path, strerror(-r->write_err));
		return r->write_err;
	}
	if (err == -EPERM && !r->opts.quiet)
		fprintf(stderr, "prof: warning: kernel addresses are hidden (kernel.kptr_restrict); kernel symbols will not resolve.\n");
	return start_tracker(r);
}

/*
 * Who runs the workload: --run-as, else the one --uid user when prof may switch to
 * it, else the invoker.  Returns 0, or an exit code after a message.
 */
static int choose_identity(struct record *r, struct workload_identity *id)
{
	const struct scope *s = &r->opts.scope;
	const char *as = r->opts.run_as;
	char err[256];
	uid_t uid;

	id->as_user = false;
	if (!r->opts.argv || (as && !strcmp(as, "self")))
		return 0;
	if (as) {
		struct scope tmp = { 0 };
		if (scope__add_uids(&tmp, as, err, sizeof(err)) < 0 || tmp.nr_uids != 1) {
			scope__release(&tmp);
			fprintf(stderr, "prof record: --run-as: %s\n", tmp.nr_uids > 1 ? "give one user" : err);
			return EXIT_PROF_USAGE;
		}
		uid = tmp.uids[0];
		scope__release(&tmp);
	} else if (s->nr_uids > 1) {
		fprintf(stderr, "prof record: several --uid users: say who runs the command with --run-as USER (or --run-as self)\n");
		return EXIT_PROF_USAGE;
	} else if (s->nr_uids == 1 && privs__can_setid(&r->privs)) {
		uid = s->uids[0];
	} else {
		return 0;
	}
	if (uid == getuid() && !as)
		return 0;
	if (!privs__can_setid(&r->privs)) {
		fprintf(stderr, "prof: running the command as uid %u needs CAP_SETUID and CAP_SETGID, which prof does not hold; use --run-as self.\n", uid);
		return EXIT_PROF_FAIL;
	}
	if (workload_identity__from_uid(id, uid) < 0) {
		fprintf(stderr, "prof record: uid %u has no entry in the user database: it cannot run the command (use --run-as).\n", uid);
		return EXIT_PROF_USAGE;
	}
	return 0;
}

/*
 * A set-user-ID or set-group-ID program runs with someone else's rights: only root or
 * CAP_SYS_ADMIN may profile it, as with perf.  Returns 0, or an exit code after a message.
 */
static int check_setid_program(const struct record *r, const char *exe)
{
	struct statvfs vfs;
	struct stat st;
	bool suid, sgid;

	if (getuid() == 0 || r->privs.sys_admin || stat(exe, &st) < 0)
		return 0;
	suid = st.st_mode & S_ISUID;
	sgid = (st.st_mode & S_ISGID) && (st.st_mode & S_IXGRP);       /* without g+x: locking */
	if (!suid && !sgid)
		return 0;
	if (statvfs(exe, &vfs) == 0 && (vfs.f_flag & ST_NOSUID))
		return 0;               /* the bits do nothing there */
	fprintf(stderr,
		"prof: refusing to profile '%s': it is set-%s-ID (owner uid %u, group %u), so it runs with\n"
		"  another user's rights; only root or CAP_SYS_ADMIN may profile such a program (as with perf).\n"
		"  Run prof as root, or profile a copy without the set-ID bit.\n",
		exe, suid ? "user" : "group", st.st_uid, st.st_gid);
	return EXIT_PROF_FAIL;
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
	build_id_table__free(r->build_ids);
	ordered_queue__free(r->queue);
	tracker__free(r->tracker);
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

int cmd_record(int argc, char **argv)
{
	struct record r = { .synth.proc_fd = -1, .cgroup_fd = -1 };
	struct workload_identity ident = { 0 };
	enum workload_stage stage = 0;
	_cleanup_free_ char *exe = NULL;
	bool failed;
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
		ret = EXIT_PROF_USAGE;
		goto out;
	}
	/* From here on a stop signal ends the recording cleanly, even during start-up. */
	install_signals();
	if (privs__probe(&r.privs) < 0 || !privs__can_record_system_wide(&r.privs)) {
		/* Said before anything is opened or created. */
		explain_no_privilege("this process holds neither CAP_PERFMON nor CAP_SYS_ADMIN", r.privs.paranoid);
		goto out;
	}
	ret = record_config__apply(&r.opts, &r.privs, &r.cfg, r.output_buf, sizeof(r.output_buf));
	if (ret)
		goto out;
	ret = resolve_scope(&r);
	if (ret)
		goto out;
	ret = record_config__policy(&r.opts, &r.cfg, &r.privs, r.cgroup_fd, &r.verdict);
	if (ret)
		goto out;
	if (r.verdict.admin && !r.opts.all && !r.privs.sys_ptrace && !r.privs.perfmon && !r.opts.quiet)
		fprintf(stderr, "prof: warning: without CAP_SYS_PTRACE the maps of other users' tasks cannot be read: their user-space symbols may not resolve.\n");
	ret = choose_identity(&r, &ident);
	if (ret)
		goto out;
	ret = EXIT_PROF_FAIL;
	if (r.opts.argv) {
		err = workload__resolve(r.opts.argv[0], &exe);
		if (err < 0) {
			ret = report_exec_error(r.opts.argv[0], err);
			goto out;
		}
		ret = check_setid_program(&r, exe);
		if (ret)
			goto out;
		ret = EXIT_PROF_FAIL;
	}
	r.queue = ordered_queue__new();
	r.dedup = map_dedup__new();
	if (!r.queue || !r.dedup) {
		fprintf(stderr, "prof: out of memory\n");
		goto out;
	}
	err = record_output__create(&r.out, r.opts.output);
	if (err < 0) {
		fprintf(stderr, "prof: cannot create output file '%s': %s; choose another path with -o.\n",
			r.opts.output, err == -EEXIST ? "it exists and is not a regular file (a symlink, FIFO or device?)" : strerror(-err));
		goto out;
	}
	if (r.opts.argv) {
		/* Forked before any event is open, so the child inherits none of their fds. */
		err = workload__prepare(&r.wl, exe, r.opts.argv, &ident);
		if (err < 0) {
			fprintf(stderr, "prof: cannot start '%s': %s\n", r.opts.argv[0], strerror(-err));
			record_output__abort(&r.out);
			goto out;
		}
		r.has_workload = true;
		/* No other scope: the workload's process tree. */
		if (!r.opts.all && !scope__narrowed(&r.opts.scope))
			r.opts.scope.workload = r.wl.pid;
	}
	err = start_recording(&r);
	if (err < 0)
		goto abort;

	r.start_ns = clock_mono_ns();
	recorder__enable(r.rec);
	if (r.has_workload) {
		err = workload__start(&r.wl, &stage);
		if (err < 0 && stage == WORKLOAD_STAGE_IDENTITY) {
			fprintf(stderr, "prof: cannot run '%s' as %s: %s\n", r.opts.argv[0], ident.name, strerror(-err));
			ret = EXIT_PROF_NOEXEC;
			r.has_workload = false;
			goto abort;
		}
		if (err < 0) {
			ret = report_exec_error(r.opts.argv[0], err);
			r.has_workload = false;
			goto abort;
		}
	}

	/* Events open, workload running: keep only what the rest needs. */
	err = privs__drop_after_start(&r.privs);
	if (err < 0 && !r.opts.quiet)
		fprintf(stderr, "prof: warning: could not drop capabilities: %s\n", strerror(-err));

	err = record_loop(&r);
	if (err == 0)
		err = record_drain_all(&r);
	failed = err < 0;
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
	failed = failed || err < 0;
	if (record_output__close(&r.out) < 0 && !r.write_err)
		fprintf(stderr, "prof: closing '%s' failed\n", r.out.path);
	if (!r.opts.quiet)
		summary(&r);

	if (r.write_err || failed)
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
