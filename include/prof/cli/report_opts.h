/* SPDX-License-Identifier: GPL-2.0-or-later */
/* prof report's options, and the view options prof top shares with it. */
#ifndef PROF_CLI_REPORT_OPTS_H
#define PROF_CLI_REPORT_OPTS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/analyze/profile.h"
#include "prof/scope/containers.h"

/* The options of the engine's view, the same in report and top: --sort, --max-stacks. */
struct view_opts {
	enum profile_key keys[PROFILE_KEY__MAX];
	size_t nr_keys;
	size_t max_stacks;              /* the engine's cap (0: the command's default) */
};

#define VIEW_OPT_MAX_STACKS 400
#define VIEW_LONGOPTS                                                                  \
	{ "sort", required_argument, NULL, 's' },                                      \
	{ "max-stacks", required_argument, NULL, VIEW_OPT_MAX_STACKS }

/*
 * getopt_long()'s c with its arg, when it is one of VIEW_LONGOPTS ('s' for -s):
 * 0 when parsed into v, -EINVAL with a message in err, -ENOENT when c is not a view
 * option.
 */
int view_opts__parse(struct view_opts *v, int c, const char *arg, char *err, size_t errlen);

enum report_format { FORMAT_TEXT, FORMAT_FOLDED, FORMAT_JSON, FORMAT_SVG, FORMAT_PPROF };

struct report_opts {
	const char *input;
	const char *output;             /* -o: where -F pprof goes (NULL: stdout) */
	const char *event;              /* --event NAME or N: the one event reported (NULL: all) */
	struct view_opts view;
	enum report_format format;
	bool callchain;                 /* -g */
	bool no_inline;                 /* --no-inline: call chains without inlined frames */
	size_t top;                     /* 0: all */
	double percent_limit;
	/* filters (0/NULL: none) */
	bool has_uid;
	uint32_t uid;
	bool has_pid;
	int32_t pid;
	const char *comm;
	const char *cgroup;
	const char *container_arg;      /* --container as given (NULL: none) */
	char container[CONTAINER_ID_LEN + 1];   /* ... the id prefix it gives */
	bool container_name;            /* ... or a name: the runtime's, as the file has it */
};

/* Parse argv; -EINVAL with err; 1 for --help. */
int report_opts__parse(struct report_opts *o, int argc, char **argv, char *err, size_t errlen);
extern const char report_opts__usage[];

#endif
