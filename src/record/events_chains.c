/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * events' part for Python callers read at the sample instant (python/chain.h): the
 * program onto the sampling events, its bpf-output event into each CPU's ring, and
 * its records paired with their samples as drained.  And the fds of events by id.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof/base/idmap.h"
#include "prof/base/util.h"
#include "prof/python/chain.h"
#include "events_internal.h"

int events__fds_of_ids(const uint64_t *ids, size_t n, int *fds)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	size_t found = 0;

	if (!d)
		return -errno;
	for (size_t c = 0; c < n; c++)
		fds[c] = -1;
	while ((de = readdir(d))) {
		int fd = atoi(de->d_name);
		uint64_t id;

		if (de->d_name[0] == '.' || fd == dirfd(d) || !perf_event_fd__id(fd, &id))
			continue;
		for (size_t c = 0; c < n; c++)
			if (ids[c] == id && fds[c] < 0) {
				fds[c] = fd;
				found++;
			}
	}
	closedir(d);
	return found == n ? 0 : -ENOENT;
}

static void chains_failed(struct events *e, int err, const char *what)
{
	if (!e->info.chains_why[0])
		snprintf(e->info.chains_why, sizeof(e->info.chains_why), "%s: %s", what, strerror(-err));
	e->info.chains_err = err;
	e->chains = python_chains__free(e->chains);
}

/* The program, and its bpf-output event on every CPU, before the rings are mapped
 * (the event writes into its CPU's ring, as the sampling events do).  Best effort:
 * without them Python callers stay unproven, and events_info says why. */
void events__open_chains(struct events *e)
{
	struct perf_event_attr a;
	int err = python_chains__new(&e->chains, e->info.chains_why, sizeof(e->info.chains_why));

	if (err < 0) {
		e->info.chains_err = err;
		return;
	}
	python_chains__attr(&e->attrs[0], &a);
	e->chain_sel = perf_evsel__new(&a);
	err = e->chain_sel ? events__open_evsel(e, e->chain_sel) : -ENOMEM;
	if (err < 0) {
		if (e->chain_sel) {
			perf_evsel__close(e->chain_sel);
			perf_evlist__remove(e->evlist, e->chain_sel);
			perf_evsel__delete(e->chain_sel);
			e->chain_sel = NULL;
		}
		chains_failed(e, err, "its bpf-output event did not open");
	}
}

/* After the rings are mapped: each CPU's bpf-output event into the program's map,
 * and the program onto every sampling event. */
int events__attach_chains(struct events *e)
{
	size_t n = (size_t)e->info.nr_cpus, nr = n;
	_cleanup_free_ uint64_t *ids = NULL;
	_cleanup_free_ int *fds = NULL;
	int err = events__evsel_ids(e, e->chain_sel, &e->chain_ids);

	if (err < 0)
		return err;
	for (size_t i = 0; i < e->info.nr_events; i++)
		nr += e->events[i].nr_ids;
	ids = malloc(nr * sizeof(*ids));
	fds = malloc(nr * sizeof(*fds));
	if (!ids || !fds)
		return -ENOMEM;
	memcpy(ids, e->chain_ids, n * sizeof(*ids));
	nr = n;
	for (size_t i = 0; i < e->info.nr_events; i++) {
		memcpy(ids + nr, e->events[i].ids, e->events[i].nr_ids * sizeof(*ids));
		nr += e->events[i].nr_ids;
	}
	err = events__fds_of_ids(ids, nr, fds);
	if (err < 0) {
		chains_failed(e, err, "its events' fds were not found");
		return 0;
	}
	for (size_t c = 0; c < n && !err; c++) {
		err = python_chains__set_output(e->chains, perf_cpu_map__cpu(e->cpus, (int)c).cpu, fds[c]);
		if (err < 0)
			chains_failed(e, err, "its output map refused an event");
	}
	for (size_t k = n; k < nr && !err; k++) {
		err = python_chains__attach(e->chains, fds[k]);
		if (err < 0)
			chains_failed(e, err, "a sampling event refused it");
	}
	e->info.chains = e->chains != NULL;
	return 0;
}

struct python_chains *events__python_chains(const struct events *e)
{
	return e->chains;
}

/*
 * The Python chain record held (e->chain) and the ring's next record: the program
 * wrote the chain in the sample's overflow handler, right before the sample, in the
 * same ring, interrupts off; so it is that sample's when the next record is a
 * sample of this recording's sampling events of the same thread.  Kept by that
 * sample's (tid, time) for the unwinding; otherwise dropped, counted.
 */
void events__pair_chain(struct events *e, const struct perf_event_header *next)
{
	const struct sample_layout *l = &e->layout;
	const uint64_t *u = next ? (const uint64_t *)(const void *)(next + 1) : NULL;
	uint32_t kind = 0;
	uint64_t id;

	e->chain_len = 0;
	if (next && next->type == PERF_RECORD_SAMPLE && l->s_tid >= 0 &&
	    next->size >= sizeof(*next) + 8 * (size_t)(MAX(l->s_tid, l->s_time) + 1)) {
		memcpy(&id, u, 8);
		if (idmap__get(e->own_ids, id, &kind) && kind == OWN_EVENT &&
		    python_chains__keep(e->chains, (const struct perf_event_header *)(void *)e->chain,
					(int32_t)(u[l->s_tid] >> 32), sample_layout__time(l, next)) == 0)
			return;
		if (kind == OWN_EVENT)
			return;         /* counted by python_chains__keep */
	}
	python_chains__unpaired(e->chains);
}

