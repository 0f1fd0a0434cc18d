/* SPDX-License-Identifier: GPL-2.0-or-later */
/* For the analysis tests: MMAP2 records, and those of this process's own executable files. */
#ifndef PROF_TESTS_OWN_MAPS_H
#define PROF_TESTS_OWN_MAPS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <perf/event.h>
#include <criterion/criterion.h>

/* A record, 8-aligned. */
union record {
	struct perf_event_header h;
	uint64_t align;
	uint8_t bytes[8192];
};

/* An MMAP2 record of pid (a mapping of file name at start) into r. */
static inline const struct perf_event_header *mmap2_record(union record *r, int32_t pid, uint16_t misc,
							   uint64_t start, uint64_t len, uint64_t pgoff,
							   uint32_t maj, uint32_t min, uint64_t ino, uint32_t prot,
							   const char *name)
{
	struct perf_record_mmap2 m = { .header = { .type = PERF_RECORD_MMAP2, .misc = misc },
				       .pid = (uint32_t)pid, .tid = (uint32_t)pid, .start = start, .len = len,
				       .pgoff = pgoff, .maj = maj, .min = min, .ino = ino, .prot = prot,
				       .flags = MAP_PRIVATE };
	size_t off = offsetof(struct perf_record_mmap2, filename), n = strlen(name) + 1;

	cr_assert_leq(off + n, sizeof(r->bytes));
	memset(r->bytes, 0, sizeof(r->bytes));
	memcpy(r->bytes, &m, off);
	memcpy(r->bytes + off, name, n);
	r->h.size = (uint16_t)((off + n + 7) & ~(size_t)7);
	return &r->h;
}

/* Call fn with the MMAP2 record of each of this process's executable file
 * mappings, as records of pid.  Returns how many there were. */
static inline int own_maps(int32_t pid, void (*fn)(const struct perf_event_header *ev, void *ctx), void *ctx)
{
	char line[4608], path[4096];
	FILE *f = fopen("/proc/self/maps", "r");
	static union record r;
	int n = 0;

	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi, off, ino;
		unsigned int maj, min;
		char perms[8];

		if (sscanf(line, "%lx-%lx %7s %lx %x:%x %lu %4095s", &lo, &hi, perms, &off, &maj, &min, &ino,
			   path) != 8 || perms[2] != 'x' || path[0] != '/')
			continue;
		fn(mmap2_record(&r, pid, PERF_RECORD_MISC_USER, lo, hi - lo, off, maj, min, ino,
				PROT_READ | PROT_EXEC, path), ctx);
		n++;
	}
	fclose(f);
	return n;
}

#endif
