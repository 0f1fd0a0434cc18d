/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The reader against the writer: a file written with perf_writer (two events,
 * every kind of record prof writes and an odd-sized one of perf's, the features,
 * build ids and prof's section) read back with perf_reader, every record, sample
 * field and feature equal to what was written.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <perf/event.h>

#include "prof/perfdata/features.h"
#include "prof/perfdata/perf_data.h"
#include "prof/perfdata/perf_reader.h"
#include "prof/perfdata/prof_section.h"
#include "prof/perfdata/sample.h"

#define CLOCK_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
		    PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_CGROUP)
#define DUMMY_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME)
#define NR_RECORDS 32

/* The records written, in order: what the reader must give back. */
struct written {
	uint8_t bytes[NR_RECORDS][512];
	size_t len[NR_RECORDS], nr;
	uint64_t time[NR_RECORDS];      /* 0: the record has none */
};

static struct written wr;

/* Start record i of type, misc. */
static uint8_t *rec_start(uint32_t type, uint16_t misc)
{
	uint8_t *r = wr.bytes[wr.nr];

	cr_assert_lt(wr.nr, NR_RECORDS);
	memset(r, 0, sizeof(wr.bytes[0]));
	memcpy(r, &(struct perf_event_header){ .type = type, .misc = misc }, 8);
	wr.len[wr.nr] = 8;
	return r;
}

static void put(const void *p, size_t n)
{
	cr_assert_leq(wr.len[wr.nr] + n, sizeof(wr.bytes[0]));
	memcpy(wr.bytes[wr.nr] + wr.len[wr.nr], p, n);
	wr.len[wr.nr] += n;
}

static void put64(uint64_t v)
{
	put(&v, 8);
}

static void put32x2(uint32_t a, uint32_t b)
{
	put64((uint64_t)b << 32 | a);
}

/* Close the record (size in its header, padded to 8 unless odd), with its time. */
static void rec_end(uint64_t time, bool pad)
{
	uint16_t size;

	if (pad)
		wr.len[wr.nr] = (wr.len[wr.nr] + 7) & ~(size_t)7;
	size = (uint16_t)wr.len[wr.nr];
	memcpy(wr.bytes[wr.nr] + 6, &size, 2);
	wr.time[wr.nr++] = time;
}

/* The sample_id_all trailer of the clock event: TID, TIME, CPU, IDENTIFIER. */
static void trailer(uint32_t pid, uint32_t tid, uint64_t time, uint64_t id)
{
	put32x2(pid, tid);
	put64(time);
	put32x2(1, 0);
	put64(id);
}

static void clock_sample(uint64_t id, uint32_t pid, uint32_t tid, uint64_t time, uint64_t ip, uint64_t cgroup)
{
	rec_start(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	put64(id);
	put64(ip);
	put32x2(pid, tid);
	put64(time);
	put32x2(1, 0);
	put64(250000);
	put64(3);
	put64((uint64_t)PERF_CONTEXT_USER);
	put64(ip);
	put64(ip + 0x100);
	put64(cgroup);
	rec_end(time, true);
}

static void write_records(void)
{
	const char comm[16] = "workload";
	const char path[] = "/usr/lib/libwork.so";

	wr.nr = 0;
	rec_start(PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
	put32x2(10, 10);
	put(comm, sizeof(comm));
	trailer(10, 10, 1000, 101);
	rec_end(1000, true);
	rec_start(PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
	put32x2(10, 10);
	put64(0x400000);                /* start, len, pgoff */
	put64(0x2000);
	put64(0x1000);
	put32x2(8, 1);                  /* maj, min */
	put64(1234);                    /* ino, ino_generation */
	put64(0);
	put32x2(5, 2);                  /* prot, flags */
	put(path, sizeof(path));
	wr.len[wr.nr] = (wr.len[wr.nr] + 7) & ~(size_t)7;
	trailer(10, 10, 1001, 101);
	rec_end(1001, true);
	rec_start(PERF_RECORD_FORK, 0);
	put32x2(11, 10);                /* pid, ppid */
	put32x2(11, 10);                /* tid, ptid */
	put64(1002);
	trailer(11, 11, 1002, 101);
	rec_end(1002, true);
	clock_sample(101, 10, 10, 1003, 0x400100, 77);
	clock_sample(102, 11, 11, 1004, 0x400200, 78);
	/* the dummy event's record: its own layout, told by its id */
	rec_start(PERF_RECORD_SAMPLE, 0);
	put64(201);
	put32x2(11, 11);
	put64(1005);
	rec_end(1005, true);
	/* perf inject -b writes HEADER_BUILD_ID records of odd sizes in the data */
	rec_start(PERF_RECORD_HEADER_BUILD_ID, 0);
	put(&(int32_t){ -1 }, 4);
	put((uint8_t[24]){ 0xaa, 0xbb }, 24);
	put("/odd", 5);
	put("xyz", 3);
	rec_end(0, false);
	clock_sample(101, 10, 10, 1006, 0x400300, 77);   /* after it: read from an aligned copy */
	rec_start(PERF_RECORD_EXIT, 0);
	put32x2(11, 10);
	put32x2(11, 10);
	put64(1007);
	trailer(11, 11, 1007, 101);
	rec_end(1007, true);
	rec_start(PERF_RECORD_LOST, 0);
	put64(101);
	put64(5);
	trailer(0, 0, 1008, 101);
	rec_end(1008, true);
	rec_start(PERF_RECORD_FINISHED_ROUND, 0);
	rec_end(0, true);
}

/* HEADER_BUILD_ID: two objects, as perf's struct build_id_event. */
static void build_ids(struct feat_buf *b)
{
	static const char *const names[2] = { "/usr/lib/libwork.so", "[kernel.kallsyms]" };

	for (int i = 0; i < 2; i++) {
		struct perf_record_header_build_id e = { .header = { .misc = i ? PERF_RECORD_MISC_KERNEL
									       : PERF_RECORD_MISC_USER },
							 .pid = -1 };
		size_t name = (strlen(names[i]) + 1 + 63) & ~(size_t)63;
		char padded[128] = { 0 };

		e.header.misc |= PERF_RECORD_MISC_BUILD_ID_SIZE;
		e.header.size = (uint16_t)(sizeof(e) + name);
		for (int k = 0; k < 20; k++)
			e.data[k] = (uint8_t)(0x10 * i + k);
		e.size = 20;
		strcpy(padded, names[i]);
		feat_buf__put(b, &e, sizeof(e));
		feat_buf__put(b, padded, name);
	}
}

static int seen_build_id(const struct reader_build_id *b, void *ctx)
{
	int *n = ctx;

	cr_assert_eq(b->size, 20);
	cr_assert_eq(b->pid, -1);
	cr_assert_eq(b->data[19], 0x10 * *n + 19);
	cr_assert_str_eq(b->filename, *n ? "[kernel.kallsyms]" : "/usr/lib/libwork.so");
	cr_assert_eq(b->misc & PERF_RECORD_MISC_CPUMODE_MASK, *n ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER);
	(*n)++;
	return 0;
}

static void write_file(int fd, struct feat_buf *section)
{
	uint64_t clock_ids[2] = { 101, 102 }, dummy_ids[1] = { 201 };
	struct perf_data_event evs[2] = {
		{ .attr = { .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK, .sample_period = 4000,
			    .freq = 1, .sample_type = CLOCK_TYPE, .sample_id_all = 1 },
		  .name = "cpu-clock", .ids = clock_ids, .nr_ids = 2 },
		{ .attr = { .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_DUMMY, .sample_type = DUMMY_TYPE,
			    .sample_id_all = 1 },
		  .name = "dummy:u", .ids = dummy_ids, .nr_ids = 1 },
	};
	char arg0[] = "record", arg1[] = "-g", *argv[] = { arg0, arg1, NULL };
	struct features f = { .verb = "record", .argc = 2, .argv = argv, .first_sample_time = 1003, .last_sample_time = 1006,
			      .clockid = 1 };
	struct prof_section_task tasks[1] = { { 10, 10, 1000, true } };
	struct prof_section s = { .tasks = tasks, .nr_tasks = 1, .scope_workload = 10,
				  .stats = { .samples_written = 3 } };
	struct feat_buf bids = { 0 };
	struct perf_writer *w = NULL;

	cr_assert_eq(perf_writer__new(fd, evs, 2, &w), 0);
	write_records();
	for (size_t i = 0; i < wr.nr; i++)
		cr_assert_eq(perf_writer__write(w, wr.bytes[i], wr.len[i]), 0, "record %zu", i);
	cr_assert_eq(features__add(w, &f), 0);
	build_ids(&bids);
	cr_assert_eq(perf_writer__add_feature(w, HEADER_BUILD_ID, bids.data, bids.len), 0);
	prof_section__build(section, &s);
	cr_assert_eq(perf_writer__set_prof_section(w, section->data, section->len), 0);
	cr_assert_eq(perf_writer__finish(w), 0);
	perf_writer__free(w);
	feat_buf__release(&bids);
}

/* HEADER_CMDLINE as perf writes its own: the program's path, the verb, its arguments. */
static void check_cmdline(const struct perf_reader *r)
{
	const char *want[3] = { NULL, "record", "-g" };
	char exe[PATH_MAX];
	ssize_t k = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	size_t len, off = 4;
	const uint8_t *p = perf_reader__feature(r, HEADER_CMDLINE, &len);
	uint32_t nr;

	cr_assert(k > 0);
	exe[k] = '\0';
	want[0] = exe;
	cr_assert(p && len >= 4);
	memcpy(&nr, p, 4);
	cr_assert_eq(nr, 3);
	for (int i = 0; i < 3; i++) {
		uint32_t slen;

		cr_assert(off + 4 <= len);
		memcpy(&slen, p + off, 4);
		cr_assert(slen % 64 == 0 && off + 4 + slen <= len, "string %d", i);
		cr_assert_str_eq((const char *)p + off + 4, want[i]);
		off += 4 + slen;
	}
}

static void check_header(const struct perf_reader *r)
{
	const struct reader_attr *a = perf_reader__attr(r, 0), *d = perf_reader__attr(r, 1);
	struct utsname u;
	int n = 0;

	cr_assert_eq(perf_reader__nr_attrs(r), 2);
	cr_assert_eq(a->attr.sample_type, CLOCK_TYPE);
	cr_assert_eq(a->attr.sample_period, 4000);
	cr_assert(a->attr.freq && a->attr.sample_id_all);
	cr_assert_eq(a->nr_ids, 2);
	cr_assert_str_eq(a->name, "cpu-clock");
	cr_assert_eq(d->attr.sample_type, DUMMY_TYPE);
	cr_assert_eq(d->nr_ids, 1);
	cr_assert_str_eq(d->name, "dummy:u");
	cr_assert_null(perf_reader__attr(r, 2));
	cr_assert_eq(uname(&u), 0);
	cr_assert_str_eq(perf_reader__feature_string(r, HEADER_HOSTNAME), u.nodename);
	cr_assert_str_eq(perf_reader__feature_string(r, HEADER_OSRELEASE), u.release);
	cr_assert_str_eq(perf_reader__feature_string(r, HEADER_ARCH), u.machine);
	cr_assert_eq(perf_reader__for_each_build_id(r, seen_build_id, &n), 0);
	cr_assert_eq(n, 2);
	check_cmdline(r);
}

/* Sample i's fields, decoded with its event's attr. */
static void check_sample(struct perf_reader *r, const struct perf_event_header *ev, size_t i)
{
	const struct reader_attr *a;
	struct sample s;

	cr_assert_eq(perf_reader__parse_sample(r, ev, 0, &s, &a, NULL), 0, "record %zu", i);
	cr_assert_eq(s.time, wr.time[i]);
	if (a == perf_reader__attr(r, 1)) {
		cr_assert_eq(s.id, 201);
		cr_assert_eq(s.tid, 11);
		cr_assert_null(s.callchain);
		return;
	}
	cr_assert_eq(a, perf_reader__attr(r, 0), "record %zu: the clock event's", i);
	cr_assert(s.id == 101 || s.id == 102);
	cr_assert_eq(s.period, 250000);
	cr_assert_eq(s.cpu, 1);
	cr_assert_eq(s.nr_callchain, 3);
	cr_assert_eq(s.callchain[0], (uint64_t)PERF_CONTEXT_USER);
	cr_assert_eq(s.callchain[2], s.ip + 0x100);
	cr_assert_eq(s.cgroup, s.pid == 10 ? 77 : 78);
	cr_assert_eq(s.misc, PERF_RECORD_MISC_USER);
	cr_assert_eq(s.size, ev->size, "every byte decoded");
}

/* The file written, opened with the reader (and already unlinked). */
static struct perf_reader *written_and_opened(struct feat_buf *section)
{
	char path[64] = "/tmp/prof-test-XXXXXX";
	int fd = mkstemp(path);
	struct perf_reader *r = NULL;
	struct reader_error err;

	cr_assert_geq(fd, 0);
	write_file(fd, section);
	close(fd);
	cr_assert_eq(perf_reader__open(path, &r, &err), 0, "%s", err.msg);
	unlink(path);
	return r;
}

Test(perf_reader, reads_back_what_the_writer_wrote)
{
	struct feat_buf section = { 0 };
	struct perf_reader *r = written_and_opened(&section);
	struct reader_error err;
	const struct perf_event_header *ev;
	const char *text;
	struct prof_section back;
	uint64_t off, prev = 0;
	size_t i = 0, len;
	int n;

	check_header(r);
	while ((n = perf_reader__next(r, &ev, &off, &err)) > 0) {
		cr_assert_lt(i, wr.nr, "more records than written");
		cr_assert_eq(ev->size, wr.len[i], "record %zu's size", i);
		cr_assert_eq(memcmp(ev, wr.bytes[i], wr.len[i]), 0, "record %zu's bytes", i);
		cr_assert_eq((uintptr_t)ev % 8, 0, "record %zu aligned", i);
		cr_assert(i == 0 || off == prev + wr.len[i - 1], "record %zu's offset", i);
		if (ev->type != PERF_RECORD_HEADER_BUILD_ID)
			cr_assert_eq(perf_reader__time(r, ev), wr.time[i], "record %zu's time", i);
		if (ev->type == PERF_RECORD_SAMPLE)
			check_sample(r, ev, i);
		prev = off;
		i++;
	}
	cr_assert_eq(n, 0, "%s", err.msg);
	cr_assert_eq(i, wr.nr, "%zu records read of %zu", i, wr.nr);
	cr_assert_eq(perf_reader__unknown_records(r), 0);
	text = perf_reader__prof_section(r, &len);
	cr_assert_not_null(text);
	cr_assert_eq(len, section.len);
	cr_assert_eq(memcmp(text, section.data, len), 0);
	cr_assert_eq(prof_section__parse(text, len, &back), 0);
	cr_assert_eq(back.nr_tasks, 1);
	cr_assert_eq(back.tasks[0].uid, 1000);
	cr_assert_eq(back.stats.samples_written, 3);
	prof_section__release(&back);
	feat_buf__release(&section);
	perf_reader__free(r);
}

/* A sample naming an id no event has is an error at its offset, not a guess. */
Test(perf_reader, a_sample_of_no_event_is_refused)
{
	struct feat_buf section = { 0 };
	struct perf_reader *r = written_and_opened(&section);
	struct reader_error err;
	const struct perf_event_header *ev;
	struct sample s;
	uint64_t off;

	while (perf_reader__next(r, &ev, &off, &err) > 0 && ev->type != PERF_RECORD_SAMPLE)
		;
	cr_assert_eq(ev->type, PERF_RECORD_SAMPLE);
	memcpy(wr.bytes[0], ev, ev->size);
	memcpy(wr.bytes[0] + 8, &(uint64_t){ 999 }, 8);
	cr_assert_eq(perf_reader__parse_sample(r, (const void *)wr.bytes[0], off, &s, NULL, &err), -EINVAL);
	cr_assert_eq(err.offset, off);
	cr_assert_str_eq(err.msg, "sample id 999 names no event");
	/* shorter than its fields */
	memcpy(wr.bytes[0] + 8, &(uint64_t){ 101 }, 8);
	memcpy(wr.bytes[0] + 6, &(uint16_t){ 40 }, 2);
	cr_assert_eq(perf_reader__parse_sample(r, (const void *)wr.bytes[0], off, &s, NULL, &err), -EINVAL);
	cr_assert_not_null(strstr(err.msg, "shorter than its fields"), "%s", err.msg);
	feat_buf__release(&section);
	perf_reader__free(r);
}

/*
 * What perf record leaves when killed: its header as written at the start (attrs,
 * the data offset, a data size of 0, the feature bits it meant to write) and the
 * data up to wherever the last write stopped.  Read up to the last whole record.
 */
static void never_finished(size_t keep, size_t extra, size_t want_records)
{
	char path[64] = "/tmp/prof-test-XXXXXX";
	int fd = mkstemp(path);
	struct feat_buf section = { 0 };
	struct perf_file_header h;
	struct perf_reader *r = NULL;
	struct reader_error err;
	const struct perf_event_header *ev;
	uint64_t off, end, data_end;
	size_t i = 0;
	int n;

	cr_assert_geq(fd, 0);
	write_file(fd, &section);
	cr_assert_eq(pread(fd, &h, sizeof(h), 0), (ssize_t)sizeof(h));
	data_end = h.data.offset;
	for (size_t k = 0; k < keep; k++)
		data_end += wr.len[k];
	h.data.size = 0;
	cr_assert(h.adds_features[0], "the finished file had features: their bits stay");
	cr_assert_eq(pwrite(fd, &h, sizeof(h), 0), (ssize_t)sizeof(h));
	cr_assert_eq(ftruncate(fd, (off_t)(data_end + extra)), 0);
	close(fd);
	cr_assert_eq(perf_reader__open(path, &r, &err), 0, "%s", err.msg);
	unlink(path);
	while ((n = perf_reader__next(r, &ev, &off, &err)) > 0) {
		cr_assert_eq(memcmp(ev, wr.bytes[i], wr.len[i]), 0, "record %zu's bytes", i);
		i++;
	}
	cr_assert_eq(n, 0, "up to the last whole record without an error: %s", err.msg);
	cr_assert_eq(i, want_records);
	cr_assert_eq(perf_reader__finish_state(r, &end), READER_UNFINISHED);
	cr_assert_eq(end, data_end, "the end of the last whole record");
	cr_assert_null(perf_reader__feature_string(r, HEADER_HOSTNAME), "no features read from the data");
	cr_assert_null(perf_reader__prof_section(r, &(size_t){ 0 }));
	cr_assert_str_eq(perf_reader__attr(r, 0)->name, "cpu-clock", "named without EVENT_DESC");
	perf_reader__free(r);
	feat_buf__release(&section);
}

Test(perf_reader, a_file_never_finished_is_read_to_its_last_whole_record)
{
	write_records();
	never_finished(5, 20, 5);       /* cut inside the 6th record */
	never_finished(5, 3, 5);        /* 3 bytes of a record header */
	never_finished(5, 0, 5);        /* cut between records */
	never_finished(wr.nr, 0, wr.nr);
}

/* A finished file says so; the state is READER_FINISHED. */
Test(perf_reader, a_finished_file_says_so)
{
	struct feat_buf section = { 0 };
	struct perf_reader *r = written_and_opened(&section);
	uint64_t end;

	cr_assert_eq(perf_reader__finish_state(r, &end), READER_FINISHED);
	feat_buf__release(&section);
	perf_reader__free(r);
}
