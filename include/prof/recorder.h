/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel side of a recording, over libperf: one sampling event and one sideband
 * (dummy) event on every online CPU, system-wide, their ring buffers, and the drain
 * of those buffers into the time-ordered queue.  File descriptors: 2 x CPUs.
 */
#ifndef PROF_RECORDER_H
#define PROF_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/ordered.h"
#include "prof/perf_data.h"
#include "prof/record_opts.h"
#include "prof/sample.h"

enum recorder_stage {
	RECORDER_STAGE_NONE,
	RECORDER_STAGE_SAMPLING,        /* opening the sampling event */
	RECORDER_STAGE_SIDEBAND,        /* opening the sideband event */
	RECORDER_STAGE_MMAP,            /* mapping ring buffers */
	RECORDER_STAGE_IDS,             /* reading sample ids */
};

struct recorder;

struct recorder_info {
	struct event_spec event;        /* the sampling event actually opened */
	bool fell_back;                 /* the requested hardware event was replaced by cpu-clock */
	uint64_t freq;                  /* frequency in use (0 with a period) */
	bool freq_lowered;              /* -F was above kernel.perf_event_max_sample_rate */
	int nr_cpus;
	size_t nr_fds;
	/* set*uid() tracepoints (for uid scopes): open, or why not */
	bool creds;
	int creds_err;
	int raw_uid_off, raw_ret_off;
};

/* The set*uid() tracepoint events and their sample ids, for the tracker. */
struct recorder_creds {
	int kind;               /* enum tracker_event_kind */
	const uint64_t *ids;
	size_t nr_ids;
};

/*
 * Open, map and leave disabled.  Returns 0 or -errno; on failure *ret_stage says
 * which step failed and *ret is untouched.
 */
int recorder__new(const struct record_opts *opts, struct recorder **ret, enum recorder_stage *ret_stage);
struct recorder *recorder__free(struct recorder *r);

const struct recorder_info *recorder__info(const struct recorder *r);
const struct sample_layout *recorder__layout(const struct recorder *r);
/* The two events (sampling first) with their ids, for the file's attrs. */
const struct perf_data_event *recorder__events(const struct recorder *r, size_t *ret_nr);

/* The creds events opened (0 when none). */
size_t recorder__creds(const struct recorder *r, const struct recorder_creds **ret);

int recorder__enable(struct recorder *r);
int recorder__disable(struct recorder *r);
/* Wait up to timeout_ms for data; >= 0, or -EINTR. */
int recorder__poll(struct recorder *r, int timeout_ms);
/*
 * Copy every record available in every ring buffer into q, showing each to peek()
 * first (NULL: none).  Returns records read or -errno.
 */
typedef int (*recorder_peek_fn)(const struct perf_event_header *ev, void *ctx);
int recorder__drain(struct recorder *r, struct ordered_queue *q, recorder_peek_fn peek, void *ctx);

#endif
