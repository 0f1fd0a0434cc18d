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

#include "prof/perfdata/build_id_table.h"
#include "prof/cli/commands.h"
#include "prof/perfdata/features.h"
#include "prof/sys/procfs.h"
#include "prof/perfdata/prof_section.h"
#include "prof/base/util.h"
#include "prof/record/session.h"

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

	human_size(perf_writer__file_size(r->writer), size, sizeof(size));
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
		size_t nr_written;

		ledger__written_tasks(r->ledger, &nr_written);
		fprintf(stderr, "prof: %zu tasks written, %" PRIu64 " /proc lookups (%" PRIu64
			" found the task gone), %" PRIu64 " described from /proc, %" PRIu64 " uid changes\n",
			nr_written, t->lookups, t->lookups_failed, s->synth_tasks, t->creds_changes);
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

	while (!record__stop_signal()) {
		uint64_t now;

		err = record__step(r);
		if (err < 0)
			return err;
		now = clock_mono_ns();
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

static int write_trailer(struct record *r, int argc, char **argv)
{
	const struct tracker_stats *t = tracker__stats(r->tracker);
	struct features f = {
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
	int err = features__add(r->writer, &f), err2;

	build_id_table__write(r->build_ids, &bids);
	if (!err && bids.len)
		err = bids.err ? bids.err : perf_writer__add_feature(r->writer, HEADER_BUILD_ID, bids.data, bids.len);
	feat_buf__release(&bids);
	prof_section__build(&b, &r->opts.scope, tracker__stats(r->tracker), r->ledger, &extra);
	if (!err)
		err = b.err ? b.err : perf_writer__set_prof_section(r->writer, b.data, b.len);
	feat_buf__release(&b);
	err2 = perf_writer__finish(r->writer);
	return err2 < 0 ? err2 : err;
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

static int write_sink(const void *rec, size_t len, void *ctx)
{
	struct record *r = ctx;
	/* an executable mapping's object: its build id is read now, while it is the mapped file */
	int err = build_id_table__note(r->build_ids, rec);

	return err < 0 ? err : perf_writer__write(r->writer, rec, len);
}

/* The events, then the file (its attrs name the events' ids), then the rest. */
static int start_recording(struct record *r)
{
	const struct perf_data_event *evs;
	struct perf_data_event written[2];
	size_t nr;
	int err = record__open_events(r);

	if (err < 0)
		return err;
	evs = events__attrs(r->events, &nr);
	r->build_ids = build_id_table__new();
	if (!r->build_ids)
		return -ENOMEM;
	if (r->unwinder) {
		/* The file's attr says what the written samples hold: a callchain, no stack. */
		struct perf_event_attr *a = &written[0].attr;

		if (nr > ARRAY_SIZE(written))
			return -EINVAL;
		memcpy(written, evs, nr * sizeof(*evs));
		a->sample_type = unwinder__written_sample_type(a->sample_type);
		a->sample_regs_user = 0;
		a->sample_stack_user = 0;
		a->exclude_callchain_user = 0;
		evs = written;
	}
	err = perf_writer__new(r->out.fd, evs, nr, &r->writer);
	if (err < 0) {
		fprintf(stderr, "prof: cannot write '%s': %s\n", r->out.path, strerror(-err));
		return err;
	}
	r->sink = write_sink;
	r->sink_ctx = r;
	return record__start(r);
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
	record__install_signals();
	ret = record__prepare(&r);
	if (ret)
		goto out;
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
	err = output_file__create(&r.out, r.opts.output);
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
			output_file__abort(&r.out);
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
	events__enable(r.events);
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
		err = record__drain_all(&r);
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
	if (output_file__close(&r.out) < 0 && !r.write_err)
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
	output_file__abort(&r.out);
out:
	record__free(&r);
	return ret;
}
