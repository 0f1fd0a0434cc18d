/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * prof report's state, shared by the command (src/cli/cmd_report.c: reading the
 * file, the per-event engines, the outputs) and its tables (src/cli/report_print.c:
 * the text and JSON rows).  One engine per sampling event of the file, as perf
 * report shows each event on its own: counts of different events (nanoseconds of
 * cpu-clock, page faults) are never added.
 */
#ifndef PROF_CLI_REPORT_H
#define PROF_CLI_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "prof/analyze/attribution.h"
#include "prof/analyze/dwarf_stacks.h"
#include "prof/analyze/analysis.h"
#include "prof/analyze/jitmap.h"
#include "prof/analyze/model.h"
#include "prof/analyze/profile.h"
#include "prof/analyze/resolver.h"
#include "prof/analyze/symbols.h"
#include "prof/base/strset.h"
#include "prof/cli/report_opts.h"
#include "prof/output/pprof.h"
#include "prof/perfdata/perf_reader.h"
#include "prof/perfdata/prof_section.h"

/* One sampling event of the file and what its samples count. */
struct report_event {
	const struct reader_attr *a;
	size_t attr;                    /* its index among the file's attrs */
	struct profile *prof;           /* its samples, by the facts the output needs and the stack */
	uint64_t samples, filtered, first_time, last_time;
	uint64_t guest;         /* samples in a virtual machine's guest, left out as perf does */
};

/* The containers of the file --container met, to tell it matched one (interned
 * pointers, one per container; the first REPORT_CONTAINERS_LISTED of each kind). */
#define REPORT_CONTAINERS_LISTED 8
struct report_containers {
	const char *last;               /* the last one judged, and whether it matched */
	bool last_ok;
	const char *matched[REPORT_CONTAINERS_LISTED], *other[REPORT_CONTAINERS_LISTED];
	size_t nr_matched, nr_other;
};

struct report {
	struct report_opts o;
	struct perf_reader *reader;
	struct analysis an;             /* model, symbols, JIT maps, the resolver over them */
	struct dwarf_stacks *dwarf;     /* perf's --call-graph dwarf samples, unwound; NULL: none */
	struct attribution attr;        /* samples to their event's engine */
	struct strset comms;
	struct prof_section section;    /* prof's section, empty in perf's files */
	/* the events with samples, made at their first (by attr index; NULL: none yet) */
	struct report_event *event_of[READER_MAX_ATTRS];
	struct profile_budget budget;   /* shared by the events' engines */
	long only;                      /* --event: the one attr reported, else -1 */
	struct report_containers containers;
	uint64_t lost;
	/* --daemon with [daemon] off_cpu_window: the off-CPU time's measured ns of the span */
	bool offcpu_windowed;
	uint64_t offcpu_measured_ns, offcpu_span_ns;
	char scope[512];
	size_t nr_sampling;             /* the file's sampling events */
	/* prof ui: told of each sample counted, with the entry of e->prof it went to
	 * (attr.last_ref); NULL: not */
	void (*on_counted)(void *ctx, const struct report_event *e, const struct sample *s, uint64_t ref);
	void *counted_ctx;
	struct reader_error err;
};

/*
 * The steps of reading a file, shared by prof report and prof ui; each prints what
 * failed on stderr.  report__open: in_path's header read, the model, symbols and engine ready (r->o says which outputs: their
 * keys); *ret_sorted: in time order already (prof's files).  0 or -errno.
 * report__read: every record (r->err says where one was bad).  0 or -errno.
 * report__events: the events reported (READER_MAX_ATTRS at most) in the file's order.
 * report__say_unfinished: what the reader says of a file its recording did not finish.
 * report__close frees what report__open made, whatever it reached.
 */
int report__open(struct report *r, const char *in_path, bool *ret_sorted);
int report__read(struct report *r, bool sorted);
int report__events(struct report *r, struct report_event **evs, size_t *ret_nr);
void report__say_unfinished(const struct report *r);
void report__close(struct report *r);
/* --daemon: the answer's entries into the engines of the header report__open read
 * (daemon_query__open's).  0 or -ENOMEM. */
struct daemon_query;
int report__fill_from_daemon(struct report *r, struct daemon_query *dq);

/* -F pprof's description of event e of r: its name, period, duration, model, reader. */
struct pprof_meta report__pprof_meta(const struct report *r, const struct report_event *e);

/* The name of an event as the file gives it ("?" when it gives none). */
const char *report__event_name(const struct report_event *e);

/* One event's table as text: its header, then its rows (which --top and
 * --percent-limit cut). */
void report_print__text(const struct report *r, const struct report_event *e, const struct profile_row *rows,
			size_t nr);

/*
 * The JSON of the events' rows: one event (n == 1) as schema prof-report/1, several
 * as prof-report/2, whose "events" array holds each event's part of /1.  With -g,
 * stacks[i] (nr_stacks[i] of them: profile__rows by_stack) are event i's "stacks";
 * stacks is NULL without.
 */
void report_print__json(const struct report *r, const struct report_event *const *evs,
			struct profile_row *const *rows, const size_t *nr, struct profile_row *const *stacks,
			const size_t *nr_stacks, size_t n);

#endif
