/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The aggregation engine's profile as pprof's profile.proto (proto/profile.proto),
 * gzip-compressed: what `go tool pprof`, speedscope and continuous-profiling
 * backends read.  One pprof sample per (task, stack) entry, labelled uid, user,
 * cgroup, comm and pid; one location and function per distinct frame; one mapping
 * per object, with its build id when the recording knows it.
 */
#ifndef PROF_OUTPUT_PPROF_H
#define PROF_OUTPUT_PPROF_H

#include <stdint.h>

#include "prof/analyze/model.h"
#include "prof/perfdata/perf_reader.h"
#include "prof/analyze/profile.h"

struct pprof_meta {
	const char *event;              /* the sampling event's name: "cpu-clock", "cycles" */
	bool time_period;               /* the period counts nanoseconds (cpu-clock, task-clock) */
	int64_t period;                 /* events between samples (the mean with -F) */
	int64_t duration_ns;
	const char *comments[4];        /* free text (scope, cut counts); NULL ends */
	const struct model *model;      /* object build ids, cgroup paths (may be NULL) */
	const struct perf_reader *reader;       /* its HEADER_BUILD_ID names objects' build ids (may be NULL) */
};

/* The task facts pprof's labels show (uid, cgroup, comm, pid): the ones the engine
 * keeps apart for it (attribution__keep_only).  Their number. */
size_t pprof__keys(enum profile_key keys[PROFILE_KEY__MAX]);

/* Write p to fd, gzipped (fd stays open).  0, -ENOMEM or -EIO. */
int pprof__write(const struct profile *p, const struct pprof_meta *m, int fd);

#endif
