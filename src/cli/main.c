/* SPDX-License-Identifier: GPL-2.0-or-later */
/* prof: a profiler for one tenant of a shared Linux host.  CLI dispatch. */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "prof/cli/commands.h"

static const char usage[] =
	"usage: prof [record] [options] [-- command [args...]]\n"
	"       prof <command> [options]\n"
	"\n"
	"Commands:\n"
	"  record   record samples into a perf.data file (the default command)\n"
	"  report   break a perf.data file down by user, cgroup, process, object, symbol\n"
	"  top      a live view of the hottest symbols of a user, cgroup or process tree\n"
	"\n"
	"Options:\n"
	"  -h, --help      this text; 'prof record --help' for recording options\n"
	"  -v, --version   prof's version\n"
	"\n"
	"Examples:\n"
	"  prof -a -g -- make -j8          record the host while make runs\n"
	"  prof record -a --duration 10    record the host for ten seconds\n"
	"  prof report --sort uid,comm,sym break the recording down by user\n"
	"\n"
	"The output is a standard perf.data file: perf report and perf script read it.\n"
	"See prof(1).\n";

int main(int argc, char **argv)
{
	const char *verb = argc > 1 ? argv[1] : NULL;

	if (verb && (!strcmp(verb, "-h") || !strcmp(verb, "--help") || !strcmp(verb, "help"))) {
		fputs(usage, stdout);
		return EXIT_PROF_OK;
	}
	if (verb && (!strcmp(verb, "-v") || !strcmp(verb, "--version"))) {
		printf("prof %s\n", PROF_VERSION);
		return EXIT_PROF_OK;
	}
	if (!verb) {
		fputs(usage, stderr);
		return EXIT_PROF_USAGE;
	}
	if (!strcmp(verb, "record"))
		return cmd_record(argc - 1, argv + 1);
	if (!strcmp(verb, "report"))
		return cmd_report(argc - 1, argv + 1);
	if (!strcmp(verb, "top"))
		return cmd_top(argc - 1, argv + 1);
	if (!strcmp(verb, "daemon"))
		return cmd_daemon(argc - 1, argv + 1);
	/* record is the default verb: "prof -a -- make" is "prof record -a -- make". */
	if (verb[0] == '-')
		return cmd_record(argc, argv);
	fprintf(stderr, "prof: unknown command '%s' (commands: record, report, top, daemon; see prof --help)\n", verb);
	return EXIT_PROF_USAGE;
}
