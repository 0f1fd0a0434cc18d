/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>

#include "prof/perfdata/sample.h"

void sample_layout__init(struct sample_layout *l, uint64_t st)
{
	/* Fixed-size leading fields of a sample, in the kernel's order. */
	static const uint64_t lead[] = { PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP, PERF_SAMPLE_TID,
					 PERF_SAMPLE_TIME, PERF_SAMPLE_ADDR, PERF_SAMPLE_ID,
					 PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU, PERF_SAMPLE_PERIOD };
	/* The sample_id_all trailer, in order. */
	static const uint64_t trail[] = { PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ID,
					  PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU,
					  PERF_SAMPLE_IDENTIFIER };
	int n = 0, total = 0;

	*l = (struct sample_layout){ .sample_type = st, .s_tid = -1, .s_time = -1, .s_cpu = -1,
				     .s_id = -1, .t_tid = -1, .t_time = -1, .t_id = -1, .t_cpu = -1,
				     .s_cgroup_back = -1, .s_ip = -1, .s_period = -1, .s_chain = -1 };
	for (unsigned i = 0; i < sizeof(lead) / sizeof(lead[0]); i++) {
		if (!(st & lead[i]))
			continue;
		if (lead[i] == PERF_SAMPLE_TID)
			l->s_tid = n;
		else if (lead[i] == PERF_SAMPLE_TIME)
			l->s_time = n;
		else if (lead[i] == PERF_SAMPLE_CPU)
			l->s_cpu = n;
		else if (lead[i] == PERF_SAMPLE_IP)
			l->s_ip = n;
		else if (lead[i] == PERF_SAMPLE_PERIOD)
			l->s_period = n;
		else if (lead[i] == PERF_SAMPLE_IDENTIFIER || (lead[i] == PERF_SAMPLE_ID && l->s_id < 0))
			l->s_id = n;
		n++;
	}
	l->fixed_size = (unsigned)(sizeof(struct perf_event_header) + 8 * (unsigned)n);
	/* The call chain follows the fixed fields unless READ's variable part comes first. */
	if ((st & PERF_SAMPLE_CALLCHAIN) && !(st & PERF_SAMPLE_READ))
		l->s_chain = n;
	/* CGROUP is found from the end when no field the kernel puts after it is asked for. */
	l->s_cgroup_back = -1;
	if ((st & PERF_SAMPLE_CGROUP) &&
	    !(st & (PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE | PERF_SAMPLE_AUX)))
		l->s_cgroup_back = 1;

	for (unsigned i = 0; i < sizeof(trail) / sizeof(trail[0]); i++)
		if (st & trail[i])
			total++;
	l->trailer_size = 8 * (unsigned)total;
	n = total;
	for (unsigned i = 0; i < sizeof(trail) / sizeof(trail[0]); i++) {
		if (!(st & trail[i]))
			continue;
		if (trail[i] == PERF_SAMPLE_TID)
			l->t_tid = n;
		else if (trail[i] == PERF_SAMPLE_TIME)
			l->t_time = n;
		else if (trail[i] == PERF_SAMPLE_IDENTIFIER)
			l->t_id = n;
		else if (trail[i] == PERF_SAMPLE_CPU)
			l->t_cpu = n;
		n--;
	}
}

/* A walk over a record's fields that never reads past its end. */
struct cursor {
	const uint8_t *p, *end;
};

static bool take(struct cursor *c, void *out, size_t n)
{
	if ((size_t)(c->end - c->p) < n)
		return false;
	if (out)
		memcpy(out, c->p, n);
	c->p += n;
	return true;
}

static bool skip(struct cursor *c, uint64_t n)
{
	if (n > (uint64_t)(c->end - c->p))
		return false;
	c->p += n;
	return true;
}

static bool skip_u64s(struct cursor *c, uint64_t n)
{
	return n <= UINT64_MAX / 8 && skip(c, n * 8);
}

/* A u64 field, when st has it: true when the record is too short for it. */
#define SHORT_U64(c, st, bit, dst) (((st) & (bit)) && !take((c), (dst), 8))

/* The fields before the variable ones, in the kernel's order. */
static bool take_leading(struct cursor *c, uint64_t st, struct sample *s)
{
	uint32_t u[2];

	if (SHORT_U64(c, st, PERF_SAMPLE_IDENTIFIER, &s->id) || SHORT_U64(c, st, PERF_SAMPLE_IP, &s->ip))
		return false;
	if (st & PERF_SAMPLE_TID) {
		if (!take(c, u, 8))
			return false;
		s->pid = u[0];
		s->tid = u[1];
	}
	if (SHORT_U64(c, st, PERF_SAMPLE_TIME, &s->time) || SHORT_U64(c, st, PERF_SAMPLE_ADDR, &s->addr) ||
	    SHORT_U64(c, st, PERF_SAMPLE_ID, &s->id) || SHORT_U64(c, st, PERF_SAMPLE_STREAM_ID, &s->stream_id))
		return false;
	if (st & PERF_SAMPLE_CPU) {
		if (!take(c, u, 8))
			return false;
		s->cpu = u[0];
		s->cpu_res = u[1];
	}
	return !SHORT_U64(c, st, PERF_SAMPLE_PERIOD, &s->period);
}

/* PERF_SAMPLE_READ: the counts of read_format, skipped. */
static bool skip_read(struct cursor *c, uint64_t rf)
{
	uint64_t n = 1, per, times = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);

	if (rf & PERF_FORMAT_GROUP) {
		if (!take(c, &n, 8) || !skip_u64s(c, times))
			return false;
		per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
	} else {
		per = 1 + times + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
	}
	return n <= 65536 && skip_u64s(c, n * per);
}

static bool take_regs(struct cursor *c, uint64_t mask, struct sample_regs *r)
{
	if (!take(c, &r->abi, 8))
		return false;
	if (!r->abi)
		return true;
	r->nr = (unsigned int)__builtin_popcountll(mask);
	r->regs = (const uint64_t *)(const void *)c->p;
	return skip_u64s(c, r->nr);
}

static bool take_stack(struct cursor *c, struct sample_stack *st)
{
	if (!take(c, &st->size, 8))
		return false;
	if (!st->size)
		return true;    /* no copy, and no dyn_size */
	st->data = c->p;
	return skip(c, st->size) && take(c, &st->dyn_size, 8);
}

/* The variable fields from RAW to STACK_USER; -EINVAL short, -E2BIG for a long chain. */
static int take_variable(struct cursor *c, const struct perf_event_attr *a, struct sample *s)
{
	uint64_t st = a->sample_type, v;

	if ((st & PERF_SAMPLE_READ) && !skip_read(c, a->read_format))
		return -EINVAL;
	if (st & PERF_SAMPLE_CALLCHAIN) {
		if (!take(c, &s->nr_callchain, 8))
			return -EINVAL;
		if (s->nr_callchain > SAMPLE_MAX_CALLCHAIN)
			return -E2BIG;
		s->callchain = (const uint64_t *)(const void *)c->p;
		if (!skip_u64s(c, s->nr_callchain))
			return -EINVAL;
	}
	if (st & PERF_SAMPLE_RAW) {
		/* the size counts the padding that aligns u32 size + data to 8 bytes */
		if (!take(c, &s->raw_size, 4))
			return -EINVAL;
		s->raw = c->p;
		if (!skip(c, s->raw_size))
			return -EINVAL;
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		if (!take(c, &v, 8) || ((a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) && !skip_u64s(c, 1)) ||
		    v > 65536 || !skip_u64s(c, v * 3))
			return -EINVAL;
	}
	if ((st & PERF_SAMPLE_REGS_USER) && !take_regs(c, a->sample_regs_user, &s->regs_user))
		return -EINVAL;
	if ((st & PERF_SAMPLE_STACK_USER) && !take_stack(c, &s->stack_user))
		return -EINVAL;
	return 0;
}

int sample__decode(struct sample *s, const struct perf_event_attr *a, const struct perf_event_header *ev)
{
	struct cursor c = { (const uint8_t *)(ev + 1), (const uint8_t *)ev + ev->size };
	uint64_t st = a->sample_type, sz;
	int err;

	*s = (struct sample){ .misc = ev->misc };
	if (!take_leading(&c, st, s))
		return -EINVAL;
	err = take_variable(&c, a, s);
	if (err < 0)
		return err;
	s->after_stack_user = (uint16_t)(c.p - (const uint8_t *)ev);
	if (SHORT_U64(&c, st, PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT, &s->weight) ||
	    SHORT_U64(&c, st, PERF_SAMPLE_DATA_SRC, &s->data_src) ||
	    SHORT_U64(&c, st, PERF_SAMPLE_TRANSACTION, &s->transaction))
		return -EINVAL;
	if ((st & PERF_SAMPLE_REGS_INTR) && !take_regs(&c, a->sample_regs_intr, &s->regs_intr))
		return -EINVAL;
	if (SHORT_U64(&c, st, PERF_SAMPLE_PHYS_ADDR, &s->phys_addr) ||
	    SHORT_U64(&c, st, PERF_SAMPLE_CGROUP, &s->cgroup) ||
	    SHORT_U64(&c, st, PERF_SAMPLE_DATA_PAGE_SIZE, &s->data_page_size) ||
	    SHORT_U64(&c, st, PERF_SAMPLE_CODE_PAGE_SIZE, &s->code_page_size))
		return -EINVAL;
	if ((st & PERF_SAMPLE_AUX) && (!take(&c, &sz, 8) || !skip(&c, sz)))
		return -EINVAL;
	s->size = (uint16_t)(c.p - (const uint8_t *)ev);
	return 0;
}
