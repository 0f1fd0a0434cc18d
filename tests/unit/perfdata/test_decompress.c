/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf record -z files through the reader: records compressed with libzstd the way
 * perf record writes them (one stream, flushed chunk by chunk, so records straddle
 * compressed records), read back one by one; and what must be refused: a record
 * or a stream that expands past its bounds (a decompression bomb), data that is
 * not zstd, another compression type, bad records inside, a stream cut mid-record.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>
#include <criterion/criterion.h>
#include <perf/event.h>

#include "prof/perfdata/decompress.h"
#include "prof/perfdata/perf_data.h"
#include "prof/perfdata/perf_reader.h"

#define TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME)
#define MAX_PAYLOAD 65000

struct file {
	char path[64];
	int fd;
	struct perf_writer *w;
	ZSTD_CStream *cs;
	uint8_t out[1 << 17];
	uint32_t type;                  /* PERF_RECORD_COMPRESSED or COMPRESSED2 */
};

/* A file of one cpu-clock event; mmap_len > 0 adds HEADER_COMPRESSED with comp_type. */
static void file_start(struct file *f, uint32_t comp_type, uint32_t mmap_len)
{
	static const uint64_t ids[1] = { 7 };
	struct perf_data_event ev = {
		.attr = { .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK, .sample_period = 1000,
			  .sample_type = TYPE, .sample_id_all = 1 },
		.name = "cpu-clock", .ids = ids, .nr_ids = 1 };

	strcpy(f->path, "/tmp/prof-test-XXXXXX");
	f->fd = mkstemp(f->path);
	cr_assert_geq(f->fd, 0);
	cr_assert_eq(perf_writer__new(f->fd, &ev, 1, &f->w), 0);
	if (mmap_len) {
		uint32_t feat[5] = { 0, comp_type, 1, 10, mmap_len };
		cr_assert_eq(perf_writer__add_feature(f->w, HEADER_COMPRESSED, feat, sizeof(feat)), 0);
	}
	f->cs = ZSTD_createCStream();
	cr_assert_not_null(f->cs);
	cr_assert(!ZSTD_isError(ZSTD_initCStream(f->cs, 3)));
	f->type = PERF_RECORD_COMPRESSED;
}

/* One compressed record of these payload bytes, as perf writes it. */
static void put_compressed(struct file *f, const void *payload, size_t len)
{
	static uint8_t rec[65536];
	size_t hdr = f->type == PERF_RECORD_COMPRESSED ? 8 : 16, size = hdr + len;
	uint64_t dlen = len;

	cr_assert_leq(len, MAX_PAYLOAD);
	if (f->type == PROF_RECORD_COMPRESSED2)
		size = (size + 7) & ~(size_t)7;
	memset(rec, 0, size);
	memcpy(rec, &(struct perf_event_header){ .type = f->type, .size = (uint16_t)size }, 8);
	if (f->type == PROF_RECORD_COMPRESSED2)
		memcpy(rec + 8, &dlen, 8);
	memcpy(rec + hdr, payload, len);
	cr_assert_eq(perf_writer__write(f->w, rec, size), 0);
}

/* Compress these bytes of records into the stream, flushed: one or more compressed records. */
static void compress(struct file *f, const void *src, size_t len)
{
	ZSTD_inBuffer in = { src, len, 0 };
	size_t left;

	do {
		ZSTD_outBuffer out = { f->out, MAX_PAYLOAD, 0 };

		if (in.pos < in.size)
			cr_assert(!ZSTD_isError(ZSTD_compressStream(f->cs, &out, &in)));
		left = ZSTD_flushStream(f->cs, &out);
		cr_assert(!ZSTD_isError(left));
		if (out.pos)
			put_compressed(f, f->out, out.pos);
	} while (in.pos < in.size || left);
}

/* Finish the file and open it with the reader (the path unlinked). */
static struct perf_reader *file_open(struct file *f)
{
	struct perf_reader *r = NULL;
	struct reader_error err;

	cr_assert_eq(perf_writer__finish(f->w), 0);
	perf_writer__free(f->w);
	ZSTD_freeCStream(f->cs);
	close(f->fd);
	cr_assert_eq(perf_reader__open(f->path, &r, &err), 0, "%s", err.msg);
	unlink(f->path);
	return r;
}

/* Sample i: 32 bytes, IP TID TIME. */
static void sample(uint8_t *p, uint64_t i)
{
	uint64_t v[4] = { 0, 0x400000 + i * 16, (uint64_t)42 << 32 | 42, 1000 + i };

	memcpy(v, &(struct perf_event_header){ .type = PERF_RECORD_SAMPLE, .misc = PERF_RECORD_MISC_USER,
					       .size = 32 }, 8);
	memcpy(p, v, sizeof(v));
}

/* Samples first.. first+n, compressed chunk bytes at a time (a chunk not a multiple of
 * 32 cuts records). */
static size_t compressed_samples(struct file *f, size_t first, size_t n, size_t chunk)
{
	uint8_t *buf = malloc(n * 32);

	for (size_t i = 0; i < n; i++)
		sample(buf + 32 * i, first + i);
	for (size_t off = 0; off < n * 32; off += chunk)
		compress(f, buf + off, n * 32 - off < chunk ? n * 32 - off : chunk);
	free(buf);
	return n;
}

/* Read every record: the samples in order (their times), the rounds between; the error if any. */
static int read_samples(struct perf_reader *r, size_t *ret_n, struct reader_error *err)
{
	const struct perf_event_header *ev;
	uint64_t off;
	size_t n = 0;
	int k;

	while ((k = perf_reader__next(r, &ev, &off, err)) > 0) {
		struct sample s;

		cr_assert_neq(ev->type, PERF_RECORD_COMPRESSED, "compressed records are not returned");
		if (ev->type == PERF_RECORD_FINISHED_ROUND)
			continue;
		cr_assert_eq(ev->type, PERF_RECORD_SAMPLE);
		cr_assert_eq((uintptr_t)ev % 8, 0, "aligned");
		cr_assert_eq(perf_reader__parse_sample(r, ev, off, &s, NULL, err), 0, "%s", err->msg);
		cr_assert_eq(s.time, 1000 + n, "sample %zu in its place", n);
		cr_assert_eq(s.ip, 0x400000 + n * 16);
		n++;
	}
	*ret_n = n;
	return k;
}

static void reads_back(uint32_t type, size_t chunk)
{
	struct file f;
	struct perf_reader *r;
	struct reader_error err;
	struct perf_event_header round = { .type = PERF_RECORD_FINISHED_ROUND, .size = 8 };
	size_t n;

	file_start(&f, PERF_COMP_ZSTD, 528384);
	f.type = type;
	compressed_samples(&f, 0, 3000, chunk);
	cr_assert_eq(perf_writer__write(f.w, &round, 8), 0);
	compressed_samples(&f, 3000, 1, 32);    /* after a round: the stream goes on */
	r = file_open(&f);
	cr_assert_eq(read_samples(r, &n, &err), 0, "%s", err.msg);
	cr_assert_eq(n, 3000 + 1, "every sample, once");
	cr_assert_eq(perf_reader__unknown_records(r), 0);
	perf_reader__free(r);
}

Test(decompress, records_straddling_compressed_records_read_back)
{
	reads_back(PERF_RECORD_COMPRESSED, 100);        /* every chunk ends inside a sample */
	reads_back(PERF_RECORD_COMPRESSED, 50000);      /* payloads near the 64 KiB a record holds */
}

Test(decompress, compressed2_of_newer_perf)
{
	reads_back(PROF_RECORD_COMPRESSED2, 100);
}

/*
 * n records of type 200 (prof's user range: skipped as unknown), each 65528 zero
 * bytes, in one flush: what zstd makes of them is tiny, a bomb.
 */
static void compressed_zeros(struct file *f, size_t n)
{
	static uint8_t rec[65528];
	ZSTD_outBuffer out = { f->out, MAX_PAYLOAD, 0 };
	size_t left;

	memcpy(rec, &(struct perf_event_header){ .type = 200, .size = sizeof(rec) }, 8);
	for (size_t i = 0; i < n; i++) {
		ZSTD_inBuffer in = { rec, sizeof(rec), 0 };

		while (in.pos < in.size) {
			cr_assert(!ZSTD_isError(ZSTD_compressStream(f->cs, &out, &in)));
			if (out.pos > MAX_PAYLOAD / 2) {
				put_compressed(f, f->out, out.pos);
				out.pos = 0;
			}
		}
	}
	do {
		left = ZSTD_flushStream(f->cs, &out);
		cr_assert(!ZSTD_isError(left));
		put_compressed(f, f->out, out.pos);
		out.pos = 0;
	} while (left);
}

/* The first error reading r (which must end in one): its offset and message. */
static struct reader_error read_to_error(struct perf_reader *r)
{
	struct reader_error err = { 0 };
	const struct perf_event_header *ev;
	uint64_t off;
	int k;

	while ((k = perf_reader__next(r, &ev, &off, &err)) > 0)
		;
	cr_assert_lt(k, 0, "the file is refused");
	return err;
}

Test(decompress, a_record_past_the_ring_buffer_size_is_refused)
{
	struct file f;
	struct perf_reader *r;
	struct reader_error err;

	file_start(&f, PERF_COMP_ZSTD, 65536);
	/* 1 MiB of records in one compressed record: a ring buffer of 64 KiB never gave that */
	compressed_zeros(&f, 16);
	r = file_open(&f);
	err = read_to_error(r);
	cr_assert_not_null(strstr(err.msg, "expands past 65536 bytes"), "%s", err.msg);
	cr_assert_eq(err.offset, 104 + 8 + sizeof(struct perf_file_attr), "the compressed record's offset");
	perf_reader__free(r);
}

Test(decompress, a_stream_past_the_ratio_is_refused, .timeout = 60)
{
	struct file f;
	struct perf_reader *r;
	struct reader_error err;
	uint64_t want = DECOMPRESS_SLACK * 4;

	/* no HEADER_COMPRESSED (a killed perf record -z): only the ratio bounds it */
	file_start(&f, 0, 0);
	compressed_zeros(&f, want / 65528);
	r = file_open(&f);
	err = read_to_error(r);
	cr_assert_not_null(strstr(err.msg, "a decompression bomb?"), "%s", err.msg);
	cr_assert_eq(err.type, PERF_RECORD_COMPRESSED);
	perf_reader__free(r);
}

Test(decompress, not_zstd_is_refused)
{
	struct file f;
	struct perf_reader *r;
	struct reader_error err;

	file_start(&f, PERF_COMP_ZSTD, 528384);
	put_compressed(&f, "\x28\xb5\x2f\xfe not a zstd frame", 20);
	r = file_open(&f);
	err = read_to_error(r);
	cr_assert_not_null(strstr(err.msg, "cannot be decompressed (zstd: "), "%s", err.msg);
	perf_reader__free(r);
}

Test(decompress, another_compression_type_is_refused)
{
	struct file f;
	struct perf_reader *r;
	struct reader_error err;

	file_start(&f, 2, 528384);
	compressed_samples(&f, 0, 10, 320);
	r = file_open(&f);
	err = read_to_error(r);
	cr_assert_str_eq(err.msg, "compressed with type 2 (HEADER_COMPRESSED): prof reads zstd (type 1), the only "
		       "one perf writes");
	perf_reader__free(r);
}

Test(decompress, records_inside_are_checked_as_the_files_own)
{
	static const struct { uint32_t type; uint16_t size; const char *msg; } bad[] = {
		{ PERF_RECORD_SAMPLE, 12, "at byte 32 of its data: record size 12 is not a multiple of 8" },
		{ PERF_RECORD_MMAP2, 16, "at byte 32 of its data: record of 16 bytes is smaller than its type's" },
		{ PERF_RECORD_COMPRESSED, 16, "at byte 32 of its data: a compressed record inside compressed data" },
		{ PERF_RECORD_AUXTRACE, 48, "at byte 32 of its data: AUX data inside compressed data" },
		{ PERF_RECORD_SAMPLE, 4, "at byte 32 of its data: record size 4 is smaller than a record header" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint8_t buf[32 + 64] = { 0 };
		struct file f;
		struct perf_reader *r;
		struct reader_error err;

		file_start(&f, PERF_COMP_ZSTD, 528384);
		sample(buf, 0);
		memcpy(buf + 32, &(struct perf_event_header){ .type = bad[i].type, .size = bad[i].size }, 8);
		compress(&f, buf, 32 + (bad[i].size > 8 ? bad[i].size : 8));
		r = file_open(&f);
		err = read_to_error(r);
		cr_assert_not_null(strstr(err.msg, bad[i].msg), "case %zu: %s", i, err.msg);
		cr_assert_eq(err.type, bad[i].type);
		perf_reader__free(r);
	}
}

Test(decompress, a_stream_that_ends_inside_a_record_is_refused)
{
	struct file f;
	struct perf_reader *r;
	struct reader_error err;
	uint8_t buf[64];

	file_start(&f, PERF_COMP_ZSTD, 528384);
	sample(buf, 0);
	sample(buf + 32, 1);
	compress(&f, buf, 52);
	r = file_open(&f);
	err = read_to_error(r);
	cr_assert_str_eq(err.msg, "the compressed data ends 20 bytes into a record");
	perf_reader__free(r);
}
