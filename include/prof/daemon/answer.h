/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An answer on profd's socket, as snapshot records (snapshot.h): a META record ("key
 * value" lines: what was asked, the event, the host, the history's resolution), every
 * item of the answer's own dictionary (view.h: only what the asker may see), one
 * BUCKET whose span is the window the buckets covered and whose entries are the
 * merged ones, and END.  Written by the daemon, read by prof's clients, which
 * rebuild the report's engine from it.
 */
#ifndef PROF_DAEMON_ANSWER_H
#define PROF_DAEMON_ANSWER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/daemon/snapshot.h"
#include "prof/daemon/view.h"

/* What the daemon says of an answer besides its entries. */
struct answer_meta {
	uint64_t asked_from, asked_until;       /* realtime ns */
	char event[64];
	uint64_t freq, period;                  /* one of them is 0 */
	uint32_t event_type;
	uint64_t event_config;
	bool callchain;
	bool off_cpu;                           /* the daemon keeps off-CPU time now */
	char host[256], osrelease[128];
	uint32_t uid;                           /* the asker's */
	bool admin;
	bool kernel;                            /* kernel frames by name */
	uint64_t bucket_ns, fine_ns;            /* history's resolutions */
	uint64_t history_from;                  /* its oldest bucket */
	uint64_t evicted_before;                /* > window start: history dropped for memory */
	uint64_t coarse, fine;                  /* buckets read */
};

/* An answer's body into o. */
void answer__put(struct snap_out *o, const struct answer_meta *m, const struct view_answer *a);

/* An answer read back. */
struct answer {
	struct answer_meta m;
	struct dict *dict;
	struct bucket_hdr window;               /* start, end, flags, counts */
	struct bucket_entry *e;                 /* by dict's ids */
	size_t nr;
};

/* Decode an answer body.  0, or -EBADMSG / -ENOMEM with a message in err; *ret is
 * released by answer__release in every case. */
int answer__read(const uint8_t *body, size_t len, struct answer *ret, char *err, size_t errlen);
void answer__release(struct answer *a);

#endif
