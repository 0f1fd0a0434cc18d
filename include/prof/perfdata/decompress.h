/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The records inside a perf.data's PERF_RECORD_COMPRESSED records (perf record -z):
 * one zstd stream across all of them, as perf record writes it and perf's session.c
 * reads it, so a record may begin in one compressed record and end in the next.
 * Bounded: at most 1 MiB of decompressed data is held at once (and zstd's window,
 * at most 128 MiB), one compressed record may expand to at most record_cap bytes
 * (HEADER_COMPRESSED's mmap length: perf's own bound), and the whole stream to at
 * most DECOMPRESS_MAX_RATIO times its compressed bytes (plus a 64 MiB allowance
 * for its start): a decompression bomb is an error, not gigabytes or hours.
 */
#ifndef PROF_PERFDATA_DECOMPRESS_H
#define PROF_PERFDATA_DECOMPRESS_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

/*
 * perf's most compressible real data, --call-graph dwarf,65528 at -z level 22 of a
 * deep recursion (stack copies that differ only in their timestamps), compresses
 * 1,852 : 1; identical records, which no recording writes, compress 9,300 to
 * 11,900 : 1 at every level.  Between them, with room on both sides.
 */
#define DECOMPRESS_MAX_RATIO 4096u
#define DECOMPRESS_SLACK (64ull << 20)

struct decompress;

/* record_cap: the most one compressed record may give, 0 when unknown.  NULL: ENOMEM. */
struct decompress *decompress__new(uint64_t record_cap);
struct decompress *decompress__free(struct decompress *z);

/*
 * The payload of the next compressed record (copied; at most 65535 bytes), once
 * decompress__next has returned 0.  0, -E2BIG (too long) or -EBUSY (the last
 * payload is not all read).
 */
int decompress__feed(struct decompress *z, const void *src, size_t len);

/*
 * The next record of the stream: 1 with *ret (8-aligned, valid until the next
 * call; its header.size may be below 8: the caller refuses it), 0 when the payloads
 * fed so far hold no further whole record, or -EBADMSG (not a zstd stream:
 * decompress__why says why), -E2BIG (this compressed record expands past
 * record_cap), -EOVERFLOW (the stream past DECOMPRESS_MAX_RATIO).
 */
int decompress__next(struct decompress *z, const struct perf_event_header **ret);

/* Bytes of a record begun but not whole yet (0 at a record boundary). */
size_t decompress__pending(const struct decompress *z);
/* The stream's offset of the last record returned, its bytes in and out so far. */
uint64_t decompress__position(const struct decompress *z);
void decompress__totals(const struct decompress *z, uint64_t *ret_in, uint64_t *ret_out);
/* zstd's word for the last -EBADMSG. */
const char *decompress__why(const struct decompress *z);

#endif
