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

#include "prof/analyze/profile.h"

#define UI_TOKEN_LEN 32                 /* hex characters, 128 bits from getrandom */

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
};

struct ui_provider {
	size_t nr_sources;
	const struct ui_source_info *(*info)(void *ctx, size_t src);
	/*
	 * The profile of source src's samples in [from, until) ns (0, UINT64_MAX: all),
	 * borrowed until the next call.  0; -errno with a message in err.
	 */
	int (*window)(void *ctx, size_t src, uint64_t from, uint64_t until, const struct profile **ret,
		      char *err, size_t errlen);
	/* The window's profile p as pprof (gzipped profile.proto) written to fd, with what
	 * the source knows of its event, objects and span.  0; -errno with err. */
	int (*pprof)(void *ctx, size_t src, const struct profile *p, uint64_t from, uint64_t until, int fd,
		     char *err, size_t errlen);
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

#endif
