/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The perf maps (/tmp/perf-PID.map, "START SIZE name" lines: V8's --perf-basic-prof,
 * Python 3.12's -X perf, JVM agents) of processes in containers and chroots, copied
 * into the recording.  Such a process writes its map in its own /tmp, named by its
 * pid in its own pid namespace: the host's /tmp/perf-<host pid>.map, which perf
 * report and prof report look for afterwards, is not it (and may be anyone's).
 *
 * Each lifetime of a sampled process is tracked (a pid used again within the
 * recording starts a new one, delimited by the EXIT times: a sample belongs to the
 * lifetime whose (from, until] holds its time), with its place (places.h), its pid in
 * its own namespace (the last NSpid of /proc/PID/status) and its uid, read when a
 * sample of it is looked up a round after its first (perf_maps__met).  A lifetime in another place than prof's own that had
 * written samples gets its map read at its EXIT, as it is written (the map is then
 * whole), or at the end of the recording: under the place's held root (the task and
 * the container may be gone), tmp/perf-<nspid>.map, as the invoking user, no link of
 * any kind and never above that root, only a regular file owned by the process's
 * uid or root, at most PERF_MAPS_MAX_BYTES (PERF_MAPS_TOTAL_BYTES for the recording).
 * The copies go into prof's section of the file (prof_section.h), keyed by host pid
 * and lifetime, where prof report's jitmap finds them before /tmp.
 */
#ifndef PROF_SYNTH_PERF_MAPS_H
#define PROF_SYNTH_PERF_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/synth/places.h"

#define PERF_MAPS_MAX_BYTES (16u << 20)
#define PERF_MAPS_TOTAL_BYTES (64u << 20)
#define PERF_MAPS_MAX_LIVES (1u << 20)
#define PERF_MAPS_UNTIL_ALIVE UINT64_MAX

struct perf_maps;

struct perf_maps_stats {
	uint64_t copied;                /* maps copied into the file */
	uint64_t bytes;                 /* ... their size */
	/* processes of another place with samples whose map could not be copied */
	uint64_t gone;                  /* gone before prof learnt their pid in their namespace,
					 * or their place's root was not held */
	uint64_t not_owned;             /* not owned by the process's uid or root */
	uint64_t not_regular;           /* a link, a directory, a FIFO... */
	uint64_t too_big;               /* over PERF_MAPS_MAX_BYTES */
	uint64_t over_limit;            /* over PERF_MAPS_TOTAL_BYTES for the recording */
	uint64_t unreadable;            /* not readable by the invoking user, or another error */
	uint64_t untracked;             /* lifetimes past PERF_MAPS_MAX_LIVES, or no memory */
};

struct perf_maps *perf_maps__new(struct places *places);
struct perf_maps *perf_maps__free(struct perf_maps *pm);

/* A sample of pid at time looked up as it is drained (the process most likely still
 * runs): a lifetime not met before is made; its place and namespace pid are read at
 * its first sample drained in a later round (a process that lives less than a round,
 * tens of ms, is not looked at: exec'd processes come and go by the thousand), and
 * again a round after it exec'd or changed namespaces. */
void perf_maps__met(struct perf_maps *pm, int32_t pid, uint64_t time);
/* A round of the pipeline ended. */
void perf_maps__round(struct perf_maps *pm);
/* pid exec'd or changed namespaces (looked up): its place is read again at a sample
 * a round later. */
void perf_maps__moved(struct perf_maps *pm, int32_t pid);
/* pid's EXIT at time looked up (or the FORK of a new process with its pid, should
 * the EXIT have been lost): its lifetime ends there. */
void perf_maps__exited(struct perf_maps *pm, int32_t pid, uint64_t time);
/* A sample of pid at time is written. */
void perf_maps__written(struct perf_maps *pm, int32_t pid, uint64_t time);
/* pid's EXIT at time is written: its map is read now, if it is to be. */
void perf_maps__exit_written(struct perf_maps *pm, int32_t pid, uint64_t time);
/* The end of the recording: the maps still to read are read (those of processes
 * alive and never looked at, sampled in one round only, looked at first).  A process
 * sampled in one round only that exited before the end is not looked at. */
void perf_maps__finish(struct perf_maps *pm);

/* Each map copied: host pid, lifetime (from, until], the map's text. */
typedef void (*perf_maps_fn)(void *ctx, int32_t pid, uint64_t from, uint64_t until, const char *text, size_t len);
void perf_maps__each(const struct perf_maps *pm, perf_maps_fn fn, void *ctx);

const struct perf_maps_stats *perf_maps__stats(const struct perf_maps *pm);

#endif
