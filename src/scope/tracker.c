/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <perf/event.h>

#include "prof/scope/cgroup_tree.h"
#include "prof/base/idmap.h"
#include "prof/base/linger.h"
#include "prof/sys/procfs.h"
#include "prof/scope/cgroups.h"
#include "prof/scope/creds.h"
#include "prof/scope/task_table.h"
#include "prof/scope/tracker.h"
#include "prof/base/util.h"

/* No process tree is deeper than there are pids: a longer /proc parent chain was read
 * while pids were being reused, and cannot be decided. */
#define TREE_WALK_MAX (1u << 22)
/* A task still runs (exit teardown) after its EXIT record; keep it this long. */
#define EXIT_GRACE_NS (2000ull * 1000 * 1000)

struct tracker {
	struct tracker_config cfg;
	struct task_table *tasks;
	struct idmap *creds_ids;        /* sample id -> enum creds_call (tracepoint samples only) */
	bool uid_scope, tree_scope, cgroup_scope;
	struct linger exits;            /* exited tasks, forgotten after EXIT_GRACE_NS */
	struct tracker_stats st;
};

static bool cgroup_in_scope(const struct tracker *t, uint64_t id)
{
	return t->cgroup_scope && cgroups__in_scope(t->cfg.cgroups, id);
}

/* ---- task facts ---------------------------------------------------------- */

static bool is_tree_root(const struct tracker *t, int32_t pid)
{
	const struct scope *s = t->cfg.scope;

	if (s->workload && pid == s->workload)
		return true;
	for (size_t i = 0; i < s->nr_pids; i++)
		if (s->pids[i] == pid)
			return true;
	return false;
}

struct proc_facts {
	uint64_t tgid, ppid, uid, cgroup;
	bool has_cgroup;
	char comm[16];
};

/* "Name:\t<comm>" of /proc/PID/status. */
static void status_comm(const char *status, char comm[16])
{
	const char *p = strstr(status, "Name:");

	comm[0] = '\0';
	if (!p)
		return;
	p += 5;
	while (*p == ' ' || *p == '\t')
		p++;
	procfs__comm(p, comm);
}

/* Read a task's facts from /proc/<tid>/{status,cgroup}.  0 or -ESRCH. */
static int read_facts(struct tracker *t, int32_t tid, struct proc_facts *f)
{
	_cleanup_free_ char *status = NULL, *cg = NULL;
	char path[64], cgpath[4096];

	t->st.lookups++;
	snprintf(path, sizeof(path), "%d/status", tid);
	if (read_file_full(t->cfg.proc_fd, path, 1 << 16, &status) < 0 ||
	    procfs__status_u64(status, "Tgid:", &f->tgid) < 0 ||
	    procfs__status_u64(status, "PPid:", &f->ppid) < 0 ||
	    procfs__status_u64(status, "Uid:", &f->uid) < 0) {
		t->st.lookups_failed++;
		return -ESRCH;
	}
	status_comm(status, f->comm);
	f->has_cgroup = false;
	snprintf(path, sizeof(path), "%d/cgroup", tid);
	if (t->cfg.cgroup_fd >= 0 && read_file_full(t->cfg.proc_fd, path, 1 << 16, &cg) >= 0 &&
	    procfs__cgroup2_path(cg, cgpath, sizeof(cgpath)) == 0 &&
	    cgroup_tree__id(t->cfg.cgroup_fd, cgpath, &f->cgroup) == 0)
		f->has_cgroup = true;
	return 0;
}

/*
 * Is this pre-existing process in a scoped tree?  Walks its /proc parents up to a
 * root of the scope (1), to the top (0), or to an ancestor that cannot be read, a
 * cycle or an absurd depth (-1: undecidable, so its samples count as unattributed).
 * No depth limit: a tree is as deep as it is.  Cycles (parents read at different
 * moments, pids reused in between) are caught by Brent's method, without memory.
 */
static int tree_of(struct tracker *t, uint64_t ppid)
{
	uint64_t mark = 0;
	unsigned int power = 1, lam = 0;

	for (unsigned int n = 0; n < TREE_WALK_MAX; n++) {
		struct proc_facts f;
		struct task *p;

		if (ppid == 0)
			return 0;               /* above init (and kthreadd) */
		if (is_tree_root(t, (int32_t)ppid))
			return 1;
		if (ppid == 1)
			return 0;               /* init's parent is 0: no need to read it */
		if (ppid == mark)
			return -1;
		if (++lam == power) {
			mark = ppid;
			power *= 2;
			lam = 0;
		}
		p = task_table__find(t->tasks, (int32_t)ppid);
		if (p && (p->flags & TASK_TREE_KNOWN))
			return !!(p->flags & TASK_IN_TREE);
		if (read_facts(t, (int32_t)ppid, &f) < 0)
			return -1;
		ppid = f.ppid;
	}
	return -1;
}

static void apply_facts(struct tracker *t, struct task *task, const struct proc_facts *f, int tree)
{
	task->uid = (uint32_t)f->uid;
	task->flags |= TASK_UID_KNOWN;
	memcpy(task->comm, f->comm, sizeof(task->comm));
	if (f->has_cgroup) {
		task->cgroup = f->cgroup;
		task->flags |= TASK_CGROUP_KNOWN;
	}
	if (tree >= 0) {
		task->flags |= TASK_TREE_KNOWN;
		if (tree > 0)
			task->flags |= TASK_IN_TREE;
	}
}

/* Copy what a new task inherits (fork) or shares (thread) from another. */
static void inherit(struct task *dst, const struct task *src)
{
	dst->uid = src->uid;
	dst->cgroup = src->cgroup;
	dst->flags |= src->flags & (TASK_UID_KNOWN | TASK_CGROUP_KNOWN | TASK_IN_TREE | TASK_TREE_KNOWN);
}

/*
 * The task tid of process pid, created when new: a thread takes its process's
 * facts, anything else is looked up in /proc.  NULL only on ENOMEM.
 */
static struct task *task_get(struct tracker *t, int32_t pid, int32_t tid)
{
	struct task *task = task_table__find(t->tasks, tid), copy;
	struct proc_facts f;
	bool created, have_leader = false, read_ok = false;
	int tree = -1;

	if (task)
		return task;
	if (pid != tid) {
		struct task *l = task_table__find(t->tasks, pid);
		if (l && (l->flags & TASK_UID_KNOWN)) {
			copy = *l;
			have_leader = true;
		}
	}
	if (!have_leader && read_facts(t, tid, &f) == 0) {
		read_ok = true;
		if (is_tree_root(t, (int32_t)f.tgid))
			tree = 1;
		else if (t->tree_scope)
			tree = tree_of(t, f.ppid);       /* -1: undecidable */
		else
			tree = 0;
	}
	task = task_table__get(t->tasks, tid, &created);
	if (!task)
		return NULL;
	t->st.tasks_seen++;
	task->pid = pid;
	if (have_leader)
		inherit(task, &copy);
	else if (read_ok)
		apply_facts(t, task, &f, tree);
	if (is_tree_root(t, pid))
		task->flags |= TASK_IN_TREE | TASK_TREE_KNOWN;
	return task;
}

/* In scope, or 0 not, or -1 cannot tell. */
static int scope_union(const struct tracker *t, const struct task *task, uint64_t cgroup);

/*
 * In scope (1), not (0), or cannot tell (-1).  With only_uid set (an ordinary user's
 * recording) the scope is also intersected with that uid: whatever else matches,
 * another user's task never is in it.
 */
static int task_scope(const struct tracker *t, const struct task *task, uint64_t cgroup)
{
	int in = scope_union(t, task, cgroup);

	if (in <= 0 || !t->cfg.restrict_uid)
		return in;
	if (!(task->flags & TASK_UID_KNOWN))
		return -1;
	return task->uid == t->cfg.only_uid;
}

static int scope_union(const struct tracker *t, const struct task *task, uint64_t cgroup)
{
	const struct scope *s = t->cfg.scope;
	bool unknown = false;

	if (s->all)
		return 1;
	if (t->tree_scope) {
		if (task->flags & TASK_IN_TREE)
			return 1;
		if (!(task->flags & TASK_TREE_KNOWN))
			unknown = true;
	}
	if (t->uid_scope) {
		if (task->flags & TASK_UID_KNOWN) {
			for (size_t i = 0; i < s->nr_uids; i++)
				if (s->uids[i] == task->uid)
					return 1;
		} else {
			unknown = true;
		}
	}
	if (t->cgroup_scope) {
		if (cgroup && cgroup_in_scope(t, cgroup))
			return 1;
		if (!cgroup && (task->flags & TASK_CGROUP_KNOWN) && cgroup_in_scope(t, task->cgroup))
			return 1;
	}
	return unknown ? -1 : 0;
}

/* ---- records ------------------------------------------------------------- */

static void count_written(struct tracker *t, uint64_t time)
{
	if (!t->st.first_time)
		t->st.first_time = time;
	t->st.last_time = time;
	t->st.samples_written++;
}

static void note_unattributed(struct tracker *t, struct task *task, int32_t tid)
{
	struct tracker_stats *st = &t->st;

	task->flags |= TASK_UNATTRIBUTED;
	for (unsigned int i = 0; i < st->nr_unattributed_tids; i++)
		if (st->unattributed_tids[i] == tid)
			return;
	if (st->nr_unattributed_tids < ARRAY_SIZE(st->unattributed_tids))
		st->unattributed_tids[st->nr_unattributed_tids++] = tid;
}

/* When an unattributed task ended: tells one gone at the start from a look-up that came late. */
static void note_unattributed_exit(struct tracker *t, int32_t tid, uint64_t time)
{
	struct tracker_stats *st = &t->st;

	for (unsigned int i = 0; i < st->nr_unattributed_tids; i++)
		if (st->unattributed_tids[i] == tid && !st->unattributed_exits[i])
			st->unattributed_exits[i] = time;
}

static int judge_sample(struct tracker *t, const struct perf_event_header *ev, uint64_t time,
			struct judgement *j)
{
	uint64_t cgroup = sample_layout__cgroup(t->cfg.layout, ev);
	struct task *task;
	int32_t pid, tid;
	int in;

	if (!sample_layout__tid(t->cfg.layout, ev, &pid, &tid))
		return TRACKER_DROP;
	if (!t->st.first_sample)
		t->st.first_sample = time;
	if (tid <= 0 || pid <= 0) {
		/* the idle task: part of "all", of no tenant */
		in = !t->cfg.restrict_uid &&
		     (t->cfg.scope->all || (t->cgroup_scope && cgroup_in_scope(t, cgroup)));
		if (!in) {
			t->st.samples_out_of_scope++;
			return TRACKER_DROP;
		}
		count_written(t, time);
		return TRACKER_WRITE;
	}
	/* the leader too: its threads take its facts (one look-up for the leader itself) */
	if ((pid != tid && !task_get(t, pid, pid)) || !(task = task_get(t, pid, tid)))
		return -ENOMEM;
	if (cgroup) {
		task->cgroup = cgroup;
		task->flags |= TASK_CGROUP_KNOWN;
	}
	in = task_scope(t, task, cgroup);
	if (in < 0) {
		if (task->flags & TASK_UID_LOST)
			t->st.unattributed_creds++;
		else
			t->st.unattributed_gone++;
		note_unattributed(t, task, tid);
		return TRACKER_UNATTRIBUTED;
	}
	if (in == 0) {
		t->st.samples_out_of_scope++;
		return TRACKER_DROP;
	}
	if (task->flags & TASK_COMM_OF_PARENT) {
		/* a FORK judged since would have made the task anew: it was before the recording */
		task->flags &= ~TASK_COMM_OF_PARENT;
		t->st.comm_from_parent++;
	}
	*j = (struct judgement){
		.pid = pid, .tid = tid, .comm = task->comm[0] ? task->comm : NULL,
		.uid = task->uid, .uid_known = task->flags & TASK_UID_KNOWN, .cgroup = cgroup,
	};
	count_written(t, time);
	return TRACKER_WRITE;
}

static int judge_fork(struct tracker *t, const struct perf_record_fork *f, struct judgement *j)
{
	struct task *parent, *child, pcopy;
	bool have_parent = false;

	parent = task_get(t, (int32_t)f->ppid, (int32_t)f->ptid);
	if (!parent)
		return -ENOMEM;
	if (parent->flags & (TASK_UID_KNOWN | TASK_TREE_KNOWN)) {
		pcopy = *parent;
		have_parent = true;
	}
	child = task_table__find(t->tasks, (int32_t)f->tid);
	if (!have_parent && child && (child->flags & TASK_FORK_PENDING) &&
	    (child->flags & (TASK_UID_KNOWN | TASK_TREE_KNOWN))) {
		/* the parent was gone: the look-up read the child itself */
		child->flags &= ~TASK_FORK_PENDING;
		if (is_tree_root(t, (int32_t)f->pid))
			child->flags |= TASK_IN_TREE | TASK_TREE_KNOWN;
	} else if (have_parent) {
		bool created;

		/* A FORK for a tid we know: the old task is gone, the tid reused. */
		task_table__remove(t->tasks, (int32_t)f->tid);
		child = task_table__get(t->tasks, (int32_t)f->tid, &created);
		if (!child)
			return -ENOMEM;
		t->st.tasks_seen++;
		child->pid = (int32_t)f->pid;
		inherit(child, &pcopy);
		/* its name too, as the kernel copies it: a child that enters the scope before
		 * its exec (a set*uid()) and is gone before /proc can name it has this one */
		memcpy(child->comm, pcopy.comm, sizeof(child->comm));
		if (is_tree_root(t, (int32_t)f->pid))
			child->flags |= TASK_IN_TREE | TASK_TREE_KNOWN;
	} else {
		task_table__remove(t->tasks, (int32_t)f->tid);
		child = task_get(t, (int32_t)f->pid, (int32_t)f->tid);
		if (!child)
			return -ENOMEM;
	}
	j->pid = (int32_t)f->pid;
	j->tid = (int32_t)f->tid;
	if (task_scope(t, child, 0) <= 0)
		return TRACKER_DROP;
	if (have_parent && task_scope(t, &pcopy, 0) > 0) {
		const struct task *p = task_table__find(t->tasks, (int32_t)f->ptid);

		j->parent_in_scope = true;
		j->parent_comm = p && p->comm[0] ? p->comm : NULL;
	}
	return TRACKER_WRITE;
}

static void reread_uid(struct tracker *t, struct task *task)
{
	struct proc_facts f;

	if (read_facts(t, task->tid, &f) == 0) {
		task->uid = (uint32_t)f.uid;
		task->flags = (task->flags | TASK_UID_KNOWN) & ~TASK_UID_LOST;
	}
}

static int judge_comm(struct tracker *t, const struct perf_record_comm *c, uint16_t misc,
		      struct judgement *j)
{
	bool exec = misc & PERF_RECORD_MISC_COMM_EXEC;
	struct task *task = task_get(t, (int32_t)c->pid, (int32_t)c->tid);

	if (!task)
		return -ENOMEM;
	if (exec && !t->cfg.creds_events)
		reread_uid(t, task);    /* without set*uid() records, exec is where we look */
	/*
	 * The task's latest name, kept even when the record is dropped: a task judged in
	 * scope later (a uid change, or facts learnt from its EXIT after /proc lost it)
	 * is named by it when /proc can no longer tell.
	 */
	memcpy(task->comm, c->comm, sizeof(task->comm));
	task->comm[sizeof(task->comm) - 1] = '\0';
	j->pid = (int32_t)c->pid;
	j->tid = (int32_t)c->tid;
	return task_scope(t, task, 0) > 0 ? TRACKER_WRITE : TRACKER_DROP;
}

static int judge_task_record(struct tracker *t, const struct perf_event_header *ev, struct judgement *j)
{
	uint32_t ids[2];
	struct task *task;

	memcpy(ids, ev + 1, sizeof(ids));
	j->pid = (int32_t)ids[0];
	j->tid = (int32_t)ids[1];
	if ((int32_t)ids[0] <= 0)
		return t->cfg.scope->all && !t->cfg.restrict_uid ? TRACKER_WRITE : TRACKER_DROP;
	task = task_get(t, (int32_t)ids[0], (int32_t)ids[1]);
	if (!task)
		return -ENOMEM;
	return task_scope(t, task, 0) > 0 ? TRACKER_WRITE : TRACKER_DROP;
}

/* Forget tasks whose exit is older than the grace period. */
static void reap_exited(struct tracker *t, uint64_t now)
{
	struct linger_entry e;

	while (linger__expire(&t->exits, now, &e)) {
		struct task *task = task_table__find(t->tasks, (int32_t)e.key);

		/* the same exit, not a later task that reused the tid */
		if (task && (task->flags & TASK_EXITED) && task->exit_time == e.time)
			task_table__remove(t->tasks, (int32_t)e.key);
	}
}

static int judge_exit(struct tracker *t, const struct perf_record_fork *e, uint64_t time,
		      struct judgement *j)
{
	struct task *task = task_table__find(t->tasks, (int32_t)e->tid);
	int verdict = TRACKER_DROP;

	j->pid = (int32_t)e->pid;
	j->tid = (int32_t)e->tid;
	if ((t->cfg.scope->all && !t->cfg.restrict_uid) || (task && task_scope(t, task, 0) > 0))
		verdict = TRACKER_WRITE;
	/* Kept a while: the kernel samples a task's exit teardown after its EXIT. */
	if (task) {
		task->flags |= TASK_EXITED;
		task->exit_time = time;
		if (task->flags & TASK_UNATTRIBUTED)
			note_unattributed_exit(t, task->tid, time);
		if (linger__add(&t->exits, (uint64_t)(uint32_t)task->tid, time, 0) < 0)
			return -ENOMEM;
	}
	return verdict;
}

static int judge_cgroup(struct tracker *t, const struct perf_event_header *ev)
{
	const struct perf_record_cgroup *c = (const void *)ev;
	size_t max = ev->size - offsetof(struct perf_record_cgroup, path);
	char path[4096];
	size_t n = strnlen(c->path, MIN(max, sizeof(path) - 1));

	memcpy(path, c->path, n);
	path[n] = '\0';
	/* Kept, not written: a cgroup's record goes out before its first written sample. */
	if (cgroups__add(t->cfg.cgroups, c->id, path) < 0)
		return -ENOMEM;
	return TRACKER_CONSUMED;
}

/* A set*uid() call of task returned: learn its new real uid. */
static void apply_creds(struct tracker *t, struct task *task, enum creds_call call, uint32_t arg)
{
	struct proc_facts f;
	uint32_t uid;

	t->st.creds_changes++;
	/* setresuid(-1, ...), setreuid(-1, ...) leave the real uid, the one tracked: no
	 * /proc read (GNU make calls setresuid(-1, euid, -1) in every child it starts, and
	 * by the time it is judged the child is mostly gone: two failed opens per job) */
	if (call != CREDS_SETUID && arg == CREDS_UNCHANGED && (task->flags & TASK_UID_KNOWN))
		return;
	if (read_facts(t, task->tid, &f) == 0) {
		/* exact: what the kernel holds now */
		task->uid = (uint32_t)f.uid;
		task->flags = (task->flags | TASK_UID_KNOWN) & ~TASK_UID_LOST;
		return;
	}
	/* gone: what the call most likely did */
	switch (creds__outcome(call, arg, task->flags & TASK_UID_KNOWN, task->uid, &uid)) {
	case CREDS_UID_SET:
		task->uid = uid;
		break;
	case CREDS_UID_KEPT:
		break;
	case CREDS_UID_UNKNOWN:
		task->flags &= ~TASK_UID_KNOWN;
		task->flags |= TASK_UID_LOST;
		break;
	}
}

static int judge_creds(struct tracker *t, const struct perf_event_header *ev, enum creds_call call)
{
	const struct tracker_config *c = &t->cfg;
	uint32_t arg;
	int32_t pid, tid;
	struct task *task;

	if (!sample_layout__tid(c->layout, ev, &pid, &tid) || tid <= 0 ||
	    !creds__argument(c->layout, c->raw_uid_off, ev, &arg))
		return TRACKER_CONSUMED;
	task = task_get(t, pid, tid);
	if (!task)
		return -ENOMEM;
	/* Records are judged a round after they happen: the call has returned, and
	 * /proc says how it went. */
	apply_creds(t, task, call, arg);
	return TRACKER_CONSUMED;
}

int tracker__judge(struct tracker *t, const struct perf_event_header *ev, uint64_t time,
		   struct judgement *j)
{
	*j = (struct judgement){ 0 };
	reap_exited(t, time);
	switch (ev->type) {
	case PERF_RECORD_SAMPLE: {
		uint32_t call = 0;      /* the sampling event's */
		if (idmap__size(t->creds_ids))
			idmap__get(t->creds_ids, sample_layout__id(t->cfg.layout, ev), &call);
		if (call)
			return judge_creds(t, ev, (enum creds_call)call);
		return judge_sample(t, ev, time, j);
	}
	case PERF_RECORD_FORK:
		if (ev->size < sizeof(struct perf_record_fork))
			return TRACKER_DROP;
		return judge_fork(t, (const void *)ev, j);
	case PERF_RECORD_EXIT:
		if (ev->size < sizeof(struct perf_record_fork))
			return TRACKER_DROP;
		return judge_exit(t, (const void *)ev, time, j);
	case PERF_RECORD_COMM:
		if (ev->size < sizeof(struct perf_event_header) + 16)
			return TRACKER_DROP;
		return judge_comm(t, (const void *)ev, ev->misc, j);
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_NAMESPACES:
		if (ev->size < sizeof(struct perf_event_header) + 8)
			return TRACKER_DROP;
		return judge_task_record(t, ev, j);
	case PERF_RECORD_CGROUP:
		if (ev->size < offsetof(struct perf_record_cgroup, path) + 1)
			return TRACKER_DROP;
		return judge_cgroup(t, ev);
	default:
		/* LOST, LOST_SAMPLES, THROTTLE, ...: about the recording, not a task */
		return TRACKER_WRITE;
	}
}

/* A task we never heard of existed before the recording: read it now, while it is
 * most likely still there. */
static int look_up_sample(struct tracker *t, const struct perf_event_header *ev)
{
	const struct task *task;
	int32_t pid, tid;

	if (!sample_layout__tid(t->cfg.layout, ev, &pid, &tid) || tid <= 0 || pid <= 0 ||
	    task_table__find(t->tasks, tid))
		return TRACKER_LOOKED_UP;
	if (pid != tid && !task_get(t, pid, pid))
		return -ENOMEM;
	task = task_get(t, pid, tid);
	if (!task)
		return -ENOMEM;
	if ((t->uid_scope || t->tree_scope) && !(task->flags & (TASK_UID_KNOWN | TASK_TREE_KNOWN)))
		return TRACKER_WAIT_FOR_EXIT;
	return TRACKER_LOOKED_UP;
}

/*
 * Its FORK is on the way: no /proc read for its samples, judge_fork() gives it its
 * parent's facts in time order.  The parent is read now, the earliest moment (a
 * parent that was there before the recording may exit soon after the fork); if it
 * cannot be, the child is read now instead, and judge_fork() keeps what was read.
 */
static int look_up_fork(struct tracker *t, const struct perf_record_fork *f)
{
	const uint32_t facts = TASK_UID_KNOWN | TASK_TREE_KNOWN;
	bool created, parent_known = false;
	struct task *c;

	if (task_table__find(t->tasks, (int32_t)f->tid))
		return TRACKER_LOOKED_UP;
	if ((int32_t)f->ptid > 0 && (int32_t)f->ppid > 0) {
		const struct task *p = task_get(t, (int32_t)f->ppid, (int32_t)f->ptid);

		if (!p)
			return -ENOMEM;
		/* a placeholder itself: its own FORK, judged before this one, decides */
		parent_known = p->flags & (facts | TASK_FORK_PENDING);
	}
	if (parent_known) {
		c = task_table__get(t->tasks, (int32_t)f->tid, &created);
		if (!c)
			return -ENOMEM;
		c->pid = (int32_t)f->pid;
	} else if (!(c = task_get(t, (int32_t)f->pid, (int32_t)f->tid))) {
		return -ENOMEM;
	}
	c->flags |= TASK_FORK_PENDING;
	return TRACKER_LOOKED_UP;
}

/* A pre-existing task that was gone before /proc could tell about it: its exit names
 * its parent, whose facts it had (its samples, including the exit teardown's, are
 * judged later), and whose name it had too, as the kernel copies it at fork, unless
 * a COMM of its own named it since (an exec's is judged in time order, after the
 * samples before it). */
static int look_up_exit(struct tracker *t, const struct perf_record_fork *e)
{
	struct task *task = task_table__find(t->tasks, (int32_t)e->tid), *parent, copy;
	bool created;

	if ((task && (task->flags & (TASK_UID_KNOWN | TASK_TREE_KNOWN))) || (int32_t)e->ptid <= 0)
		return TRACKER_LOOKED_UP;
	parent = task_get(t, (int32_t)e->ppid, (int32_t)e->ptid);
	if (!parent)
		return -ENOMEM;
	if (!(parent->flags & (TASK_UID_KNOWN | TASK_TREE_KNOWN)))
		return TRACKER_LOOKED_UP;
	copy = *parent;
	/* found again: the insert of the parent may have moved it */
	task = task_table__get(t->tasks, (int32_t)e->tid, &created);
	if (!task)
		return -ENOMEM;
	if (created) {
		task->pid = (int32_t)e->pid;
		t->st.tasks_seen++;
	}
	inherit(task, &copy);
	/* (a FORK on its way makes the task anew, named by its parent's COMMs) */
	if (!task->comm[0] && copy.comm[0] && !(task->flags & TASK_FORK_PENDING)) {
		memcpy(task->comm, copy.comm, sizeof(task->comm));
		task->flags |= TASK_COMM_OF_PARENT;
	}
	return TRACKER_LOOKED_UP;
}

int tracker__look_up(struct tracker *t, const struct perf_event_header *ev)
{
	if (ev->type == PERF_RECORD_SAMPLE)
		return look_up_sample(t, ev);
	if (ev->size < sizeof(struct perf_record_fork))
		return TRACKER_LOOKED_UP;
	if (ev->type == PERF_RECORD_FORK)
		return look_up_fork(t, (const void *)ev);
	if (ev->type == PERF_RECORD_EXIT)
		return look_up_exit(t, (const void *)ev);
	return TRACKER_LOOKED_UP;
}

/* ---- life cycle ------------------------------------------------------------ */

int tracker__add_creds_ids(struct tracker *t, enum creds_call call, const uint64_t *ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (idmap__set(t->creds_ids, ids[i], (uint32_t)call) < 0)
			return -ENOMEM;
	return 0;
}

int tracker__add_tree_root(struct tracker *t, int32_t pid)
{
	bool created;
	struct task *task = task_table__get(t->tasks, pid, &created);
	struct proc_facts f;

	if (!task)
		return -ENOMEM;
	if (created)
		t->st.tasks_seen++;
	task->pid = pid;
	task->flags |= TASK_IN_TREE | TASK_TREE_KNOWN;
	if (read_facts(t, pid, &f) == 0)
		apply_facts(t, task, &f, 1);
	return 0;
}

int tracker__new(const struct tracker_config *cfg, struct tracker **ret)
{
	struct tracker *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	t->cfg = *cfg;
	linger__init(&t->exits, EXIT_GRACE_NS);
	t->tasks = task_table__new();
	t->creds_ids = idmap__new();
	if (!t->tasks || !t->creds_ids) {
		tracker__free(t);
		return -ENOMEM;
	}
	t->uid_scope = cfg->scope->nr_uids > 0;
	t->cgroup_scope = cfg->scope->nr_cgroups > 0;
	t->tree_scope = cfg->scope->nr_pids > 0 || cfg->scope->workload > 0;
	*ret = t;
	return 0;
}

struct tracker *tracker__free(struct tracker *t)
{
	if (!t)
		return NULL;
	linger__release(&t->exits);
	task_table__free(t->tasks);
	idmap__free(t->creds_ids);
	free(t);
	return NULL;
}

const struct tracker_stats *tracker__stats(const struct tracker *t)
{
	return &t->st;
}

bool tracker__uid(struct tracker *t, int32_t tid, uint32_t *ret)
{
	struct task *task = task_table__find(t->tasks, tid);

	if (!task || !(task->flags & TASK_UID_KNOWN))
		return false;
	*ret = task->uid;
	return true;
}

bool tracker__cgroup(struct tracker *t, int32_t tid, uint64_t *ret)
{
	struct task *task = task_table__find(t->tasks, tid);

	if (!task || !(task->flags & TASK_CGROUP_KNOWN) || !task->cgroup)
		return false;
	*ret = task->cgroup;
	return true;
}

int tracker__in_scope(struct tracker *t, int32_t pid, int32_t tid, uint64_t cgroup)
{
	const struct task *task;

	if (tid <= 0 || pid <= 0)
		return 0;
	task = task_table__find(t->tasks, tid);
	if (!task) {
		if (t->cfg.scope->all && !t->cfg.restrict_uid)
			return 1;
		if (cgroup && t->cgroup_scope && cgroup_in_scope(t, cgroup) && !t->cfg.restrict_uid)
			return 1;
		return -1;
	}
	return task_scope(t, task, cgroup);
}
