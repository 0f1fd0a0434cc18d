/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The perf.data header features prof writes about the recording host and run. */
#ifndef PROF_PERFDATA_FEATURES_H
#define PROF_PERFDATA_FEATURES_H

#include <stdint.h>

#include "prof/perfdata/perf_data.h"

struct features {
	const char *verb;       /* "record": written after prof's path, as perf's own */
	int argc;
	char **argv;            /* the verb's arguments; argv[0] (getopt's program name) is not written */
	uint64_t first_sample_time, last_sample_time;
	int clockid;
};

/*
 * Add hostname, osrelease, version, arch, nrcpus, cpudesc, total_mem, cmdline,
 * clockid and sample_time to w.  Facts that cannot be read are left out.  The
 * cmdline is as perf writes its own: prof's path (/proc/self/exe), the verb, the
 * arguments.
 * 0 or -ENOMEM.
 */
int features__add(struct perf_writer *w, const struct features *f);

#endif
