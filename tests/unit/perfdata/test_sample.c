/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fixed-field layouts of samples and sample_id_all trailers, on hand-built records. */
#include <string.h>
#include <linux/perf_event.h>
#include <criterion/criterion.h>

#include "prof/perfdata/sample.h"

/* What prof records with: see synth's tests for the same set. */
#define PROF_SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
			  PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |     \
			  PERF_SAMPLE_CGROUP)

/* A record under construction: bytes are written with memcpy, so no type punning. */
struct rec {
	union {
		struct perf_event_header h;
		uint64_t align;
		unsigned char bytes[512];
	};
	size_t len;
};

static void rec__start(struct rec *r, uint32_t type)
{
	memset(r, 0, sizeof(*r));
	r->len = sizeof(struct perf_event_header);
	r->h.type = type;
}

static void rec__bytes(struct rec *r, const void *p, size_t n)
{
	cr_assert_leq(r->len + n, sizeof(r->bytes));
	memcpy(r->bytes + r->len, p, n);
	r->len += (n + 7) & ~(size_t)7;
}

static void rec__u64(struct rec *r, uint64_t v)
{
	rec__bytes(r, &v, 8);
}

static void rec__u32x2(struct rec *r, uint32_t a, uint32_t b)
{
	uint32_t v[2] = { a, b };

	rec__bytes(r, v, 8);
}

static const struct perf_event_header *rec__end(struct rec *r)
{
	r->h.size = (uint16_t)r->len;
	return &r->h;
}

Test(sample_layout, prof_sample_type)
{
	struct sample_layout l;

	sample_layout__init(&l, PROF_SAMPLE_TYPE);
	cr_assert_eq(l.sample_type, PROF_SAMPLE_TYPE);
	/* Body: IDENTIFIER IP TID TIME CPU PERIOD (then variable CGROUP...). */
	cr_assert_eq(l.s_id, 0);
	cr_assert_eq(l.s_tid, 2);
	cr_assert_eq(l.s_time, 3);
	cr_assert_eq(l.s_cpu, 4);
	cr_assert_eq(l.fixed_size, 8 + 6 * 8);
	/* Trailer: TID TIME CPU IDENTIFIER, indexed back from the end. */
	cr_assert_eq(l.trailer_size, 4 * 8);
	cr_assert_eq(l.t_tid, 4);
	cr_assert_eq(l.t_time, 3);
	cr_assert_eq(l.t_id, 1);
}

Test(sample_layout, empty)
{
	struct sample_layout l;

	sample_layout__init(&l, 0);
	cr_assert_eq(l.s_id, -1);
	cr_assert_eq(l.s_tid, -1);
	cr_assert_eq(l.s_time, -1);
	cr_assert_eq(l.s_cpu, -1);
	cr_assert_eq(l.t_tid, -1);
	cr_assert_eq(l.t_time, -1);
	cr_assert_eq(l.t_id, -1);
	cr_assert_eq(l.trailer_size, 0);
	cr_assert_eq(l.fixed_size, 8);
}

Test(sample_layout, every_fixed_field)
{
	struct sample_layout l;

	sample_layout__init(&l, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
				PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
				PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW);
	/* IP TID TIME ADDR ID STREAM_ID CPU PERIOD */
	cr_assert_eq(l.s_tid, 1);
	cr_assert_eq(l.s_time, 2);
	cr_assert_eq(l.s_id, 4, "without IDENTIFIER, the ID field is the id");
	cr_assert_eq(l.s_cpu, 6);
	cr_assert_eq(l.fixed_size, 8 + 8 * 8, "variable fields are not fixed");
	/* Trailer: TID TIME ID STREAM_ID CPU. */
	cr_assert_eq(l.trailer_size, 5 * 8);
	cr_assert_eq(l.t_tid, 5);
	cr_assert_eq(l.t_time, 4);
	cr_assert_eq(l.t_id, -1, "t_id is the IDENTIFIER slot only");
}

Test(sample_layout, identifier_wins_over_id)
{
	struct sample_layout l;

	sample_layout__init(&l, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_ID | PERF_SAMPLE_TIME);
	cr_assert_eq(l.s_id, 0);
	cr_assert_eq(l.s_time, 1);
	cr_assert_eq(l.fixed_size, 8 + 3 * 8);
	/* Trailer: TIME ID IDENTIFIER. */
	cr_assert_eq(l.trailer_size, 3 * 8);
	cr_assert_eq(l.t_time, 3);
	cr_assert_eq(l.t_id, 1);
	cr_assert_eq(l.t_tid, -1);
}

Test(sample_layout, time_only)
{
	struct sample_layout l;

	sample_layout__init(&l, PERF_SAMPLE_TIME);
	cr_assert_eq(l.s_time, 0);
	cr_assert_eq(l.s_tid, -1);
	cr_assert_eq(l.fixed_size, 16);
	cr_assert_eq(l.trailer_size, 8);
	cr_assert_eq(l.t_time, 1);
}

Test(sample_layout, non_fixed_fields_ignored)
{
	struct sample_layout l;

	/* None of these is one of the leading fixed fields or the trailer. */
	sample_layout__init(&l, PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | PERF_SAMPLE_READ |
				PERF_SAMPLE_CGROUP | PERF_SAMPLE_BRANCH_STACK);
	cr_assert_eq(l.fixed_size, 8);
	cr_assert_eq(l.trailer_size, 0);
	cr_assert_eq(l.s_tid, -1);
	cr_assert_eq(l.t_time, -1);
}

static const struct perf_event_header *build_sample(struct rec *r, uint64_t st)
{
	rec__start(r, PERF_RECORD_SAMPLE);
	if (st & PERF_SAMPLE_IDENTIFIER)
		rec__u64(r, 77);                        /* id */
	rec__u64(r, 0x401234);                          /* ip */
	rec__u32x2(r, 1234, 1240);                      /* pid, tid */
	rec__u64(r, 987654321000ull);                   /* time */
	rec__u32x2(r, 3, 0);                            /* cpu, res */
	rec__u64(r, 4000);                              /* period */
	if (st & PERF_SAMPLE_CGROUP)
		rec__u64(r, 0xc6);                      /* cgroup id */
	return rec__end(r);
}

Test(sample_record, sample_time_and_tid)
{
	struct sample_layout l;
	struct rec r;
	const struct perf_event_header *ev;
	int32_t pid = 0, tid = 0;

	sample_layout__init(&l, PROF_SAMPLE_TYPE);
	ev = build_sample(&r, PROF_SAMPLE_TYPE);
	cr_assert_eq(ev->size, 8 + 7 * 8);
	cr_assert_eq(sample_layout__time(&l, ev), 987654321000ull);
	cr_assert(sample_layout__tid(&l, ev, &pid, &tid));
	cr_assert_eq(pid, 1234);
	cr_assert_eq(tid, 1240);
	cr_assert_eq(*sample__u64(ev, l.s_id), 77);
	cr_assert_eq(*sample__u64(ev, l.s_cpu) & 0xffffffff, 3);
}

Test(sample_record, sample_without_identifier)
{
	uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
		      PERF_SAMPLE_PERIOD;
	struct sample_layout l;
	struct rec r;
	const struct perf_event_header *ev;
	int32_t pid = 0, tid = 0;

	sample_layout__init(&l, st);
	ev = build_sample(&r, st);
	cr_assert_eq(sample_layout__time(&l, ev), 987654321000ull);
	cr_assert(sample_layout__tid(&l, ev, &pid, &tid));
	cr_assert_eq(pid, 1234);
	cr_assert_eq(tid, 1240);
}

Test(sample_record, negative_pid)
{
	struct sample_layout l;
	struct rec r;
	const struct perf_event_header *ev;
	int32_t pid = 0, tid = 0;

	sample_layout__init(&l, PERF_SAMPLE_TID);
	rec__start(&r, PERF_RECORD_SAMPLE);
	rec__u32x2(&r, (uint32_t)-1, 0);
	ev = rec__end(&r);
	cr_assert(sample_layout__tid(&l, ev, &pid, &tid));
	cr_assert_eq(pid, -1);
	cr_assert_eq(tid, 0);
	cr_assert_eq(sample_layout__time(&l, ev), 0, "no TIME in sample_type");
}

Test(sample_record, sample_too_short)
{
	struct sample_layout l;
	struct rec r;
	struct perf_event_header *h;
	int32_t pid = 42, tid = 43;

	sample_layout__init(&l, PROF_SAMPLE_TYPE);
	build_sample(&r, PROF_SAMPLE_TYPE);
	h = &r.h;
	/* One u64 short of the fixed fields: nothing may be read. */
	h->size = (uint16_t)(l.fixed_size - 8);
	cr_assert_eq(sample_layout__time(&l, h), 0);
	cr_assert_not(sample_layout__tid(&l, h, &pid, &tid));
	cr_assert_eq(pid, 42, "pid written though false was returned");
	cr_assert_eq(tid, 43);
	h->size = 8;
	cr_assert_eq(sample_layout__time(&l, h), 0);
	cr_assert_not(sample_layout__tid(&l, h, &pid, &tid));
	/* Exactly the fixed fields is enough. */
	h->size = (uint16_t)l.fixed_size;
	cr_assert_eq(sample_layout__time(&l, h), 987654321000ull);
	cr_assert(sample_layout__tid(&l, h, &pid, &tid));
}

Test(sample_record, no_tid_in_sample_type)
{
	struct sample_layout l;
	struct rec r;
	const struct perf_event_header *ev;
	int32_t pid = 42, tid = 43;

	sample_layout__init(&l, PERF_SAMPLE_IP | PERF_SAMPLE_TIME);
	rec__start(&r, PERF_RECORD_SAMPLE);
	rec__u64(&r, 0x401234);
	rec__u64(&r, 555);
	ev = rec__end(&r);
	cr_assert_eq(sample_layout__time(&l, ev), 555);
	cr_assert_not(sample_layout__tid(&l, ev, &pid, &tid));
	cr_assert_eq(pid, 42);
	cr_assert_eq(tid, 43);
}

/* A COMM record with the sample_id_all trailer for PROF_SAMPLE_TYPE. */
static const struct perf_event_header *build_comm(struct rec *r, const char *comm, uint64_t time)
{
	rec__start(r, PERF_RECORD_COMM);
	rec__u32x2(r, 1234, 1240);                      /* pid, tid */
	rec__bytes(r, comm, strlen(comm) + 1);
	/* trailer: TID TIME CPU IDENTIFIER */
	rec__u32x2(r, 1234, 1240);
	rec__u64(r, time);
	rec__u32x2(r, 5, 0);
	rec__u64(r, 77);
	return rec__end(r);
}

Test(sample_record, comm_trailer_time)
{
	struct sample_layout l;
	struct rec r;
	const struct perf_event_header *ev;

	sample_layout__init(&l, PROF_SAMPLE_TYPE);
	ev = build_comm(&r, "bash", 111222333444ull);
	cr_assert_eq(ev->size, 8 + 8 + 8 + 32);
	cr_assert_eq(sample_layout__time(&l, ev), 111222333444ull);

	/* A longer comm moves the trailer; the time is still found from the end. */
	ev = build_comm(&r, "a-longer-comm", 5);
	cr_assert_eq(ev->size, 8 + 8 + 16 + 32);
	cr_assert_eq(sample_layout__time(&l, ev), 5);
}

Test(sample_record, trailer_time_other_layout)
{
	uint64_t st = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID;
	struct sample_layout l;
	struct rec r;
	const struct perf_event_header *ev;

	sample_layout__init(&l, st);
	rec__start(&r, PERF_RECORD_EXIT);
	rec__u32x2(&r, 10, 11);         /* pid, ppid */
	rec__u32x2(&r, 10, 11);         /* tid, ptid */
	rec__u64(&r, 999);              /* exit time, not the trailer's */
	/* trailer: TID TIME ID STREAM_ID */
	rec__u32x2(&r, 10, 10);
	rec__u64(&r, 123456);
	rec__u64(&r, 8);
	rec__u64(&r, 9);
	ev = rec__end(&r);
	cr_assert_eq(sample_layout__time(&l, ev), 123456);
}

Test(sample_record, non_sample_too_short)
{
	struct sample_layout l;
	struct rec r;
	struct perf_event_header *h;

	sample_layout__init(&l, PROF_SAMPLE_TYPE);
	build_comm(&r, "bash", 111222333444ull);
	h = &r.h;
	/* Shorter than a header plus the trailer: no time. */
	h->size = (uint16_t)(8 + l.trailer_size - 8);
	cr_assert_eq(sample_layout__time(&l, h), 0);
	h->size = 8;
	cr_assert_eq(sample_layout__time(&l, h), 0);
}

Test(sample_record, non_sample_without_time)
{
	struct sample_layout l;
	struct rec r;
	const struct perf_event_header *ev;

	sample_layout__init(&l, PERF_SAMPLE_IP | PERF_SAMPLE_TID);
	rec__start(&r, PERF_RECORD_COMM);
	rec__u32x2(&r, 1, 1);
	rec__bytes(&r, "init", 5);
	rec__u32x2(&r, 1, 1);           /* trailer: TID only */
	ev = rec__end(&r);
	cr_assert_eq(sample_layout__time(&l, ev), 0);
}

/* prof top reads a live sample's ip, period and call chain through the layout. */
Test(sample_layout, ip_period_chain)
{
	struct sample_layout l;
	struct rec r;
	const struct perf_event_header *ev;
	const uint64_t *chain;
	uint64_t ip, period, nr;

	sample_layout__init(&l, PROF_SAMPLE_TYPE | PERF_SAMPLE_CALLCHAIN);
	cr_assert_eq(l.s_ip, 1);
	cr_assert_eq(l.s_period, 5);
	cr_assert_eq(l.s_chain, 6);
	rec__start(&r, PERF_RECORD_SAMPLE);
	rec__u64(&r, 7);                /* IDENTIFIER */
	rec__u64(&r, 0x401000);         /* IP */
	rec__u32x2(&r, 10, 11);         /* TID */
	rec__u64(&r, 1000);             /* TIME */
	rec__u32x2(&r, 1, 0);           /* CPU */
	rec__u64(&r, 250000);           /* PERIOD */
	rec__u64(&r, 3);                /* CALLCHAIN: nr, then the ips */
	rec__u64(&r, (uint64_t)PERF_CONTEXT_USER);
	rec__u64(&r, 0x401000);
	rec__u64(&r, 0x402000);
	rec__u64(&r, 42);               /* CGROUP */
	ev = rec__end(&r);
	cr_assert(sample_layout__ip_chain(&l, ev, &ip, &period, &chain, &nr));
	cr_assert_eq(ip, 0x401000);
	cr_assert_eq(period, 250000);
	cr_assert_eq(nr, 3);
	cr_assert_eq(chain[2], 0x402000);
	cr_assert_eq(sample_layout__cgroup(&l, ev), 42);
	/* a chain longer than the record: refused, not read past the end */
	memcpy(r.bytes + 8 + 6 * 8, &(uint64_t){ 1000 }, 8);
	cr_assert_not(sample_layout__ip_chain(&l, ev, &ip, &period, &chain, &nr));
	/* READ before the chain: its position is not fixed, so no chain is located */
	sample_layout__init(&l, PROF_SAMPLE_TYPE | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_READ);
	cr_assert_eq(l.s_chain, -1);
}
