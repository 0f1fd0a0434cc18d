/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "prof/base/util.h"
#include "prof/cli/commands.h"
#include "prof/cli/preflight.h"
#include "prof/analyze/unwinder.h"
#include "prof/sys/kernel.h"
#include "prof/analyze/debuginfod.h"

/* ---- privileges ------------------------------------------------------------ */

static void explain_no_privilege(const char *why, int paranoid)
{
	char hint[4200];

	privs__setcap_hint(hint, sizeof(hint));
	fprintf(stderr,
		"prof: not allowed to open system-wide perf events (%s).\n"
		"  They need CAP_PERFMON (or CAP_SYS_ADMIN), or kernel.perf_event_paranoid <= 0; it is %d here.\n"
		"  Run prof as root, or give the binary the capabilities:\n"
		"    %s\n"
		"  or lower the sysctl: sudo sysctl kernel.perf_event_paranoid=0\n",
		why, paranoid, hint);
}

/* ---- the kernel ---------------------------------------------------------------- */

/*
 * An older kernel than prof needs refuses its events with EINVAL (attr.cgroup and
 * PERF_SAMPLE_CGROUP are 5.7's), which would read as a bad -F.  true after the
 * message when the running kernel is too old; an unparseable release goes on.
 */
static bool explain_old_kernel(void)
{
	char release[256];

	kernel__release(release, sizeof(release));
	if (kernel__at_least(release, KERNEL_MIN_MAJOR, KERNEL_MIN_MINOR) != 0)
		return false;
	fprintf(stderr,
		"prof: this kernel is too old: it runs Linux %s, and prof needs Linux " KERNEL_MIN_STRING " or later\n"
		"  (its sampling events filter and tag samples by cgroup: attr.cgroup and PERF_SAMPLE_CGROUP).\n"
		"  Boot a newer kernel (Debian 12's 6.1, Ubuntu 22.04's 5.15 and RHEL 9's 5.14 are recent enough).\n",
		release);
	return true;
}

/* ---- configuration ----------------------------------------------------------- */

/*
 * as_user: a file the user names (--config, their own prof.conf) is opened with their
 * own rights, never prof's capabilities: its error messages quote its lines.
 */
static int load(struct prof_config *cfg, const char *path, bool policy, bool safe, bool optional, bool as_user)
{
	char err[512];
	int r;

	if (as_user) {
		_cleanup_close_ int fd = privs__open_as_user(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

		if (fd == -ENOENT && optional)
			return 0;
		if (fd < 0) {
			fprintf(stderr, "prof: cannot read the configuration '%s': %s (it is opened with your own "
				"rights, not prof's capabilities)\n", path, strerror(-fd));
			return EXIT_PROF_USAGE;
		}
		r = config__load_fd(cfg, fd, path, policy, safe, err, sizeof(err));
	} else {
		r = config__load(cfg, path, policy, safe, err, sizeof(err));
	}
	if (r == -ENOENT && optional)
		return 0;
	if (r < 0) {
		fprintf(stderr, "prof: %s\n", err);
		return EXIT_PROF_USAGE;
	}
	return 0;
}

/* A prof run by someone else than root with rights over others' processes. */
static bool privileged_for_other(const struct privs *p)
{
	return p->uid != 0 && (p->perfmon || p->sys_admin || p->setuid);
}

/* The system file, then the user's (or config).  0, or an exit code after a message. */
static int load_files(struct preflight *p, const char *config)
{
	/* A privileged prof run by someone else must not take settings from files
	 * that someone else could have written. */
	bool for_other = privileged_for_other(&p->privs);
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	char user_path[4096] = "";
	int r;

	config__defaults(&p->cfg);
	if (config && p->privs.uid == 0)
		return load(&p->cfg, config, true, false, false, false);        /* root's replaces the system file */
	r = load(&p->cfg, PROF_SYSCONFDIR "/prof.conf", true, for_other, true, false);
	if (r)
		return r;
	if (config)
		snprintf(user_path, sizeof(user_path), "%s", config);
	else if (xdg && xdg[0] == '/')
		snprintf(user_path, sizeof(user_path), "%s/prof/prof.conf", xdg);
	else if (home && home[0] == '/')
		snprintf(user_path, sizeof(user_path), "%s/.config/prof/prof.conf", home);
	return user_path[0] ? load(&p->cfg, user_path, false, false, !config, true) : 0;
}

void preflight__debuginfod(const struct preflight *p)
{
	/* the user's own choice (their environment, their file) only for a prof that
	 * acts with their rights alone: a privileged one asks only what the operator set */
	bool own = !privileged_for_other(&p->privs);
	const struct prof_symbols_config *sys = &p->cfg.symbols, *user = &p->cfg.user_symbols;

	debuginfod__setup(own && user->debuginfod_urls[0] ? user->debuginfod_urls : sys->debuginfod_urls,
			  own && user->debuginfod_timeout ? user->debuginfod_timeout : sys->debuginfod_timeout, own);
}

int preflight__config(struct preflight *p, const char *config)
{
	int r;

	if (privs__probe(&p->privs) < 0)
		memset(&p->privs, 0, sizeof(p->privs));
	r = load_files(p, config);
	if (r)
		config__defaults(&p->cfg);      /* said: none of it is used */
	preflight__debuginfod(p);
	return r;
}

/* Fill in what the command line left unset.  0, or an exit code after a message. */
static int apply_config(struct preflight *p, struct record_opts *o)
{
	const struct prof_config *cfg = &p->cfg;
	int r = load_files(p, o->config);

	if (r)
		return r;
	preflight__debuginfod(p);
	if (!o->event_given && cfg->event[0]) {
		if (event_spec__parse(cfg->event, &o->events[0]) < 0)
			return EXIT_PROF_USAGE;     /* checked when parsed */
		o->nr_events = 1;
	}
	if (!o->freq_given && !o->period_given)
		o->freq = cfg->freq;
	if (!o->off_cpu_max_rate)
		o->off_cpu_max_rate = cfg->off_cpu_max_rate;
	if (cfg->callchain)
		o->callchain = true;
	/* -g's registers and stack copy for Java frames (prof record's request): not with
	 * dwarf (which has its own) or --off-cpu (whose switch samples take the attr) */
	if (!o->callchain || o->dwarf || o->off_cpu || !unwinder__supported())
		o->java_stack = 0;
	/* A sample with a stack copy is kilobytes: dwarf needs more room between drains. */
	if (!o->mmap_given) {
		/* unset in the configuration too: sized to the rate (events__new may fall back) */
		o->mmap_auto = !cfg->mmap_pages;
		o->mmap_pages = cfg->mmap_pages ? cfg->mmap_pages
						: record_opts__auto_pages(o, sysconf(_SC_NPROCESSORS_ONLN));
		if (o->dwarf)
			o->mmap_pages = MAX(o->mmap_pages, RECORD_DWARF_PAGES);
	}
	if (!o->output_given) {
		if (config__expand_output(cfg->output, p->output_buf, sizeof(p->output_buf)) < 0) {
			fprintf(stderr, "prof: the configured output name '%s' is too long\n", cfg->output);
			return EXIT_PROF_USAGE;
		}
		o->output = p->output_buf;
	}
	return 0;
}

/* ---- scope and policy ------------------------------------------------------------ */

/* Whether the container or pod of id has a cgroup in the hierarchy now. */
static bool runs(const char *id, bool pod, void *ctx)
{
	const struct preflight *p = ctx;
	_cleanup_free_ char *path = NULL;
	char err[1024];

	return containers__find(p->cgroup_fd, p->cgroup_mount, pod ? CONTAINERS_POD : CONTAINERS_CONTAINER, id, &path,
				err, sizeof(err)) == 0;
}

/*
 * --container NAME and --pod NAMESPACE/POD: the id or uid the runtimes' state gives the
 * name, in place of the argument, for the hierarchy to be searched by.  The state is
 * read with the invoker's own rights (prof's capabilities grant no file access).
 * 0, or -1 after a message.
 */
static int resolve_names(struct preflight *p, struct record_opts *o)
{
	size_t unreadable = 0;
	char err[2048], where[1024], id[CONTAINER_POD_UID_MAX + 1];

	for (size_t i = 0; i < o->scope.nr_cgroups; i++) {
		struct scope_cgroup *c = &o->scope.cgroups[i];
		bool pod = c->kind == SCOPE_CGROUP_POD;
		char *dup;
		int r;

		if (c->kind == SCOPE_CGROUP_PATH)
			continue;
		/* a prefix of an id is looked at too: it may be another container's name as
		 * well; a whole id or a pod's uid is never a name */
		if (!runtime_names__is_name(c->arg, pod) && (pod || runtime_names__whole_id(c->arg)))
			continue;
		if (!p->names_loaded) {
			if (runtime_names__load(&p->cfg.containers, &p->names, &unreadable) < 0) {
				fprintf(stderr, "prof record: out of memory reading the container runtimes' state\n");
				return -1;
			}
			p->names_loaded = true;
		}
		runtime_dirs__describe(&p->cfg.containers, where, sizeof(where));
		r = runtime_names__resolve(&p->names, c->arg, pod, where, unreadable, runs, p, id, err, sizeof(err));
		if (r == -EAGAIN)
			continue;
		if (r < 0) {
			fprintf(stderr, "prof record: %s\n", err);
			return -1;
		}
		dup = strdup(id);
		if (!dup) {
			fprintf(stderr, "prof record: out of memory\n");
			return -1;
		}
		free(c->arg);
		c->arg = dup;
	}
	return 0;
}

/*
 * Find cgroup2 (also at hybrid locations such as /sys/fs/cgroup/unified), resolve
 * --cgroup, --container and --pod arguments, check --pid ones.  0, or an exit code after a message.
 */
static int resolve_scope(struct preflight *p, struct record_opts *o)
{
	_cleanup_free_ char *mi = NULL;
	char err[2048];

	if (read_file_full(AT_FDCWD, "/proc/self/mountinfo", 16u << 20, &mi) >= 0 &&
	    scope__cgroup2_mount(mi, p->cgroup_mount, sizeof(p->cgroup_mount)) == 0)
		p->cgroup_fd = open(p->cgroup_mount, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (o->scope.nr_cgroups) {
		if (p->cgroup_fd < 0) {
			fprintf(stderr, "prof record: --cgroup, --container and --pod need a cgroup v2 hierarchy, "
				"and none is mounted (mount -t cgroup2 none /sys/fs/cgroup/unified).\n");
			return EXIT_PROF_USAGE;
		}
		if (resolve_names(p, o) < 0)
			return EXIT_PROF_USAGE;
		if (scope__resolve_cgroups(&o->scope, p->cgroup_fd, p->cgroup_mount, err, sizeof(err)) < 0) {
			fprintf(stderr, "prof record: %s\n", err);
			return EXIT_PROF_USAGE;
		}
	}
	for (size_t i = 0; i < o->scope.nr_pids; i++) {
		char path[32];
		snprintf(path, sizeof(path), "/proc/%d", o->scope.pids[i]);
		if (access(path, F_OK) < 0) {
			fprintf(stderr, "prof record: no process with pid %d\n", o->scope.pids[i]);
			return EXIT_PROF_USAGE;
		}
	}
	return 0;
}

/* The access policy (scope, then sampling rate).  0, or an exit code after a message. */
static int apply_policy(struct preflight *p, struct record_opts *o)
{
	uint64_t asked = o->freq;
	uint32_t asked_rate = o->off_cpu_max_rate;
	char err[1024];
	int r;

	if (policy__check(&p->cfg, o, p->cgroup_fd, &p->verdict, err, sizeof(err)) < 0) {
		fprintf(stderr, "prof: refused by the access %s\n", err);
		return EXIT_PROF_FAIL;
	}
	r = policy__check_rate(&p->cfg, &p->verdict, p->privs.sys_admin, o, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "prof: refused by the access %s\n", err);
		return EXIT_PROF_FAIL;
	}
	if (r > 0 && !o->quiet)
		fprintf(stderr, "prof: the configured frequency %" PRIu64 " Hz is above the %" PRIu64
			" Hz allowed to users who are not admins ([policy] user_max_frequency); using %" PRIu64 " Hz.\n",
			asked, p->cfg.user_max_frequency, o->freq);
	/* (a rate equal to prof.conf's is taken as prof.conf's) */
	r = policy__check_off_cpu_rate(&p->cfg, &p->verdict, p->privs.sys_admin,
				       p->cfg.off_cpu_max_rate && asked_rate == p->cfg.off_cpu_max_rate, o, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "prof: refused by the access %s\n", err);
		return EXIT_PROF_FAIL;
	}
	if (r > 0 && !o->quiet) {
		char was[32] = "0 (every switch)";

		if (asked_rate != RECORD_OFFCPU_UNBOUNDED)
			snprintf(was, sizeof(was), "%u", asked_rate);
		fprintf(stderr, "prof: the configured off_cpu_max_rate %s is above the %u stack samples per CPU per "
			"second allowed to users who are not admins ([policy] user_off_cpu_max_rate); using %u.\n",
			was, o->off_cpu_max_rate, o->off_cpu_max_rate);
	}
	if (!p->verdict.kernel) {
		o->no_kernel = true;
		for (size_t i = 0; i < o->nr_events; i++)
			o->events[i].exclude_kernel = true;
	}
	return 0;
}

/*
 * Whether CAP_PERFMON alone lets prof read other users' /proc/PID/maps: from Linux
 * 6.15 (as prof(1) says; checked on 6.18 only: docs/DESIGN.md, "Kernels and fresh
 * machines"); an unparseable release is taken as older.
 */
static bool perfmon_reads_maps(void)
{
	char release[256];

	kernel__release(release, sizeof(release));
	return kernel__at_least(release, 6, 15) == 1;
}

void preflight__init(struct preflight *p)
{
	*p = (struct preflight){ .cgroup_fd = -1 };
}

void preflight__release(struct preflight *p)
{
	if (p->cgroup_fd >= 0)
		close(steal_fd(&p->cgroup_fd));
	runtime_names__release(&p->names);
}

int preflight__run(struct preflight *p, struct record_opts *o)
{
	int ret;

	if (explain_old_kernel())
		return EXIT_PROF_FAIL;
	if (privs__probe(&p->privs) < 0 || !privs__can_record_system_wide(&p->privs)) {
		/* Said before anything is opened or created. */
		explain_no_privilege("this process holds neither CAP_PERFMON nor CAP_SYS_ADMIN", p->privs.paranoid);
		return EXIT_PROF_FAIL;
	}
	ret = apply_config(p, o);
	if (ret)
		return ret;
	ret = resolve_scope(p, o);
	if (ret)
		return ret;
	ret = apply_policy(p, o);
	if (ret)
		return ret;
	if (p->verdict.admin && !o->all && !p->privs.sys_ptrace && !(p->privs.perfmon && perfmon_reads_maps()) &&
	    !o->quiet)
		fprintf(stderr, "prof: warning: without CAP_SYS_PTRACE the maps of other users' tasks cannot be read: their user-space symbols may not resolve.\n");
	return 0;
}

struct session_config preflight__session(const struct preflight *p, const struct record_opts *o,
					 pid_t workload, session_sink_fn sink, void *ctx)
{
	return (struct session_config){
		.opts = o, .verdict = &p->verdict, .privs = &p->privs, .cgroup_fd = p->cgroup_fd,
		.workload = workload, .sink = sink, .sink_ctx = ctx,
	};
}

/* ---- what a session could not do ---------------------------------------------- */

static void explain_events(const struct preflight *p, const struct record_opts *o, int err,
			   enum events_stage stage, size_t event)
{
	const char *what = stage == EVENTS_STAGE_SIDEBAND ? "the sideband (task tracking) event"
			   : stage == EVENTS_STAGE_MMAP   ? "the ring buffers"
			   : stage == EVENTS_STAGE_IDS    ? "the event ids"
							    : "the sampling event";

	if (err == -EACCES || err == -EPERM) {
		if (stage == EVENTS_STAGE_MMAP) {
			fprintf(stderr,
				"prof: cannot map %u pages per CPU of ring buffer: %s\n"
				"  Use a smaller -m, or raise kernel.perf_event_mlock_kb (sysctl -w kernel.perf_event_mlock_kb=...).\n",
				o->mmap_pages, strerror(-err));
			return;
		}
		explain_no_privilege(strerror(-err), p->privs.paranoid);
		return;
	}
	if (err == -EMFILE || err == -ENFILE) {
		fprintf(stderr,
			"prof: out of file descriptors opening %s: prof needs %zu per CPU, %d in all here.\n"
			"  Raise the limit (ulimit -n) and retry.\n",
			what, o->nr_events + 1, (int)(o->nr_events + 1) * (int)sysconf(_SC_NPROCESSORS_ONLN));
		return;
	}
	if (stage == EVENTS_STAGE_SAMPLING &&
	    (err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV || err == -ENXIO)) {
		fprintf(stderr, "prof: event '%s' is not supported on this machine (%s); try -e cpu-clock.\n",
			o->events[event].name, strerror(-err));
		return;
	}
	if ((err == -EINVAL || err == -E2BIG) && explain_old_kernel())
		return;
	if (stage == EVENTS_STAGE_SAMPLING && err == -EINVAL) {
		fprintf(stderr,
			"prof: the kernel rejected event '%s' with these settings (%s): check -F/-c and the event's modifiers.\n",
			o->events[event].name, strerror(-err));
		return;
	}
	if (stage == EVENTS_STAGE_MMAP && err == -ENOMEM) {
		fprintf(stderr, "prof: cannot map %u pages per CPU of ring buffer: out of memory; use a smaller -m.\n",
			o->mmap_pages);
		return;
	}
	fprintf(stderr, "prof: cannot open %s: %s\n", what, strerror(-err));
}

/*
 * --uid of someone who is not an admin, without the set*uid() tracepoints: a process
 * of theirs that becomes root would stay theirs, and root's samples would reach their
 * file.  e is why the tracepoints could not be opened (positive errno).
 */
static void explain_creds(int e)
{
	fprintf(stderr,
		"prof: --uid cannot be recorded here: prof cannot follow set*uid() calls, because %s (%s).\n"
		"  Without them a process that becomes another user (su, sudo, a set-user-ID program) would\n"
		"  stay yours, and that user's samples would land in your file; prof refuses instead.\n"
		"  An admin can make tracefs readable to a group of yours:\n"
		"    sudo mount -o remount,gid=GROUP,mode=0750 /sys/kernel/tracing   (or the same in /etc/fstab)\n"
		"  or run prof as root.  Or record your command (prof record -- CMD) or a cgroup of yours.\n",
		e == EACCES || e == EPERM ? "tracefs (/sys/kernel/tracing) is not readable by you"
		: e == ENOENT ? "tracefs is not mounted or the kernel has no syscalls tracepoints"
			      : "the syscalls tracepoints cannot be opened",
		strerror(e));
}

void preflight__explain(const struct preflight *p, const struct record_opts *o,
			const struct session_error *e, const char *output)
{
	switch (e->stage) {
	case SESSION_STAGE_EVENTS:
		explain_events(p, o, e->err, e->events, e->event);
		break;
	case SESSION_STAGE_PROC:
		fprintf(stderr, "prof: cannot open /proc: %s\n", strerror(-e->err));
		break;
	case SESSION_STAGE_CREDS:
		explain_creds(-e->err);
		break;
	case SESSION_STAGE_SCOPE:
		fprintf(stderr, "prof: cannot set up the scope: %s\n", strerror(-e->err));
		break;
	case SESSION_STAGE_SINK:
		if (output)
			fprintf(stderr, "prof: cannot write '%s': %s\n", output, strerror(-e->err));
		else
			fprintf(stderr, "prof: %s\n", strerror(-e->err));
		break;
	default:
		fprintf(stderr, "prof: %s\n", e->err == -ENOMEM ? "out of memory" : strerror(-e->err));
		break;
	}
}

void preflight__warn(const struct record_opts *o, const struct session *s)
{
	const struct events_info *info = session__info(s);
	struct session_stats st;

	session__stats(s, &st);
	if (info->fell_back && o->event_given && !o->quiet)
		fprintf(stderr, "prof: %s is not supported here (no PMU); sampling cpu-clock instead.\n",
			o->events[0].name);
	if (info->freq_lowered)
		fprintf(stderr, "prof: -F %" PRIu64 " is above kernel.perf_event_max_sample_rate; using %" PRIu64 ".\n",
			o->freq, info->freq);
	if (info->filter_err && !o->quiet)
		fprintf(stderr, "prof: note: the kernel would not sample by cgroup here (%s): sampling every CPU "
			"and dropping other tasks' samples instead.\n", strerror(-info->filter_err));
	if (st.kernel_hidden && !o->quiet)
		fprintf(stderr, "prof: warning: kernel addresses are hidden (kernel.kptr_restrict); kernel symbols will not resolve.\n");
	/* an admin may record a uid without them (a non-admin was refused) */
	if (o->scope.nr_uids && !info->creds && !o->quiet)
		fprintf(stderr,
			"prof: warning: cannot trace set*uid() calls (%s: needs tracefs and the syscalls tracepoints);\n"
			"  a process that changes uid without exec is judged by its uid at its next exec.\n",
			strerror(-info->creds_err));
}
