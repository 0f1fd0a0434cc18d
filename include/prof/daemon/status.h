/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * profd's status, as "key value" lines (the body of an op=status answer): what it
 * samples, since when, how much history it holds and where, and what went wrong.
 * Everyone gets the sampling settings and the history's span; the host-wide counts
 * (samples per second, losses, clients, memory, disk, reloads) are for admins only.
 */
#ifndef PROF_DAEMON_STATUS_H
#define PROF_DAEMON_STATUS_H

#include <stdbool.h>
#include <stdint.h>

#include "prof/daemon/daemon.h"
#include "prof/daemon/snapshot.h"

struct status_facts {
	const struct daemon_settings *s;
	struct daemon_sampling sampling;
	struct history_stats history;
	uint64_t recent_samples, recent_ns;     /* over the last minute of fine buckets */
	struct store_stats store;
	struct server_stats server;
	const char *reload;             /* the last reload's result, "" */
	uint64_t now;                   /* realtime */
	uint64_t cpu_ns;                /* the daemon's user + system time */
	uint64_t rss;                   /* bytes */
	bool admin;
	uint32_t uid;
	/* the exports' lines (export_successes, export_failures for all; the rest for
	 * admins), NULL: none running */
	void (*exports)(void *ctx, struct snap_out *o, bool admin);
	void *exports_ctx;
};

/* The lines into o (no header). */
void status__write(struct snap_out *o, const struct status_facts *f);

#endif
