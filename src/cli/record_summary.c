/* SPDX-License-Identifier: GPL-2.0-or-later */
/* prof record's summary (record_summary.h): the lines it prints when it ends. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "prof/base/util.h"
#include "prof/cli/record_opts.h"
#include "prof/cli/record_summary.h"
#include "prof/perfdata/build_id_cache.h"
#include "prof/jvm/frames.h"
#include "prof/node/frames.h"
#include "prof/python/hint.h"
#include "prof/python/python.h"
#include "prof/record/session.h"
#include "prof/synth/perf_maps.h"
#include "prof/sys/pressure.h"

static void human_size(uint64_t bytes, char *buf, size_t len)
{
	if (bytes >= 10ull << 20)
		snprintf(buf, len, "%.1f MB", (double)bytes / (1 << 20));
	else if (bytes >= 10ull << 10)
		snprintf(buf, len, "%.1f kB", (double)bytes / 1024);
	else
		snprintf(buf, len, "%" PRIu64 " bytes", bytes);
}

static void summary_unwinding(const struct record_summary *r, const struct session_stats *s)
{
	const struct unwinder_stats *u = s->unwind;

	fprintf(stderr, "prof: %" PRIu64 " user stacks unwound, %.1f frames on average; %" PRIu64
		" stopped before the outermost frame (no unwind information, or the stack copy too short: "
		"see dwarf,SIZE), %" PRIu64 " of processes whose maps were unknown%s\n",
		u->samples, u->samples ? (double)u->frames / (double)u->samples : 0.0, u->truncated,
		u->no_maps, u->foreign_abi ? ", and 32-bit tasks are not unwound" : "");
	if (r->opts->verbose)
		fprintf(stderr, "prof: %" PRIu64 " unwinders built (%" PRIu64 " dropped to bound the open files), %"
			PRIu64 " samples of 32-bit tasks, %" PRIu64 " malformed samples\n",
			u->dwfl_builds, u->dwfl_evictions, u->foreign_abi, s->records->malformed);
}

/* ", N why" for a non-zero count, into buf at *n; *sum adds it. */
static void add_count(char *buf, size_t len, size_t *n, uint64_t *sum, uint64_t v, const char *why)
{
	if (!v || *n >= len)
		return;
	*n += (size_t)snprintf(buf + *n, len - *n, "%s%" PRIu64 " %s", *n ? ", " : "", v, why);
	*sum += v;
}

/* The Java frames (jvm/frames.h): how many samples had them named, why not, and the
 * JVMs that got none. */
static void summary_jvm(const struct jvm_frames_stats *st)
{
	char line[1024];

	jvm_frames_stats__describe(st, line, sizeof(line));
	if (st->samples)
		fprintf(stderr, "prof: Java: %s\n", line);
	if (st->rejected)
		fprintf(stderr, "prof: Java: no Java frames for %" PRIu64 " JVM(s): %s\n", st->rejected, st->why_rejected);
	if (st->with_java && st->kept < 0)
		fprintf(stderr, "prof: Java: the object naming the Java frames could not be kept in the build-id cache "
			"(%s): readers show them as addresses\n", strerror(-st->kept));
}

/* The JavaScript frames (node/frames.h), as Java's. */
static void summary_node(const struct node_frames_stats *st)
{
	char line[1024];

	node_frames_stats__describe(st, line, sizeof(line));
	if (st->samples)
		fprintf(stderr, "prof: Node: %s\n", line);
	if (st->rejected)
		fprintf(stderr, "prof: Node: no JavaScript frames for %" PRIu64 " node process(es): %s\n", st->rejected,
			st->why_rejected);
	if (st->with_js && st->kept < 0)
		fprintf(stderr, "prof: Node: the object naming the JavaScript frames could not be kept in the build-id "
			"cache (%s): readers show them as addresses\n", strerror(-st->kept));
}

/*
 * The Python frames: how many samples of interpreters had them verified, why the
 * others did not, what is shown exactly and what is not (why), and the interpreters that got none (the first one's reason).
 */
static void summary_python(const struct record_summary *r, const struct python_stats *py)
{
	const struct events_info *info = session__info(r->session);
	char line[1024];

	python_stats__describe(py, line, sizeof(line));
	if (py->samples)
		fprintf(stderr, "prof: Python: %s\n", line);
	/* read at the sample instant (python/chain.h): every frame, each with its line */
	if (py->with_python && py->chained)
		fprintf(stderr, "prof: Python: shown, exact: every Python frame of %" PRIu64 " samples as it was at the "
			"sample instant, read in the kernel (BPF): %" PRIu64 " frames named, %" PRIu64 " with their line\n",
			py->chained, py->chain_frames, py->chain_lines);
	if (py->with_python && py->with_python > py->chained)
		fprintf(stderr, "prof: Python: shown, exact%s: each activation's innermost Python function (%" PRIu64
			" activations, %" PRIu64 " of them by their code object alone, their frame having moved on), "
			"with the line it ran where the build's DWARF or code pins the instruction, else its def line; ",
			py->chained ? " for the others" : "", py->activations, py->by_code);
	if (py->with_python > py->chained && py->callers)
		fprintf(stderr, "not shown: the callers of %" PRIu64 " activations ([python: callers not proven]), "
			"in the heap, read %.0f ms after the sample on average%s%s\n", py->callers,
			(double)py->delay_sum_ns / 1e6 / (double)py->with_python,
			!info->chains && info->chains_why[0] ? "; reading them at the sample instant needs: " : "",
			info->chains ? "" : info->chains_why);
	else if (py->with_python > py->chained)
		fprintf(stderr, "every one of them its activation's first frame: no callers within one to prove "
			"(CPython 3.8-3.10 give each Python call an activation of its own)\n");
	if (py->rejected)
		fprintf(stderr, "prof: Python: no Python frames for %" PRIu64 " interpreter(s): %s\n", py->rejected,
			py->why_rejected);
	if (py->with_python && py->kept < 0)
		fprintf(stderr, "prof: Python: the object naming the Python frames could not be kept in the "
			"build-id cache (%s): readers show them as addresses\n", strerror(-py->kept));
	if (py->chain_refused)
		fprintf(stderr, "prof: Python: callers not read at the sample instant for %" PRIu64 " process(es): %s\n",
			py->chain_refused, py->why_chain_refused);
	if (py->chain_disagreed || py->unchained)
		fprintf(stderr, "prof: Python: %" PRIu64 " samples' callers not from the sample instant: %" PRIu64
			" with a chain that did not match their stack copy, %" PRIu64 " with none read\n",
			py->chain_disagreed + py->unchained, py->chain_disagreed, py->unchained);
	if (r->opts->verbose && py->with_python)
		fprintf(stderr, "prof: Python: %" PRIu64 " locations; %" PRIu64 " samples' frames checked when drained; "
			"frames read %.0f us after their sample on average, %.0f us at most\n", py->locations, py->early,
			(double)py->delay_sum_ns / 1e3 / (double)py->with_python, (double)py->delay_max_ns / 1e3);
}

/*
 * The objects: what was kept in the build-id cache for the report, what could not
 * be (why), and the objects prof could not read a build id of (why; their samples
 * stay [unknown]).  Host objects without a build-id note, or not the user's to read,
 * are said with -v only: a report names them at their path as before.
 */
static void summary_objects(const struct record_summary *r, const struct objects_stats *o)
{
	char kept[160] = "", lost[400] = "", unread[400] = "", size[32];
	size_t nk = 0, nl = 0, nu = 0;
	uint64_t sum = 0, nlost = 0, nunread = 0;

	human_size(o->kept_bytes, size, sizeof(size));
	if (o->kept)
		nk = (size_t)snprintf(kept, sizeof(kept), "%" PRIu64 " kept in %s (%s)", o->kept,
				      build_id_cache__dir(r->cache), size);
	add_count(lost, sizeof(lost), &nl, &nlost, o->too_big, "too big (keep_object_max)");
	add_count(lost, sizeof(lost), &nl, &nlost, o->recording_full, "over the recording's limit (keep_recording_max)");
	add_count(lost, sizeof(lost), &nl, &nlost, o->cache_full, "cache full (keep_cache_max)");
	add_count(lost, sizeof(lost), &nl, &nlost, o->conflict, "another file at their place in the cache");
	add_count(lost, sizeof(lost), &nl, &nlost, o->changed, "changed while copied");
	add_count(lost, sizeof(lost), &nl, &nlost, o->lost, "gone before they were copied");
	add_count(lost, sizeof(lost), &nl, &nlost, o->failed, "not written");
	add_count(unread, sizeof(unread), &nu, &nunread, o->gone, "gone (their tasks exited first)");
	add_count(unread, sizeof(unread), &nu, &nunread, o->replaced, "replaced at their path");
	add_count(unread, sizeof(unread), &nu, &nunread, o->not_elf, "not ELF");
	add_count(unread, sizeof(unread), &nu, &nunread, o->malformed, "malformed ELF (refused)");
	if (r->opts->verbose) {
		/* kept by an earlier recording: nothing was done, nothing to do */
		add_count(kept, sizeof(kept), &nk, &sum, o->present, "there already");
		add_count(unread, sizeof(unread), &nu, &nunread, o->denied, "not readable by you");
		add_count(unread, sizeof(unread), &nu, &nunread, o->no_build_id, "without a build id");
		add_count(unread, sizeof(unread), &nu, &nunread, o->other, "not reached");
	}
	if (nk || nl)
		fprintf(stderr, "prof: objects with samples: %s%s%s%s\n", kept, nk && nl ? "; " : "",
			nl ? "not kept: " : "", lost);
	if (o->failed)
		fprintf(stderr, "prof: warning: the build-id cache %s could not be written: %s\n",
			build_id_cache__dir(r->cache), strerror(-o->failed_err));
	if (nu)
		fprintf(stderr, "prof: %" PRIu64 " of %" PRIu64 " mapped objects without a build id in the file: %s\n",
			nunread, o->objects, unread);
	if (o->ambiguous)
		fprintf(stderr, "prof: %" PRIu64 " mapped objects had their inode number given to another file while"
			" recording (rebuilt?): their later mappings are written as /[unknown]PATH\n", o->ambiguous);
	if (r->st_foreign)
		fprintf(stderr, "prof: %" PRIu64 " mappings of objects of containers or chroots without a build id"
			" written as /[PLACE]PATH: unknown to every reader, never the host's file at PATH\n",
			r->st_foreign);
	if (r->opts->verbose)
		fprintf(stderr, "prof: %" PRIu64 " mapped objects, %" PRIu64 " build ids read, %" PRIu64
			" of them through their task (%" PRIu64 " under a root held after it was gone)\n",
			o->objects, o->read, o->via_task, o->via_held_root);
	/* a place without a held root loses the objects of its processes that exit
	 * before prof reaches them: said whenever it happened */
	if (o->roots_not_held || (r->opts->verbose && o->places))
		fprintf(stderr, "prof: %" PRIu64 " containers or chroots met, their roots held: at most %" PRIu64
			" at once%s", o->places, o->roots_held, o->roots_not_held ? "" : "\n");
	if (o->roots_not_held)
		fprintf(stderr, "; %" PRIu64 " not held (%u at once at most): objects of their processes"
			" that exited first are counted gone\n", o->roots_not_held, PLACES_MAX_HELD);
}

/* The perf maps copied from containers and chroots, and why others were not. */
static void summary_perf_maps(const struct perf_maps_stats *m)
{
	char why[400] = "", size[32];
	size_t n = 0;
	uint64_t sum = 0;

	add_count(why, sizeof(why), &n, &sum, m->gone, "gone (their task or its root)");
	add_count(why, sizeof(why), &n, &sum, m->not_owned, "not owned by their process's user or root");
	add_count(why, sizeof(why), &n, &sum, m->not_regular, "not a regular file");
	add_count(why, sizeof(why), &n, &sum, m->too_big, "too big (over 16 MiB)");
	add_count(why, sizeof(why), &n, &sum, m->over_limit, "over the recording's 64 MiB");
	add_count(why, sizeof(why), &n, &sum, m->unreadable, "not readable by you");
	add_count(why, sizeof(why), &n, &sum, m->untracked, "not tracked (too many processes)");
	human_size(m->bytes, size, sizeof(size));
	if (m->copied || n)
		fprintf(stderr, "prof: perf maps (/tmp/perf-PID.map) of processes in containers or chroots: %" PRIu64
			" copied into the file (%s)%s%s%s\n", m->copied, size, n ? "; not copied: " : "", why,
			n ? " (their JIT code stays [unknown])" : "");
}

static void summary_verbose(const struct session_stats *s)
{
	const struct tracker_stats *t = s->scope;

	fprintf(stderr, "prof: %zu tasks written, %" PRIu64 " /proc lookups (%" PRIu64
		" found the task gone), %" PRIu64 " described from /proc, %" PRIu64 " uid changes\n",
		s->tasks_written, t->lookups, t->lookups_failed, s->records->described, t->creds_changes);
	if (s->filter_cgroups)
		fprintf(stderr, "prof: samples filtered by the kernel to %zu cgroup%s (and their descendants)\n",
			s->filter_cgroups, s->filter_cgroups == 1 ? "" : "s");
	fprintf(stderr, "prof: rings read %" PRIu64 " times, longest gap %.1f ms, queue peak %.1f MB%s\n",
		s->drain.drains, (double)s->drain.max_gap_ns / 1e6, (double)s->drain.queue_peak / (1 << 20),
		s->drain.queue_full ? " (at its limit)" : "");
	fprintf(stderr, "prof: rings read %" PRIu64 " times by the spill thread while the main one was busy: %" PRIu64
		" records, %.1f MB at most\n", s->drain.spill.spills, s->drain.spill.records,
		(double)s->drain.spill.peak_bytes / (1 << 20));
	if (t->nr_unattributed_tids) {
		fprintf(stderr, "prof: unattributed tasks:");
		for (unsigned int i = 0; i < t->nr_unattributed_tids; i++) {
			uint64_t gone = t->unattributed_exits[i];

			fprintf(stderr, " %d", t->unattributed_tids[i]);
			if (gone && gone >= t->first_sample)
				fprintf(stderr, " (exited %.1f ms after the first sample)",
					(double)(gone - t->first_sample) / 1e6);
		}
		fputc('\n', stderr);
	}
}

/* Records were lost: which of the remedies would have helped, from how the rings were read. */
static void summary_lost(const struct record_summary *r, const struct session_stats *s)
{
	const struct events_info *info = session__info(r->session);
	const struct session_drain_stats *d = &s->drain;

	fprintf(stderr, "prof: warning: %" PRIu64 " records lost (ring buffer overflow) and %" PRIu64
		" samples dropped by the kernel (%u pages per CPU; longest gap between reads %.0f ms).\n",
		s->records->lost, s->records->lost_samples, info->mmap_pages, (double)d->max_gap_ns / 1e6);
	if (d->queue_full)
		fprintf(stderr, "  prof could not keep up: its queue reached %.0f MB of records waiting; "
			"use a lower -F, fewer events or a narrower scope.\n", (double)d->queue_peak / (1 << 20));
	else if (info->mmap_lowered)
		fprintf(stderr, "  The ring buffers for this rate could not be locked for this user, so they had "
			"the default size: raise kernel.perf_event_mlock_kb (or grant CAP_IPC_LOCK).\n");
	else
		fprintf(stderr, "  Larger ring buffers would have held them: try -m %u%s, or a lower -F.\n",
			info->mmap_pages * 4 > record_opts__max_mmap_pages() ? info->mmap_pages
									      : info->mmap_pages * 4,
			geteuid() ? " (kernel.perf_event_mlock_kb or CAP_IPC_LOCK may be needed)" : "");
}

/* Samples with another recording's id: what they are, what was kept, what was lost. */
static void summary_foreign(const struct session_stats *s)
{
	const struct session_drain_stats *d = &s->drain;

	fprintf(stderr, "prof: %" PRIu64 " samples carried another recording's event id (another profiler samples "
		"the same software event here, and the kernel fills one sample for both): ", d->foreign_samples + d->foreign_kept);
	if (d->foreign_kept)
		fprintf(stderr, "%" PRIu64 " told by their switch record and kept, ", d->foreign_kept);
	fprintf(stderr, "%" PRIu64 " dropped%s\n", d->foreign_samples,
		s->offcpu && d->foreign_samples ? " (their off-CPU intervals are written without a stack)" : "");
}

/* --off-cpu: the intervals, and those that could not be written (lost, no stack). */
static void summary_offcpu(const struct record_summary *r, const struct offcpu_stats *o)
{
	fprintf(stderr, "prof: off-CPU: %" PRIu64 " intervals, %.3f s waiting for a CPU (offcpu-runq), %.3f s blocked "
		"(offcpu-blocked), %" PRIu64 " cut at the end\n", o->intervals, (double)o->runq_ns / 1e9,
		(double)o->blocked_ns / 1e9, o->cut_end);
	if (o->wakeups && o->woken_intervals)
		fprintf(stderr, "prof: off-CPU: %" PRIu64 " sleeps timed to their wake-up: %.3f s of the waiting for a CPU "
			"came after one\n", o->woken_intervals, (double)o->woken_runq_ns / 1e9);
	if (o->wakeups && o->unwoken_intervals)
		fprintf(stderr, "prof: off-CPU: %" PRIu64 " sleeps (%.3f s) ended with no wake-up reported by the kernel's "
			"sched_wakeup (it misses some, e.g. in an idle CPU's context): wholly offcpu-blocked, their wait for "
			"a CPU after the wake-up included\n", o->unwoken_intervals, (double)o->unwoken_ns / 1e9);
	if (!o->wakeups && o->wakeups_err)
		fprintf(stderr, "prof: off-CPU: the wake-ups could not be timed (sched:sched_wakeup through tracefs: %s): "
			"a sleep's wait for a CPU after its wake-up is inside offcpu-blocked%s\n",
			strerror(-o->wakeups_err),
			o->wakeups_err == -EACCES || o->wakeups_err == -EPERM ? " (root may time them)" : "");
	if (o->holders_named && !o->creds)
		fprintf(stderr, "prof: off-CPU: the CPU holders' set*uid() calls could not be followed (the syscalls' "
			"tracepoints through tracefs): a holder that changes its uid without exec is named by the uid "
			"read at its first wait until it exits or execs\n");
	if (o->lost_intervals)
		fprintf(stderr, "prof: off-CPU: %" PRIu64 " intervals (%.3f s) open across lost records: not written\n",
			o->lost_intervals, (double)o->lost_ns / 1e9);
	if (o->max_period > 1)
		fprintf(stderr, "prof: off-CPU: past %u context switches/s on a CPU, stacks sampled 1 in up to %" PRIu64
			" switches (%.1f CPU-s of the recording; --off-cpu-max-rate)\n", r->opts->off_cpu_max_rate &&
			r->opts->off_cpu_max_rate != RECORD_OFFCPU_UNBOUNDED ? r->opts->off_cpu_max_rate : OFFCPU_DEFAULT_MAX_RATE,
			o->max_period, (double)o->degraded_cpu_ns / 1e9);
	if (o->nostack_intervals)
		fprintf(stderr, "prof: off-CPU: %" PRIu64 " intervals (%.3f s) without their switch-out stack (sampled 1 "
			"in N, throttled, or the thread's first run): written with no stack ([unknown])\n",
			o->nostack_intervals, (double)o->nostack_ns / 1e9);
	if (o->unwritten_intervals)
		fprintf(stderr, "prof: off-CPU: %" PRIu64 " intervals (%.3f s) without their stack and with sample fields "
			"prof cannot make up: not written\n", o->unwritten_intervals, (double)o->unwritten_ns / 1e9);
	if (o->period_errors)
		fprintf(stderr, "prof: off-CPU: the context-switch event's period could not be changed %" PRIu64
			" times: those CPUs kept a stack at every switch\n", o->period_errors);
	if (o->cut_start)
		fprintf(stderr, "prof: off-CPU: %" PRIu64 " intervals (%.3f s) open at the start (or after lost records): "
			"not written (their kind and stack are not known)\n", o->cut_start, (double)o->cut_start_ns / 1e9);
	if (o->unknown_holder_ns)
		fprintf(stderr, "prof: off-CPU: %.3f s of waiting for a CPU whose holder is not known ([unknown])\n",
			(double)o->unknown_holder_ns / 1e9);
	if (r->opts->verbose)
		fprintf(stderr, "prof: off-CPU: %" PRIu64 " context switches read, %.1f bytes of file per switch\n",
			o->switches, o->switches ? (double)perf_writer__file_size(r->writer) / (double)o->switches : 0.0);
	if (r->opts->verbose && o->wakeups)
		fprintf(stderr, "prof: off-CPU: %" PRIu64 " wake-up and migration samples read (%.1f bytes of ring per "
			"switch, none in the file), %" PRIu64 " waits moved between CPUs\n", o->tp_samples,
			o->switches ? (double)o->tp_bytes / (double)o->switches : 0.0, o->migrations);
}

/* Each of the scope's cgroups' pressure over the recording (what the file keeps). */
static void summary_pressure(const struct record_summary *r)
{
	for (size_t i = 0; i < r->pressure->nr; i++) {
		const struct pressure_cgroup *c = &r->pressure->cg[i];
		struct pressure d;
		char buf[1024];

		if (c->fd < 0) {
			fprintf(stderr, "prof: pressure of %s: not read: %s\n", c->path, strerror(-c->open_err));
			continue;
		}
		pressure__diff(&c->first, &c->last, &d);
		pressure__describe(&d, c->last_ns - c->first_ns, buf, sizeof(buf));
		fprintf(stderr, "prof: cgroup %s over %.2f s: %s\n", c->path, (double)(c->last_ns - c->first_ns) / 1e9, buf);
	}
}

void record_summary__print(const struct record_summary *r)
{
	struct session_stats s;
	const struct tracker_stats *t;
	const struct pipeline_stats *lost;
	uint64_t unattributed;
	char size[32], scope[160] = "";

	session__stats(r->session, &s);
	t = s.scope;
	lost = s.records;
	unattributed = t->unattributed_gone + t->unattributed_creds;
	human_size(perf_writer__file_size(r->writer), size, sizeof(size));
	if (!r->opts->all)
		snprintf(scope, sizeof(scope), ", %" PRIu64 " outside scope, %" PRIu64 " unattributed",
			 t->samples_out_of_scope, unattributed);
	fprintf(stderr, "[ prof record: %" PRIu64 " samples written%s, %" PRIu64 " lost, %" PRIu64
		" tasks seen, %s to '%s' ]\n",
		t->samples_written, scope, lost->lost + lost->lost_samples, t->tasks_seen, size, r->path);
	if (lost->lost + lost->lost_samples)
		summary_lost(r, &s);
	if (s.drain.foreign_samples + s.drain.foreign_kept)
		summary_foreign(&s);
	if (s.unwind)
		summary_unwinding(r, &s);
	if (s.python)
		summary_python(r, s.python);
	if (s.jvm)
		summary_jvm(s.jvm);
	if (s.node)
		summary_node(s.node);
	/* without a stack copy nothing pins a Python frame: what would (with -g, the
	 * chains read at the sample instant alone, python.h: what dwarf adds) */
	if (s.python_hint && s.python_hint->samples && s.python && s.python->chained)
		fprintf(stderr, "prof: Python: -g: %" PRIu64 " samples' native callers not shown (frame pointers do "
			"not tell the interpreter's activations apart): --call-graph dwarf shows every native frame "
			"between the Python ones\n", s.python->fp_cut);
	else if (s.python_hint && s.python_hint->samples)
		fprintf(stderr, "prof: %" PRIu64 " samples of %" PRIu64 " Python process(es) (%s): Python frames "
			"need --call-graph dwarf%s%s%s\n", s.python_hint->samples, s.python_hint->processes,
			s.python_hint->name, session__info(r->session)->chains_why[0] ? ", or with -g callers read at the "
			"sample instant (" : "", session__info(r->session)->chains_why,
			session__info(r->session)->chains_why[0] ? ")" : "");
	if (s.objects)
		summary_objects(r, s.objects);
	if (s.perf_maps)
		summary_perf_maps(perf_maps__stats(s.perf_maps));
	if (s.offcpu)
		summary_offcpu(r, s.offcpu);
	summary_pressure(r);
	if (unattributed)
		fprintf(stderr,
			"prof: %" PRIu64 " samples unattributed: their task exited before its uid or parent "
			"could be read (%" PRIu64 "), or changed uid and vanished (%" PRIu64 ").\n",
			unattributed, t->unattributed_gone, t->unattributed_creds);
	if (t->comm_from_parent)
		fprintf(stderr, "prof: %" PRIu64 " tasks forked before the recording and gone before /proc could "
			"name them: named as their parent was (the kernel copies the name at fork).\n",
			t->comm_from_parent);
	if (r->opts->verbose)
		summary_verbose(&s);
}
