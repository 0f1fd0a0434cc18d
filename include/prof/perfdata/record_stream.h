/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The records of a perf.data's data section, in file order, each checked against
 * its type's sizes: the file's own, and those inside its compressed records
 * (PERF_RECORD_COMPRESSED, perf record -z: decompress.h), which are returned in
 * their place, checked the same way.  Read through a bounded window with pread
 * (file_window.h), so a file cut short while read is an error, never a SIGBUS.
 * The reader's iteration (perf_reader.h); it owns one.
 */
#ifndef PROF_PERFDATA_RECORD_STREAM_H
#define PROF_PERFDATA_RECORD_STREAM_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "prof/perfdata/reader_error.h"

struct record_stream_config {
	int fd;                         /* not owned */
	uint64_t file_size;             /* when opened: for the message of a file cut short */
	uint64_t start, end;            /* the data section */
	bool unfinished;                /* its size was never written: read to the last whole record */
	uint32_t comp_type;             /* HEADER_COMPRESSED's (PERF_COMP_ZSTD without it) */
	uint32_t comp_mmap_len;         /* ... the most one compressed record gives, 0: unknown */
};

struct record_stream;

/* 0 or -ENOMEM. */
int record_stream__new(const struct record_stream_config *c, struct record_stream **ret);
struct record_stream *record_stream__free(struct record_stream *s);

/*
 * The next record: 1 with *ret_ev (8-aligned, valid until the next call) and
 * *ret_offset (the file offset of the record, or of the compressed record it lies
 * in), 0 at the end, or -errno with err filled in: -EINVAL for a bad record,
 * -ENODATA for a file cut short since it was opened, -ENOMEM.
 */
int record_stream__next(struct record_stream *s, const struct perf_event_header **ret_ev,
			uint64_t *ret_offset, struct reader_error *err);

/* Records of unknown types returned so far. */
uint64_t record_stream__unknown(const struct record_stream *s);
/* Where the data read ends: in an unfinished file, once next returned 0, after its
 * last whole record. */
uint64_t record_stream__end(const struct record_stream *s);

#endif
