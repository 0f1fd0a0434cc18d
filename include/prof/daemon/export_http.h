/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * profd's pull endpoint: pprof over HTTP at the path Go services use,
 * GET /debug/pprof/profile?seconds=N, what Parca's scrape and Alloy's
 * pyroscope.scrape fetch.  Served by libmicrohttpd on threads of its own (a pool
 * of pull_max_builds, at a lower priority), answered from history at once: the
 * window is the N seconds before the newest closed one-second bucket (a scrape
 * does not wait N seconds, and scrapes every N seconds tile the timeline).  The
 * sampling thread never waits for it: answers take history's readers' lock, which
 * prefers the writer.
 *
 * Selectors narrow the answer to one tenant: uid=, user=, cgroup= (a subtree),
 * comm=, container=; one kind repeated ORs, kinds AND; any other parameter is 400,
 * so a typo never returns every tenant.  from=&until= (Unix seconds) ask a window
 * of history instead of seconds=.  With a token, requests without
 * "Authorization: Bearer TOKEN" get 401.  Errors are text/plain with X-Go-Pprof: 1,
 * which go tool pprof prints.
 *
 * Off by default; loopback by default when on (export_config.h).  The operator's
 * view: every tenant (a non-loopback listener needs a token).
 */
#ifndef PROF_DAEMON_EXPORT_HTTP_H
#define PROF_DAEMON_EXPORT_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/daemon/export_config.h"
#include "prof/daemon/history.h"
#include "prof/daemon/snapshot.h"

#define EXPORT_TOKEN_MAX 512

struct export_http_settings {
	struct export_config c;         /* its pull_* part */
	char token[EXPORT_TOKEN_MAX];   /* "" none */
	char event[64];
	bool time_period;
	uint64_t period;                /* the mean period, for pprof's period */
};

struct export_http_stats {
	uint16_t port;                  /* 0: not listening */
	uint64_t requests, ok, bad_request, unauthorized, not_found, failed;
	uint64_t bytes_out;
	char last_error[200];
};

struct export_http;

/* Read a token file: one line, a regular file not readable by group or others,
 * owned by root or profd's user.  0, or -errno with err set. */
int export_http__read_token(const char *path, char *buf, size_t len, char *err, size_t errlen);

/* Listen on s->c.pull_listen and serve history h.  0, or -errno with err set. */
int export_http__start(struct history *h, const struct export_http_settings *s, struct export_http **ret,
		       char *err, size_t errlen);
/* Stop serving (waits for answers being built).  NULL-safe. */
struct export_http *export_http__free(struct export_http *x);

/* The settings that change without a new listener (token, sampling facts).  A new
 * listen address needs export_http__free and __start. */
void export_http__configure(struct export_http *x, const struct export_http_settings *s);

void export_http__stats(struct export_http *x, struct export_http_stats *ret);
/* Add a's counts to *sum (the port and last error are a's when it has them). */
void export_http__add_stats(struct export_http_stats *sum, const struct export_http_stats *a);
/* Status lines (pull_*) of st into o, for admins; on: serving. */
void export_http__status(const struct export_http_stats *st, bool on, struct snap_out *o, bool admin);

#endif
