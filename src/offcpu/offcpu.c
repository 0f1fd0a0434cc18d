/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <perf/event.h>

#include "prof/base/hash.h"
#include "prof/base/hashtable.h"
#include "prof/base/vec.h"
#include "prof/base/idmap.h"
#include "prof/base/util.h"
#include "prof/offcpu/offcpu.h"
#include "prof/offcpu/offcpu_events.h"
#include "prof/offcpu/offcpu_holders.h"
#include "offcpu_internal.h"

#ifndef PERF_RECORD_MISC_SWITCH_OUT_PREEMPT
#define PERF_RECORD_MISC_SWITCH_OUT_PREEMPT (1 << 14)
#endif
#define PF_KTHREAD 0x00200000u

/* What kind of task a holder is (kept per tid until its EXIT, a reuse or its exec). */
struct holder_kind {
	int32_t tid;
	bool kthread;
	bool uid_known;
	uint32_t uid;
	uint32_t holder;                /* name_holders: its entry of the holder table (0: none) */
};

/* A task forked during the recording: runnable from then to its first switch-in. */
struct born {
	int32_t tid;
	bool lost;                      /* a gap in the records since */
	uint64_t time;
};

#define DEAD_AFTER_NS 1000000000ull

static bool tid_eq(const void *entry, const void *key, const void *ctx)
{
	return *(const int32_t *)entry == *(const int32_t *)key;
}

static uint64_t tid_hash(int32_t tid)
{
	return hash__u64((uint64_t)(uint32_t)tid) | 1;
}

int offcpu__new(const struct offcpu_config *cfg, struct offcpu **ret)
{
	struct offcpu *o = calloc(1, sizeof(*o));

	if (!o)
		return -ENOMEM;
	o->cfg = *cfg;
	o->switch_ids = idmap__new();
	if (!o->switch_ids)
		goto err;
	for (size_t i = 0; i < cfg->nr_switch_ids; i++)
		if (idmap__set(o->switch_ids, cfg->switch_ids[i], OWN_SWITCH) < 0)
			goto err;
	/* the sched tracepoints' ids in the same map: one look-up tells every sample */
	for (size_t i = 0; i < cfg->wakeups.nr_wake_ids; i++)
		if (idmap__set(o->switch_ids, cfg->wakeups.wake_ids[i], OWN_WAKEUP) < 0)
			goto err;
	for (size_t i = 0; i < cfg->wakeups.nr_migrate_ids; i++)
		if (idmap__set(o->switch_ids, cfg->wakeups.migrate_ids[i], OWN_MIGRATE) < 0)
			goto err;
	o->st.wakeups = cfg->wakeups.nr_wake_ids > 0;
	o->st.wakeups_err = cfg->wakeups.err;
	hashtable__init(&o->threads, sizeof(struct thread), tid_eq, NULL);
	hashtable__init(&o->kinds, sizeof(struct holder_kind), tid_eq, NULL);
	hashtable__init(&o->born, sizeof(struct born), tid_eq, NULL);
	o->st.max_period = 1;
	/* (profd, holders_by_uid, as root: the table too, for each holder's cgroup) */
	if (cfg->name_holders && !(o->holders = offcpu_holders__new(cfg->proc_fd, cfg->cgroup_fd)))
		goto err;
	o->st.holders_named = o->holders != NULL;
	*ret = o;
	return 0;
err:
	idmap__free(o->switch_ids);
	free(o);
	return -ENOMEM;
}

struct offcpu *offcpu__free(struct offcpu *o)
{
	struct thread *t;
	size_t it = 0;

	if (!o)
		return NULL;
	while ((t = hashtable__next(&o->threads, &it)))
		free(t->rec);
	hashtable__release(&o->threads);
	hashtable__release(&o->kinds);
	offcpu_holders__free(o->holders);
	hashtable__release(&o->born);
	for (size_t c = 0; c < MAX_CPUS; c++)
		free(o->cpus[c]);
	idmap__free(o->switch_ids);
	free(o->buf);
	free(o->fix);
	free(o);
	return NULL;
}

const struct offcpu_stats *offcpu__stats(const struct offcpu *o)
{
	return &o->st;
}

const struct offcpu_holder_info *offcpu__holder(const struct offcpu *o, uint32_t h)
{
	return offcpu_holders__get(o->holders, h);
}

size_t offcpu__nr_holders(const struct offcpu *o)
{
	return offcpu_holders__nr(o->holders);
}

static struct thread *thread_find(struct offcpu *o, int32_t tid)
{
	return hashtable__find(&o->threads, tid_hash(tid), &tid);
}

static void thread_forget(struct offcpu *o, int32_t tid)
{
	struct thread *t = thread_find(o, tid);

	if (!t)
		return;
	free(t->rec);
	hashtable__remove(&o->threads, tid_hash(tid), &tid);
}

/* The period a CPU's event samples at when the bound does not raise it (min_period). */
static uint64_t base_period(const struct offcpu *o)
{
	return o->cfg.min_period > 1 && o->cfg.set_period ? o->cfg.min_period : 1;
}

/* A CPU's state, made at its first switch record: its event's period set to min_period
 * there (the stacks before are every switch's: more of them, none wrong). */
static struct cpu *cpu_get(struct offcpu *o, uint32_t c)
{
	uint64_t base = base_period(o);

	if (c >= MAX_CPUS)
		return NULL;
	if (o->cpus[c])
		return o->cpus[c];
	o->cpus[c] = calloc(1, sizeof(struct cpu));
	if (o->cpus[c] && base > 1) {
		if (o->cfg.set_period(o->cfg.period_ctx, (int)c, base) < 0)
			o->st.period_errors++;
		else
			o->cpus[c]->period = base;
		o->st.max_period = MAX(o->st.max_period, o->cpus[c]->period);
	}
	return o->cpus[c];
}

/* ---- who held a CPU ----------------------------------------------------------- */

/* Is tid a kernel thread, its uid, and for root's and the admins' recordings its entry
 * of the holder table: read from /proc once per task (and again after its exec). */
static const struct holder_kind *kind_of(struct offcpu *o, int32_t pid, int32_t tid)
{
	struct holder_kind *k = hashtable__find(&o->kinds, tid_hash(tid), &tid);
	_cleanup_free_ char *stat = NULL;
	struct holder_kind nk = { .tid = tid };
	char path[32];
	struct stat sb;
	bool created;

	if (k)
		return k;
	snprintf(path, sizeof(path), "%d/stat", tid);
	if (read_file_full(o->cfg.proc_fd, path, 4096, &stat) > 0) {
		/* the fields after "(comm) ": state ppid pgrp session tty_nr tpgid flags */
		const char *p = strrchr(stat, ')');
		unsigned long flags = 0;

		if (p && sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags) == 1)
			nk.kthread = flags & PF_KTHREAD;
	}
	nk.uid_known = o->cfg.uid_of(o->cfg.ctx, tid, &nk.uid);
	snprintf(path, sizeof(path), "%d", pid > 0 ? pid : tid);
	if (!nk.uid_known && fstatat(o->cfg.proc_fd, path, &sb, 0) == 0) {
		nk.uid = sb.st_uid;
		nk.uid_known = true;
	}
	if (o->holders && !nk.kthread)
		nk.holder = offcpu_holders__of(o->holders, tid, nk.uid, nk.uid_known);
	k = hashtable__insert(&o->kinds, tid_hash(tid), &tid, &created);
	if (k)
		*k = nk;
	return k;
}

uint32_t offcpu__holder_of(struct offcpu *o, int32_t pid, int32_t tid)
{
	const struct holder_kind *k;

	if (tid == 0)
		return OFFCPU_HOLDER_IDLE;
	if (!o->cfg.holders_by_uid && o->cfg.in_scope(o->cfg.ctx, pid, tid, 0) > 0)
		return OFFCPU_HOLDER_SELF;
	k = kind_of(o, pid, tid);
	if (!k)
		return OFFCPU_HOLDER_UNKNOWN;
	if (k->kthread)
		return OFFCPU_HOLDER_SYSTEM;
	if (!o->cfg.name_holders && !o->cfg.holders_by_uid)
		return OFFCPU_HOLDER_OTHERS;
	if (k->holder)
		return k->holder;
	/* (named by uid in a file with a holder table: never a value of the table's) */
	if (!k->uid_known || k->uid > (o->cfg.holders_by_uid ? UINT32_MAX : OFFCPU_HOLDER_TASK - 1) - OFFCPU_HOLDER_UID)
		return OFFCPU_HOLDER_UNKNOWN;
	return OFFCPU_HOLDER_UID + k->uid;
}

void offcpu__forget_kind(struct offcpu *o, int32_t tid)
{
	hashtable__remove(&o->kinds, tid_hash(tid), &tid);
}

bool offcpu__kind_known(struct offcpu *o, int32_t tid)
{
	return hashtable__find(&o->kinds, tid_hash(tid), &tid) != NULL;
}

/* The CPU's runner leaves it at time: its segment, then next runs there. */
void offcpu__cpu_switch(struct offcpu *o, struct cpu *c, int32_t next_pid, int32_t next_tid, uint64_t time)
{
	if (c->known && time > c->since) {
		struct segment *s = &c->segs[c->head];

		*s = (struct segment){ .start = c->since, .end = time, .pid = c->pid, .tid = c->tid };
		c->head = (c->head + 1) % CPU_SEGMENTS;
		c->nr = MIN(c->nr + 1, CPU_SEGMENTS);
	}
	c->known = true;
	c->pid = next_pid;
	c->tid = next_tid;
	c->since = time;
}

void split__add(struct split *s, uint32_t holder, uint64_t ns)
{
	size_t i;

	if (!ns)
		return;
	for (i = 0; i < s->nr && s->holder[i] != holder; i++)
		;
	if (i == s->nr) {
		if (s->nr == MAX_SPLIT)
			i = 0, holder = OFFCPU_HOLDER_UNKNOWN;
		for (i = 0; i < s->nr && s->holder[i] != holder; i++)
			;
		if (i == s->nr) {
			s->holder[s->nr] = holder;
			s->ns[s->nr++] = 0;
		}
	}
	s->ns[i] += ns;
}

/*
 * ns of the wait s split were its cgroup's throttling: idle's.  The CPU is idle while a
 * thread waits on it only when that thread is throttled, so the idle already there is
 * part of it; the rest is taken from the other holders in proportion (the wait moved
 * between CPUs: when on which is not kept).
 */
void split__throttled(struct split *s, uint64_t ns)
{
	uint64_t idle = 0, others = 0, need, taken = 0;
	size_t last = MAX_SPLIT;

	for (size_t i = 0; i < s->nr; i++) {
		if (s->holder[i] == OFFCPU_HOLDER_IDLE) {
			idle += s->ns[i];
		} else {
			others += s->ns[i];
			last = i;
		}
	}
	if (ns <= idle || !others)
		return;
	need = MIN(ns - idle, others);
	for (size_t i = 0; i < s->nr; i++) {
		uint64_t take;

		if (s->holder[i] == OFFCPU_HOLDER_IDLE)
			continue;
		/* (the last one takes what rounding left) */
		take = i == last ? need - taken : (uint64_t)((unsigned __int128)s->ns[i] * need / others);
		take = MIN(take, s->ns[i]);
		s->ns[i] -= take;
		taken += take;
	}
	split__add(s, OFFCPU_HOLDER_IDLE, taken);
	/* the holders left with nothing are not written */
	for (size_t i = 0; i < s->nr;) {
		if (s->ns[i]) {
			i++;
			continue;
		}
		s->nr--;
		s->holder[i] = s->holder[s->nr];
		s->ns[i] = s->ns[s->nr];
	}
}

/*
 * Who held CPU c during [t0, t1) while tid waited: its segments, newest first, and its
 * runner now.  That runner is tid itself from the switch-out record of the one before
 * to tid's switch-in record (the switch itself, ~1 us): that slice is the one before's.
 * So is tid's own segment at the start: its stack sample fires before the switch-out
 * record ends that segment, and those microseconds are the switch to the one after.
 */
void offcpu__split_by_holder(struct offcpu *o, int32_t tid, uint32_t cpu, uint64_t t0, uint64_t t1,
			     struct split *s)
{
	struct cpu *c = cpu < MAX_CPUS ? o->cpus[cpu] : NULL;
	uint32_t newer = OFFCPU_HOLDER_UNKNOWN;     /* the holder after a segment */
	uint64_t covered = 0;

	s->nr = 0;
	if (c && c->known && c->since < t1 && c->since >= c->valid_from) {
		uint64_t from = MAX(c->since, t0);
		const struct segment *last = &c->segs[(c->head + CPU_SEGMENTS - 1) % CPU_SEGMENTS];
		uint32_t h;

		/* tid itself since its switch-in began: the runner before it, when the
		 * timeline has it up to then (not at the CPU's first record, nor after a
		 * gap: then not known, never tid's own scope) */
		if (c->tid != tid)
			h = offcpu__holder_of(o, c->pid, c->tid);
		else if (c->nr && last->end == c->since && last->start >= c->valid_from)
			h = last->holder ? last->holder : offcpu__holder_of(o, last->pid, last->tid);
		else
			h = OFFCPU_HOLDER_UNKNOWN;

		split__add(s, h, t1 - from);
		covered += t1 - from;
		newer = h;
	}
	for (uint32_t i = 0; c && i < c->nr; i++) {
		const struct segment *g = &c->segs[(c->head + CPU_SEGMENTS - 1 - i) % CPU_SEGMENTS];
		uint64_t a = MAX(g->start, t0), b = MIN(g->end, t1);
		uint32_t h;

		if (g->end <= t0 || g->start < c->valid_from)
			break;
		h = g->tid == tid ? newer : g->holder ? g->holder : offcpu__holder_of(o, g->pid, g->tid);
		if (b > a) {
			split__add(s, h, b - a);
			covered += b - a;
		}
		newer = h;
	}
	if (covered < t1 - t0)
		split__add(s, OFFCPU_HOLDER_UNKNOWN, t1 - t0 - covered);
}

/* A tracepoint sample's int field at off in its raw data: false when it has none. */
static bool tp_int(const struct perf_event_header *ev, int off, int32_t *ret)
{
	uint32_t size;

	if (off < 0 || ev->size < OFFCPU_TP_RAW_AT + 4)
		return false;
	memcpy(&size, (const char *)ev + OFFCPU_TP_RAW_AT, 4);
	if ((size_t)off + 4 > size || OFFCPU_TP_RAW_AT + 4 + size > ev->size)
		return false;
	memcpy(ret, (const char *)ev + OFFCPU_TP_RAW_AT + 4 + off, 4);
	return true;
}

/*
 * sched_wakeup: a task made runnable, on target_cpu.  Of the scope's threads asleep
 * (switched out, not preempted) the sleep ends here and its wait for a CPU begins;
 * any other task's (another tenant's, one not asleep: woken while still on its CPU) is
 * one hash look-up and out.
 */
static int on_wakeup(struct offcpu *o, const struct perf_event_header *ev, uint64_t time)
{
	const struct offcpu_wakeups *w = &o->cfg.wakeups;
	int32_t tid, cpu;
	struct thread *t;

	if (!tp_int(ev, w->wake_pid_off, &tid) || tid <= 0 || !(t = thread_find(o, tid)) ||
	    t->state != T_OUT || t->runq || t->woken || !tp_int(ev, w->wake_cpu_off, &cpu))
		return 1;
	t->woken = true;
	t->woke = t->part_since = MAX(time, t->out_time);
	t->wait_cpu = (uint32_t)cpu;
	return 1;
}

/*
 * sched_migrate_task: a task moved from orig_cpu to dest_cpu.  A thread of the scope
 * waiting for a CPU: its wait so far on orig_cpu is split by who held that CPU, and
 * the rest is on dest_cpu's.  (A sleeper's move at its wake-up comes before the
 * wake-up: nothing to split then.)
 */
static int on_migrate(struct offcpu *o, const struct perf_event_header *ev, uint64_t time)
{
	const struct offcpu_wakeups *w = &o->cfg.wakeups;
	int32_t tid, orig, dest;
	struct thread *t;
	struct split part;

	if (!tp_int(ev, w->migrate_pid_off, &tid) || tid <= 0 || !(t = thread_find(o, tid)) ||
	    t->state != T_OUT || !(t->runq || t->woken) || !tp_int(ev, w->migrate_orig_off, &orig) ||
	    !tp_int(ev, w->migrate_dest_off, &dest) || orig < 0 || dest < 0)
		return 1;
	if (time > t->part_since) {
		offcpu__split_by_holder(o, tid, (uint32_t)orig, t->part_since, time, &part);
		for (size_t i = 0; i < part.nr; i++)
			split__add(&t->moved, part.holder[i], part.ns[i]);
		t->part_since = time;
	}
	t->wait_cpu = (uint32_t)dest;
	o->st.migrations++;
	return 1;
}

/* The context-switch sample of a task switching out: its stack, kept for its switch-out. */
static int on_stack(struct offcpu *o, const struct perf_event_header *ev)
{
	const struct sample_layout *l = o->cfg.layout;
	int32_t pid, tid;
	struct thread *t;
	size_t size, head;
	bool created;

	if (!sample_layout__tid(l, ev, &pid, &tid) || tid <= 0 || l->s_id < 0 || l->s_time < 0 ||
	    l->s_period < 0 || l->s_cpu < 0)
		return 1;
	t = thread_find(o, tid);
	if (!t && o->cfg.in_scope(o->cfg.ctx, pid, tid, sample_layout__cgroup(l, ev)) == 0)
		return 1;       /* not the scope's: no stack kept, nothing tracked */
	if (!t) {
		t = hashtable__insert(&o->threads, tid_hash(tid), &tid, &created);
		if (!t)
			return -ENOMEM;
		*t = (struct thread){ .tid = tid, .pid = pid };
	}
	/* the event has no PERIOD (offcpu_events.c): one is put back where the sampling
	 * events have it, so the copy has their layout */
	size = ev->size + 8u;
	head = sizeof(*ev) + 8 * (size_t)l->s_period;
	if (ev->size < head || size > UINT16_MAX)
		return 1;
	if (t->rec_cap < size) {
		uint8_t *nr = realloc(t->rec, size);

		if (!nr)
			return -ENOMEM;
		t->rec = nr;
		t->rec_cap = size;
	}
	memcpy(t->rec, ev, head);
	memset(t->rec + head, 0, 8);
	memcpy(t->rec + head + 8, (const uint8_t *)ev + head, ev->size - head);
	((struct perf_event_header *)(void *)t->rec)->size = (uint16_t)size;
	t->rec_len = size;
	t->pid = pid;
	t->cgroup = sample_layout__cgroup(l, ev);
	t->state = T_STACKED;
	return 1;
}

/*
 * The bound on stack samples: a switch out on CPU c at time, counted (all of them when
 * the context-switch event counts every task's, the scope's threads' when the kernel
 * filters it by cgroup).  At the end of each window, past max_rate per second, the
 * CPU's event samples 1 switch in N (N the rate over max_rate, rounded up), and back
 * to every one (to min_period's 1 in N, its floor) when the rate falls.  The switch records are never sampled: every
 * interval is still timed, and those without a stack are written with none.
 */
static void count_switch(struct offcpu *o, struct cpu *c, uint32_t cpu, uint64_t time)
{
	uint64_t el, rate, n, base = base_period(o), cur = c->period ? c->period : 1;

	if (!o->cfg.max_rate || !o->cfg.set_period)
		return;
	if (!c->win_start || time < c->win_start) {
		c->win_start = time;
		c->win_n = 0;
	}
	c->win_n++;
	el = time - c->win_start;
	if (el < OFFCPU_RATE_WINDOW_NS)
		return;
	rate = c->win_n * 1000000000ull / el;
	n = (rate + o->cfg.max_rate - 1) / o->cfg.max_rate;
	n = MIN(MAX(n, base), 1000000);
	c->win_start = time;
	c->win_n = 0;
	if (n == cur)
		return;
	if (o->cfg.set_period(o->cfg.period_ctx, (int)cpu, n) < 0) {
		o->st.period_errors++;
		return;
	}
	/* degraded: sampled above the base (min_period, or every switch) */
	if (n > base && cur <= base)
		c->degraded_since = time;
	else if (n == base && cur > base)
		o->st.degraded_cpu_ns += time - c->degraded_since;
	c->period = n;
	o->st.max_period = MAX(o->st.max_period, n);
}

/*
 * The threads that exited and have been off a CPU for a second: gone (their last
 * switch-out), forgotten.  Run at most once a second of the recording.  A thread of the
 * exit path asleep longer than that and coming back is then counted as open at the
 * start.
 */
static void sweep_dead(struct offcpu *o, uint64_t now)
{
	int32_t gone[256];
	size_t n = 0, it = 0;
	struct thread *t;

	if (now < o->swept + DEAD_AFTER_NS || !o->nr_dead)
		return;
	o->swept = now;
	while ((t = hashtable__next(&o->threads, &it)) && n < ARRAY_SIZE(gone))
		if (t->dead && t->state == T_OUT && t->out_time + DEAD_AFTER_NS <= now)
			gone[n++] = t->tid;
	for (size_t i = 0; i < n; i++)
		thread_forget(o, gone[i]);
	o->nr_dead -= MIN(o->nr_dead, n);
	if (n == ARRAY_SIZE(gone))
		o->swept = 0;   /* more of them: again at the next exit's switch */
}

static int on_switch(struct offcpu *o, const struct perf_event_header *ev, uint64_t time)
{
	const struct sample_layout *l = o->cfg.layout;
	const struct perf_record_switch *sw = (const void *)ev;
	uint32_t ids[2], cpu;
	struct thread *t;
	struct cpu *c;

	o->st.switches++;
	if (ev->type != PERF_RECORD_SWITCH_CPU_WIDE || ev->size < sizeof(*sw) + l->trailer_size ||
	    l->t_tid < 0 || l->t_cpu < 0)
		return 1;
	memcpy(ids, &(uint64_t){ sample_layout__trailer(l, ev, l->t_tid) }, 8);
	cpu = (uint32_t)sample_layout__trailer(l, ev, l->t_cpu);
	c = cpu_get(o, cpu);
	if (!c)
		return cpu < MAX_CPUS ? -ENOMEM : 1;
	if (ev->misc & PERF_RECORD_MISC_SWITCH_OUT) {
		/* ids: the task leaving; next_prev: the one coming */
		offcpu__cpu_switch(o, c, (int32_t)sw->next_prev_pid, (int32_t)sw->next_prev_tid, time);
		t = thread_find(o, (int32_t)ids[1]);
		if (!o->cfg.stacks_scoped || t)
			count_switch(o, c, cpu, time);
		if (!t)
			return 1;
		t->nostack = t->state != T_STACKED;
		t->state = T_OUT;
		t->runq = ev->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT;
		t->lost = false;
		t->out_time = time;
		t->out_cpu = cpu;
		t->woken = false;
		t->wait_cpu = cpu;
		t->part_since = time;
		t->moved.nr = 0;
		if (o->cfg.quota_watch)
			o->cfg.quota_watch(o->cfg.quota_ctx, t->tid, time);
		if (t->dead)
			sweep_dead(o, time);    /* (t may move: not used after) */
		return 1;
	}
	/* in: ids is the task coming; the CPU's timeline starts here if unknown yet */
	if (!c->known)
		offcpu__cpu_switch(o, c, (int32_t)ids[0], (int32_t)ids[1], time);
	t = thread_find(o, (int32_t)ids[1]);
	if (!t && (int32_t)ids[1] > 0 && o->cfg.in_scope(o->cfg.ctx, (int32_t)ids[0], (int32_t)ids[1], 0) > 0) {
		struct thread nt = { .tid = (int32_t)ids[1], .pid = (int32_t)ids[0] };
		int32_t tid = nt.tid;
		struct born *b = hashtable__size(&o->born) ? hashtable__find(&o->born, tid_hash(tid), &tid) : NULL;
		bool created;

		t = hashtable__insert(&o->threads, tid_hash(nt.tid), &nt.tid, &created);
		if (!t)
			return -ENOMEM;
		*t = nt;
		if (b) {
			/* forked during the recording: runnable from its FORK to its first run
			 * (wake_up_new_task follows the FORK record by microseconds), no stack */
			t->state = T_OUT;
			t->runq = true;
			t->nostack = true;
			t->out_time = t->part_since = b->time;
			t->out_cpu = t->wait_cpu = cpu;
			t->lost = b->lost;
			hashtable__remove(&o->born, tid_hash(tid), &tid);
			return offcpu__close_interval(o, t, time, cpu) < 0 ? -ENOMEM : 1;
		}
		/* first seen coming back: off a CPU since before the recording (or the
		 * window) */
		o->st.cut_start++;
		o->st.cut_start_ns += time - MAX(o->first_time, o->window_from);
		return 1;
	}
	if (!t && (int32_t)ids[1] > 0 && hashtable__size(&o->born)) {
		int32_t tid = (int32_t)ids[1];

		hashtable__remove(&o->born, tid_hash(tid), &tid);       /* not the scope's */
	}
	if (!t || t->state != T_OUT)
		return 1;
	return offcpu__close_interval(o, t, time, cpu) < 0 ? -ENOMEM : 1;
}

/* A gap: no interval open across it is known to be waiting, no CPU's past is known. */
static void on_lost(struct offcpu *o, uint64_t time)
{
	struct thread *t;
	size_t it = 0;

	struct born *b;

	while ((t = hashtable__next(&o->threads, &it)))
		if (t->state == T_OUT)
			t->lost = true;
	it = 0;
	while ((b = hashtable__next(&o->born, &it)))
		b->lost = true;
	for (size_t c = 0; c < MAX_CPUS; c++)
		if (o->cpus[c]) {
			o->cpus[c]->valid_from = time;
			o->cpus[c]->known = false;
		}
}

/* A record of the kernel's that names the context-switch event in its sample id: a
 * copy that names offcpu-runq, an event of the file. */
static int rename_id(struct offcpu *o, const struct perf_event_header **pev)
{
	const struct sample_layout *l = o->cfg.layout;
	const struct perf_event_header *ev = *pev;
	uint32_t v;
	uint64_t id;

	if (l->t_id < 0 || ev->size < sizeof(*ev) + l->trailer_size)
		return 0;
	memcpy(&id, (const char *)ev + ev->size - 8 * (unsigned)l->t_id, 8);
	if (!idmap__get(o->switch_ids, id, &v))
		return 0;
	if (VEC_RESERVE(o->fix, o->fix_cap, ev->size) < 0)
		return -ENOMEM;
	memcpy(o->fix, ev, ev->size);
	id = OFFCPU_ID_RUNQ;
	memcpy(o->fix + ev->size - 8 * (unsigned)l->t_id, &id, 8);
	*pev = (const struct perf_event_header *)(const void *)o->fix;
	return 0;
}

bool offcpu__is_switch_sample(const struct offcpu *o, const struct perf_event_header *ev)
{
	uint32_t v;

	return ev->type == PERF_RECORD_SAMPLE && idmap__get(o->switch_ids, sample_layout__id(o->cfg.layout, ev), &v) &&
	       v < OWN_CREDS;
}

bool offcpu__is_tracepoint_sample(const struct offcpu *o, const struct perf_event_header *ev)
{
	uint32_t v;

	return ev->type == PERF_RECORD_SAMPLE && o->cfg.wakeups.nr_wake_ids &&
	       idmap__get(o->switch_ids, sample_layout__id(o->cfg.layout, ev), &v) && (v == OWN_WAKEUP || v == OWN_MIGRATE);
}

/* A window's end at time: what is open is cut there and written, the rest forgotten. */
static int window_end(struct offcpu *o, uint64_t time)
{
	struct thread *t;
	size_t it = 0;
	int err = 0;

	o->finishing = true;            /* a sleep cut there was not woken: not "unwoken" */
	while ((t = hashtable__next(&o->threads, &it)) && !err) {
		uint64_t written = o->st.intervals, ns = time > t->out_time ? time - t->out_time : 0;

		if (t->state != T_OUT || t->dead)
			continue;
		err = offcpu__close_interval(o, t, time, t->runq || t->woken ? t->wait_cpu : t->out_cpu);
		if (o->st.intervals != written) {
			o->st.window_cut++;
			o->st.window_cut_ns += ns;
		}
	}
	o->finishing = false;
	it = 0;
	while ((t = hashtable__next(&o->threads, &it)))
		free(t->rec);
	hashtable__release(&o->threads);
	hashtable__init(&o->threads, sizeof(struct thread), tid_eq, NULL);
	hashtable__release(&o->born);
	hashtable__init(&o->born, sizeof(struct born), tid_eq, NULL);
	o->nr_dead = 0;
	for (size_t c = 0; c < MAX_CPUS; c++)
		if (o->cpus[c]) {
			o->cpus[c]->valid_from = time;
			o->cpus[c]->known = false;
		}
	if (time > o->window_from)
		o->st.window_ns += time - MAX(o->window_from, o->first_time);
	o->outside = true;
	return err;
}

/* The edges up to upto, each taken off the list before it applies (the samples an
 * end writes come back through offcpu__judge). */
static int apply_edges(struct offcpu *o, uint64_t upto)
{
	int err = 0;

	while (o->nr_edges && o->edges[0].time <= upto && !err) {
		uint64_t time = o->edges[0].time;
		bool on = o->edges[0].on;

		memmove(o->edges, o->edges + 1, (o->nr_edges - 1) * sizeof(o->edges[0]));
		o->nr_edges--;
		if (!on && !o->outside) {
			err = window_end(o, time);
		} else if (on && o->outside) {
			o->outside = false;
			o->window_from = time;
			o->st.windows++;
		}
	}
	return err;
}

int offcpu__window(struct offcpu *o, bool on, uint64_t time)
{
	/* the edges come a window apart (seconds) and are applied within a round: a full
	 * list means no record came meanwhile, and the oldest can go now */
	if (o->nr_edges == ARRAY_SIZE(o->edges) && apply_edges(o, o->edges[0].time) < 0)
		return -ENOMEM;
	if (!o->st.windows && !o->outside && !o->nr_edges) {
		o->st.windows = 1;      /* the first window: from the recording's start */
		o->window_from = 0;
	}
	o->edges[o->nr_edges].time = time;
	o->edges[o->nr_edges++].on = on;
	return 0;
}

int offcpu__judge(struct offcpu *o, const struct perf_event_header **pev, uint64_t time)
{
	const struct perf_event_header *ev = *pev;
	uint32_t v;

	if (o->nr_edges && o->edges[0].time <= time) {
		int err = apply_edges(o, time);

		if (err < 0)
			return err;
	}

	if (time > o->last_time)
		o->last_time = time;
	if (!o->first_time && time)
		o->first_time = time;
	switch (ev->type) {
	case PERF_RECORD_SAMPLE:
		if (!idmap__get(o->switch_ids, sample_layout__id(o->cfg.layout, ev), &v))
			return 0;
		if (v > OWN_CREDS) {
			/* a set*uid() call: the tracker judges it too (returns 0) */
			offcpu__on_creds(o, ev, time, (enum creds_call)(v - OWN_CREDS));
			return 0;
		}
		if (v != OWN_SWITCH) {
			o->st.tp_samples++;
			o->st.tp_bytes += ev->size;
		}
		return v == OWN_WAKEUP ? on_wakeup(o, ev, time) : v == OWN_MIGRATE ? on_migrate(o, ev, time)
										  : on_stack(o, ev);
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE: {
		int err = on_switch(o, ev, time);
		return err;
	}
	case PERF_RECORD_EXIT:
	case PERF_RECORD_FORK:
		if (ev->size >= sizeof(struct perf_record_fork)) {
			const struct perf_record_fork *f = (const void *)ev;
			int32_t tid = (int32_t)f->tid;
			struct thread *t = thread_find(o, tid);

			hashtable__remove(&o->kinds, tid_hash(tid), &tid);
			hashtable__remove(&o->born, tid_hash(tid), &tid);
			if (ev->type == PERF_RECORD_FORK && tid > 0 && !o->outside) {
				struct born *b;
				bool created;

				b = hashtable__insert(&o->born, tid_hash(tid), &tid, &created);
				if (!b)
					return -ENOMEM;
				*b = (struct born){ .tid = tid, .time = time };
			}
			if (t && ev->type == PERF_RECORD_EXIT && !t->dead) {
				t->dead = true;
				o->nr_dead++;
			}
			else if (t)
				thread_forget(o, tid);  /* a new task with an old tid */
		}
		return 0;
	case PERF_RECORD_COMM:
		/* an exec (a setuid program's among them): its uid and cgroup as a holder
		 * are read again the next time it holds a CPU */
		if ((ev->misc & PERF_RECORD_MISC_COMM_EXEC) && ev->size >= sizeof(*ev) + 8) {
			const struct perf_record_comm *c = (const void *)ev;
			int32_t tid = (int32_t)c->tid;

			hashtable__remove(&o->kinds, tid_hash(tid), &tid);
		}
		return rename_id(o, pev);
	case PERF_RECORD_LOST:
		/* (LOST_SAMPLES loses samples, not switches: an interval without its
		 * stack is counted as such) */
		on_lost(o, time);
		return rename_id(o, pev);
	default:
		return rename_id(o, pev);
	}
}

int offcpu__finish(struct offcpu *o)
{
	struct thread *t;
	size_t it = 0;

	if (o->nr_edges) {
		int err = apply_edges(o, UINT64_MAX);

		if (err < 0)
			return err;
	}
	if (o->st.windows && !o->outside && o->last_time > MAX(o->window_from, o->first_time))
		o->st.window_ns += o->last_time - MAX(o->window_from, o->first_time);
	for (size_t c = 0; c < MAX_CPUS; c++)
		if (o->cpus[c] && o->cpus[c]->period > base_period(o) && o->last_time > o->cpus[c]->degraded_since)
			o->st.degraded_cpu_ns += o->last_time - o->cpus[c]->degraded_since;
	o->finishing = true;
	/* emitting inserts nothing here: the walk holds */
	while ((t = hashtable__next(&o->threads, &it))) {
		int err;

		uint64_t written = o->st.intervals;

		if (t->state != T_OUT || t->dead)
			continue;
		err = offcpu__close_interval(o, t, o->last_time, t->runq || t->woken ? t->wait_cpu : t->out_cpu);
		if (err < 0)
			return err;
		o->st.cut_end += o->st.intervals != written;
	}
	return 0;
}

void offcpu__each_open(const struct offcpu *o, offcpu_open_fn fn, void *ctx)
{
	const struct thread *t;
	size_t it = 0;

	while ((t = hashtable__next(&o->threads, &it)))
		if (t->state == T_OUT && !t->dead && !t->lost && !t->nostack && t->rec_len) {
			const struct perf_event_header *rec = (const void *)t->rec;

			if (!t->runq && t->woken) {
				fn(ctx, rec, false, t->out_time, t->woke);
				fn(ctx, rec, true, t->woke, UINT64_MAX);
			} else {
				fn(ctx, rec, t->runq, t->out_time, UINT64_MAX);
			}
		}
}
