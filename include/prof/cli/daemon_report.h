/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * prof report --daemon: the report's outputs over profd's history instead of a file.
 * The options it adds are taken out of argv before the report's own are parsed;
 * then the daemon is asked (the report's --uid, --cgroup and --comm become the
 * request's selectors, so the policy is the daemon's), and the answer becomes what
 * the report reads: a perf.data header in memory stating the daemon's event, host
 * and accounting (a LOST record for what the kernel lost), the report's engine
 * filled with the answer's entries (frames as the daemon resolved them), and its
 * model told the answer's cgroup paths and objects' build ids.  From there the
 * report runs as for a file: text, folded, svg, json and pprof are the same outputs.
 */
#ifndef PROF_CLI_DAEMON_REPORT_H
#define PROF_CLI_DAEMON_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/analyze/model.h"
#include "prof/analyze/profile.h"
#include "prof/base/strset.h"
#include "prof/cli/daemon_client.h"
#include "prof/cli/report_opts.h"
#include "prof/daemon/answer.h"

struct daemon_query {
	bool on;                        /* --daemon */
	const char *socket;             /* --socket */
	const char *since, *from, *until;
	struct answer a;
	char socket_path[108];          /* the one asked */
	char label[400];                /* what the report names as its input */
	bool off_cpu;                   /* ask for off-CPU time too (prof report) */
};

/*
 * Take --daemon, --since, --from, --until and --socket out of argv (*argc shrinks).
 * 0, or -EINVAL with err set (their values are checked later, against now).
 */
int daemon_query__take_opts(struct daemon_query *q, int *argc, char **argv, char *err, size_t errlen);

/*
 * Ask the daemon for o's window and selectors and write the header the report reads
 * into a memory file, whose name goes to path.  The fd (the caller closes it), or
 * -errno after a message on stderr.  o->input is set to what the answer covers.
 */
int daemon_query__open(struct daemon_query *q, struct report_opts *o, char *path, size_t len);

/* Ask the daemon for o's window and selectors into q->a (cmd names the command in
 * messages).  0, or -errno after a message on stderr. */
int daemon_query__ask(struct daemon_query *q, const struct report_opts *o, const char *cmd);

/* The answer into the report's engine p, its model m and names (interned there).
 * *first and *last: the window.  0 or -ENOMEM. */
int daemon_query__fill(struct daemon_query *q, struct profile *p, struct model *m, struct strset *names,
		       uint64_t *first, uint64_t *last);

/*
 * The header's events: the daemon's, then offcpu-runq and offcpu-blocked when the
 * answer has off-CPU time (daemon_query__open wrote them so).  Fill the engine of
 * event i (0, 1, 2) as daemon_query__fill does; an event of none, 0 at once.
 */
size_t daemon_query__nr_events(const struct daemon_query *q);
/* [daemon] off_cpu_window: the answer's off-CPU time was measured over *ret_measured
 * ns of its *ret_span (true), or over all of it, or it has none (false). */
bool daemon_query__offcpu_windowed(const struct daemon_query *q, uint64_t *ret_measured, uint64_t *ret_span);
int daemon_query__fill_event(struct daemon_query *q, size_t event, struct profile *p, struct model *m,
			     struct strset *names, uint64_t *first, uint64_t *last);

/* The samples of each event of q's answer (numbered as daemon_query__fill_event's:
 * 0, 1 offcpu-runq, 2 offcpu-blocked), without naming a stack: prof ui's timeline
 * bars, one answer each (daemon_query__ask). */
#define DAEMON_QUERY_EVENTS 3
void daemon_query__event_samples(const struct daemon_query *q, uint64_t counts[DAEMON_QUERY_EVENTS]);

/* The answer as an engine, for prof top --daemon (no header). */
int daemon_query__fill_answer(const struct answer *a, struct profile *p, struct model *m, struct strset *names);

void daemon_query__release(struct daemon_query *q);

#endif
