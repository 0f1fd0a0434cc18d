/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * prof.conf (inih format): recording defaults in [record], the live aggregation's in
 * [aggregate], the sources of names in [symbols], the access policy in [policy], profd's in [daemon].  The system file may set all; a user's
 * file (and --config for a user who is not root) may not set [policy].  Errors name file:line.
 */
#ifndef PROF_CLI_CONFIG_H
#define PROF_CLI_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "prof/daemon/export_config.h"
#include "prof/scope/runtime_names.h"

#define CONFIG_MAX_LINE 200     /* inih's line buffer: longer lines are errors */
#define CONFIG_USER_MAX_FREQUENCY 10000 /* default [policy] user_max_frequency */
/* default [policy] user_off_cpu_max_rate: --off-cpu-max-rate's own default */
#define CONFIG_USER_OFF_CPU_MAX_RATE 10000

struct prof_config {
	/* [record] */
	char event[64];                 /* "" = the built-in default */
	uint64_t freq;
	bool callchain;
	unsigned int mmap_pages;
	char output[1024];              /* name pattern: %u user, %h host, %t time, %p pid */
	bool keep_objects;              /* copy objects with samples into the build-id cache */
	uint64_t keep_object_max;       /* ... bytes of one object */
	uint64_t keep_recording_max;    /* ... bytes one recording adds */
	uint64_t keep_cache_max;        /* ... bytes of the whole cache */
	uint32_t off_cpu_max_rate;      /* --off-cpu-max-rate's default (record_opts.h's
					 * encoding: 0 the built-in, RECORD_OFFCPU_UNBOUNDED none) */
	/* [containers]: where the runtimes keep their containers' names */
	struct runtime_dirs containers;
	/* [aggregate] */
	uint64_t max_stacks;            /* prof top's --max-stacks default (0: the engine's) */
	/* [policy] */
	char admin_group[64];           /* members may record any scope; "" = root only */
	bool user_kernel;               /* ordinary users get kernel samples and addresses */
	uint64_t user_max_frequency;    /* highest sampling rate (Hz per CPU) for ordinary users */
	uint32_t user_off_cpu_max_rate; /* highest --off-cpu-max-rate for ordinary users */
	/* [symbols]: the system file's, and a user's own file's (which a prof privileged
	 * for others ignores) */
	struct prof_symbols_config {
		char debuginfod_urls[CONFIG_MAX_LINE];  /* "" = unset */
		unsigned int debuginfod_timeout;        /* s, 0 = prof's default */
	} symbols, user_symbols;
	/* [daemon]: profd, and where prof's --daemon clients find it (the system file only) */
	struct prof_daemon_config {
		char event[64];
		uint64_t freq;
		bool callchain;
		bool python_frames;             /* with callchain: Python functions (profd(8)) */
		bool java_frames;               /* with callchain: Java methods (a stack copy per sample) */
		bool off_cpu;                   /* time off a CPU per tenant (profd(8)) */
		bool off_cpu_stacks;            /* ... with the call chain at the switch-out */
		uint64_t off_cpu_sample;        /* ... a switch-out stack in N, the switch event's
						 * period (1: all); every interval timed */
		uint64_t off_cpu_window;        /* ... read in windows of this many seconds */
		uint64_t off_cpu_period;        /* ... one every this many (window 0, or not
						 * below the period: always) */
		unsigned int mmap_pages;
		uint64_t bucket, fine_span, history;    /* seconds */
		uint64_t memory_max, disk_max, answers_memory_max;      /* bytes */
		uint64_t symbols_max;           /* bytes of sampled objects' symbol tables */
		uint64_t bucket_max_stacks;
		bool fsync;
		char state_dir[1024];
		char socket[108];               /* sun_path's size */
		char user[64];                  /* the daemon's user: clients trust only it or root */
		uint64_t max_clients, max_clients_per_uid, client_timeout;    /* timeout: seconds */
		struct export_config export;    /* pull_* and push_* keys */
	} daemon;
};

void config__defaults(struct prof_config *c);

/*
 * Parse prof.conf text.  allow_policy: whether [policy] keys are accepted (system
 * file).  On error returns -EINVAL with "file:line: what" in err; c may be partly
 * updated.
 */
int config__parse(struct prof_config *c, const char *text, const char *filename, bool allow_policy,
		  char *err, size_t errlen);

/*
 * Read and parse a file.  must_be_safe: refuse (-EPERM) a file not owned by root or
 * writable by group or others, as a privileged prof must.  -ENOENT when missing
 * (callers skip optional files).
 */
int config__load(struct prof_config *c, const char *path, bool allow_policy, bool must_be_safe,
		 char *err, size_t errlen);

/* The same from an open file (opened O_NONBLOCK, so a FIFO never blocks: it is not a
 * regular file and is refused); path names it in messages.  fd is not closed. */
int config__load_fd(struct prof_config *c, int fd, const char *path, bool allow_policy, bool must_be_safe,
		    char *err, size_t errlen);

/* A size: digits and an optional K, M, G or T (powers of 1024), at most 2^50.
 * 0 or -EINVAL. */
int config__parse_size(const char *v, uint64_t *ret);

/* Expand the output pattern into buf.  0 or -ENAMETOOLONG. */
int config__expand_output(const char *pattern, char *buf, size_t len);

#endif
