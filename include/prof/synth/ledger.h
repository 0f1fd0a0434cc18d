/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the file describes.  perf's tools name a sample's task by the COMM and MMAP2
 * records before it; for a task that existed before the recording the kernel wrote
 * none, so prof describes it from /proc, once, just before its first written sample.
 * The ledger keeps, per task, what the file already gives it (its comm; its process's
 * maps), what was tried from /proc and found gone, and which tasks have written
 * samples; and says, for each record about to be written, what the file must receive
 * first (a need).
 *
 * It is shown every judged record in time order, written or not: a record dropped
 * while its task was out of the scope (a COMM, an exec, an MMAP2) leaves the file's
 * description stale, so a task that enters the scope later is described again.  A
 * FORK starts a new task (its tid may be reused); an EXIT is forgotten 2 s later, as
 * the tracker forgets it (the kernel samples a task's exit teardown after its EXIT).
 */
#ifndef PROF_SYNTH_LEDGER_H
#define PROF_SYNTH_LEDGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "prof/scope/cgroups.h"
#include "prof/scope/tracker.h"

/* What the file must receive before the record about to be written. */
struct ledger_need {
	int32_t pid, tid;
	unsigned int what;              /* SYNTH_COMM | SYNTH_MAPS (synth.h), 0 for none */
	const char *comm;               /* its comm as the tracker knew it, or NULL: the
					 * fallback when the task is gone from /proc by now */
	bool pre_exec;                  /* with SYNTH_COMM: write comm as it is, /proc already
					 * names what the task exec'd since (maps: none asked) */
	uint64_t cgroup;                /* write a CGROUP record for this id first (0: none) */
	const char *cgroup_path;        /* its path (the registry's) */
};

/* A task with written samples, as the file's section lists it. */
struct ledger_task {
	int32_t pid, tid;
	uint32_t uid;
	bool uid_known;
};

struct ledger;

/* The ledger of a file whose cgroups are in c (borrowed; it marks those written). */
struct ledger *ledger__new(struct cgroups *c);
struct ledger *ledger__free(struct ledger *l);

/*
 * The workload prof forked (corked, not yet exec'd): until its exec it is named comm
 * (prof's own name, cut to 15 characters), as perf names it; its samples before the
 * exec must not take the name /proc gives by the time they are judged (the program's).
 */
void ledger__set_workload(struct ledger *l, int32_t pid, const char *comm);

/*
 * Show the ledger a judged record (verdict: the tracker's; j: what it found).  For a
 * record to be written (TRACKER_WRITE), *need says what goes first.  0 or -ENOMEM.
 */
int ledger__note(struct ledger *l, const struct perf_event_header *ev, int verdict,
		 const struct judgement *j, uint64_t time, struct ledger_need *need);

/* How a need was met: err 0, or -ESRCH etc. when /proc had nothing.  0 or -ENOMEM. */
int ledger__described(struct ledger *l, const struct ledger_need *need, int err);

/* A live view (prof top, profd) writes no file and needs no list of the tasks with
 * samples, which would grow with every task the host ever ran: stop keeping it. */
void ledger__forget_written_tasks(struct ledger *l);

/* Tasks with written samples, in the order they first had one. */
const struct ledger_task *ledger__written_tasks(const struct ledger *l, size_t *ret_nr);

/* fn(id, path, ctx) for each cgroup the file names. */
void ledger__for_each_written_cgroup(const struct ledger *l,
				     void (*fn)(uint64_t id, const char *path, void *ctx), void *ctx);

#endif
