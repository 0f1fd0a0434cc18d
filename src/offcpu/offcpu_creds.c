/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A holder's set*uid() without exec (offcpu_internal.h).  Holders are read from /proc
 * once per task and cached; a task that changes its real uid and goes on running would
 * keep the old one.  The set*uid() tracepoints' entries come in the records' order:
 * at one, the caller's segments so far (on every CPU, and the one it runs now, cut at
 * the call) are pinned to the holder it was, and its cached kind is forgotten, so the
 * waits closed later charge its time before the call to the old uid and after it to
 * the new one, as the kernel ordered them.
 */
#include "prof/base/idmap.h"
#include "prof/base/util.h"
#include "prof/offcpu/offcpu.h"
#include "offcpu_internal.h"

int offcpu__add_creds_ids(struct offcpu *o, enum creds_call call, const uint64_t *ids, size_t n, int uid_off)
{
	for (size_t i = 0; i < n; i++)
		if (idmap__set(o->switch_ids, ids[i], OWN_CREDS + (uint32_t)call) < 0)
			return -ENOMEM;
	o->creds_uid_off = uid_off;
	o->st.creds = n > 0;
	return 0;
}

/*
 * Who tid was before its call, for its segments so far.  The tracker judges the call
 * after offcpu.c, so it still holds the old uid; a task neither cached nor tracked has
 * its uid from /proc only, which may be the new one already: [unknown], never a wrong
 * name.
 */
static uint32_t holder_before(struct offcpu *o, int32_t pid, int32_t tid)
{
	uint32_t uid;

	if (!o->cfg.name_holders && !o->cfg.holders_by_uid)
		return offcpu__holder_of(o, pid, tid);  /* self, system, other tenants */
	if (offcpu__kind_known(o, tid) || o->cfg.uid_of(o->cfg.ctx, tid, &uid))
		return offcpu__holder_of(o, pid, tid);
	return OFFCPU_HOLDER_UNKNOWN;
}

/* tid's segments up to time, on every CPU, pinned to who it was. */
static void pin_segments(struct offcpu *o, int32_t pid, int32_t tid, uint64_t time)
{
	uint32_t h = 0;

	for (size_t n = 0; n < MAX_CPUS; n++) {
		struct cpu *c = o->cpus[n];

		if (!c)
			continue;
		/* running now: its segment ends at the call, the rest is the new holder's */
		if (c->known && c->tid == tid && time > c->since)
			offcpu__cpu_switch(o, c, c->pid, c->tid, time);
		for (uint32_t i = 0; i < c->nr; i++) {
			struct segment *g = &c->segs[(c->head + CPU_SEGMENTS - 1 - i) % CPU_SEGMENTS];

			if (g->start < c->valid_from)
				break;
			if (g->tid != tid || g->holder)
				continue;
			if (!h)
				h = holder_before(o, pid, tid);
			g->holder = h;
		}
	}
}

void offcpu__on_creds(struct offcpu *o, const struct perf_event_header *ev, uint64_t time, enum creds_call call)
{
	int32_t pid, tid;
	uint32_t arg;

	if (!sample_layout__tid(o->cfg.layout, ev, &pid, &tid) || tid <= 0)
		return;
	/* setre*uid(-1, ...) keeps the real uid, the one holders are named by (GNU make
	 * calls setresuid(-1, euid, -1) in every child it starts) */
	if (call != CREDS_SETUID && creds__argument(o->cfg.layout, o->creds_uid_off, ev, &arg) &&
	    arg == CREDS_UNCHANGED)
		return;
	o->st.creds_calls++;
	pin_segments(o, pid, tid, time);
	offcpu__forget_kind(o, tid);
}
