/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "prof/analyze/model.h"
#include "prof/analyze/profile.h"
#include "prof/base/escape.h"
#include "prof/base/strset.h"
#include "prof/base/util.h"
#include "prof/cli/commands.h"
#include "prof/cli/daemon_report.h"
#include "prof/cli/daemon_top.h"
#include "prof/cli/report_opts.h"
#include "prof/cli/signals.h"
#include "prof/daemon/sampler.h"
#include "prof/output/keys.h"

static const char usage[] =
	"usage: prof top --daemon [--uid USER] [--cgroup CG] [--comm NAME] [options]\n"
	"\n"
	"prof top's view of what profd samples, from its history: no privilege needed,\n"
	"you see your own tasks (admins: any).\n"
	"\n"
	"  -u, --uid USER          only this user's tasks (yours unless you are an admin)\n"
	"  -G, --cgroup CGROUP     only this cgroup v2 subtree\n"
	"      --comm NAME         only this command name\n"
	"  -g, --call-graph        rows are call chains, not just symbols\n"
	"  -s, --sort KEYS         uid,cgroup,comm,dso,sym (default comm,dso,sym)\n"
	"  -d, --delay SECONDS     refresh interval (default 2, at least 1: the daemon's\n"
	"                          finest bucket)\n"
	"  -n, --iterations N      stop after N refreshes\n"
	"  -z, --zero              each refresh its interval only (default: since start)\n"
	"      --stdio             print snapshots, no full-screen view\n"
	"      --rows N            rows per snapshot (default: the screen, or 40)\n"
	"      --max-stacks N      distinct (task, stack) keys (default 100000)\n"
	"      --socket PATH       profd's socket (default: prof.conf's [daemon] socket)\n"
	"  -h, --help              this text\n"
	"\n"
	"See prof-top(1) and profd(8).\n";

struct dtop {
	struct report_opts ro;          /* selectors, keys, -g, --max-stacks as report's */
	struct daemon_query q;
	double delay;
	uint64_t iterations;
	bool zero, stdio, tty;
	size_t rows;
	char since[32], from[32];
};

bool daemon_top__wanted(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--daemon"))
			return true;
	return false;
}

enum { OPT_DAEMON = 500, OPT_STDIO, OPT_ROWS, OPT_COMM, OPT_SOCKET };

static int parse_uid(struct dtop *t, const char *arg, char *err, size_t errlen)
{
	struct passwd *pw = getpwnam(arg);
	uint64_t v;

	if (pw)
		t->ro.uid = pw->pw_uid;
	else if (parse_u64(arg, 10, &v) == 0 && v < UINT32_MAX)
		t->ro.uid = (uint32_t)v;
	else
		return errorf(err, errlen, "no user '%s'", arg);
	t->ro.has_uid = true;
	return 0;
}

static int parse_opt(struct dtop *t, int c, const char *arg, char *err, size_t errlen)
{
	uint64_t v;
	char *end;

	switch (c) {
	case OPT_DAEMON:
		return 0;
	case 'u':
		return parse_uid(t, arg, err, errlen);
	case 'G':
		t->ro.cgroup = arg;
		return 0;
	case OPT_COMM:
		t->ro.comm = arg;
		return 0;
	case 'g':
		t->ro.callchain = true;
		return 0;
	case 'd':
		t->delay = strtod(arg, &end);
		return *end || !(t->delay >= 1) || t->delay > 3600 ? errorf(err, errlen, "bad delay '%s': seconds, 1 to 3600", arg) : 0;
	case 'n':
		return parse_u64(arg, 10, &t->iterations) < 0 || !t->iterations ? errorf(err, errlen, "bad --iterations '%s'", arg) : 0;
	case 'z':
		t->zero = true;
		return 0;
	case OPT_STDIO:
		t->stdio = true;
		return 0;
	case OPT_ROWS:
		if (parse_u64(arg, 10, &v) < 0 || !v || v > 100000)
			return errorf(err, errlen, "bad --rows '%s'", arg);
		t->rows = (size_t)v;
		return 0;
	case OPT_SOCKET:
		t->q.socket = arg;
		return 0;
	default:
		return view_opts__parse(&t->ro.view, c, arg, err, errlen);
	}
}

static int parse(struct dtop *t, int argc, char **argv, char *err, size_t errlen)
{
	static const struct option longopts[] = {
		{ "daemon", no_argument, NULL, OPT_DAEMON }, { "uid", required_argument, NULL, 'u' },
		{ "cgroup", required_argument, NULL, 'G' }, { "comm", required_argument, NULL, OPT_COMM },
		{ "call-graph", no_argument, NULL, 'g' }, { "delay", required_argument, NULL, 'd' },
		{ "iterations", required_argument, NULL, 'n' }, { "zero", no_argument, NULL, 'z' },
		{ "stdio", no_argument, NULL, OPT_STDIO }, { "rows", required_argument, NULL, OPT_ROWS },
		{ "socket", required_argument, NULL, OPT_SOCKET }, { "help", no_argument, NULL, 'h' }, VIEW_LONGOPTS,
		{ 0 }
	};
	int c, r;

	t->ro.view = (struct view_opts){ .keys = { PROFILE_KEY_COMM, PROFILE_KEY_DSO, PROFILE_KEY_SYM }, .nr_keys = 3 };
	t->delay = 2;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:u:G:gd:n:zs:h", longopts, NULL)) != -1) {
		if (c == 'h')
			return 1;
		r = parse_opt(t, c, optarg, err, errlen);
		if (r == -ENOENT)
			return getopt_error(c, argv, "prof top --daemon", err, errlen);
		if (r < 0)
			return r;
	}
	if (optind < argc)
		return errorf(err, errlen, "unexpected argument '%s'", argv[optind]);
	for (size_t k = 0; k < t->ro.view.nr_keys; k++)
		if (t->ro.view.keys[k] == PROFILE_KEY_PID)
			return errorf(err, errlen, "profd keeps no process ids: sort by uid, cgroup, comm, dso or sym");
	return 0;
}

static void put_line(const struct dtop *t, size_t cols, const char *line)
{
	if (t->tty)
		printf("%.*s\033[K\n", (int)(cols ? cols : 80), line);
	else
		printf("%s\n", line);
}

/* The header: the scope, the event, the window and what it lost. */
static void header(const struct dtop *t, const struct answer *a, size_t cols)
{
	const struct bucket_counts *c = &a->window.c;
	double secs = (double)(a->window.end_ns - a->window.start_ns) / 1e9;
	char line[1024], until[32], scope[128] = "";

	daemon_client__format_time(a->window.end_ns, until, sizeof(until));
	if (t->ro.has_uid || !a->m.admin)
		snprintf(scope, sizeof(scope), "uid %u", t->ro.has_uid ? t->ro.uid : a->m.uid);
	snprintf(line, sizeof(line), "prof top --daemon: %s%s  |  %s, %" PRIu64 " Hz  |  %.1f s up to %s",
		 scope[0] ? scope : "all", t->zero ? " (this interval)" : "", a->m.event, a->m.freq, secs, until);
	put_line(t, cols, line);
	snprintf(line, sizeof(line), "samples %" PRIu64 " (%.0f/s), lost %" PRIu64 ", cut %" PRIu64
		 ", unattributed %" PRIu64, c->samples, secs > 0 ? (double)c->samples / secs : 0.0, c->lost,
		 c->cut_samples, c->unattributed);
	put_line(t, cols, line);
	put_line(t, cols, "");
}

static int render(const struct dtop *t, const struct answer *a)
{
	struct profile *p = profile__new(t->ro.view.max_stacks);
	struct model *m = model__new();
	struct strset names = { 0 };
	bool key_on[PROFILE_KEY__MAX] = { false };
	struct profile_row *rows = NULL;
	struct winsize ws = { 0 };
	char line[4096], buf[4097];
	size_t nr = 0, max;
	int off, err = p && m ? daemon_query__fill_answer(a, p, m, &names) : -ENOMEM;

	for (size_t k = 0; k < t->ro.view.nr_keys; k++)
		key_on[t->ro.view.keys[k]] = true;
	if (!err)
		err = profile__rows(p, key_on, t->ro.callchain, &rows, &nr);
	if (!err) {
		if (t->tty)
			ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws);
		printf(t->tty ? "\033[H" : "\n");
		header(t, a, ws.ws_col);
		off = snprintf(line, sizeof(line), "%9s %9s", "Overhead", "Samples");
		for (size_t k = 0; k < t->ro.view.nr_keys && off < (int)sizeof(line); k++)
			off += snprintf(line + off, sizeof(line) - off, "  %-*s", (int)keys__width(t->ro.view.keys[k]),
					keys__title(t->ro.view.keys[k]));
		put_line(t, ws.ws_col, line);
		max = t->rows ? t->rows : t->tty && ws.ws_row > 6 ? ws.ws_row - 5u : 40;
		for (size_t i = 0; i < nr && i < max; i++) {
			uint64_t total = profile__stats(p)->period;

			off = snprintf(line, sizeof(line), "%8.2f%% %9" PRIu64,
				       total ? 100.0 * (double)rows[i].period / (double)total : 0.0, rows[i].samples);
			for (size_t k = 0; k < t->ro.view.nr_keys && off < (int)sizeof(line); k++) {
				keys__text(&rows[i], t->ro.view.keys[k], m, p, buf, sizeof(buf));
				off += snprintf(line + off, sizeof(line) - off, "  %-*s",
						(int)keys__width(t->ro.view.keys[k]), buf);
			}
			put_line(t, ws.ws_col, line);
		}
		if (t->tty)
			printf("\033[J");
	}
	free(rows);
	profile__free(p);
	model__free(m);
	strset__release(&names);
	return err < 0 || fflush(stdout) ? -EIO : 0;
}

/* One refresh: the interval (-z) or everything since the start. */
static int refresh(struct dtop *t, uint64_t start, uint64_t interval_ns)
{
	int err;

	answer__release(&t->q.a);
	snprintf(t->since, sizeof(t->since), "%" PRIu64 "s", (uint64_t)((interval_ns + 999999999ull) / 1000000000ull));
	snprintf(t->from, sizeof(t->from), "@%" PRIu64, (uint64_t)(start / 1000000000ull));
	t->q.since = t->zero ? t->since : NULL;
	t->q.from = t->zero ? NULL : t->from;
	err = daemon_query__ask(&t->q, &t->ro, "prof top");
	return err < 0 ? err : render(t, &t->q.a);
}

int daemon_top__run(int argc, char **argv)
{
	struct dtop t = { 0 };
	char err[512];
	uint64_t start, shown = 0;
	int r = parse(&t, argc, argv, err, sizeof(err));

	if (r == 1) {
		fputs(usage, stdout);
		return EXIT_PROF_OK;
	}
	if (r < 0) {
		fprintf(stderr, "prof top: %s\n", err);
		return EXIT_PROF_USAGE;
	}
	signals__install();
	t.tty = !t.stdio && isatty(STDOUT_FILENO);
	if (t.tty)
		printf("\033[H\033[2J");
	start = sampler__realtime_ns();
	while (!signals__stop()) {
		struct pollfd none = { .fd = -1 };

		poll(&none, 0, (int)(t.delay * 1000));
		if (signals__stop())
			break;
		if (refresh(&t, start, (uint64_t)(t.delay * 1e9)) < 0) {
			answer__release(&t.q.a);
			return EXIT_PROF_FAIL;
		}
		if (t.iterations && ++shown >= t.iterations)
			break;
	}
	answer__release(&t.q.a);
	return EXIT_PROF_OK;
}
