/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <getopt.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof/analyze/profile.h"
#include "prof/base/util.h"
#include "prof/cli/report_opts.h"
#include "prof/output/keys.h"
#include "prof/scope/containers.h"

const char report_opts__usage[] =
	"usage: prof report [-i FILE] [--sort KEYS] [filters] [--format FMT] [-g]\n"
	"Where the time went in a perf.data file (written by prof or perf record).\n"
	"\n"
	"  -i, --input FILE        the file (default perf.data)\n"
	"  -s, --sort KEYS         any of uid,cgroup,container,pid,comm,dso,sym,holder,\n"
	"                          holder_cgroup,holder_container (default sym;\n"
	"                          holder*: who held the CPU, with --off-cpu)\n"
	"      --uid USER, --cgroup PATH, --container ID|NAME, --pid PID, --comm NAME\n"
	"                          only the samples of that user, cgroup subtree, ...\n"
	"  -F, --format FMT        text (default), folded, svg (a flame graph), json,\n"
	"                          pprof (gzipped profile.proto: go tool pprof, ...)\n"
	"  -o, --output FILE       where -F pprof writes (default: stdout, not a tty)\n"
	"      --event NAME|N      only this event (default: each its own table;\n"
	"                          -F folded/svg/pprof: the first)\n"
	"      --max-stacks N      distinct keys per event; beyond: counted as [cut]\n"
	"  -g, --call-graph        use call chains (folded stacks; JSON: its stacks too)\n"
	"      --no-inline         no \"f (inlined)\" frames from debug information\n"
	"      --top N, --percent-limit P   at most N rows, none under P percent\n"
	"      --daemon            profd's history instead of a file (your own samples)\n"
	"      --since D, --from T, --until T  with --daemon: the last 10m; a window\n"
	"      --socket PATH       with --daemon: profd's socket\n"
	"  -h, --help              this text\n"
	"Overheads are shares of the event's period, as perf report computes them.\n"
	"See prof-report(1).\n";


int view_opts__parse(struct view_opts *v, int c, const char *arg, char *err, size_t errlen)
{
	switch (c) {
	case 's':
		return keys__parse(arg, v->keys, &v->nr_keys, err, errlen);
	case VIEW_OPT_MAX_STACKS:
		return profile__parse_max(arg, &v->max_stacks, err, errlen);
	default:
		return -ENOENT;
	}
}

enum { OPT_UID = 256, OPT_CGROUP, OPT_PID, OPT_COMM, OPT_TOP, OPT_PERCENT, OPT_NO_INLINE, OPT_EVENT, OPT_CONTAINER };

static int parse_format(struct report_opts *o, const char *arg, char *err, size_t errlen)
{
	static const char *const names[] = {
		[FORMAT_TEXT] = "text", [FORMAT_FOLDED] = "folded", [FORMAT_JSON] = "json",
		[FORMAT_SVG] = "svg", [FORMAT_PPROF] = "pprof",
	};

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(arg, names[i])) {
			o->format = (enum report_format)i;
			return 0;
		}
	return errorf(err, errlen, "unknown format '%s' (text, folded, json, svg or pprof)", arg);
}

/* --uid, --pid, --comm, --cgroup, --container: 0, -EINVAL, or -ENOENT for another option. */
static int parse_filter(struct report_opts *o, int c, const char *arg, char *err, size_t errlen)
{
	struct passwd *pw;
	uint64_t v;

	switch (c) {
	case OPT_UID:
		if (parse_u64(arg, 10, &v) == 0 && v < UINT32_MAX) {
			o->uid = (uint32_t)v;
		} else {
			pw = getpwnam(arg);
			if (!pw)
				return errorf(err, errlen, "no such user '%s'", arg);
			o->uid = pw->pw_uid;
		}
		o->has_uid = true;
		return 0;
	case OPT_CGROUP:
		o->cgroup = arg;
		return 0;
	case OPT_CONTAINER:
		/* not an id: a name, matched against the names the file carries */
		o->container_name = containers__parse_id(arg, o->container, err, errlen) < 0;
		if (o->container_name && !arg[0])
			return errorf(err, errlen, "empty container id or name");
		o->container_arg = arg;
		return 0;
	case OPT_PID:
		if (parse_u64(arg, 10, &v) < 0 || v == 0 || v > INT32_MAX)
			return errorf(err, errlen, "bad pid '%s'", arg);
		o->pid = (int32_t)v;
		o->has_pid = true;
		return 0;
	case OPT_COMM:
		o->comm = arg;
		return 0;
	default:
		return -ENOENT;
	}
}

/* The options of what is shown: -o, -F, -g, --no-inline, --event, --top, --percent-limit. */
static int parse_output(struct report_opts *o, int c, const char *arg, char *err, size_t errlen)
{
	uint64_t v;
	char *end;
	double d;

	switch (c) {
	case 'o':
		if (!arg[0])
			return errorf(err, errlen, "empty output file name");
		o->output = arg;
		return 0;
	case 'F':
		return parse_format(o, arg, err, errlen);
	case 'g':
		o->callchain = true;
		return 0;
	case OPT_NO_INLINE:
		o->no_inline = true;
		return 0;
	case OPT_EVENT:
		if (!arg[0])
			return errorf(err, errlen, "empty --event: give an event's name or number");
		o->event = arg;
		return 0;
	case OPT_TOP:
		if (parse_u64(arg, 10, &v) < 0 || v == 0)
			return errorf(err, errlen, "bad --top '%s': a positive number of rows", arg);
		o->top = (size_t)v;
		return 0;
	case OPT_PERCENT:
		d = strtod(arg, &end);
		if (*end || !(d >= 0 && d <= 100))
			return errorf(err, errlen, "bad --percent-limit '%s': 0 to 100", arg);
		o->percent_limit = d;
		return 0;
	default:
		return -ENOENT;
	}
}

int report_opts__parse(struct report_opts *o, int argc, char **argv, char *err, size_t errlen)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		VIEW_LONGOPTS,
		{ "format", required_argument, NULL, 'F' },
		{ "call-graph", no_argument, NULL, 'g' },
		{ "uid", required_argument, NULL, OPT_UID },
		{ "cgroup", required_argument, NULL, OPT_CGROUP },
		{ "container", required_argument, NULL, OPT_CONTAINER },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "comm", required_argument, NULL, OPT_COMM },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "percent-limit", required_argument, NULL, OPT_PERCENT },
		{ "no-inline", no_argument, NULL, OPT_NO_INLINE },
		{ "event", required_argument, NULL, OPT_EVENT },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c, r;

	*o = (struct report_opts){ .input = "perf.data", .view = { .keys = { PROFILE_KEY_SYM }, .nr_keys = 1 } };
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:i:o:s:F:gh", longopts, NULL)) != -1) {
		if (c == 'i') {
			o->input = optarg;
			continue;
		}
		if (c == 'h')
			return 1;
		r = view_opts__parse(&o->view, c, optarg, err, errlen);
		if (r == -ENOENT)
			r = parse_filter(o, c, optarg, err, errlen);
		if (r == -ENOENT)
			r = parse_output(o, c, optarg, err, errlen);
		if (r == -ENOENT)
			return getopt_error(c, argv, "prof report", err, errlen);
		if (r < 0)
			return -EINVAL;
	}
	if (optind < argc)
		return errorf(err, errlen, "unexpected argument '%s' (the file is given with -i)", argv[optind]);
	if (o->format == FORMAT_FOLDED || o->format == FORMAT_SVG || o->format == FORMAT_PPROF)
		o->callchain = true;
	if (o->output && o->format != FORMAT_PPROF)
		return errorf(err, errlen, "-o is for -F pprof; other formats go to stdout");
	return 0;
}
