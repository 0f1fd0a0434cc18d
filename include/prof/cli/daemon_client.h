/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * prof's side of profd's socket (protocol.h): where the socket is (--socket, else the
 * system prof.conf's [daemon] socket), asking (one request, one response, bounded
 * in size and time), and checking that who answers is the daemon: the socket's
 * peer must be root or prof.conf's [daemon] user.  The clients run with the user's
 * own rights and no privilege at all: the daemon decides what they may see.
 * Also the times and durations the clients take (--since 10m, --from 10:00).
 */
#ifndef PROF_CLI_DAEMON_CLIENT_H
#define PROF_CLI_DAEMON_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/cli/config.h"
#include "prof/daemon/protocol.h"

#define DAEMON_CLIENT_TIMEOUT_MS 30000

struct daemon_client {
	char socket[108];
	char user[64];                  /* the daemon's, as prof.conf names it */
};

/* The socket (path, or prof.conf's) and the daemon's user.  0, or -errno with err set. */
int daemon_client__init(struct daemon_client *c, const char *path, char *err, size_t errlen);

/*
 * Send r and read the whole response: *ret_status (0 or -errno) and its body (malloc'd,
 * the caller frees; an error's text is NUL-terminated).  0, or -errno with err set
 * (no daemon there, a daemon that is not root's or the [daemon] user's, a response too
 * large or not this protocol, a timeout).
 */
int daemon_client__ask(const struct daemon_client *c, const struct protocol_request *r, int *ret_status,
		       uint8_t **ret_body, size_t *ret_len, char *err, size_t errlen);

/* "90", "90s", "10m", "2h30m", "1d": ns.  0, or -EINVAL. */
int daemon_client__parse_duration(const char *s, uint64_t *ret);

/*
 * A point in time, realtime ns: Unix seconds ("1733050000", "@1733050000.5"), "-10m"
 * (that long ago), "HH:MM[:SS]" (today, local time), "YYYY-mm-dd HH:MM[:SS]" or
 * "YYYY-mm-ddTHH:MM:SS[Z]" (local time, or UTC with Z).  now: realtime ns.  0, or -EINVAL.
 */
int daemon_client__parse_time(const char *s, uint64_t now, uint64_t *ret);

/* "2024-12-01 10:00:05" (local time) for a realtime ns. */
void daemon_client__format_time(uint64_t ns, char *buf, size_t len);

#endif
