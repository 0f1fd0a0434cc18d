/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <perf/evsel.h>

#include "prof/record/cgroup_sampling.h"
#include "prof/offcpu/offcpu_events.h"

struct offcpu_events {
	struct perf_evlist *evlist;     /* borrowed: it owns evsel once added */
	struct perf_evsel *evsel;
	struct cgroup_sampling *by_cgroup;      /* instead of evsel */
	int nr_cpus;
	int *cpu_nr;                    /* [index]: the CPU's number */
	uint64_t *ids;
	size_t nr_ids;
	int *fds;                       /* evsel's per CPU, found by id (libperf keeps them) */
	uint64_t *period;               /* [index]: the period now (1: every switch) */
};

/* The CPUs' numbers and periods (1), for offcpu_events__set_period. */
static int init_cpus(struct offcpu_events *o, const int *cpus, int n)
{
	o->nr_cpus = n;
	o->cpu_nr = calloc((size_t)(n ? n : 1), sizeof(int));
	o->period = calloc((size_t)(n ? n : 1), sizeof(uint64_t));
	if (!o->cpu_nr || !o->period)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		o->cpu_nr[i] = cpus[i];
		o->period[i] = 1;
	}
	return 0;
}

/* The sampling event's attr as software event config, every one sampled, disabled. */
static struct perf_event_attr period_one(const struct perf_event_attr *sampling, uint64_t config)
{
	struct perf_event_attr a = *sampling;

	a.type = PERF_TYPE_SOFTWARE;
	a.config = config;
	a.freq = 0;
	a.sample_period = 1;
	a.disabled = 1;
	return a;
}

static void switch_attr(const struct perf_event_attr *sampling, struct perf_event_attr *ret)
{
	/*
	 * It fires in the task switching out, before the switch: its call chain is that
	 * task's stack there (kernel: __schedule and what led to it; user: the call that
	 * blocked, or the code preempted).  Period 1: every switch, or the interval that
	 * follows has no stack.
	 */
	struct perf_event_attr a = period_one(sampling, PERF_COUNT_SW_CONTEXT_SWITCHES);

	a.exclude_user = 0;
	/* it fires in the kernel (schedule()): kept away from kernel addresses, the
	 * call chain is the user's only and offcpu.h moves the ip to its leaf */
	a.exclude_kernel = 0;
	a.exclude_callchain_kernel = sampling->exclude_kernel;
	/*
	 * No PERF_SAMPLE_PERIOD: with it, a software event of a fixed period samples every
	 * event whatever its period (perf_swevent_event()), and --off-cpu-max-rate's 1 in N
	 * (PERF_EVENT_IOC_PERIOD) needs the period to count.  The fields before it (id,
	 * ip, tid, time, cpu) are where the sampling events have them; offcpu.c puts a
	 * period back into the copy it keeps, which then has the sampling events' layout.
	 */
	a.sample_type &= ~(uint64_t)PERF_SAMPLE_PERIOD;
	*ret = a;
}

int offcpu_events__open(struct perf_evlist *evlist, struct perf_cpu_map *cpus, struct perf_thread_map *threads,
			const struct perf_event_attr *sampling, struct offcpu_events **ret)
{
	struct offcpu_events *o = calloc(1, sizeof(*o));
	struct perf_event_attr a;
	int err;

	if (!o)
		return -ENOMEM;
	switch_attr(sampling, &a);
	o->evsel = perf_evsel__new(&a);
	if (!o->evsel) {
		free(o);
		return -ENOMEM;
	}
	o->evlist = evlist;
	{
		int n = perf_cpu_map__nr(cpus), nrs[4096];

		if (n > 4096 || n < 0) {
			perf_evsel__delete(o->evsel);
			free(o);
			return -E2BIG;
		}
		for (int i = 0; i < n; i++)
			nrs[i] = perf_cpu_map__cpu(cpus, i).cpu;
		if (init_cpus(o, nrs, n) < 0) {
			perf_evsel__delete(o->evsel);
			offcpu_events__free(o);
			return -ENOMEM;
		}
	}
	perf_evlist__add(evlist, o->evsel);
	err = perf_evsel__open(o->evsel, cpus, threads);
	if (err < 0) {
		perf_evlist__remove(evlist, o->evsel);
		perf_evsel__delete(o->evsel);
		o->evsel = NULL;
		offcpu_events__free(o);
		return err;
	}
	*ret = o;
	return 0;
}

int offcpu_events__open_by_cgroup(const struct perf_event_attr *sampling, const int *cgroup_fds, size_t nr_cgroups,
				  const int *cpus, size_t nr_cpus, struct offcpu_events **ret)
{
	struct offcpu_events *o = calloc(1, sizeof(*o));
	struct perf_event_attr a;
	int err;

	if (!o)
		return -ENOMEM;
	switch_attr(sampling, &a);
	err = init_cpus(o, cpus, (int)nr_cpus);
	if (err == 0)
		err = cgroup_sampling__open(&a, cgroup_fds, nr_cgroups, cpus, nr_cpus, &o->by_cgroup);
	if (err < 0) {
		offcpu_events__free(o);
		return err;
	}
	*ret = o;
	return 0;
}

int offcpu_events__redirect(struct offcpu_events *o, const int *out_fds)
{
	return o && o->by_cgroup ? cgroup_sampling__redirect(o->by_cgroup, out_fds) : 0;
}

void offcpu_events__enable(struct offcpu_events *o, bool on)
{
	if (!o || !o->by_cgroup)
		return;
	if (on)
		cgroup_sampling__enable(o->by_cgroup);
	else
		cgroup_sampling__disable(o->by_cgroup);
}

void offcpu_events__window(struct offcpu_events *o, bool on)
{
	if (!o)
		return;
	if (o->by_cgroup)
		offcpu_events__enable(o, on);
	else if (on)
		perf_evsel__enable(o->evsel);
	else
		perf_evsel__disable(o->evsel);
}

struct offcpu_events *offcpu_events__free(struct offcpu_events *o)
{
	if (!o)
		return NULL;
	free(o->ids);   /* the evsel is the evlist's, and so are fds' descriptors */
	free(o->fds);
	free(o->cpu_nr);
	free(o->period);
	cgroup_sampling__free(o->by_cgroup);
	free(o);
	return NULL;
}

/* The evsel's descriptor on each CPU, by its id (libperf has no call that gives them):
 * the period is changed with an ioctl on it. */
static int find_fds(struct offcpu_events *o)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int found = 0;

	o->fds = malloc((size_t)(o->nr_cpus ? o->nr_cpus : 1) * sizeof(int));
	if (!o->fds || !d) {
		if (d)
			closedir(d);
		return d ? -ENOMEM : -errno;
	}
	for (int c = 0; c < o->nr_cpus; c++)
		o->fds[c] = -1;
	while ((de = readdir(d))) {
		int fd = atoi(de->d_name);
		uint64_t id;

		if (de->d_name[0] == '.' || fd == dirfd(d) || ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0)
			continue;
		for (int c = 0; c < o->nr_cpus; c++)
			if (o->ids[c] == id && o->fds[c] < 0) {
				o->fds[c] = fd;
				found++;
			}
	}
	closedir(d);
	return found == o->nr_cpus ? 0 : -ENOENT;
}

int offcpu_events__set_period(struct offcpu_events *o, int cpu, uint64_t period)
{
	int i;

	for (i = 0; o && i < o->nr_cpus && o->cpu_nr[i] != cpu; i++)
		;
	if (!o || i == o->nr_cpus || !period)
		return -EINVAL;
	if (o->period[i] == period)
		return 0;
	if (o->by_cgroup) {
		int err = cgroup_sampling__set_period(o->by_cgroup, (size_t)i, period);

		if (err < 0)
			return err;
	} else if (!o->fds || o->fds[i] < 0 || ioctl(o->fds[i], PERF_EVENT_IOC_PERIOD, &period) < 0) {
		return o->fds && o->fds[i] >= 0 ? -errno : -ENOENT;
	}
	o->period[i] = period;
	return 0;
}

int offcpu_events__read_ids(struct offcpu_events *o)
{
	if (o->by_cgroup) {
		size_t nr;
		const uint64_t *ids = cgroup_sampling__ids(o->by_cgroup, &nr);

		o->ids = malloc(nr * sizeof(uint64_t) + 1);
		if (!o->ids)
			return -ENOMEM;
		memcpy(o->ids, ids, nr * sizeof(uint64_t));
		o->nr_ids = nr;
		return 0;
	}
	o->ids = calloc((size_t)o->nr_cpus, sizeof(uint64_t));
	if (!o->ids)
		return -ENOMEM;
	o->nr_ids = (size_t)o->nr_cpus;
	for (int c = 0; c < o->nr_cpus; c++) {
		struct perf_counts_values v = { 0 };
		int err = perf_evsel__read(o->evsel, c, 0, &v);

		if (err < 0)
			return err;
		o->ids[c] = v.id;
	}
	return find_fds(o);
}

const uint64_t *offcpu_events__switch_ids(const struct offcpu_events *o, size_t *ret_nr)
{
	*ret_nr = o && o->ids ? o->nr_ids : 0;
	return o ? o->ids : NULL;
}

void offcpu_events__attrs(const struct perf_event_attr *sampling, struct perf_data_event out[2])
{
	static const uint64_t ids[2] = { OFFCPU_ID_RUNQ, OFFCPU_ID_BLOCKED };
	static const char *const names[2] = { OFFCPU_NAME_RUNQ, OFFCPU_NAME_BLOCKED };

	for (int i = 0; i < 2; i++) {
		/* as perf's offcpu-time: a software event of period 1, each sample's period
		 * its nanoseconds, named in EVENT_DESC */
		struct perf_event_attr a = period_one(sampling, PERF_COUNT_SW_BPF_OUTPUT);

		out[i] = (struct perf_data_event){ .attr = a, .name = names[i], .ids = &ids[i], .nr_ids = 1 };
	}
}
