/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The daemon's history: buckets of what the host ran (bucket.h) over the dictionary
 * they name (dict.h), in two rings.  Fine buckets (one second each by default) are
 * what the sampler closes; they are kept a few minutes, for windows that do not
 * fall on coarse boundaries (prof top --daemon, a scrape of the last N seconds).
 * Every `bucket` seconds (realtime multiples) the fine buckets of that span are
 * added up into one coarse bucket, kept for `span`, and written to disk (store.h).
 *
 * Bounded: the buckets and the dictionary together stay within memory_max.  Past
 * it the oldest fine buckets beyond the last two coarse spans go, then the oldest
 * coarse buckets, and the time before which history is missing is kept
 * (evicted_before) so every answer that reaches back there says so.  Dictionary
 * items no bucket uses any more are dropped by copying the used ones into a fresh
 * dictionary, which renames ids (the generation counts these).
 *
 * Threads: one writer (the sampler) and any number of readers.  The writer holds
 * history__lock() while it interns and adds; readers hold history__rlock() while
 * they read buckets and the dictionary.  Writers are preferred, so a stream of
 * readers cannot hold the sampler back longer than one reader's answer.
 */
#ifndef PROF_DAEMON_HISTORY_H
#define PROF_DAEMON_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/daemon/bucket.h"
#include "prof/daemon/dict.h"

struct history_config {
	uint64_t fine_ns;               /* a fine bucket's span (1 s) */
	uint64_t bucket_ns;             /* a coarse bucket's span, a multiple of fine_ns */
	uint64_t span_ns;               /* coarse buckets kept this long */
	uint64_t fine_span_ns;          /* fine buckets kept this long */
	size_t memory_max;              /* buckets + dictionary, bytes */
	size_t bucket_max_stacks;       /* distinct entries per coarse bucket */
};

struct history_stats {
	size_t fine, coarse;            /* buckets held */
	uint64_t oldest_ns, newest_ns;  /* realtime span of the coarse and fine buckets */
	size_t bytes, dict_bytes;       /* all held, and the dictionary's part */
	size_t dict_items[DICT_KINDS];
	uint64_t evicted_buckets, evicted_samples;      /* for memory_max, coarse only */
	uint64_t evicted_before;        /* realtime: history before this may be missing */
	uint64_t expired_buckets;       /* older than span: gone as configured */
	uint64_t compactions;           /* the dictionary copied to drop unused items */
	struct bucket_counts total;     /* every sample added since the start */
};

struct history;

/* 0, -EINVAL for a bad configuration, -ENOMEM. */
int history__new(const struct history_config *c, struct history **ret);
struct history *history__free(struct history *h);

/* The writer's lock (the sampler, the store's reload, a new configuration). */
void history__lock(struct history *h);
void history__unlock(struct history *h);
/* The readers' lock. */
void history__rlock(struct history *h);
void history__runlock(struct history *h);

/* Take a new configuration (under the writer's lock): spans and caps apply at once.
 * fine_ns and bucket_ns must not change.  0 or -EINVAL. */
int history__configure(struct history *h, const struct history_config *c);
const struct history_config *history__config(const struct history *h);

/* The dictionary buckets name (under either lock; the writer may intern into it). */
struct dict *history__dict(struct history *h);
/* Bumped each time the dictionary is replaced (ids renamed): copies of ids made under
 * an older generation are void. */
uint64_t history__generation(const struct history *h);

/*
 * Add a closed fine bucket (under the writer's lock; h owns b from here, even on
 * error).  Buckets come in time order.  When b starts a new coarse span, the
 * previous one is added up into a coarse bucket first.  Then what is too old or
 * over memory_max goes.  1 when a coarse bucket was made, 0, or -ENOMEM.
 */
int history__add_fine(struct history *h, struct bucket *b);
/* Add up the fine buckets of the current coarse span now (the daemon stops): flags
 * are added (BUCKET_PARTIAL).  1 when a coarse bucket was made, 0, -ENOMEM. */
int history__close_coarse(struct history *h, uint32_t flags);
/* A coarse bucket from the history file (under the writer's lock; h owns b): kept
 * when within span, in time order before any live one.  0 or -ENOMEM. */
int history__add_coarse(struct history *h, struct bucket *b);

/* Buckets held, oldest first (under either lock). */
size_t history__nr(const struct history *h, bool fine);
struct bucket *history__at(const struct history *h, bool fine, size_t i);

void history__stats(const struct history *h, struct history_stats *ret);

#endif
