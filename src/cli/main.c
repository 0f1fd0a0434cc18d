/* SPDX-License-Identifier: GPL-2.0-or-later */
/* prof: a profiler for one tenant of a shared Linux host.  CLI dispatch. */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "prof/base/util.h"
#include "prof/cli/commands.h"

/* Every command: dispatch, the help's list and the unknown command's message. */
static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *what;
} commands[] = {
	{ "record", cmd_record, "record samples into a perf.data file (the default command)" },
	{ "report", cmd_report, "break a perf.data file (or profd's history) down by user, ..." },
	{ "top", cmd_top, "a live view of the hottest symbols of a user, cgroup, tree" },
	{ "daemon", cmd_daemon, "what profd, the host's always-on profiler, is doing" },
	{ "ui", cmd_ui, "a web view of files or your profd history: timeline, flame graph" },
};

static void usage(FILE *f)
{
	fputs("usage: prof [record] [options] [-- command [args...]]\n"
	      "       prof <command> [options]      (prof <command> --help: its options)\n"
	      "\n"
	      "Commands:\n", f);
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].what);
	fputs("\n"
	      "Options:\n"
	      "  -h, --help      this text\n"
	      "  -v, --version   prof's version\n"
	      "\n"
	      "Examples:\n"
	      "  prof -a -g -- make -j8            record the host while make runs\n"
	      "  prof record -a --duration 10      record the host for ten seconds\n"
	      "  prof report --sort uid,comm,sym   break the recording down by user\n"
	      "  prof report --daemon --since 1h   your own last hour, from profd\n"
	      "\n"
	      "The output is a standard perf.data file: perf report and perf script read it.\n"
	      "See prof(1), prof-record(1), prof-report(1), prof-top(1), prof-ui(1), profd(8).\n", f);
}

int main(int argc, char **argv)
{
	const char *verb = argc > 1 ? argv[1] : NULL;

	if (verb && (!strcmp(verb, "-h") || !strcmp(verb, "--help") || !strcmp(verb, "help"))) {
		usage(stdout);
		return EXIT_PROF_OK;
	}
	if (verb && (!strcmp(verb, "-v") || !strcmp(verb, "--version"))) {
		printf("prof %s\n", PROF_VERSION);
		return EXIT_PROF_OK;
	}
	if (!verb) {
		usage(stderr);
		return EXIT_PROF_USAGE;
	}
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(verb, commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	/* record is the default verb: "prof -a -- make" is "prof record -a -- make". */
	if (verb[0] == '-')
		return cmd_record(argc, argv);
	fprintf(stderr, "prof: unknown command '%s' (commands:", verb);
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(stderr, "%s %s", i ? "," : "", commands[i].name);
	fprintf(stderr, "; see prof --help)\n");
	return EXIT_PROF_USAGE;
}
