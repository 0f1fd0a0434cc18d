/* SPDX-License-Identifier: GPL-2.0-or-later */
/* prof record's configuration and policy steps (part of the command: they print). */
#ifndef PROF_CLI_RECORD_CONFIG_H
#define PROF_CLI_RECORD_CONFIG_H

#include "prof/cli/config.h"
#include "prof/scope/policy.h"
#include "prof/sys/privs.h"
#include "prof/cli/record_opts.h"

/*
 * Read the system configuration, then the user's (or --config), and fill in what the
 * command line left unset.  Returns 0, or an exit code after a message.
 * output_buf holds an expanded output name that o->output may point to.
 */
int record_config__apply(struct record_opts *o, const struct privs *p, struct prof_config *cfg,
			 char *output_buf, size_t output_len);

/* Apply the access policy (scope, then sampling rate).  Returns 0, or an exit code after a message. */
int record_config__policy(struct record_opts *o, const struct prof_config *cfg, const struct privs *p,
			  int cgroup_fd, struct policy_verdict *v);

#endif
