/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `prof record` command line. */
#ifndef PROF_CLI_RECORD_OPTS_H
#define PROF_CLI_RECORD_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/record/event_spec.h"
#include "prof/scope/scope.h"

#define RECORD_DEFAULT_FREQ 4000
#define RECORD_DEFAULT_PAGES 128        /* 512 KiB per CPU, perf's default for users */
#define RECORD_DWARF_PAGES 1024        /* the least with --call-graph dwarf (4 MiB per CPU) */
#define RECORD_DEFAULT_OUTPUT "perf.data"
#define RECORD_MAX_EVENTS 8             /* sampling events of one recording (-e a,b,...) */

struct record_opts {
	bool all;               /* -a: every task on the host */
	struct scope scope;     /* --uid/--cgroup/--container/--pod/--pid (all also mirrors -a) */
	bool freq_max;          /* -F max */
	uint64_t freq;          /* samples per second; 0 when a period is used */
	uint64_t period;        /* -c */
	struct event_spec events[RECORD_MAX_EVENTS];    /* the sampling events, in -e's order */
	size_t nr_events;       /* at least 1 */
	bool event_given;       /* -e was given: fall back only if it is the default */
	bool callchain;         /* -g, --call-graph */
	bool dwarf;             /* --call-graph dwarf: user stacks unwound while recording */
	bool no_python_chains;  /* --no-python-callers: no BPF reading of Python callers */
	uint32_t stack_size;    /* ... bytes of user stack copied per sample */
	uint32_t java_stack;    /* -g: bytes of user stack (and rbp, rsp, rip) asked for, for the
				 * callers of a Java leaf (jvm/frames.h), stripped before the
				 * file; 0: none (prof top, profd, --off-cpu) */
	unsigned int mmap_pages;
	bool mmap_auto;         /* mmap_pages sized to the rate: may fall back to the default */
	const char *output;
	double duration;        /* seconds; 0 = until the workload ends or a signal */
	bool quiet;             /* -q: no live status, no summary */
	bool verbose;           /* -v: more detail in the summary */
	const char *run_as;     /* --run-as USER|self; NULL: the --uid user when privileged */
	const char *config;     /* --config FILE */
	/* what the command line set, so the configuration fills in only the rest */
	bool freq_given, period_given, mmap_given, output_given;
	bool no_kernel;         /* policy: no kernel samples, call chains or maps */
	bool off_cpu;           /* --off-cpu: the scope's time off a CPU (offcpu.h) */
	bool off_cpu_by_uid;    /* profd: holders by uid, never "self" (its scope is the host) */
	uint64_t off_cpu_min_period; /* profd's off_cpu_sample: a switch-out stack in at least N
				      * (offcpu_config.min_period); 0, 1: every one */
	bool off_cpu_windowed;  /* profd's duty cycle: the switch records from an event of their
				 * own, on only in windows (session__offcpu_window) */
	uint32_t off_cpu_max_rate;      /* --off-cpu-max-rate: stack samples per CPU per second
					 * before 1 in N; 0: the default, RECORD_OFFCPU_UNBOUNDED: none */
	bool track_uids;        /* the set*uid() tracepoints without --uid (profd serves users
				 * only when a process becoming root cannot go unseen) */
	char **argv;            /* workload, NULL-terminated; NULL when none */
	int argc;
};

/* Fill in the defaults. */
void record_opts__init(struct record_opts *opts);
/* Free what parsing allocated. */
void record_opts__release(struct record_opts *opts);

/*
 * Parse argv (argv[0] is the verb or program name) into opts.  On error returns
 * -EINVAL and leaves a one-line message in err.  Returns 1 when --help was asked.
 * opts keeps pointers into argv.
 */
int record_opts__parse(struct record_opts *opts, int argc, char **argv, char *err, size_t errlen);

/* The largest -m (and mmap_pages) the ring buffers can have: 2 GiB of pages. */
uint64_t record_opts__max_mmap_pages(void);

/*
 * Ring buffer pages per CPU for o's rate when neither -m nor the configuration says:
 * room for RECORD_RING_MS of samples between drains, from RECORD_DEFAULT_PAGES (the
 * one size every user may lock) up to RECORD_AUTO_MAX_PAGES, and at most
 * RECORD_AUTO_MAX_TOTAL bytes over nr_cpus.
 */
#define RECORD_RING_MS 150
#define RECORD_AUTO_MAX_PAGES 2048u     /* 8 MiB per CPU */
#define RECORD_AUTO_MAX_TOTAL (256ull << 20)
unsigned int record_opts__auto_pages(const struct record_opts *o, long nr_cpus);

/*
 * The options prof record shares with prof top (scope, event, sampling, ring
 * buffer, --config): c is getopt's value for them ('a', 'u', 'G', 'p', 'e', 'F', 'c',
 * 'g' with fp|dwarf[,SIZE], 'm', RECORD_OPT_CONFIG, and RECORD_SCOPE_LONGOPTS').  0 when handled, -ENOENT when c is not one of
 * them, -EINVAL with a message in err.  finish_common checks how they combine.
 */
#define RECORD_OPT_CONFIG 300
#define RECORD_OPT_CONTAINER 310        /* --container ID */
#define RECORD_OPT_POD 311              /* --pod UID */
#define RECORD_SCOPE_LONGOPTS                                                          \
	{ "container", required_argument, NULL, RECORD_OPT_CONTAINER },                \
	{ "pod", required_argument, NULL, RECORD_OPT_POD }
int record_opts__parse_common(struct record_opts *opts, int c, const char *arg, char *err, size_t errlen);
int record_opts__finish_common(struct record_opts *opts, char *err, size_t errlen);
/*
 * The value of option c: optarg, or for a bare --call-graph the next word when it
 * is a mode (perf's "--call-graph dwarf"), which getopt's optind then skips.
 */
const char *record_opts__call_graph_arg(int c, const char *arg, int argc, char **argv);

/* The --help text. */
extern const char record_opts__usage[];

#define RECORD_OFFCPU_UNBOUNDED UINT32_MAX

#endif
