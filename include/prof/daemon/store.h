/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * History on disk, so it survives a restart: coarse buckets appended to segment
 * files in the daemon's state directory (<state_dir>/history/NNNNNNNNNNNNNNNN.seg),
 * each segment self-contained (snapshot.h: a SEG record, then the items each bucket
 * names before the bucket), fdatasync'ed after each bucket, so a crash loses at
 * most the bucket being written.  A new segment starts every segment_bytes or
 * segment_ns, and whenever history's dictionary was compacted (ids renamed).
 * Segments whose newest bucket is older than history's span are removed, and the
 * oldest go while the directory holds more than disk_max (counted).
 *
 * At start, the segments are read back oldest first: a segment not owned by the
 * daemon or writable by others is refused, a torn or corrupt tail ends that
 * segment's reading (counted, the file is left for the operator), buckets older
 * than the span are skipped.  A write that fails (ENOSPC, EIO) is cut off the file,
 * counted with its errno, and retried with the next bucket in a new segment.
 */
#ifndef PROF_DAEMON_STORE_H
#define PROF_DAEMON_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/daemon/history.h"

struct store_config {
	const char *dir;                /* the history directory (made 0700 when missing) */
	uint64_t disk_max;              /* bytes of segments kept */
	uint64_t segment_bytes;         /* a segment is closed past this size */
	uint64_t segment_ns;            /* ... or this age */
	bool fsync;                     /* fdatasync each bucket (else: the kernel's pace) */
	const char *host;               /* for the SEG record: who wrote it */
};

struct store_stats {
	size_t segments;
	uint64_t bytes;                 /* of the segments on disk */
	uint64_t written;               /* buckets written */
	uint64_t write_errors;
	int last_errno;                 /* of the last failed write, 0 */
	uint64_t last_error_ns;         /* realtime */
	uint64_t loaded, skipped_old;   /* buckets read back at start, too old to keep */
	uint64_t corrupt;               /* segments whose reading stopped at a bad record */
	uint64_t refused;               /* segments not the daemon's, or of another bucket size */
	uint64_t removed, disk_evicted; /* segments removed: past the span, past disk_max */
	char last_corrupt[256];         /* "FILE: offset N: what" of the last one */
};

struct store;

/* Open (make) the directory and list its segments.  0, or -errno with err set. */
int store__open(const struct store_config *c, struct store **ret, char *err, size_t errlen);
struct store *store__free(struct store *s);

/* Read the segments back into h (which must have no buckets yet), keeping what is
 * younger than h's span at now (realtime).  0 or -ENOMEM; bad files are counted. */
int store__load(struct store *s, struct history *h, uint64_t now);

/* Write h's coarse buckets not written yet (takes h's readers' lock while it copies),
 * then remove what is too old or too much (now: realtime).  Buckets written, or
 * -errno of a failed write (counted; they are retried next time). */
int store__write(struct store *s, struct history *h, uint64_t now);

/* A new configuration's disk_max and fsync. */
void store__configure(struct store *s, uint64_t disk_max, bool fsync);

void store__stats(const struct store *s, struct store_stats *ret);

#endif
