/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "prof/scope/cgroup_tree.h"
#include "prof/record/cgroup_sampling.h"
#include "prof/scope/scope.h"

struct cgroup_sampling {
	size_t nr_cpus, nr_cgroups;
	int *fds;                       /* [cpu * nr_cgroups + cgroup] */
	uint64_t *ids;
};

static int perf_event_open(struct perf_event_attr *attr, int pid, int cpu, unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, -1, flags);
}

static size_t nr_fds(const struct cgroup_sampling *c)
{
	return c->nr_cpus * c->nr_cgroups;
}

struct cgroup_sampling *cgroup_sampling__free(struct cgroup_sampling *c)
{
	if (!c)
		return NULL;
	for (size_t i = 0; c->fds && i < nr_fds(c); i++)
		if (c->fds[i] >= 0)
			close(c->fds[i]);
	free(c->fds);
	free(c->ids);
	free(c);
	return NULL;
}

int cgroup_sampling__open(const struct perf_event_attr *attr, const int *cgroup_fds, size_t nr_cgroups,
			  const int *cpus, size_t nr_cpus, struct cgroup_sampling **ret)
{
	struct cgroup_sampling *c = calloc(1, sizeof(*c));
	size_t n = nr_cpus * nr_cgroups;

	if (!c)
		return -ENOMEM;
	c->nr_cpus = nr_cpus;
	c->nr_cgroups = nr_cgroups;
	c->fds = malloc((n ? n : 1) * sizeof(*c->fds));
	c->ids = calloc(n ? n : 1, sizeof(*c->ids));
	if (!c->fds || !c->ids) {
		cgroup_sampling__free(c);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		c->fds[i] = -1;
	for (size_t cpu = 0; cpu < nr_cpus; cpu++) {
		for (size_t g = 0; g < nr_cgroups; g++) {
			struct perf_event_attr a = *attr;
			int fd = perf_event_open(&a, cgroup_fds[g], cpus[cpu],
						 PERF_FLAG_PID_CGROUP | PERF_FLAG_FD_CLOEXEC);

			if (fd < 0 || ioctl(fd, PERF_EVENT_IOC_ID, &c->ids[cpu * nr_cgroups + g]) < 0) {
				int err = -errno;

				if (fd >= 0)
					close(fd);
				cgroup_sampling__free(c);
				return err;
			}
			c->fds[cpu * nr_cgroups + g] = fd;
		}
	}
	*ret = c;
	return 0;
}

int cgroup_sampling__redirect(struct cgroup_sampling *c, const int *out_fds)
{
	for (size_t i = 0; i < nr_fds(c); i++)
		if (ioctl(c->fds[i], PERF_EVENT_IOC_SET_OUTPUT, out_fds[i / c->nr_cgroups]) < 0)
			return -errno;
	return 0;
}

const uint64_t *cgroup_sampling__ids(const struct cgroup_sampling *c, size_t *ret_nr)
{
	*ret_nr = nr_fds(c);
	return c->ids;
}

static int each_ioctl(struct cgroup_sampling *c, unsigned long req)
{
	int err = 0;

	for (size_t i = 0; i < nr_fds(c); i++)
		if (ioctl(c->fds[i], req, 0) < 0 && !err)
			err = -errno;
	return err;
}

int cgroup_sampling__set_period(struct cgroup_sampling *c, size_t cpu, uint64_t period)
{
	if (cpu >= c->nr_cpus)
		return -EINVAL;
	for (size_t g = 0; g < c->nr_cgroups; g++)
		if (ioctl(c->fds[cpu * c->nr_cgroups + g], PERF_EVENT_IOC_PERIOD, &period) < 0)
			return -errno;
	return 0;
}

int cgroup_sampling__enable(struct cgroup_sampling *c)
{
	return each_ioctl(c, PERF_EVENT_IOC_ENABLE);
}

int cgroup_sampling__disable(struct cgroup_sampling *c)
{
	return each_ioctl(c, PERF_EVENT_IOC_DISABLE);
}

size_t cgroup_sampling__outermost(const char *const *paths, size_t n, bool *keep)
{
	size_t kept = 0;

	for (size_t i = 0; i < n; i++) {
		keep[i] = true;
		for (size_t j = 0; j < n && keep[i]; j++) {
			if (i == j || !cgroup_tree__path_under(paths[i], paths[j]))
				continue;
			/* of two equal paths, the first is kept */
			if (strcmp(paths[i], paths[j]) || j < i)
				keep[i] = false;
		}
		kept += keep[i];
	}
	return kept;
}
