/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A live model (prof top's, the daemon's) must not grow with every task the host
 * ever ran: the reaper has it forget a thread (and a leader's maps) some time after
 * its EXIT, once the task's teardown samples are in (they follow the EXIT), unless
 * a FORK gave the tid to a new task since.  An exit-linger ring (linger.h) in record
 * order, and the last FORK of each tid.
 */
#ifndef PROF_ANALYZE_MODEL_REAPER_H
#define PROF_ANALYZE_MODEL_REAPER_H

#include <stdint.h>
#include <linux/perf_event.h>

#include "prof/analyze/model.h"
#include "prof/base/idmap.h"
#include "prof/base/linger.h"

struct model_reaper {
	struct linger exits;            /* key pid << 32 | tid, tag the seq at the exit */
	uint32_t seq;                   /* counts EXITs and FORKs */
	struct idmap *forked;           /* tid -> seq of its last FORK */
};

/* Forget exited tasks grace_ns after their EXIT.  0 or -ENOMEM. */
int model_reaper__init(struct model_reaper *r, uint64_t grace_ns);
void model_reaper__release(struct model_reaper *r);

/* A record the model is shown (FORK and EXIT are noted, others ignored).  0 or -ENOMEM. */
int model_reaper__note(struct model_reaper *r, const struct perf_event_header *ev);

/* Have m forget the tasks whose grace is over at now (record time, ns). */
void model_reaper__reap(struct model_reaper *r, struct model *m, uint64_t now);

#endif
