/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * profd's exports together, as its command starts, reloads and stops them: the pull
 * endpoint (export_http.h) and the push to Pyroscope (export_push.h), each on when
 * prof.conf's [daemon] says so, and their lines in the daemon's status.
 */
#ifndef PROF_DAEMON_EXPORTS_H
#define PROF_DAEMON_EXPORTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/daemon/export_config.h"
#include "prof/daemon/history.h"
#include "prof/daemon/snapshot.h"

/* What the sampling is, as the exported profiles state it. */
struct exports_sampling {
	const char *event;
	bool time_period;               /* the event counts time (cpu-clock, task-clock) */
	uint64_t freq, period;          /* one of them 0 */
};

struct exports;

/* Start what c turns on, serving history h.  0, or -errno with err set (nothing runs). */
int exports__start(struct history *h, const struct export_config *c, const struct exports_sampling *s,
		   struct exports **ret, char *err, size_t errlen);
/* A reloaded configuration: a new listener or push URL starts or stops them.  0, or
 * -errno with err set (what ran before keeps running). */
int exports__reconfigure(struct exports *x, const struct export_config *c, char *err, size_t errlen);
/* Stop both.  NULL-safe. */
struct exports *exports__free(struct exports *x);

/* The status lines (a daemon__set_exports_status callback). */
void exports__status(void *ctx, struct snap_out *o, bool admin);

#endif
