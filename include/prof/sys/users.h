/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * User names by uid, each uid looked up once: getpwuid_r reads /etc/passwd (or asks
 * NSS) at every call, which a report of a fork storm's entries, or a daemon's
 * answer, would otherwise do per row.  A small cache the caller owns (zeroed is
 * empty); uids past its size replace the oldest.
 */
#ifndef PROF_SYS_USERS_H
#define PROF_SYS_USERS_H

#include <stdbool.h>
#include <stdint.h>

#define USERS_CACHE 32

struct user_entry {
	uint32_t uid, gid;              /* gid: the user's primary group (with found) */
	bool found;
	char name[64];
};

struct users {
	struct user_entry v[USERS_CACHE];
	unsigned int nr, next;
};

/* The entry of uid (name "" and found false when no user has it).  Valid until the
 * next call. */
const struct user_entry *users__get(struct users *c, uint32_t uid);

/* The user's name, or NULL. */
const char *users__name(struct users *c, uint32_t uid);

#endif
