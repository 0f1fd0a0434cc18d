/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * prof's own perf.data header section (feature bit HEADER_PROF_SCOPE, which perf
 * skips): the scope asked for, the uid of every task with written samples, the
 * cgroups written, and the accounting.  Text, one fact per line, so it is easy to
 * read back and to inspect:
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
#ifndef PROF_PROF_SECTION_H
#define PROF_PROF_SECTION_H

#include <stdint.h>

#include "prof/perf_data.h"
#include "prof/scope.h"
#include "prof/tracker.h"

struct prof_section_stats {
	uint64_t lost, lost_samples;
	char kernel_build_id[84];       /* hex, "" when unknown */
};

/* Build the section into b (NUL-padded to 8 bytes).  b->err is set on ENOMEM. */
void prof_section__build(struct feat_buf *b, const struct scope *scope, const struct tracker *t,
			 const struct prof_section_stats *extra);

#endif
