/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * prof record's summary on stderr when it ends: what was written, lost, out of
 * scope or unattributed and why, and each part's own lines (unwinding, Python,
 * objects kept, perf maps, --off-cpu, the cgroups' pressure; more with -v).
 */
#ifndef PROF_CLI_RECORD_SUMMARY_H
#define PROF_CLI_RECORD_SUMMARY_H

#include <stdint.h>

struct build_id_cache;
struct perf_writer;
struct pressure_set;
struct record_opts;
struct session;

/* What the summary reads, all borrowed: the session, and what prof record adds. */
struct record_summary {
	const struct record_opts *opts;
	struct session *session;
	const struct perf_writer *writer;
	const char *path;                       /* the file written */
	const struct build_id_cache *cache;     /* where objects' copies are kept, or NULL */
	uint64_t st_foreign;                    /* MMAP2s written under "/[PLACE]" */
	const struct pressure_set *pressure;    /* the scope's cgroups' PSI and cpu.stat */
};

void record_summary__print(const struct record_summary *r);

#endif
