/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The scope resolver, fed hand-built record streams in time order, and after it, as in
 * the session, the ledger of what the file describes (what each written record needs
 * first, synth/ledger.h), so that the needs are those of real judgements.  Task facts come
 * from a fake /proc tree (<tid>/status, <tid>/cgroup) in a temporary directory; a
 * task missing from it has exited.  Cgroup scopes use a fake hierarchy of plain
 * directories, whose ids are computed the way the tracker does (cgroup_tree__id).
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <perf/event.h>
#include <criterion/criterion.h>

#include "prof/scope/cgroup_tree.h"
#include "prof/perfdata/sample.h"
#include "prof/scope/scope.h"
#include "prof/synth/synth.h"
#include "prof/scope/tracker.h"
#include "prof/synth/ledger.h"
#include "../fixture.h"

/* Sample ids of the events: the sampling event and the set*uid() tracepoints. */
#define ID_SETUID 0x201
#define ID_SETREUID 0x202
#define ID_SETRESUID 0x203

/* Where the syscalls tracepoints keep their first argument. */
#define RAW_ARG_OFF 16

#define UID_UNCHANGED 0xffffffffull    /* (uid_t)-1 as the syscall receives it */

/* ---- the fixture ----------------------------------------------------------- */

static struct {
	char root[64];
	int root_fd, proc_fd, cg_fd;
	struct sample_layout layout;
	struct scope scope;
	uint32_t uids[4];
	pid_t pids[4];
	struct scope_cgroup cgroups[2];
	struct tracker_config cfg;
	struct cgroups *registry;
	struct tracker *t;
	struct ledger *l;
	struct judgement j;             /* of the last judged record */
	struct ledger_need need;        /* ... and what the file needs before it */
	uint64_t now;
	uint64_t nr_samples;            /* samples of the sampling event judged */
} fx;

static void setup(void)
{
	memset(&fx, 0, sizeof(fx));
	fx.root_fd = fx.proc_fd = fx.cg_fd = -1;
	strcpy(fx.root, "/tmp/prof-test-tracker-XXXXXX");
	cr_assert_not_null(mkdtemp(fx.root), "mkdtemp: %s", strerror(errno));
	fx.root_fd = open(fx.root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(fx.root_fd, 0);
	cr_assert_eq(mkdirat(fx.root_fd, "proc", 0755), 0);
	cr_assert_eq(mkdirat(fx.root_fd, "cgroup", 0755), 0);
	fx.proc_fd = openat(fx.root_fd, "proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	fx.cg_fd = openat(fx.root_fd, "cgroup", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(fx.proc_fd, 0);
	cr_assert_geq(fx.cg_fd, 0);
	sample_layout__init(&fx.layout, SAMPLE_TYPE);
	fx.cfg = (struct tracker_config){
		.scope = &fx.scope,
		.layout = &fx.layout,
		.proc_fd = fx.proc_fd,
		.cgroup_fd = -1,
		.raw_uid_off = RAW_ARG_OFF,
	};
	fx.now = 1000000;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void teardown(void)
{
	tracker__free(fx.t);
	ledger__free(fx.l);
	cgroups__free(fx.registry);
	if (fx.proc_fd >= 0)
		close(fx.proc_fd);
	if (fx.cg_fd >= 0)
		close(fx.cg_fd);
	if (fx.root_fd >= 0)
		close(fx.root_fd);
	if (fx.root[0])
		nftw(fx.root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(tracker, .init = setup, .fini = teardown);

/* /proc/<tid>/status of a task of process tgid, child of ppid, with real uid `uid`. */
static void put_task(int32_t tid, int32_t tgid, int32_t ppid, uint32_t uid)
{
	char path[64], text[256];

	snprintf(path, sizeof(path), "%d", tid);
	if (mkdirat(fx.proc_fd, path, 0755) < 0)
		cr_assert_eq(errno, EEXIST);
	snprintf(path, sizeof(path), "%d/status", tid);
	/* the effective uid differs from the real one: the tracker must take the first */
	snprintf(text, sizeof(text),
		 "Name:\ttask%d\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t%d\nNgid:\t0\nPid:\t%d\n"
		 "PPid:\t%d\nTracerPid:\t0\nUid:\t%u\t%u\t%u\t%u\nGid:\t%u\t%u\t%u\t%u\n",
		 tid, tgid, tid, ppid, uid, uid + 7, uid, uid, uid, uid, uid, uid);
	put_file(fx.proc_fd, path, text);
}

static void put_task_cgroup(int32_t tid, const char *cgpath)
{
	char path[64], text[256];

	snprintf(path, sizeof(path), "%d/cgroup", tid);
	snprintf(text, sizeof(text), "0::%s\n", cgpath);
	put_file(fx.proc_fd, path, text);
}

/* The task exits: its /proc directory goes. */
static void del_task(int32_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "%d/status", tid);
	cr_assert_eq(unlinkat(fx.proc_fd, path, 0), 0, "rm %s: %s", path, strerror(errno));
	snprintf(path, sizeof(path), "%d/cgroup", tid);
	unlinkat(fx.proc_fd, path, 0);
	snprintf(path, sizeof(path), "%d", tid);
	cr_assert_eq(unlinkat(fx.proc_fd, path, AT_REMOVEDIR), 0);
}

static uint64_t mk_cgroup_dir(const char *path)
{
	uint64_t id = 0;

	cr_assert_eq(mkdirat(fx.cg_fd, path + 1, 0755), 0, "mkdir %s: %s", path, strerror(errno));
	cr_assert_eq(cgroup_tree__id(fx.cg_fd, path, &id), 0);
	cr_assert_neq(id, 0);
	return id;
}

static void scope_uid(uint32_t uid)
{
	fx.uids[fx.scope.nr_uids++] = uid;
	fx.scope.uids = fx.uids;
}

static void scope_pid(pid_t pid)
{
	fx.pids[fx.scope.nr_pids++] = pid;
	fx.scope.pids = fx.pids;
}

static void scope_cgroup(const char *path, uint64_t id)
{
	struct scope_cgroup *c = &fx.cgroups[fx.scope.nr_cgroups++];

	c->arg = (char *)path;
	c->path = (char *)path;
	c->id = id;
	fx.scope.cgroups = fx.cgroups;
}

static void start(void)
{
	static const uint64_t setuid_ids[] = { ID_SETUID }, setreuid_ids[] = { ID_SETREUID },
			      setresuid_ids[] = { ID_SETRESUID };

	cr_assert_eq(cgroups__new(&fx.scope, fx.cfg.cgroup_fd, &fx.registry), 0);
	fx.cfg.cgroups = fx.registry;
	cr_assert_eq(tracker__new(&fx.cfg, &fx.t), 0);
	cr_assert_not_null(fx.t);
	fx.l = ledger__new(fx.registry);
	cr_assert_not_null(fx.l);
	if (!fx.cfg.creds_events)
		return;
	cr_assert_eq(tracker__add_creds_ids(fx.t, CREDS_SETUID, setuid_ids, 1), 0);
	cr_assert_eq(tracker__add_creds_ids(fx.t, CREDS_SETREUID, setreuid_ids, 1), 0);
	cr_assert_eq(tracker__add_creds_ids(fx.t, CREDS_SETRESUID, setresuid_ids, 1), 0);
}

static const struct tracker_stats *stats(void)
{
	return tracker__stats(fx.t);
}

static const char *vname(int v)
{
	switch (v) {
	case TRACKER_WRITE:
		return "WRITE";
	case TRACKER_DROP:
		return "DROP";
	case TRACKER_UNATTRIBUTED:
		return "UNATTRIBUTED";
	case TRACKER_CONSUMED:
		return "CONSUMED";
	default:
		return v < 0 ? strerror(-v) : "?";
	}
}

#define expect(expr, want, what)                                                            \
	do {                                                                                \
		int v_ = (expr);                                                            \
		cr_assert_eq(v_, (want), "%s: got %s, want %s", (what), vname(v_), vname(want)); \
	} while (0)

/* ---- judging, one record at a time, each one later than the last ---------- */

/* The tracker's verdict; the ledger is shown every judged record, as the session does. */
static int judge(const struct perf_event_header *ev, uint64_t time)
{
	int v;

	memset(&fx.j, 0xa5, sizeof(fx.j));              /* judge() must reset it */
	memset(&fx.need, 0xa5, sizeof(fx.need));        /* ... and note() this */
	v = tracker__judge(fx.t, ev, time, &fx.j);
	if (v >= 0)
		cr_assert_eq(ledger__note(fx.l, ev, v, &fx.j, time, &fx.need), 0);
	return v;
}

static int sample(int32_t pid, int32_t tid, uint64_t cgroup)
{
	struct rec r;

	fx.now += 100;
	fx.nr_samples++;
	return judge(mk_sample(&r, pid, tid, fx.now, cgroup), fx.now);
}

static int fork_(uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid)
{
	struct rec r;

	fx.now += 100;
	return judge(mk_fork(&r, PERF_RECORD_FORK, pid, ppid, tid, ptid, fx.now), fx.now);
}

static int exit_(uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid)
{
	struct rec r;

	fx.now += 100;
	return judge(mk_fork(&r, PERF_RECORD_EXIT, pid, ppid, tid, ptid, fx.now), fx.now);
}

static int comm(uint32_t pid, uint32_t tid, const char *name, bool exec)
{
	struct rec r;

	fx.now += 100;
	return judge(mk_comm(&r, pid, tid, name, exec, fx.now), fx.now);
}

static int cgroup_rec(uint64_t id, const char *path)
{
	struct rec r;

	fx.now += 100;
	return judge(mk_cgroup(&r, id, path, fx.now), fx.now);
}

/*
 * A set*uid() entry (uid: its first argument), judged as production judges it: a
 * round after the call returned, so /proc (the fixture) already shows its outcome.
 */
static int creds(uint64_t id, int32_t pid, int32_t tid, uint64_t uid)
{
	size_t raw_len = id == ID_SETREUID ? 32 : id == ID_SETRESUID ? 40 : 24;
	struct rec r;

	fx.now += 100;
	return judge(mk_tp(&r, id, pid, tid, fx.now, raw_len, RAW_ARG_OFF, uid), fx.now);
}

/* Every judged sample is written, out of scope, or unattributed: nothing else. */
static void assert_accounted(void)
{
	const struct tracker_stats *s = stats();
	uint64_t sum = s->samples_written + s->samples_out_of_scope + s->unattributed_gone +
		       s->unattributed_creds;

	cr_assert_eq(sum, fx.nr_samples,
		     "%llu samples judged, accounted: %llu written + %llu out of scope + "
		     "%llu unattributed (gone) + %llu unattributed (creds)",
		     (unsigned long long)fx.nr_samples, (unsigned long long)s->samples_written,
		     (unsigned long long)s->samples_out_of_scope,
		     (unsigned long long)s->unattributed_gone, (unsigned long long)s->unattributed_creds);
}

/* ---- 1. fork chains -------------------------------------------------------- */

Test(tracker, fork_chain_inherits_uid)
{
	scope_uid(1001);
	put_task(100, 100, 1, 1001);
	put_task(300, 300, 1, 0);
	start();

	/* 200 and 210 are new: not in /proc, known only through their FORK */
	expect(fork_(200, 100, 200, 100), TRACKER_WRITE, "FORK of the child");
	expect(fork_(210, 200, 210, 200), TRACKER_WRITE, "FORK of the grandchild");
	expect(fork_(210, 210, 211, 210), TRACKER_WRITE, "FORK of a thread of the grandchild");
	expect(sample(100, 100, 0), TRACKER_WRITE, "sample of the parent");
	expect(sample(200, 200, 0), TRACKER_WRITE, "sample of the child");
	expect(sample(210, 210, 0), TRACKER_WRITE, "sample of the grandchild");
	expect(sample(210, 211, 0), TRACKER_WRITE, "sample of the grandchild's thread");
	expect(sample(300, 300, 0), TRACKER_DROP, "sample of an unrelated root task");
	expect(fork_(310, 300, 310, 300), TRACKER_DROP, "FORK of the root task's child");
	expect(sample(310, 310, 0), TRACKER_DROP, "sample of the root task's child");

	cr_assert_eq(stats()->samples_written, 4);
	cr_assert_eq(stats()->samples_out_of_scope, 2);
	cr_assert_eq(stats()->unattributed_gone, 0);
	cr_assert_eq(stats()->unattributed_creds, 0);
	/* new tasks inherit: /proc was read for the two pre-existing ones only */
	cr_assert_eq(stats()->lookups, 2, "lookups: %llu", (unsigned long long)stats()->lookups);
	cr_assert_eq(stats()->first_time, 1000000 + 4 * 100, "first written sample's time");
	cr_assert_eq(stats()->last_time, 1000000 + 7 * 100, "last written sample's time");
	assert_accounted();
}

/* ---- 2. exit before the first sample ---------------------------------------- */

Test(tracker, gone_before_first_sample)
{
	uint64_t lookups;

	scope_uid(1001);
	put_task(100, 100, 1, 1001);
	start();

	/* 400 existed before the recording and is gone from /proc when judged */
	expect(sample(400, 400, 0), TRACKER_UNATTRIBUTED, "sample of a vanished pre-existing task");
	cr_assert_eq(stats()->unattributed_gone, 1);
	lookups = stats()->lookups;
	expect(sample(400, 400, 0), TRACKER_UNATTRIBUTED, "second sample of the vanished task");
	cr_assert_eq(stats()->unattributed_gone, 2);
	cr_assert_eq(stats()->lookups, lookups, "a task is looked up in /proc once");
	exit_(400, 1, 400, 1);
	/* -v names it, and when it exited: 200 ns after the first of its two samples */
	cr_assert_eq(stats()->nr_unattributed_tids, 1);
	cr_assert_eq(stats()->unattributed_tids[0], 400);
	cr_assert_eq(stats()->unattributed_exits[0] - stats()->first_sample, 200,
		     "exit %llu, first sample %llu", (unsigned long long)stats()->unattributed_exits[0],
		     (unsigned long long)stats()->first_sample);

	/* a child of a known parent is attributed by inheritance, /proc or not */
	expect(fork_(201, 100, 201, 100), TRACKER_WRITE, "FORK of a short-lived child");
	expect(sample(201, 201, 0), TRACKER_WRITE, "sample of the child gone from /proc");
	expect(exit_(201, 100, 201, 100), TRACKER_WRITE, "EXIT of the child");
	cr_assert_eq(stats()->unattributed_gone, 2);
	cr_assert_eq(stats()->samples_written, 1);
	cr_assert_eq(stats()->samples_out_of_scope, 0);
	assert_accounted();
}

/* ---- 3. exec ---------------------------------------------------------------- */

Test(tracker, exec_keeps_uid)
{
	fx.cfg.creds_events = true;
	scope_uid(1001);
	put_task(100, 100, 1, 1001);
	start();

	expect(sample(100, 100, 0), TRACKER_WRITE, "before exec");
	expect(comm(100, 100, "make", true), TRACKER_WRITE, "COMM exec");
	expect(sample(100, 100, 0), TRACKER_WRITE, "after exec");
	/* a new task, absent from /proc: exec must not lose what it inherited */
	expect(fork_(200, 100, 200, 100), TRACKER_WRITE, "FORK");
	expect(comm(200, 200, "cc1", true), TRACKER_WRITE, "COMM exec of the child");
	expect(sample(200, 200, 0), TRACKER_WRITE, "child after exec");
	assert_accounted();
}

Test(tracker, exec_rereads_proc_without_creds_events)
{
	fx.cfg.creds_events = false;
	scope_uid(1001);
	put_task(100, 100, 1, 1001);
	put_task(300, 300, 1, 0);
	start();

	expect(sample(100, 100, 0), TRACKER_WRITE, "1001 before exec");
	expect(sample(300, 300, 0), TRACKER_DROP, "root before exec");
	/* both change uid (setuid() without exec, not seen) */
	put_task(100, 100, 1, 0);
	put_task(300, 300, 1, 1001);
	expect(comm(100, 100, "renamed", false), TRACKER_WRITE, "COMM without exec");
	expect(sample(100, 100, 0), TRACKER_WRITE, "a plain COMM does not re-read /proc");
	expect(comm(300, 300, "renamed", false), TRACKER_DROP, "COMM without exec");
	expect(sample(300, 300, 0), TRACKER_DROP, "a plain COMM does not re-read /proc");

	expect(comm(100, 100, "sh", true), TRACKER_DROP, "COMM exec of a task now root");
	expect(sample(100, 100, 0), TRACKER_DROP, "after exec, uid 0");
	expect(comm(300, 300, "sh", true), TRACKER_WRITE, "COMM exec of a task now 1001");
	expect(sample(300, 300, 0), TRACKER_WRITE, "after exec, uid 1001");
	assert_accounted();
}

Test(tracker, exec_of_task_gone_from_proc_keeps_uid)
{
	fx.cfg.creds_events = false;
	scope_uid(1001);
	put_task(100, 100, 1, 1001);
	start();

	expect(fork_(200, 100, 200, 100), TRACKER_WRITE, "FORK");
	/* the re-read finds nothing: what was inherited stays */
	expect(comm(200, 200, "cc1", true), TRACKER_WRITE, "COMM exec of a task not in /proc");
	expect(sample(200, 200, 0), TRACKER_WRITE, "after exec");
	assert_accounted();
}

/* ---- 4. set*uid() without exec ------------------------------------------------- */

Test(tracker, setuid_by_root_reads_proc)
{
	fx.cfg.creds_events = true;
	scope_uid(1001);
	put_task(600, 600, 1, 0);
	start();

	expect(sample(600, 600, 0), TRACKER_DROP, "root before setuid");
	/* the call returned before its entry is judged: /proc shows the new uid */
	put_task(600, 600, 1, 1001);
	expect(creds(ID_SETUID, 600, 600, 1001), TRACKER_CONSUMED, "sys_enter_setuid");
	expect(sample(600, 600, 0), TRACKER_WRITE, "after setuid(1001)");
	cr_assert_eq(stats()->creds_changes, 1);
	assert_accounted();
}

Test(tracker, setuid_by_root_gone)
{
	fx.cfg.creds_events = true;
	scope_uid(1001);
	put_task(600, 600, 1, 0);
	start();

	expect(sample(600, 600, 0), TRACKER_DROP, "root before setuid");
	del_task(600);
	/* /proc has nothing: setuid() by root sets every uid to its argument */
	expect(creds(ID_SETUID, 600, 600, 1001), TRACKER_CONSUMED, "sys_enter_setuid");
	expect(sample(600, 600, 0), TRACKER_WRITE, "after setuid(1001)");
	cr_assert_eq(stats()->creds_changes, 1);
	cr_assert_eq(stats()->unattributed_creds, 0);
	assert_accounted();
}

/* A call that failed: /proc, read after it returned, still shows the old uid. */
Test(tracker, setuid_failed_keeps_the_uid_proc_shows)
{
	fx.cfg.creds_events = true;
	scope_uid(1001);
	put_task(600, 600, 1, 1002);
	start();

	expect(sample(600, 600, 0), TRACKER_DROP, "uid 1002 before setuid");
	expect(creds(ID_SETUID, 600, 600, 1001), TRACKER_CONSUMED, "sys_enter_setuid, failed (EPERM)");
	expect(sample(600, 600, 0), TRACKER_DROP, "after a failed setuid(1001)");
	/* the same call succeeding does change it */
	put_task(600, 600, 1, 1001);
	expect(creds(ID_SETUID, 600, 600, 1001), TRACKER_CONSUMED, "sys_enter_setuid, succeeded");
	expect(sample(600, 600, 0), TRACKER_WRITE, "after setuid(1001)");
	cr_assert_eq(stats()->creds_changes, 2, "calls seen: %llu", (unsigned long long)stats()->creds_changes);
	assert_accounted();
}

Test(tracker, setresuid_unchanged_ruid_when_gone)
{
	fx.cfg.creds_events = true;
	scope_uid(1001);
	put_task(700, 700, 1, 1001);
	put_task(710, 710, 1, 1001);
	start();

	expect(sample(700, 700, 0), TRACKER_WRITE, "before setresuid");
	expect(sample(710, 710, 0), TRACKER_WRITE, "before setreuid");
	del_task(700);
	del_task(710);
	/* setresuid(-1, 0, 0) / setreuid(-1, 0): the real uid stays */
	expect(creds(ID_SETRESUID, 700, 700, UID_UNCHANGED), TRACKER_CONSUMED, "sys_enter_setresuid");
	expect(creds(ID_SETREUID, 710, 710, UID_UNCHANGED), TRACKER_CONSUMED, "sys_enter_setreuid");
	expect(sample(700, 700, 0), TRACKER_WRITE, "after setresuid(-1, ...)");
	expect(sample(710, 710, 0), TRACKER_WRITE, "after setreuid(-1, ...)");
	/* setresuid(0, ...) / setreuid(0, ...): the real uid becomes 0 */
	expect(creds(ID_SETRESUID, 700, 700, 0), TRACKER_CONSUMED, "sys_enter_setresuid");
	expect(creds(ID_SETREUID, 710, 710, 0), TRACKER_CONSUMED, "sys_enter_setreuid");
	expect(sample(700, 700, 0), TRACKER_DROP, "after setresuid(0, ...)");
	expect(sample(710, 710, 0), TRACKER_DROP, "after setreuid(0, ...)");
	cr_assert_eq(stats()->creds_changes, 4);
	assert_accounted();
}

/* GNU make's setresuid(-1, euid, -1) in each child: the real uid stays, nothing to
 * read in /proc (a build host's every job would cost two opens, mostly failing) */
Test(tracker, unchanged_ruid_needs_no_lookup)
{
	uint64_t lookups;

	fx.cfg.creds_events = true;
	scope_uid(1001);
	put_task(720, 720, 1, 1001);
	start();

	expect(sample(720, 720, 0), TRACKER_WRITE, "before setresuid");
	lookups = stats()->lookups;
	expect(creds(ID_SETRESUID, 720, 720, UID_UNCHANGED), TRACKER_CONSUMED, "setresuid(-1, 1001, -1)");
	expect(creds(ID_SETREUID, 720, 720, UID_UNCHANGED), TRACKER_CONSUMED, "setreuid(-1, 1001)");
	cr_assert_eq(stats()->lookups, lookups, "lookups %llu, want %llu", (unsigned long long)stats()->lookups,
		     (unsigned long long)lookups);
	expect(sample(720, 720, 0), TRACKER_WRITE, "after");
	/* a real uid set is read */
	expect(creds(ID_SETRESUID, 720, 720, 0), TRACKER_CONSUMED, "setresuid(0, 0, 0)");
	cr_assert_eq(stats()->lookups, lookups + 1);
	cr_assert_eq(stats()->creds_changes, 3);
	assert_accounted();
}

Test(tracker, setuid_by_non_root_gone_is_unattributed)
{
	fx.cfg.creds_events = true;
	scope_uid(1001);
	put_task(800, 800, 1, 1002);
	start();

	expect(sample(800, 800, 0), TRACKER_DROP, "uid 1002 before setuid");
	del_task(800);
	/* without CAP_SETUID setuid() leaves the real uid; with it, sets it: cannot tell */
	expect(creds(ID_SETUID, 800, 800, 1001), TRACKER_CONSUMED, "sys_enter_setuid");
	expect(sample(800, 800, 0), TRACKER_UNATTRIBUTED, "after setuid(1001) by uid 1002");
	expect(sample(800, 800, 0), TRACKER_UNATTRIBUTED, "after setuid(1001) by uid 1002");
	/* each unattributed sample is counted once, under its reason */
	cr_assert_eq(stats()->unattributed_creds, 2, "unattributed_creds %llu, want 2 (samples)",
		     (unsigned long long)stats()->unattributed_creds);
	cr_assert_eq(stats()->unattributed_gone, 0, "unattributed_gone %llu, want 0",
		     (unsigned long long)stats()->unattributed_gone);
	assert_accounted();
}

/* ---- 5. pid reuse -------------------------------------------------------------- */

Test(tracker, pid_reuse)
{
	scope_uid(1001);
	put_task(500, 500, 1, 1001);
	put_task(510, 510, 1, 0);
	put_task(700, 700, 1, 0);
	put_task(710, 710, 1, 1001);
	start();

	expect(sample(500, 500, 0), TRACKER_WRITE, "first task 500 (uid 1001)");
	expect(exit_(500, 1, 500, 1), TRACKER_WRITE, "EXIT of the first 500");
	del_task(500);
	expect(fork_(500, 700, 500, 700), TRACKER_DROP, "FORK of a new 500 by a root task");
	expect(sample(500, 500, 0), TRACKER_DROP, "second task 500 (uid 0)");

	expect(sample(510, 510, 0), TRACKER_DROP, "first task 510 (uid 0)");
	expect(exit_(510, 1, 510, 1), TRACKER_DROP, "EXIT of the first 510");
	del_task(510);
	expect(fork_(510, 710, 510, 710), TRACKER_WRITE, "FORK of a new 510 by a 1001 task");
	expect(sample(510, 510, 0), TRACKER_WRITE, "second task 510 (uid 1001)");
	assert_accounted();
}

Test(tracker, pid_reuse_without_exit)
{
	const struct ledger_task *log;
	struct ledger_need n;
	size_t nr;

	scope_uid(1001);
	put_task(520, 520, 1, 1001);
	put_task(700, 700, 1, 0);
	put_task(710, 710, 1, 1001);
	start();

	expect(sample(520, 520, 0), TRACKER_WRITE, "first task 520 (uid 1001)");
	n = fx.need;
	ledger__described(fx.l, &n, 0);
	/* its EXIT was lost: the FORK alone says the tid is a new task */
	expect(fork_(520, 700, 520, 700), TRACKER_DROP, "FORK of a new 520 by a root task");
	expect(sample(520, 520, 0), TRACKER_DROP, "second task 520 (uid 0)");
	/* and again, by a task of the scope that the file knows nothing of */
	expect(fork_(520, 710, 520, 710), TRACKER_WRITE, "FORK of a third 520 by a 1001 task");
	expect(sample(520, 520, 0), TRACKER_WRITE, "third task 520 (uid 1001)");
	cr_assert_eq(fx.need.what, SYNTH_COMM | SYNTH_MAPS,
		     "nothing of the first 520 describes the third: need %#x", fx.need.what);
	log = ledger__written_tasks(fx.l, &nr);
	cr_assert_eq(nr, 2, "two distinct tasks 520 written: %zu logged", nr);
	cr_assert_eq(log[0].tid, 520);
	cr_assert_eq(log[1].tid, 520);
	assert_accounted();
}

/* ---- 6. cgroups ---------------------------------------------------------------- */

Test(tracker, cgroup_scope)
{
	uint64_t a, ax, b, ab;
	const uint64_t made = 999999, elsewhere = 888888, sibling = 777777;

	a = mk_cgroup_dir("/a");
	ax = mk_cgroup_dir("/a/x");
	b = mk_cgroup_dir("/b");
	ab = mk_cgroup_dir("/ab");
	fx.cfg.cgroup_fd = fx.cg_fd;
	scope_cgroup("/a", a);
	put_task(100, 100, 1, 0);
	put_task_cgroup(100, "/a");
	put_task(300, 300, 1, 0);
	put_task_cgroup(300, "/b");
	start();

	expect(sample(100, 100, a), TRACKER_WRITE, "sample in /a");
	expect(sample(100, 100, ax), TRACKER_WRITE, "sample in /a/x (made before the recording)");
	expect(sample(300, 300, b), TRACKER_DROP, "sample in /b");
	expect(sample(300, 300, ab), TRACKER_DROP, "sample in /ab (a prefix, not a child)");
	expect(sample(300, 300, made), TRACKER_DROP, "sample in a cgroup not heard of");

	expect(cgroup_rec(made, "/a/new"), TRACKER_CONSUMED, "CGROUP /a/new");
	expect(cgroup_rec(elsewhere, "/b/new"), TRACKER_CONSUMED, "CGROUP /b/new");
	expect(cgroup_rec(sibling, "/abc"), TRACKER_CONSUMED, "CGROUP /abc");
	expect(sample(300, 300, made), TRACKER_WRITE, "sample in /a/new");
	cr_assert_eq(fx.need.cgroup, made, "the new cgroup's record goes first");
	cr_assert_str_eq(fx.need.cgroup_path, "/a/new");
	expect(sample(300, 300, elsewhere), TRACKER_DROP, "sample in /b/new");
	expect(sample(300, 300, sibling), TRACKER_DROP, "sample in /abc");

	/* 300 moves from /b to /a and back: each sample carries where it ran */
	expect(sample(300, 300, b), TRACKER_DROP, "300 in /b");
	expect(sample(300, 300, a), TRACKER_WRITE, "300 moved to /a");
	expect(sample(300, 300, b), TRACKER_DROP, "300 back in /b");
	expect(sample(300, 300, a), TRACKER_WRITE, "300 in /a again");
	assert_accounted();
}

Test(tracker, cgroup_scope_sideband)
{
	uint64_t a, b;

	a = mk_cgroup_dir("/a");
	b = mk_cgroup_dir("/b");
	fx.cfg.cgroup_fd = fx.cg_fd;
	scope_cgroup("/a", a);
	put_task(100, 100, 1, 0);
	put_task_cgroup(100, "/a");
	put_task(300, 300, 1, 0);
	put_task_cgroup(300, "/b");
	start();

	/* records without a cgroup field: judged by the task's cgroup from /proc */
	expect(fork_(101, 100, 101, 100), TRACKER_WRITE, "FORK by a task in /a");
	expect(fork_(301, 300, 301, 300), TRACKER_DROP, "FORK by a task in /b");
	expect(sample(101, 101, a), TRACKER_WRITE, "sample of the child in /a");
	/* ... or by the last cgroup its samples carried */
	expect(sample(300, 300, a), TRACKER_WRITE, "300 moved to /a");
	expect(fork_(302, 300, 302, 300), TRACKER_WRITE, "FORK by 300, now in /a");
	expect(sample(300, 300, b), TRACKER_DROP, "300 back in /b");
	expect(comm(300, 300, "x", false), TRACKER_DROP, "COMM of 300, now in /b");
	assert_accounted();
}

/* ---- 7. the first-time look-up ---------------------------------------------------------------- */

Test(tracker, look_up_reads_proc_while_task_lives)
{
	struct rec r1, r2, r3;
	const struct perf_event_header *s1, *s2, *s3;

	scope_uid(1001);
	put_task(800, 800, 1, 1001);
	put_task(810, 810, 1, 1001);
	start();

	/* read from the ring buffers: samples of 800 and of a thread of 810 */
	s1 = mk_sample(&r1, 800, 800, 2000000, 0);
	s2 = mk_sample(&r2, 810, 811, 2000100, 0);
	s3 = mk_sample(&r3, 800, 800, 2000200, 0);
	cr_assert_eq(tracker__look_up(fx.t, s1), TRACKER_LOOKED_UP);
	cr_assert_eq(stats()->lookups, 1, "the unknown task is read at its look-up");
	cr_assert_eq(tracker__look_up(fx.t, s2), TRACKER_LOOKED_UP);
	cr_assert_eq(tracker__look_up(fx.t, s3), TRACKER_LOOKED_UP);
	cr_assert_eq(stats()->lookups, 2, "a thread takes its process's facts; a known task is not read again");
	/* they exit before the round is judged */
	del_task(800);
	del_task(810);
	expect(judge(s1, 2000000), TRACKER_WRITE, "sample of 800, gone since its look-up");
	expect(judge(s2, 2000100), TRACKER_WRITE, "sample of 810/811, gone since its look-up");
	expect(judge(s3, 2000200), TRACKER_WRITE, "sample of 800 again");
	cr_assert_eq(stats()->unattributed_gone, 0);
	cr_assert_eq(stats()->samples_written, 3);
	cr_assert_eq(stats()->lookups, 2);
}

/*
 * A pre-existing task gone before its sample was read: its EXIT, written before /proc
 * lost it, may lie past where this pass read another ring buffer.  the look-up asks for
 * one more pass before judging; the EXIT, read then, gives it its parent's facts.
 */
Test(tracker, look_up_gone_task_waits_for_its_exit)
{
	struct rec rs, re;
	const struct perf_event_header *s, *e;

	scope_uid(1001);
	put_task(700, 700, 1, 1001);
	start();
	s = mk_sample(&rs, 710, 710, 2000000, 0);
	cr_assert_eq(tracker__look_up(fx.t, s), TRACKER_WAIT_FOR_EXIT, "gone with no facts: read the buffers again first");
	e = mk_fork(&re, PERF_RECORD_EXIT, 710, 700, 710, 700, 2000100);
	cr_assert_eq(tracker__look_up(fx.t, e), TRACKER_LOOKED_UP);
	expect(judge(s, 2000000), TRACKER_WRITE, "sample of 710, the tenant's child");
	expect(judge(e, 2000100), TRACKER_WRITE, "its EXIT");
	cr_assert_eq(stats()->unattributed_gone, 0);
}

/*
 * ... and named: a child forked just before the recording, sampled before its exec and
 * gone before /proc could name it, has its parent's name (the kernel copies it at
 * fork); its exec's COMM, judged after that sample, names what follows.  Issue 33.
 */
Test(tracker, gone_before_look_up_named_as_its_parent)
{
	struct rec rs, rc, re, rt;
	const struct perf_event_header *s, *c, *e, *t;
	struct perf_record_comm *cr;

	scope_uid(1001);
	put_task(700, 700, 1, 1001);
	start();
	s = mk_sample(&rs, 710, 710, 2000000, 0);
	cr_assert_eq(tracker__look_up(fx.t, s), TRACKER_WAIT_FOR_EXIT);
	e = mk_fork(&re, PERF_RECORD_EXIT, 710, 700, 710, 700, 2000300);
	cr_assert_eq(tracker__look_up(fx.t, e), TRACKER_LOOKED_UP);
	expect(judge(s, 2000000), TRACKER_WRITE, "sample of 710 before its exec");
	cr_assert(fx.need.what & SYNTH_COMM, "need %#x", fx.need.what);
	cr_assert_not_null(fx.need.comm, "a sample of the tenant with no name to give it");
	cr_assert_str_eq(fx.need.comm, "task700", "its parent's name, as at its fork");
	cr_assert_eq(stats()->comm_from_parent, 1);
	/* its exec: a COMM record, then a sample under the new name */
	c = mk_sample(&rc, 710, 710, 2000100, 0);       /* (storage for the COMM below) */
	cr = (struct perf_record_comm *)(void *)&rc;
	*cr = (struct perf_record_comm){ .header = { .type = PERF_RECORD_COMM, .misc = PERF_RECORD_MISC_COMM_EXEC,
						     .size = sizeof(*cr) + 8 }, .pid = 710, .tid = 710 };
	strcpy(cr->comm, "prof-hot");
	expect(judge(c, 2000100), TRACKER_WRITE, "its exec's COMM");
	t = mk_sample(&rt, 710, 710, 2000200, 0);
	expect(judge(t, 2000200), TRACKER_WRITE, "sample of 710 after its exec");
	cr_assert_not(fx.need.what & SYNTH_COMM, "the COMM written names it: need %#x", fx.need.what);
	cr_assert_str_eq(fx.j.comm, "prof-hot");
	expect(judge(e, 2000300), TRACKER_WRITE, "its EXIT");
	cr_assert_eq(stats()->unattributed_gone, 0);
}

/* A child whose FORK is read, even after its EXIT: named by its parent's COMMs when
 * the FORK is judged, not counted as named after its parent at its EXIT's look-up. */
Test(tracker, forked_in_the_recording_not_named_at_exit)
{
	struct rec rf, rs, re;
	const struct perf_event_header *f, *s, *e;

	scope_uid(1001);
	put_task(700, 700, 1, 1001);
	start();
	f = mk_fork(&rf, PERF_RECORD_FORK, 720, 700, 720, 700, 2000000);
	s = mk_sample(&rs, 720, 720, 2000100, 0);
	e = mk_fork(&re, PERF_RECORD_EXIT, 720, 700, 720, 700, 2000200);
	/* its EXIT read first (another CPU's ring buffer), then its FORK */
	cr_assert_eq(tracker__look_up(fx.t, e), TRACKER_LOOKED_UP);
	cr_assert_eq(tracker__look_up(fx.t, f), TRACKER_LOOKED_UP);
	cr_assert_eq(tracker__look_up(fx.t, s), TRACKER_LOOKED_UP);
	expect(judge(f, 2000000), TRACKER_WRITE, "FORK of 720");
	expect(judge(s, 2000100), TRACKER_WRITE, "sample of 720");
	expect(judge(e, 2000200), TRACKER_WRITE, "its EXIT");
	cr_assert_eq(stats()->comm_from_parent, 0);
}

/*
 * A FORK read while its parent, there before the recording, still runs: the parent is
 * read at the look-up, not later when the FORK is judged (by then it may be gone).
 */
Test(tracker, look_up_fork_reads_the_parent_early)
{
	struct rec rf, rs;
	const struct perf_event_header *f, *s;

	scope_uid(1001);
	put_task(800, 800, 1, 1001);
	start();
	f = mk_fork(&rf, PERF_RECORD_FORK, 810, 800, 810, 800, 2000000);
	s = mk_sample(&rs, 810, 810, 2000100, 0);
	cr_assert_eq(tracker__look_up(fx.t, f), TRACKER_LOOKED_UP);
	cr_assert_eq(tracker__look_up(fx.t, s), TRACKER_LOOKED_UP);
	/* the parent exits and is reaped before the round is judged */
	cr_assert_eq(unlinkat(fx.proc_fd, "800/status", 0), 0);
	expect(judge(f, 2000000), TRACKER_WRITE, "FORK of the tenant's child, its parent gone since");
	expect(judge(s, 2000100), TRACKER_WRITE, "sample of the child");
	cr_assert_eq(stats()->unattributed_gone, 0);
}

/* A FORK whose parent is gone already at the look-up: the child is read then instead. */
Test(tracker, look_up_fork_parent_gone_reads_the_child)
{
	struct rec rf, rs;
	const struct perf_event_header *f, *s;

	scope_uid(1001);
	put_task(910, 910, 900, 1001);          /* 900 is not in /proc */
	start();
	f = mk_fork(&rf, PERF_RECORD_FORK, 910, 900, 910, 900, 2000000);
	s = mk_sample(&rs, 910, 910, 2000100, 0);
	cr_assert_eq(tracker__look_up(fx.t, f), TRACKER_LOOKED_UP);
	cr_assert_eq(tracker__look_up(fx.t, s), TRACKER_LOOKED_UP);
	cr_assert_eq(unlinkat(fx.proc_fd, "910/status", 0), 0);
	expect(judge(f, 2000000), TRACKER_WRITE, "FORK of a child read at its look-up");
	expect(judge(s, 2000100), TRACKER_WRITE, "its sample, after it is gone too");
	cr_assert_eq(stats()->unattributed_gone, 0);
}

Test(tracker, look_up_fork_placeholder)
{
	struct rec rf, rs, rs2, rf2;
	const struct perf_event_header *f, *s, *s2, *f2;
	uint64_t lookups;

	scope_uid(1001);
	put_task(100, 100, 1, 1001);
	put_task(300, 300, 1, 0);
	start();
	expect(sample(100, 100, 0), TRACKER_WRITE, "the parent");
	expect(sample(300, 300, 0), TRACKER_DROP, "an unrelated root task");
	lookups = stats()->lookups;

	/* a new child's FORK is read, then its sample: no /proc read for it */
	f = mk_fork(&rf, PERF_RECORD_FORK, 200, 100, 200, 100, 2000000);
	s = mk_sample(&rs, 200, 200, 2000100, 0);
	cr_assert_eq(tracker__look_up(fx.t, f), TRACKER_LOOKED_UP);
	cr_assert_eq(tracker__look_up(fx.t, s), TRACKER_LOOKED_UP);
	cr_assert_eq(stats()->lookups, lookups, "no /proc read for a task whose FORK is queued");
	/* the sample of another new child is read before its FORK (another CPU) */
	s2 = mk_sample(&rs2, 310, 310, 2000300, 0);
	f2 = mk_fork(&rf2, PERF_RECORD_FORK, 310, 300, 310, 300, 2000200);
	cr_assert_eq(tracker__look_up(fx.t, s2), TRACKER_WAIT_FOR_EXIT, "its FORK is in a buffer not read yet: another pass first");
	cr_assert_eq(tracker__look_up(fx.t, f2), TRACKER_LOOKED_UP);

	/* judged in time order: the FORKs decide, by inheritance */
	expect(judge(f, 2000000), TRACKER_WRITE, "FORK of 200");
	expect(judge(s, 2000100), TRACKER_WRITE, "sample of 200");
	expect(judge(f2, 2000200), TRACKER_DROP, "FORK of 310 by a root task");
	expect(judge(s2, 2000300), TRACKER_DROP, "sample of 310");
	cr_assert_eq(stats()->unattributed_gone, 0);
}

/* ---- 8. what the file needs first ------------------------------------------------ */

Test(tracker, need_comm_and_maps_once)
{
	struct ledger_need n;

	scope_uid(1001);
	put_task(100, 100, 1, 1001);
	put_task(200, 200, 1, 1001);
	start();

	expect(sample(100, 100, 0), TRACKER_WRITE, "first sample of a pre-existing task");
	cr_assert_eq(fx.need.what, SYNTH_COMM | SYNTH_MAPS);
	cr_assert_eq(fx.need.pid, 100);
	cr_assert_eq(fx.need.tid, 100);
	cr_assert_eq(fx.need.cgroup, 0);
	n = fx.need;
	ledger__described(fx.l, &n, 0);
	expect(sample(100, 100, 0), TRACKER_WRITE, "second sample");
	cr_assert_eq(fx.need.what, 0, "described: need %#x", fx.need.what);
	cr_assert_eq(fx.need.cgroup, 0);

	/* a thread needs its comm; its process's maps are there */
	expect(sample(100, 101, 0), TRACKER_WRITE, "first sample of a thread");
	cr_assert_eq(fx.need.what, SYNTH_COMM);
	cr_assert_eq(fx.need.pid, 100);
	cr_assert_eq(fx.need.tid, 101);

	/* a child forked from a described parent: the FORK tells perf its comm and maps */
	expect(fork_(150, 100, 150, 100), TRACKER_WRITE, "FORK");
	expect(sample(150, 150, 0), TRACKER_WRITE, "sample of the child");
	cr_assert_eq(fx.need.what, 0, "child of a described task: need %#x", fx.need.what);

	/* /proc had nothing: tried once, not again */
	expect(sample(200, 200, 0), TRACKER_WRITE, "first sample of 200");
	cr_assert_eq(fx.need.what, SYNTH_COMM | SYNTH_MAPS);
	n = fx.need;
	ledger__described(fx.l, &n, -ESRCH);
	expect(sample(200, 200, 0), TRACKER_WRITE, "second sample of 200");
	cr_assert_eq(fx.need.what, 0);
}

/* prof's corked workload: before its exec it is prof, whatever /proc says by the time
 * its samples are judged; no maps from /proc for it (they are the program's). */
Test(tracker, workload_named_prof_before_exec)
{
	fx.scope.workload = 100;
	put_task(100, 100, 50, 1001);   /* /proc: already the program ("task100") */
	start();
	cr_assert_eq(tracker__add_tree_root(fx.t, 100), 0);
	ledger__set_workload(fx.l, 100, "prof");

	expect(sample(100, 100, 0), TRACKER_WRITE, "sample before exec");
	cr_assert(fx.need.pre_exec, "not marked as before the exec");
	cr_assert_eq(fx.need.what, SYNTH_COMM, "need %#x", fx.need.what);
	cr_assert_str_eq(fx.need.comm, "prof");
	ledger__described(fx.l, &fx.need, 0);
	expect(sample(100, 100, 0), TRACKER_WRITE, "second sample before exec");
	cr_assert_eq(fx.need.what, 0, "need %#x", fx.need.what);

	expect(comm(100, 100, "hot", true), TRACKER_WRITE, "COMM exec");
	expect(sample(100, 100, 0), TRACKER_WRITE, "sample after exec");
	cr_assert_not(fx.need.pre_exec);
	cr_assert_eq(fx.need.what, 0, "need %#x", fx.need.what);
	assert_accounted();
}

Test(tracker, need_nothing_after_written_exec)
{
	scope_uid(1001);
	put_task(100, 100, 1, 1001);
	put_task(110, 110, 1, 1001);
	start();

	expect(comm(100, 100, "sh", true), TRACKER_WRITE, "COMM exec");
	expect(sample(100, 100, 0), TRACKER_WRITE, "sample after exec");
	cr_assert_eq(fx.need.what, 0, "exec written: need %#x", fx.need.what);

	/* a rename (no exec) gives the comm, not the maps */
	expect(comm(110, 110, "worker", false), TRACKER_WRITE, "COMM");
	expect(sample(110, 110, 0), TRACKER_WRITE, "sample after rename");
	cr_assert_eq(fx.need.what, SYNTH_MAPS, "need %#x", fx.need.what);
}

Test(tracker, need_again_after_dropped_records)
{
	struct ledger_need n;

	fx.cfg.creds_events = true;
	scope_uid(1001);
	put_task(100, 100, 1, 1001);
	start();

	expect(sample(100, 100, 0), TRACKER_WRITE, "first sample");
	n = fx.need;
	ledger__described(fx.l, &n, 0);
	/* it leaves the scope, execs unseen by the file, and comes back */
	put_task(100, 100, 1, 0);
	creds(ID_SETUID, 100, 100, 0);
	expect(comm(100, 100, "other", true), TRACKER_DROP, "exec while out of scope");
	put_task(100, 100, 1, 1001);
	creds(ID_SETUID, 100, 100, 1001);
	expect(sample(100, 100, 0), TRACKER_WRITE, "back in scope");
	cr_assert_eq(fx.need.what, SYNTH_COMM | SYNTH_MAPS, "the file's comm and maps are stale: need %#x",
		     fx.need.what);
}

Test(tracker, need_cgroup_once)
{
	struct seen_cgroups seen = { 0 };
	uint64_t ax, b;

	mk_cgroup_dir("/a");
	ax = mk_cgroup_dir("/a/x");
	b = mk_cgroup_dir("/b");
	fx.cfg.cgroup_fd = fx.cg_fd;
	scope_uid(1001);
	put_task(100, 100, 1, 1001);
	put_task(200, 200, 1, 1001);
	put_task(300, 300, 1, 0);
	start();

	expect(sample(100, 100, ax), TRACKER_WRITE, "first sample in /a/x");
	cr_assert_eq(fx.need.cgroup, ax);
	cr_assert_not_null(fx.need.cgroup_path);
	cr_assert_str_eq(fx.need.cgroup_path, "/a/x");
	expect(sample(100, 100, ax), TRACKER_WRITE, "second sample in /a/x");
	cr_assert_eq(fx.need.cgroup, 0);
	expect(sample(200, 200, ax), TRACKER_WRITE, "another task in /a/x");
	cr_assert_eq(fx.need.cgroup, 0);

	/* a dropped sample does not count as the cgroup written */
	expect(sample(300, 300, b), TRACKER_DROP, "root task in /b");
	cr_assert_eq(fx.need.cgroup, 0);
	expect(sample(200, 200, b), TRACKER_WRITE, "first written sample in /b");
	cr_assert_eq(fx.need.cgroup, b);
	cr_assert_str_eq(fx.need.cgroup_path, "/b");
	expect(sample(100, 100, b), TRACKER_WRITE, "second written sample in /b");
	cr_assert_eq(fx.need.cgroup, 0);

	ledger__for_each_written_cgroup(fx.l, seen_cgroup, &seen);
	cr_assert_eq(seen.nr, 2);
	cr_assert((seen.ids[0] == ax && seen.ids[1] == b) || (seen.ids[0] == b && seen.ids[1] == ax));
	cr_assert_str_eq(seen.paths[seen.ids[0] == ax ? 0 : 1], "/a/x");
	cr_assert_str_eq(seen.paths[seen.ids[0] == ax ? 1 : 0], "/b");
}

/* ---- 9. process trees ------------------------------------------------------------ */

Test(tracker, workload_tree)
{
	fx.scope.workload = 100;
	put_task(100, 100, 50, 1001);
	put_task(300, 300, 1, 1001);
	start();
	cr_assert_eq(tracker__add_tree_root(fx.t, 100), 0);

	expect(fork_(101, 100, 101, 100), TRACKER_WRITE, "FORK of a child");
	expect(fork_(100, 100, 102, 100), TRACKER_WRITE, "FORK of a thread");
	expect(fork_(103, 101, 103, 101), TRACKER_WRITE, "FORK of a grandchild");
	expect(fork_(103, 103, 104, 103), TRACKER_WRITE, "FORK of the grandchild's thread");
	expect(sample(100, 100, 0), TRACKER_WRITE, "the workload");
	expect(sample(101, 101, 0), TRACKER_WRITE, "its child");
	expect(sample(100, 102, 0), TRACKER_WRITE, "its thread");
	expect(sample(103, 104, 0), TRACKER_WRITE, "its grandchild's thread");
	/* same uid, other tree */
	expect(sample(300, 300, 0), TRACKER_DROP, "an unrelated task");
	expect(fork_(301, 300, 301, 300), TRACKER_DROP, "FORK by the unrelated task");
	expect(sample(301, 301, 0), TRACKER_DROP, "its child");
	assert_accounted();
}

Test(tracker, pid_tree_from_proc)
{
	scope_pid(100);
	put_task(100, 100, 1, 0);
	put_task(200, 200, 100, 0);
	put_task(300, 300, 200, 0);
	put_task(301, 300, 200, 0);
	put_task(400, 400, 1, 0);
	put_task(410, 410, 400, 0);
	start();

	/* found through the PPid chain 300 -> 200 -> 100, before the others are known */
	expect(sample(300, 300, 0), TRACKER_WRITE, "pre-existing grandchild");
	expect(sample(300, 301, 0), TRACKER_WRITE, "its thread");
	expect(sample(200, 200, 0), TRACKER_WRITE, "pre-existing child");
	expect(sample(100, 100, 0), TRACKER_WRITE, "the root");
	expect(sample(410, 410, 0), TRACKER_DROP, "a task of another tree");
	expect(sample(400, 400, 0), TRACKER_DROP, "another tree's root");
	expect(fork_(500, 300, 500, 300), TRACKER_WRITE, "FORK by the grandchild");
	expect(sample(500, 500, 0), TRACKER_WRITE, "new great-grandchild");
	assert_accounted();
}

/* No depth limit: a leaf 100 levels below the --pid root is in its tree. */
Test(tracker, pid_tree_deep_chain)
{
	scope_pid(1000);
	put_task(1000, 1000, 1, 0);
	for (int32_t i = 1; i <= 100; i++)
		put_task(1000 + i, 1000 + i, 1000 + i - 1, 0);
	put_task(2000, 2000, 1, 0);
	for (int32_t i = 1; i <= 100; i++)
		put_task(2000 + i, 2000 + i, 2000 + i - 1, 0);
	start();

	expect(sample(1100, 1100, 0), TRACKER_WRITE, "a task 100 levels below the root");
	expect(sample(1050, 1050, 0), TRACKER_WRITE, "one 50 levels below");
	expect(sample(2100, 2100, 0), TRACKER_DROP, "a task 100 levels down another tree");
	assert_accounted();
}

/* --pid 1: init's tree is every task but the kernel's threads. */
Test(tracker, pid_tree_of_init)
{
	scope_pid(1);
	put_task(1, 1, 0, 0);
	put_task(2, 2, 0, 0);
	put_task(500, 500, 1, 1001);
	put_task(501, 501, 500, 1001);
	put_task(600, 600, 2, 0);
	start();

	expect(sample(500, 500, 0), TRACKER_WRITE, "a child of init");
	expect(sample(501, 501, 0), TRACKER_WRITE, "a grandchild of init");
	expect(sample(1, 1, 0), TRACKER_WRITE, "init");
	expect(sample(600, 600, 0), TRACKER_DROP, "a kernel thread");
	assert_accounted();
}

/* Parents read at different moments can form a cycle (pids reused): undecidable,
 * counted as unattributed, never silently dropped. */
Test(tracker, pid_tree_cycle_is_unattributed)
{
	scope_pid(100);
	put_task(100, 100, 1, 0);
	put_task(700, 700, 701, 0);
	put_task(701, 701, 702, 0);
	put_task(702, 702, 700, 0);
	start();

	expect(sample(700, 700, 0), TRACKER_UNATTRIBUTED, "a task whose ancestry loops");
	cr_assert_eq(stats()->unattributed_gone, 1);
	assert_accounted();
}

Test(tracker, uid_or_pid_with_unreadable_ancestor)
{
	/* --uid 1001 --pid 100: either is enough */
	scope_uid(1001);
	scope_pid(100);
	put_task(100, 100, 1, 0);
	/* 600's parent 4242 is gone from /proc: its tree is unknown, its uid is not */
	put_task(600, 600, 4242, 1001);
	start();

	expect(sample(600, 600, 0), TRACKER_WRITE, "uid 1001, ancestry unreadable");
	assert_accounted();
}

/* ---- 10. everything ------------------------------------------------------------- */

Test(tracker, all)
{
	fx.scope.all = true;
	put_task(100, 100, 1, 0);
	put_task(200, 200, 1, 1001);
	start();

	expect(sample(100, 100, 0), TRACKER_WRITE, "root task");
	expect(sample(200, 200, 0), TRACKER_WRITE, "uid 1001 task");
	expect(sample(999, 999, 0), TRACKER_WRITE, "task gone from /proc");
	expect(sample(0, 0, 0), TRACKER_WRITE, "idle");
	expect(fork_(101, 100, 101, 100), TRACKER_WRITE, "FORK");
	expect(comm(101, 101, "x", true), TRACKER_WRITE, "COMM exec");
	expect(exit_(101, 100, 101, 100), TRACKER_WRITE, "EXIT");
	expect(exit_(998, 1, 998, 1), TRACKER_WRITE, "EXIT of a task never seen");
	cr_assert_eq(stats()->samples_written, 4);
	cr_assert_eq(stats()->samples_out_of_scope, 0);
	cr_assert_eq(stats()->unattributed_gone, 0);
	assert_accounted();
}

Test(tracker, idle_out_of_narrowed_scope)
{
	scope_uid(0);
	put_task(100, 100, 1, 0);
	start();

	expect(sample(100, 100, 0), TRACKER_WRITE, "root task, scope uid 0");
	expect(sample(0, 0, 0), TRACKER_DROP, "idle: of no tenant, not even uid 0");
	cr_assert_eq(stats()->samples_out_of_scope, 1);
	assert_accounted();
}

Test(tracker, all_idle_samples_in_sample_times)
{
	fx.scope.all = true;
	put_task(100, 100, 1, 0);
	start();

	expect(sample(0, 0, 0), TRACKER_WRITE, "idle first");
	expect(sample(100, 100, 0), TRACKER_WRITE, "task");
	expect(sample(0, 0, 0), TRACKER_WRITE, "idle last");
	/* first_time/last_time are those of written samples: idle ones included */
	cr_assert_eq(stats()->first_time, 1000000 + 100, "first_time %llu",
		     (unsigned long long)stats()->first_time);
	cr_assert_eq(stats()->last_time, 1000000 + 300, "last_time %llu",
		     (unsigned long long)stats()->last_time);
}

/* ---- 11. the written-task log --------------------------------------------------- */

Test(tracker, written_tasks_once_each)
{
	const struct ledger_task *log;
	size_t nr = 99;

	scope_uid(1001);
	scope_uid(1002);
	put_task(100, 100, 1, 1001);
	put_task(200, 200, 1, 1002);
	put_task(300, 300, 1, 0);
	start();

	log = ledger__written_tasks(fx.l, &nr);
	cr_assert_eq(nr, 0);
	expect(sample(200, 200, 0), TRACKER_WRITE, "200");
	expect(sample(100, 100, 0), TRACKER_WRITE, "100");
	expect(sample(200, 200, 0), TRACKER_WRITE, "200 again");
	expect(sample(300, 300, 0), TRACKER_DROP, "300, out of scope");
	expect(sample(100, 101, 0), TRACKER_WRITE, "thread 101 of 100");
	expect(sample(100, 100, 0), TRACKER_WRITE, "100 again");
	expect(sample(100, 101, 0), TRACKER_WRITE, "101 again");

	log = ledger__written_tasks(fx.l, &nr);
	cr_assert_eq(nr, 3, "%zu tasks logged", nr);
	cr_assert_not_null(log);
	cr_assert_eq(log[0].pid, 200);
	cr_assert_eq(log[0].tid, 200);
	cr_assert_eq(log[0].uid, 1002);
	cr_assert(log[0].uid_known);
	cr_assert_eq(log[1].pid, 100);
	cr_assert_eq(log[1].tid, 100);
	cr_assert_eq(log[1].uid, 1001);
	cr_assert(log[1].uid_known);
	cr_assert_eq(log[2].pid, 100);
	cr_assert_eq(log[2].tid, 101);
	cr_assert_eq(log[2].uid, 1001);
	cr_assert(log[2].uid_known);
	ledger__written_tasks(fx.l, &nr);
	cr_assert_eq(nr, 3);
}

/* A COMM dropped while the task was out of scope still names it: when the task enters
 * the scope after /proc lost it, the file gets a COMM with that name, not none. */
/* su's child: forked as root (dropped), setuid to the tenant before its exec, gone
 * before /proc could name it: its samples are named as su was, as at its fork. */
Test(tracker, child_entering_the_scope_before_exec_named_as_its_parent)
{
	fx.cfg.creds_events = true;
	scope_uid(1001);
	put_task(600, 600, 1, 0);
	start();

	expect(sample(600, 600, 0), TRACKER_DROP, "root's su");
	expect(fork_(610, 600, 610, 600), TRACKER_DROP, "su's child, as root");
	/* (never in this /proc: gone by the time anything reads it) */
	expect(creds(ID_SETUID, 610, 610, 1001), TRACKER_CONSUMED, "sys_enter_setuid");
	expect(sample(610, 610, 0), TRACKER_WRITE, "after setuid(1001), before its exec");
	cr_assert(fx.need.what & SYNTH_COMM, "need %#x", fx.need.what);
	cr_assert_not_null(fx.need.comm, "nothing to name it with when /proc has nothing");
	cr_assert_str_eq(fx.need.comm, "task600", "its parent's name, as at its fork");
	assert_accounted();
}

Test(tracker, dropped_comm_names_the_task_later)
{
	fx.cfg.creds_events = true;
	scope_uid(1001);
	put_task(600, 600, 1, 0);
	start();

	expect(sample(600, 600, 0), TRACKER_DROP, "root before exec");
	expect(comm(600, 600, "worker", true), TRACKER_DROP, "exec while root");
	del_task(600);
	expect(creds(ID_SETUID, 600, 600, 1001), TRACKER_CONSUMED, "sys_enter_setuid");
	expect(sample(600, 600, 0), TRACKER_WRITE, "after setuid(1001)");
	cr_assert(fx.need.what & SYNTH_COMM, "need %#x", fx.need.what);
	cr_assert_not_null(fx.need.comm);
	cr_assert_str_eq(fx.need.comm, "worker", "the name of the dropped COMM, not /proc's");
	assert_accounted();
}
