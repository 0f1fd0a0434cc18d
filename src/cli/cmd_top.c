/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * prof top: a live view of where the scope's time goes, like perf top, per tenant.
 * The same session as prof record (privileges, policy, scope, events, the judging
 * pipeline); what passes the scope feeds the report's model, symbolizer and the
 * aggregation engine instead of a file.  On a terminal the view refreshes in place
 * (q or Ctrl-C quits, z zeroes); elsewhere, or with --stdio, one snapshot is printed
 * per interval.
 */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>

#include "prof/cli/commands.h"
#include "prof/cli/daemon_top.h"
#include "prof/base/escape.h"
#include "prof/analyze/analysis.h"
#include "prof/analyze/debuginfod.h"
#include "prof/analyze/debuginfod_worker.h"
#include "prof/analyze/symbols.h"
#include "prof/analyze/model_reaper.h"
#include "prof/analyze/attribution.h"
#include "prof/analyze/profile.h"
#include "prof/cli/report_opts.h"
#include "prof/output/keys.h"
#include "prof/perfdata/perf_reader.h"
#include "prof/python/hint.h"
#include "prof/jvm/frames.h"
#include "prof/jvm/jvm.h"
#include "prof/python/python.h"
#include "prof/node/frames.h"
#include "prof/analyze/resolver.h"
#include "prof/base/util.h"
#include "prof/cli/preflight.h"
#include "prof/cli/signals.h"
#include "prof/cli/top_offcpu.h"
#include "prof/offcpu/offcpu.h"
#include "prof/record/session.h"
#include "prof/sys/pressure.h"

static const char usage[] =
	"usage: prof top [--uid USER|--cgroup CG|--container ID|--pid PID|-a] [options]\n"
	"A live view of the scope's hottest symbols (or call chains with -g).\n"
	"\n"
	"  -u, --uid USER[,USER]   everything these users run (repeatable)\n"
	"  -G, --cgroup CGROUP     everything in this cgroup v2 subtree (repeatable)\n"
	"      --container ID, --pod UID   a container (id, 12+ digit prefix), a pod\n"
	"  -p, --pid PID[,PID]     these processes and their descendants\n"
	"  -a, --all               every task on the host\n"
	"  -e, --event EVENT       sampling event (default: cycles, else cpu-clock)\n"
	"  -F, --freq HZ|max       samples per second per CPU (default 4000); -c PERIOD\n"
	"  -g, --call-graph        rows are call chains, not just symbols;\n"
	"                          --call-graph dwarf unwinds them, with Python, Java\n"
	"                          and JavaScript frames\n"
	"      --off-cpu           per row: on a CPU, waiting, blocked; who held it\n"
	"      --holders BY        who held it by user (default), cgroup or container\n"
	"  -s, --sort KEYS         uid,cgroup,container,pid,comm,dso,sym\n"
	"  -d, --delay SECONDS     refresh interval (default 2); -n N: stop after N\n"
	"  -z, --zero              start each interval from zero (default: cumulative)\n"
	"      --stdio, --rows N   print snapshots (N rows), no full-screen view\n"
	"      --max-stacks N      distinct (task, stack) keys kept; beyond: cut\n"
	"  -m, --mmap-pages PAGES  ring buffer pages per CPU;  --config FILE  prof.conf\n"
	"      --daemon            profd's history, no privilege (prof top --daemon -h)\n"
	"  -h, --help              this text\n"
	"Keys: q quits, z zeroes the counts, h switches --holders (--off-cpu).\n"
	"The same access rules as prof record apply.  See prof-top(1).\n";

struct top_opts {
	struct view_opts view;          /* --sort, --max-stacks */
	double delay;
	uint64_t iterations;            /* 0: until q or a signal */
	bool zero, stdio;
	size_t rows;                    /* 0: fit the screen (40 when not a terminal) */
	enum top_holders holders;       /* --off-cpu: holders by user, cgroup, container */
};

/* Exited tasks, forgotten by the model once their last samples are in. */
#define TOP_FORGET_AFTER_NS (3ull * 1000 * 1000 * 1000)

struct top {
	struct record_opts ro;          /* the session's options */
	struct debuginfod_worker *debuginfod;   /* DEBUGINFOD_URLS: fetches off the reading thread */
	struct preflight pf;
	struct session *session;
	struct top_opts o;
	struct analysis an;
	struct strset names;
	struct profile *prof;
	struct attribution attr;        /* samples to the engine, keyed by the --sort facts */
	struct sample_layout layout;    /* of the samples the session passes on (unwound
					 * with --call-graph dwarf) */
	uint64_t dropped;               /* samples too short to read */
	bool tty;                       /* full-screen view */
	struct termios saved_tio;
	bool tio_saved;
	uint64_t interval_start;
	char scope[512];
	struct model_reaper reaper;     /* the model forgets exited tasks */
	struct top_offcpu *off;         /* --off-cpu: the runq and blocked intervals */
	/* --off-cpu: the view's span in the samples' time (CLOCK_MONOTONIC, as top's):
	 * from its start (the session's, or a zeroing) to what was judged, so the shares
	 * are of the time the counted samples cover, whatever their delay */
	uint64_t data_start;
	struct pressure_set pressure;   /* the scope's cgroups' PSI and cpu.stat */
};

enum { OPT_STDIO = RECORD_OPT_CONFIG + 1, OPT_ROWS, OPT_OFF_CPU, OPT_HOLDERS };

/* --holders' words, as enum top_holders: the report's keys' names or the plain ones. */
static const char *const holders_names[TOP_HOLDERS__MAX][2] = {
	[TOP_HOLDERS_USER] = { "user", "holder" },
	[TOP_HOLDERS_CGROUP] = { "cgroup", "holder_cgroup" },
	[TOP_HOLDERS_CONTAINER] = { "container", "holder_container" },
};

/* top's own options: -d, -n, -z, --stdio, --rows.  0, -EINVAL, or -ENOENT for another. */
static int parse_view_opt(struct top_opts *o, int c, const char *arg, char *err, size_t errlen)
{
	uint64_t v;
	char *end;
	double d;

	switch (c) {
	case 'd':
		d = strtod(arg, &end);
		if (*end || !(d >= 0.05) || !isfinite(d) || d > 3600)
			return errorf(err, errlen, "bad delay '%s': give seconds between refreshes, 0.05 to 3600", arg);
		o->delay = d;
		return 0;
	case 'n':
		if (parse_u64(arg, 10, &v) < 0 || v == 0)
			return errorf(err, errlen, "bad --iterations '%s': a positive number of refreshes", arg);
		o->iterations = v;
		return 0;
	case 'z':
		o->zero = true;
		return 0;
	case OPT_STDIO:
		o->stdio = true;
		return 0;
	case OPT_ROWS:
		if (parse_u64(arg, 10, &v) < 0 || v == 0 || v > 100000)
			return errorf(err, errlen, "bad --rows '%s': a positive number of rows", arg);
		o->rows = (size_t)v;
		return 0;
	case OPT_HOLDERS:
		for (int h = 0; h < TOP_HOLDERS__MAX; h++)
			if (!strcmp(arg, holders_names[h][0]) || !strcmp(arg, holders_names[h][1])) {
				o->holders = (enum top_holders)h;
				return 0;
			}
		return errorf(err, errlen, "bad --holders '%s': give user, cgroup or container", arg);
	default:
		return view_opts__parse(&o->view, c, arg, err, errlen);
	}
}

/*
 * --off-cpu: rows of tasks by default (on-CPU and off-CPU stacks end in different
 * symbols, so a row of a symbol would be one or the other), and an on-CPU event whose
 * period is nanoseconds, as the intervals' are, or the three would not add.
 */
static int check_off_cpu(struct top *t, bool sort_given, char *err, size_t errlen)
{
	const struct event_spec *e = &t->ro.events[0];

	if (!sort_given) {
		t->o.view.keys[0] = PROFILE_KEY_PID;
		t->o.view.keys[1] = PROFILE_KEY_COMM;
		t->o.view.nr_keys = 2;
	}
	for (size_t k = 0; k < t->o.view.nr_keys; k++)
		if (t->o.view.keys[k] == PROFILE_KEY_HOLDER || t->o.view.keys[k] == PROFILE_KEY_HOLDER_CGROUP ||
		    t->o.view.keys[k] == PROFILE_KEY_HOLDER_CONTAINER)
			return errorf(err, errlen, "prof top --off-cpu shows the holders in every row: leave %s out "
				      "of --sort, and give --holders user, cgroup or container (or press h)",
				      keys__name(t->o.view.keys[k]));
	if (t->ro.callchain)
		return errorf(err, errlen, "prof top --off-cpu shows rows of --sort keys, not call chains: leave out "
			      "-g, or prof record --off-cpu -g and then prof report -g");
	if (!t->ro.event_given) {
		event_spec__parse("cpu-clock", &t->ro.events[0]);
		return 0;
	}
	if (e->type != PERF_TYPE_SOFTWARE ||
	    (e->config != PERF_COUNT_SW_CPU_CLOCK && e->config != PERF_COUNT_SW_TASK_CLOCK))
		return errorf(err, errlen, "prof top --off-cpu adds the time on a CPU to the time off it: the "
			      "event must count nanoseconds (-e cpu-clock or task-clock), not %s", e->name);
	return 0;
}

static int parse_opts(struct top *t, int argc, char **argv, char *err, size_t errlen)
{
	static const struct option longopts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "uid", required_argument, NULL, 'u' },
		{ "cgroup", required_argument, NULL, 'G' },
		{ "pid", required_argument, NULL, 'p' },
		RECORD_SCOPE_LONGOPTS,
		{ "event", required_argument, NULL, 'e' },
		{ "freq", required_argument, NULL, 'F' },
		{ "count", required_argument, NULL, 'c' },
		{ "call-graph", optional_argument, NULL, 'g' },
		{ "mmap-pages", required_argument, NULL, 'm' },
		{ "config", required_argument, NULL, RECORD_OPT_CONFIG },
		VIEW_LONGOPTS,
		{ "delay", required_argument, NULL, 'd' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "zero", no_argument, NULL, 'z' },
		{ "stdio", no_argument, NULL, OPT_STDIO },
		{ "rows", required_argument, NULL, OPT_ROWS },
		{ "off-cpu", no_argument, NULL, OPT_OFF_CPU },
		{ "holders", required_argument, NULL, OPT_HOLDERS },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct top_opts *o = &t->o;
	struct record_opts *ro = &t->ro;
	bool sort_given = false, holders_given = false;
	int c, r;

	*o = (struct top_opts){ .view = { .keys = { PROFILE_KEY_COMM, PROFILE_KEY_DSO, PROFILE_KEY_SYM }, .nr_keys = 3 },
				.delay = 2 };
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:au:G:p:e:F:c:gm:s:d:n:zh", longopts, NULL)) != -1) {
		if (c == 'h')
			return 1;
		if (c == OPT_OFF_CPU) {
			ro->off_cpu = true;
			continue;
		}
		sort_given |= c == 's';
		holders_given |= c == OPT_HOLDERS;
		r = record_opts__parse_common(ro, c, record_opts__call_graph_arg(c, optarg, argc, argv), err, errlen);
		if (r == -ENOENT)
			r = parse_view_opt(o, c, optarg, err, errlen);
		if (r == -ENOENT)
			return getopt_error(c, argv, "prof top", err, errlen);
		if (r < 0)
			return r;
	}
	if (optind < argc)
		return errorf(err, errlen, "unexpected argument '%s': prof top runs no command; give a scope", argv[optind]);
	r = record_opts__finish_common(ro, err, errlen);
	if (r < 0)
		return r;
	/* One view, one event: the counts of two events (nanoseconds, page faults) do not add. */
	if (ro->nr_events > 1)
		return errorf(err, errlen, "prof top shows one event at a time: give one -e (-e %s); to see several, "
			      "prof record -e them and prof report shows each in turn", ro->events[0].name);
	if (!ro->all && !scope__narrowed(&ro->scope))
		return errorf(err, errlen, "nothing to watch: give a scope (--uid, --cgroup, --container, --pod, "
			      "--pid) or -a for the whole host");
	if (holders_given && !ro->off_cpu)
		return errorf(err, errlen, "--holders names who held the CPU a wait was for: give --off-cpu too");
	if (ro->off_cpu) {
		r = check_off_cpu(t, sort_given, err, errlen);
		if (r < 0)
			return r;
	}
	/* The view shows only its --sort keys: facts it does not show are not kept
	 * apart, so a host that forks a lot does not fill the cap with one key per pid. */
	attribution__keep_only(&t->attr, o->view.keys, o->view.nr_keys);
	return 0;
}

static bool task_uid(void *ctx, int32_t tid, uint32_t *ret)
{
	return session__uid(((const struct top *)ctx)->session, tid, ret);
}

/* An offcpu-runq sample's holder task, by the session's holder table: its user and
 * cgroup (its path into the model: no CGROUP record of the scope's names it). */
static bool task_holder(void *ctx, uint32_t holder, struct offcpu_holder_info *ret)
{
	const struct top *t = ctx;
	const struct offcpu_holder_info *h = session__offcpu_holder(t->session, holder);

	if (!h)
		return false;
	*ret = *h;
	if (h->cgroup && h->cgroup_path && !model__cgroup(t->an.model, h->cgroup) &&
	    model__add_cgroup(t->an.model, h->cgroup, h->cgroup_path) < 0)
		ret->cgroup = 0;        /* ENOMEM: its cgroup not known, never a wrong one */
	return true;
}

static int on_sample(struct top *t, const struct perf_event_header *ev)
{
	struct sample s;

	if (!sample_layout__sample(&t->layout, ev, &s)) {
		t->dropped++;
		return 0;
	}
	if (t->off) {
		int r = top_offcpu__add(t->off, &t->attr, &s, t->data_start);

		if (r != 0)
			return r < 0 ? -ENOMEM : 0;
	}
	return attribution__add(&t->attr, &s) < 0 ? -ENOMEM : 0;
}

/* The Python frames' names, asked of the session that makes them (no file or
 * cache holds them while top runs). */
static bool python_name(void *ctx, const struct model_dso *d, uint64_t off, const char **ret)
{
	return session__runtime_name(((const struct top *)ctx)->session, d, off, ret);
}

/* What passes the scope: samples to the engine, sideband to the model. */
static int sink(const void *rec, size_t len, void *ctx)
{
	const struct perf_event_header *ev = rec;
	struct top *t = ctx;

	if (ev->type == PERF_RECORD_SAMPLE)
		return on_sample(t, ev);
	if (ev->type == PERF_RECORD_FINISHED_ROUND)
		return 0;
	if (model_reaper__note(&t->reaper, ev) < 0)
		return -ENOMEM;
	return model__process(t->an.model, ev);
}

static void screen_size(size_t *rows, size_t *cols)
{
	struct winsize ws;

	*rows = 0;
	*cols = 0;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0) {
		*rows = ws.ws_row;
		*cols = ws.ws_col;
	}
}

/* One line, cut to the screen's width on a terminal. */
static void put_line(struct top *t, size_t cols, const char *line)
{
	if (t->tty) {
		printf("%.*s\033[K\r\n", (int)(cols ? cols : 80), line);
		return;
	}
	printf("%s\n", line);
}

/* A holder's name: a uid's user, cgroup or container where the recording may name it
 * (root, admin); self, system, idle, other tenants, [unknown] as they are. */
static void holder_name(const struct top *t, const struct top_holder *h, char *buf, size_t len)
{
	struct profile_row r = { .task = { .holder = h->holder, .holder_cgroup = h->cgroup,
					   .holder_container = h->container } };
	struct passwd *pw;

	switch (t->o.holders) {
	case TOP_HOLDERS_CGROUP:
		keys__text(&r, PROFILE_KEY_HOLDER_CGROUP, t->an.model, t->prof, buf, len);
		return;
	case TOP_HOLDERS_CONTAINER:
		keys__text(&r, PROFILE_KEY_HOLDER_CONTAINER, t->an.model, t->prof, buf, len);
		return;
	default:
		pw = h->holder >= OFFCPU_HOLDER_UID ? getpwuid(h->holder - OFFCPU_HOLDER_UID) : NULL;
		offcpu__holder_text(h->holder, pw ? pw->pw_name : NULL, buf, len);
	}
}

struct open_look {
	struct top *t;
	uint64_t upto;
	size_t nr;
	int err;
};

/* One interval open now: its time since the view's start so far. */
static void on_open(void *ctx, const struct perf_event_header *ev, bool runq, uint64_t since, uint64_t until)
{
	struct open_look *l = ctx;
	struct top *t = l->t;
	uint64_t from = MAX(since, t->data_start), to = MIN(until, l->upto);
	struct sample s;

	if (l->err || to <= from || !sample_layout__sample(session__layout(t->session), ev, &s))
		return;
	s.period = to - from;
	l->nr++;
	if (!t->pf.verdict.kernel) {
		/* as record/offcpu.c writes a tenant's: no kernel address, the user leaf */
		s.ip = 0;
		for (uint64_t i = 0; i < s.nr_callchain && !s.ip; i++)
			if (s.callchain[i] < PERF_CONTEXT_MAX)
				s.ip = s.callchain[i];
		s.misc = (uint16_t)((s.misc & ~PERF_RECORD_MISC_CPUMODE_MASK) | PERF_RECORD_MISC_USER);
	}
	l->err = top_offcpu__add_open(t->off, &t->attr, &s, runq);
}

/* The intervals open now, counted anew up to upto (*ret_nr of them). */
static int count_open(struct top *t, uint64_t upto, size_t *ret_nr)
{
	struct open_look l = { .t = t, .upto = upto };

	top_offcpu__forget_open(t->off);
	session__each_open_offcpu(t->session, on_open, &l);
	*ret_nr = l.nr;
	return l.err;
}

/*
 * --off-cpu's rows: each its time on a CPU, waiting for one and blocked as shares of
 * the interval's wall time (a row of several threads may pass 100 %), and the
 * largest holders of its wait as shares of that wait.
 */
static int render_offcpu(struct top *t, const struct offcpu_stats *os, size_t max, size_t cols)
{
	struct top_offcpu_row *rows = NULL;
	uint64_t samples, cut;
	size_t nr = 0;
	char line[4096], buf[4 * 1024 + 1];
	uint64_t upto = session__judged_upto(t->session);
	double wall = upto > t->data_start ? (double)(upto - t->data_start) : 1;
	size_t open;
	int err, off;

	err = count_open(t, upto, &open);
	if (err < 0)
		return err;
	top_offcpu__counts(t->off, &samples, &cut);
	snprintf(line, sizeof(line), "off-CPU: shares of %.2f s of samples; %" PRIu64 " intervals ended (%" PRIu64
		 " cut), %zu open; since the start: %" PRIu64 " lost in gaps, %" PRIu64 " without a stack",
		 wall / 1e9, samples, cut, open, os ? os->lost_intervals : 0, os ? os->nostack_intervals : 0);
	put_line(t, cols, line);
	put_line(t, cols, "");
	err = top_offcpu__rows(t->off, t->prof, t->attr.keep, t->o.holders, &rows, &nr);
	if (err < 0)
		return err;
	off = snprintf(line, sizeof(line), "%7s %7s %7s", "On-CPU", "Runq", "Blocked");
	for (size_t k = 0; k < t->o.view.nr_keys && off < (int)sizeof(line); k++)
		off += snprintf(line + off, sizeof(line) - off, "  %-*s", (int)keys__width(t->o.view.keys[k]),
				keys__title(t->o.view.keys[k]));
	snprintf(line + off, sizeof(line) - (size_t)off, "  Runq held by%s",
		 t->o.holders == TOP_HOLDERS_CGROUP ? " (cgroup)" : t->o.holders == TOP_HOLDERS_CONTAINER ? " (container)"
													 : "");
	put_line(t, cols, line);
	for (size_t i = 0; i < nr && i < max; i++) {
		const struct top_offcpu_row *r = &rows[i];

		off = snprintf(line, sizeof(line), "%6.1f%% %6.1f%% %6.1f%%", 100.0 * (double)r->on_ns / wall,
			       100.0 * (double)r->runq_ns / wall, 100.0 * (double)r->blocked_ns / wall);
		for (size_t k = 0; k < t->o.view.nr_keys && off < (int)sizeof(line); k++) {
			enum profile_key key = t->o.view.keys[k];

			keys__text(&r->key, key, t->an.model, t->prof, buf, sizeof(buf));
			off += snprintf(line + off, sizeof(line) - off, "  %-*s", (int)keys__width(key), buf);
		}
		/* shares of the wait that ended: an open one's holders are not known yet */
		double ended = (double)(r->runq_ns - r->open_runq_ns);

		for (size_t h = 0; h < r->nr_holders && off < (int)sizeof(line); h++) {
			holder_name(t, &r->holder[h], buf, sizeof(buf));
			off += snprintf(line + off, sizeof(line) - off, "%s%s %.0f%%", h ? " " : "  ", buf,
					100.0 * (double)r->holder_ns[h] / ended);
		}
		if (r->other_holders_ns && off < (int)sizeof(line))
			snprintf(line + off, sizeof(line) - (size_t)off, " others %.0f%%",
				 100.0 * (double)r->other_holders_ns / ended);
		put_line(t, cols, line);
	}
	free(rows);
	return 0;
}

/* Each of the scope's cgroups' pressure since the view's start, one line each. */
static void render_pressure(struct top *t, size_t cols)
{
	char line[1400], what[1024], path[256];

	pressure_set__read(&t->pressure, false);
	for (size_t i = 0; i < t->pressure.nr; i++) {
		const struct pressure_cgroup *c = &t->pressure.cg[i];
		struct pressure d;

		escape__text(path, sizeof(path), c->path);
		if (c->fd < 0) {
			snprintf(line, sizeof(line), "cgroup %s: not read: %s", path, strerror(-c->open_err));
		} else {
			pressure__diff(&c->first, &c->last, &d);
			pressure__describe(&d, c->last_ns - c->first_ns, what, sizeof(what));
			snprintf(line, sizeof(line), "cgroup %s: %s", path, what);
		}
		put_line(t, cols, line);
	}
}

/* --call-graph dwarf: the Python frames' counts since the start, as prof record's
 * summary says them, and the interpreters that got none.  The lines put. */
static size_t render_python(struct top *t, const struct python_stats *py, const struct python_hint_stats *hint,
			    size_t cols)
{
	char line[1400], what[1024];
	size_t n = 0;

	/* without a stack copy nothing pins a Python frame: say what would, as record does */
	if (hint && hint->samples && !(py && py->chained)) {
		snprintf(line, sizeof(line), "Python: %" PRIu64 " samples of %" PRIu64 " Python process(es) (%s): "
			 "Python frames need --call-graph dwarf", hint->samples, hint->processes, hint->name);
		put_line(t, cols, line);
		n++;
	}

	if (py && py->samples) {
		python_stats__describe(py, what, sizeof(what));
		snprintf(line, sizeof(line), "Python: %s", what);
		put_line(t, cols, line);
		n++;
	}
	if (py && py->rejected) {
		snprintf(line, sizeof(line), "Python: no Python frames for %" PRIu64 " interpreter(s): %s",
			 py->rejected, py->why_rejected);
		put_line(t, cols, line);
		n++;
	}
	return n;
}

/* What debuginfod was asked for the objects named so far (DEBUGINFOD_URLS set). */
static size_t render_debuginfod(struct top *t, size_t cols)
{
	struct debuginfod_stats st;
	char line[320], what[256];

	symbols__debuginfod_stats(t->an.syms, &st);
	if (!st.asked)
		return 0;
	debuginfod__describe(&st, what, sizeof(what));
	snprintf(line, sizeof(line), "debuginfod: %s", what);
	put_line(t, cols, line);
	return 1;
}

/* A runtime's header lines: its frames' counts since the start (what: as prof
 * record's summary says them), and why some processes got none.  The lines put. */
static size_t render_runtime(struct top *t, size_t cols, const char *label, const char *kind, uint64_t samples,
			     const char *what, uint64_t rejected, const char *whose, const char *why)
{
	char line[1400];
	size_t n = 0;

	if (samples) {
		snprintf(line, sizeof(line), "%s: %s", label, what);
		put_line(t, cols, line);
		n++;
	}
	if (rejected) {
		snprintf(line, sizeof(line), "%s: no %s frames for %" PRIu64 " %s: %s", label, kind, rejected,
			 whose, why);
		put_line(t, cols, line);
		n++;
	}
	return n;
}

static size_t render_java(struct top *t, const struct jvm_frames_stats *j, size_t cols)
{
	char what[1024] = "";

	if (!j)
		return 0;
	if (j->samples)
		jvm_frames_stats__describe(j, what, sizeof(what));
	return render_runtime(t, cols, "Java", "Java", j->samples, what, j->rejected, "JVM(s)", j->why_rejected);
}

/* --call-graph dwarf: the JavaScript frames' (node/frames.h). */
static size_t render_node(struct top *t, const struct node_frames_stats *st, size_t cols)
{
	char what[1024] = "";

	if (!st)
		return 0;
	if (st->samples)
		node_frames_stats__describe(st, what, sizeof(what));
	return render_runtime(t, cols, "Node", "JavaScript", st->samples, what, st->rejected, "node process(es)",
			      st->why_rejected);
}

static int render(struct top *t, uint64_t now)
{
	const struct profile_stats *st = profile__stats(t->prof);
	const struct events_info *info = session__info(t->session);
	struct session_stats ss;
	struct profile_row *rows = NULL;
	size_t nr = 0, srows, cols, max, head;
	double secs = (double)(now - t->interval_start) / 1e9;
	char line[4096], buf[4 * 1024 + 1];
	int err, off;

	session__stats(t->session, &ss);
	err = profile__rows(t->prof, t->attr.keep, t->ro.callchain, &rows, &nr);
	if (err < 0)
		return err;
	screen_size(&srows, &cols);
	if (t->tty)
		fputs("\033[H", stdout);
	else
		printf("\n");
	escape__text(buf, sizeof(buf), t->scope);
	snprintf(line, sizeof(line), "prof top: %.2048s  |  %s, %s%" PRIu64 " Hz  |  %.1f s",
		 buf, info->events[0].name, info->freq ? "" : "period ",
		 info->freq ? info->freq : t->ro.period, secs);
	put_line(t, cols, line);
	snprintf(line, sizeof(line), "samples %" PRIu64 " (%.0f/s), lost %" PRIu64 ", cut %" PRIu64
		 " (--max-stacks %zu: %zu keys in use, %zu kB)",
		 st->samples, secs > 0 ? (double)st->samples / secs : 0.0, ss.records->lost + ss.records->lost_samples,
		 st->cut_samples, t->o.view.max_stacks ? t->o.view.max_stacks : (size_t)PROFILE_DEFAULT_MAX_ENTRIES,
		 st->entries, st->bytes / 1024);
	put_line(t, cols, line);
	head = render_python(t, ss.python, ss.python_hint, cols);
	head += render_debuginfod(t, cols);
	head += render_java(t, ss.jvm, cols);
	head += render_node(t, ss.node, cols);
	render_pressure(t, cols);
	head += t->pressure.nr;
	if (t->off) {
		/* one line more above the rows: the off-CPU accounting */
		max = t->o.rows ? t->o.rows : t->tty ? (srows > 7 + head ? srows - 6 - head : 1) : 40;
		err = render_offcpu(t, ss.offcpu, max, cols);
		goto out;
	}
	put_line(t, cols, "");
	off = snprintf(line, sizeof(line), "%9s %9s", "Overhead", "Samples");
	for (size_t k = 0; k < t->o.view.nr_keys && off < (int)sizeof(line); k++)
		off += snprintf(line + off, sizeof(line) - off, "  %-*s", (int)keys__width(t->o.view.keys[k]),
				keys__title(t->o.view.keys[k]));
	put_line(t, cols, line);
	max = t->o.rows ? t->o.rows : t->tty ? (srows > 6 + head ? srows - 5 - head : 1) : 40;
	for (size_t i = 0; i < nr && i < max; i++) {
		double pct = st->period ? 100.0 * (double)rows[i].period / (double)st->period : 0;

		off = snprintf(line, sizeof(line), "%8.2f%% %9" PRIu64, pct, rows[i].samples);
		for (size_t k = 0; k < t->o.view.nr_keys && off < (int)sizeof(line); k++) {
			enum profile_key key = t->o.view.keys[k];

			keys__text(&rows[i], key, t->an.model, t->prof, buf, sizeof(buf));
			off += snprintf(line + off, sizeof(line) - off, "  %-*s", (int)keys__width(key), buf);
		}
		put_line(t, cols, line);
	}
out:
	if (t->tty)
		fputs("\033[J", stdout);
	free(rows);
	if (err < 0)
		return err;
	return fflush(stdout) ? -EIO : 0;
}

/* The view starts again from the last sample's time (the pressure: from its last
 * reading). */
static void zero_view(struct top *t)
{
	for (size_t i = 0; i < t->pressure.nr; i++) {
		t->pressure.cg[i].first = t->pressure.cg[i].last;
		t->pressure.cg[i].first_ns = t->pressure.cg[i].last_ns;
	}
	if (!t->off)
		return;
	top_offcpu__reset(t->off);
	t->data_start = MAX(session__judged_upto(t->session), t->data_start);
}

static void term_restore(struct top *t)
{
	if (!t->tty)
		return;
	/* cursor back, the normal screen back, the line discipline as it was */
	fputs("\033[?25h\033[?1049l", stdout);
	fflush(stdout);
	if (t->tio_saved)
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &t->saved_tio);
	t->tty = false;
}

static void term_setup(struct top *t)
{
	struct termios raw;

	if (t->o.stdio || !isatty(STDOUT_FILENO))
		return;
	t->tty = true;
	if (isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &t->saved_tio) == 0) {
		t->tio_saved = true;
		raw = t->saved_tio;
		/* keys one at a time, unechoed; ISIG stays: Ctrl-C is a stop signal */
		raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		raw.c_cc[VMIN] = 0;
		raw.c_cc[VTIME] = 0;
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw);
	}
	/* the alternate screen, cursor hidden */
	fputs("\033[?1049h\033[?25l\033[H\033[2J", stdout);
	fflush(stdout);
}

/* Keys typed since the last turn: 'q' quits (returns 1), 'z' zeroes, 'h' (--off-cpu)
 * tells the holders apart by the next of user, cgroup, container. */
static int read_keys(struct top *t)
{
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
	char c[64];
	ssize_t n;

	if (!t->tio_saved || poll(&p, 1, 0) <= 0)
		return 0;
	n = read(STDIN_FILENO, c, sizeof(c));
	for (ssize_t i = 0; i < n; i++) {
		if (c[i] == 'q' || c[i] == 'Q')
			return 1;
		if (c[i] == 'z' || c[i] == 'Z') {
			profile__reset(t->prof);
			zero_view(t);
			t->interval_start = clock_mono_ns();
		}
		if ((c[i] == 'h' || c[i] == 'H') && t->off)
			t->o.holders = (enum top_holders)((t->o.holders + 1) % TOP_HOLDERS__MAX);
	}
	return 0;
}

static int top_loop(struct top *t)
{
	uint64_t delay = (uint64_t)(t->o.delay * 1e9), next = clock_mono_ns() + delay, shown = 0;
	int err;

	t->interval_start = clock_mono_ns();
	if (t->tty)
		render(t, t->interval_start);
	while (!signals__stop()) {
		uint64_t now;

		err = session__step(t->session);
		if (err < 0)
			return err;
		/* a debug file arrived: its object is named from now on */
		if (symbols__refresh(t->an.syms))
			resolver__cache_flush(&t->an.res);
		if (read_keys(t))
			break;
		now = clock_mono_ns();
		model_reaper__reap(&t->reaper, t->an.model, now);
		if (now < next)
			continue;
		err = render(t, now);
		if (err < 0)
			return err;
		next = now + delay;
		if (t->o.iterations && ++shown >= t->o.iterations)
			break;
		if (t->o.zero) {
			profile__reset(t->prof);
			zero_view(t);
			t->interval_start = now;
		}
	}
	return 0;
}

/* The view, then the session feeding it.  0, or -errno after a message. */
static int top_start(struct top *t)
{
	struct session_config cfg = preflight__session(&t->pf, &t->ro, 0, sink, t);
	struct session_error e = { 0 };
	int err;

	cfg.live = true;        /* no file: no list of every task with samples */
	/* --call-graph dwarf: the unwinder and the Python frames open the mapped
	 * objects as record's do; -g: the Python frames (their interpreters) */
	cfg.objects = t->ro.dwarf || (t->ro.callchain && !t->ro.no_python_chains);
	t->prof = profile__new(t->o.view.max_stacks);
	if ((t->ro.off_cpu && top_offcpu__new(t->o.view.max_stacks, &t->off) < 0) ||
	    analysis__init(&t->an, &t->names) < 0 || !t->prof ||
	    model_reaper__init(&t->reaper, TOP_FORGET_AFTER_NS) < 0) {
		fprintf(stderr, "prof top: out of memory\n");
		return -ENOMEM;
	}
	t->an.res.kernel_here = true;
	/* the tasks' [vdso] is this kernel's: named from prof's own (none: [unknown]) */
	(void)symbols__expect_own_vdso(t->an.syms);
	/* debuginfod's servers asked by a thread of their own, before the session's
	 * start: the reading thread only opens what it fetched */
	err = debuginfod_worker__from_env(&t->debuginfod);
	if (err < 0)
		fprintf(stderr, "prof top: warning: no debuginfod (%s): no cache directory for its files (HOME or "
			"DEBUGINFOD_CACHE_PATH)\n", strerror(-err));
	if (t->debuginfod)
		symbols__set_worker(t->an.syms, t->debuginfod);
	t->attr.res = &t->an.res;
	t->attr.prof = t->prof;
	t->attr.callchain = t->ro.callchain;
	t->attr.uid_of = task_uid;
	t->attr.uid_ctx = t;
	t->attr.holder_of = task_holder;
	t->attr.holder_ctx = t;
	t->an.res.object_name = python_name;
	t->an.res.object_ctx = t;
	err = session__new(&cfg, &t->session, &e);
	if (err == 0) {
		const struct perf_data_event *evs = session__attrs(t->session, &(size_t){ 0 });

		sample_layout__init(&t->layout, evs[0].attr.sample_type);
		err = session__start(t->session, &e);
	}
	if (err < 0) {
		preflight__explain(&t->pf, &t->ro, &e, NULL);
		return err;
	}
	t->data_start = session__start_time(t->session);
	if (pressure_set__open(&t->pressure, t->pf.cgroup_fd, &t->ro.scope) < 0) {
		fprintf(stderr, "prof top: out of memory\n");
		return -ENOMEM;
	}
	pressure_set__read(&t->pressure, true);
	preflight__warn(&t->ro, t->session);
	/* the kernel's maps are in the model now; kallsyms shows addresses only while
	 * prof holds its privileges */
	if (!t->ro.no_kernel)
		resolver__load_kernel(&t->an.res);
	err = session__drop_privileges(t->session);
	if (err < 0)
		fprintf(stderr, "prof: warning: could not drop capabilities: %s\n", strerror(-err));
	return 0;
}

int cmd_top(int argc, char **argv)
{
	struct top t = { 0 };
	char errbuf[1400];
	int err, ret = EXIT_PROF_FAIL;

	if (daemon_top__wanted(argc, argv))
		return daemon_top__run(argc, argv);     /* profd's history, no session */
	record_opts__init(&t.ro);
	preflight__init(&t.pf);
	err = parse_opts(&t, argc, argv, errbuf, sizeof(errbuf));
	if (err == 1) {
		fputs(usage, stdout);
		record_opts__release(&t.ro);
		return EXIT_PROF_OK;
	}
	if (err < 0) {
		fprintf(stderr, "prof top: %s\n", errbuf);
		ret = EXIT_PROF_USAGE;
		goto out;
	}
	signals__install();
	/* prof top writes no file: record's output settings are not used */
	/* -g's Java frames (jvm/frames.h) when a JVM is in reach, where preflight keeps it */
	if (jvm__in_reach(NULL, t.ro.scope.pids, t.ro.scope.nr_pids))
		t.ro.java_stack = JAVA_G_STACK;
	ret = preflight__run(&t.pf, &t.ro);
	if (ret)
		goto out;
	if (!t.o.view.max_stacks)
		t.o.view.max_stacks = t.pf.cfg.max_stacks;      /* prof.conf's [aggregate], else the default */
	ret = EXIT_PROF_FAIL;
	scope__describe(&t.ro.scope, t.scope, sizeof(t.scope));
	if (top_start(&t) < 0)
		goto out;
	term_setup(&t);
	err = top_loop(&t);
	term_restore(&t);
	if (err < 0) {
		fprintf(stderr, "prof top: %s\n", strerror(-err));
		goto out;
	}
	ret = EXIT_PROF_OK;
out:
	term_restore(&t);
	session__free(t.session);
	debuginfod_worker__stop(t.debuginfod);
	preflight__release(&t.pf);
	record_opts__release(&t.ro);
	profile__free(t.prof);
	top_offcpu__free(t.off);
	pressure_set__release(&t.pressure);
	analysis__release(&t.an);
	strset__release(&t.names);
	model_reaper__release(&t.reaper);
	return ret;
}
