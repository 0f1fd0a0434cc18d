/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The scope resolver.  Fed every record in time order, it keeps the task table
 * (who each task is: uid, cgroup, process tree), decides per record whether it goes
 * to the file, and says what the file must receive first (a task's comm and maps,
 * a cgroup's path) so that what is written is self-describing.
 *
 * Task facts come from the kernel's sideband: FORK (inherit uid, cgroup, tree),
 * COMM (exec), EXIT, samples (their exact cgroup), and set*uid() syscall records.
 * A task seen for the first time without a FORK existed before the recording; it
 * is looked up in /proc once, then.  Every per-record operation is a hash lookup.
 */
#ifndef PROF_SCOPE_TRACKER_H
#define PROF_SCOPE_TRACKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "prof/perfdata/sample.h"
#include "prof/scope/cgroups.h"
#include "prof/scope/creds.h"
#include "prof/scope/scope.h"

struct tracker_config {
	const struct scope *scope;
	const struct sample_layout *layout;
	int proc_fd;                    /* /proc, or a fixture tree in tests */
	int cgroup_fd;                  /* cgroup2 root, or -1 */
	struct cgroups *cgroups;        /* the registry (borrowed): records announce cgroups */
	bool creds_events;              /* set*uid() records arrive (else exec re-reads /proc) */
	bool restrict_uid;              /* policy: nothing of a uid other than only_uid is in scope */
	uint32_t only_uid;
	int raw_uid_off;                /* of the (real) uid argument in their PERF_SAMPLE_RAW data */
};

struct tracker_stats {
	uint64_t samples_written;
	uint64_t samples_out_of_scope;
	uint64_t unattributed_gone;     /* task exited before its uid/ancestry could be read */
	uint64_t unattributed_creds;    /* its uid changed and could not be re-read */
	uint64_t tasks_seen;
	uint64_t tasks_written;         /* tasks with at least one written sample */
	uint64_t lookups;               /* /proc reads of task facts */
	uint64_t lookups_failed;
	uint64_t creds_changes;
	uint64_t first_time, last_time; /* of written samples */
	/* the first tasks whose samples went unattributed, for -v */
	int32_t unattributed_tids[16];
	unsigned int nr_unattributed_tids;
};

/* What the file must receive before the record being judged. */
struct tracker_need {
	int32_t pid, tid;
	unsigned int what;              /* SYNTH_COMM | SYNTH_MAPS (synth.h), 0 for none */
	const char *comm;               /* its comm as /proc said when first looked up, or NULL:
					 * the fallback when the task is gone by now */
	bool pre_exec;                  /* with SYNTH_COMM: write comm as it is, /proc already
					 * names what the task exec'd since (maps: none asked) */
	uint64_t cgroup;                /* write a CGROUP record for this id first (0: none) */
	const char *cgroup_path;        /* its path, valid until the next judge() */
};

enum tracker_verdict {
	TRACKER_WRITE,                  /* write the record (after what need asks for) */
	TRACKER_DROP,                   /* outside the scope */
	TRACKER_UNATTRIBUTED,           /* a sample whose scope could not be decided */
	TRACKER_CONSUMED,               /* prof's own bookkeeping record: never written */
};

struct tracker_task_log {
	int32_t pid, tid;
	uint32_t uid;
	bool uid_known;
};

struct tracker;

/* 0 or -ENOMEM. */
int tracker__new(const struct tracker_config *cfg, struct tracker **ret);
struct tracker *tracker__free(struct tracker *t);

/* The sample ids of a set*uid() tracepoint (creds.h).  0 or -ENOMEM. */
int tracker__add_creds_ids(struct tracker *t, enum creds_call call, const uint64_t *ids, size_t n);

/* Mark a task (the workload) as the root of a scoped process tree, with its facts. */
int tracker__add_tree_root(struct tracker *t, int32_t pid);

/*
 * The workload prof forked (corked, not yet exec'd): until its exec it is named comm
 * (prof's own name, cut to 15 characters), as perf names it; its samples before the exec must not take the
 * name /proc gives by the time they are judged (the program's).
 */
void tracker__add_workload(struct tracker *t, int32_t pid, const char *comm);

/* Judge one record, in time order.  Returns a verdict (>= 0) or -ENOMEM. */
int tracker__judge(struct tracker *t, const struct perf_event_header *ev, uint64_t time,
		   struct tracker_need *need);

/*
 * Called as records are read from the ring buffers, before they are ordered: a
 * sample of a task never heard of gets its /proc facts read now, while the task is
 * most likely alive (by the time it is judged it may have exited).
 *
 * 1 when that read found the task already gone and the scope needs its facts: its
 * EXIT (which names its parent) was written before /proc lost it, but possibly into
 * a ring buffer past the point this pass read, so the caller must read every buffer
 * once more before it judges the sample.  Else 0, or -ENOMEM.
 */
int tracker__prefetch(struct tracker *t, const struct perf_event_header *ev);

/* Report how the need was met: err 0, or -ESRCH etc. when /proc had nothing. */
void tracker__described(struct tracker *t, const struct tracker_need *need, int err);

const struct tracker_stats *tracker__stats(const struct tracker *t);

/* The real uid of tid as tracked now; false when not known. */
bool tracker__uid(struct tracker *t, int32_t tid, uint32_t *ret);

/* Tasks with written samples, in the order they first had one. */
const struct tracker_task_log *tracker__written_tasks(const struct tracker *t, size_t *ret_nr);

/* Cgroups written to the file: call fn(id, path) for each. */
void tracker__for_each_written_cgroup(const struct tracker *t,
				      void (*fn)(uint64_t id, const char *path, void *ctx), void *ctx);

#endif
