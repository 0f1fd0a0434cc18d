/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Profiles as pprof's profile.proto (proto/profile.proto), gzip-compressed: what
 * `go tool pprof`, speedscope and continuous-profiling backends (Pyroscope, Parca)
 * read.  One pprof sample per (task, stack) entry; one location per distinct frame,
 * with the frame's ELF virtual address when it is known, and a Line naming its
 * function when prof named it (none when it did not: a backend symbolizes the
 * address by the mapping's build id); one mapping per object, with its build id and,
 * when the addresses' file offsets are known, the address range and file offset of
 * the code they fall in (else the "fake mapping" 0/0/0, which tells readers the
 * addresses are already the object's own).  Ids are dense, 1..n.
 *
 * Two inputs: the aggregation engine's profile (prof report -F pprof, labelled uid,
 * user, cgroup, comm and pid), and any other through a source of locations and
 * samples (profd's exports, src/daemon/export_pprof.c).
 */
#ifndef PROF_OUTPUT_PPROF_H
#define PROF_OUTPUT_PPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/analyze/model.h"
#include "prof/perfdata/perf_reader.h"
#include "prof/analyze/profile.h"

#define PPROF_MAX_EVENTS 16

/* A sampling event: its pprof sample types are a count of samples and its period. */
struct pprof_event {
	const char *name;               /* "cpu-clock", "cycles" */
	bool time_period;               /* the period counts nanoseconds (cpu-clock, task-clock) */
	int64_t period;                 /* events between samples (the mean with -F) */
};

/*
 * One event: sample types "samples"/count and its period ("cpu"/nanoseconds for a
 * time event, else "<event>"/count), as Go's profiles name them.  Several (nr_events
 * > 1, events[0] the default): a pair per event, named "<event>_samples"/count and
 * "<event>"/nanoseconds or count, each sample's values zero but its own event's
 * (go tool pprof -sample_index=<event> picks one).
 */
struct pprof_meta {
	const char *event;              /* the sampling event's name: "cpu-clock", "cycles" */
	bool time_period;               /* the period counts nanoseconds (cpu-clock, task-clock) */
	int64_t period;                 /* events between samples (the mean with -F) */
	const struct pprof_event *events;       /* several events (else the three above) */
	size_t nr_events;
	int64_t time_ns;                /* the start, realtime (0: not stated) */
	int64_t duration_ns;
	const char *comments[4];        /* free text (scope, cut counts); NULL ends */
	const struct model *model;      /* object build ids, cgroup paths (may be NULL) */
	const struct perf_reader *reader;       /* its HEADER_BUILD_ID names objects' build ids (may be NULL) */
	/* the source file and line of a named user frame (dso, file offset off), for
	 * pprof's own fields (Function.filename, Line.line); NULL: none */
	bool (*line)(void *ctx, const char *dso, uint64_t off, const char **ret_file, int32_t *ret_line);
	void *line_ctx;
};

/* A location of a source (strings are copied before the next call). */
struct pprof_loc {
	const char *obj;                /* its mapping's file name */
	const char *build_id;           /* hex, "" or NULL when not known */
	const char *sym;                /* the function; NULL: not named (no Line) */
	bool has_addr;
	uint64_t addr;                  /* the object's ELF virtual address */
	bool has_off;
	uint64_t off;                   /* addr's file offset: gives the mapping a range */
	const char *file;               /* sym's source file, and the line at addr (0: not known) */
	int64_t line;
};

struct pprof_label {
	const char *key, *str;          /* str NULL: a number */
	int64_t num;
};

/* A sample of a source: location indexes of the source, leaf first. */
struct pprof_sample {
	const uint32_t *locs;
	size_t nr;
	uint64_t samples, period;
	uint32_t event;                 /* of pprof_meta's events (0 with one) */
	const struct pprof_label *labels;
	size_t nr_labels;
};

/* What to write: locations by index (only those samples use are written, in the
 * order of first use), and samples.  sample() may return false to leave one out. */
struct pprof_source {
	size_t nr_locs, nr_samples;
	void (*loc)(void *ctx, uint32_t i, struct pprof_loc *ret);
	bool (*sample)(void *ctx, size_t i, struct pprof_sample *ret);
	void *ctx;
	long main_loc;                  /* its object is mapping 1 (the main binary), -1 */
};

/* The profile as gzipped bytes (malloc'd) in *ret.  0, or -ENOMEM. */
int pprof__encode(const struct pprof_source *src, const struct pprof_meta *m, uint8_t **ret, size_t *ret_len);

/* Several engines' profiles, one per event (events[i] of m is profiles[i]'s), as one
 * pprof written to fd.  0 or -errno. */
int pprof__write_events(const struct profile *const *profiles, const struct pprof_meta *m, int fd);

/* The task facts pprof's labels show (uid, cgroup, container, comm, pid): the ones
 * the engine keeps apart for it (attribution__keep_only).  Their number. */
size_t pprof__keys(enum profile_key keys[PROFILE_KEY__MAX]);

/* The engine's profile p to fd, gzipped (fd stays open).  0, -ENOMEM or -EIO. */
int pprof__write(const struct profile *p, const struct pprof_meta *m, int fd);

#endif
