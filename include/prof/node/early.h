/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What V8's heap held for a sample, read when the sample is drained from the rings
 * and kept until it is judged (node/frames.h).
 *
 * A sample is judged (unwound, its JavaScript frames walked and proven) when the
 * ordered queue hands it out: tens of milliseconds after it was taken, seconds when
 * prof is behind.  A node process that exits meanwhile leaves nothing to read.  So
 * the same walk runs when the sample is drained, and every read of the process's
 * memory it makes is logged, by (tid, time): the judge's walk reads from that log
 * first (the words as they were closest to the sample instant), the process only for
 * what the log lacks.  The proof is the judge's, over the logged words: a log that
 * guessed wrong costs a late read, never a wrong name.
 *
 * At most NODE_EARLY_MAX logs are made (NODE_EARLY_BYTES each, recycled: no
 * allocation in steady state); past that the oldest kept one goes (its sample is
 * read when judged, as before).
 */
#ifndef PROF_NODE_EARLY_H
#define PROF_NODE_EARLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NODE_EARLY_BYTES 8192           /* one sample's reads and their headers */
#define NODE_EARLY_MAX 4096             /* logs made, at most (32 MiB) */

struct node_early;
struct node_early_log;

/* NULL on ENOMEM. */
struct node_early *node_early__new(void);
struct node_early *node_early__free(struct node_early *e);

/* An empty log for sample (tid, time) (the oldest kept one's, when NODE_EARLY_MAX
 * are made), NULL on ENOMEM. */
struct node_early_log *node_early__start(struct node_early *e, int32_t tid, uint64_t time);
/* The log kept for its sample (an empty one let go); a second log of the same
 * sample replaces the first. */
void node_early__keep(struct node_early *e, struct node_early_log *l);
/* The log of sample (tid, time), no longer kept (NULL when none): the caller lets it
 * go with node_early__release. */
struct node_early_log *node_early__take(struct node_early *e, int32_t tid, uint64_t time);
void node_early__release(struct node_early *e, struct node_early_log *l);
/* How many are kept. */
size_t node_early__kept(const struct node_early *e);

/* len bytes read at addr logged (dropped when the log is full). */
void node_early_log__add(struct node_early_log *l, uint64_t addr, const void *buf, size_t len);
/* [addr, addr + len) from the log, when one read covered it: true. */
bool node_early_log__read(const struct node_early_log *l, uint64_t addr, void *buf, size_t len);

#endif
