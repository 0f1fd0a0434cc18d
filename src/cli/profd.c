/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * profd: always-on profiling of the whole host at a low rate, kept as history for
 * each tenant to read back (prof report --daemon, prof top --daemon) through a Unix
 * socket, with nothing but their own samples in what they get.  This file is the
 * command: options, prof.conf's [daemon], the session, signals (SIGTERM stops and
 * writes history, SIGHUP reloads), the sampling loop and the log; the daemon's
 * parts are src/daemon/.
 */
#include <curl/curl.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <grp.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <syslog.h>
#include <unistd.h>

#include "config.h"
#include "prof/jvm/frames.h"
#include "prof/base/util.h"
#include "prof/cli/commands.h"
#include "prof/cli/config.h"
#include "prof/cli/preflight.h"
#include "prof/analyze/debuginfod.h"
#include "prof/analyze/debuginfod_worker.h"
#include "prof/cli/record_opts.h"
#include "prof/cli/signals.h"
#include "prof/daemon/daemon.h"
#include "prof/daemon/exports.h"
#include "prof/daemon/sampler.h"
#include "prof/daemon/server.h"
#include "prof/python/python.h"
#include "prof/record/session.h"
#include "prof/scope/scope.h"

static const char usage[] =
	"usage: profd [--foreground] [--config FILE]\n"
	"\n"
	"Profile every tenant of this host, always, at a low rate, and keep the history\n"
	"for each of them to read back: prof report --daemon, prof top --daemon.\n"
	"\n"
	"  -f, --foreground   in the foreground, logging to stderr (systemd, tests)\n"
	"      --config FILE  read FILE instead of the system's prof.conf:\n"
	"                     " PROF_SYSCONFDIR "/prof.conf\n"
	"  -h, --help         this text\n"
	"  -v, --version      profd's version\n"
	"\n"
	"Settings are prof.conf's [daemon] and [policy] sections.  SIGTERM writes the\n"
	"history and stops; SIGHUP reloads the configuration.  See profd(8).\n";

struct profd {
	const char *config_path;
	bool config_given;              /* --config: its file must be there */
	bool foreground;
	int ready_fd;                   /* the waiting parent's pipe, -1 */
	struct preflight pf;            /* privileges, configuration, cgroup2 root, verdict */
	struct record_opts ro;
	struct daemon_settings set;
	struct daemon *d;
	struct sampler *sampler;
	struct session *session;
	struct exports *exports;        /* pull and push, when prof.conf turns them on */
	struct debuginfod_worker *debuginfod;   /* [symbols] debuginfod_urls: fetches debug files */
	uint64_t started_ns;
	/* [daemon] off_cpu_window: whether the window is open, and when it next turns */
	bool window_open;
	uint64_t window_turn;
};

/* ---- the log ------------------------------------------------------------------------ */

__attribute__((format(printf, 3, 4)))
static void say(const struct profd *p, int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (p->foreground || p->ready_fd >= 0) {
		fputs("profd: ", stderr);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	} else {
		vsyslog(level, fmt, ap);
	}
	va_end(ap);
}

/* systemd's readiness protocol (Type=notify), without libsystemd: one datagram. */
static void notify(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	size_t len;
	int fd;

	if (!path || (path[0] != '/' && path[0] != '@') || (len = strlen(path)) >= sizeof(a.sun_path))
		return;
	memcpy(a.sun_path, path, len);
	if (a.sun_path[0] == '@')
		a.sun_path[0] = '\0';   /* an abstract socket */
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&a,
		   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)) < 0) {
		/* no systemd listening: nothing to tell */
	}
	close(fd);
}

/* ---- configuration ------------------------------------------------------------------ */

/*
 * The file at the default path may be absent (prof record runs on its defaults too):
 * then the built-in defaults, and *ret_absent says so.  One named with --config must
 * be there.
 */
static int load_config(const struct profd *p, struct prof_config *c, bool *ret_absent, char *err,
		       size_t errlen)
{
	int r;

	config__defaults(c);
	*ret_absent = false;
	/* profd runs privileged: a file anyone but root could have written is refused */
	r = config__load(c, p->config_path, true, true, err, errlen);
	if (r == -ENOENT && !p->config_given) {
		config__defaults(c);
		*ret_absent = true;
		err[0] = '\0';
		return 0;
	}
	return r;
}

/*
 * The socket's directory, made when missing (the unit's RuntimeDirectory makes it; by
 * hand, nothing does): its parent must exist.  0, or -errno with err set.
 */
static int make_socket_dir(const char *socket, char *err, size_t errlen)
{
	char dir[PATH_MAX];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", socket);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		int e = errno;

		snprintf(err, errlen, "%.900s: cannot make the socket's directory: %s", dir, strerror(e));
		return -e;
	}
	return 0;
}

/* The daemon's settings from a configuration.  0, or -EINVAL with err set. */
static int settings_of(const struct prof_config *c, struct daemon_settings *s, char *err, size_t errlen)
{
	const struct prof_daemon_config *d = &c->daemon;
	struct group gr, *res = NULL;
	char buf[8192];
	struct utsname u;

	*s = (struct daemon_settings){
		.history = { .fine_ns = 1000000000ull, .bucket_ns = d->bucket * 1000000000ull,
			     .span_ns = d->history * 1000000000ull, .fine_span_ns = d->fine_span * 1000000000ull,
			     .memory_max = d->memory_max, .bucket_max_stacks = d->bucket_max_stacks },
		.store = { .disk_max = d->disk_max, .segment_bytes = 4u << 20, .segment_ns = 600000000000ull,
			   .fsync = d->fsync },
		.server = { .max_clients = d->max_clients, .max_per_uid = d->max_clients_per_uid,
			    .timeout_ms = d->client_timeout * 1000, .answers_memory_max = d->answers_memory_max },
		.symbols_max = d->symbols_max,
		.user_kernel = c->user_kernel, .freq = d->freq, .callchain = d->callchain,
		.python_frames = d->python_frames, .off_cpu = d->off_cpu,
		.off_cpu_stacks = d->off_cpu_stacks, .off_cpu_sample = d->off_cpu_sample,
	};
	/* a window as long as the period is every switch, always (no windows) */
	if (d->off_cpu && d->off_cpu_window && d->off_cpu_window < d->off_cpu_period) {
		s->off_cpu_window_ns = d->off_cpu_window * 1000000000ull;
		s->off_cpu_period_ns = d->off_cpu_period * 1000000000ull;
	}
	if (snprintf(s->history_dir, sizeof(s->history_dir), "%s/history", d->state_dir) >= (int)sizeof(s->history_dir))
		return errorf(err, errlen, "[daemon] state_dir is too long");
	if (c->admin_group[0]) {
		if (getgrnam_r(c->admin_group, &gr, buf, sizeof(buf), &res) != 0 || !res)
			return errorf(err, errlen, "[policy] admin_group '%s' is not a group here", c->admin_group);
		s->has_admin_gid = true;
		s->admin_gid = res->gr_gid;
	}
	snprintf(s->event, sizeof(s->event), "%s", d->event);
	if (uname(&u) == 0) {
		snprintf(s->host, sizeof(s->host), "%s", u.nodename);
		snprintf(s->osrelease, sizeof(s->osrelease), "%s", u.release);
	}
	return 0;
}

/* The session's options: the whole host, the daemon's event and rate, set*uid() followed. */
static int session_opts(struct profd *p, char *err, size_t errlen)
{
	const struct prof_daemon_config *d = &p->pf.cfg.daemon;
	struct record_opts *o = &p->ro;

	o->all = true;
	o->scope.all = true;
	o->freq = d->freq;
	o->freq_given = true;
	o->callchain = d->callchain;
	/* Python frames from the chains read at the sample instant (with the call chains:
	 * -g's way, no stack copy); their names in windows (python.h, live readers) */
	o->no_python_chains = !d->python_frames || !d->callchain;
	/* Java frames with the call chains, asked for (java_frames: a stack copy of every
	 * sample of the host; jvm/frames.h; not with off_cpu, whose switch samples take
	 * the sampling attr) */
	o->java_stack = d->java_frames && d->callchain && !d->off_cpu ? JAVA_G_STACK : 0;
	o->mmap_pages = d->mmap_pages;
	o->mmap_given = true;
	o->track_uids = true;
	o->quiet = true;
	/* the host's switches into intervals, their CPU's holders by uid (view.h tells each
	 * tenant only self and other tenants) */
	o->off_cpu = d->off_cpu;
	o->off_cpu_by_uid = d->off_cpu;
	/* off_cpu_sample: the switch event's period (a stack in N), the time of every interval
	 * still exact; the bound (OFFCPU_DEFAULT_MAX_RATE) may raise it on a busy CPU */
	o->off_cpu_min_period = d->off_cpu_sample;
	/* off_cpu_window: the switch records from an event of their own, turned on and off
	 * by the loop (offcpu_duty) */
	o->off_cpu_windowed = p->set.off_cpu_window_ns > 0;
	o->nr_events = 1;
	if (event_spec__parse(d->event, &o->events[0]) < 0)
		return errorf(err, errlen, "[daemon] event '%s' is not known", d->event);
	o->event_given = true;
	return 0;
}

/* ---- start ---------------------------------------------------------------------------- */

static const struct offcpu_holder_info *holder_info(void *ctx, uint32_t holder)
{
	const struct profd *p = ctx;

	return p->session ? session__offcpu_holder(p->session, holder) : NULL;
}

static bool uid_of(void *ctx, int32_t tid, uint32_t *ret)
{
	const struct profd *p = ctx;

	return p->session && session__uid(p->session, tid, ret);
}

/* The session's Python frames' names (python.h: live readers), for the sampler. */
static bool python_name(void *ctx, const struct model_dso *d, uint64_t off, const char **ret)
{
	const struct profd *p = ctx;

	return p->session && session__runtime_name(p->session, d, off, ret);
}

static int open_cgroup_root(struct preflight *pf)
{
	_cleanup_free_ char *mi = NULL;

	if (read_file_full(AT_FDCWD, "/proc/self/mountinfo", 16u << 20, &mi) >= 0 &&
	    scope__cgroup2_mount(mi, pf->cgroup_mount, sizeof(pf->cgroup_mount)) == 0)
		pf->cgroup_fd = open(pf->cgroup_mount, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return 0;
}

/* The session on the sampler: events open, the kernel read, privileges dropped. */
static int start_session(struct profd *p)
{
	struct session_config cfg;
	const struct events_info *info;
	struct session_error e = { 0 };
	int err;

	cfg = preflight__session(&p->pf, &p->ro, 0, sampler__sink, p->sampler);
	cfg.live = true;
	cfg.poll_ms = SAMPLER_POLL_MS;
	err = session__new(&cfg, &p->session, &e);
	if (err == 0)
		err = session__start(p->session, &e);
	if (err < 0) {
		preflight__explain(&p->pf, &p->ro, &e, NULL);
		return err;
	}
	preflight__warn(&p->ro, p->session);
	info = session__info(p->session);
	sampler__set_layout(p->sampler, session__layout(p->session));
	sampler__load_kernel(p->sampler);      /* kallsyms shows addresses only now */
	err = session__drop_privileges(p->session);
	if (err < 0)
		say(p, LOG_WARNING, "warning: could not drop capabilities: %s", strerror(-err));
	p->set.creds = info->creds;
	snprintf(p->set.event, sizeof(p->set.event), "%s", info->events[0].name);
	p->set.freq = info->freq;
	p->set.period = info->freq ? 0 : p->ro.period;
	p->set.event_type = p->ro.events[0].type;
	p->set.event_config = p->ro.events[0].config;
	if (p->set.python_frames && !p->set.callchain)
		snprintf(p->set.python_why, sizeof(p->set.python_why), "callchain = no");
	else if (p->set.python_frames && !info->chains)
		snprintf(p->set.python_why, sizeof(p->set.python_why), "%s",
			 info->chains_why[0] ? info->chains_why : "the chains could not be read");
	if (p->set.python_why[0])
		say(p, LOG_WARNING, "warning: no Python frames in stacks: %s",
		    p->set.python_why);
	if (!info->creds)
		say(p, LOG_WARNING, "warning: cannot follow set*uid() calls (%s): only root and the admin group will "
		    "be served (tracefs must be readable: CAP_DAC_READ_SEARCH)", strerror(-info->creds_err));
	return 0;
}

/* The server and store threads take no signal: they all reach the sampling thread. */
static int start_threads(struct profd *p, int fd)
{
	sigset_t all, old;
	int err;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = daemon__start(p->d, &p->set, fd);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err < 0) {
		say(p, LOG_ERR, "cannot start its threads: %s", strerror(-err));
		return EXIT_PROF_FAIL;
	}
	return 0;
}

/* The pull endpoint and the push, as [daemon] asks (after the session: the event
 * and rate are known).  0, or an exit code after a message. */
static int start_exports(struct profd *p)
{
	const struct perf_event_attr *a = &(struct perf_event_attr){ .type = p->set.event_type,
								     .config = p->set.event_config };
	struct exports_sampling s = { .event = p->set.event, .freq = p->set.freq, .period = p->set.period,
				      .time_period = a->type == PERF_TYPE_SOFTWARE &&
						     (a->config == PERF_COUNT_SW_CPU_CLOCK ||
						      a->config == PERF_COUNT_SW_TASK_CLOCK) };
	char err[1024];

	if (exports__start(daemon__history(p->d), &p->pf.cfg.daemon.export, &s, &p->exports, err, sizeof(err)) < 0) {
		say(p, LOG_ERR, "%s", err);
		return EXIT_PROF_FAIL;
	}
	daemon__set_exports_status(p->d, exports__status, p->exports);
	return 0;
}

/*
 * [symbols] debuginfod_urls: a thread fetches the debug files of objects the sampler
 * met without symbols into STATE_DIR/debuginfod; the sampling thread only opens what
 * it has there.  0, or an exit code after a message.
 */
static int start_debuginfod(struct profd *p)
{
	const struct prof_config *c = &p->pf.cfg;
	struct debuginfod_worker_config wc = { .urls = c->symbols.debuginfod_urls,
					       .timeout = c->symbols.debuginfod_timeout ? c->symbols.debuginfod_timeout
											: DEBUGINFOD_DEFAULT_TIMEOUT,
					       .maxtime = DEBUGINFOD_DEFAULT_MAXTIME, .maxsize = DEBUGINFOD_DEFAULT_MAXSIZE };
	char dir[PATH_MAX];
	int r;

	if (!c->symbols.debuginfod_urls[0])
		return 0;
	if (snprintf(dir, sizeof(dir), "%s/debuginfod", c->daemon.state_dir) >= (int)sizeof(dir)) {
		say(p, LOG_ERR, "[daemon] state_dir is too long");
		return EXIT_PROF_FAIL;
	}
	wc.cache_dir = dir;
	r = debuginfod_worker__start(&wc, &p->debuginfod);
	if (r < 0) {
		say(p, LOG_ERR, "cannot start the debuginfod worker (cache %s): %s", dir, strerror(-r));
		return EXIT_PROF_FAIL;
	}
	say(p, LOG_INFO, "debuginfod: asking %s for the debug files of objects without symbols (their build ids "
	    "are sent), kept in %s", c->symbols.debuginfod_urls, dir);
	return 0;
}

/* What the worker asked, at the stop. */
static void say_debuginfod(struct profd *p)
{
	struct debuginfod_stats st;
	char line[512];

	if (!p->debuginfod)
		return;
	debuginfod_worker__stats(p->debuginfod, &st);
	debuginfod__describe(&st, line, sizeof(line));
	say(p, LOG_INFO, "debuginfod: %s", line);
}

/* Everything but the sampling loop.  0, or an exit code after a message. */
static int profd_start(struct profd *p)
{
	struct sampler_config sc = { .callchain = p->ro.callchain, .off_cpu_stacks = p->pf.cfg.daemon.off_cpu_stacks,
				     .off_cpu = p->pf.cfg.daemon.off_cpu, .holder_info = holder_info, .holder_ctx = p,
				     .uid_of = uid_of, .uid_ctx = p, .object_name = python_name, .object_ctx = p };
	struct store_stats st;
	char err[1024];
	int fd;

	if (mkdir(p->pf.cfg.daemon.state_dir, 0700) < 0 && errno != EEXIST) {
		say(p, LOG_ERR, "cannot make the state directory %s: %s", p->pf.cfg.daemon.state_dir, strerror(errno));
		return EXIT_PROF_FAIL;
	}
	if (daemon__new(&p->set, &p->d, err, sizeof(err)) < 0) {
		say(p, LOG_ERR, "%s", err);
		return EXIT_PROF_FAIL;
	}
	daemon__store_stats(p->d, &st);
	if (st.loaded || st.corrupt || st.refused)
		say(p, LOG_INFO, "history: %" PRIu64 " buckets read back from %s (%" PRIu64 " too old, %" PRIu64
		    " corrupt segment tails, %" PRIu64 " segments refused)%s%s", st.loaded, p->set.history_dir,
		    st.skipped_old, st.corrupt, st.refused, st.last_corrupt[0] ? ": " : "", st.last_corrupt);
	fd = make_socket_dir(p->pf.cfg.daemon.socket, err, sizeof(err));
	if (fd == 0)
		fd = server__listen(p->pf.cfg.daemon.socket, err, sizeof(err));
	if (fd < 0) {
		say(p, LOG_ERR, "%s", err);
		return EXIT_PROF_FAIL;
	}
	sc.history = daemon__history(p->d);
	sc.max_stacks = p->pf.cfg.daemon.bucket_max_stacks;
	sc.symbols_max = p->pf.cfg.daemon.symbols_max;
	sc.kernel = true;
	if (start_debuginfod(p)) {
		close(fd);
		return EXIT_PROF_FAIL;
	}
	sc.debuginfod = p->debuginfod;
	if (sampler__new(&sc, &p->sampler) < 0 || start_session(p) < 0) {
		close(fd);
		say(p, LOG_ERR, "could not start sampling");
		return EXIT_PROF_FAIL;
	}
	return start_threads(p, fd) ? EXIT_PROF_FAIL : start_exports(p);
}

/* ---- running ---------------------------------------------------------------------------- */

static void reload(struct profd *p)
{
	struct prof_config c;
	struct daemon_settings s;
	char err[1024], msg[1100], later[256];
	bool absent;

	notify("RELOADING=1");
	err[0] = later[0] = '\0';
	if (load_config(p, &c, &absent, err, sizeof(err)) < 0 || settings_of(&c, &s, err, sizeof(err)) < 0 ||
	    daemon__reconfigure(p->d, &s, later, sizeof(later)) < 0 ||
	    exports__reconfigure(p->exports, &c.daemon.export, err, sizeof(err)) < 0) {
		snprintf(msg, sizeof(msg), "reload failed: %s (keeping the previous configuration)", err[0] ? err : later);
		say(p, LOG_ERR, "%s", msg);
	} else {
		snprintf(msg, sizeof(msg), "configuration reloaded from %s%s%s%s%s", p->config_path,
			 absent ? " (absent: the built-in defaults)" : "",
			 later[0] ? " (" : "", later, later[0] ? " change only at a restart)" : "");
		say(p, LOG_INFO, "%s", msg);
	}
	daemon__set_reload_result(p->d, msg);
	notify("READY=1");
}

static void publish(struct profd *p)
{
	struct daemon_sampling ds = { .started_ns = p->started_ns };
	struct session_stats st;

	session__stats(p->session, &st);
	sampler__stats(p->sampler, &ds.sampler);
	ds.lost = st.records->lost;
	ds.lost_samples = st.records->lost_samples;
	ds.unattributed = st.scope->unattributed_gone + st.scope->unattributed_creds;
	ds.records = st.records->records;
	ds.described = st.records->described;
	if (st.offcpu) {
		ds.off_cpu = true;
		ds.offcpu = *st.offcpu;
	}
	if (st.python) {
		ds.python = (struct daemon_python){ .processes = st.python->processes, .rejected = st.python->rejected,
						    .samples = st.python->samples,
						    .with_python = st.python->with_python,
						    .verified = st.python->verified, .chained = st.python->chained,
						    .unverified = python_stats__unverified(st.python),
						    .name_windows = st.python->name_windows };
	}
	daemon__publish(p->d, &ds);
}

static uint64_t unattributed(const struct profd *p)
{
	struct session_stats st;

	session__stats(p->session, &st);
	return st.scope->unattributed_gone + st.scope->unattributed_creds;
}

/*
 * [daemon] off_cpu_window: the switch records on for a window, off for the rest of
 * the period, on every CPU at once (the session's events: the tasks' records stay).
 * The session starts with them on: the first window opens there.
 */
static void offcpu_duty(struct profd *p, uint64_t now)
{
	uint64_t edge;
	int err;

	if (!p->set.off_cpu_window_ns || now < p->window_turn)
		return;
	if (!p->window_turn) {
		p->window_open = true;
		p->window_turn = session__start_time(p->session) + p->set.off_cpu_window_ns;
		sampler__offcpu_window(p->sampler, true, session__start_time(p->session));
		return;
	}
	err = session__offcpu_window(p->session, !p->window_open, &edge);
	if (err < 0) {
		say(p, LOG_WARNING, "warning: could not turn the off-CPU window %s: %s", p->window_open ? "off" : "on",
		    strerror(-err));
		p->window_turn = now + p->set.off_cpu_period_ns;
		return;
	}
	p->window_open = !p->window_open;
	sampler__offcpu_window(p->sampler, p->window_open, edge);
	p->window_turn = edge + (p->window_open ? p->set.off_cpu_window_ns
						 : p->set.off_cpu_period_ns - p->set.off_cpu_window_ns);
}

/* Sample until a stop signal; then close the open spans and write history. */
static int profd_loop(struct profd *p)
{
	uint64_t next_publish = 0;
	int err = 0, made;

	offcpu_duty(p, 0);      /* the first window: from the session's start */
	while (!signals__stop()) {
		uint64_t now;

		err = session__step(p->session);
		if (err < 0)
			break;
		now = clock_mono_ns();
		offcpu_duty(p, now);
		made = sampler__tick(p->sampler, now, unattributed(p));
		if (made < 0) {
			err = made;
			break;
		}
		if (made)
			daemon__coarse_made(p->d);
		if (now >= next_publish) {
			publish(p);
			next_publish = now + 500000000ull;
		}
		if (signals__reload())
			reload(p);
	}
	if (err < 0)
		say(p, LOG_ERR, "sampling failed: %s", strerror(-err));
	notify("STOPPING=1");
	session__stop(p->session);
	made = sampler__finish(p->sampler, clock_mono_ns(), unattributed(p));
	publish(p);
	daemon__set_exports_status(p->d, NULL, NULL);
	p->exports = exports__free(p->exports);
	if (daemon__stop(p->d) < 0 || made < 0)
		say(p, LOG_ERR, "the last buckets could not be written to %s", p->set.history_dir);
	return err < 0 ? EXIT_PROF_FAIL : EXIT_PROF_OK;
}

/* ---- background ------------------------------------------------------------------------ */

/*
 * Without --foreground: the parent waits until the child is ready (or says why it is
 * not) and exits with its verdict, so `profd && prof daemon status` works in scripts.
 * Forked before anything is opened or any thread runs.
 */
static int go_background(struct profd *p)
{
	int fds[2];
	pid_t pid;
	char c = 1;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid > 0) {
		close(fds[1]);
		_exit(read(fds[0], &c, 1) == 1 && c == 0 ? EXIT_PROF_OK : EXIT_PROF_FAIL);
	}
	close(fds[0]);
	setsid();
	p->ready_fd = fds[1];
	openlog("profd", LOG_PID, LOG_DAEMON);
	return 0;
}

static void ready(struct profd *p)
{
	char ok = 0;
	int null;

	notify("READY=1");
	if (p->ready_fd < 0)
		return;
	if (write(p->ready_fd, &ok, 1) < 0) {
		/* the parent is gone: nobody waits */
	}
	close(p->ready_fd);
	p->ready_fd = -1;
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		close(null);
	}
}

/* ---- main ------------------------------------------------------------------------------ */

static int parse(struct profd *p, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "foreground", no_argument, NULL, 'f' },
		{ "config", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'v' },
		{ 0 }
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+fhv", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			p->foreground = true;
			break;
		case 'c':
			p->config_path = optarg;
			p->config_given = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return 1;
		case 'v':
			printf("profd %s\n", PROF_VERSION);
			return 1;
		default:
			fprintf(stderr, "profd: unknown option '%s' (see profd --help)\n", argv[optind - 1]);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "profd: unexpected argument '%s' (see profd --help)\n", argv[optind]);
		return -EINVAL;
	}
	return 0;
}

/* Privileges and the configuration, before anything is opened.  0 or an exit code. */
static int prepare(struct profd *p)
{
	char err[1024];
	bool absent;

	if (privs__probe(&p->pf.privs) < 0 || !privs__can_record_system_wide(&p->pf.privs)) {
		say(p, LOG_ERR, "not allowed to open system-wide perf events: profd needs CAP_PERFMON (or "
		    "CAP_SYS_ADMIN); run it as root or as the unit etc/profd.service does");
		return EXIT_PROF_FAIL;
	}
	if (load_config(p, &p->pf.cfg, &absent, err, sizeof(err)) < 0 ||
	    settings_of(&p->pf.cfg, &p->set, err, sizeof(err)) < 0 || session_opts(p, err, sizeof(err)) < 0) {
		say(p, LOG_ERR, "%s", err);
		return EXIT_PROF_USAGE;
	}
	if (absent)
		say(p, LOG_INFO, "no configuration file at %s: running on the built-in defaults", p->config_path);
	/* profd serves every tenant: its servers are its prof.conf's [symbols], never its
	 * environment's; and libdwfl on the sampling thread must ask none itself (the
	 * worker does: start_debuginfod), so DEBUGINFOD_URLS goes (profd(8)) */
	if (getenv("DEBUGINFOD_URLS"))
		say(p, LOG_INFO, "DEBUGINFOD_URLS in profd's environment is not used: [symbols] debuginfod_urls in %s "
		    "names profd's servers", p->config_path);
	(void)debuginfod__setup(NULL, 0, false);
	/* the daemon records every task: the policy's verdict is an admin's */
	p->pf.verdict = (struct policy_verdict){ .admin = true, .kernel = true, .uid = getuid() };
	return open_cgroup_root(&p->pf);
}

int main(int argc, char **argv)
{
	struct profd p = { .config_path = PROF_SYSCONFDIR "/prof.conf", .ready_fd = -1 };
	int ret;

	ret = parse(&p, argc, argv);
	if (ret)
		return ret > 0 ? EXIT_PROF_OK : EXIT_PROF_USAGE;
	record_opts__init(&p.ro);
	preflight__init(&p.pf);
	signals__install_daemon();
	curl_global_init(CURL_GLOBAL_DEFAULT);  /* before any thread: push's libcurl */
	if (!p.foreground && go_background(&p) < 0) {
		fprintf(stderr, "profd: cannot go to the background: %s\n", strerror(errno));
		return EXIT_PROF_FAIL;
	}
	ret = prepare(&p);
	/* before the server's thread starts: a status asked at once says "up 0 s", not
	 * the time since 1970 */
	p.started_ns = sampler__realtime_ns();
	if (!ret)
		ret = profd_start(&p);
	if (!ret) {
		say(&p, LOG_INFO, "sampling %s at %" PRIu64 " Hz per CPU%s%s, %s set*uid(); history %" PRIu64 " s in %" PRIu64
		    " s buckets within %" PRIu64 " MiB, in %s; answering on %s", p.set.event, p.set.freq,
		    p.set.callchain ? " with call chains" : "",
		    p.set.python_frames && !p.set.python_why[0] ? " and Python frames" : "", p.set.creds ? "following" : "NOT following",
		    p.pf.cfg.daemon.history, p.pf.cfg.daemon.bucket, (uint64_t)(p.set.history.memory_max >> 20),
		    p.set.history_dir, p.pf.cfg.daemon.socket);
		ready(&p);
		ret = profd_loop(&p);
		say(&p, LOG_INFO, "stopped (%s)", signals__stop() == SIGINT ? "SIGINT" : "SIGTERM");
	}
	if (p.d)
		daemon__set_exports_status(p.d, NULL, NULL);
	exports__free(p.exports);
	daemon__free(p.d);
	session__free(p.session);
	sampler__free(p.sampler);
	say_debuginfod(&p);
	/* after the sampler, whose symbols borrow it */
	debuginfod_worker__stop(p.debuginfod);
	preflight__release(&p.pf);
	record_opts__release(&p.ro);
	curl_global_cleanup();
	if (p.pf.cfg.daemon.socket[0] && !ret)
		unlink(p.pf.cfg.daemon.socket);
	return ret;
}
