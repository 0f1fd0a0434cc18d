/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * events' part for the kernel's LOST and LOST_SAMPLES records of a ring shared by
 * events the file has no attr for.  The kernel writes the ring's loss with the
 * attributes of whichever event writes into it next: the Python chains' bpf-output
 * event (no sample_id_all: a 24-byte LOST with no trailer), the set*uid() and sched
 * tracepoints, the context-switch event (ids the file does not name).  perf reads
 * every non-sample record with the trailer of one of the file's events and stops at
 * such a record ("failed to process type: 2 [Bad address]").  The count is the
 * ring's (samples lost with it), not that event's, so the record is kept, named for
 * the first sampling event, with the trailer its layout has.
 */
#include <string.h>

#include <perf/event.h>

#include "prof/base/util.h"
#include "prof/base/vec.h"
#include "events_internal.h"

static bool file_id(const struct events *e, uint64_t id)
{
	for (size_t i = 0; i <= e->info.nr_events; i++)
		for (size_t k = 0; k < e->events[i].nr_ids; k++)
			if (e->events[i].ids[k] == id)
				return true;
	return false;
}

/* The CPU of a chains' bpf-output event's id (one per CPU, in the CPUs' order), -1. */
static int32_t chain_cpu(const struct events *e, uint64_t id)
{
	for (int c = 0; e->chain_ids && c < e->info.nr_cpus; c++)
		if (e->chain_ids[c] == id)
			return perf_cpu_map__cpu(e->cpus, c).cpu;
	return -1;
}

static void put_u64(uint8_t *at, uint64_t v)
{
	memcpy(at, &v, 8);
}

int events__fix_lost(struct events *e, const struct perf_event_header **pev, uint64_t time)
{
	const struct perf_event_header *h = *pev;
	const struct sample_layout *l = &e->layout;
	size_t body = h->type == PERF_RECORD_LOST ? sizeof(struct perf_record_lost)
						  : sizeof(struct perf_record_lost_samples);
	bool trailer = h->size >= body + l->trailer_size;
	uint64_t id = 0, to;
	uint8_t *end;
	int err;

	if ((h->type != PERF_RECORD_LOST && h->type != PERF_RECORD_LOST_SAMPLES) || h->size < body ||
	    l->t_id < 0 || !e->events[0].nr_ids)
		return 0;
	if (trailer)
		id = sample_layout__trailer(l, h, l->t_id);
	else if (h->type == PERF_RECORD_LOST)
		id = ((const struct perf_record_lost *)(const void *)h)->id;
	if (trailer && file_id(e, id))
		return 0;
	err = VEC_RESERVE(e->lost_fix, e->lost_fix_cap, body + l->trailer_size);
	if (err < 0)
		return err;
	to = e->events[0].ids[0];
	memcpy(e->lost_fix, h, trailer ? body + l->trailer_size : body);
	((struct perf_event_header *)(void *)e->lost_fix)->size = (uint16_t)(body + l->trailer_size);
	if (h->type == PERF_RECORD_LOST)
		((struct perf_record_lost *)(void *)e->lost_fix)->id = to;
	end = e->lost_fix + body + l->trailer_size;
	if (!trailer) {
		/* who and when the kernel did not say: the task unknown (-1), the time
		 * of the last record the rings gave before it, the CPU of the event */
		memset(e->lost_fix + body, 0, l->trailer_size);
		if (l->t_tid >= 0)
			put_u64(end - 8 * l->t_tid, UINT64_MAX);
		if (l->t_time >= 0)
			put_u64(end - 8 * l->t_time, time);
		if (l->t_cpu >= 0)
			put_u64(end - 8 * l->t_cpu, (uint32_t)chain_cpu(e, id));
	}
	put_u64(end - 8 * l->t_id, to);
	*pev = (const struct perf_event_header *)(const void *)e->lost_fix;
	return 0;
}
