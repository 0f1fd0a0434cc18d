/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The writer's on-disk layout, read back field by field as perf's header.c reads it. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prof/perfdata/perf_data.h"
#include "prof/perfdata/perf_reader.h"
#include "prof/base/util.h"

static int tmpfd(char *path)
{
	strcpy(path, "/tmp/prof-test-XXXXXX");
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	return fd;
}

static void *slurp(const char *path, size_t *len)
{
	char *buf = NULL;
	ssize_t n = read_file_full(AT_FDCWD, path, 64u << 20, &buf);
	cr_assert_geq(n, 0);
	*len = (size_t)n;
	return buf;
}

static struct perf_writer *two_events(int fd, uint64_t *ids_a, uint64_t *ids_b)
{
	struct perf_data_event evs[2] = {
		{ .attr = { .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK,
			    .sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME, .sample_id_all = 1 },
		  .name = "cpu-clock", .ids = ids_a, .nr_ids = 2 },
		{ .attr = { .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_DUMMY,
			    .sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME, .sample_id_all = 1 },
		  .name = "dummy:HG", .ids = ids_b, .nr_ids = 2 },
	};
	struct perf_writer *w = NULL;

	cr_assert_eq(perf_writer__new(fd, evs, 2, &w), 0);
	return w;
}

/* The file of header_*: two events, three records, two features and prof's section. */
static uint8_t *written_file(size_t *ret_len, struct perf_file_header *h)
{
	char path[64];
	int fd = tmpfd(path);
	uint64_t ids_a[2] = { 101, 102 }, ids_b[2] = { 201, 202 };
	struct perf_writer *w = two_events(fd, ids_a, ids_b);
	struct perf_event_header rec = { .type = PERF_RECORD_FINISHED_ROUND, .size = 8 };
	uint32_t nr[2] = { 4, 2 };
	struct feat_buf host = { 0 };
	uint8_t *buf;

	for (int i = 0; i < 3; i++)
		cr_assert_eq(perf_writer__write(w, &rec, 8), 0);
	feat_buf__string(&host, "testhost");
	cr_assert_eq(perf_writer__add_feature(w, HEADER_HOSTNAME, host.data, host.len), 0);
	cr_assert_eq(perf_writer__add_feature(w, HEADER_NRCPUS, nr, sizeof(nr)), 0);
	cr_assert_eq(perf_writer__set_prof_section(w, "xyz", 3), 0);
	cr_assert_eq(perf_writer__add_feature(w, 0, "x", 1), -EINVAL);
	/* perf inject calls the writer of every bit set: none it does not know */
	cr_assert_eq(perf_writer__add_feature(w, HEADER_LAST_FEATURE, "x", 1), -EINVAL);
	cr_assert_eq(perf_writer__add_feature(w, HEADER_PROF_SCOPE_OLD, "x", 1), -EINVAL);
	cr_assert_eq(perf_writer__finish(w), 0);
	uint64_t fsize = perf_writer__file_size(w);
	cr_assert_eq(perf_writer__data_size(w), 24);
	feat_buf__release(&host);
	perf_writer__free(w);
	close(fd);

	buf = slurp(path, ret_len);
	unlink(path);
	cr_assert_eq(*ret_len, fsize);
	cr_assert_geq(*ret_len, sizeof(*h));
	memcpy(h, buf, sizeof(*h));
	return buf;
}

Test(perf_data, header_attrs_ids_and_data)
{
	struct perf_file_header h;
	size_t len;
	uint8_t *buf = written_file(&len, &h);

	cr_assert_eq(h.magic, PERF_MAGIC2);
	cr_assert_eq(h.size, sizeof(h));
	cr_assert_eq(h.size, 104, "perf's header is 104 bytes");
	cr_assert_eq(h.attr_size, sizeof(struct perf_file_attr));
	cr_assert_eq(h.attrs.size, 2 * sizeof(struct perf_file_attr));

	/* attrs and their ids */
	for (int i = 0; i < 2; i++) {
		struct perf_file_attr fa;
		memcpy(&fa, buf + h.attrs.offset + (size_t)i * h.attr_size, sizeof(fa));
		cr_assert_eq(fa.attr.size, sizeof(struct perf_event_attr), "attr.size is filled in");
		cr_assert_eq(fa.ids.size, 16);
		uint64_t ids[2];
		memcpy(ids, buf + fa.ids.offset, 16);
		cr_assert_eq(ids[0], i ? 201 : 101);
		cr_assert_eq(ids[1], i ? 202 : 102);
		cr_assert_eq(fa.attr.config, i ? PERF_COUNT_SW_DUMMY : PERF_COUNT_SW_CPU_CLOCK);
	}

	/* data */
	cr_assert_eq(h.data.size, 24);
	cr_assert_geq(h.data.offset, h.attrs.offset + h.attrs.size);
	struct perf_event_header d;
	memcpy(&d, buf + h.data.offset, 8);
	cr_assert_eq(d.type, PERF_RECORD_FINISHED_ROUND);
	free(buf);
}

Test(perf_data, header_features_and_prof_section)
{
	struct perf_file_header h;
	size_t len;
	uint8_t *buf = written_file(&len, &h);

	/* features: bits set for HOSTNAME, NRCPUS, EVENT_DESC (implicit), none of prof's */
	int bits[] = { HEADER_HOSTNAME, HEADER_NRCPUS, HEADER_EVENT_DESC };
	int nbits = 0;
	for (int b = 0; b < PERF_HEADER_FEAT_BITS; b++)
		if (h.adds_features[b / 64] & (1ull << (b % 64)))
			nbits++;
	cr_assert_eq(nbits, 3);
	for (size_t i = 0; i < 3; i++)
		cr_assert(h.adds_features[bits[i] / 64] & (1ull << (bits[i] % 64)), "bit %d", bits[i]);

	/* the section table follows the data, in bit order */
	struct perf_file_section sec[3];
	memcpy(sec, buf + h.data.offset + h.data.size, sizeof(sec));
	/* HOSTNAME (3) */
	uint32_t slen;
	memcpy(&slen, buf + sec[0].offset, 4);
	cr_assert_eq(slen, 64, "strings are padded to 64");
	cr_assert_str_eq((char *)buf + sec[0].offset + 4, "testhost");
	cr_assert_eq(sec[0].size, 68);
	/* NRCPUS (7) */
	uint32_t n[2];
	memcpy(n, buf + sec[1].offset, 8);
	cr_assert_eq(n[0], 4);
	cr_assert_eq(n[1], 2);
	/* EVENT_DESC (12): nr, attr size, then per event attr, nr_ids, name, ids */
	uint32_t ed[2];
	const uint8_t *p = buf + sec[2].offset;
	memcpy(ed, p, 8);
	cr_assert_eq(ed[0], 2);
	cr_assert_eq(ed[1], sizeof(struct perf_event_attr));
	p += 8 + ed[1];
	uint32_t nids;
	memcpy(&nids, p, 4);
	cr_assert_eq(nids, 2);
	memcpy(&slen, p + 4, 4);
	cr_assert_str_eq((const char *)p + 8, "cpu-clock");
	uint64_t id0;
	memcpy(&id0, p + 8 + slen, 8);
	cr_assert_eq(id0, 101);
	/* prof's section after the last feature section, 8-aligned, then the trailer */
	struct prof_trailer t;
	cr_assert_geq(len, sizeof(t));
	memcpy(&t, buf + len - sizeof(t), sizeof(t));
	cr_assert_eq(memcmp(buf + len - 8, "PROFSEC1", 8), 0, "the file ends with the magic");
	cr_assert_eq(t.magic, PROF_TRAILER_MAGIC);
	cr_assert_eq(t.size, 3);
	cr_assert_eq(t.offset, ALIGN_UP(sec[2].offset + sec[2].size, 8));
	cr_assert_eq(memcmp(buf + t.offset, "xyz", 3), 0);
	cr_assert_eq(t.offset + t.size + sizeof(t), len, "nothing after the trailer");
	free(buf);
}

Test(perf_data, records_larger_than_the_buffer_stay_in_order)
{
	char path[64];
	int fd = tmpfd(path);
	uint64_t ids_a[2] = { 1, 2 }, ids_b[2] = { 3, 4 };
	struct perf_writer *w = two_events(fd, ids_a, ids_b);
	static uint8_t rec[65528];
	uint64_t total = 0;

	/* ~20 MB of records: many buffer flushes */
	for (uint32_t i = 0; i < 320; i++) {
		struct perf_event_header *hh = (void *)rec;
		size_t sz = 8 + 8 * (size_t)(i % 8000);
		*hh = (struct perf_event_header){ .type = 200, .size = (uint16_t)sz };
		memcpy(rec + 8, &i, 4);
		cr_assert_eq(perf_writer__write(w, rec, sz), 0);
		total += sz;
	}
	cr_assert_eq(perf_writer__finish(w), 0);
	perf_writer__free(w);
	close(fd);

	size_t len;
	uint8_t *buf = slurp(path, &len);
	struct perf_file_header h;
	memcpy(&h, buf, sizeof(h));
	cr_assert_eq(h.data.size, total);
	uint64_t off = h.data.offset;
	for (uint32_t i = 0; i < 320; i++) {
		struct perf_event_header hh;
		uint32_t v;
		memcpy(&hh, buf + off, 8);
		memcpy(&v, buf + off + 8, 4);
		cr_assert_eq(hh.size, 8 + 8 * (i % 8000));
		if (hh.size > 8)
			cr_assert_eq(v, i);
		off += hh.size;
	}
	cr_assert_eq(off, h.data.offset + h.data.size);
	free(buf);
	unlink(path);
}

Test(perf_data, new_reports_a_failed_write)
{
	/* /dev/full fails every write with ENOSPC: new() reports it. */
	int fd = open("/dev/full", O_WRONLY);
	uint64_t ids[2] = { 1, 2 };
	struct perf_data_event ev = { .attr = { .type = PERF_TYPE_SOFTWARE }, .name = "x", .ids = ids, .nr_ids = 2 };
	struct perf_writer *w = NULL;

	cr_assert_geq(fd, 0);
	cr_assert_eq(perf_writer__new(fd, &ev, 1, &w), -ENOSPC);
	cr_assert_null(w, "ret untouched on failure");
	close(fd);
	cr_assert_eq(perf_writer__new(fd, &ev, 0, &w), -EINVAL);
}

/*
 * A disk that fills up: the records that reached it whole, a finished header, no
 * features (they did not fit), and a file the reader takes.  Records are numbered
 * (type 200, prof's own range: the reader returns them as unknown ones).
 */
#define FULL_REC 1000

static void numbered(uint8_t *rec, uint32_t i)
{
	memset(rec, 0, FULL_REC);
	*(struct perf_event_header *)(void *)rec = (struct perf_event_header){ .type = 200, .size = FULL_REC };
	memcpy(rec + 8, &i, 4);
}

/* Write numbered records until the writer fails (or max): how many it accepted. */
static uint32_t fill(struct perf_writer *w, uint32_t max, int *ret_err)
{
	static uint8_t rec[FULL_REC];
	uint32_t i;

	*ret_err = 0;
	for (i = 0; i < max; i++) {
		numbered(rec, i);
		*ret_err = perf_writer__write(w, rec, FULL_REC);
		if (*ret_err)
			break;
	}
	return i;
}

/* A writer with a CMDLINE feature and prof's section of these sizes (at most 64 KiB). */
static struct perf_writer *writer_with(int fd, uint64_t *ids_a, uint64_t *ids_b, size_t cmdline, size_t prof)
{
	struct perf_writer *w = two_events(fd, ids_a, ids_b);
	static uint8_t big[64 << 10];

	cr_assert_eq(perf_writer__add_feature(w, HEADER_CMDLINE, big, cmdline), 0);
	cr_assert_eq(perf_writer__set_prof_section(w, big, prof), 0);
	return w;
}

/* The file: a finished header over nr_min.. whole numbered records and nothing else. */
static void check_full_file(const char *path, uint32_t accepted, uint32_t nr_min)
{
	size_t len;
	uint8_t *buf = slurp(path, &len);
	struct perf_file_header h;
	struct perf_reader *r = NULL;
	struct reader_error err;
	const struct perf_event_header *ev;
	uint64_t off, nr;
	uint32_t i = 0;
	int k;

	cr_assert_geq(len, sizeof(h));
	memcpy(&h, buf, sizeof(h));
	cr_assert_eq(h.magic, PERF_MAGIC2);
	cr_assert_eq(h.size, 104);
	cr_assert_eq(h.attrs.size, 2 * sizeof(struct perf_file_attr), "the header is the finished one");
	cr_assert_eq(h.data.offset, h.attrs.offset + h.attrs.size);
	cr_assert_eq(h.data.size % FULL_REC, 0, "only whole records: %llu", (unsigned long long)h.data.size);
	nr = h.data.size / FULL_REC;
	cr_assert_geq(nr, nr_min);
	cr_assert_leq(nr, accepted);
	for (int b = 0; b < PERF_HEADER_FEAT_BITS / 64; b++)
		cr_assert_eq(h.adds_features[b], 0, "features that did not fit are not claimed");
	cr_assert_eq(len, h.data.offset + h.data.size, "nothing after the data");
	for (off = h.data.offset; off < h.data.offset + h.data.size; off += FULL_REC, i++) {
		uint32_t v;

		memcpy(&v, buf + off + 8, 4);
		cr_assert_eq(v, i, "record %u in place", i);
	}
	free(buf);

	cr_assert_eq(perf_reader__open(path, &r, &err), 0, "the reader: %s", err.msg);
	cr_assert_eq(perf_reader__nr_attrs(r), 2);
	for (i = 0; (k = perf_reader__next(r, &ev, &off, &err)) == 1; i++) {
		uint32_t v;

		cr_assert_eq(ev->size, FULL_REC);
		memcpy(&v, (const uint8_t *)ev + 8, 4);
		cr_assert_eq(v, i);
	}
	cr_assert_eq(k, 0, "to the end without a bad record: %s", err.msg);
	cr_assert_eq(i, nr);
	perf_reader__free(r);
}

/* The file size limit (RLIMIT_FSIZE) fails writes past it with EFBIG, as a full
 * disk does with ENOSPC: the writer's same paths, without root. */
static void limit_file_size(uint64_t bytes)
{
	struct rlimit rl = { .rlim_cur = bytes, .rlim_max = RLIM_INFINITY };

	signal(SIGXFSZ, SIG_IGN);
	cr_assert_eq(getrlimit(RLIMIT_FSIZE, &rl), 0);
	rl.rlim_cur = bytes;
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
}

Test(perf_data, file_full_in_the_data_keeps_whole_records_and_a_header)
{
	char path[64];
	int fd = tmpfd(path), err;
	uint64_t ids_a[2] = { 1, 2 }, ids_b[2] = { 3, 4 };
	struct perf_writer *w = writer_with(fd, ids_a, ids_b, 64 << 10, 3);
	uint32_t accepted;

	/* 300.5 records' worth of data after the header: the disk fills mid-record */
	limit_file_size(104 + 32 + 2 * sizeof(struct perf_file_attr) + 300 * FULL_REC + FULL_REC / 2);
	accepted = fill(w, 100000, &err);
	cr_assert_eq(err, -EFBIG, "the write that met the limit says so");
	cr_assert_lt(accepted, 100000);
	cr_assert_eq(perf_writer__write(w, "x", 1), -EFBIG, "sticky: nothing after a gap");
	cr_assert_eq(perf_writer__finish(w), -EFBIG);
	cr_assert_eq(perf_writer__data_size(w), 300 * FULL_REC);
	perf_writer__free(w);
	close(fd);
	limit_file_size(RLIM_INFINITY);
	check_full_file(path, accepted, 300);
	unlink(path);
}

Test(perf_data, file_full_in_the_features_keeps_all_data_and_a_header)
{
	char path[64];
	int fd = tmpfd(path), err;
	uint64_t ids_a[2] = { 1, 2 }, ids_b[2] = { 3, 4 };
	struct perf_writer *w = writer_with(fd, ids_a, ids_b, 64 << 10, 3);
	uint64_t data_end = 104 + 32 + 2 * sizeof(struct perf_file_attr) + 50 * FULL_REC;

	cr_assert_eq(fill(w, 50, &err), 50);    /* in the writer's buffer yet */
	cr_assert_eq(err, 0);
	limit_file_size(data_end + 100);        /* room for the data, not for 64 KiB of CMDLINE */
	cr_assert_eq(perf_writer__finish(w), -EFBIG);
	cr_assert_eq(perf_writer__data_size(w), 50 * FULL_REC);
	perf_writer__free(w);
	close(fd);
	limit_file_size(RLIM_INFINITY);
	check_full_file(path, 50, 50);
	unlink(path);
}

Test(perf_data, file_full_in_prof_section_claims_no_features)
{
	char path[64];
	int fd = tmpfd(path), err;
	uint64_t ids_a[2] = { 1, 2 }, ids_b[2] = { 3, 4 };
	struct perf_writer *w = writer_with(fd, ids_a, ids_b, 100, 64 << 10);
	uint64_t data_end = 104 + 32 + 2 * sizeof(struct perf_file_attr) + 50 * FULL_REC;

	cr_assert_eq(fill(w, 50, &err), 50);
	limit_file_size(data_end + (16 << 10)); /* the features fit, prof's section does not */
	cr_assert_eq(perf_writer__finish(w), -EFBIG);
	perf_writer__free(w);
	close(fd);
	limit_file_size(RLIM_INFINITY);
	check_full_file(path, 50, 50);
	unlink(path);
}

/* As root: a real file system that fills up (a 256 KiB tmpfs, in a mount namespace
 * of the test's own process). */
Test(perf_data, disk_full_keeps_a_readable_header)
{
	char dir[] = "/tmp/prof-test-full.XXXXXX", path[64];
	uint64_t ids_a[2] = { 1, 2 }, ids_b[2] = { 3, 4 };
	struct perf_writer *w;
	uint32_t accepted;
	int fd, err;

	if (getuid() != 0)
		cr_skip_test("needs root to mount a small tmpfs");
	cr_assert_eq(unshare(CLONE_NEWNS), 0);
	cr_assert_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(mount("prof-test", dir, "tmpfs", 0, "size=256k"), 0);
	snprintf(path, sizeof(path), "%s/perf.data", dir);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	cr_assert_geq(fd, 0);
	w = writer_with(fd, ids_a, ids_b, 64 << 10, 3);
	accepted = fill(w, 100000, &err);
	cr_assert_eq(err, -ENOSPC);
	cr_assert_eq(perf_writer__finish(w), -ENOSPC);
	cr_assert_gt(perf_writer__data_size(w), 100 * FULL_REC, "most of 256 KiB is data");
	perf_writer__free(w);
	close(fd);
	check_full_file(path, accepted, 100);
	unlink(path);
	cr_assert_eq(umount(dir), 0);
	rmdir(dir);
}

/*
 * The file at path, of two_events(), read back: records numbered 0 to nr - 1, a
 * FINISHED_ROUND, and the end at want_end, the file left as how says.
 */
static void read_numbered_then_round(const char *path, uint32_t nr, enum reader_finish how, uint64_t want_end)
{
	struct perf_reader *r = NULL;
	struct reader_error rerr;
	const struct perf_event_header *ev;
	uint64_t off, end;
	uint32_t i = 0;
	int k;

	cr_assert_eq(perf_reader__open(path, &r, &rerr), 0, "%s", rerr.msg);
	cr_assert_eq(perf_reader__nr_attrs(r), 2);
	cr_assert_eq(perf_reader__attr(r, 0)->attr.config, PERF_COUNT_SW_CPU_CLOCK);
	cr_assert_eq(perf_reader__attr(r, 1)->attr.config, PERF_COUNT_SW_DUMMY);
	cr_assert_eq(perf_reader__attr(r, 1)->nr_ids, 2);
	while ((k = perf_reader__next(r, &ev, &off, &rerr)) > 0 && ev->type == 200) {
		uint32_t v;

		memcpy(&v, (const uint8_t *)ev + 8, 4);
		cr_assert_eq(v, i++);
	}
	cr_assert_eq(k, 1, "%s", rerr.msg);
	cr_assert_eq(ev->type, PERF_RECORD_FINISHED_ROUND);
	cr_assert_eq(perf_reader__next(r, &ev, &off, &rerr), 0, "the data ends with the round: %s", rerr.msg);
	cr_assert_eq(i, nr);
	cr_assert_eq(perf_reader__finish_state(r, &end), how);
	cr_assert_eq(end, want_end);
	perf_reader__free(r);
}

/*
 * A writer of two_events() into a new file at path (*ret_fd), its header checked as
 * written at the start, then 100 numbered records and a FINISHED_ROUND: *ret_end is
 * where the round ends, *h the header then.
 */
static struct perf_writer *one_round(char *path, int *ret_fd, struct perf_file_header *h, uint64_t *ret_end)
{
	static uint64_t ids_a[2] = { 1, 2 }, ids_b[2] = { 3, 4 };
	struct perf_event_header round = { .type = PERF_RECORD_FINISHED_ROUND, .size = 8 };
	int fd = tmpfd(path), err;
	struct perf_writer *w = two_events(fd, ids_a, ids_b);

	cr_assert_eq(pread(fd, h, sizeof(*h), 0), (ssize_t)sizeof(*h));
	cr_assert_eq(h->attrs.size, 2 * sizeof(struct perf_file_attr), "attrs named from the start");
	cr_assert_eq(h->data.size, 0);
	cr_assert_eq(fill(w, 100, &err), 100);
	cr_assert_eq(perf_writer__write(w, &round, 8), 0);
	cr_assert_eq(pread(fd, h, sizeof(*h), 0), (ssize_t)sizeof(*h));
	*ret_end = h->data.offset + 100 * FULL_REC + 8;
	cr_assert_eq(h->data.offset + h->data.size, *ret_end, "the round in the header");
	*ret_fd = fd;
	return w;
}

/*
 * prof record killed (SIGKILL, the OOM killer): no finish().  The header names the
 * attrs and the data up to the last round; what was written after it (the writer's
 * buffer reached the disk, the header update did not) is past the data's end.
 */
Test(perf_data, killed_after_a_round_leaves_a_header_over_its_data)
{
	char path[64];
	int fd, err;
	struct perf_file_header h;
	uint64_t round_end;
	struct perf_writer *w = one_round(path, &fd, &h, &round_end);

	cr_assert_eq(fill(w, 30, &err), 30);            /* the next round, in the buffer */
	cr_assert_eq(pwrite(fd, "next round's data", 17, (off_t)round_end), 17);
	perf_writer__free(w);                           /* killed: no finish */
	close(fd);
	read_numbered_then_round(path, 100, READER_NO_FEATURES, round_end);
	unlink(path);
}

/*
 * prof record before it kept its header valid, killed: a header of only the magic
 * and the sizes, then ids, attrs and data as the writer lays them out.  The reader
 * finds the attrs and reads the data up to its last whole record.
 */
Test(perf_data, an_older_header_never_written_is_read_to_the_last_whole_record)
{
	char path[64];
	int fd;
	struct perf_file_header h, old;
	struct perf_reader *r = NULL;
	struct reader_error rerr;
	uint64_t round_end;
	uint8_t rec[FULL_REC];
	struct perf_writer *w = one_round(path, &fd, &h, &round_end);

	numbered(rec, 100);
	cr_assert_eq(pwrite(fd, rec, FULL_REC / 2, (off_t)round_end), FULL_REC / 2);  /* cut mid-record */
	perf_writer__free(w);
	/* what the older writer put at 0 until finish(): the magic and the sizes */
	old = (struct perf_file_header){ .magic = h.magic, .size = h.size, .attr_size = h.attr_size };
	cr_assert_eq(pwrite(fd, &old, sizeof(old), 0), (ssize_t)sizeof(old));
	close(fd);
	read_numbered_then_round(path, 100, READER_UNFINISHED, round_end);     /* the half record left */

	/* a header of sizes only over anything else is still refused */
	fd = open(path, O_WRONLY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(pwrite(fd, "\xff\xff\xff\xff", 4, 104 + 32 + 4), 4);  /* attr 0's size */
	close(fd);
	cr_assert_lt(perf_reader__open(path, &r, &rerr), 0);
	cr_assert(strstr(rerr.msg, "no attrs section"), "%s", rerr.msg);
	unlink(path);
}

Test(perf_data, feat_buf_encodings)
{
	struct feat_buf b = { 0 };

	feat_buf__u32(&b, 7);
	feat_buf__u64(&b, 9);
	feat_buf__string(&b, "");
	feat_buf__string(&b, "0123456789012345678901234567890123456789012345678901234567890123");
	cr_assert_eq(b.err, 0);
	/* 4 + 8 + (4 + 64) + (4 + 128): a 64-char string needs its NUL, so 128 */
	cr_assert_eq(b.len, 4 + 8 + 68 + 132);
	uint32_t l;
	memcpy(&l, b.data + 12, 4);
	cr_assert_eq(l, 64);
	memcpy(&l, b.data + 80, 4);
	cr_assert_eq(l, 128);
	feat_buf__release(&b);
	cr_assert_null(b.data);
}
