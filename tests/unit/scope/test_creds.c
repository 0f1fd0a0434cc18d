/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Decoding set*uid() tracepoint samples, and what a call did to a task gone from /proc. */
#include <string.h>
#include <linux/perf_event.h>
#include <criterion/criterion.h>

#include "prof/scope/creds.h"

/* The tracepoints' samples: the fixed fields of the sampling event (no cgroup), RAW. */
#define SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
		     PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW)
#define UID_OFF 16              /* common fields (8), __syscall_nr (4, padded to 8), then uid */

struct rec {
	union {
		struct perf_event_header h;
		uint64_t align;
		unsigned char b[256];
	};
};

/* A sample whose RAW data holds raw_len bytes with `uid` at UID_OFF; size claims `claimed`. */
static const struct perf_event_header *mk(struct rec *r, const struct sample_layout *l, uint32_t raw_len,
					  uint32_t claimed, uint64_t uid, uint16_t total)
{
	memset(r, 0, sizeof(*r));
	r->h.type = PERF_RECORD_SAMPLE;
	memcpy(r->b + l->fixed_size, &claimed, 4);
	if (UID_OFF + 8 <= raw_len)
		memcpy(r->b + l->fixed_size + 4 + UID_OFF, &uid, 8);
	r->h.size = total ? total : (uint16_t)(l->fixed_size + 4 + raw_len);
	return &r->h;
}

Test(creds, argument_of_a_well_formed_sample)
{
	struct sample_layout l;
	struct rec r;
	uint32_t uid = 0;

	sample_layout__init(&l, SAMPLE_TYPE);
	cr_assert(creds__argument(&l, UID_OFF, mk(&r, &l, 28, 28, 1001, 0), &uid));
	cr_assert_eq(uid, 1001);
	/* a 64-bit argument is cut to the uid_t the syscall takes */
	cr_assert(creds__argument(&l, UID_OFF, mk(&r, &l, 28, 28, 0xffffffffffffffffull, 0), &uid));
	cr_assert_eq(uid, CREDS_UNCHANGED);
}

Test(creds, short_samples_are_refused)
{
	struct sample_layout l;
	struct rec r;
	uint32_t uid = 7;

	sample_layout__init(&l, SAMPLE_TYPE);
	/* the raw data ends before the argument */
	cr_assert_not(creds__argument(&l, UID_OFF, mk(&r, &l, 20, 20, 1001, 0), &uid));
	/* the raw size claims more than the record holds */
	cr_assert_not(creds__argument(&l, UID_OFF, mk(&r, &l, 28, 200, 1001, 0), &uid));
	/* the record ends inside the fixed fields */
	cr_assert_not(creds__argument(&l, UID_OFF, mk(&r, &l, 28, 28, 1001, (uint16_t)l.fixed_size), &uid));
	/* the format gave no offset */
	cr_assert_not(creds__argument(&l, -1, mk(&r, &l, 28, 28, 1001, 0), &uid));
	cr_assert_eq(uid, 7, "untouched on refusal");
}

Test(creds, outcome_of_setre_and_setresuid)
{
	uint32_t uid = 5;

	cr_assert_eq(creds__outcome(CREDS_SETREUID, 1001, true, 0, &uid), CREDS_UID_SET);
	cr_assert_eq(uid, 1001);
	cr_assert_eq(creds__outcome(CREDS_SETRESUID, 0, true, 1001, &uid), CREDS_UID_SET);
	cr_assert_eq(uid, 0);
	/* -1: the real uid stays, known or not */
	uid = 5;
	cr_assert_eq(creds__outcome(CREDS_SETRESUID, CREDS_UNCHANGED, true, 1001, &uid), CREDS_UID_KEPT);
	cr_assert_eq(creds__outcome(CREDS_SETREUID, CREDS_UNCHANGED, false, 0, &uid), CREDS_UID_KEPT);
	cr_assert_eq(uid, 5);
}

Test(creds, outcome_of_setuid)
{
	uint32_t uid = 5;

	/* by root: every uid becomes the argument */
	cr_assert_eq(creds__outcome(CREDS_SETUID, 1001, true, 0, &uid), CREDS_UID_SET);
	cr_assert_eq(uid, 1001);
	/* by another uid: the real uid changes only with CAP_SETUID */
	uid = 5;
	cr_assert_eq(creds__outcome(CREDS_SETUID, 1001, true, 1002, &uid), CREDS_UID_UNKNOWN);
	/* by a task whose uid was never known: it could have been root */
	cr_assert_eq(creds__outcome(CREDS_SETUID, 1001, false, 0, &uid), CREDS_UID_UNKNOWN);
	cr_assert_eq(uid, 5);
}
