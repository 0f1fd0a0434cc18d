/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * prof's own perf.data section: the scope asked for, the uid of every task with
 * written samples, the cgroups written, and the accounting.
 *
 * Where: after the feature sections, not as a feature bit (perf inject copies
 * every set bit and calls the writer of each, out of bounds for bits it does not
 * know).  The file ends with a trailer of three little-endian u64,
 *
 *   offset   where the section starts (8-aligned, after the last feature section)
 *   size     its length in bytes
 *   magic    0x31434553464f5250, the bytes "PROFSEC1"
 *
 * (struct prof_trailer in perf_data.h).  perf's tools read the file by the offsets
 * in its header and never look there; files prof wrote before kept the section as
 * feature bit 255, which prof report still reads.
 *
 * Text, one fact per line, so it is easy to read back and to inspect:
 *
 *   prof-scope 1
 *   kernel-build-id <hex>          (of the recording kernel, for report's kallsyms)
 *   scope uid 1001
 *   scope cgroup /system.slice/nginx.service
 *   scope pid 1234
 *   scope workload 5678
 *   scope all
 *   task <pid> <tid> <uid|->
 *   cgroup <id> <path>
 *   stat <name> <value>
 */
#ifndef PROF_PERFDATA_PROF_SECTION_H
#define PROF_PERFDATA_PROF_SECTION_H

#include <stdint.h>

#include "prof/perfdata/perf_data.h"
#include "prof/scope/scope.h"
#include "prof/scope/tracker.h"
#include "prof/synth/ledger.h"

struct prof_section_stats {
	uint64_t lost, lost_samples;
	char kernel_build_id[84];       /* hex, "" when unknown */
};

/*
 * Build the section into b (NUL-padded to 8 bytes): the scope, the tasks and cgroups
 * the file describes (the ledger's), the accounting (the tracker's and extra's).
 * b->err is set on ENOMEM.
 */
void prof_section__build(struct feat_buf *b, const struct scope *scope, const struct tracker_stats *st,
			 const struct ledger *l, const struct prof_section_stats *extra);

#endif
