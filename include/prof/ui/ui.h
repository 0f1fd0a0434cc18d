/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * prof ui's web server: a page (embedded at build time, no CDN) and a JSON/text API
 * over profiles a provider computes (src/cli/cmd_ui.c: prof report's own reading,
 * with a time window).  libmicrohttpd serves it, one request at a time (the
 * provider is not thread-safe).  Every request carries the run's token, in the
 * query (?token=) or the cookie the page's first answer sets from it; any other is
 * refused (403) and told to the log callback.  The server does not print.
 */
#ifndef PROF_UI_UI_H
#define PROF_UI_UI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/analyze/model.h"
#include "prof/analyze/profile.h"

#define UI_TOKEN_LEN 32                 /* hex characters, 128 bits from getrandom */

/* One event of a source (cpu-clock, offcpu-runq, offcpu-blocked, ...): its samples and
 * its timeline's bars (the source's start_ns and bucket_ns). */
struct ui_event_info {
	const char *name;
	uint64_t samples;
	const uint64_t *counts;         /* nr_counts of the source */
};

/* One source (a file, profd's history): what the page lists and its timeline. */
struct ui_source_info {
	const char *name;               /* what the page names it by */
	const char *error;              /* why it has nothing to show, else NULL */
	const char *warning;            /* what it holds is partial (a file cut short), else NULL */
	const char *event;              /* the event shown */
	uint64_t samples;               /* of that event */
	uint64_t start_ns, bucket_ns;   /* the timeline: counts[i] samples in
					 * [start_ns + i * bucket_ns, + bucket_ns) */
	const uint64_t *counts;
	size_t nr_counts;
	/* every event with samples (events[0] is event, counts its counts) */
	const struct ui_event_info *events;
	size_t nr_events;
	bool admin;                     /* profd answers with every tenant's samples */
};

struct ui_provider {
	size_t nr_sources;
	const struct ui_source_info *(*info)(void *ctx, size_t src);
	/*
	 * The profile of event ev (an index of events) of source src's samples in
	 * [from, until) ns (0, UINT64_MAX: all), and the model that names its tasks
	 * (cgroups, containers); both borrowed until the second next call (two windows,
	 * a diff's, are held at once).  0; -errno with a message in err.
	 */
	int (*window)(void *ctx, size_t src, size_t ev, uint64_t from, uint64_t until, const struct profile **ret,
		      const struct model **ret_model, char *err, size_t errlen);
	/* The window's profile p as pprof (gzipped profile.proto) written to fd, with what
	 * the source knows of its event, objects and span.  0; -errno with err. */
	int (*pprof)(void *ctx, size_t src, size_t ev, const struct profile *p, uint64_t from, uint64_t until,
		     int fd, char *err, size_t errlen);
	void *ctx;
};

struct ui_server_opts {
	const char *listen;             /* ADDR:PORT, [ADDR]:PORT (NULL: 127.0.0.1:0) */
	bool allow_remote;              /* else only a loopback address is accepted */
	char token[UI_TOKEN_LEN + 1];
	/* a refused request, and the like (NULL: not told) */
	void (*log)(void *ctx, const char *msg);
	void *log_ctx;
};

struct ui_server;

/* A fresh token into buf (UI_TOKEN_LEN + 1 bytes).  0 or -errno of getrandom. */
int ui_token__new(char *buf);

/*
 * Listen and serve p (which must outlive the server).  0; -EINVAL with err (an
 * address not loopback without allow_remote, a bad one); -errno of the socket.
 */
int ui_server__start(const struct ui_server_opts *o, const struct ui_provider *p, struct ui_server **ret,
		     char *err, size_t errlen);
/* The address it listens on, as a URL's host and port ("127.0.0.1:40123"). */
const char *ui_server__address(const struct ui_server *s);
struct ui_server *ui_server__stop(struct ui_server *s);

/*
 * The API's bodies, for the server and its tests; each a malloc'd string (*ret, its
 * length *ret_len) the caller frees.  0 or -ENOMEM (-EIO from a writer).
 * folded: prof report -F folded's text of p.  top: JSON {"total":N,"functions":N,
 * "rows":[{"sym","dso","self","total"}]}: every function of the stacks, self by the
 * leaf's symbol as prof report --sort sym, total of the stacks that hold it; with
 * limit, only the limit first by self and the limit first by total.  svg: prof
 * report -F svg's flame graph.  flame: JSON {"total","min","tree"}, tree a node
 * ["name",samples,[children]] from "all" down (the comm, then the frames outermost
 * first), children by name, those of fewer than min samples left out.  search: JSON
 * {"term","samples","total","names"}: the samples whose stack has a frame (or comm)
 * whose name holds term, and the first 50 such names.
 */
int ui_render__folded(const struct profile *p, char **ret, size_t *ret_len);
int ui_render__top(const struct profile *p, size_t limit, char **ret, size_t *ret_len);
int ui_render__svg(const struct profile *p, const char *title, char **ret, size_t *ret_len);
int ui_render__flame(const struct profile *p, uint64_t min, char **ret, size_t *ret_len);
int ui_render__search(const struct profile *p, const char *term, char **ret, size_t *ret_len);

/*
 * Group and filter (src/ui/group.c) by what prof knows of a sample's task: its key
 * text is prof report --sort KEY's (keys__raw_text: a user's name, a cgroup's path, a
 * container's id, the comm, the off-CPU holder as the recording names it: for a
 * tenant self, other tenants, system, idle).  A container matches by id or name.
 */
#define UI_FILTERS_MAX 8
struct ui_filter {
	enum profile_key key;           /* UID (a name or a number), CGROUP, CONTAINER, COMM, HOLDER* */
	const char *value;
};

/* The samples of p whose task matches every filter, as a profile of their own
 * (*ret, the caller frees; its names are p's).  0 or -ENOMEM. */
int ui_filter__apply(const struct profile *p, const struct model *m, const struct ui_filter *f, size_t nr,
		     struct profile **ret);
/*
 * group: JSON {"key","total","rows":[{"value","name","samples","period"}]}: p's samples
 * by key k (the rows of prof report --sort k, most period first); name: a container's
 * name (null when the file has none).
 */
int ui_render__group(const struct profile *p, const struct model *m, enum profile_key k, char **ret,
		     size_t *ret_len);

/*
 * diff: JSON {"total_a","total_b","min","tree"}: the flame trees of a and b merged,
 * each node ["name",samples in a,samples in b,[children]], those under min in both
 * left out (the page colours a node by b/total_b - a/total_a, as flamegraph's
 * difffolded -n normalises).
 * sandwich: JSON {"sym","dso","total","callers","callees"} of the function sym of dso:
 * callees the tree below its outermost frame in each stack that holds it, callers
 * the tree above its innermost one (its caller, the caller's caller, ... the comm),
 * each with the function at its root and the stack's samples counted once: the
 * root's samples are /api/top's total of the function.
 */
int ui_render__diff(const struct profile *a, const struct profile *b, uint64_t min, char **ret, size_t *ret_len);
int ui_render__sandwich(const struct profile *p, const char *sym, const char *dso, uint64_t min, char **ret,
			size_t *ret_len);

#endif
