/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Maps read from /proc at time T are also announced by the kernel (MMAP2) if they
 * were made between the sample that triggered the read and T.  Those kernel records
 * repeat what was synthesized; this remembers what was read so they are dropped,
 * while any other map the kernel reports is kept.
 */
#ifndef PROF_SYNTH_MAP_DEDUP_H
#define PROF_SYNTH_MAP_DEDUP_H

#include <stdbool.h>
#include <stdint.h>

struct map_dedup;

struct map_dedup *map_dedup__new(void);
struct map_dedup *map_dedup__free(struct map_dedup *d);

/* Remember a map of pid read from /proc, valid for kernel records stamped <= until. */
int map_dedup__add(struct map_dedup *d, int32_t pid, uint64_t until,
		   uint64_t start, uint64_t len, uint64_t pgoff);

/*
 * A kernel MMAP2 of pid stamped `time`: true when it repeats a map read from /proc
 * after it was made.  Entries older than `time` are forgotten (records come in time
 * order).
 */
bool map_dedup__repeats(struct map_dedup *d, int32_t pid, uint64_t time,
			uint64_t start, uint64_t len, uint64_t pgoff);

/* pid exec'd: what the kernel reports from now on is the new image, never a repeat. */
void map_dedup__forget(struct map_dedup *d, int32_t pid);

#endif
