/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "prof/cli/record_opts.h"
#include "prof/analyze/unwinder.h"
#include "prof/base/util.h"
#include "prof/scope/containers.h"
#include "prof/scope/runtime_names.h"

const char record_opts__usage[] =
	"usage: prof [record] [options] [-- command [args...]]\n"
	"Record samples system-wide into a perf.data file that perf report/script read.\n"
	"\n"
	"  -u, --uid USER[,USER]   everything these users run (name or uid; repeatable)\n"
	"  -G, --cgroup CGROUP     a cgroup v2 subtree (path, or unit name; repeatable)\n"
	"      --container ID|NAME a container by id, 12+ digit prefix, name; repeatable\n"
	"      --pod UID|NS/POD    a Kubernetes pod by its uid or name (repeatable)\n"
	"  -p, --pid PID[,PID]     these processes, their threads and descendants\n"
	"  -a, --all               record every task on the host\n"
	"      --run-as USER|self  who runs the command (default: the --uid user)\n"
	"  -e, --event EV[,EV...]  sampling events (default: cycles, else cpu-clock)\n"
	"  -F, --freq HZ|max       samples per second per CPU (default 4000)\n"
	"  -c, --count PERIOD      sample every PERIOD events instead of -F\n"
	"  -g, --call-graph MODE   call chains: fp (frame pointers, as -g), dwarf[,SIZE]\n"
	"  -m, --mmap-pages PAGES  pages per CPU's ring buffer, a power of 2 (~150 ms)\n"
	"      --off-cpu           also the time off a CPU: offcpu-runq, offcpu-blocked\n"
	"  -o, --output FILE       output file (default perf.data; an old one -> .old)\n"
	"  -d, --duration SECONDS  stop after this long\n"
	"  -q, --quiet             no live status line and no summary\n"
	"  -v, --verbose           more detail in the summary\n"
	"      --config FILE       configuration file (see prof.conf(5))\n"
	"  -h, --help              this text\n"
	"Scopes add up (default: the command's tree); prof stops when it exits, at\n"
	"Ctrl-C, SIGTERM or -d, exiting with the command's status.  See prof-record(1).\n";

void record_opts__release(struct record_opts *opts)
{
	scope__release(&opts->scope);
}

void record_opts__init(struct record_opts *opts)
{
	*opts = (struct record_opts){
		.freq = RECORD_DEFAULT_FREQ,
		.mmap_pages = RECORD_DEFAULT_PAGES,
		.output = RECORD_DEFAULT_OUTPUT,
	};
	/* "cycles" always parses. */
	event_spec__parse("cycles", &opts->events[0]);
	opts->nr_events = 1;
}



uint64_t record_opts__max_mmap_pages(void)
{
	long page = sysconf(_SC_PAGESIZE);

	/* libperf keeps the buffer's mask in an int: 2 GiB of data at most (perf's
	 * own limit is the same for 4 KiB pages). */
	return (1ull << 31) / (uint64_t)(page > 0 ? page : 4096);
}

unsigned int record_opts__auto_pages(const struct record_opts *o, long nr_cpus)
{
	long page = sysconf(_SC_PAGESIZE);
	/* a sample's fixed fields, and a call chain of ~24 frames (perf's files here: 20-30) */
	uint64_t bytes = 80 + (o->callchain ? 24 * 8 : 0) + (o->java_stack ? o->java_stack + 48 : 0);
	uint64_t need, pages = RECORD_DEFAULT_PAGES;

	if (!o->freq)
		return RECORD_DEFAULT_PAGES;    /* -c: the rate is the event's, unknown here */
	if (page <= 0)
		page = 4096;
	need = o->freq * (o->nr_events ? o->nr_events : 1) * bytes * RECORD_RING_MS / 1000;
	while (pages * (uint64_t)page < need && pages < RECORD_AUTO_MAX_PAGES &&
	       pages * 2 * (uint64_t)page * (uint64_t)(nr_cpus > 0 ? nr_cpus : 1) <= RECORD_AUTO_MAX_TOTAL)
		pages *= 2;
	return (unsigned int)pages;
}

/* A word --call-graph takes as its value even when not joined with '=' (perf's syntax). */
static bool is_call_graph_mode(const char *s)
{
	return s && (!strcmp(s, "fp") || !strcmp(s, "dwarf") || !strncmp(s, "dwarf,", 6) ||
		     !strcmp(s, "lbr"));
}

const char *record_opts__call_graph_arg(int c, const char *arg, int argc, char **argv)
{
	/* "--call-graph dwarf" as perf writes it; -g takes no value */
	if (c == 'g' && !arg && optind > 0 && optind < argc && !strncmp(argv[optind - 1], "--", 2) &&
	    is_call_graph_mode(argv[optind]))
		return argv[optind++];
	return arg;
}

/* --call-graph fp | dwarf[,SIZE] */
static int parse_call_graph(struct record_opts *opts, const char *mode, char *err, size_t errlen)
{
	uint64_t v;

	opts->callchain = true;
	opts->dwarf = false;
	if (!mode || !strcmp(mode, "fp"))
		return 0;
	if (strcmp(mode, "dwarf") && strncmp(mode, "dwarf,", 6))
		return errorf(err, errlen, "call graph mode '%s' is not supported: use fp (frame pointers, as -g) "
			      "or dwarf[,SIZE] (e.g. --call-graph dwarf,16384)", mode);
	if (!unwinder__supported())
		return errorf(err, errlen, "--call-graph dwarf is supported on x86-64 only; use -g (frame pointers)");
	opts->dwarf = true;
	opts->stack_size = UNWIND_DEFAULT_STACK;
	if (!mode[5])
		return 0;
	if (parse_u64(mode + 6, 0, &v) < 0 || v == 0 || v > UNWIND_MAX_STACK)
		return errorf(err, errlen, "bad stack dump size in '%s': give bytes from 8 to %u (e.g. dwarf,16384)",
			      mode, UNWIND_MAX_STACK);
	/* the kernel wants a multiple of 8, as perf rounds it */
	opts->stack_size = (uint32_t)ALIGN_UP(v, 8);
	if (opts->stack_size > UNWIND_MAX_STACK)
		opts->stack_size = UNWIND_MAX_STACK;
	return 0;
}

/* One event of -e's list: 0, or -EINVAL with err. */
static int parse_event(struct record_opts *opts, const char *name, char *err, size_t errlen)
{
	struct event_spec e;
	int r = event_spec__parse(name, &e);

	if (r == -ENOENT) {
		char names[1024];
		event_spec__known_names(names, sizeof(names));
		return errorf(err, errlen, "unknown event '%s'; known events: %s", name, names);
	}
	if (r < 0)
		return errorf(err, errlen, "bad event modifier in '%s' (use :u, :k or :uk)", name);
	for (size_t i = 0; i < opts->nr_events; i++)
		if (!strcmp(opts->events[i].name, e.name))
			return errorf(err, errlen, "event '%s' given twice", e.name);
	if (opts->nr_events >= RECORD_MAX_EVENTS)
		return errorf(err, errlen, "too many events: at most %d sampling events", RECORD_MAX_EVENTS);
	opts->events[opts->nr_events++] = e;
	return 0;
}

/*
 * -e a,b,...: each a sampling event of its own, as perf record takes them; the first
 * -e replaces the default, later ones add to it (-e a -e b is -e a,b).
 */
static int parse_events(struct record_opts *opts, const char *arg, char *err, size_t errlen)
{
	char name[64];

	if (!opts->event_given)
		opts->nr_events = 0;
	opts->event_given = true;
	for (const char *p = arg;;) {
		size_t len = strcspn(p, ",");

		if (len == 0 || len >= sizeof(name))
			return errorf(err, errlen, "bad event list '%s': give names separated by commas, "
				      "e.g. -e cpu-clock,page-faults", arg);
		memcpy(name, p, len);
		name[len] = '\0';
		if (parse_event(opts, name, err, errlen) < 0)
			return -EINVAL;
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

/* --container ID|NAME, --pod UID|NAMESPACE/POD: a name is looked up in the runtimes'
 * state by the preflight, then found in the hierarchy. */
static int add_container(struct record_opts *opts, bool pod, const char *arg, char *err, size_t errlen)
{
	if (!arg[0])
		return errorf(err, errlen, pod ? "empty pod uid" : "empty container id or name");
	if (strlen(arg) > RUNTIME_NAME_MAX)
		return errorf(err, errlen, "%s name too long (%zu bytes; at most %d)", pod ? "pod" : "container",
			      strlen(arg), RUNTIME_NAME_MAX);
	if (scope__add_cgroup_of(&opts->scope, pod ? SCOPE_CGROUP_POD : SCOPE_CGROUP_CONTAINER, arg) < 0)
		return errorf(err, errlen, "out of memory");
	return 0;
}

int record_opts__parse_common(struct record_opts *opts, int c, const char *arg, char *err, size_t errlen)
{
	uint64_t v;

	switch (c) {
	case 'a':
		opts->all = true;
		return 0;
	case 'u':
		return scope__add_uids(&opts->scope, arg, err, errlen) < 0 ? -EINVAL : 0;
	case 'p':
		return scope__add_pids(&opts->scope, arg, err, errlen) < 0 ? -EINVAL : 0;
	case 'G':
		if (!arg[0])
			return errorf(err, errlen, "empty cgroup name");
		if (scope__add_cgroup(&opts->scope, arg) < 0)
			return errorf(err, errlen, "out of memory");
		return 0;
	case RECORD_OPT_CONTAINER:
	case RECORD_OPT_POD:
		return add_container(opts, c == RECORD_OPT_POD, arg, err, errlen);
	case 'e':
		return parse_events(opts, arg, err, errlen);
	case 'F':
		opts->freq_given = true;
		if (!strcmp(arg, "max")) {
			opts->freq_max = true;
			return 0;
		}
		if (parse_u64(arg, 0, &v) < 0 || v == 0)
			return errorf(err, errlen, "bad frequency '%s': give samples per second (e.g. -F 999) or 'max'", arg);
		opts->freq = v;
		return 0;
	case 'c':
		opts->period_given = true;
		if (parse_u64(arg, 0, &v) < 0 || v == 0)
			return errorf(err, errlen, "bad period '%s': give a positive event count", arg);
		opts->period = v;
		return 0;
	case 'g':
		return parse_call_graph(opts, arg, err, errlen) < 0 ? -EINVAL : 0;
	case 'm':
		if (parse_u64(arg, 0, &v) < 0 || v == 0 || (v & (v - 1)) || v > record_opts__max_mmap_pages())
			return errorf(err, errlen, "bad ring buffer size '%s': give a power of two number of pages "
				      "from 1 to %" PRIu64 " (e.g. -m 256)", arg, record_opts__max_mmap_pages());
		opts->mmap_pages = (unsigned int)v;
		opts->mmap_given = true;
		return 0;
	case RECORD_OPT_CONFIG:
		opts->config = arg;
		return 0;
	}
	return -ENOENT;
}

int record_opts__finish_common(struct record_opts *opts, char *err, size_t errlen)
{
	if (opts->freq_given && opts->period_given)
		return errorf(err, errlen, "-F and -c exclude each other: sample by frequency or by period, not both");
	if (opts->period_given)
		opts->freq = 0;
	if (opts->all && scope__narrowed(&opts->scope))
		return errorf(err, errlen, "-a records every task: it cannot be combined with --uid, --cgroup, --container, "
			      "--pod or --pid");
	opts->scope.all = opts->all;
	return 0;
}

enum { OPT_RUN_AS = RECORD_OPT_CONFIG + 1, OPT_OFF_CPU, OPT_OFF_CPU_MAX_RATE, OPT_NO_PYTHON_CALLERS };

static const struct option record_longopts[] = {
	{ "all", no_argument, NULL, 'a' },
	{ "uid", required_argument, NULL, 'u' },
	{ "cgroup", required_argument, NULL, 'G' },
	{ "pid", required_argument, NULL, 'p' },
	RECORD_SCOPE_LONGOPTS,
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "event", required_argument, NULL, 'e' },
	{ "freq", required_argument, NULL, 'F' },
	{ "count", required_argument, NULL, 'c' },
	{ "call-graph", optional_argument, NULL, 'g' },
	{ "mmap-pages", required_argument, NULL, 'm' },
	{ "output", required_argument, NULL, 'o' },
	{ "duration", required_argument, NULL, 'd' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "run-as", required_argument, NULL, OPT_RUN_AS },
	{ "off-cpu", no_argument, NULL, OPT_OFF_CPU },
	{ "off-cpu-max-rate", required_argument, NULL, OPT_OFF_CPU_MAX_RATE },
	{ "no-python-callers", no_argument, NULL, OPT_NO_PYTHON_CALLERS },
	{ "config", required_argument, NULL, RECORD_OPT_CONFIG },
	{ "help", no_argument, NULL, 'h' },
	{ 0 }
};

/* One of prof record's own options (not shared with top): 0, 1 for -h, or an error. */
static int record_only_opt(struct record_opts *opts, int c, char **argv, char *err, size_t errlen)
{
	switch (c) {
	case 'o':
		if (!optarg[0])
			return errorf(err, errlen, "empty output file name");
		opts->output = optarg;
		opts->output_given = true;
		break;
	case 'd': {
		char *end;
		double d = strtod(optarg, &end);
		if (*end || !(d > 0) || !isfinite(d) || d > 1e9)
			return errorf(err, errlen, "bad duration '%s': give seconds, e.g. --duration 10 or 0.5", optarg);
		opts->duration = d;
		break;
	}
	case 'q':
		opts->quiet = true;
		break;
	case 'v':
		opts->verbose = true;
		break;
	case OPT_RUN_AS:
		if (!optarg[0])
			return errorf(err, errlen, "empty --run-as user");
		opts->run_as = optarg;
		break;
	case OPT_OFF_CPU:
		opts->off_cpu = true;
		break;
	case OPT_NO_PYTHON_CALLERS:
		opts->no_python_chains = true;
		break;
	case OPT_OFF_CPU_MAX_RATE: {
		uint64_t v;

		if (parse_u64(optarg, 0, &v) < 0 || v > 100000000)
			return errorf(err, errlen, "bad --off-cpu-max-rate '%s': give stack samples per CPU per "
				      "second (e.g. 10000), or 0 for a stack at every switch", optarg);
		opts->off_cpu_max_rate = v ? (uint32_t)v : RECORD_OFFCPU_UNBOUNDED;
		break;
	}
	case 'h':
		return 1;
	case ':':
	default:
		return getopt_error(c, argv, "prof record", err, errlen);
	}
	return 0;
}

/* The options taken together, once all are read: 0 or an error. */
static int record_opts_check(struct record_opts *opts, int argc, char **argv, char *err, size_t errlen)
{
	int r = record_opts__finish_common(opts, err, errlen);

	if (r < 0)
		return r;
	if (opts->off_cpu_max_rate && !opts->off_cpu)
		return errorf(err, errlen, "--off-cpu-max-rate bounds --off-cpu's stacks: give --off-cpu too");
	if (optind < argc) {
		opts->argv = argv + optind;
		opts->argc = argc - optind;
	}
	if (!opts->all && !opts->argv && !scope__narrowed(&opts->scope))
		return errorf(err, errlen, "nothing to record: give a command after '--', a scope (--uid, --cgroup, "
			      "--container, --pod, --pid), or -a for the whole host");
	if (opts->run_as && !opts->argv)
		return errorf(err, errlen, "--run-as needs a command to run");
	return 0;
}

int record_opts__parse(struct record_opts *opts, int argc, char **argv, char *err, size_t errlen)
{
	int c, r;

	optind = 0;     /* full re-initialisation: parse may be called more than once */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:au:G:p:e:F:c:gm:o:d:qvh", record_longopts, NULL)) != -1) {
		r = record_opts__parse_common(opts, c, record_opts__call_graph_arg(c, optarg, argc, argv), err, errlen);
		if (r == -ENOENT)
			r = record_only_opt(opts, c, argv, err, errlen);
		if (r != 0)
			return r;
	}
	return record_opts_check(opts, argc, argv, err, errlen);
}
