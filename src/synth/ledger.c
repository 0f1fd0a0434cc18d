/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perf/event.h>

#include "prof/base/hash.h"
#include "prof/base/hashtable.h"
#include "prof/base/linger.h"
#include "prof/base/vec.h"
#include "prof/synth/ledger.h"
#include "prof/synth/synth.h"

/* As long as the tracker keeps an exited task (tracker.c). */
#define EXIT_GRACE_NS (2000ull * 1000 * 1000)

enum {
	HAS_COMM = 1 << 0,              /* the file gives this tid its comm */
	HAS_MAPS = 1 << 1,              /* (leader) the file has the process's maps */
	TRIED_COMM = 1 << 2,            /* /proc was read for its comm (found or not) */
	TRIED_MAPS = 1 << 3,            /* (leader) /proc was read for its maps */
	WRITTEN = 1 << 4,               /* a sample of it was written */
	EXITED = 1 << 5,                /* its EXIT was seen at exit_time */
};

struct entry {
	int32_t tid;
	uint32_t flags;
	uint64_t exit_time;
};

/* The entries last found, direct-mapped by tid (a sample's task and its leader). */
#define MEMO_SLOTS 32

struct ledger {
	struct hashtable tasks;         /* of struct entry, by tid */
	struct hashtable_memo memo[MEMO_SLOTS];
	struct linger exits;
	struct cgroups *cgroups;
	struct ledger_task *log;        /* tasks with written samples */
	bool no_log;                    /* a live view's: the log is not kept */
	size_t nr_log, cap_log;
	int32_t workload;               /* prof's corked child, named workload_comm ... */
	bool workload_execd;            /* ... until its exec */
	char workload_comm[16];
};

static bool entry_eq(const void *e, const void *key, const void *ctx)
{
	return ((const struct entry *)e)->tid == *(const int32_t *)key;
}

static uint64_t tid_hash(int32_t tid)
{
	return hash__u64((uint32_t)tid);
}

static struct entry *entry_find(struct ledger *l, int32_t tid)
{
	return hashtable__find_memo(&l->tasks, &l->memo[(uint32_t)tid % MEMO_SLOTS], (uint32_t)tid, tid_hash(tid), &tid);
}

static uint32_t flags_of(struct ledger *l, int32_t tid)
{
	const struct entry *e = entry_find(l, tid);

	return e ? e->flags : 0;
}

/* The entry of tid, made when missing: NULL on ENOMEM.  Valid until the next insert. */
static struct entry *entry_get(struct ledger *l, int32_t tid)
{
	bool created;
	struct entry *e = entry_find(l, tid);

	if (e)
		return e;
	e = hashtable__insert(&l->tasks, tid_hash(tid), &tid, &created);
	if (e && created)
		e->tid = tid;
	return e;
}

static int set_flags(struct ledger *l, int32_t tid, uint32_t flags)
{
	struct entry *e = entry_get(l, tid);

	if (!e)
		return -ENOMEM;
	e->flags |= flags;
	return 0;
}

static void clear_flags(struct ledger *l, int32_t tid, uint32_t flags)
{
	struct entry *e = hashtable__find(&l->tasks, tid_hash(tid), &tid);

	if (e)
		e->flags &= ~flags;
}

struct ledger *ledger__new(struct cgroups *c)
{
	struct ledger *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	hashtable__init(&l->tasks, sizeof(struct entry), entry_eq, NULL);
	linger__init(&l->exits, EXIT_GRACE_NS);
	l->cgroups = c;
	return l;
}

void ledger__forget_written_tasks(struct ledger *l)
{
	l->no_log = true;
	free(l->log);
	l->log = NULL;
	l->nr_log = l->cap_log = 0;
}

struct ledger *ledger__free(struct ledger *l)
{
	if (!l)
		return NULL;
	hashtable__release(&l->tasks);
	linger__release(&l->exits);
	free(l->log);
	free(l);
	return NULL;
}

void ledger__set_workload(struct ledger *l, int32_t pid, const char *comm)
{
	l->workload = pid;
	snprintf(l->workload_comm, sizeof(l->workload_comm), "%s", comm);
}

/* Forget the tasks that exited 2 s ago, unless their tid was given to a new task since. */
static void reap(struct ledger *l, uint64_t now)
{
	struct linger_entry x;

	while (linger__expire(&l->exits, now, &x)) {
		int32_t tid = (int32_t)x.key;
		const struct entry *e = hashtable__find(&l->tasks, tid_hash(tid), &tid);

		if (e && (e->flags & EXITED) && e->exit_time == x.time)
			hashtable__remove(&l->tasks, tid_hash(tid), &tid);
	}
}

static int log_written(struct ledger *l, const struct judgement *j)
{
	if (VEC_RESERVE(l->log, l->cap_log, l->nr_log + 1) < 0)
		return -ENOMEM;
	l->log[l->nr_log++] = (struct ledger_task){ .pid = j->pid, .tid = j->tid, .uid = j->uid,
						    .uid_known = j->uid_known };
	return 0;
}

/* A sample of a task about to be written: what the file lacks to name it. */
static int note_sample(struct ledger *l, const struct judgement *j, struct ledger_need *need)
{
	uint32_t task, leader;

	if (j->pid <= 0 || j->tid <= 0)
		return 0;               /* the idle task: nothing to describe */
	task = flags_of(l, j->tid);
	leader = j->pid == j->tid ? task : flags_of(l, j->pid);
	need->pid = j->pid;
	need->tid = j->tid;
	if (!(task & (HAS_COMM | TRIED_COMM)))
		need->what |= SYNTH_COMM;
	need->comm = j->comm;
	if (j->pid == l->workload && !l->workload_execd) {
		/* /proc's comm and maps are those of after its exec */
		need->pre_exec = true;
		need->comm = l->workload_comm;
	} else if (!(leader & (HAS_MAPS | TRIED_MAPS))) {
		need->what |= SYNTH_MAPS;
	}
	if (j->cgroup) {
		need->cgroup_path = cgroups__mark_written(l->cgroups, j->cgroup);
		if (need->cgroup_path)
			need->cgroup = j->cgroup;
	}
	if (task & WRITTEN)
		return 0;
	if (set_flags(l, j->tid, WRITTEN) < 0 || (!l->no_log && log_written(l, j) < 0))
		return -ENOMEM;
	return 0;
}

/*
 * A FORK starts a new task on its tid.  Written, the child has what the file gives its
 * parent (perf copies comm and maps at FORK); and a parent in the scope that the file
 * does not describe yet is described first (the child may not live long enough to be
 * looked up itself).
 */
static int note_fork(struct ledger *l, const struct perf_record_fork *f, int verdict,
		     const struct judgement *j, struct ledger_need *need)
{
	int32_t tid = (int32_t)f->tid, ptid = (int32_t)f->ptid, ppid = (int32_t)f->ppid;
	uint32_t parent = flags_of(l, ptid), pleader = flags_of(l, ppid), known;

	known = parent & HAS_COMM;
	if (f->pid != f->ppid && (pleader & HAS_MAPS))
		known |= HAS_MAPS;      /* a new process starts with a copy of its parent's maps */
	hashtable__remove(&l->tasks, tid_hash(tid), &tid);
	if (verdict != TRACKER_WRITE)
		return 0;
	if (known && set_flags(l, tid, known) < 0)
		return -ENOMEM;
	if (!j->parent_in_scope)
		return 0;
	if (!(parent & (HAS_COMM | TRIED_COMM)))
		need->what |= SYNTH_COMM;
	if (!(pleader & (HAS_MAPS | TRIED_MAPS)))
		need->what |= SYNTH_MAPS;
	if (need->what) {
		need->pid = ppid;
		need->tid = ptid;
		need->comm = j->parent_comm;
	}
	return 0;
}

static int note_comm(struct ledger *l, const struct perf_event_header *ev, int verdict,
		     const struct judgement *j)
{
	bool exec = ev->misc & PERF_RECORD_MISC_COMM_EXEC;

	if (exec && j->pid == l->workload)
		l->workload_execd = true;
	if (verdict != TRACKER_WRITE) {
		/* the file's name (and with an exec, its maps) of the task are stale now */
		clear_flags(l, j->tid, HAS_COMM | TRIED_COMM);
		if (exec)
			clear_flags(l, j->pid, HAS_MAPS | TRIED_MAPS);
		return 0;
	}
	if (set_flags(l, j->tid, HAS_COMM) < 0)
		return -ENOMEM;
	/* the kernel reports every mapping of the new image from here on */
	return exec ? set_flags(l, j->pid, HAS_MAPS) : 0;
}

/* Every exit, so that what a teardown sample adds after it goes with the task too. */
static int note_exit(struct ledger *l, const struct judgement *j, uint64_t time)
{
	struct entry *e;

	if (j->tid <= 0)
		return 0;
	e = entry_get(l, j->tid);
	if (!e)
		return -ENOMEM;
	e->flags |= EXITED;
	e->exit_time = time;
	return linger__add(&l->exits, (uint64_t)(uint32_t)j->tid, time, 0);
}

int ledger__note(struct ledger *l, const struct perf_event_header *ev, int verdict,
		 const struct judgement *j, uint64_t time, struct ledger_need *need)
{
	*need = (struct ledger_need){ 0 };
	reap(l, time);
	switch (ev->type) {
	case PERF_RECORD_SAMPLE:
		return verdict == TRACKER_WRITE ? note_sample(l, j, need) : 0;
	case PERF_RECORD_FORK:
		if (ev->size < sizeof(struct perf_record_fork))
			return 0;
		return note_fork(l, (const void *)ev, verdict, j, need);
	case PERF_RECORD_COMM:
		return verdict == TRACKER_WRITE || verdict == TRACKER_DROP ? note_comm(l, ev, verdict, j) : 0;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		/* a mapping the file does not get: its maps there are incomplete */
		if (verdict == TRACKER_DROP && j->pid > 0)
			clear_flags(l, j->pid, HAS_MAPS | TRIED_MAPS);
		return 0;
	case PERF_RECORD_EXIT:
		return note_exit(l, j, time);
	default:
		return 0;
	}
}

int ledger__described(struct ledger *l, const struct ledger_need *need, int err)
{
	if ((need->what & SYNTH_COMM) && set_flags(l, need->tid, err ? TRIED_COMM : HAS_COMM | TRIED_COMM) < 0)
		return -ENOMEM;
	if ((need->what & SYNTH_MAPS) && set_flags(l, need->pid, err ? TRIED_MAPS : HAS_MAPS | TRIED_MAPS) < 0)
		return -ENOMEM;
	return 0;
}

const struct ledger_task *ledger__written_tasks(const struct ledger *l, size_t *ret_nr)
{
	*ret_nr = l->nr_log;
	return l->log;
}

void ledger__for_each_written_cgroup(const struct ledger *l,
				     void (*fn)(uint64_t id, const char *path, void *ctx), void *ctx)
{
	cgroups__for_each_written(l->cgroups, fn, ctx);
}
