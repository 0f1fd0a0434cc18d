/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * profd's exports as prof.conf's [daemon] sets them: pull_* keys for the HTTP
 * endpoint that serves pprof (export_http.h), push_* keys for posting it to
 * Pyroscope (export_push.h).  Both are off by default.  Parsed and checked here
 * (src/cli/config.c calls in for the keys), so a bad value is refused with the
 * line it is on.
 */
#ifndef PROF_DAEMON_EXPORT_CONFIG_H
#define PROF_DAEMON_EXPORT_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sockaddr_storage;         /* <sys/socket.h>'s (not included: its struct linger is base/linger.h's name) */

#define EXPORT_MAX_TENANTS 32
#define EXPORT_MAX_ORG 150              /* Pyroscope's tenant id limit */

/* push_tenant = KEY ORG: KEY a user name, @group, #uid or *; ORG may hold %u (the
 * user's name) and %i (the uid).  The first that matches, in the order user, group,
 * uid, * (whatever their order in the file). */
struct export_tenant {
	char key[64];
	char org[EXPORT_MAX_ORG + 1];
};

struct export_config {
	/* pull */
	char pull_listen[64];           /* "" off; "PORT" is 127.0.0.1:PORT; "ADDR:PORT" */
	char pull_token_file[1024];     /* "" none: no Authorization asked */
	uint64_t pull_max_connections, pull_timeout, pull_max_builds;
	/* push */
	char push_url[192];             /* "" off; http:// or https://, the server's root */
	char push_app[64];              /* the series' name, before its {labels} */
	uint64_t push_timeout, push_connect_timeout, push_backoff_max;  /* seconds */
	uint64_t push_queue;            /* buckets waiting to be pushed, at most */
	struct export_tenant tenants[EXPORT_MAX_TENANTS];
	size_t nr_tenants;
};

void export_config__defaults(struct export_config *c);

/* One [daemon] key: 1 taken, 0 not an export key, -EINVAL with msg saying why.  A
 * push_tenant line adds a mapping (the defaults have none). */
int export_config__set(struct export_config *c, const char *name, const char *value, char *msg, size_t msglen);

/* How the keys fit together (a listener off the loopback needs a token file).  0 or
 * -EINVAL with msg. */
int export_config__check(const struct export_config *c, char *msg, size_t msglen);

/* The listener's address.  0 or -EINVAL. */
int export_config__listen_addr(const char *listen, struct sockaddr_storage *ret, size_t *ret_len,
			       bool *ret_loopback);

/* Is org (after %u, %i) a valid Pyroscope tenant id: at most 150 bytes of
 * [A-Za-z0-9!-_.*'()], not "." or ".."? */
bool export_config__org_valid(const char *org);

#endif
