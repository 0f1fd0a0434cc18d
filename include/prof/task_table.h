/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tasks a recording knows about, keyed by tid: an open-addressing hash table
 * (O(1) lookups, no allocation once it has grown to the recording's high-water mark).
 * It is fed by the kernel's FORK/COMM/EXIT records in time order.
 */
#ifndef PROF_TASK_TABLE_H
#define PROF_TASK_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum task_flags {
	TASK_COMM_KNOWN = 1 << 0,       /* the file already gives this tid its comm */
	TASK_MAPS_KNOWN = 1 << 1,       /* (leader only) the process's maps are in the file */
	TASK_SYNTH_TRIED = 1 << 2,      /* its comm was looked up in /proc (found or not) */
	TASK_MAPS_TRIED = 1 << 5,       /* (leader only) its maps were looked up in /proc */
	TASK_IN_SCOPE = 1 << 3,         /* member of a scoped process tree */
	TASK_WRITTEN = 1 << 4,          /* at least one sample of it was written */
};

struct task {
	int32_t tid;
	int32_t pid;
	uint32_t flags;
	uint32_t uid;
	uint64_t cgroup;
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
