/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * prof ui: a web view of perf.data files (and of the user's own history in profd),
 * served on loopback behind a per-run token (src/ui/).  Each window the page asks
 * for is read by prof report's own steps (report__open, report__read) with a time
 * window, so its numbers are prof report's for those samples.
 */
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "prof/base/escape.h"
#include "prof/base/util.h"
#include "prof/base/vec.h"
#include "prof/cli/commands.h"
#include "prof/cli/report.h"
#include "prof/cli/signals.h"
#include "prof/cli/ui_sources.h"
#include "prof/sys/privs.h"
#include "prof/ui/ui.h"

static const char usage[] =
	"usage: prof ui [-i FILE]... [--daemon] [--listen ADDR:PORT] [--allow-remote]\n"
	"A web view of profiles: a timeline to select a window, its flame graph\n"
	"(click to zoom, search) and its top functions.  Prints its address (with a\n"
	"token every request needs) first, then serves until interrupted.\n"
	"\n"
	"  -i, --input FILE        a perf.data file (prof's or perf's); several: one\n"
	"                          source each (read with your own rights)\n"
	"      --daemon            your own history in profd (the default without -i)\n"
	"      --since D           with --daemon: how far back (default 1h)\n"
	"      --socket PATH       with --daemon: profd's socket\n"
	"      --listen ADDR:PORT  where to serve (default 127.0.0.1:0, a free port)\n"
	"      --allow-remote      let --listen take an address that is not loopback\n"
	"  -h, --help              this text\n"
	"\n"
	"From another machine: ssh -L PORT:127.0.0.1:PORT host, then open the address.\n"
	"See prof-ui(1).\n";

enum { OPT_DAEMON = 256, OPT_SINCE, OPT_SOCKET, OPT_LISTEN, OPT_REMOTE };

struct ui_opts {
	const char **inputs;
	size_t nr_inputs, cap_inputs;
	bool daemon;
	const char *since, *socket;
	struct ui_server_opts server;
};

/* 0, 1 for --help, -EINVAL after a message. */
static int parse_opts(struct ui_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' }, { "daemon", no_argument, NULL, OPT_DAEMON },
		{ "since", required_argument, NULL, OPT_SINCE }, { "socket", required_argument, NULL, OPT_SOCKET },
		{ "listen", required_argument, NULL, OPT_LISTEN }, { "allow-remote", no_argument, NULL, OPT_REMOTE },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+i:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (VEC_RESERVE(o->inputs, o->cap_inputs, o->nr_inputs + 1) < 0)
				return -ENOMEM;
			o->inputs[o->nr_inputs++] = optarg;
			break;
		case OPT_DAEMON: o->daemon = true; break;
		case OPT_SINCE: o->since = optarg; break;
		case OPT_SOCKET: o->socket = optarg; break;
		case OPT_LISTEN: o->server.listen = optarg; break;
		case OPT_REMOTE: o->server.allow_remote = true; break;
		case 'h': return 1;
		default:
			fprintf(stderr, "prof ui: see prof ui --help\n");
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "prof ui: unexpected argument '%s' (files are given with -i)\n", argv[optind]);
		return -EINVAL;
	}
	if (!o->nr_inputs)
		o->daemon = true;
	if (!o->daemon && (o->since || o->socket)) {
		fprintf(stderr, "prof ui: --since and --socket ask profd: give --daemon too\n");
		return -EINVAL;
	}
	return 0;
}

static void log_stderr(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "prof ui: %s\n", msg);
}

static const struct ui_source_info *provider_info(void *ctx, size_t i)
{
	return ui_sources__info(ctx, i);
}

static int provider_window(void *ctx, size_t i, size_t ev, uint64_t from, uint64_t until,
			   const struct profile **ret, const struct model **ret_model, char *err, size_t errlen)
{
	return ui_sources__window(ctx, i, ev, from, until, ret, ret_model, err, errlen);
}

static int provider_pprof(void *ctx, size_t i, size_t ev, const struct profile *p, uint64_t from, uint64_t until,
			  int fd, char *err, size_t errlen)
{
	return ui_sources__pprof(ctx, i, ev, p, from, until, fd, err, errlen);
}

/* Serve until SIGINT or SIGTERM.  An exit code. */
static int serve(struct ui_opts *o, struct ui_sources *srcs)
{
	struct ui_provider p = { .nr_sources = ui_sources__count(srcs), .info = provider_info,
				 .window = provider_window, .pprof = provider_pprof, .ctx = srcs };
	struct ui_server *s;
	char err[400];
	int e = ui_token__new(o->server.token);

	if (e < 0) {
		fprintf(stderr, "prof ui: no random token: getrandom: %s\n", strerror(-e));
		return EXIT_PROF_FAIL;
	}
	o->server.log = log_stderr;
	e = ui_server__start(&o->server, &p, &s, err, sizeof(err));
	if (e < 0) {
		fprintf(stderr, "prof ui: %s\n", e == -ENOMEM ? "out of memory" : err);
		return e == -EINVAL ? EXIT_PROF_USAGE : EXIT_PROF_FAIL;
	}
	printf("prof ui: http://%s/?token=%s\n", ui_server__address(s), o->server.token);
	fflush(stdout);
	while (!signals__stop())
		poll(NULL, 0, 1000);    /* a signal ends the wait at once */
	ui_server__stop(s);
	fprintf(stderr, "prof ui: stopped\n");
	return EXIT_PROF_OK;
}

int cmd_ui(int argc, char **argv)
{
	struct ui_opts o = { 0 };
	struct ui_sources *srcs = NULL;
	int err = parse_opts(&o, argc, argv), ret;

	if (err == 1) {
		fputs(usage, stdout);
		free(o.inputs);
		return EXIT_PROF_OK;
	}
	signals__install();
	if (!err)
		err = ui_sources__new(&srcs);
	for (size_t i = 0; i < o.nr_inputs && !err && !signals__stop(); i++)
		err = ui_sources__add_file(srcs, o.inputs[i]);
	if (!err && o.daemon)
		err = ui_sources__add_daemon(srcs, o.socket, o.since);
	if (err == -ENOMEM)
		fprintf(stderr, "prof ui: out of memory\n");
	ret = err == -EINVAL ? EXIT_PROF_USAGE : err < 0 ? EXIT_PROF_FAIL
	      : signals__stop() ? EXIT_PROF_OK : serve(&o, srcs);
	ui_sources__free(srcs);
	free(o.inputs);
	return ret;
}
