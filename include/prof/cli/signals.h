/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The stop signals of the commands that record (record, top): SIGINT, SIGTERM and
 * SIGHUP end the recording cleanly, even during start-up.  The handler only sets a
 * flag (poll() returns EINTR and the loop looks at it).  SIGCHLD interrupts poll()
 * too, so the loop sees at once that the workload exited; SIGPIPE is ignored.
 */
#ifndef PROF_CLI_SIGNALS_H
#define PROF_CLI_SIGNALS_H

void signals__install(void);

/* The signal that asked to stop, 0 while none did. */
int signals__stop(void);

/* profd's: SIGINT and SIGTERM stop, SIGHUP asks to reload the configuration. */
void signals__install_daemon(void);
/* Whether SIGHUP came since the last call (it is taken). */
int signals__reload(void);

#endif
