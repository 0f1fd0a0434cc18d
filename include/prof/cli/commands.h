/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Entry points of prof's subcommands; each returns the process exit code. */
#ifndef PROF_CLI_COMMANDS_H
#define PROF_CLI_COMMANDS_H

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_daemon(int argc, char **argv);
int cmd_ui(int argc, char **argv);

/* Exit codes shared by the commands. */
enum {
	EXIT_PROF_OK = 0,
	EXIT_PROF_FAIL = 1,             /* recording or reading failed */
	EXIT_PROF_USAGE = 2,            /* bad command line or config */
	EXIT_PROF_NOEXEC = 126,         /* workload found but not executable */
	EXIT_PROF_NOTFOUND = 127,       /* workload not found */
};

#endif
