/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * profd's push: every coarse bucket of history, one profile per series (a tenant's
 * cgroup), POSTed to Pyroscope's ingest API with libcurl:
 *
 *   POST {push_url}/ingest?name={app}{user=..,uid=..,cgroup=..,unit=..,container=..}
 *        &from={bucket start, s}&until={bucket end, s}&format=pprof&sampleRate={Hz}&spyName=prof
 *   Content-Type: application/octet-stream, X-Scope-OrgID: {push_tenant of the uid}
 *   body: the gzipped pprof, no sample labels (they would split the series)
 *
 * Label values lose ',' and '}' (Pyroscope's name parser has no quoting), which is
 * counted.  Tenants: the first push_tenant that matches the series' user (name,
 * then @group, then #uid, then *) gives its org id; with push_tenant lines, a
 * series none matches is not pushed (counted), and samples of an unknown uid never
 * are.  Without any, no X-Scope-OrgID is sent (a single-tenant server).
 *
 * One thread of its own, at a lower priority, one request at a time, each bounded
 * by push_timeout: the sampling never waits for it.  Buckets wait in a queue of at
 * most push_queue (the oldest goes first when full, counted); network errors,
 * timeouts, 408, 429 and 5xx are retried with exponential backoff (1 s doubling to
 * push_backoff_max, jittered; Retry-After is honoured up to 300 s); 422 twice; other
 * answers are rejections, counted by status, and the next series goes.  Every
 * failure is counted and the last one is shown in the daemon's status.
 */
#ifndef PROF_DAEMON_EXPORT_PUSH_H
#define PROF_DAEMON_EXPORT_PUSH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/daemon/export_config.h"
#include "prof/daemon/history.h"
#include "prof/daemon/snapshot.h"

struct export_push_settings {
	struct export_config c;         /* its push_* part */
	char event[64];
	bool time_period;
	uint64_t period, freq;          /* the mean period; the rate, for sampleRate */
};

struct export_push_stats {
	uint64_t pushed, bytes;         /* profiles accepted (2xx) and their bytes */
	uint64_t failures;              /* attempts that failed (network, timeout, 408, 429, 5xx, 422) */
	uint64_t retries;
	uint64_t rejected;              /* profiles the server refused for good */
	uint64_t rejected_by_status[6]; /* 400, 401, 403, 404, 413, 422 */
	uint64_t dropped;               /* buckets not pushed: the full queue let them go, or
					 * history evicted them first */
	uint64_t dropped_samples;
	uint64_t skipped;               /* series no push_tenant maps, or of an unknown uid */
	uint64_t sanitized;             /* label values that lost ',' or '}' */
	uint64_t buckets_done;
	size_t queue, queue_max, queue_cap;
	uint64_t last_ok_ns;            /* realtime */
	uint64_t last_error_ns;
	char last_error[300];
};

struct export_push;

/* Start pushing buckets h closes from now on.  0, or -errno with err set. */
int export_push__start(struct history *h, const struct export_push_settings *s, struct export_push **ret,
		       char *err, size_t errlen);
/* Stop (the request in flight ends within push_timeout).  NULL-safe. */
struct export_push *export_push__free(struct export_push *p);

/* New settings, from the next attempt on (push_url, tenants, timeouts, queue). */
void export_push__configure(struct export_push *p, const struct export_push_settings *s);

void export_push__stats(struct export_push *p, struct export_push_stats *ret);
/* Status lines (push_*) into o; NULL p: off. */
void export_push__status(struct export_push *p, struct snap_out *o, bool admin);

#endif
