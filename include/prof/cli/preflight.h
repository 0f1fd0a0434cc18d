/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What prof record and prof top check and prepare before a session opens anything:
 * the privileges, the configuration (system file, then the user's or --config, under
 * the command line), the scope (cgroup2 found, --cgroup resolved, --pid checked) and
 * the access policy; and, once the session is asked to open, the explanation of what
 * it could not do and the warnings about what it does with less.  Part of the
 * commands: it prints.
 */
#ifndef PROF_CLI_PREFLIGHT_H
#define PROF_CLI_PREFLIGHT_H

#include <stdbool.h>

#include "prof/cli/config.h"
#include "prof/cli/record_opts.h"
#include "prof/record/session.h"
#include "prof/scope/policy.h"
#include "prof/scope/runtime_names.h"
#include "prof/sys/privs.h"

struct preflight {
	struct privs privs;
	struct prof_config cfg;
	struct policy_verdict verdict;
	int cgroup_fd;                  /* the cgroup2 root, or -1 */
	char cgroup_mount[4096];
	char output_buf[4096];          /* an expanded configured output name o->output may use */
	struct runtime_names names;     /* the runtimes' names, when an argument needed them */
	bool names_loaded;
};

void preflight__init(struct preflight *p);
/* Close what it opened. */
void preflight__release(struct preflight *p);

/*
 * Privileges, configuration, scope and policy, in that order, into p and o.  0, or
 * an exit code after a message.
 */
int preflight__run(struct preflight *p, struct record_opts *o);

/*
 * The configuration alone (prof report's: no scope, no policy): the system file and
 * the user's (or config), then preflight__debuginfod.  0, or an exit code after a
 * message.
 */
int preflight__config(struct preflight *p, const char *config);

/*
 * [symbols]: DEBUGINFOD_URLS and its bounds set in the environment, from the user's
 * environment or own file, else the system file; for a prof privileged for others
 * (a capability install run by a user), the system file's only.  Before threads.
 */
void preflight__debuginfod(const struct preflight *p);

/* The inputs of a session of o, over sink (ctx); workload: its corked child, or 0. */
struct session_config preflight__session(const struct preflight *p, const struct record_opts *o,
					 pid_t workload, session_sink_fn sink, void *ctx);

/* Why session__new() or session__start() failed; output: the file being written, or NULL. */
void preflight__explain(const struct preflight *p, const struct record_opts *o,
			const struct session_error *e, const char *output);

/* Once the session started: what it does with less than asked (-q: only what matters). */
void preflight__warn(const struct record_opts *o, const struct session *s);

#endif
