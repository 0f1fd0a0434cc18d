/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An answer of the history (view.h) as pprof for the fleet backends: what the pull
 * endpoint serves and the pusher posts.  Locations carry the frames' ELF virtual
 * addresses where the daemon knows them and mappings the objects' build ids
 * (output/pprof.h), so a backend can symbolize what prof did not name.
 *
 * Pull keeps every tenant in one profile and tells them apart by string labels on
 * the samples (user, uid, cgroup, unit, container, comm: Parca keeps string labels
 * only).  Push sends one profile per series (a tenant's cgroup) with no sample
 * labels at all: Pyroscope splits series by sample labels, and the tenant's labels
 * go in the series' name instead (export_push.h).
 */
#ifndef PROF_DAEMON_EXPORT_PPROF_H
#define PROF_DAEMON_EXPORT_PPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/daemon/view.h"

/* One series: a tenant's cgroup. */
struct export_series {
	bool uid_known;
	uint32_t uid;
	const char *cgroup;             /* the answer dictionary's text, "" when not known */
	const char *container;          /* "" on the host */
	uint64_t samples;
};

struct export_pprof_opts {
	const char *event;
	bool time_period;               /* the event counts time: values are cpu/nanoseconds */
	uint64_t period;                /* the mean period between samples */
	uint64_t from, until;           /* realtime ns: time_nanos and duration_nanos */
	bool labels;                    /* string labels on each sample (pull) */
	const struct export_series *series;     /* only its entries (push), NULL: all */
	const char *comment;            /* NULL: none */
};

/* The profile, gzipped, in *ret (malloc'd).  0 or -ENOMEM. */
int export_pprof__build(const struct view_answer *a, const struct export_pprof_opts *o, uint8_t **ret,
			size_t *ret_len);

/* The series of an answer, in the order their first entries come; *ret malloc'd
 * (its strings are the answer's).  0 or -ENOMEM. */
int export_pprof__series(const struct view_answer *a, struct export_series **ret, size_t *ret_nr);

/* The systemd unit of a cgroup path: its last "*.service" or "*.scope" component,
 * "" when none. */
void export_pprof__unit(const char *cgroup, char *buf, size_t len);

#endif
