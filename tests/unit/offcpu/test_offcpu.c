/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Off-CPU intervals from hand-made records: a sleep is offcpu-blocked, a preemption
 * offcpu-runq split by who held the CPU (by uid for an admin, "other tenants" for a
 * tenant), an interval across a LOST gap is lost and never written, tasks outside the
 * scope are not tracked, and a record naming the context-switch event is renamed.
 * With the sched tracepoints: a sleep is blocked to its wake-up then runq split by
 * holder, a wait moved to another CPU is split on each, others' wake-ups are ignored.
 * An admin's holders are entries of the holder table (uid and cgroup); a holder's
 * uid is read again after its exec, and after a set*uid() from the call on; an interval without a stack sample carries its
 * thread's cgroup as the tracker knows it.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <criterion/criterion.h>
#include <perf/event.h>

#include "prof/offcpu/offcpu.h"
#include "prof/offcpu/offcpu_events.h"

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | \
	    PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)
#define SWITCH_ID 77
#define IN_SCOPE 100    /* the scope's thread */
#define NEIGHBOUR 200   /* uid 1001's */

struct emitted {
	uint64_t id, time, period, ip, cgroup;
	uint32_t cpu, holder;
	uint16_t misc;
};

static struct sample_layout layout;
static struct emitted out[32];
static size_t nr_out;
static struct offcpu *o;
static const uint64_t switch_ids[] = { SWITCH_ID };
static int proc_fd = -1;
/* the sched tracepoints' ids and their fields' offsets (as this kernel's format files) */
#define WAKE_ID 78
#define MIGRATE_ID 79
static const uint64_t wake_ids[] = { WAKE_ID }, migrate_ids[] = { MIGRATE_ID };
static bool with_wakeups;
/* CPU quotas: the throttled time the callback says, the waits it was asked about */
static bool with_quota;
static uint64_t quota_ns, quota_t0, quota_t1;
static int32_t watched_tid;
static uint64_t watched_at;

static int in_scope(void *ctx, int32_t pid, int32_t tid, uint64_t cgroup)
{
	return tid == IN_SCOPE;
}

static uint32_t neighbour_uid = 1001;

static bool uid_of(void *ctx, int32_t tid, uint32_t *ret)
{
	*ret = neighbour_uid;
	return tid == NEIGHBOUR || tid == NEIGHBOUR + 1;
}

/* the tracker's cgroup of the scope's thread */
static bool cgroup_of(void *ctx, int32_t tid, uint64_t *ret)
{
	*ret = 4242;
	return tid == IN_SCOPE;
}

static int emit(void *ctx, const struct perf_event_header *ev, uint64_t time)
{
	const uint64_t *u = (const uint64_t *)(const void *)(ev + 1);

	cr_assert_lt(nr_out, 32);
	out[nr_out++] = (struct emitted){ .id = u[layout.s_id], .time = u[layout.s_time], .period = u[layout.s_period],
					  .ip = u[layout.s_ip], .cpu = (uint32_t)u[layout.s_cpu],
					  .holder = (uint32_t)(u[layout.s_cpu] >> 32), .misc = ev->misc,
					  .cgroup = sample_layout__cgroup(&layout, ev) };
	cr_assert_eq(time, u[layout.s_time]);
	return 1;
}

static void watch(void *ctx, int32_t tid, uint64_t time)
{
	watched_tid = tid;
	watched_at = time;
}

static uint64_t throttled(void *ctx, int32_t tid, uint64_t t0, uint64_t t1)
{
	cr_assert_eq(tid, IN_SCOPE);
	quota_t0 = t0;
	quota_t1 = t1;
	return quota_ns;
}

static void start(bool admin, bool user_only)
{
	char dir[] = "/tmp/prof-offcpu-test.XXXXXX";
	struct offcpu_config c = { .layout = &layout, .switch_ids = switch_ids, .nr_switch_ids = 1,
				   .name_holders = admin, .user_only = user_only, .in_scope = in_scope,
				   .uid_of = uid_of, .emit = emit };

	sample_layout__init(&layout, ST);
	cr_assert_not_null(mkdtemp(dir));
	proc_fd = open(dir, O_RDONLY | O_DIRECTORY);    /* an empty /proc: no kernel threads */
	rmdir(dir);
	c.proc_fd = proc_fd;
	if (with_wakeups)
		c.wakeups = (struct offcpu_wakeups){ .wake_ids = wake_ids, .nr_wake_ids = 1, .migrate_ids = migrate_ids,
						     .nr_migrate_ids = 1, .wake_pid_off = 24, .wake_cpu_off = 32,
						     .migrate_pid_off = 12, .migrate_orig_off = 20,
						     .migrate_dest_off = 24 };
	if (with_quota) {
		c.quota_watch = watch;
		c.throttled = throttled;
	}
	c.cgroup_fd = -1;
	nr_out = 0;
	neighbour_uid = 1001;
	cr_assert_eq(offcpu__new(&c, &o), 0);
}

static void stop(void)
{
	o = offcpu__free(o);
	close(proc_fd);
}

/* The context-switch sample of tid: ip in the kernel, a two-frame chain. */
static int stack(int32_t tid, uint64_t time, uint32_t cpu)
{
	uint64_t rec[16] = { 0 };
	struct perf_event_header *h = (void *)rec;
	uint64_t *u = rec + 1;
	const struct perf_event_header *ev = h;

	/* as the kernel writes it: no PERIOD (offcpu_events.c) */
	*h = (struct perf_event_header){ .type = PERF_RECORD_SAMPLE, .misc = PERF_RECORD_MISC_KERNEL,
					 .size = 8 * 10 };
	u[0] = SWITCH_ID;
	u[1] = 0xffffffff81000000ull;
	u[2] = (uint64_t)(uint32_t)tid << 32 | (uint32_t)tid;
	u[3] = time;
	u[4] = cpu;
	u[5] = 3;
	u[6] = PERF_CONTEXT_KERNEL;
	u[7] = PERF_CONTEXT_USER;
	u[8] = 0x401000;
	return offcpu__judge(o, &ev, time);
}

/* A SWITCH_CPU_WIDE: out (tid leaves for other) or in (tid comes after other). */
static int sw(bool out_, bool preempt, int32_t tid, int32_t other, uint64_t time, uint32_t cpu)
{
	uint64_t rec[8] = { 0 };
	struct perf_record_switch *s = (void *)rec;
	uint64_t *t = rec + 2;
	const struct perf_event_header *ev = (void *)rec;

	s->header = (struct perf_event_header){
		.type = PERF_RECORD_SWITCH_CPU_WIDE, .size = 8 * 6,
		.misc = (uint16_t)((out_ ? PERF_RECORD_MISC_SWITCH_OUT : 0) |
				   (preempt ? PERF_RECORD_MISC_SWITCH_OUT_PREEMPT : 0)),
	};
	s->next_prev_pid = (uint32_t)other;
	s->next_prev_tid = (uint32_t)other;
	t[0] = (uint64_t)(uint32_t)tid << 32 | (uint32_t)tid;
	t[1] = time;
	t[2] = cpu;
	t[3] = 5;       /* the sideband's id */
	return offcpu__judge(o, &ev, time);
}

static const struct perf_event_header *lost(uint64_t time, uint64_t id, uint64_t *rec)
{
	const struct perf_event_header *ev = (void *)rec;

	memset(rec, 0, 8 * 7);
	*(struct perf_event_header *)rec = (struct perf_event_header){ .type = PERF_RECORD_LOST, .size = 8 * 7 };
	rec[1] = id;
	rec[2] = 10;
	rec[3] = 0;
	rec[4] = time;
	rec[5] = 0;
	rec[6] = id;
	cr_assert_eq(offcpu__judge(o, &ev, time), 0);
	return ev;
}

Test(offcpu, a_sleep_is_blocked_with_its_stack_and_ends_at_the_switch_in)
{
	start(true, false);
	cr_assert_eq(stack(IN_SCOPE, 1000, 0), 1, "the stack sample is consumed");
	cr_assert_eq(sw(true, false, IN_SCOPE, 0, 1001, 0), 1);
	cr_assert_eq(sw(true, false, 0, IN_SCOPE, 5001, 0), 1);
	cr_assert_eq(sw(false, false, IN_SCOPE, 0, 5001, 0), 1);
	cr_assert_eq(nr_out, 1);
	cr_assert_eq(out[0].id, OFFCPU_ID_BLOCKED);
	cr_assert_eq(out[0].period, 4000);
	cr_assert_eq(out[0].time, 5001);
	cr_assert_eq(out[0].holder, OFFCPU_HOLDER_NONE);
	cr_assert_eq(offcpu__stats(o)->blocked_ns, 4000);
	stop();
}

/* Preempted at 1001 by the neighbour (2000 ns), then the CPU idle (1000 ns). */
static void preempted(void)
{
	stack(IN_SCOPE, 1000, 1);
	sw(true, true, IN_SCOPE, NEIGHBOUR, 1001, 1);
	sw(false, false, NEIGHBOUR, IN_SCOPE, 1001, 1);
	sw(true, true, NEIGHBOUR, 0, 3001, 1);
	sw(true, false, 0, IN_SCOPE, 4001, 1);
	sw(false, false, IN_SCOPE, 0, 4001, 1);
}

static uint64_t held(uint32_t holder)
{
	uint64_t ns = 0;

	for (size_t i = 0; i < nr_out; i++) {
		cr_assert_eq(out[i].id, OFFCPU_ID_RUNQ);
		cr_assert_eq(out[i].cpu, 1);
		if (out[i].holder == holder)
			ns += out[i].period;
	}
	return ns;
}

Test(offcpu, a_preemption_is_runq_split_by_who_held_the_cpu)
{
	start(true, false);
	preempted();
	cr_assert_eq(nr_out, 2);
	cr_assert_eq(held(OFFCPU_HOLDER_TASK), 2000, "the holder table's first entry");
	cr_assert_eq(held(OFFCPU_HOLDER_IDLE), 1000);
	cr_assert_neq(out[0].time, out[1].time, "each holder's sample its own time");
	cr_assert_eq(offcpu__stats(o)->runq_ns, 3000);
	cr_assert_eq(offcpu__nr_holders(o), 1);
	cr_assert(offcpu__holder(o, OFFCPU_HOLDER_TASK)->uid_known);
	cr_assert_eq(offcpu__holder(o, OFFCPU_HOLDER_TASK)->uid, 1001);
	cr_assert_eq(offcpu__holder(o, OFFCPU_HOLDER_TASK)->cgroup, 0, "no /proc: its cgroup not known");
	cr_assert_null(offcpu__holder(o, OFFCPU_HOLDER_TASK + 1));
	cr_assert_null(offcpu__holder(o, OFFCPU_HOLDER_UID + 1001));
	stop();
}

/* The scope's cgroup throttled 1500 ns of the preemption [1001, 4001): the wait's first
 * 1500 ns are idle's, the rest split by who held the CPU (the neighbour to 3001, then
 * idle): the neighbour is charged 500 ns, not 2000. */
Test(offcpu, a_throttled_wait_is_idle_then_split_by_who_held_the_cpu)
{
	with_quota = true;
	start(true, false);
	with_quota = false;
	quota_ns = 1500;
	preempted();
	cr_assert_eq(watched_tid, IN_SCOPE, "its cgroup looked up as its wait opened");
	cr_assert_eq(watched_at, 1001);
	cr_assert_eq(quota_t0, 1001);
	cr_assert_eq(quota_t1, 4001);
	cr_assert_eq(held(OFFCPU_HOLDER_TASK), 500);
	cr_assert_eq(held(OFFCPU_HOLDER_IDLE), 2500);
	cr_assert_eq(offcpu__stats(o)->runq_ns, 3000);
	cr_assert_eq(offcpu__stats(o)->throttled_ns, 1500);
	stop();
}

Test(offcpu, a_wait_throttled_throughout_charges_no_neighbour)
{
	with_quota = true;
	start(true, false);
	with_quota = false;
	quota_ns = 5000;        /* (more than the wait: a cgroup throttled on other CPUs too) */
	preempted();
	cr_assert_eq(nr_out, 1);
	cr_assert_eq(held(OFFCPU_HOLDER_IDLE), 3000);
	cr_assert_eq(offcpu__stats(o)->throttled_ns, 3000, "at most the wait");
	stop();
}

Test(offcpu, a_wait_not_throttled_is_split_as_without_a_quota)
{
	with_quota = true;
	start(true, false);
	with_quota = false;
	quota_ns = 0;
	preempted();
	cr_assert_eq(held(OFFCPU_HOLDER_TASK), 2000);
	cr_assert_eq(held(OFFCPU_HOLDER_IDLE), 1000);
	cr_assert_eq(offcpu__stats(o)->throttled_ns, 0);
	stop();
}

/* A /proc with tids 200 and 201 (uid 1001, cgroup /b) and 202 (/c), a cgroup2 root with
 * /b and /c; removed by stop_tree. */
static char tree[] = "/tmp/prof-offcpu-tree.XXXXXX";

static void put(const char *rel, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	fputs(text, f);
	fclose(f);
}

static int start_tree(void)
{
	struct offcpu_config c = { .layout = &layout, .switch_ids = switch_ids, .nr_switch_ids = 1,
				   .name_holders = true, .in_scope = in_scope, .uid_of = uid_of, .emit = emit };
	char path[256];
	int cg;

	sample_layout__init(&layout, ST);
	strcpy(tree, "/tmp/prof-offcpu-tree.XXXXXX");
	cr_assert_not_null(mkdtemp(tree));
	for (const char *const *d = (const char *const[]){ "proc", "proc/200", "proc/201", "proc/202", "cg", "cg/b",
							   "cg/c", NULL }; *d; d++) {
		snprintf(path, sizeof(path), "%s/%s", tree, *d);
		cr_assert_eq(mkdir(path, 0755), 0);
	}
	put("proc/200/cgroup", "0::/b\n");
	put("proc/201/cgroup", "0::/b\n");
	put("proc/202/cgroup", "0::/c\n");
	snprintf(path, sizeof(path), "%s/proc", tree);
	proc_fd = open(path, O_RDONLY | O_DIRECTORY);
	snprintf(path, sizeof(path), "%s/cg", tree);
	cg = open(path, O_RDONLY | O_DIRECTORY);
	c.proc_fd = proc_fd;
	c.cgroup_fd = cg;
	nr_out = 0;
	neighbour_uid = 1001;
	cr_assert_eq(offcpu__new(&c, &o), 0);
	return cg;
}

static void stop_tree(int cg)
{
	char cmd[300];

	stop();
	close(cg);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tree);
	cr_assert_eq(system(cmd), 0);
}

/* IN_SCOPE preempted at t on CPU 1 by holder for 1000 ns. */
static void preempted_by(int32_t holder, uint64_t t)
{
	stack(IN_SCOPE, t, 1);
	sw(true, true, IN_SCOPE, holder, t + 1, 1);
	sw(false, false, holder, IN_SCOPE, t + 1, 1);
	sw(true, true, holder, IN_SCOPE, t + 1001, 1);
	sw(false, false, IN_SCOPE, holder, t + 1001, 1);
}

Test(offcpu, an_admins_holders_are_table_entries_by_uid_and_cgroup)
{
	int cg = start_tree();
	const struct offcpu_holder_info *b, *c;

	preempted_by(NEIGHBOUR, 1000);          /* uid 1001 in /b */
	preempted_by(NEIGHBOUR + 1, 3000);      /* uid 1001 in /b: the same entry */
	preempted_by(NEIGHBOUR + 2, 5000);      /* not tracked: /proc's owner, in /c */
	cr_assert_eq(nr_out, 3);
	cr_assert_eq(offcpu__nr_holders(o), 2);
	cr_assert_eq(out[0].holder, OFFCPU_HOLDER_TASK);
	cr_assert_eq(out[1].holder, OFFCPU_HOLDER_TASK, "one entry per (uid, cgroup), not per task");
	cr_assert_eq(out[2].holder, OFFCPU_HOLDER_TASK + 1);
	b = offcpu__holder(o, OFFCPU_HOLDER_TASK);
	c = offcpu__holder(o, OFFCPU_HOLDER_TASK + 1);
	cr_assert(b->uid_known && b->uid == 1001);
	cr_assert_str_eq(b->cgroup_path, "/b");
	cr_assert_neq(b->cgroup, 0);
	cr_assert(c->uid_known && c->uid == (uint32_t)getuid());
	cr_assert_str_eq(c->cgroup_path, "/c");
	cr_assert_neq(c->cgroup, b->cgroup);
	stop_tree(cg);
}

Test(offcpu, a_holders_uid_is_read_again_after_its_exec)
{
	struct { struct perf_event_header h; uint32_t pid, tid; char comm[16]; uint64_t trailer[4]; } comm = {
		.h = { .type = PERF_RECORD_COMM, .misc = PERF_RECORD_MISC_COMM_EXEC, .size = sizeof(comm) },
		.pid = NEIGHBOUR, .tid = NEIGHBOUR, .comm = "setuid-prog",
	};
	const struct perf_event_header *ev = &comm.h;
	int cg = start_tree();

	preempted_by(NEIGHBOUR, 1000);
	neighbour_uid = 1002;                   /* a setuid() ... */
	preempted_by(NEIGHBOUR, 3000);
	cr_assert_eq(out[1].holder, OFFCPU_HOLDER_TASK, "cached per task until ...");
	cr_assert_eq(offcpu__judge(o, &ev, 4000), 0, "COMM goes on to be judged");
	preempted_by(NEIGHBOUR, 5000);          /* ... its exec */
	cr_assert_eq(nr_out, 3);
	cr_assert_eq(out[2].holder, OFFCPU_HOLDER_TASK + 1, "a new entry after the exec");
	cr_assert_eq(offcpu__holder(o, out[2].holder)->uid, 1002, "never the old uid after the exec");
	stop_tree(cg);
}

/* A set*uid() entry of tid at time (call, its first argument arg): the sampling
 * layout's fixed fields, then RAW (arg at CREDS_OFF, as the syscalls' format files). */
#define CREDS_ID 80
#define RESUID_ID 81
#define CREDS_OFF 16
static int creds(uint64_t id, int32_t tid, uint64_t time, uint32_t arg)
{
	uint64_t rec[16] = { 0 };
	struct perf_event_header *h = (void *)rec;
	uint64_t *u = rec + 1, v = arg;
	const struct perf_event_header *ev = h;
	uint32_t size = 32;

	*h = (struct perf_event_header){ .type = PERF_RECORD_SAMPLE, .misc = PERF_RECORD_MISC_USER,
					 .size = (uint16_t)(layout.fixed_size + 4 + size) };
	u[layout.s_id] = id;
	u[layout.s_tid] = (uint64_t)(uint32_t)tid << 32 | (uint32_t)tid;
	u[layout.s_time] = time;
	memcpy((char *)h + layout.fixed_size, &size, 4);
	memcpy((char *)h + layout.fixed_size + 4 + CREDS_OFF, &v, 8);
	return offcpu__judge(o, &ev, time);
}

Test(offcpu, a_holders_setuid_without_exec_names_it_anew_from_the_call_on)
{
	static const uint64_t setuid_ids[] = { CREDS_ID }, setresuid_ids[] = { RESUID_ID };
	int cg = start_tree();

	cr_assert_eq(offcpu__add_creds_ids(o, CREDS_SETUID, setuid_ids, 1, CREDS_OFF), 0);
	cr_assert_eq(offcpu__add_creds_ids(o, CREDS_SETRESUID, setresuid_ids, 1, CREDS_OFF), 0);
	preempted_by(NEIGHBOUR, 1000);          /* read once: uid 1001 */
	nr_out = 0;
	/* waiting from 3001 behind it; it calls setuid(1002) at 4001 and runs on */
	stack(IN_SCOPE, 3000, 1);
	sw(true, true, IN_SCOPE, NEIGHBOUR, 3001, 1);
	sw(false, false, NEIGHBOUR, IN_SCOPE, 3001, 1);
	cr_assert_eq(creds(RESUID_ID, NEIGHBOUR, 3501, CREDS_UNCHANGED), 0, "setresuid(-1, ...): goes on, nothing");
	cr_assert_eq(offcpu__stats(o)->creds_calls, 0);
	cr_assert_eq(creds(CREDS_ID, NEIGHBOUR, 4001, 1002), 0, "goes on to the tracker");
	neighbour_uid = 1002;                   /* the tracker judges it after */
	sw(true, true, NEIGHBOUR, IN_SCOPE, 6001, 1);
	sw(false, false, IN_SCOPE, NEIGHBOUR, 6001, 1);
	cr_assert_eq(offcpu__stats(o)->creds_calls, 1);
	cr_assert_eq(nr_out, 2, "one wait, split at the call");
	cr_assert_eq(held(OFFCPU_HOLDER_TASK), 1000, "up to the call: the old uid");
	cr_assert_eq(held(OFFCPU_HOLDER_TASK + 1), 2000, "from the call: a new entry");
	cr_assert_eq(offcpu__holder(o, OFFCPU_HOLDER_TASK + 1)->uid, 1002);
	preempted_by(NEIGHBOUR, 7000);          /* later waits: the new uid */
	cr_assert_eq(out[2].holder, OFFCPU_HOLDER_TASK + 1);
	stop_tree(cg);
}

Test(offcpu, a_setuid_of_a_task_not_known_before_pins_it_unknown)
{
	static const uint64_t setuid_ids[] = { CREDS_ID };
	int cg = start_tree();

	cr_assert_eq(offcpu__add_creds_ids(o, CREDS_SETUID, setuid_ids, 1, CREDS_OFF), 0);
	/* NEIGHBOUR + 2: neither cached nor tracked; /proc may show the new uid already */
	stack(IN_SCOPE, 3000, 1);
	sw(true, true, IN_SCOPE, NEIGHBOUR + 2, 3001, 1);
	sw(false, false, NEIGHBOUR + 2, IN_SCOPE, 3001, 1);
	creds(CREDS_ID, NEIGHBOUR + 2, 4001, 1002);
	sw(true, true, NEIGHBOUR + 2, IN_SCOPE, 5001, 1);
	sw(false, false, IN_SCOPE, NEIGHBOUR + 2, 5001, 1);
	cr_assert_eq(nr_out, 2);
	cr_assert_eq(held(OFFCPU_HOLDER_UNKNOWN), 1000, "before the call: never a wrong name");
	cr_assert_eq(held(OFFCPU_HOLDER_TASK), 1000, "after it: as /proc says now");
	stop_tree(cg);
}

Test(offcpu, a_tenant_sees_other_tenants_not_their_uid)
{
	start(false, true);
	preempted();
	cr_assert_eq(held(OFFCPU_HOLDER_OTHERS), 2000);
	cr_assert_eq(held(OFFCPU_HOLDER_UID + 1001), 0);
	cr_assert_eq(offcpu__nr_holders(o), 0, "no holder table in a tenant's recording");
	for (size_t i = 0; i < nr_out; i++) {
		cr_assert_eq(out[i].ip, 0x401000, "no kernel address: the user leaf");
		cr_assert_eq(out[i].misc & PERF_RECORD_MISC_CPUMODE_MASK, PERF_RECORD_MISC_USER);
	}
	stop();
}

Test(offcpu, an_interval_across_lost_records_is_lost_not_waiting)
{
	uint64_t rec[7];

	start(true, false);
	stack(IN_SCOPE, 1000, 0);
	sw(true, true, IN_SCOPE, 0, 1001, 0);
	lost(2000, 5, rec);
	sw(false, false, IN_SCOPE, 0, 9001, 0);
	cr_assert_eq(nr_out, 0);
	cr_assert_eq(offcpu__stats(o)->lost_intervals, 1);
	cr_assert_eq(offcpu__stats(o)->lost_ns, 8000);
	cr_assert_eq(offcpu__stats(o)->runq_ns, 0);
	stop();
}

Test(offcpu, a_task_outside_the_scope_is_not_tracked)
{
	start(true, false);
	cr_assert_eq(stack(300, 1000, 0), 1);
	sw(true, false, 300, 0, 1001, 0);
	sw(false, false, 300, 0, 5001, 0);
	cr_assert_eq(nr_out, 0);
	cr_assert_eq(offcpu__stats(o)->intervals, 0);
	stop();
}

Test(offcpu, an_interval_open_at_the_end_is_cut_there)
{
	start(true, false);
	stack(IN_SCOPE, 1000, 0);
	sw(true, false, IN_SCOPE, 0, 1001, 0);
	sw(true, false, 0, 0, 3001, 0);         /* time goes on */
	cr_assert_eq(offcpu__finish(o), 0);
	cr_assert_eq(nr_out, 1);
	cr_assert_eq(out[0].period, 2000);
	cr_assert_eq(offcpu__stats(o)->cut_end, 1);
	stop();
}

Test(offcpu, an_exited_thread_opens_nothing_at_its_last_switch)
{
	struct perf_record_fork e = { .header = { .type = PERF_RECORD_EXIT, .size = sizeof(e) },
				      .pid = IN_SCOPE, .tid = IN_SCOPE };
	const struct perf_event_header *ev = &e.header;

	start(true, false);
	stack(IN_SCOPE, 1000, 0);
	cr_assert_eq(offcpu__judge(o, &ev, 1000), 0, "EXIT goes on to be judged");
	sw(true, false, IN_SCOPE, 0, 1001, 0);
	cr_assert_eq(offcpu__finish(o), 0);
	cr_assert_eq(nr_out, 0);
	stop();
}

Test(offcpu, a_record_naming_the_switch_event_names_offcpu_runq)
{
	uint64_t rec[7];
	const struct perf_event_header *ev;

	start(true, false);
	ev = lost(2000, SWITCH_ID, rec);
	cr_assert_neq((const void *)ev, (const void *)rec, "a copy");
	ev = (const void *)rec;
	cr_assert_eq(offcpu__judge(o, &ev, 2000), 0);
	cr_assert_eq(((const uint64_t *)(const void *)ev)[6], OFFCPU_ID_RUNQ);
	cr_assert_eq(rec[6], SWITCH_ID, "the original is untouched");
	stop();
}

Test(offcpu, an_interval_open_at_the_start_is_counted_not_written)
{
	start(true, false);
	sw(true, false, 0, 0, 1000, 0);         /* the first record */
	sw(false, false, IN_SCOPE, 0, 4000, 0); /* off a CPU since before */
	cr_assert_eq(nr_out, 0);
	cr_assert_eq(offcpu__stats(o)->cut_start, 1);
	cr_assert_eq(offcpu__stats(o)->cut_start_ns, 3000);
	stack(IN_SCOPE, 5000, 0);
	sw(true, false, IN_SCOPE, 0, 5001, 0);
	sw(false, false, IN_SCOPE, 0, 6001, 0);
	cr_assert_eq(nr_out, 1, "tracked from then on");
	cr_assert_eq(offcpu__stats(o)->cut_start, 1);
	stop();
}

Test(offcpu, an_interval_without_its_stack_is_written_with_none)
{
	start(true, false);
	stack(IN_SCOPE, 1000, 0);
	sw(true, false, IN_SCOPE, 0, 1001, 0);
	sw(false, false, IN_SCOPE, 0, 2001, 0);
	sw(true, true, IN_SCOPE, 0, 3001, 0);   /* no stack sample before it (1 in N) */
	sw(false, false, IN_SCOPE, 0, 3501, 0);
	cr_assert_eq(nr_out, 2);
	cr_assert_eq(out[1].id, OFFCPU_ID_RUNQ);
	cr_assert_eq(out[1].period, 500, "timed as any");
	cr_assert_eq(out[1].ip, 0, "no stack: [unknown]");
	cr_assert_eq(offcpu__stats(o)->nostack_intervals, 1);
	cr_assert_eq(offcpu__stats(o)->nostack_ns, 500);
	cr_assert_eq(offcpu__stats(o)->runq_ns + offcpu__stats(o)->blocked_ns, 1500, "both written");
	stop();
}

Test(offcpu, a_thread_forked_in_the_recording_waits_from_its_fork_to_its_first_run)
{
	struct perf_record_fork f = { .header = { .type = PERF_RECORD_FORK, .size = sizeof(f) },
				      .pid = IN_SCOPE, .tid = IN_SCOPE };
	const struct perf_event_header *ev = &f.header;

	start(true, false);
	sw(true, false, 0, 0, 1000, 0);
	cr_assert_eq(offcpu__judge(o, &ev, 2000), 0, "FORK goes on to be judged");
	sw(false, false, IN_SCOPE, 0, 2700, 0);
	cr_assert_eq(nr_out, 1);
	cr_assert_eq(out[0].id, OFFCPU_ID_RUNQ, "runnable from its fork");
	cr_assert_eq(out[0].period, 700);
	cr_assert_eq(offcpu__stats(o)->cut_start, 0);
	stop();
}

static uint64_t periods[4];
static int set_period(void *ctx, int cpu, uint64_t period)
{
	periods[cpu] = period;
	return 0;
}

Test(offcpu, past_the_rate_a_cpu_samples_one_stack_in_n_and_back)
{
	struct offcpu_config c = { .layout = &layout, .switch_ids = switch_ids, .nr_switch_ids = 1,
				   .name_holders = true, .in_scope = in_scope, .uid_of = uid_of, .emit = emit,
				   .max_rate = 1000, .set_period = set_period };
	uint64_t t = 1;

	sample_layout__init(&layout, ST);
	proc_fd = open("/", O_RDONLY | O_DIRECTORY);
	c.proc_fd = proc_fd;
	cr_assert_eq(offcpu__new(&c, &o), 0);
	/* 5000 switches/s on CPU 1 for 0.3 s: 1 in 5 */
	for (int i = 0; i < 1500; i++, t += 200000)
		sw(true, false, 300, 301, t, 1);
	cr_assert_eq(periods[1], 5);
	cr_assert_eq(periods[0], 0, "the other CPU untouched");
	/* 100/s: every switch again */
	for (int i = 0; i < 30; i++, t += 10000000)
		sw(true, false, 300, 301, t, 1);
	cr_assert_eq(periods[1], 1);
	cr_assert(offcpu__stats(o)->max_period >= 5 && offcpu__stats(o)->max_period <= 6, "5 per 1000 (6 where a window caught one more)");
	cr_assert_gt(offcpu__stats(o)->degraded_cpu_ns, 0);
	stop();
}

/* profd's off_cpu_sample: the period from a CPU's first switch, the bound above it only */
Test(offcpu, min_period_is_a_cpus_period_from_its_first_switch_and_the_bounds_floor)
{
	struct offcpu_config c = { .layout = &layout, .switch_ids = switch_ids, .nr_switch_ids = 1,
				   .name_holders = true, .in_scope = in_scope, .uid_of = uid_of, .emit = emit,
				   .max_rate = 1000, .min_period = 3, .set_period = set_period };
	uint64_t t = 1;

	memset(periods, 0, sizeof(periods));
	sample_layout__init(&layout, ST);
	proc_fd = open("/", O_RDONLY | O_DIRECTORY);
	c.proc_fd = proc_fd;
	cr_assert_eq(offcpu__new(&c, &o), 0);
	sw(true, false, 300, 301, t, 2);
	cr_assert_eq(periods[2], 3, "set at the CPU's first switch record");
	cr_assert_eq(periods[1], 0, "a CPU not seen yet untouched");
	/* 100/s: under the bound, the period stays min_period (not back to 1) */
	for (int i = 0; i < 30; i++, t += 10000000)
		sw(true, false, 300, 301, t, 2);
	cr_assert_eq(periods[2], 3);
	cr_assert_eq(offcpu__stats(o)->degraded_cpu_ns, 0, "min_period is not degraded");
	/* 5000/s: the bound's 1 in 5 over it, then back to 3, not 1 */
	for (int i = 0; i < 1500; i++, t += 200000)
		sw(true, false, 300, 301, t, 2);
	cr_assert(periods[2] >= 5 && periods[2] <= 6);
	for (int i = 0; i < 30; i++, t += 10000000)
		sw(true, false, 300, 301, t, 2);
	cr_assert_eq(periods[2], 3, "back to the floor");
	cr_assert_gt(offcpu__stats(o)->degraded_cpu_ns, 0);
	cr_assert_eq(offcpu__stats(o)->period_errors, 0);
	stop();
}

Test(offcpu, the_exit_path_preempted_after_the_exit_record_is_still_timed)
{
	struct perf_record_fork e = { .header = { .type = PERF_RECORD_EXIT, .size = sizeof(e) },
				      .pid = IN_SCOPE, .tid = IN_SCOPE };
	const struct perf_event_header *ev = &e.header;

	start(true, false);
	stack(IN_SCOPE, 1000, 0);
	sw(true, false, IN_SCOPE, 0, 1001, 0);
	sw(false, false, IN_SCOPE, 0, 2001, 0);
	cr_assert_eq(offcpu__judge(o, &ev, 2500), 0);
	sw(true, true, IN_SCOPE, 0, 3001, 0);   /* preempted in its exit path */
	sw(false, false, IN_SCOPE, 0, 3401, 0);
	sw(true, false, IN_SCOPE, 0, 3501, 0);  /* its last switch */
	cr_assert_eq(offcpu__finish(o), 0);
	cr_assert_eq(nr_out, 2);
	cr_assert_eq(out[1].id, OFFCPU_ID_RUNQ);
	cr_assert_eq(out[1].period, 400);
	cr_assert_eq(offcpu__stats(o)->cut_start, 0, "not taken for a thread seen anew");
	stop();
}

Test(offcpu, a_wait_ending_on_a_cpu_first_seen_then_is_never_held_by_itself)
{
	start(true, false);
	stack(IN_SCOPE, 1000, 0);
	sw(true, true, IN_SCOPE, NEIGHBOUR, 1001, 0);
	/* CPU 1's first record: someone leaves it for IN_SCOPE, whose wait ends there */
	sw(true, true, 300, IN_SCOPE, 5000, 1);
	sw(false, false, IN_SCOPE, 300, 5002, 1);
	cr_assert_gt(nr_out, 0);
	cr_assert_eq(held(OFFCPU_HOLDER_SELF), 0, "not its own holder");
	cr_assert_eq(held(OFFCPU_HOLDER_UNKNOWN), 4001);
	stop();
}

/* ---- the sched tracepoints: a sleep's wake-up, a waiting thread's move ----------- */

/* A tracepoint sample (OFFCPU_TP_SAMPLE_TYPE) of id at time, the waker `waker`, its
 * raw data's ints at their offsets. */
static int tp(uint64_t id, int32_t waker, uint64_t time, uint32_t cpu, const int *offs, const int32_t *vals, int n)
{
	uint64_t rec[16] = { 0 };
	struct perf_event_header *h = (void *)rec;
	const struct perf_event_header *ev = h;
	uint32_t size = 40;
	char *raw = (char *)rec + OFFCPU_TP_RAW_AT;

	*h = (struct perf_event_header){ .type = PERF_RECORD_SAMPLE, .misc = PERF_RECORD_MISC_KERNEL,
					 .size = (uint16_t)(OFFCPU_TP_RAW_AT + 4 + size + 4) };
	rec[1] = id;
	rec[2] = 0xffffffff81000000ull;
	rec[3] = (uint64_t)(uint32_t)waker << 32 | (uint32_t)waker;
	rec[4] = time;
	rec[5] = cpu;
	memcpy(raw, &size, 4);
	for (int i = 0; i < n; i++)
		memcpy(raw + 4 + offs[i], &vals[i], 4);
	cr_assert(offcpu__is_switch_sample(o, ev));
	cr_assert(offcpu__is_tracepoint_sample(o, ev), "the tracker does not look its waker up");
	return offcpu__judge(o, &ev, time);
}

static int wakeup(int32_t tid, uint64_t time, int32_t target)
{
	return tp(WAKE_ID, 300, time, 0, (const int[]){ 24, 32 }, (const int32_t[]){ tid, target }, 2);
}

static int migrate(int32_t tid, uint64_t time, int32_t from, int32_t to)
{
	return tp(MIGRATE_ID, 0, time, 0, (const int[]){ 12, 20, 24 }, (const int32_t[]){ tid, from, to }, 3);
}

static uint64_t sum(uint64_t id, uint32_t holder)
{
	uint64_t ns = 0;

	for (size_t i = 0; i < nr_out; i++)
		if (out[i].id == id && (holder == ~0u || out[i].holder == holder))
			ns += out[i].period;
	return ns;
}

/* Asleep at 1001 on CPU 1 (idle then), woken at 5001 while the neighbour holds CPU 1
 * (from 4001 to 7001), runs at 7001: blocked 4000, runq 2000 behind the neighbour. */
Test(offcpu, a_sleep_is_blocked_to_its_wake_up_then_runq_behind_who_held_the_cpu)
{
	with_wakeups = true;
	start(true, false);
	with_wakeups = false;
	stack(IN_SCOPE, 1000, 1);
	sw(true, false, IN_SCOPE, 0, 1001, 1);
	sw(true, false, 0, NEIGHBOUR, 4001, 1);
	sw(false, false, NEIGHBOUR, 0, 4001, 1);
	cr_assert_eq(wakeup(IN_SCOPE, 5001, 1), 1, "consumed");
	sw(true, true, NEIGHBOUR, IN_SCOPE, 7001, 1);
	sw(false, false, IN_SCOPE, NEIGHBOUR, 7001, 1);
	cr_assert_eq(nr_out, 2);
	cr_assert_eq(sum(OFFCPU_ID_BLOCKED, ~0u), 4000);
	cr_assert_eq(sum(OFFCPU_ID_RUNQ, OFFCPU_HOLDER_TASK), 2000);
	cr_assert_eq(sum(OFFCPU_ID_RUNQ, ~0u), 2000);
	for (size_t i = 0; i < nr_out; i++) {
		cr_assert_eq(out[i].ip, 0xffffffff81000000ull, "both parts with the switch-out's stack");
		cr_assert_eq(out[i].cpu, 1);
		cr_assert_leq(out[i].time, 7001);
		cr_assert_geq(out[i].time, 7001 - 8, "both at the switch-in (the file stays in time order)");
	}
	cr_assert_neq(out[0].time, out[1].time);
	cr_assert_eq(offcpu__stats(o)->blocked_ns, 4000);
	cr_assert_eq(offcpu__stats(o)->runq_ns, 2000);
	cr_assert_eq(offcpu__stats(o)->intervals, 1, "one interval, two parts");
	cr_assert_eq(offcpu__stats(o)->woken_intervals, 1);
	cr_assert_eq(offcpu__stats(o)->woken_runq_ns, 2000);
	cr_assert(offcpu__stats(o)->wakeups);
	stop();
}

Test(offcpu, wake_ups_of_others_or_of_threads_not_asleep_are_ignored)
{
	with_wakeups = true;
	start(true, false);
	with_wakeups = false;
	cr_assert_eq(wakeup(NEIGHBOUR, 900, 0), 1, "another tenant's: consumed, nothing tracked");
	stack(IN_SCOPE, 1000, 0);
	cr_assert_eq(wakeup(IN_SCOPE, 1000, 0), 1, "still on its CPU: nothing");
	sw(true, true, IN_SCOPE, NEIGHBOUR, 1001, 0);
	sw(false, false, NEIGHBOUR, IN_SCOPE, 1001, 0);
	wakeup(IN_SCOPE, 2001, 0);              /* preempted: runnable already */
	sw(true, false, NEIGHBOUR, IN_SCOPE, 3001, 0);
	sw(false, false, IN_SCOPE, NEIGHBOUR, 3001, 0);
	cr_assert_eq(sum(OFFCPU_ID_RUNQ, ~0u), 2000, "the whole preemption, from its switch-out");
	cr_assert_eq(sum(OFFCPU_ID_BLOCKED, ~0u), 0);
	cr_assert_eq(offcpu__stats(o)->woken_intervals, 0);
	stop();
}

/* Woken on CPU 0 at 2001 (held by the neighbour), moved to CPU 1 at 3001 (idle), runs
 * there at 3501: runq 1000 behind the neighbour on CPU 0, 500 idle on CPU 1. */
Test(offcpu, a_woken_thread_moved_waits_on_each_cpu_in_turn)
{
	with_wakeups = true;
	start(true, false);
	with_wakeups = false;
	stack(IN_SCOPE, 1000, 0);
	sw(true, false, IN_SCOPE, NEIGHBOUR, 1001, 0);
	sw(false, false, NEIGHBOUR, IN_SCOPE, 1001, 0);
	sw(true, false, 300, 0, 1500, 1);
	wakeup(IN_SCOPE, 2001, 0);
	cr_assert_eq(migrate(IN_SCOPE, 3001, 0, 1), 1);
	sw(true, false, 0, IN_SCOPE, 3501, 1);
	sw(false, false, IN_SCOPE, 0, 3501, 1);
	cr_assert_eq(sum(OFFCPU_ID_BLOCKED, ~0u), 1000);
	cr_assert_eq(sum(OFFCPU_ID_RUNQ, OFFCPU_HOLDER_TASK), 1000);
	cr_assert_eq(sum(OFFCPU_ID_RUNQ, OFFCPU_HOLDER_IDLE), 500);
	cr_assert_eq(offcpu__stats(o)->migrations, 1);
	stop();
}

/* The same, its cgroup throttled 1200 ns of it: when on which CPU is not kept, so the
 * idle time (500, throttled already) is made 1200 by taking 700 from the neighbour. */
Test(offcpu, a_throttled_wait_moved_takes_its_throttled_time_from_the_holders)
{
	with_wakeups = with_quota = true;
	start(true, false);
	with_wakeups = with_quota = false;
	quota_ns = 1200;
	stack(IN_SCOPE, 1000, 0);
	sw(true, false, IN_SCOPE, NEIGHBOUR, 1001, 0);
	sw(false, false, NEIGHBOUR, IN_SCOPE, 1001, 0);
	sw(true, false, 300, 0, 1500, 1);
	wakeup(IN_SCOPE, 2001, 0);
	migrate(IN_SCOPE, 3001, 0, 1);
	sw(true, false, 0, IN_SCOPE, 3501, 1);
	sw(false, false, IN_SCOPE, 0, 3501, 1);
	cr_assert_eq(quota_t0, 2001, "the wait from its wake-up");
	cr_assert_eq(sum(OFFCPU_ID_BLOCKED, ~0u), 1000);
	cr_assert_eq(sum(OFFCPU_ID_RUNQ, OFFCPU_HOLDER_TASK), 300);
	cr_assert_eq(sum(OFFCPU_ID_RUNQ, OFFCPU_HOLDER_IDLE), 1200);
	stop();
}

Test(offcpu, a_sleep_across_lost_records_stays_lost_woken_or_not)
{
	uint64_t rec[7];

	with_wakeups = true;
	start(true, false);
	with_wakeups = false;
	stack(IN_SCOPE, 1000, 0);
	sw(true, false, IN_SCOPE, 0, 1001, 0);
	lost(1500, 5, rec);
	wakeup(IN_SCOPE, 2001, 0);
	sw(false, false, IN_SCOPE, 0, 3001, 0);
	cr_assert_eq(nr_out, 0);
	cr_assert_eq(offcpu__stats(o)->lost_ns, 2000);
	stop();
}

Test(offcpu, without_the_tracepoints_a_sleep_is_blocked_to_its_switch_in)
{
	start(true, false);
	cr_assert_not(offcpu__stats(o)->wakeups);
	stack(IN_SCOPE, 1000, 0);
	sw(true, false, IN_SCOPE, 0, 1001, 0);
	sw(false, false, IN_SCOPE, 0, 5001, 0);
	cr_assert_eq(sum(OFFCPU_ID_BLOCKED, ~0u), 4000);
	stop();
}

Test(offcpu, a_sleep_whose_wake_up_the_kernel_did_not_report_is_blocked_and_counted)
{
	with_wakeups = true;
	start(true, false);
	with_wakeups = false;
	stack(IN_SCOPE, 1000, 0);
	sw(true, false, IN_SCOPE, 0, 1001, 0);
	sw(false, false, IN_SCOPE, 0, 5001, 0);
	stack(IN_SCOPE, 6000, 0);
	sw(true, false, IN_SCOPE, 0, 6001, 0);  /* still asleep at the end: cut, not counted */
	sw(true, false, 300, 0, 7001, 1);
	cr_assert_eq(offcpu__finish(o), 0);
	cr_assert_eq(sum(OFFCPU_ID_BLOCKED, ~0u), 4000 + 1000);
	cr_assert_eq(offcpu__stats(o)->unwoken_intervals, 1);
	cr_assert_eq(offcpu__stats(o)->unwoken_ns, 4000);
	stop();
}

Test(offcpu, an_interval_without_a_stack_carries_the_threads_cgroup_as_tracked)
{
	struct offcpu_config c = { .layout = &layout, .switch_ids = switch_ids, .nr_switch_ids = 1,
				   .name_holders = true, .in_scope = in_scope, .uid_of = uid_of,
				   .cgroup_of = cgroup_of, .emit = emit, .cgroup_fd = -1 };

	sample_layout__init(&layout, ST | PERF_SAMPLE_CGROUP);
	proc_fd = open("/", O_RDONLY | O_DIRECTORY);
	c.proc_fd = proc_fd;
	nr_out = 0;
	cr_assert_eq(offcpu__new(&c, &o), 0);
	sw(true, false, 0, 0, 1000, 0);
	sw(false, false, IN_SCOPE, 0, 2000, 0); /* first seen coming back: never sampled */
	sw(true, false, IN_SCOPE, 0, 3000, 0);  /* out without a stack sample */
	sw(false, false, IN_SCOPE, 0, 3500, 0);
	cr_assert_eq(nr_out, 1);
	cr_assert_eq(out[0].ip, 0, "no stack");
	cr_assert_eq(out[0].cgroup, 4242, "the tracker's cgroup, not 0");
	stop();
}

/* profd's windows: a wait open at an end is cut there and written, one under way at a
 * start is counted and not written, and nothing between two windows is a wait. */
Test(offcpu, a_window_cuts_the_wait_open_at_its_end_and_counts_the_one_at_its_start)
{
	struct perf_record_fork f = { .header = { .type = PERF_RECORD_FORK, .size = sizeof(f) },
				      .pid = IN_SCOPE, .tid = IN_SCOPE };
	const struct perf_event_header *ev = &f.header;

	start(true, false);
	stack(IN_SCOPE, 1000, 1);
	sw(true, true, IN_SCOPE, NEIGHBOUR, 1001, 1);
	sw(false, false, NEIGHBOUR, IN_SCOPE, 1001, 1);
	cr_assert_eq(offcpu__window(o, false, 1501), 0);
	cr_assert_eq(nr_out, 0, "applied in time order: not before a record at or after it");
	cr_assert_eq(offcpu__window(o, true, 5001), 0);
	/* between the windows: a fork (its tid reused) is not followed: its wait to its
	 * first run would span the gap */
	cr_assert_eq(offcpu__judge(o, &ev, 3000), 0);
	cr_assert_eq(nr_out, 1, "the end applied at the first record after it");
	cr_assert_eq(out[0].id, OFFCPU_ID_RUNQ);
	cr_assert_eq(out[0].period, 500, "cut at the window's end");
	cr_assert_eq(out[0].time, 1501);
	cr_assert_eq(out[0].holder, OFFCPU_HOLDER_TASK, "the neighbour held the CPU up to the end");
	cr_assert_eq(offcpu__stats(o)->window_cut, 1);
	cr_assert_eq(offcpu__stats(o)->window_cut_ns, 500);
	/* the next window: the thread comes back, its wait since before it unknown */
	sw(true, true, NEIGHBOUR, IN_SCOPE, 6001, 1);
	sw(false, false, IN_SCOPE, NEIGHBOUR, 6001, 1);
	sw(true, true, 0, 0, 6500, 0);
	cr_assert_eq(nr_out, 1, "neither the wait under way at the start nor the fork's is written");
	cr_assert_eq(offcpu__stats(o)->cut_start, 1);
	cr_assert_eq(offcpu__stats(o)->cut_start_ns, 1000, "counted from the window's start");
	cr_assert_eq(offcpu__stats(o)->windows, 2);
	cr_assert_eq(offcpu__finish(o), 0);
	cr_assert_eq(offcpu__stats(o)->window_ns, (1501 - 1000) + (6500 - 5001));
	stop();
}
