/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * For the unit tests of the record path: hand-built records, as the kernel writes
 * them for events of SAMPLE_TYPE with sample_id_all (the sampling event's sample id is
 * ID_SAMPLE), and fixture files (a fake /proc tree).  Included by the test files.
 */
#ifndef PROF_TESTS_UNIT_FIXTURE_H
#define PROF_TESTS_UNIT_FIXTURE_H

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <criterion/criterion.h>

#define SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
		     PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CGROUP)

#define ID_SAMPLE 0x100

/* ---- records ------------------------------------------------------------- */

/* A record under construction: bytes are written with memcpy, so no type punning. */
struct rec {
	union {
		struct perf_event_header h;
		uint64_t align;
		unsigned char bytes[512];
	};
	size_t len;
};

static inline void rec__start(struct rec *r, uint32_t type, uint16_t misc)
{
	memset(r, 0, sizeof(*r));
	r->len = sizeof(struct perf_event_header);
	r->h.type = type;
	r->h.misc = misc;
}

/* Append n bytes, then pad the record to 8 bytes. */
static inline void rec__bytes(struct rec *r, const void *p, size_t n)
{
	cr_assert_leq(r->len + n + 8, sizeof(r->bytes));
	memcpy(r->bytes + r->len, p, n);
	r->len = (r->len + n + 7) & ~(size_t)7;
}

static inline void rec__u64(struct rec *r, uint64_t v)
{
	rec__bytes(r, &v, 8);
}

static inline void rec__u32x2(struct rec *r, uint32_t a, uint32_t b)
{
	uint32_t v[2] = { a, b };

	rec__bytes(r, v, 8);
}

/* The sample_id_all trailer of SAMPLE_TYPE: TID, TIME, CPU, IDENTIFIER. */
static inline void rec__trailer(struct rec *r, uint32_t pid, uint32_t tid, uint64_t time)
{
	rec__u32x2(r, pid, tid);
	rec__u64(r, time);
	rec__u32x2(r, 0, 0);
	rec__u64(r, ID_SAMPLE);
}

static inline const struct perf_event_header *rec__end(struct rec *r)
{
	cr_assert_eq(r->len % 8, 0);
	r->h.size = (uint16_t)r->len;
	return &r->h;
}

/* The fixed sample fields up to PERIOD. */
static inline void rec__sample_head(struct rec *r, uint64_t id, int32_t pid, int32_t tid, uint64_t time)
{
	rec__start(r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	rec__u64(r, id);
	rec__u64(r, 0x401000);                  /* ip */
	rec__u32x2(r, (uint32_t)pid, (uint32_t)tid);
	rec__u64(r, time);
	rec__u32x2(r, 1, 0);                    /* cpu, res */
	rec__u64(r, 10000);                     /* period */
}

static inline const struct perf_event_header *mk_sample(struct rec *r, int32_t pid, int32_t tid,
						 uint64_t time, uint64_t cgroup)
{
	rec__sample_head(r, ID_SAMPLE, pid, tid, time);
	rec__u64(r, cgroup);
	return rec__end(r);
}

/* A syscalls tracepoint sample: raw data of raw_len bytes with `val` at `off`. */
static inline const struct perf_event_header *mk_tp(struct rec *r, uint64_t id, int32_t pid, int32_t tid,
					     uint64_t time, size_t raw_len, int off, uint64_t val)
{
	unsigned char raw[4 + 64] = { 0 };
	/* PERF_SAMPLE_RAW: u32 size + data, padded so the pair ends 8-byte aligned. */
	uint32_t size = (uint32_t)(((raw_len + 4 + 7) & ~(size_t)7) - 4);

	cr_assert_leq(size + 4, sizeof(raw));
	cr_assert_leq((size_t)off + 8, raw_len);
	rec__sample_head(r, id, pid, tid, time);
	memcpy(raw, &size, 4);
	memcpy(raw + 4 + off, &val, 8);
	rec__bytes(r, raw, 4 + size);
	return rec__end(r);
}

static inline const struct perf_event_header *mk_fork(struct rec *r, uint32_t type, uint32_t pid, uint32_t ppid,
					       uint32_t tid, uint32_t ptid, uint64_t time)
{
	rec__start(r, type, 0);
	rec__u32x2(r, pid, ppid);
	rec__u32x2(r, tid, ptid);
	rec__u64(r, time);
	rec__trailer(r, pid, tid, time);
	return rec__end(r);
}

static inline const struct perf_event_header *mk_comm(struct rec *r, uint32_t pid, uint32_t tid,
					       const char *comm, bool exec, uint64_t time)
{
	rec__start(r, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0);
	rec__u32x2(r, pid, tid);
	rec__bytes(r, comm, strlen(comm) + 1);
	rec__trailer(r, pid, tid, time);
	return rec__end(r);
}

static inline const struct perf_event_header *mk_cgroup(struct rec *r, uint64_t id, const char *path,
						 uint64_t time)
{
	rec__start(r, PERF_RECORD_CGROUP, 0);
	rec__u64(r, id);
	rec__bytes(r, path, strlen(path) + 1);
	rec__trailer(r, 0, 0, time);
	return rec__end(r);
}

/* MMAP2 of pid (no inode data), at start for len bytes from file offset pgoff. */
static inline const struct perf_event_header *mk_mmap2(struct rec *r, uint32_t pid, uint64_t start,
						       uint64_t len, uint64_t pgoff, const char *path,
						       uint64_t time)
{
	rec__start(r, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
	rec__u32x2(r, pid, pid);
	rec__u64(r, start);
	rec__u64(r, len);
	rec__u64(r, pgoff);
	rec__u32x2(r, 0, 0);                    /* maj, min */
	rec__u64(r, 0);                         /* ino */
	rec__u64(r, 0);                         /* ino_generation */
	rec__u32x2(r, 5, 2);                    /* prot (r-x), flags (MAP_PRIVATE) */
	rec__bytes(r, path, strlen(path) + 1);
	rec__trailer(r, pid, pid, time);
	return rec__end(r);
}

static inline void put_file(int dirfd, const char *path, const char *text)
{
	int fd = openat(dirfd, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	size_t len = strlen(text);

	cr_assert_geq(fd, 0, "create %s: %s", path, strerror(errno));
	cr_assert_eq(write(fd, text, len), (ssize_t)len);
	close(fd);
}

/* A fresh directory /tmp/prof-test-NAME-XXXXXX, its path into path: an fd of it. */
static inline int tmpdir_open(char path[64], const char *name)
{
	int fd;

	snprintf(path, 64, "/tmp/prof-test-%s-XXXXXX", name);
	cr_assert_not_null(mkdtemp(path), "mkdtemp: %s", strerror(errno));
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	return fd;
}

static inline int tmpdir_rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

/* Remove path and all it holds. */
static inline void tmpdir_remove(const char *path)
{
	nftw(path, tmpdir_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* What a for-each-cgroup walk called back with (cgroups.h). */
struct seen_cgroups {
	int nr;
	uint64_t ids[8];
	char paths[8][64];
};

static inline void seen_cgroup(uint64_t id, const char *path, void *ctx)
{
	struct seen_cgroups *s = ctx;

	cr_assert_lt(s->nr, 8);
	s->ids[s->nr] = id;
	snprintf(s->paths[s->nr], sizeof(s->paths[0]), "%s", path);
	s->nr++;
}

#endif
