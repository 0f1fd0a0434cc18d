/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * prof top --daemon: prof top's rows over profd's history instead of a session of
 * its own, refreshed from the daemon's one-second buckets; no privilege needed (the
 * daemon shows each user their own tasks only).
 */
#ifndef PROF_CLI_DAEMON_TOP_H
#define PROF_CLI_DAEMON_TOP_H

#include <stdbool.h>

/* Does this prof top command line ask the daemon (--daemon)? */
bool daemon_top__wanted(int argc, char **argv);

/* The command.  An exit code. */
int daemon_top__run(int argc, char **argv);

#endif
