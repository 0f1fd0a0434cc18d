/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * profd's Unix socket: one thread, one epoll loop, each connection a small state
 * machine (read the request, answer, write the answer, close).  Clients are
 * untrusted, so every one is bounded:
 *   - the whole request must arrive within timeout of the accept, else the
 *     connection is closed (counted: timeouts);
 *   - a request header that is not this protocol, or longer than the protocol's
 *     cap, is answered with an error at once and closed;
 *   - answers are written as the client reads them (non-blocking); a client that
 *     makes no progress for timeout is closed (stalled) and its answer freed;
 *   - answers being written share answers_memory_max: past it a request is answered
 *     "busy" (EBUSY) instead;
 *   - more than max_clients connections, or max_per_uid of one uid, are answered
 *     "busy" with the numbers at the accept and closed.
 * The peer is known by its credentials (SO_PEERCRED, SO_PEERGROUPS), taken by the
 * kernel at connect(): the handler decides what that peer may see.  Nothing here
 * touches the sampling: a client can slow only other clients.
 */
#ifndef PROF_DAEMON_SERVER_H
#define PROF_DAEMON_SERVER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "prof/daemon/snapshot.h"

#define SERVER_MAX_GROUPS 64

struct server_peer {
	uint32_t uid, gid;
	int32_t pid;
	uint32_t groups[SERVER_MAX_GROUPS];     /* supplementary (the first 64) */
	size_t nr_groups;
};

/* The whole response (header and body) to a request body, into out. */
typedef void (*server_handler_fn)(void *ctx, const struct server_peer *peer, const uint8_t *body, size_t len,
				  struct snap_out *out);

struct server_limits {
	size_t max_clients, max_per_uid;
	uint64_t timeout_ms;
	size_t answers_memory_max;
};

struct server_stats {
	uint64_t accepted, served;
	uint64_t busy;                  /* max_clients or answers_memory_max */
	uint64_t busy_uid;              /* max_per_uid */
	uint64_t bad_request, timeouts, stalled;
	uint64_t bytes_out;
	size_t connected, answer_bytes; /* now */
	size_t answer_bytes_max;        /* the most held at once */
};

struct server;

/*
 * Bind path (a stale socket file is replaced; a live daemon on it is -EADDRINUSE),
 * made connectable by anyone (0666: the peer credentials decide, not the mode).
 * The listening fd, or -errno with err set.
 */
int server__listen(const char *path, char *err, size_t errlen);

/* A server on listen_fd (it takes the fd).  0 or -errno. */
int server__new(int listen_fd, const struct server_limits *l, server_handler_fn handle, void *ctx,
		struct server **ret);
struct server *server__free(struct server *s);

/* The loop, until server__stop (call it in the server's own thread).  0 or -errno. */
int server__run(struct server *s);
/* From any thread. */
void server__stop(struct server *s);
void server__set_limits(struct server *s, const struct server_limits *l);
void server__stats(struct server *s, struct server_stats *ret);

#endif
