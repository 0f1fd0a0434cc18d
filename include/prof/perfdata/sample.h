/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where the fixed fields sit in a record, for one sample_type: the leading u64s of
 * a PERF_RECORD_SAMPLE body, and the sample_id_all trailer of every other kernel
 * record.  Only fixed-size fields are located; the hot path reads them in O(1).
 */
#ifndef PROF_PERFDATA_SAMPLE_H
#define PROF_PERFDATA_SAMPLE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <linux/perf_event.h>

struct sample_layout {
	uint64_t sample_type;
	int s_tid, s_time, s_cpu, s_id;         /* u64 index in a sample body, -1 if absent */
	int t_tid, t_time, t_id;                /* u64 index back from a record's end */
	int s_cgroup_back;                      /* CGROUP as the last sample field: 1, else -1 */
	int s_ip, s_period;                     /* u64 index in a sample body, -1 if absent */
	int s_chain;                            /* u64 index of the call chain's nr, -1 if absent */
	unsigned int trailer_size;              /* bytes */
	unsigned int fixed_size;                /* bytes of header + fixed sample fields */
};

void sample_layout__init(struct sample_layout *l, uint64_t sample_type);

static inline const uint64_t *sample__u64(const struct perf_event_header *ev, int idx)
{
	return (const uint64_t *)(const void *)(ev + 1) + idx;
}

/* Timestamp of any kernel record (sample or sideband), 0 if it has none. */
static inline uint64_t sample_layout__time(const struct sample_layout *l, const struct perf_event_header *ev)
{
	if (ev->type == PERF_RECORD_SAMPLE) {
		if (l->s_time < 0 || ev->size < l->fixed_size)
			return 0;
		return *sample__u64(ev, l->s_time);
	}
	if (l->t_time < 0 || ev->size < sizeof(*ev) + l->trailer_size)
		return 0;
	return *(const uint64_t *)(const void *)((const char *)ev + ev->size - 8 * (unsigned)l->t_time);
}

/* The cgroup id a sample carries, 0 when it has none. */
static inline uint64_t sample_layout__cgroup(const struct sample_layout *l, const struct perf_event_header *ev)
{
	uint64_t v;

	if (l->s_cgroup_back < 0 || ev->size < l->fixed_size + 8)
		return 0;
	memcpy(&v, (const char *)ev + ev->size - 8, 8);
	return v;
}

/* The sample's IDENTIFIER (or ID), 0 when it has none. */
static inline uint64_t sample_layout__id(const struct sample_layout *l, const struct perf_event_header *ev)
{
	if (l->s_id < 0 || ev->size < l->fixed_size)
		return 0;
	return *sample__u64(ev, l->s_id);
}

/* pid/tid of a sample; false if the sample is too short or has no TID. */
static inline bool sample_layout__tid(const struct sample_layout *l, const struct perf_event_header *ev,
				      int32_t *pid, int32_t *tid)
{
	uint32_t v[2];

	if (l->s_tid < 0 || ev->size < l->fixed_size)
		return false;
	memcpy(v, sample__u64(ev, l->s_tid), 8);
	*pid = (int32_t)v[0];
	*tid = (int32_t)v[1];
	return true;
}

/* A sample's ip, period (0 when absent) and call chain (nr 0 when none); false
 * when the record is too short for what its layout says it holds. */
static inline bool sample_layout__ip_chain(const struct sample_layout *l, const struct perf_event_header *ev,
					   uint64_t *ip, uint64_t *period, const uint64_t **chain, uint64_t *nr)
{
	uint64_t n = 0;

	if (ev->size < l->fixed_size)
		return false;
	*ip = l->s_ip >= 0 ? *sample__u64(ev, l->s_ip) : 0;
	*period = l->s_period >= 0 ? *sample__u64(ev, l->s_period) : 0;
	*chain = NULL;
	if (l->s_chain >= 0) {
		if (ev->size < l->fixed_size + 8)
			return false;
		n = *sample__u64(ev, l->s_chain);
		if (n > (ev->size - l->fixed_size - 8) / 8)
			return false;
		*chain = sample__u64(ev, l->s_chain + 1);
	}
	*nr = n;
	return true;
}

#endif
