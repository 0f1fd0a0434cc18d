/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * profd's parts, put together: the history (history.h) the sampler writes into from
 * the sampling thread, the store (store.h) that writes it to disk from a thread of
 * its own, and the socket (server.h) that answers from a third, each peer through
 * the access policy (view.h).  The command (src/cli/profd.c) owns the session and
 * the signals, runs the sampling loop and calls in here.
 *
 * Threads: the sampling thread never waits for a client or the disk (it takes
 * history's writer lock once a second, to add a bucket); the store thread and the
 * server thread take history's readers' lock.  Status is read across threads under
 * small mutexes.
 */
#ifndef PROF_DAEMON_DAEMON_H
#define PROF_DAEMON_DAEMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/daemon/history.h"
#include "prof/offcpu/offcpu.h"
#include "prof/daemon/sampler.h"
#include "prof/daemon/server.h"
#include "prof/daemon/store.h"

struct snap_out;

/* What the configuration makes of the daemon ([daemon] and [policy] of prof.conf). */
struct daemon_settings {
	struct history_config history;
	struct store_config store;      /* its dir points into history_dir */
	struct server_limits server;
	size_t symbols_max;             /* [daemon] symbols_max (the sampler's), as status says it */
	char history_dir[4200];
	bool has_admin_gid;             /* [policy] admin_group names a group */
	uint32_t admin_gid;
	bool user_kernel;               /* [policy] user_kernel */
	bool creds;                     /* set*uid() is followed: users may be served */
	/* the sampling, as answers state it */
	char event[64];
	uint32_t event_type;
	uint64_t event_config;
	uint64_t freq, period;
	bool callchain;
	bool python_frames;             /* [daemon] python_frames asked (the chains may still
					 * not be read: python_why) */
	char python_why[160];           /* why Python frames are not shown, "" when they are */
	bool off_cpu;                   /* [daemon] off_cpu: off-CPU time is kept */
	bool off_cpu_stacks;            /* ... with its call chains */
	uint64_t off_cpu_sample;        /* ... a switch-out stack in N (the switch event's period);
					 * every interval timed */
	uint64_t off_cpu_window_ns;     /* ... read in windows this long (0: always) */
	uint64_t off_cpu_period_ns;     /* ... one every this long */
	char host[256], osrelease[128];
};

/* Python frames as the session counts them (python.h's python_stats). */
struct daemon_python {
	uint64_t processes, rejected;   /* interpreters attached; that got no Python frames */
	uint64_t samples, with_python, verified;
	uint64_t unverified;            /* [python: unverified] frames */
	uint64_t chained;               /* samples shown from their chain (read at their instant) */
	uint64_t name_windows;          /* windows of names let go (python.h, live readers) */
};

/* What the sampling thread publishes after each turn. */
struct daemon_sampling {
	struct sampler_stats sampler;
	uint64_t lost, lost_samples;    /* the kernel's, since the start */
	uint64_t unattributed;
	uint64_t records;               /* read from the rings and passed on (samples, sideband) */
	uint64_t described;             /* tasks looked up in /proc the first time they mattered */
	uint64_t started_ns;            /* realtime */
	bool off_cpu;                   /* [daemon] off_cpu: offcpu holds the intervals' counts */
	struct offcpu_stats offcpu;
	struct daemon_python python;    /* [daemon] python_frames */
};

struct daemon;

/* History made, and read back from the state directory.  0, or -errno with err set. */
int daemon__new(const struct daemon_settings *s, struct daemon **ret, char *err, size_t errlen);
/* Stops the threads first (daemon__stop) when they run.  NULL-safe. */
struct daemon *daemon__free(struct daemon *d);

struct history *daemon__history(struct daemon *d);
/* What was read back at the start (store stats), for the log. */
void daemon__store_stats(struct daemon *d, struct store_stats *ret);

/* Start the store thread and the server on listen_fd (taken), with the settings as
 * the session opened them (the event, rate and whether set*uid() is followed are known
 * only then).  0 or -errno. */
int daemon__start(struct daemon *d, const struct daemon_settings *s, int listen_fd);

/* From the sampling thread: coarse buckets were made (the store has work), and the
 * latest counts. */
void daemon__coarse_made(struct daemon *d);
void daemon__publish(struct daemon *d, const struct daemon_sampling *s);

/*
 * A new configuration: spans, caps, limits and the policy apply at once.  What only
 * a restart changes (the event, rate, call chains, bucket, state directory, socket)
 * is named in msg.  0, or -EINVAL with msg saying why (the old one stays).
 */
int daemon__reconfigure(struct daemon *d, const struct daemon_settings *s, char *msg, size_t msglen);
/* The exports' status lines (status.h), from profd's command: fn runs on the
 * server's thread, so it locks what it reads. */
void daemon__set_exports_status(struct daemon *d, void (*fn)(void *ctx, struct snap_out *o, bool admin), void *ctx);

/* What the last reload said, shown by status. */
void daemon__set_reload_result(struct daemon *d, const char *text);

/* Stop the server, write what history has not written yet, stop the store.  Buckets
 * written last, or -errno. */
int daemon__stop(struct daemon *d);

#endif
