/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A perf.data reader that trusts nothing: every size and offset is checked against
 * the file before use, every record against its type's minimum, and a sample is
 * parsed field by field within its record.  A bad file gives an error naming the
 * offset and the record type, never a crash, a hang or unbounded memory.
 * Reads files written by prof and by perf record (file mode, little-endian), with
 * compressed records (perf record -z) or without, and those a killed recording
 * left (see perf_reader__finish_state).  The file is read with pread, never
 * mapped: one cut short while it is read is an error (-ENODATA), not a SIGBUS.
 */
#ifndef PROF_PERFDATA_PERF_READER_H
#define PROF_PERFDATA_PERF_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "prof/perfdata/perf_data.h"
#include "prof/perfdata/reader_error.h"
#include "prof/perfdata/sample.h"

#define READER_MAX_ATTRS 256
#define READER_MAX_STACK 512

struct reader_attr {
	struct perf_event_attr attr;    /* zero-extended to this build's size */
	char name[64];                  /* from EVENT_DESC, else "" */
	uint64_t nr_ids;
};

struct perf_reader;

/* Open and validate the header, attrs, ids and features.  0 or -errno (err says why). */
int perf_reader__open(const char *path, struct perf_reader **ret, struct reader_error *err);
struct perf_reader *perf_reader__free(struct perf_reader *r);

size_t perf_reader__nr_attrs(const struct perf_reader *r);
const struct reader_attr *perf_reader__attr(const struct perf_reader *r, size_t i);

/* A string feature (HEADER_HOSTNAME, OSRELEASE, ARCH, VERSION, CPUDESC), or NULL. */
const char *perf_reader__feature_string(const struct perf_reader *r, unsigned int feat);
/* The raw bytes of a feature section (read at open, at most 64 MiB), or NULL. */
const void *perf_reader__feature(const struct perf_reader *r, unsigned int feat, size_t *ret_len);

/*
 * prof's own section (prof_section.h): found by the trailer at the end of the file,
 * else (files of older prof) in feature bit HEADER_PROF_SCOPE_OLD.  NULL when the
 * file has none (perf's files, or one perf inject rewrote).
 */
const char *perf_reader__prof_section(const struct perf_reader *r, size_t *ret_len);

/*
 * The next record of the data section, in file order.  1 with *ret_ev and
 * *ret_offset set, 0 at the end, or -errno with err filled in: -EINVAL on a bad
 * record, -ENODATA when the file was cut short while being read, -ENOMEM.
 * Records of unknown types are returned too; the caller skips them.  *ret_ev is
 * 8-aligned and valid until the next call (it may be a copy).  The records inside
 * compressed ones are returned in their place (their offset is the compressed
 * record's), never the compressed records themselves.
 */
int perf_reader__next(struct perf_reader *r, const struct perf_event_header **ret_ev,
		      uint64_t *ret_offset, struct reader_error *err);

/*
 * Decode a PERF_RECORD_SAMPLE with the attr of the event it names (*ret_attr, when
 * not NULL).  Pointers in s point into ev.  0, or -EINVAL (err filled in).
 */
int perf_reader__parse_sample(struct perf_reader *r, const struct perf_event_header *ev,
			      uint64_t offset, struct sample *s, const struct reader_attr **ret_attr,
			      struct reader_error *err);

/* The time of any record (sample or sideband, via sample_id_all), 0 when none; a
 * sample's is read from its fixed fields, not checked beyond them. */
uint64_t perf_reader__time(struct perf_reader *r, const struct perf_event_header *ev);

/* One record of the HEADER_BUILD_ID feature (perf's struct build_id_event). */
struct reader_build_id {
	uint16_t misc;                  /* PERF_RECORD_MISC_KERNEL, _USER, guest modes... */
	int32_t pid;                    /* -1: the host */
	uint8_t data[20];
	uint8_t size;                   /* 20 in files without the size field */
	const char *filename;           /* NUL-terminated inside the record */
};

/*
 * Call fn for each record of the HEADER_BUILD_ID feature, in file order, until fn
 * returns non-zero (which is returned).  A malformed record ends the walk quietly:
 * features are descriptive.  0 when there is none.
 */
int perf_reader__for_each_build_id(const struct perf_reader *r,
				   int (*fn)(const struct reader_build_id *b, void *ctx), void *ctx);

/* Records of types this reader does not know, skipped so far. */
uint64_t perf_reader__unknown_records(const struct perf_reader *r);

/* How the recording left the file. */
enum reader_finish {
	READER_FINISHED,
	/* the header names the data but no features: a prof record killed (it keeps the
	 * data size up to date, round by round) or whose disk filled */
	READER_NO_FEATURES,
	/* the data size is 0 (perf record, or an older prof record, killed): the data is read
	 * up to its last whole record */
	READER_UNFINISHED,
};

/* Which, and *ret_end, where the data read ends: the end of its last whole record
 * once perf_reader__next has returned 0. */
enum reader_finish perf_reader__finish_state(const struct perf_reader *r, uint64_t *ret_end);

#endif
