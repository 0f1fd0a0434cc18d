/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "config.h"
#include "prof/sys/procfs.h"
#include "prof/perfdata/features.h"
#include "prof/base/util.h"

static int add_string(struct perf_writer *w, unsigned feat, const char *s)
{
	struct feat_buf b = { 0 };
	int r;

	feat_buf__string(&b, s);
	r = b.err ? b.err : perf_writer__add_feature(w, feat, b.data, b.len);
	feat_buf__release(&b);
	return r;
}

static int add_cpudesc(struct perf_writer *w)
{
	_cleanup_free_ char *info = NULL;
	const char *p, *nl;
	char desc[256];

	if (read_file_full(AT_FDCWD, "/proc/cpuinfo", 16u << 20, &info) < 0)
		return 0;
	p = strstr(info, "model name");
	if (!p || !(p = strchr(p, ':')))
		return 0;
	p++;
	while (*p == ' ' || *p == '\t')
		p++;
	nl = strchrnul(p, '\n');
	snprintf(desc, sizeof(desc), "%.*s", (int)(nl - p), p);
	return add_string(w, HEADER_CPUDESC, desc);
}

static int add_total_mem(struct perf_writer *w)
{
	_cleanup_free_ char *mi = NULL;
	uint64_t kb;

	if (read_file_full(AT_FDCWD, "/proc/meminfo", 1u << 20, &mi) < 0 ||
	    procfs__status_u64(mi, "MemTotal:", &kb) < 0)
		return 0;
	return perf_writer__add_feature(w, HEADER_TOTAL_MEM, &kb, sizeof(kb));
}

/* Where prof runs from, as perf writes its own (/proc/self/exe, util/header.c
 * write_cmdline): readers print the command line from it (hotspot's Summary, perf
 * report --header).  "prof" when the link cannot be read. */
static void exe_path(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);

	if (n <= 0 || (size_t)n >= len - 1) {
		snprintf(buf, len, "prof");
		return;
	}
	buf[n] = '\0';
	if (n > 10 && !strcmp(buf + n - 10, " (deleted)"))
		buf[n - 10] = '\0';
}

/* prof's path, the verb, then the verb's arguments (argv[0] is getopt's program
 * name: "record" or "prof", not written). */
static int add_cmdline(struct perf_writer *w, const struct features *f)
{
	struct feat_buf b = { 0 };
	char exe[PATH_MAX];
	int n = f->argc > 1 ? f->argc - 1 : 0;
	int r;

	exe_path(exe, sizeof(exe));
	feat_buf__u32(&b, (uint32_t)(1 + (f->verb != NULL) + n));
	feat_buf__string(&b, exe);
	if (f->verb)
		feat_buf__string(&b, f->verb);
	for (int i = 1; i <= n; i++)
		feat_buf__string(&b, f->argv[i]);
	r = b.err ? b.err : perf_writer__add_feature(w, HEADER_CMDLINE, b.data, b.len);
	feat_buf__release(&b);
	return r;
}

int features__add(struct perf_writer *w, const struct features *f)
{
	struct utsname uts;
	uint32_t nr[2];
	uint64_t times[2] = { f->first_sample_time, f->last_sample_time };
	struct timespec res;
	int r = 0;

	if (uname(&uts) == 0) {
		r = r ?: add_string(w, HEADER_HOSTNAME, uts.nodename);
		r = r ?: add_string(w, HEADER_OSRELEASE, uts.release);
		r = r ?: add_string(w, HEADER_ARCH, uts.machine);
	}
	r = r ?: add_string(w, HEADER_VERSION, PROF_VERSION " (prof)");
	nr[0] = (uint32_t)sysconf(_SC_NPROCESSORS_CONF);
	nr[1] = (uint32_t)sysconf(_SC_NPROCESSORS_ONLN);
	r = r ?: perf_writer__add_feature(w, HEADER_NRCPUS, nr, sizeof(nr));
	r = r ?: add_cpudesc(w);
	r = r ?: add_total_mem(w);
	r = r ?: add_cmdline(w, f);
	if (clock_getres(f->clockid, &res) == 0) {
		uint64_t ns = (uint64_t)res.tv_sec * 1000000000ull + (uint64_t)res.tv_nsec;
		r = r ?: perf_writer__add_feature(w, HEADER_CLOCKID, &ns, sizeof(ns));
	}
	if (f->first_sample_time)
		r = r ?: perf_writer__add_feature(w, HEADER_SAMPLE_TIME, times, sizeof(times));
	return r;
}
