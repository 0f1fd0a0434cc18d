/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <signal.h>

#include "prof/cli/signals.h"

/* The pieces of global state: a signal handler can reach nothing else. */
static volatile sig_atomic_t stop_signal, reload_signal;

static void on_reload_signal(int sig)
{
	reload_signal = 1;
}

static void on_stop_signal(int sig)
{
	stop_signal = sig;
}

/* Nothing to note: the signal's use is that poll() returns EINTR, so the loop sees
 * at once that the workload exited. */
static void on_sigchld(int sig)
{
}

void signals__install(void)
{
	struct sigaction sa = { .sa_handler = on_stop_signal };

	/* No SA_RESTART: poll() returns EINTR and the loop looks at the flag. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_sigchld;
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

int signals__stop(void)
{
	return stop_signal;
}

void signals__install_daemon(void)
{
	struct sigaction sa = { .sa_handler = on_stop_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_reload_signal;
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

int signals__reload(void)
{
	int r = reload_signal;

	reload_signal = 0;
	return r;
}
