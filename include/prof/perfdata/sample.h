/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Samples, two ways.  sample__decode() reads every field of a PERF_RECORD_SAMPLE in
 * the kernel's order, bounds-checked against the record: the reader (files from
 * anyone) and the unwinder use it.  struct sample_layout locates the fixed-size
 * fields for one sample_type once, so the record hot path (judging, prof top)
 * reads them in O(1): the leading u64s of a sample body and the sample_id_all
 * trailer of every other kernel record.
 */
#ifndef PROF_PERFDATA_SAMPLE_H
#define PROF_PERFDATA_SAMPLE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <linux/perf_event.h>

/* One sample, decoded.  Pointers point into the record; absent fields are 0/NULL. */
struct sample {
	uint16_t misc;                  /* the record's: cpu mode */
	uint64_t id;                    /* IDENTIFIER, or ID */
	uint64_t ip, time, addr, stream_id, period;
	uint32_t pid, tid, cpu;
	uint32_t cpu_res;               /* the u32 after CPU, which the kernel leaves 0: prof's
					 * offcpu-runq samples carry their CPU's holder there
					 * (offcpu.h), where perf ignores it */
	uint64_t nr_callchain;
	const uint64_t *callchain;
	uint32_t raw_size;
	const void *raw;
	struct sample_regs {
		uint64_t abi;           /* PERF_SAMPLE_REGS_ABI_*, 0: no registers (a kernel thread) */
		unsigned int nr;        /* registers, in the order of the mask's bits */
		const uint64_t *regs;
	} regs_user, regs_intr;
	struct sample_stack {
		uint64_t size;          /* bytes copied */
		uint64_t dyn_size;      /* of which valid (0 when size is 0) */
		const uint8_t *data;
	} stack_user;
	uint64_t weight, data_src, transaction, phys_addr, cgroup, data_page_size, code_page_size;
	uint16_t after_stack_user;      /* offset in the record of the fields after STACK_USER */
	uint16_t size;                  /* bytes of the record the fields took */
};

/*
 * Decode sample ev of the event attr (its sample_type, read_format, register masks
 * and branch_sample_type say what it holds).  0; -EINVAL when the record is shorter
 * than its fields; -E2BIG for a call chain of more than SAMPLE_MAX_CALLCHAIN
 * entries.  s is filled as far as the record went.
 */
#define SAMPLE_MAX_CALLCHAIN 0xffff
int sample__decode(struct sample *s, const struct perf_event_attr *attr, const struct perf_event_header *ev);

struct sample_layout {
	uint64_t sample_type;
	int s_tid, s_time, s_cpu, s_id;         /* u64 index in a sample body, -1 if absent */
	int t_tid, t_time, t_id, t_cpu;         /* u64 index back from a record's end */
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

/* The u64 at index idx (t_tid, t_cpu...) back from the end of a record's sample_id
 * trailer; 0 when the layout has no such field or the record is too short for it. */
static inline uint64_t sample_layout__trailer(const struct sample_layout *l, const struct perf_event_header *ev,
					      int idx)
{
	uint64_t v;

	if (idx < 0 || ev->size < sizeof(*ev) + l->trailer_size)
		return 0;
	memcpy(&v, (const char *)ev + ev->size - 8 * (unsigned)idx, 8);
	return v;
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

/* The fields of a sample the layout locates (id, time, tid, cpu, ip, period, call
 * chain, cgroup) into s, the others zero.  false when the record is too short for
 * them, or the layout has no TID. */
static inline bool sample_layout__sample(const struct sample_layout *l, const struct perf_event_header *ev,
					 struct sample *s)
{
	int32_t pid, tid;

	*s = (struct sample){ .misc = ev->misc };
	if (!sample_layout__tid(l, ev, &pid, &tid) ||
	    !sample_layout__ip_chain(l, ev, &s->ip, &s->period, &s->callchain, &s->nr_callchain))
		return false;
	s->pid = (uint32_t)pid;
	s->tid = (uint32_t)tid;
	s->time = sample_layout__time(l, ev);
	s->id = sample_layout__id(l, ev);
	s->cgroup = sample_layout__cgroup(l, ev);
	if (l->s_cpu >= 0) {
		/* the CPU, and the u32 after it (an offcpu-runq sample's holder) */
		uint32_t c[2];

		memcpy(c, sample__u64(ev, l->s_cpu), 8);
		s->cpu = c[0];
		s->cpu_res = c[1];
	}
	return true;
}

#endif
