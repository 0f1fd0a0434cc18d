/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A thread that fetches debug files from debuginfod servers for a live reader
 * (profd, prof top), so that the thread naming samples never waits on the network:
 * it hands over the build ids of objects without symbols (debuginfod_worker__ask:
 * a bounded queue, each build id asked once), and opens only what the worker put
 * in its cache (debuginfod_worker__open), DIR/HEX/debuginfo, the layout of
 * libdebuginfod's own cache.  The same bounds as libdebuginfod's for prof report
 * (debuginfod.h: connect and stall timeout, a file's whole time and size) and the
 * same check: a file whose build id is not the one asked for is never kept.
 *
 * libcurl, not libdebuginfod: libdebuginfod takes its servers only from the
 * process's environment, which libdwfl on the reader's thread reads too.
 */
#ifndef PROF_ANALYZE_DEBUGINFOD_WORKER_H
#define PROF_ANALYZE_DEBUGINFOD_WORKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/analyze/debuginfod.h"

#define DEBUGINFOD_WORKER_QUEUE 64      /* build ids waiting; past it, asked at a later miss */
#define DEBUGINFOD_WORKER_IDS 4096      /* build ids asked in a process's life; past it, none */
#define DEBUGINFOD_WORKER_ARRIVED 64    /* arrivals a reader may fall behind by (else: all) */

struct debuginfod_worker_config {
	const char *urls;               /* space-separated http:// or https:// URLs */
	const char *cache_dir;          /* where files are kept: DIR/HEX/debuginfo */
	unsigned int timeout;           /* s: to connect, and a transfer stalled this long */
	unsigned int maxtime;           /* s: one file's whole transfer */
	uint64_t maxsize;               /* bytes: one file */
	bool as_user;                   /* the cache written and read as the user (privs) */
};

struct debuginfod_worker;

/*
 * Start the thread on a copy of c.  The cache directory is made (0700) when missing.
 * 0, or -errno (-EINVAL: no URL; the directory's or the thread's error).
 */
int debuginfod_worker__start(const struct debuginfod_worker_config *c, struct debuginfod_worker **ret);

/* Stop the thread (a transfer under way is ended) and free w.  NULL. */
struct debuginfod_worker *debuginfod_worker__stop(struct debuginfod_worker *w);

/*
 * Ask for the debug file of build id (bid, len), once in w's life: never blocks on
 * anything but w's lock, which the thread holds only between transfers.  A full
 * queue drops it (counted; asked again at a later call).
 */
void debuginfod_worker__ask(struct debuginfod_worker *w, const uint8_t *bid, size_t len);

/*
 * The debug file of (bid, len) in w's cache, opened for reading (as the user when
 * w's are), when its build id is (bid, len); its path in *ret_name (malloc'd).  An
 * fd, or -ENOENT.  No network.
 */
int debuginfod_worker__open(struct debuginfod_worker *w, const uint8_t *bid, size_t len, char **ret_name);

/*
 * The build ids whose debug file arrived since *seq (0 at first), each given to fn
 * (len 0: more arrived than w remembers: any may have); *seq updated.  One atomic
 * load when nothing did.
 */
void debuginfod_worker__arrived(struct debuginfod_worker *w, uint64_t *seq,
				void (*fn)(const uint8_t *bid, size_t len, void *ctx), void *ctx);

/* What was asked so far: asked, found, not found, failed, refused; dropped in skipped. */
void debuginfod_worker__stats(struct debuginfod_worker *w, struct debuginfod_stats *ret);

/*
 * A reader's worker from the environment debuginfod__setup made (DEBUGINFOD_URLS,
 * DEBUGINFOD_TIMEOUT, _MAXTIME, _MAXSIZE), with the user's cache
 * (debuginfod_worker__user_cache) written as the user; DEBUGINFOD_URLS is unset
 * then (on failure too), so that libdwfl on the reader's thread asks nothing itself.  Call before
 * any thread starts.  0 with *ret NULL when no server is configured; -errno.
 */
int debuginfod_worker__from_env(struct debuginfod_worker **ret);

/*
 * prof's readers' cache of debug files, libdebuginfod's: $DEBUGINFOD_CACHE_PATH,
 * else $XDG_CACHE_HOME/debuginfod_client, else $HOME/.cache/debuginfod_client.
 * false when none of them is set.
 */
bool debuginfod_worker__user_cache(char *buf, size_t len);

#endif
