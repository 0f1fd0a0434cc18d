/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * profd's socket protocol (version 1): one request, one response per connection.
 *
 *   request   "PRQ1" | u32 len | body[len]          len <= PROTOCOL_MAX_REQUEST
 *   response  "PRS1" | i32 status | u64 len | body   status 0 or -errno
 *
 * (little-endian).  A request body is "key=value" lines:
 *
 *   op=query|status        what is asked (required, first)
 *   from=NS  until=NS       the window, realtime ns (until absent: now)
 *   since=NS                instead of from: the last NS ns
 *   uid=N  cgroup=PATH  comm=NAME  container=ID
 *                           selectors (at most 64 of each); one kind repeated ORs,
 *                           different kinds AND
 *   max_stacks=N            distinct entries in the answer (1 to 10000000)
 *   off_cpu=0|1             off-CPU time's entries too ([daemon] off_cpu; 0: on-CPU
 *                           samples only, as before it)
 *
 * An unknown key, a bad value or a repeated scalar key is refused (-EINVAL) naming
 * it; another protocol version is -EPROTONOSUPPORT.  An error's body is one line of
 * text (at most 1 KiB).  A status body is "key value" lines; a query's is snapshot
 * records (answer.h).
 * Whatever crosses the socket was filtered by the access policy first (view.h).
 */
#ifndef PROF_DAEMON_PROTOCOL_H
#define PROF_DAEMON_PROTOCOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/daemon/snapshot.h"
#include "prof/daemon/view.h"

#define PROTOCOL_REQUEST_MAGIC "PRQ1"
#define PROTOCOL_RESPONSE_MAGIC "PRS1"
#define PROTOCOL_VERSION 1
#define PROTOCOL_MAX_REQUEST 16384
#define PROTOCOL_REQUEST_HDR 8
#define PROTOCOL_RESPONSE_HDR 16
#define PROTOCOL_MAX_ERROR 1024
#define PROTOCOL_MAX_RESPONSE (1ull << 30)      /* what a client accepts */

enum protocol_op { PROTOCOL_QUERY = 1, PROTOCOL_STATUS };

struct protocol_request {
	enum protocol_op op;
	bool has_since;
	uint64_t since;                 /* ns back from now */
	bool has_until;
	struct view_query q;            /* strings point into text */
	char text[PROTOCOL_MAX_REQUEST + 1];
};

/*
 * A request's header (the first PROTOCOL_REQUEST_HDR bytes): the body length, or
 * -EPROTONOSUPPORT (another version), -EINVAL (not this protocol), -E2BIG (too long);
 * a message in err.
 */
int protocol__request_len(const uint8_t hdr[PROTOCOL_REQUEST_HDR], char *err, size_t errlen);

/* Parse a request body into *ret.  0, or -EINVAL with the offending key in err. */
int protocol__parse_request(const uint8_t *body, size_t len, struct protocol_request *ret, char *err,
			    size_t errlen);

/* A request as bytes (header and body) into o: from the fields set in r (op, since or
 * from/until, selectors, max_stacks). */
void protocol__put_request(struct snap_out *o, const struct protocol_request *r);

/* A response's header, then the body is appended by the caller. */
void protocol__put_response_hdr(struct snap_out *o, int status, uint64_t len);
/* A whole error response: status and one line of text. */
void protocol__put_error(struct snap_out *o, int status, const char *msg);

/* The response header: 0 with status and body length, or -EINVAL (not this protocol). */
int protocol__response_hdr(const uint8_t hdr[PROTOCOL_RESPONSE_HDR], int *ret_status, uint64_t *ret_len);

#endif
