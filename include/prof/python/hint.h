/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Without --call-graph dwarf there is no stack copy to pin a Python frame from
 * (docs/DESIGN.md, "Python frames"): the samples of processes that run a CPython
 * interpreter are counted, so that the summary says once what --call-graph dwarf
 * would add.  A process runs one when it maps, executable, a file named as
 * CPython's are (python3.N, libpython3.N.so...): what is counted says just that.
 */
#ifndef PROF_PYTHON_HINT_H
#define PROF_PYTHON_HINT_H

#include <stdint.h>

#include <perf/event.h>

#include "prof/perfdata/sample.h"

struct python_hint_stats {
	uint64_t samples;               /* written samples of such processes */
	uint64_t processes;             /* processes seen mapping one */
	char name[32];                  /* the first such file's name ("python3.11") */
};

struct python_hint;

/* NULL on ENOMEM. */
struct python_hint *python_hint__new(const struct sample_layout *layout);
struct python_hint *python_hint__free(struct python_hint *h);

/* A record written to the file: MMAP2s mark their process, samples are counted. */
void python_hint__note(struct python_hint *h, const struct perf_event_header *ev);

const struct python_hint_stats *python_hint__stats(const struct python_hint *h);

#endif
