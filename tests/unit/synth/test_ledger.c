/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ledger of what the file describes, shown records with hand-made judgements (the
 * tracker's side is tests/unit/scope/test_tracker.c, which runs both): what a written
 * record needs first, how dropped records make the file's description stale, and how
 * long the ledger remembers an exited task.
 */
#include <errno.h>
#include <string.h>
#include <linux/perf_event.h>
#include <perf/event.h>
#include <criterion/criterion.h>

#include "prof/scope/cgroups.h"
#include "prof/synth/ledger.h"
#include "prof/synth/synth.h"

#define SEC 1000000000ull

static struct {
	struct scope scope;
	struct cgroups *cgroups;
	struct ledger *l;
	struct ledger_need need;
	uint64_t now;
} fx;

static void setup(void)
{
	memset(&fx, 0, sizeof(fx));
	cr_assert_eq(cgroups__new(&fx.scope, -1, &fx.cgroups), 0);
	fx.l = ledger__new(fx.cgroups);
	cr_assert_not_null(fx.l);
	fx.now = 10 * SEC;
}

static void teardown(void)
{
	ledger__free(fx.l);
	cgroups__free(fx.cgroups);
}

TestSuite(ledger, .init = setup, .fini = teardown);

static void note(const struct perf_event_header *ev, int verdict, const struct judgement *j, uint64_t dt)
{
	fx.now += dt;
	memset(&fx.need, 0xa5, sizeof(fx.need));
	cr_assert_eq(ledger__note(fx.l, ev, verdict, j, fx.now, &fx.need), 0);
}

/* A written sample of pid/tid (1 us after the last record, unless dt says). */
static unsigned int sample(int32_t pid, int32_t tid, const char *comm, uint64_t dt)
{
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = sizeof(h) };
	struct judgement j = { .pid = pid, .tid = tid, .comm = comm, .uid = 1001, .uid_known = true };

	note(&h, TRACKER_WRITE, &j, dt ? dt : 1000);
	return fx.need.what;
}

/* ... and the file gets what it needed. */
static void described(int err)
{
	struct ledger_need n = fx.need;

	cr_assert_eq(ledger__described(fx.l, &n, err), 0);
}

static void task_record(uint32_t type, uint16_t misc, int verdict, int32_t pid, int32_t tid,
			int32_t ppid, int32_t ptid, uint64_t dt)
{
	struct perf_record_fork f = {
		.header = { .type = type, .misc = misc, .size = sizeof(f) },
		.pid = (uint32_t)pid, .ppid = (uint32_t)ppid, .tid = (uint32_t)tid, .ptid = (uint32_t)ptid,
	};
	struct judgement j = { .pid = pid, .tid = tid };

	note(&f.header, verdict, &j, dt ? dt : 1000);
}

static void comm(int verdict, int32_t pid, int32_t tid, bool exec)
{
	struct perf_record_comm c = {
		.header = { .type = PERF_RECORD_COMM, .misc = exec ? PERF_RECORD_MISC_COMM_EXEC : 0,
			    .size = sizeof(c) },
		.pid = (uint32_t)pid, .tid = (uint32_t)tid, .comm = "x",
	};
	struct judgement j = { .pid = pid, .tid = tid };

	note(&c.header, verdict, &j, 1000);
}

Test(ledger, described_once)
{
	cr_assert_eq(sample(100, 100, "sh", 0), SYNTH_COMM | SYNTH_MAPS);
	cr_assert_eq(fx.need.pid, 100);
	cr_assert_eq(fx.need.tid, 100);
	cr_assert_str_eq(fx.need.comm, "sh", "the tracker's name is the fallback");
	cr_assert_not(fx.need.pre_exec);
	described(0);
	cr_assert_eq(sample(100, 100, "sh", 0), 0);
	/* a thread: its comm, the process's maps are there */
	cr_assert_eq(sample(100, 101, NULL, 0), SYNTH_COMM);
	cr_assert_null(fx.need.comm);
	/* gone from /proc: tried, not again */
	cr_assert_eq(sample(200, 200, NULL, 0), SYNTH_COMM | SYNTH_MAPS);
	described(-ESRCH);
	cr_assert_eq(sample(200, 200, NULL, 0), 0);
}

Test(ledger, idle_and_dropped_records_need_nothing)
{
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = sizeof(h) };
	struct judgement idle = { 0 }, other = { .pid = 300, .tid = 300 };
	size_t nr = 9;

	note(&h, TRACKER_WRITE, &idle, 1000);
	cr_assert_eq(fx.need.what, 0);
	cr_assert_eq(fx.need.cgroup, 0);
	note(&h, TRACKER_DROP, &other, 1000);
	cr_assert_eq(fx.need.what, 0);
	note(&h, TRACKER_UNATTRIBUTED, &other, 1000);
	cr_assert_eq(fx.need.what, 0);
	ledger__written_tasks(fx.l, &nr);
	cr_assert_eq(nr, 0, "no task of them was written");
}

/* What a written task was when its first sample went out, once per task. */
Test(ledger, written_tasks_in_first_sample_order)
{
	const struct ledger_task *log;
	size_t nr;

	sample(200, 200, NULL, 0);
	sample(100, 101, NULL, 0);
	sample(200, 200, NULL, 0);
	log = ledger__written_tasks(fx.l, &nr);
	cr_assert_eq(nr, 2);
	cr_assert_eq(log[0].tid, 200);
	cr_assert_eq(log[1].pid, 100);
	cr_assert_eq(log[1].tid, 101);
	cr_assert_eq(log[1].uid, 1001);
	cr_assert(log[1].uid_known);
}

/* perf copies comm and maps at FORK: a child of a described parent needs nothing. */
Test(ledger, fork_copies_what_the_file_gives_the_parent)
{
	sample(100, 100, NULL, 0);
	described(0);
	task_record(PERF_RECORD_FORK, 0, TRACKER_WRITE, 150, 150, 100, 100, 0);
	cr_assert_eq(fx.need.what, 0, "a described parent: need %#x", fx.need.what);
	cr_assert_eq(sample(150, 150, NULL, 0), 0, "the child of a described process");
	task_record(PERF_RECORD_FORK, 0, TRACKER_WRITE, 150, 151, 150, 150, 0);
	cr_assert_eq(sample(150, 151, NULL, 0), 0, "a thread of it");
	/* a dropped FORK: the new task is not described by anything in the file */
	task_record(PERF_RECORD_FORK, 0, TRACKER_DROP, 160, 160, 100, 100, 0);
	cr_assert_eq(sample(160, 160, NULL, 0), SYNTH_COMM | SYNTH_MAPS);
}

/* A written FORK of a parent in the scope that the file does not describe yet. */
Test(ledger, fork_describes_an_undescribed_parent_first)
{
	struct perf_record_fork f = {
		.header = { .type = PERF_RECORD_FORK, .size = sizeof(f) },
		.pid = 150, .ppid = 100, .tid = 150, .ptid = 101,
	};
	struct judgement j = { .pid = 150, .tid = 150, .parent_in_scope = true, .parent_comm = "make" };

	note(&f.header, TRACKER_WRITE, &j, 1000);
	cr_assert_eq(fx.need.what, SYNTH_COMM | SYNTH_MAPS);
	cr_assert_eq(fx.need.pid, 100, "the parent's process");
	cr_assert_eq(fx.need.tid, 101, "the parent thread");
	cr_assert_str_eq(fx.need.comm, "make");
	described(0);
	/* the child was forked before its parent was described: it is looked up itself */
	cr_assert_eq(sample(150, 150, NULL, 0), SYNTH_COMM | SYNTH_MAPS);
	cr_assert_eq(sample(100, 101, NULL, 0), 0, "the parent is described now");
	/* a parent out of the scope is not described */
	j = (struct judgement){ .pid = 170, .tid = 170 };
	f.pid = f.tid = 170;
	f.ppid = f.ptid = 300;
	note(&f.header, TRACKER_WRITE, &j, 1000);
	cr_assert_eq(fx.need.what, 0);
}

/* Records dropped while the task was out of the scope make the file's description stale. */
Test(ledger, dropped_records_make_the_description_stale)
{
	sample(100, 100, NULL, 0);
	described(0);
	comm(TRACKER_DROP, 100, 100, false);
	cr_assert_eq(sample(100, 100, NULL, 0), SYNTH_COMM, "a rename the file did not get");
	described(0);
	task_record(PERF_RECORD_MMAP2, 0, TRACKER_DROP, 100, 100, 0, 0, 0);
	cr_assert_eq(sample(100, 100, NULL, 0), SYNTH_MAPS, "a mapping the file did not get");
	described(0);
	comm(TRACKER_DROP, 100, 100, true);
	cr_assert_eq(sample(100, 100, NULL, 0), SYNTH_COMM | SYNTH_MAPS, "an exec the file did not get");
	described(0);
	/* written ones describe it: an exec gives the comm and (from there on) the maps */
	sample(200, 200, NULL, 0);
	described(-ESRCH);
	comm(TRACKER_WRITE, 200, 200, true);
	cr_assert_eq(sample(200, 200, NULL, 0), 0);
}

/* prof's corked child is prof until its exec: its comm as given, no maps from /proc. */
Test(ledger, workload_before_its_exec)
{
	ledger__set_workload(fx.l, 100, "prof");
	cr_assert_eq(sample(100, 100, "hot", 0), SYNTH_COMM);
	cr_assert(fx.need.pre_exec);
	cr_assert_str_eq(fx.need.comm, "prof");
	described(0);
	comm(TRACKER_WRITE, 100, 100, true);
	cr_assert_eq(sample(100, 100, "hot", 0), 0);
	cr_assert_not(fx.need.pre_exec);
}

Test(ledger, cgroup_named_once)
{
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = sizeof(h) };
	struct judgement j = { .pid = 100, .tid = 100, .cgroup = 42 };

	cr_assert_eq(cgroups__add(fx.cgroups, 42, "/a"), 0);
	note(&h, TRACKER_WRITE, &j, 1000);
	cr_assert_eq(fx.need.cgroup, 42);
	cr_assert_str_eq(fx.need.cgroup_path, "/a");
	note(&h, TRACKER_WRITE, &j, 1000);
	cr_assert_eq(fx.need.cgroup, 0);
	j.cgroup = 43;  /* never announced, no hierarchy to walk */
	note(&h, TRACKER_WRITE, &j, 1000);
	cr_assert_eq(fx.need.cgroup, 0);
}

/* Teardown samples come after the EXIT: the task is remembered 2 s, then forgotten. */
Test(ledger, exited_task_forgotten_after_two_seconds)
{
	size_t nr;

	sample(100, 100, NULL, 0);
	described(0);
	task_record(PERF_RECORD_EXIT, 0, TRACKER_WRITE, 100, 100, 1, 1, 0);
	cr_assert_eq(sample(100, 100, NULL, SEC), 0, "a teardown sample 1 s after the EXIT");
	/* a task first written after its EXIT goes with it too */
	task_record(PERF_RECORD_EXIT, 0, TRACKER_WRITE, 300, 300, 1, 1, 1000);
	cr_assert_eq(sample(300, 300, NULL, 0), SYNTH_COMM | SYNTH_MAPS);
	described(0);
	/* 2 s after its EXIT: forgotten; the tid, met again without a FORK, is a new task */
	cr_assert_eq(sample(100, 100, NULL, SEC + 1000), SYNTH_COMM | SYNTH_MAPS);
	cr_assert_eq(sample(300, 300, NULL, 0), 0, "300 exited 1 s later: still remembered");
	cr_assert_eq(sample(300, 300, NULL, SEC), SYNTH_COMM | SYNTH_MAPS);
	ledger__written_tasks(fx.l, &nr);
	cr_assert_eq(nr, 4, "each task written once: %zu", nr);
}

/* A tid reused by a FORK within the 2 s: the old exit does not forget the new task. */
Test(ledger, reused_tid_outlives_the_old_exit)
{
	sample(100, 100, NULL, 0);
	described(0);
	task_record(PERF_RECORD_EXIT, 0, TRACKER_WRITE, 100, 100, 1, 1, 0);
	task_record(PERF_RECORD_FORK, 0, TRACKER_WRITE, 100, 100, 50, 50, SEC / 2);
	cr_assert_eq(sample(100, 100, NULL, 0), SYNTH_COMM | SYNTH_MAPS, "the FORK starts a new task");
	described(0);
	cr_assert_eq(sample(100, 100, NULL, 2 * SEC), 0, "past the old exit's 2 s: still described");
}
