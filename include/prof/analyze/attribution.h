/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a sample counts under in the engine (profile.h): its task's facts (pid,
 * uid, cgroup, its container, comm) and its stack resolved to frames.  The one way from a sample
 * to an entry, for prof report (samples of a file) and prof top (live ones).
 */
#ifndef PROF_ANALYZE_ATTRIBUTION_H
#define PROF_ANALYZE_ATTRIBUTION_H

#include <stdbool.h>
#include <stdint.h>

#include "prof/analyze/profile.h"
#include "prof/analyze/resolver.h"
#include "prof/perfdata/sample.h"

struct offcpu_holder_info;

/* Frames of one sample: its ip and a call chain of up to 512 entries (the reader's
 * limit), each expanded to its inline chain, cut by the engine at 512. */
#define ATTRIBUTION_MAX_FRAMES 513

/* A task's facts, remembered while the model's tasks stay as they were. */
#define ATTRIBUTION_TASK_SLOTS 256
struct attribution_task_slot {
	uint64_t gen;                   /* model__generation(tasks) + 1; 0: empty */
	uint32_t tid;
	struct profile_task t;
};

struct attribution {
	struct resolver *res;           /* borrowed: the model, and the strings comms are interned in */
	struct profile *prof;           /* borrowed */
	bool callchain;                 /* stacks of the call chain, else of the sampled ip */
	/* the facts entries are keyed by (attribution__keep_only): the others are
	 * zeroed, so samples that differ only in them count under one entry */
	bool keep[PROFILE_KEY__MAX];
	/* the uid tid runs as: NULL asks the model (prof's section of a file) */
	bool (*uid_of)(void *ctx, int32_t tid, uint32_t *ret);
	void *uid_ctx;
	/* an offcpu-runq sample's holder of the recording's holder table (OFFCPU_HOLDER_TASK
	 * + n, offcpu.h): its uid and cgroup; false or NULL: the holder as it is */
	bool (*holder_of)(void *ctx, uint32_t holder, struct offcpu_holder_info *ret);
	void *holder_ctx;
	/* false leaves the sample out (prof report's filters); NULL admits all */
	bool (*admit)(void *ctx, const struct profile_task *t);
	void *admit_ctx;
	struct profile_frame frames[ATTRIBUTION_MAX_FRAMES];
	struct attribution_task_slot tasks[ATTRIBUTION_TASK_SLOTS];    /* private */
	struct attribution_memo *memo;  /* owned: attribution__memo_init(); NULL: none */
	/* the entry (profile__add_ref's ref) the last sample attribution__add counted went
	 * to, UINT64_MAX when it was cut: prof ui's index of samples by time */
	uint64_t last_ref;
};

/*
 * A memo of the samples counted lately, by their task facts, address and call chain
 * as recorded: a sample like one of them (the model's maps unchanged) is counted into
 * the same entry without resolving its frames again.  Its caller frees it with
 * attribution__memo_release.  0 or -ENOMEM.
 */
int attribution__memo_init(struct attribution *a);
void attribution__memo_release(struct attribution *a);

/*
 * Keep apart only the task facts of keys[0..nr) (PROFILE_KEY_DSO and _SYM are the
 * stack's, always kept): what the output shows, as its --sort keys or its format
 * needs (folded__keys, pprof__keys).  The others are zeroed before counting, so
 * samples that differ only in them count under one entry, and a host that forks a
 * lot does not make one entry per pid.  The one way report and top choose them.
 */
void attribution__keep_only(struct attribution *a, const enum profile_key *keys, size_t nr);

/* Count s (its period, 1 when it has none): 1 when counted, 0 when not admitted,
 * -ENOMEM. */
int attribution__add(struct attribution *a, const struct sample *s);

#endif
