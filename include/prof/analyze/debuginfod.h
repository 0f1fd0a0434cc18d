/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * debuginfod as a source of names: debug files fetched by build id from the servers
 * DEBUGINFOD_URLS names, through libdebuginfod (which libdwfl calls by itself when
 * it finds no local debug file for an object without a .symtab).  Off unless
 * configured: asking a server sends it the build ids of the programs recorded.
 *
 * Never a wrong name: a file a server answers is used only when its own build id is
 * the object's (libdwfl 0.188 does not check it).
 */
#ifndef PROF_ANALYZE_DEBUGINFOD_H
#define PROF_ANALYZE_DEBUGINFOD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/perfdata/build_id_cache.h"

#define DEBUGINFOD_DEFAULT_TIMEOUT 5            /* s: DEBUGINFOD_TIMEOUT, libdebuginfod's is 90 */
#define DEBUGINFOD_DEFAULT_MAXTIME 30           /* s: DEBUGINFOD_MAXTIME, one file's whole transfer */
#define DEBUGINFOD_DEFAULT_MAXSIZE (1u << 30)   /* bytes: DEBUGINFOD_MAXSIZE, one file */
#define DEBUGINFOD_DEFAULT_RETRY_LIMIT 0        /* DEBUGINFOD_RETRY_LIMIT: libdebuginfod's is 2 */
#define DEBUGINFOD_KEEP_BUDGET 30               /* s: all of prof record's fetches at its end */

/* What was asked of the servers: one count per build id, its first answer. */
struct debuginfod_stats {
	uint64_t asked;
	uint64_t found;         /* a debug file with the object's build id */
	uint64_t not_found;     /* no server has it (404, or libdebuginfod's cached miss) */
	uint64_t failed;        /* a server did not answer in time, refused, or the transfer broke */
	uint64_t refused;       /* answered with a file of another build id: not used */
	uint64_t kept;          /* prof record: kept in the build-id cache beside the object */
	uint64_t skipped;       /* prof record: not asked, past its time budget */
	uint64_t dropped;       /* a live reader's worker: not asked, its queue full or its
				 * DEBUGINFOD_WORKER_IDS spent */
};

/*
 * Set the process's environment, which libdebuginfod reads at each query, from
 * the configuration: urls (prof.conf's [symbols] debuginfod_urls, may be NULL) when
 * DEBUGINFOD_URLS is not set or trust_env is false (a prof privileged for another
 * user takes only the operator's setting: the user's DEBUGINFOD_URLS is dropped);
 * timeout (s, 0: prof's default) as DEBUGINFOD_TIMEOUT, and prof's bounds of one
 * file's time and size where the environment has none.  Call before any thread
 * starts.  true when a server will be asked.
 */
bool debuginfod__setup(const char *urls, unsigned int timeout, bool trust_env);

/* Whether DEBUGINFOD_URLS names a server. */
bool debuginfod__on(void);

/*
 * Whether the file open on fd is an ELF file of build id (bid, len): a debug file a
 * server answered is used only then.
 */
bool debuginfod__matches(int fd, const uint8_t *bid, size_t len);

/*
 * A file a server answered for build id (bid, len) that is not of it: its entry in
 * libdebuginfod's cache (open on fd) removed, as the user, so that the next query
 * asks the servers again rather than meeting it there.
 */
void debuginfod__forget(int fd, const uint8_t *bid, size_t len);

/* Count one answer of libdebuginfod (an fd, or -errno: -ENOENT none, -ENOSYS no
 * server configured, which is not counted). */
void debuginfod__count(struct debuginfod_stats *st, int r);

/* "asked N: found N, not found N, failed N[, ...]" into buf. */
void debuginfod__describe(const struct debuginfod_stats *st, char *buf, size_t len);

/*
 * prof record's end: for each object of build_ids (len bytes of HEADER_BUILD_ID)
 * without a .symtab and without a debug file kept already or installed
 * (/usr/lib/debug/.build-id), fetch its debug file as the user and keep it in c
 * as DIR/PATH/HEX/debug, where perf report finds it.  Within budget seconds for
 * all (past it, the rest are counted skipped), each transfer within libdebuginfod's
 * bounds and each file within c's limits.  Adds to *st.
 */
void debuginfod__keep(struct build_id_cache *c, const void *build_ids, size_t len, unsigned int budget,
		      struct debuginfod_stats *st);

#endif
