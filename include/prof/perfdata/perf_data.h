/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The perf.data (PERFILE2, file mode) on-disk format: constants shared by the writer
 * and the reader, and the writer itself.
 * See tools/perf/Documentation/perf.data-file-format.txt in the kernel tree.
 */
#ifndef PROF_PERFDATA_PERF_DATA_H
#define PROF_PERFDATA_PERF_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include <perf/event.h>

#define PERF_MAGIC2 0x32454c4946524550ULL /* "PERFILE2" little-endian */
#define PERF_HEADER_FEAT_BITS 256
#define PERF_NAME_ALIGN 64

/* Header feature bits (perf's enum HEADER_*). */
enum perf_header_feat {
	HEADER_TRACING_DATA = 1,
	HEADER_BUILD_ID,
	HEADER_HOSTNAME,
	HEADER_OSRELEASE,
	HEADER_VERSION,
	HEADER_ARCH,
	HEADER_NRCPUS,
	HEADER_CPUDESC,
	HEADER_CPUID,
	HEADER_TOTAL_MEM,
	HEADER_CMDLINE,
	HEADER_EVENT_DESC,
	HEADER_CPU_TOPOLOGY,
	HEADER_NUMA_TOPOLOGY,
	HEADER_BRANCH_STACK,
	HEADER_PMU_MAPPINGS,
	HEADER_GROUP_DESC,
	HEADER_AUXTRACE,
	HEADER_STAT,
	HEADER_CACHE,
	HEADER_SAMPLE_TIME,
	HEADER_MEM_TOPOLOGY,
	HEADER_CLOCKID,
	HEADER_DIR_FORMAT,
	HEADER_BPF_PROG_INFO,
	HEADER_BPF_BTF,
	HEADER_COMPRESSED,
	HEADER_CPU_PMU_CAPS,
	HEADER_CLOCK_DATA,
	HEADER_HYBRID_TOPOLOGY,
	HEADER_PMU_CAPS,
	HEADER_LAST_FEATURE,
	/*
	 * Where prof up to 0.x kept its own section.  perf report skips a bit it does
	 * not know, but perf inject copies every set bit and calls its (out of bounds)
	 * writer: prof no longer sets it, and reads it only in old files.
	 */
	HEADER_PROF_SCOPE_OLD = PERF_HEADER_FEAT_BITS - 1,
};

/*
 * prof's own section lives after the feature sections, where every perf tool
 * ignores it, and is found from the end of the file: the last 24 bytes are a
 * trailer of three little-endian u64, { offset, size, magic "PROFSEC1" }, that
 * name the section's place.  perf inject/archive rewrite files without it.
 */
#define PROF_TRAILER_MAGIC 0x31434553464f5250ULL /* "PROFSEC1" little-endian */
struct prof_trailer {
	uint64_t offset;
	uint64_t size;
	uint64_t magic;
};

/* Record structs and the user-space record types (PERF_RECORD_FINISHED_ROUND...)
 * come from libperf's perf/event.h. */

/*
 * perf record -z: HEADER_COMPRESSED is { u32 version, type, level, ratio, mmap_len }
 * (perf's enum perf_compress_type: 0 none, 1 zstd).  perf 6.15 added
 * PERF_RECORD_COMPRESSED2, which libperf 6.12 does not know: { header, u64
 * data_size, data }, its size padded to 8.
 */
#define PERF_COMP_ZSTD 1
#define PROF_RECORD_COMPRESSED2 83

struct perf_file_section {
	uint64_t offset;
	uint64_t size;
};

struct perf_file_header {
	uint64_t magic;
	uint64_t size;
	uint64_t attr_size;
	struct perf_file_section attrs;
	struct perf_file_section data;
	struct perf_file_section event_types;
	uint64_t adds_features[PERF_HEADER_FEAT_BITS / 64];
};

struct perf_file_attr {
	struct perf_event_attr attr;
	struct perf_file_section ids;
};

/* One event of the file: its attr, its name and the sample ids the kernel gave it. */
struct perf_data_event {
	struct perf_event_attr attr;
	const char *name;
	const uint64_t *ids;
	uint32_t nr_ids;
};

struct perf_writer;

/*
 * Start a perf.data file on fd (which must be empty and seekable; the writer does not
 * own it): a placeholder header, the events' ids and attrs.  The EVENT_DESC feature
 * is derived from evs.  Returns 0 or -errno; *ret is untouched on failure.
 */
int perf_writer__new(int fd, const struct perf_data_event *evs, size_t nr,
			  struct perf_writer **ret);

/* Append one record (its header.size bytes) to the data section.  0 or -errno. */
int perf_writer__write(struct perf_writer *w, const void *rec, size_t len);

/*
 * Copy a feature section's content to be written by finish().  0 or -errno;
 * -EINVAL for a bit perf does not know (>= HEADER_LAST_FEATURE): perf tools that
 * rewrite files (inject) would call a writer they do not have.
 */
int perf_writer__add_feature(struct perf_writer *w, unsigned int feat,
				  const void *data, size_t len);

/* Copy prof's own section, written by finish() after the features, with the
 * trailer that finds it (struct prof_trailer).  0 or -ENOMEM. */
int perf_writer__set_prof_section(struct perf_writer *w, const void *data, size_t len);

/*
 * Flush, write the features (and prof's section with its trailer) after the data
 * and rewrite the header with the final sizes.  If they cannot be written (disk
 * full) the header is still finalized without them so the data stays readable.
 * 0 or -errno.
 */
int perf_writer__finish(struct perf_writer *w);

/* Bytes of data written so far, and the file size after finish(). */
uint64_t perf_writer__data_size(const struct perf_writer *w);
uint64_t perf_writer__file_size(const struct perf_writer *w);

/* NULL-safe; frees memory only (does not finish). Returns NULL. */
struct perf_writer *perf_writer__free(struct perf_writer *w);

/*
 * Feature payload helpers: append to a growable buffer in perf's encodings.
 * feat_buf__string writes perf_header_string (u32 len padded to 64, NUL-padded).
 */
struct feat_buf {
	uint8_t *data;
	size_t len, cap;
	int err;        /* sticky -ENOMEM */
};
void feat_buf__put(struct feat_buf *b, const void *p, size_t n);
void feat_buf__u32(struct feat_buf *b, uint32_t v);
void feat_buf__u64(struct feat_buf *b, uint64_t v);
void feat_buf__string(struct feat_buf *b, const char *s);
void feat_buf__release(struct feat_buf *b);

#endif
