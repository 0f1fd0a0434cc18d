/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <perf/core.h>
#include <perf/event.h>
#include <perf/cpumap.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/mmap.h>
#include <perf/threadmap.h>

#include "prof/record/cgroup_sampling.h"
#include "prof/record/events.h"
#include "prof/offcpu/offcpu_events.h"
#include "prof/analyze/unwinder.h"
#include "prof/jvm/frames.h"
#include "prof/base/idmap.h"
#include "prof/base/util.h"
#include "prof/base/vec.h"
#include "events_internal.h"

static int max_sample_rate(uint64_t *ret)
{
	_cleanup_free_ char *buf = NULL;
	char *end;

	if (read_file_full(AT_FDCWD, "/proc/sys/kernel/perf_event_max_sample_rate", 64, &buf) < 0)
		return -ENOENT;
	*ret = strtoull(buf, &end, 10);
	return *ret ? 0 : -EINVAL;
}

static void sampling_attr(const struct record_opts *o, const struct event_spec *e, uint64_t freq,
			  struct perf_event_attr *a)
{
	*a = (struct perf_event_attr){
		.size = sizeof(*a),
		.type = e->type,
		.config = e->config,
		.sample_type = SAMPLE_TYPE_BASE | (o->callchain ? PERF_SAMPLE_CALLCHAIN : 0),
		.read_format = PERF_FORMAT_ID,
		.disabled = 1,
		.exclude_user = e->exclude_user,
		.exclude_kernel = e->exclude_kernel || o->no_kernel,
		.exclude_callchain_kernel = o->no_kernel,
		.sample_id_all = 1,
		/* CLOCK_MONOTONIC, so prof can compare record times with its own clock
		 * (ordering rounds, stamping synthesized records). */
		.use_clockid = 1,
		.clockid = CLOCK_MONOTONIC,
	};
	if (o->dwarf) {
		/*
		 * As perf's --call-graph dwarf: the user registers and stack, unwound by
		 * prof; the kernel's callchain gives the kernel part only (none at all
		 * for those kept away from kernel addresses).
		 */
		a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		if (o->no_kernel)
			a->sample_type &= ~(uint64_t)PERF_SAMPLE_CALLCHAIN;
		a->exclude_callchain_user = 1;
		a->sample_regs_user = unwinder__regs_mask();
		a->sample_stack_user = o->stack_size;
	} else if (o->callchain && o->java_stack) {
		/* -g: the kernel's frame-pointer chain proves nothing through JIT code; the
		 * leaf's rbp, rsp, rip and the top of its stack let prof walk a JVM's
		 * frames as with dwarf (jvm/frames.h), the rest stripped before the file */
		a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = JAVA_G_REGS;
		a->sample_stack_user = o->java_stack;
	}
	if (freq) {
		a->freq = 1;
		a->sample_freq = freq;
	} else {
		a->sample_period = o->period;
	}
}

static void sideband_attr(const struct perf_event_attr *s, bool off_cpu, struct perf_event_attr *a)
{
	*a = (struct perf_event_attr){
		.size = sizeof(*a),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.sample_type = s->sample_type & ~(uint64_t)(PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
							     PERF_SAMPLE_STACK_USER),
		.read_format = PERF_FORMAT_ID,
		.disabled = 1,
		.sample_id_all = 1,
		.use_clockid = 1,
		.clockid = CLOCK_MONOTONIC,
		.mmap = 1,
		.mmap2 = 1,
		.comm = 1,
		.comm_exec = 1,
		.task = 1,
		.namespaces = 1,
		.cgroup = 1,
		/* --off-cpu: PERF_RECORD_SWITCH_CPU_WIDE, who ran on each CPU when (offcpu.h) */
		.context_switch = off_cpu,
		/*
		 * No attr.build_id: on the kernels here (6.18), an event with it opened
		 * after another tool's makes the kernel flag that tool's MMAP2 records as
		 * carrying a build id when they carry inode data, and perf then aborts
		 * (util/build-id.c) when it reads them.  Inode data identifies files too.
		 */
		.sample_period = 1,
	};
}

/* off_cpu_windowed: the switch records alone, with the sideband's fields, into the same
 * rings (they never reach the file: offcpu.c consumes them). */
static int open_switch_records(struct events *e, const struct perf_event_attr *sb)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_DUMMY,
		.sample_type = sb->sample_type, .read_format = PERF_FORMAT_ID, .disabled = 1,
		.sample_id_all = 1, .use_clockid = 1, .clockid = CLOCK_MONOTONIC, .context_switch = 1,
		.sample_period = 1,
	};

	e->switch_sel = perf_evsel__new(&a);
	return e->switch_sel ? events__open_evsel(e, e->switch_sel) : -ENOMEM;
}

static bool is_no_pmu(int err)
{
	/* What the kernel answers for a hardware event where there is no PMU (perf's
	 * evsel__fallback list). */
	return err == -ENOENT || err == -ENXIO || err == -ENODEV || err == -EOPNOTSUPP ||
	       err == -EINVAL;
}

/* Add to the evlist (which gives it the evlist's maps) and open on every CPU. */
int events__open_evsel(struct events *e, struct perf_evsel *evsel)
{
	int err;

	perf_evlist__add(e->evlist, evsel);
	err = perf_evsel__open(evsel, e->cpus, e->threads);

	if (err == -EMFILE) {
		/* perf's remedy: lift the soft fd limit to the hard one and retry. */
		struct rlimit rl;
		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
			rl.rlim_cur = rl.rlim_max;
			if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
				err = perf_evsel__open(evsel, e->cpus, e->threads);
		}
	}
	return err;
}

/* Sampling event i (its spec in e->info.events[i]) at freq, added and opened. */
static int open_one(struct events *e, const struct record_opts *o, size_t i, uint64_t freq)
{
	struct perf_event_attr attr;
	int err;

	sampling_attr(o, &e->info.events[i], freq, &attr);
	e->attrs[i] = attr;
	e->sampling[i] = perf_evsel__new(&attr);
	if (!e->sampling[i])
		return -ENOMEM;
	err = events__open_evsel(e, e->sampling[i]);
	if (err < 0 && o->nr_events == 1 && event_spec__is_hardware(&e->info.events[i]) && is_no_pmu(err)) {
		/* No PMU (VMs, containers): sample on the CPU clock, as perf does (for
		 * one event: of several, cpu-clock might be another of them). */
		perf_evlist__remove(e->evlist, e->sampling[i]);
		perf_evsel__delete(e->sampling[i]);
		event_spec__cpu_clock(&e->info.events[i]);
		e->info.fell_back = true;
		sampling_attr(o, &e->info.events[i], freq, &attr);
		e->attrs[i] = attr;
		e->sampling[i] = perf_evsel__new(&attr);
		if (!e->sampling[i])
			return -ENOMEM;
		err = events__open_evsel(e, e->sampling[i]);
	}
	return err;
}

/* ---- the kernel's cgroup filter ---------------------------------------------------- */

/* More cgroups than this in one scope: system-wide (a union that wide filters little). */
#define FILTER_MAX_CGROUPS 64

/* Can the scope be filtered by cgroup in the kernel: cgroups, and nothing else? */
static bool cgroups_only(const struct record_opts *o)
{
	const struct scope *s = &o->scope;

	return s->nr_cgroups && !s->all && !s->nr_uids && !s->nr_pids && !s->workload;
}

/* The outermost scope cgroups' directories, opened below root_fd.  The count, or -errno. */
static int open_cgroup_dirs(const struct record_opts *o, int root_fd, int *fds)
{
	const struct scope *s = &o->scope;
	const char *paths[FILTER_MAX_CGROUPS];
	bool keep[FILTER_MAX_CGROUPS];
	int n = 0;

	if (s->nr_cgroups > FILTER_MAX_CGROUPS)
		return -E2BIG;
	for (size_t i = 0; i < s->nr_cgroups; i++)
		paths[i] = s->cgroups[i].path ? s->cgroups[i].path : "/";
	cgroup_sampling__outermost(paths, s->nr_cgroups, keep);
	for (size_t i = 0; i < s->nr_cgroups; i++) {
		const char *rel = paths[i][1] ? paths[i] + 1 : ".";
		int fd;

		if (!keep[i])
			continue;
		fd = openat(root_fd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0) {
			int err = -errno;

			while (n)
				close(fds[--n]);
			return err;
		}
		fds[n++] = fd;
	}
	return n;
}

/*
 * Sampling event i on each CPU for each cgroup; the hardware fallback as open_one's.
 * Returns 0, or -errno.
 */
static int open_one_by_cgroup(struct events *e, const struct record_opts *o, size_t i, uint64_t freq,
			      const int *dirs, size_t nr_dirs, const int *cpus)
{
	int n = perf_cpu_map__nr(e->cpus), err;

	sampling_attr(o, &e->info.events[i], freq, &e->attrs[i]);
	err = cgroup_sampling__open(&e->attrs[i], dirs, nr_dirs, cpus, (size_t)n, &e->by_cgroup[i]);
	if (err < 0 && o->nr_events == 1 && event_spec__is_hardware(&e->info.events[i]) && is_no_pmu(err)) {
		event_spec__cpu_clock(&e->info.events[i]);
		e->info.fell_back = true;
		sampling_attr(o, &e->info.events[i], freq, &e->attrs[i]);
		err = cgroup_sampling__open(&e->attrs[i], dirs, nr_dirs, cpus, (size_t)n, &e->by_cgroup[i]);
	}
	return err;
}

/* Every sampling event through the cgroup filter.  0, or -errno with none left open. */
static int open_by_cgroup(struct events *e, const struct record_opts *o, int root_fd, uint64_t freq,
			  size_t *ret_event)
{
	int dirs[FILTER_MAX_CGROUPS], cpus[4096], nr_dirs, n = perf_cpu_map__nr(e->cpus), err = 0;
	struct events_info saved = e->info;

	if (n > (int)ARRAY_SIZE(cpus))
		return -E2BIG;
	for (int c = 0; c < n; c++)
		cpus[c] = perf_cpu_map__cpu(e->cpus, c).cpu;
	nr_dirs = open_cgroup_dirs(o, root_fd, dirs);
	if (nr_dirs < 0)
		return nr_dirs;
	for (size_t i = 0; i < o->nr_events && i < RECORD_MAX_EVENTS && !err; i++) {
		e->info.events[i] = o->events[i];
		*ret_event = i;
		err = open_one_by_cgroup(e, o, i, freq, dirs, (size_t)nr_dirs, cpus);
		if (!err)
			e->info.nr_events = i + 1;
	}
	if (!err && o->off_cpu)
		err = offcpu_events__open_by_cgroup(&e->attrs[0], dirs, (size_t)nr_dirs, cpus, (size_t)n, &e->offcpu);
	for (int k = 0; k < nr_dirs; k++)
		close(dirs[k]);
	if (err < 0) {
		for (size_t i = 0; i < RECORD_MAX_EVENTS; i++)
			e->by_cgroup[i] = cgroup_sampling__free(e->by_cgroup[i]);
		e->offcpu = offcpu_events__free(e->offcpu);
		e->info = saved;
		return err;
	}
	e->info.filter_cgroups = (size_t)nr_dirs;
	return 0;
}

/* Is fd a perf event's (told by its link, before any ioctl on it), and its sample id. */
bool perf_event_fd__id(int fd, uint64_t *ret)
{
	char path[40], link[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return false;
	link[n] = '\0';
	return !strcmp(link, "anon_inode:[perf_event]") && ioctl(fd, PERF_EVENT_IOC_ID, ret) == 0;
}

/* The sideband's fd on each CPU. */
static int sideband_fds(const struct events *e, int *fds, int n)
{
	return events__fds_of_ids(e->ids[e->info.nr_events], (size_t)n, fds);
}

/* The cgroup events write into the sideband's ring on their CPU; their ids for the file. */

static int add_ids(struct idmap *m, const uint64_t *ids, size_t n, uint32_t kind)
{
	for (size_t i = 0; ids && i < n; i++)
		if (idmap__set(m, ids[i], kind) < 0)
			return -ENOMEM;
	return 0;
}

/*
 * Every sample id of this recording's events, once they are all read: the kernel's
 * sampling and sideband events (not offcpu-runq and offcpu-blocked, prof's own, which
 * the kernel never writes), the context-switch event, the sched and set*uid()
 * tracepoints.
 */
int events__collect_own_ids(struct events *e)
{
	const struct events_info *in = &e->info;
	int err;

	e->own_ids = idmap__new();
	if (!e->own_ids)
		return -ENOMEM;
	err = 0;
	for (size_t i = 0; i <= in->nr_events && !err; i++)
		err = add_ids(e->own_ids, e->events[i].ids, e->events[i].nr_ids, OWN_EVENT);
	if (!err)
		err = add_ids(e->own_ids, in->switch_ids, in->nr_switch_ids, OWN_SWITCH);
	if (!err)
		err = add_ids(e->own_ids, in->wakeups.wake_ids, in->wakeups.nr_wake_ids, OWN_EVENT);
	if (!err)
		err = add_ids(e->own_ids, in->wakeups.migrate_ids, in->wakeups.nr_migrate_ids, OWN_EVENT);
	for (size_t i = 0; i < e->nr_creds && !err; i++)
		err = add_ids(e->own_ids, e->creds[i].ids, e->creds[i].nr_ids, OWN_EVENT);
	if (!err && e->chain_ids)
		err = add_ids(e->own_ids, e->chain_ids, in->nr_cpus, OWN_CHAIN);
	/* another id can be told for the context-switch event's only when no sampling
	 * event of the recording's also fires through do_perf_sw_event (the clocks fire
	 * from their hrtimers, with data of their own) */
	e->salvage = in->nr_switch_ids > 0;
	for (size_t i = 0; i < in->nr_events; i++)
		if (e->attrs[i].type == PERF_TYPE_SOFTWARE && e->attrs[i].config != PERF_COUNT_SW_CPU_CLOCK &&
		    e->attrs[i].config != PERF_COUNT_SW_TASK_CLOCK)
			e->salvage = false;
	return err;
}

static int redirect_by_cgroup(struct events *e)
{
	int fds[4096], n = perf_cpu_map__nr(e->cpus), err;

	if (n > (int)ARRAY_SIZE(fds))
		return -E2BIG;
	err = sideband_fds(e, fds, n);
	for (size_t i = 0; i < e->info.nr_events && !err; i++) {
		size_t nr;

		err = cgroup_sampling__redirect(e->by_cgroup[i], fds);
		e->events[i] = (struct perf_data_event){
			.attr = e->attrs[i], .name = e->info.events[i].name,
			.ids = cgroup_sampling__ids(e->by_cgroup[i], &nr),
		};
		e->events[i].nr_ids = (uint32_t)nr;
	}
	return err ? err : offcpu_events__redirect(e->offcpu, fds);
}

/* Every sampling event, in -e's order; *ret_event says which one failed. */
static int open_sampling(struct events *e, const struct record_opts *o, int cgroup_fd, size_t *ret_event)
{
	uint64_t freq = o->freq, max;

	if (o->freq && max_sample_rate(&max) == 0) {
		if (o->freq_max) {
			freq = max;
		} else if (freq > max) {
			freq = max;
			e->info.freq_lowered = true;
		}
	}
	e->info.freq = freq;
	if (cgroups_only(o) && cgroup_fd >= 0) {
		int err = open_by_cgroup(e, o, cgroup_fd, freq, ret_event);

		/* no privilege for it is none for system-wide events either */
		if (err == 0 || err == -EACCES || err == -EPERM || err == -EMFILE || err == -ENOMEM)
			return err;
		e->info.filter_err = err;
	}
	for (size_t i = 0; i < o->nr_events && i < RECORD_MAX_EVENTS; i++) {
		int err;

		e->info.events[i] = o->events[i];
		*ret_event = i;
		err = open_one(e, o, i, freq);
		if (err < 0)
			return err;
		e->info.nr_events = i + 1;
	}
	return 0;
}

/* The sample id the kernel gave the event on each CPU (read_format has PERF_FORMAT_ID). */
int events__evsel_ids(struct events *e, struct perf_evsel *evsel, uint64_t **ret)
{
	int n = perf_cpu_map__nr(e->cpus);
	uint64_t *ids = calloc((size_t)n, sizeof(uint64_t));

	if (!ids)
		return -ENOMEM;
	for (int c = 0; c < n; c++) {
		struct perf_counts_values v = { 0 };
		int err = perf_evsel__read(evsel, c, 0, &v);
		if (err < 0) {
			free(ids);
			return err;
		}
		ids[c] = v.id;
	}
	*ret = ids;
	return 0;
}

static int read_ids(struct events *e, struct perf_evsel *evsel, int i, const char *name)
{
	int n = perf_cpu_map__nr(e->cpus);
	int err = events__evsel_ids(e, evsel, &e->ids[i]);

	if (err < 0)
		return err;
	e->events[i] = (struct perf_data_event){
		.attr = *perf_evsel__attr(evsel),
		.name = name,
		.ids = e->ids[i],
		.nr_ids = (uint32_t)n,
	};
	return 0;
}

static int libperf_print(enum libperf_print_level level, const char *fmt, va_list ap)
{
	/* libperf's own chatter is not for users; prof reports errors itself. */
	return 0;
}

/*
 * The ring buffers.  A size chosen for the rate (not asked for) that the kernel will
 * not lock for this user (kernel.perf_event_mlock_kb, RLIMIT_MEMLOCK, no
 * CAP_IPC_LOCK) falls back to the default every user may lock, and says so.
 */
static int map_rings(struct events *e, const struct record_opts *o)
{
	unsigned int pages = o->mmap_pages;

	for (;;) {
		int err;

		errno = 0;
		err = perf_evlist__mmap(e->evlist, (int)pages);
		if (err >= 0)
			break;
		err = errno ? -errno : err;
		if (!o->mmap_auto || pages <= RECORD_DEFAULT_PAGES || (err != -EPERM && err != -ENOMEM))
			return err;
		pages = RECORD_DEFAULT_PAGES;
		e->info.mmap_lowered = true;
	}
	e->info.mmap_pages = pages;
	return 0;
}

/* The CPUs, the dummy thread map and the evlist of a new e.  0 or -ENOMEM. */
static int events_maps(struct events *e)
{
	e->cpus = perf_cpu_map__new_online_cpus();
	e->threads = perf_thread_map__new_dummy();
	e->evlist = perf_evlist__new();
	if (!e->cpus || !e->threads || !e->evlist)
		return -ENOMEM;
	e->info.nr_cpus = perf_cpu_map__nr(e->cpus);
	perf_evlist__set_maps(e->evlist, e->cpus, e->threads);
	return 0;
}

/* The sideband event (and --off-cpu windowed's switch records).  0 or -errno. */
static int open_sideband(struct events *e, const struct record_opts *o)
{
	struct perf_event_attr sb;
	int err;

	sideband_attr(&e->attrs[0], o->off_cpu && !o->off_cpu_windowed, &sb);
	e->sideband = perf_evsel__new(&sb);
	if (!e->sideband)
		return -ENOMEM;
	err = events__open_evsel(e, e->sideband);
	if (err < 0)
		return err;
	if (o->off_cpu && o->off_cpu_windowed)
		return open_switch_records(e, &sb);
	return 0;
}

/* The evlist's last evsel, or NULL when it has none. */
static struct perf_evsel *last_evsel(struct events *e)
{
	struct perf_evsel *sel, *last = NULL;

	perf_evlist__for_each_evsel(e->evlist, sel)
		last = sel;
	return last;
}

/* Remove (closed, deleted) every evsel added after `after`. */
static void remove_after(struct events *e, struct perf_evsel *after)
{
	struct perf_evsel *sel, *tmp;
	bool past = false;

	for (sel = perf_evlist__next(e->evlist, NULL); sel; sel = tmp) {
		tmp = perf_evlist__next(e->evlist, sel);
		if (past) {
			perf_evsel__close(sel);
			perf_evlist__remove(e->evlist, sel);
			perf_evsel__delete(sel);
		}
		if (sel == after)
			past = true;
	}
}

/*
 * The events beside the sampling ones and the sideband, each where asked for: the
 * set*uid() tracepoints, --off-cpu's switch event and wake-ups, the Python callers'
 * chains.  All best effort but the switch event: 0 or its -errno.
 */
static int open_extras(struct events *e, const struct record_opts *o)
{
	int err;

	/* (--off-cpu: a holder's uid changed without exec, offcpu_creds.c) */
	if (o->scope.nr_uids || o->track_uids || o->off_cpu) {
		/* Best effort: on failure remove whatever of them was added, and only
		 * that (profd's windowed switch event was opened before them) */
		struct perf_evsel *before = last_evsel(e);

		e->info.creds_err = events__open_creds(e);
		if (e->info.creds_err < 0)
			remove_after(e, before);
	}
	/* after the set*uid() tracepoints: their failure removes what they added */
	if (o->off_cpu && !e->offcpu) {
		err = offcpu_events__open(e->evlist, e->cpus, e->threads, &e->attrs[0], &e->offcpu);
		if (err < 0)
			return err;
	}
	/* last: their failure removes only them (the wake-up stays inside offcpu-blocked) */
	if (o->off_cpu)
		events__open_wakeups(e);

	if ((o->dwarf || o->callchain) && !o->no_python_chains)
		events__open_chains(e);
	return 0;
}

/* Every open event's ids, and what hangs on them (cgroup redirection, chains).  0 or -errno. */
static int read_all_ids(struct events *e)
{
	int err = 0;

	for (size_t i = 0; i < e->info.nr_events && !err && !e->by_cgroup[0]; i++)
		err = read_ids(e, e->sampling[i], (int)i, e->info.events[i].name);
	if (!err)
		err = read_ids(e, e->sideband, (int)e->info.nr_events, "dummy:HG");
	if (!err && e->by_cgroup[0])
		err = redirect_by_cgroup(e);
	if (!err && e->offcpu)
		err = offcpu_events__read_ids(e->offcpu);
	if (!err && e->wake_sel[0])
		err = events__read_wakeup_ids(e);
	if (!err && e->chain_sel)
		err = events__attach_chains(e);
	return err;
}

/* The file descriptors the events hold: what the summary and the fd budget say. */
static size_t count_fds(const struct events *e)
{
	return ((e->info.nr_events + (e->offcpu ? 1 : 0)) * MAX(e->info.filter_cgroups, 1) + 1 +
		(e->switch_sel ? 1 : 0) +
		(e->info.creds ? 3 : 0) + (e->wake_sel[0] ? 2 : 0) + (e->chain_sel ? 1 : 0)) *
	       (size_t)e->info.nr_cpus;
}

const char *events__ring_env(const char *name)
{
	return getuid() == 0 ? secure_getenv(name) : NULL;
}

int events__new(const struct record_opts *o, int cgroup_fd, struct events **ret, enum events_stage *ret_stage,
		size_t *ret_event)
{
	struct events *e;
	enum events_stage stage = EVENTS_STAGE_SAMPLING;
	int err;

	/* a ring replay (events_replay.c): the drains of a saved recording, no kernel */
	if (events__ring_env("PROF_RING_REPLAY")) {
		err = events_replay__open(events__ring_env("PROF_RING_REPLAY"), ret);
		*ret_stage = EVENTS_STAGE_SAMPLING;
		*ret_event = 0;
		return err;
	}
	libperf_init(libperf_print);
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	err = events_maps(e);
	if (err < 0)
		goto err;
	err = open_sampling(e, o, cgroup_fd, ret_event);
	if (err < 0)
		goto err;
	stage = EVENTS_STAGE_SIDEBAND;
	err = open_sideband(e, o);
	if (err < 0)
		goto err;
	err = open_extras(e, o);
	if (err < 0)
		goto err;
	stage = EVENTS_STAGE_MMAP;
	err = map_rings(e, o);
	if (err < 0)
		goto err;
	stage = EVENTS_STAGE_IDS;
	err = read_all_ids(e);
	if (err < 0)
		goto err;
	if (e->offcpu) {
		offcpu_events__attrs(&e->attrs[0], &e->events[e->info.nr_events + 1]);
		e->info.switch_ids = offcpu_events__switch_ids(e->offcpu, &e->info.nr_switch_ids);
	}
	sample_layout__init(&e->layout, e->attrs[0].sample_type);
	err = events__collect_own_ids(e);
	if (err < 0)
		goto err;
	e->info.nr_fds = count_fds(e);
	if (events__ring_env("PROF_RING_SAVE")) {
		stage = EVENTS_STAGE_NONE;      /* the file's failure, not the kernel's */
		err = events_replay__save(e, events__ring_env("PROF_RING_SAVE"));
		if (err < 0)
			goto err;
		e->ring_save = true;
	}
	*ret = e;
	return 0;
err:
	*ret_stage = stage;
	events__free(e);
	return err;
}

struct events *events__free(struct events *e)
{
	if (!e)
		return NULL;
	events_spill__free(e);
	events_replay__free(e);
	if (e->evlist) {
		/* The evlist owns every evsel added to it; closing unopened ones is a no-op. */
		perf_evlist__munmap(e->evlist);
		events__close_creds_later(e);
		perf_evlist__close(e->evlist);
		perf_evlist__delete(e->evlist);
		if (e->release_fd >= 0)
			close(e->release_fd);   /* the child may close the tracepoints now */
	}
	for (size_t i = 0; i < ARRAY_SIZE(e->by_cgroup); i++)
		cgroup_sampling__free(e->by_cgroup[i]);
	offcpu_events__free(e->offcpu);
	perf_cpu_map__put(e->cpus);
	perf_thread_map__put(e->threads);
	for (size_t i = 0; i < ARRAY_SIZE(e->ids); i++)
		free(e->ids[i]);
	for (size_t i = 0; i < ARRAY_SIZE(e->creds_ids); i++)
		free(e->creds_ids[i]);
	for (size_t i = 0; i < ARRAY_SIZE(e->wake_ids); i++)
		free(e->wake_ids[i]);
	idmap__free(e->own_ids);
	free(e->held);
	free(e->chain);
	free(e->lost_fix);
	free(e->chain_ids);
	python_chains__free(e->chains);
	free(e);
	return NULL;
}

uint64_t events__foreign_samples(const struct events *e, uint64_t *ret_kept)
{
	*ret_kept = e->foreign_kept;
	return e->foreign_samples;
}

const struct events_info *events__info(const struct events *e)
{
	return &e->info;
}

const struct sample_layout *events__layout(const struct events *e)
{
	return &e->layout;
}

const struct perf_data_event *events__attrs(const struct events *e, size_t *ret_nr)
{
	*ret_nr = e->info.nr_events + 1 + (e->offcpu ? 2 : 0);
	return e->events;
}

size_t events__creds(const struct events *e, const struct events_creds **ret)
{
	*ret = e->creds;
	return e->nr_creds;
}

static bool is_sampling(const struct events *e, const struct perf_evsel *sel)
{
	for (size_t i = 0; i < e->info.nr_events; i++)
		if (e->sampling[i] == sel)
			return true;
	return false;
}

/*
 * The sideband (tasks, maps, credentials) on before the samplers and off after them,
 * as perf puts its tracking event first: a task sampled at the very start or end then
 * has its FORK/EXIT in the file, so its look-up can take its parent's facts.  Before,
 * a task sampled between the two and exiting there could not be attributed.
 */
int events__offcpu_period(struct events *e, int cpu, uint64_t period)
{
	return e->offcpu ? offcpu_events__set_period(e->offcpu, cpu, period) : -ENOENT;
}

int events__enable(struct events *e, struct ordered_queue *q)
{
	struct perf_evsel *sel;

	if (!e->evlist)
		return 0;       /* a replay's */
	perf_evlist__for_each_evsel(e->evlist, sel)
		if (!is_sampling(e, sel))
			perf_evsel__enable(sel);
	perf_evlist__for_each_evsel(e->evlist, sel)
		if (is_sampling(e, sel))
			perf_evsel__enable(sel);
	for (size_t i = 0; i < e->info.nr_events && e->by_cgroup[i]; i++)
		cgroup_sampling__enable(e->by_cgroup[i]);
	offcpu_events__enable(e->offcpu, true);
	/* best effort: without it the main thread reads the rings alone, as before */
	events_spill__start(e, q);
	return 0;
}

int events__offcpu_window(struct events *e, bool on, uint64_t *ret_time)
{
	if (!e->switch_sel)
		return -ENOENT;
	/* on: the switch records first (a stack sample is kept for the switch-out that
	 * follows it); off: them last */
	if (on) {
		*ret_time = clock_mono_ns();
		perf_evsel__enable(e->switch_sel);
	}
	offcpu_events__window(e->offcpu, on);
	for (size_t i = 0; i < ARRAY_SIZE(e->wake_sel); i++)
		if (e->wake_sel[i] && on)
			perf_evsel__enable(e->wake_sel[i]);
		else if (e->wake_sel[i])
			perf_evsel__disable(e->wake_sel[i]);
	if (!on) {
		perf_evsel__disable(e->switch_sel);
		*ret_time = clock_mono_ns();
	}
	return 0;
}

void events__stop_sampling(struct events *e)
{
	struct perf_evsel *sel;

	if (!e->evlist)
		return;
	for (size_t i = 0; i < e->info.nr_events && e->by_cgroup[i]; i++)
		cgroup_sampling__disable(e->by_cgroup[i]);
	perf_evlist__for_each_evsel(e->evlist, sel)
		if (is_sampling(e, sel))
			perf_evsel__disable(sel);
}

void events__set_deadline(struct events *e, uint64_t ns)
{
	events_spill__deadline(e, ns);
}

int events__disable(struct events *e)
{
	struct perf_evsel *sel;

	events_replay__disable(e);      /* the drains from here on are session__stop's */
	if (!e->evlist)
		return 0;
	events_spill__stop(e);  /* the last drain takes what it copied */
	offcpu_events__enable(e->offcpu, false);
	events__stop_sampling(e);
	perf_evlist__for_each_evsel(e->evlist, sel)
		if (!is_sampling(e, sel))
			perf_evsel__disable(sel);
	return 0;
}

int events__poll(struct events *e, int timeout_ms)
{
	int n;

	if (!e->evlist)
		return 0;       /* a replay's drains wait for nothing */
	events_spill__idle(e, true);
	n = perf_evlist__poll(e->evlist, timeout_ms);
	n = n < 0 ? -errno : n;
	events_spill__idle(e, false);
	return n;
}

bool events__replay_done(const struct events *e)
{
	return events__replaying(e) && events_replay__done(e);
}
