/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The runtime layer's core (runtime.h): a runtime's processes attached once and again
 * only when their own maps changed, counted once (attached or refused, the first
 * reason kept), let go at their EXIT (and exec where asked); the names of the object
 * bounded and in windows whose addresses are never used twice; the why-unverified
 * list as the summaries print it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <criterion/criterion.h>
#include <linux/perf_event.h>

#include "prof/runtime/elf_writer.h"
#include "prof/runtime/runtime.h"

/* A runtime whose processes' verdicts are set by the test, each call counted. */
struct toy_proc {
	struct runtime_proc rp;
	int state;                      /* 1 while attached */
};

struct toy {
	int attaches, detaches;
	int verdict[8];                 /* by pid: attach's return */
	struct runtime_procs t;
	uint64_t processes, rejected;
	uint64_t retry_ns;              /* what attach sets with -EAGAIN and -ENOENT */
	char why[64];
};

static int toy_attach(void *rt, struct runtime_proc *rp, char *why, size_t len)
{
	struct toy *toy = rt;
	struct toy_proc *p = (struct toy_proc *)rp;

	toy->attaches++;
	cr_assert_eq(p->state, 0, "attached only after detach");
	if (toy->verdict[rp->pid] == -ENOTSUP)
		snprintf(why, len, "pid %d is not a toy", rp->pid);
	if (toy->verdict[rp->pid] == 0)
		p->state = 1;
	if (toy->verdict[rp->pid] == -EAGAIN || toy->verdict[rp->pid] == -ENOENT)
		rp->retry_ns = toy->retry_ns;
	return toy->verdict[rp->pid];
}

static void toy_detach(void *rt, struct runtime_proc *rp)
{
	((struct toy *)rt)->detaches += ((struct toy_proc *)rp)->state;
	((struct toy_proc *)rp)->state = 0;
}

static const struct runtime_ops toy_ops = {
	.what = "toy", .proc_size = sizeof(struct toy_proc), .attach = toy_attach, .detach = toy_detach,
};

static void toy_init(struct toy *toy, const struct runtime_ops *ops)
{
	memset(toy, 0, sizeof(*toy));
	runtime_procs__init(&toy->t, ops, toy,
			    &(struct runtime_tally){ .processes = &toy->processes, .rejected = &toy->rejected,
						     .why_rejected = toy->why, .why_len = sizeof(toy->why) });
}

Test(runtime_procs, attached_once_counted_once)
{
	struct toy toy;

	toy_init(&toy, &toy_ops);
	toy.verdict[2] = -ENOENT;
	toy.verdict[3] = -ENOTSUP;
	toy.verdict[4] = -EPERM;
	for (int round = 0; round < 3; round++)
		for (int pid = 1; pid <= 4; pid++)
			cr_assert_not_null(runtime_procs__get(&toy.t, pid, 5, 0));
	cr_expect_eq(toy.attaches, 4, "each process looked at once while its maps stay");
	cr_expect_eq(toy.processes, 1);
	cr_expect_eq(toy.rejected, 2, "no runtime (ENOENT) is not a refusal");
	cr_expect_str_eq(toy.why, "pid 3 is not a toy", "the first refusal's reason");

	/* a mapping of its own came: detached, attached again, still counted once */
	cr_assert_not_null(runtime_procs__get(&toy.t, 1, 6, 0));
	cr_expect_eq(toy.attaches, 5);
	cr_expect_eq(toy.detaches, 1);
	cr_expect_eq(toy.processes, 1);
	runtime_procs__release(&toy.t);
	cr_expect_eq(toy.detaches, 2, "the table's end detaches what is attached");
}

Test(runtime_procs, refusal_without_a_reason_says_what_and_why)
{
	struct toy toy;

	toy_init(&toy, &toy_ops);
	toy.verdict[4] = -EPERM;
	runtime_procs__get(&toy.t, 4, 1, 0);
	cr_expect_str_eq(toy.why, "toy (pid 4): Operation not permitted");
	runtime_procs__release(&toy.t);
}

Test(runtime_procs, refused_later_moves_the_count)
{
	struct toy toy;
	struct runtime_proc *p;

	toy_init(&toy, &toy_ops);
	p = runtime_procs__get(&toy.t, 1, 1, 0);
	cr_assert_eq(toy.processes, 1);
	runtime_procs__refuse(&toy.t, p, "its slots never agreed");
	cr_expect_eq(toy.processes, 0);
	cr_expect_eq(toy.rejected, 1);
	cr_expect_str_eq(toy.why, "its slots never agreed");
	runtime_procs__release(&toy.t);
}

Test(runtime_procs, not_yet_asked_again_after_its_time)
{
	struct toy toy;
	struct runtime_proc *p;

	toy_init(&toy, &toy_ops);
	toy.verdict[1] = -EAGAIN;
	toy.retry_ns = 100;
	p = runtime_procs__get(&toy.t, 1, 3, 10);
	cr_expect_not(p->judged, "a runtime still starting is not judged");
	runtime_procs__get(&toy.t, 1, 4, 99);
	cr_expect_eq(toy.attaches, 1, "not asked again before its time, its maps changed or not");
	runtime_procs__get(&toy.t, 1, 4, 100);
	cr_expect_eq(toy.attaches, 2, "asked again at its time, its maps the same");
	cr_expect_eq(toy.processes + toy.rejected, 0, "not counted while not judged");
	toy.verdict[1] = 0;
	p = runtime_procs__get(&toy.t, 1, 4, 200);
	cr_expect(p->judged && p->attached);
	cr_expect_eq(toy.processes, 1);

	/* -ENOENT with a time: judged, and a change of maps waits for it */
	toy.verdict[2] = -ENOENT;
	p = runtime_procs__get(&toy.t, 2, 1, 10);
	cr_expect(p->judged && !p->attached);
	runtime_procs__get(&toy.t, 2, 1, 500);
	runtime_procs__get(&toy.t, 2, 2, 50);
	cr_expect_eq(toy.attaches, 4, "judged: its maps the same, or its time not come");
	runtime_procs__get(&toy.t, 2, 2, 500);
	cr_expect_eq(toy.attaches, 5);
	runtime_procs__release(&toy.t);
}

Test(runtime_procs, kept_attached_where_asked)
{
	static const struct runtime_ops keep_ops = {
		.what = "toy", .proc_size = sizeof(struct toy_proc), .keeps_attached = true,
		.attach = toy_attach, .detach = toy_detach,
	};
	struct toy toy;

	toy_init(&toy, &keep_ops);
	toy.verdict[2] = -ENOTSUP;
	runtime_procs__get(&toy.t, 1, 1, 0);
	runtime_procs__get(&toy.t, 1, 2, 0);
	cr_expect_eq(toy.attaches, 1, "attached: its maps changing do not attach it again");
	cr_expect_eq(toy.detaches, 0);
	runtime_procs__get(&toy.t, 2, 1, 0);
	runtime_procs__get(&toy.t, 2, 2, 0);
	cr_expect_eq(toy.attaches, 3, "refused: judged again when its maps change");
	cr_expect_eq(toy.rejected, 1, "counted once");
	runtime_procs__release(&toy.t);
}

/* A PERF_RECORD_EXIT (pid, ppid, tid, ptid, time) or a COMM with its exec bit. */
struct rec {
	struct perf_event_header h;
	uint32_t w[6];
};

static struct rec exit_of(uint32_t pid, uint32_t tid)
{
	return (struct rec){ { PERF_RECORD_EXIT, 0, sizeof(struct rec) }, { pid, 1, tid, 1, 0, 0 } };
}

Test(runtime_procs, exit_lets_go_exec_where_asked)
{
	static const struct runtime_ops exec_ops = {
		.what = "toy", .proc_size = sizeof(struct toy_proc), .exec_detaches = true,
		.attach = toy_attach, .detach = toy_detach,
	};
	struct rec comm = { { PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, sizeof(struct rec) }, { 1, 1 } };
	struct rec e;
	struct toy toy;

	toy_init(&toy, &toy_ops);
	runtime_procs__get(&toy.t, 1, 1, 0);
	e = exit_of(1, 2);
	runtime_procs__note(&toy.t, &e.h);
	cr_expect_not_null(runtime_procs__find(&toy.t, 1), "a thread's exit is not its process's");
	runtime_procs__note(&toy.t, &comm.h);
	cr_expect_not_null(runtime_procs__find(&toy.t, 1), "an exec is its maps changing, unless asked");
	e = exit_of(1, 1);
	runtime_procs__note(&toy.t, &e.h);
	cr_expect_null(runtime_procs__find(&toy.t, 1));
	cr_expect_eq(toy.detaches, 1);
	runtime_procs__release(&toy.t);

	toy_init(&toy, &exec_ops);
	runtime_procs__get(&toy.t, 1, 1, 0);
	runtime_procs__note(&toy.t, &comm.h);
	cr_expect_null(runtime_procs__find(&toy.t, 1), "exec_detaches: the exec lets it go");
	cr_expect_eq(toy.detaches, 1);
	runtime_procs__release(&toy.t);
}

/* ---- the names ------------------------------------------------------------------ */

static const char *const fixed[] = { "[toy: unverified]", "[toy: callers]" };

static const char *name_at(const struct runtime_symbols *n, uint64_t sym_addr)
{
	struct model_dso d = { .build_id_len = (uint8_t)n->id.size };
	const char *name = "not asked";

	memcpy(d.build_id, n->id.data, n->id.size);
	cr_assert(runtime_symbols__name(n, &d, RUNTIME_ELF_TEXT + sym_addr, &name));
	return name;
}

Test(runtime_symbols, bounded_and_windowed)
{
	struct runtime_symbols n, other;
	struct model_dso d = { 0 };
	const char *name;
	uint64_t f_at;

	cr_assert_eq(runtime_symbols__init(&n, fixed, 2, 5, 4), 0);
	cr_assert_eq(runtime_symbols__init(&other, fixed, 2, 5, 0), 0);
	cr_expect_neq(memcmp(n.id.data, other.id.data, 20), 0, "a build id random per recording");
	cr_expect_eq(runtime_symbols__symbol(&n, "f"), 2);
	cr_expect_eq(runtime_symbols__symbol(&n, "f"), 2, "a name is one symbol");
	f_at = n.base + 2;
	cr_expect_str_eq(name_at(&n, f_at), "f");
	cr_expect_str_eq(name_at(&n, 0), "[toy: unverified]");
	cr_expect_not(runtime_symbols__name(&n, &d, RUNTIME_ELF_TEXT, &name), "another object's");

	cr_expect_not(runtime_symbols__turn(&n), "3 names of a window of 4: kept");
	cr_expect_eq(runtime_symbols__symbol(&n, "g"), 3);
	cr_expect(runtime_symbols__turn(&n));
	cr_expect_eq(n.windows, 1);
	cr_expect_eq(n.base, 4, "the next window's addresses follow the last one's");
	cr_expect_null(name_at(&n, f_at), "a window gone names nothing");
	cr_expect_str_eq(name_at(&n, n.base + 1), "[toy: callers]");
	cr_expect_eq(runtime_symbols__symbol(&n, "f"), 2);

	/* no window: bounded by max, beyond it every name is 0 (unverified) */
	for (int i = 0; i < 3; i++) {
		char s[8];

		snprintf(s, sizeof(s), "s%d", i);
		cr_expect_eq(runtime_symbols__symbol(&other, s), (uint32_t)(i + 2));
	}
	cr_expect_eq(runtime_symbols__symbol(&other, "one too many"), 0);
	cr_expect_not(runtime_symbols__turn(&other), "a recording with a file keeps every name");
	runtime_symbols__release(&n);
	runtime_symbols__release(&other);
}

/* ---- the counts ----------------------------------------------------------------- */

static const char *why_name(int i)
{
	static const char *const names[] = { "verified", "gone", "moved", "unreadable" };

	return names[i];
}

Test(runtime, why_list)
{
	uint64_t counts[4] = { 7, 3, 0, 1 };
	char buf[64], small[8];

	cr_expect_eq(runtime__why_list(counts, 1, 4, why_name, buf, sizeof(buf)), strlen(" (3 gone, 1 unreadable)"));
	cr_expect_str_eq(buf, " (3 gone, 1 unreadable)", "from 1: the verified ones are not a reason");
	counts[1] = counts[3] = 0;
	cr_expect_eq(runtime__why_list(counts, 1, 4, why_name, buf, sizeof(buf)), 0);
	cr_expect_str_eq(buf, "", "nothing when nothing was unverified");
	counts[1] = 12345;
	cr_expect_eq(runtime__why_list(counts, 1, 4, why_name, small, sizeof(small)), sizeof(small) - 1);
	cr_expect_str_eq(small, " (12345", "cut at the buffer, never past it");
}
