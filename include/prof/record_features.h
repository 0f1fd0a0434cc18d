/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The perf.data header features prof writes about the recording host and run. */
#ifndef PROF_RECORD_FEATURES_H
#define PROF_RECORD_FEATURES_H

#include <stdint.h>

#include "prof/perf_data.h"

struct record_features {
	int argc;
	char **argv;            /* prof's own command line */
	uint64_t first_sample_time, last_sample_time;
	int clockid;
};

/*
 * Add hostname, osrelease, version, arch, nrcpus, cpudesc, total_mem, cmdline,
 * clockid and sample_time to w.  Facts that cannot be read are left out.
 * 0 or -ENOMEM.
 */
int record_features__add(struct perf_data_writer *w, const struct record_features *f);

#endif
