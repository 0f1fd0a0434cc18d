/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tasks a recording knows about, keyed by tid: a use of the one hash table
 * (base/hashtable.h: O(1) lookups, no allocation once it has grown to the
 * recording's high-water mark).
 * It is fed by the kernel's FORK/COMM/EXIT records in time order.
 */
#ifndef PROF_SCOPE_TASK_TABLE_H
#define PROF_SCOPE_TASK_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What the tracker knows of a task (what the file describes is the ledger's). */
enum task_flags {
	TASK_IN_TREE = 1 << 0,          /* member of a scoped process tree (--pid, workload) */
	TASK_TREE_KNOWN = 1 << 1,       /* TASK_IN_TREE is decided */
	TASK_UID_KNOWN = 1 << 2,        /* uid is valid */
	TASK_UID_LOST = 1 << 3,         /* its uid changed and could not be re-read */
	TASK_CGROUP_KNOWN = 1 << 4,     /* cgroup is valid */
	TASK_EXITED = 1 << 5,           /* its EXIT was seen: kept a while for teardown samples */
	TASK_UNATTRIBUTED = 1 << 6,     /* a sample of it went unattributed (tracker stats) */
	TASK_FORK_PENDING = 1 << 7,     /* made by the look-up of its FORK, which is not judged yet */
	TASK_COMM_OF_PARENT = 1 << 8,   /* named as its parent at its EXIT's look-up (counted at
					 * its first written sample) */
};

struct task {
	int32_t tid;
	int32_t pid;
	uint32_t flags;
	uint32_t uid;           /* real uid */
	uint64_t cgroup;        /* cgroup2 id, last known */
	uint64_t exit_time;     /* with TASK_EXITED */
	char comm[16];          /* its latest name: /proc's when looked up, then its COMMs ("" if none) */
};

struct task_table;

struct task_table *task_table__new(void);
struct task_table *task_table__free(struct task_table *t);

/* The task with this tid, or NULL.  Pointers stay valid until the next insert or remove. */
struct task *task_table__find(struct task_table *t, int32_t tid);

/*
 * The task with this tid, inserted (zeroed, with tid set) when missing; *ret_created
 * says which.  NULL on ENOMEM.
 */
struct task *task_table__get(struct task_table *t, int32_t tid, bool *ret_created);

/* Forget tid (no-op when unknown). */
void task_table__remove(struct task_table *t, int32_t tid);

size_t task_table__size(const struct task_table *t);

#endif
