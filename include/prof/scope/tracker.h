/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The scope resolver.  Fed every record in time order, it keeps the task table
 * (who each task is: uid, cgroup, process tree) and judges each record: in the
 * scope (written), outside it, undecidable (an unattributed sample), or prof's own
 * bookkeeping.  What the file must receive first so that it describes what is
 * written is the ledger's business (synth/ledger.h), from the judgement.
 *
 * Task facts come from the kernel's sideband: FORK (inherit uid, cgroup, tree),
 * COMM (exec), EXIT, samples (their exact cgroup), and set*uid() syscall records.
 * A task seen for the first time without a FORK existed before the recording; it
 * is looked up in /proc once, then (tracker__look_up).  Every per-record operation
 * is a hash lookup.
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
	uint64_t lookups;               /* /proc reads of task facts */
	uint64_t lookups_failed;
	uint64_t creds_changes;
	uint64_t comm_from_parent;      /* tasks with written samples there before the recording,
					 * gone before /proc named them: named as their parent */
	uint64_t first_time, last_time; /* of written samples */
	uint64_t first_sample;          /* time of the first sample judged, whatever its verdict */
	/* the first tasks whose samples went unattributed, for -v, and when their EXIT came (0: not seen) */
	int32_t unattributed_tids[16];
	uint64_t unattributed_exits[16];
	unsigned int nr_unattributed_tids;
};

enum tracker_verdict {
	TRACKER_WRITE,                  /* in the scope: write the record */
	TRACKER_DROP,                   /* outside the scope */
	TRACKER_UNATTRIBUTED,           /* a sample whose scope could not be decided */
	TRACKER_CONSUMED,               /* prof's own bookkeeping record: never written */
};

/* What the tracker found about a record it judged, for the stages after it. */
struct judgement {
	int32_t pid, tid;               /* the task the record is about (FORK, EXIT: the child;
					 * 0 or less: none, the idle task, the kernel's maps) */
	const char *comm;               /* a written sample's: its latest name known (from /proc
					 * or a COMM), NULL for none; valid until the next judge */
	uint32_t uid;                   /* a written sample's real uid, with uid_known */
	bool uid_known;
	uint64_t cgroup;                /* a written sample's cgroup (0: none) */
	bool parent_in_scope;           /* a written FORK's parent is in the scope too */
	const char *parent_comm;        /* ... and its latest name known, or NULL */
};

struct tracker;

/* 0 or -ENOMEM. */
int tracker__new(const struct tracker_config *cfg, struct tracker **ret);
struct tracker *tracker__free(struct tracker *t);

/* The sample ids of a set*uid() tracepoint (creds.h).  0 or -ENOMEM. */
int tracker__add_creds_ids(struct tracker *t, enum creds_call call, const uint64_t *ids, size_t n);

/* Mark a task (the workload) as the root of a scoped process tree, with its facts. */
int tracker__add_tree_root(struct tracker *t, int32_t pid);

/* Judge one record, in time order: a verdict (>= 0) and *j, or -ENOMEM. */
int tracker__judge(struct tracker *t, const struct perf_event_header *ev, uint64_t time,
		   struct judgement *j);

enum tracker_lookup {
	TRACKER_LOOKED_UP,              /* the task is known now (or needs no /proc read) */
	TRACKER_WAIT_FOR_EXIT,          /* gone before /proc could tell: read the buffers again */
};

/*
 * The first-time look-up of a task, for each record a drain read, in the order read,
 * right after the drain and before anything is judged: a sample of a task never heard
 * of gets its /proc facts read now, while the task is most likely alive (by the time
 * it is judged it may have exited); a FORK marks its child as new (no /proc read for
 * it); the EXIT of a task gone too soon gives it its parent's facts.
 *
 * TRACKER_WAIT_FOR_EXIT when that read found the task already gone and the scope
 * needs its facts: its EXIT (which names its parent) was written before /proc lost
 * it, but possibly into a ring buffer past the point the drain read, so the caller
 * must read every buffer once more before it judges the sample.  Else
 * TRACKER_LOOKED_UP, or -ENOMEM.
 */
int tracker__look_up(struct tracker *t, const struct perf_event_header *ev);

const struct tracker_stats *tracker__stats(const struct tracker *t);

/* Would a sample of tid (of cgroup; 0: its own) be in the scope now: 1, 0, or -1
 * (not known).  A look, nothing learnt or counted. */
int tracker__in_scope(struct tracker *t, int32_t pid, int32_t tid, uint64_t cgroup);

/* The real uid of tid as tracked now; false when not known. */
bool tracker__uid(struct tracker *t, int32_t tid, uint32_t *ret);

/* The cgroup2 id of tid as tracked now (its last written sample's, /proc's, its
 * parent's); false when not known. */
bool tracker__cgroup(struct tracker *t, int32_t tid, uint64_t *ret);

#endif
