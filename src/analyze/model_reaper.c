/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <perf/event.h>

#include "prof/analyze/model_reaper.h"

int model_reaper__init(struct model_reaper *r, uint64_t grace_ns)
{
	*r = (struct model_reaper){ .forked = idmap__new() };
	linger__init(&r->exits, grace_ns);
	return r->forked ? 0 : -ENOMEM;
}

void model_reaper__release(struct model_reaper *r)
{
	linger__release(&r->exits);
	r->forked = idmap__free(r->forked);
}

int model_reaper__note(struct model_reaper *r, const struct perf_event_header *ev)
{
	const struct perf_record_fork *f = (const void *)ev;

	if ((ev->type != PERF_RECORD_EXIT && ev->type != PERF_RECORD_FORK) || ev->size < sizeof(*f))
		return 0;
	if (ev->type == PERF_RECORD_EXIT)
		return linger__add(&r->exits, (uint64_t)f->pid << 32 | f->tid, f->time, ++r->seq);
	return idmap__set(r->forked, (uint64_t)f->tid, ++r->seq);
}

void model_reaper__reap(struct model_reaper *r, struct model *m, uint64_t now)
{
	struct linger_entry e;

	while (linger__expire(&r->exits, now, &e)) {
		int32_t pid = (int32_t)(e.key >> 32), tid = (int32_t)(uint32_t)e.key;
		uint32_t fork_seq;

		/* unless the tid was given to a new task since */
		if (idmap__get(r->forked, (uint64_t)(uint32_t)tid, &fork_seq) && fork_seq > e.tag)
			continue;
		model__forget(m, pid, tid);
		/* no task has the tid now: the fork map stays as small as the live tasks */
		idmap__remove(r->forked, (uint64_t)(uint32_t)tid);
	}
}
