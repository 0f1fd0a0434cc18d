/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <getopt.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof/analyze/profile.h"
#include "prof/cli/report_opts.h"
#include "prof/base/util.h"

const char report_opts__usage[] =
	"usage: prof report [-i FILE] [--sort KEYS] [filters] [--format FMT] [-g]\n"
	"\n"
	"Where the time went in a perf.data file (written by prof or perf record).\n"
	"\n"
	"  -i, --input FILE        the file (default perf.data)\n"
	"  -s, --sort KEYS         any of uid,cgroup,pid,comm,dso,sym (default sym)\n"
	"      --uid USER          only this user's samples (name or uid)\n"
	"      --cgroup PATH       only samples in this cgroup subtree\n"
	"      --pid PID           only this process's samples\n"
	"      --comm NAME         only samples of this command name\n"
	"  -F, --format FMT        text (default), folded (flame graph stacks), svg\n"
	"                          (an interactive flame graph), json, or pprof\n"
	"                          (gzipped profile.proto, with call chains, for go\n"
	"                          tool pprof, speedscope, profiling backends)\n"
	"  -o, --output FILE       where -F pprof writes (default: stdout, not a tty)\n"
	"      --max-stacks N      distinct (task, stack) keys kept (default 100000);\n"
	"                          samples beyond are counted under [cut]\n"
	"  -g, --call-graph        use call chains (folded stacks; frames of each row)\n"
	"      --no-inline         no \"f (inlined)\" frames from debug information\n"
	"      --top N             at most N rows\n"
	"      --percent-limit P   hide rows under P percent\n"
	"  -h, --help              this text\n"
	"\n"
	"Overheads are shares of the event's period, as perf report computes them.\n";


const char *const report_key_names[KEY__MAX] = {
	[KEY_UID] = "uid", [KEY_CGROUP] = "cgroup", [KEY_PID] = "pid",
	[KEY_COMM] = "comm", [KEY_DSO] = "dso", [KEY_SYM] = "sym",
};

int report_keys__parse(const char *arg, enum report_key keys[KEY__MAX], size_t *ret_nr, char *err, size_t errlen)
{
	size_t nr = 0;

	for (const char *p = arg;;) {
		const char *comma = strchrnul(p, ',');
		size_t len = (size_t)(comma - p);
		int found = -1;

		for (int k = 0; k < KEY__MAX; k++)
			if (strlen(report_key_names[k]) == len && !strncmp(p, report_key_names[k], len))
				found = k;
		if (found < 0)
			return errorf(err, errlen, "unknown sort key '%.*s' (keys: uid, cgroup, pid, comm, dso, sym)",
				    (int)len, p);
		for (size_t i = 0; i < nr; i++)
			if ((int)keys[i] == found)
				return errorf(err, errlen, "sort key '%s' given twice", report_key_names[found]);
		keys[nr++] = (enum report_key)found;
		if (!*comma) {
			*ret_nr = nr;
			return 0;
		}
		p = comma + 1;
	}
}

enum { OPT_UID = 256, OPT_CGROUP, OPT_PID, OPT_COMM, OPT_TOP, OPT_PERCENT, OPT_MAX_STACKS, OPT_NO_INLINE };

int report_opts__parse(struct report_opts *o, int argc, char **argv, char *err, size_t errlen)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "max-stacks", required_argument, NULL, OPT_MAX_STACKS },
		{ "sort", required_argument, NULL, 's' },
		{ "format", required_argument, NULL, 'F' },
		{ "call-graph", no_argument, NULL, 'g' },
		{ "uid", required_argument, NULL, OPT_UID },
		{ "cgroup", required_argument, NULL, OPT_CGROUP },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "comm", required_argument, NULL, OPT_COMM },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "percent-limit", required_argument, NULL, OPT_PERCENT },
		{ "no-inline", no_argument, NULL, OPT_NO_INLINE },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	uint64_t v;
	int c;

	*o = (struct report_opts){ .input = "perf.data", .keys = { KEY_SYM }, .nr_keys = 1 };
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:i:o:s:F:gh", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			o->input = optarg;
			break;
		case 'o':
			if (!optarg[0])
				return errorf(err, errlen, "empty output file name");
			o->output = optarg;
			break;
		case OPT_MAX_STACKS:
			if (profile__parse_max(optarg, &o->max_stacks, err, errlen) < 0)
				return -EINVAL;
			break;
		case 's':
			if (report_keys__parse(optarg, o->keys, &o->nr_keys, err, errlen) < 0)
				return -EINVAL;
			break;
		case 'F':
			if (!strcmp(optarg, "text"))
				o->format = FORMAT_TEXT;
			else if (!strcmp(optarg, "folded"))
				o->format = FORMAT_FOLDED;
			else if (!strcmp(optarg, "json"))
				o->format = FORMAT_JSON;
			else if (!strcmp(optarg, "svg"))
				o->format = FORMAT_SVG;
			else if (!strcmp(optarg, "pprof"))
				o->format = FORMAT_PPROF;
			else
				return errorf(err, errlen, "unknown format '%s' (text, folded, json, svg or pprof)", optarg);
			break;
		case 'g':
			o->callchain = true;
			break;
		case OPT_NO_INLINE:
			o->no_inline = true;
			break;
		case OPT_UID:
			if (parse_u64(optarg, 10, &v) == 0 && v < UINT32_MAX) {
				o->uid = (uint32_t)v;
			} else {
				struct passwd *pw = getpwnam(optarg);
				if (!pw)
					return errorf(err, errlen, "no such user '%s'", optarg);
				o->uid = pw->pw_uid;
			}
			o->has_uid = true;
			break;
		case OPT_CGROUP:
			o->cgroup = optarg;
			break;
		case OPT_PID:
			if (parse_u64(optarg, 10, &v) < 0 || v == 0 || v > INT32_MAX)
				return errorf(err, errlen, "bad pid '%s'", optarg);
			o->pid = (int32_t)v;
			o->has_pid = true;
			break;
		case OPT_COMM:
			o->comm = optarg;
			break;
		case OPT_TOP:
			if (parse_u64(optarg, 10, &v) < 0 || v == 0)
				return errorf(err, errlen, "bad --top '%s': a positive number of rows", optarg);
			o->top = (size_t)v;
			break;
		case OPT_PERCENT: {
			char *end;
			double d = strtod(optarg, &end);
			if (*end || !(d >= 0 && d <= 100))
				return errorf(err, errlen, "bad --percent-limit '%s': 0 to 100", optarg);
			o->percent_limit = d;
			break;
		}
		case 'h':
			return 1;
		case ':':
		default:
			return getopt_error(c, argv, "prof report", err, errlen);
		}
	}
	if (optind < argc)
		return errorf(err, errlen, "unexpected argument '%s' (the file is given with -i)", argv[optind]);
	if (o->format == FORMAT_FOLDED || o->format == FORMAT_SVG || o->format == FORMAT_PPROF)
		o->callchain = true;
	if (o->output && o->format != FORMAT_PPROF)
		return errorf(err, errlen, "-o is for -F pprof; other formats go to stdout");
	return 0;
}
