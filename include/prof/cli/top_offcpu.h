/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * prof top --off-cpu: per row (the --sort keys), the time on a CPU (the sampling
 * event's, a clock in ns), waiting for a CPU (offcpu-runq) and blocked
 * (offcpu-blocked), and who held the CPU while it waited (offcpu-runq's holders),
 * as shares of the refresh interval's wall time.  The samples are the record
 * pipeline's own (record/offcpu.c through the session), so the holders obey the
 * same tenant rule as a file: a tenant's top sees "other tenants", never a name.
 */
#ifndef PROF_CLI_TOP_OFFCPU_H
#define PROF_CLI_TOP_OFFCPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/analyze/attribution.h"
#include "prof/analyze/profile.h"

#define TOP_OFFCPU_HOLDERS 3            /* holders shown per row, the largest */

struct top_offcpu;

/* What a row's holders are told apart by (--holders, the 'h' key): the report's
 * holder, holder_cgroup and holder_container keys.  A tenant's holders are kinds
 * (self, other tenants, system, idle, [unknown]) by any of them. */
enum top_holders { TOP_HOLDERS_USER, TOP_HOLDERS_CGROUP, TOP_HOLDERS_CONTAINER, TOP_HOLDERS__MAX };

/* A holder of a row's wait: a profile_task's holder facts, those of the mode kept
 * (holder its kind by cgroup or container, offcpu__holder_kind), the others zero. */
struct top_holder {
	uint32_t holder;
	uint64_t cgroup;
	const char *container;          /* interned by the model */
};

/* One row: the --sort facts of an on-CPU, runq or blocked row, and the three. */
struct top_offcpu_row {
	struct profile_row key;         /* its facts (counts are not used) */
	uint64_t on_ns, runq_ns, blocked_ns;
	struct top_holder holder[TOP_OFFCPU_HOLDERS];   /* largest first */
	uint64_t holder_ns[TOP_OFFCPU_HOLDERS];
	size_t nr_holders;
	uint64_t other_holders_ns;      /* runq time behind the holders not shown */
	uint64_t open_runq_ns;          /* of runq_ns, still waiting: no holder known yet */
};

/* max_entries as profile__new's.  0 or -ENOMEM. */
int top_offcpu__new(size_t max_entries, struct top_offcpu **ret);
struct top_offcpu *top_offcpu__free(struct top_offcpu *o);

/*
 * Count s when it is an offcpu-runq or offcpu-blocked sample (into a's keys, a's
 * profile left as it was), only its part after since (the view's start, in the
 * samples' time; 0: all of it): 1 when it was one, 0 when it is not (count it as an
 * on-CPU sample), -ENOMEM.  (A wait split by holders is several samples at its end:
 * each is cut alone, so one crossing since may count a little more than its part.)
 */
int top_offcpu__add(struct top_offcpu *o, struct attribution *a, const struct sample *s, uint64_t since);

/* Forget every interval (prof top's zeroing). */
void top_offcpu__reset(struct top_offcpu *o);

/*
 * The intervals open now (a thread asleep for the whole view has no ended one):
 * forget those of the last look, then count each with its time so far as s's period
 * (s: its switch-out stack sample, as the view would show the interval's).  They
 * count in the rows' runq and blocked time, not in the holders' shares (not known
 * before the wait ends).  0 or -ENOMEM.
 */
void top_offcpu__forget_open(struct top_offcpu *o);
int top_offcpu__add_open(struct top_offcpu *o, struct attribution *a, const struct sample *s, bool runq);

/* Samples counted (runq and blocked) and those the cap cut. */
void top_offcpu__counts(const struct top_offcpu *o, uint64_t *ret_samples, uint64_t *ret_cut);

/*
 * The rows: on's rows (the on-CPU profile) and the off-CPU ones grouped by key_on
 * (the holder keys off), one row per distinct facts, its holders told apart by
 * `by`, sorted by on + runq + blocked, largest first.  *ret (malloc'd) holds *ret_nr.
 * 0 or -ENOMEM.
 */
int top_offcpu__rows(const struct top_offcpu *o, const struct profile *on, const bool key_on[PROFILE_KEY__MAX],
		     enum top_holders by, struct top_offcpu_row **ret, size_t *ret_nr);

#endif
