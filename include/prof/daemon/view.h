/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What one asker may see of the history over a window: the one place the access
 * policy meets the daemon's data.  Every answer (the socket's, and the exports
 * that come later) is built here, and holds only what the asker may see, in a
 * dictionary of its own (nothing else of the daemon's is ever serialized).
 *
 * The rules, for someone who is not an admin (root or [policy] admin_group):
 *   1. only entries whose task's uid is known and is theirs; asking for another uid
 *      is refused (-EPERM), naming the rule;
 *   2. cgroup, comm and container selectors only narrow that further;
 *   3. without [policy] user_kernel, a stack's kernel frames become one "[kernel]"
 *      frame (no kernel symbol or address), totals unchanged;
 *   4. frames of an object they could not read themselves (its mode and owner, as
 *      mapped) are "[unknown] (name)": the daemon reads objects with its own rights;
 *   5. only items reachable from those entries are in the answer;
 *   6. off-CPU time (asked with off_cpu) names the CPU's holders as "self" (their
 *      own uid), "other tenants" (any other), "system", "idle" or "[unknown]".
 * So an answer to a tenant holds no sample, comm, cgroup path, object path, kernel
 * address or uid of another tenant's task.
 */
#ifndef PROF_DAEMON_VIEW_H
#define PROF_DAEMON_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/daemon/bucket.h"
#include "prof/daemon/dict.h"
#include "prof/daemon/history.h"
#include "prof/daemon/merge.h"

#define VIEW_MAX_SELECTORS 64

/* Who asks (the socket's peer credentials, the policy's verdict). */
struct view_identity {
	uint32_t uid;
	bool admin;                     /* any scope, everything */
	bool kernel;                    /* kernel frames by name ([policy] user_kernel) */
	uint32_t gids[VIEW_MAX_SELECTORS];      /* primary and supplementary groups */
	size_t nr_gids;
};

/* What is asked: a window and selectors (different kinds AND, one kind ORs). */
struct view_query {
	uint64_t from, until;           /* realtime ns, [from, until) */
	uint32_t uids[VIEW_MAX_SELECTORS];
	size_t nr_uids;
	const char *cgroups[VIEW_MAX_SELECTORS];        /* subtrees: "/a" matches "/a/b" */
	size_t nr_cgroups;
	const char *comms[VIEW_MAX_SELECTORS];
	size_t nr_comms;
	const char *containers[VIEW_MAX_SELECTORS];
	size_t nr_containers;
	size_t max_stacks;              /* distinct entries in the answer (0: 100000) */
	bool off_cpu;                   /* off-CPU time's entries too (dict.h's RUNQ, BLOCKED) */
};

struct view_answer {
	struct dict *dict;              /* the answer's own items */
	struct merge entries;           /* of dict's tasks and stacks */
	struct bucket_counts c;         /* of the entries (lost, unattributed: the host's) */
	uint64_t from, until;           /* the window the buckets cover */
	uint64_t evicted_before;        /* > from: history before this was dropped for memory */
	size_t coarse, fine;            /* buckets read */
	uint32_t flags;                 /* BUCKET_PARTIAL, BUCKET_AFTER_GAP of any of them */
};

/*
 * The answer to q for id (history not locked: this takes the readers' lock).
 * 0; -EPERM with the rule in err; -ENOMEM.  ret is released by view__release
 * (also after an error).
 */
int view__build(struct history *h, const struct view_identity *id, const struct view_query *q,
		struct view_answer *ret, char *err, size_t errlen);
void view__release(struct view_answer *a);

/* May id read a file of this mode and owner?  (Rule 4.) */
bool view__may_read(const struct view_identity *id, uint32_t mode, uint32_t uid, uint32_t gid);

#endif
