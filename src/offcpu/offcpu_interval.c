/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --off-cpu's intervals (offcpu_internal.h): a thread's interval closing, counted,
 * and written as prof's samples, with its switch-out stack or without one.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <perf/event.h>

#include "prof/base/util.h"
#include "prof/base/vec.h"
#include "prof/offcpu/offcpu_events.h"
#include "offcpu_internal.h"

/*
 * A call chain without its kernel part (PERF_CONTEXT_KERNEL up to the next context
 * mark), ev->size shrunk to match.  The context-switch event asks for none when the
 * recording has no kernel addresses, but another recording's event firing with it can
 * have computed the chain its sample carries (events__foreign_samples).
 */
static void strip_kernel_chain(const struct sample_layout *l, struct perf_event_header *ev)
{
	uint64_t *u = (uint64_t *)(void *)(ev + 1), nr, out = 0;
	size_t at, end;
	bool kernel = false;

	if (l->s_chain < 0 || ev->size < sizeof(*ev) + 8 * (size_t)(l->s_chain + 1))
		return;
	nr = u[l->s_chain];
	at = sizeof(*ev) + 8 * (size_t)(l->s_chain + 1);
	if (nr > (ev->size - at) / 8)
		return;
	end = at + 8 * nr;
	for (uint64_t i = 0; i < nr; i++) {
		uint64_t v = u[l->s_chain + 1 + i];

		if (v >= PERF_CONTEXT_MAX)
			kernel = v == PERF_CONTEXT_KERNEL;
		if (!kernel)
			u[l->s_chain + 1 + out++] = v;
	}
	if (out == nr)
		return;
	u[l->s_chain] = out;
	memmove((char *)ev + at + 8 * out, (char *)ev + end, ev->size - end);
	ev->size = (uint16_t)(ev->size - 8 * (nr - out));
}

/* Its stack sample as one of prof's: id, time, period, CPU and holder rewritten. */
static int emit_one(struct offcpu *o, const struct thread *t, uint64_t id, uint64_t time, uint64_t ns,
		    uint32_t cpu, uint32_t holder)
{
	const struct sample_layout *l = o->cfg.layout;
	struct perf_event_header *ev;
	uint64_t *u;

	if (VEC_RESERVE(o->buf, o->buf_cap, t->rec_len) < 0)
		return -ENOMEM;
	memcpy(o->buf, t->rec, t->rec_len);
	ev = (struct perf_event_header *)(void *)o->buf;
	u = (uint64_t *)(void *)(ev + 1);
	u[l->s_id] = id;
	u[l->s_time] = time;
	u[l->s_period] = ns;
	u[l->s_cpu] = (uint64_t)cpu | (uint64_t)holder << 32;
	if (o->cfg.user_only && l->s_ip >= 0) {
		/* no kernel address for them: the ip is the user leaf, or none */
		uint64_t ip = 0, period, nr = 0;
		const uint64_t *chain;

		if (sample_layout__ip_chain(l, ev, &(uint64_t){ 0 }, &period, &chain, &nr))
			for (uint64_t i = 0; i < nr && !ip; i++)
				if (chain[i] < PERF_CONTEXT_MAX)
					ip = chain[i];
		u[l->s_ip] = ip;
		ev->misc = (uint16_t)((ev->misc & ~PERF_RECORD_MISC_CPUMODE_MASK) | PERF_RECORD_MISC_USER);
		strip_kernel_chain(l, ev);
	}
	return o->cfg.emit(o->cfg.ctx, ev, time);
}

#define STACKLESS_UNMADE (PERF_SAMPLE_READ | PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_INTR | \
			  PERF_SAMPLE_AUX)

/*
 * An interval without its switch-out stack sample: a sample made from nothing, of the
 * sampling events' sample_type, with no call chain, no user registers or stack, ip 0
 * (shown as [unknown]), its time, period, CPU and holder exact.  Not for a sample_type
 * with STACKLESS_UNMADE fields.
 */
static int emit_stackless(struct offcpu *o, const struct thread *t, uint64_t id, uint64_t time, uint64_t ns,
			  uint32_t cpu, uint32_t holder)
{
	uint64_t st = o->cfg.layout->sample_type, *u;
	struct perf_event_header *ev;
	size_t n = 0, cap = sizeof(*ev) + 32 * 8;
	uint64_t cgroup = t->cgroup;

	/* a thread never sampled at a switch: its cgroup as the scope's tracker knows it */
	if (!cgroup && (st & PERF_SAMPLE_CGROUP) && o->cfg.cgroup_of && !o->cfg.cgroup_of(o->cfg.ctx, t->tid, &cgroup))
		cgroup = 0;

	if (VEC_RESERVE(o->buf, o->buf_cap, cap) < 0)
		return -ENOMEM;
	ev = (struct perf_event_header *)(void *)o->buf;
	u = (uint64_t *)(void *)(ev + 1);
	if (st & PERF_SAMPLE_IDENTIFIER)
		u[n++] = id;
	if (st & PERF_SAMPLE_IP)
		u[n++] = 0;
	if (st & PERF_SAMPLE_TID)
		u[n++] = (uint64_t)(uint32_t)t->pid | (uint64_t)(uint32_t)t->tid << 32;
	if (st & PERF_SAMPLE_TIME)
		u[n++] = time;
	if (st & PERF_SAMPLE_ADDR)
		u[n++] = 0;
	if (st & PERF_SAMPLE_ID)
		u[n++] = id;
	if (st & PERF_SAMPLE_STREAM_ID)
		u[n++] = 0;
	if (st & PERF_SAMPLE_CPU)
		u[n++] = (uint64_t)cpu | (uint64_t)holder << 32;
	if (st & PERF_SAMPLE_PERIOD)
		u[n++] = ns;
	if (st & PERF_SAMPLE_CALLCHAIN)
		u[n++] = 0;     /* nr */
	if (st & PERF_SAMPLE_REGS_USER)
		u[n++] = 0;     /* PERF_SAMPLE_REGS_ABI_NONE: no registers follow */
	if (st & PERF_SAMPLE_STACK_USER)
		u[n++] = 0;     /* size 0: no data, no dyn_size */
	if (st & PERF_SAMPLE_WEIGHT_TYPE)
		u[n++] = 0;
	if (st & PERF_SAMPLE_DATA_SRC)
		u[n++] = 0;
	if (st & PERF_SAMPLE_TRANSACTION)
		u[n++] = 0;
	if (st & PERF_SAMPLE_PHYS_ADDR)
		u[n++] = 0;
	if (st & PERF_SAMPLE_CGROUP)
		u[n++] = cgroup;
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
		u[n++] = 0;
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE)
		u[n++] = 0;
	ev->type = PERF_RECORD_SAMPLE;
	ev->misc = PERF_RECORD_MISC_USER;
	ev->size = (uint16_t)(sizeof(*ev) + n * 8);
	return o->cfg.emit(o->cfg.ctx, ev, time);
}

/* The interval's sample(s): with the thread's switch-out stack, or without one. */
static int emit_interval(struct offcpu *o, const struct thread *t, bool stack, uint64_t id, uint64_t time,
			 uint64_t ns, uint32_t cpu, uint32_t holder)
{
	return stack ? emit_one(o, t, id, time, ns, cpu, holder) : emit_stackless(o, t, id, time, ns, cpu, holder);
}

/*
 * Its runq time: the part on cpu since part_since, then the parts before its moves;
 * throttled ns of it (its cgroup's quota spent) idle's.  That part is the wait's
 * beginning: a throttled thread leaves its CPU as its cgroup is throttled (or is woken
 * into a throttled cgroup), and runs again only after; the holders are those of the
 * rest.
 */
static void split_wait(struct offcpu *o, const struct thread *t, uint32_t cpu, uint64_t t1, uint64_t throttled,
		       struct split *s)
{
	if (throttled && !t->moved.nr) {
		offcpu__split_by_holder(o, t->tid, cpu, MIN(t->part_since + throttled, t1), t1, s);
		split__add(s, OFFCPU_HOLDER_IDLE, throttled);
		return;
	}
	offcpu__split_by_holder(o, t->tid, cpu, t->part_since, t1, s);
	for (size_t i = 0; i < t->moved.nr; i++)
		split__add(s, t->moved.holder[i], t->moved.ns[i]);
	if (throttled)
		split__throttled(s, throttled);
}

/*
 * Thread t's interval closes at t1 on cpu: counted, and written when it can be.  A
 * preemption is runq from its switch-out; a sleep is blocked, up to its wake-up when
 * that came (then runq from there): two samples of one interval, with its one stack.
 */
int offcpu__close_interval(struct offcpu *o, struct thread *t, uint64_t t1, uint32_t cpu)
{
	uint64_t ns = t1 > t->out_time ? t1 - t->out_time : 0;
	bool stack = !t->nostack && t->rec_len;
	bool woken = !t->runq && t->woken && t->woke < t1;
	uint64_t from = t->runq ? t->out_time : woken ? MAX(t->woke, t->out_time) : t1;
	uint64_t runq = t1 > from ? t1 - from : 0, blocked = ns - runq;
	struct split s = { .nr = 0 };
	uint64_t throttled = 0;
	int wrote = 0;

	t->state = T_RUNNING;
	if (t->lost) {
		o->st.lost_intervals++;
		o->st.lost_ns += ns;
		return 0;
	}
	if (!ns)
		return 0;
	if (!stack && (o->cfg.layout->sample_type & STACKLESS_UNMADE)) {
		o->st.unwritten_intervals++;
		o->st.unwritten_ns += ns;
		return 0;
	}
	if (runq) {
		/* how long of the wait [from, t1) its cgroup was throttled */
		if (o->cfg.throttled)
			throttled = MIN(o->cfg.throttled(o->cfg.quota_ctx, t->tid, from, t1), runq);
		split_wait(o, t, cpu, t1, throttled, &s);
	}
	/* one sample per holder, a nanosecond apart: each its own (time, tid); the
	 * blocked part before them */
	for (size_t i = 0; i < s.nr; i++) {
		int w = emit_interval(o, t, stack, OFFCPU_ID_RUNQ, t1 - i, s.ns[i], cpu, s.holder[i]);

		if (w < 0)
			return w;
		wrote += w;
	}
	if (blocked) {
		int w = emit_interval(o, t, stack, OFFCPU_ID_BLOCKED, t1 - s.nr, blocked, cpu, OFFCPU_HOLDER_NONE);

		if (w < 0)
			return w;
		wrote += w;
	}
	if (!wrote)
		return 0;
	o->st.intervals++;
	o->st.runq_ns += runq;
	o->st.blocked_ns += blocked;
	o->st.throttled_ns += throttled;
	for (size_t i = 0; i < s.nr; i++)
		if (s.holder[i] == OFFCPU_HOLDER_UNKNOWN)
			o->st.unknown_holder_ns += s.ns[i];
	if (woken) {
		o->st.woken_intervals++;
		o->st.woken_runq_ns += runq;
	} else if (!t->runq && o->st.wakeups && !o->finishing) {
		o->st.unwoken_intervals++;
		o->st.unwoken_ns += ns;
	}
	if (!stack) {
		o->st.nostack_intervals++;
		o->st.nostack_ns += ns;
	}
	return 0;
}
