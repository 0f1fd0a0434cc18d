/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prof/base/hash.h"
#include "prof/base/hashtable.h"
#include "prof/base/util.h"
#include "prof/base/vec.h"
#include "prof/offcpu/offcpu_quota.h"
#include "prof/sys/procfs.h"

/* Limits that keep a scope of many cgroups cheap: past them, a cgroup is not followed
 * (its threads' waits are split by holder as without a quota). */
#define QUOTA_MAX_LIMITED 64
#define QUOTA_MAX_PATHS 256
#define QUOTA_MAX_DEPTH 4               /* limited cgroups on one path followed */

/* ---- one cgroup's throttled time ------------------------------------------------ */

void quota_timeline__note(struct quota_timeline *tl, uint64_t time, uint64_t throttled_ns)
{
	if (tl->read && time < tl->last_time)
		return;
	if (tl->read && throttled_ns > tl->last_ns) {
		tl->j[tl->head] = (struct quota_jump){ .lo = tl->last_time, .hi = time, .ns = throttled_ns - tl->last_ns };
		tl->head = (tl->head + 1) % QUOTA_JUMPS;
		tl->nr = MIN(tl->nr + 1, QUOTA_JUMPS);
	}
	tl->read = true;
	tl->last_time = time;
	tl->last_ns = throttled_ns;
}

uint64_t quota_timeline__within(const struct quota_timeline *tl, uint64_t t0, uint64_t t1)
{
	uint64_t sum = 0;

	if (t1 <= t0)
		return 0;
	for (uint32_t i = 0; i < tl->nr; i++) {
		const struct quota_jump *j = &tl->j[(tl->head + QUOTA_JUMPS - 1 - i) % QUOTA_JUMPS];

		if (j->hi <= t0)
			break;                  /* ended before the wait (and all older ones) */
		if (j->lo >= t1)
			continue;               /* began after it: read since */
		/* read across t0: a throttling that began at t0 or later ended by hi, so
		 * lasted hi - t0 at most; a longer one is the one before the wait */
		if (j->lo < t0 && j->ns > j->hi - t0)
			continue;
		/* and a wait's own throttling ended by hi and by t1 (it ran after): a
		 * counter summing several CPUs' says more than one CPU's lasted */
		sum += MIN(j->ns, MIN(j->hi, t1) - t0);
	}
	return MIN(sum, t1 - t0);
}

bool quota__parse_cpu_stat(const char *text, uint64_t *ret_ns)
{
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		unsigned long long v;

		if (sscanf(l, "throttled_usec %llu", &v) == 1) {
			*ret_ns = (uint64_t)v * 1000;
			return true;
		}
		if (sscanf(l, "throttled_time %llu", &v) == 1) {
			*ret_ns = (uint64_t)v;
			return true;
		}
	}
	return false;
}

/* ---- the scope's limited cgroups ------------------------------------------------- */

struct limited {
	char *path;                     /* under the hierarchy's root, no leading '/' */
	int fd;                         /* its directory */
	struct quota_timeline tl;
};

/* A cgroup of the scope's threads: its limited ancestors (itself included). */
struct cg_path {
	char *path;
	uint32_t nr;
	uint32_t limited[QUOTA_MAX_DEPTH];
};

struct watched {
	int32_t tid;
	int32_t path;                   /* its cgroup in paths, -1: not known */
	uint64_t checked;               /* when (record time) */
};

struct offcpu_quota {
	int proc_fd, root_fd;           /* the cpu controller's hierarchy at root_fd */
	bool v1;
	struct limited *lim[QUOTA_MAX_LIMITED];
	size_t nr_lim;
	struct cg_path *paths;
	size_t nr_paths, paths_cap;
	struct hashtable threads;       /* struct watched by tid */
};

static bool tid_eq(const void *entry, const void *key, const void *ctx)
{
	return *(const int32_t *)entry == *(const int32_t *)key;
}

static uint64_t tid_hash(int32_t tid)
{
	return hash__u64((uint64_t)(uint32_t)tid) | 1;
}

struct offcpu_quota *offcpu_quota__new(int proc_fd, int cgroup2_fd, int v1_fd)
{
	struct offcpu_quota *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	q->proc_fd = proc_fd;
	q->v1 = v1_fd >= 0;
	q->root_fd = q->v1 ? v1_fd : cgroup2_fd;
	hashtable__init(&q->threads, sizeof(struct watched), tid_eq, NULL);
	return q;
}

struct offcpu_quota *offcpu_quota__free(struct offcpu_quota *q)
{
	if (!q)
		return NULL;
	for (size_t i = 0; i < q->nr_lim; i++) {
		free(q->lim[i]->path);
		close(q->lim[i]->fd);
		free(q->lim[i]);
	}
	for (size_t i = 0; i < q->nr_paths; i++)
		free(q->paths[i].path);
	free(q->paths);
	hashtable__release(&q->threads);
	free(q);
	return NULL;
}

/* The thread's cgroup of the cpu controller, from /proc/TID/cgroup's text: the v1
 * line whose controllers include cpu ("4:cpu,cpuacct:/a/b"), or cgroup2's ("0::/a/b").
 * Without the leading '/'; 0 or -ENOENT. */
static int cpu_cgroup(const struct offcpu_quota *q, const char *text, char *ret, size_t len)
{
	char path[4096];
	const char *p = path;

	if (!q->v1) {
		if (procfs__cgroup2_path(text, path, sizeof(path)) < 0)
			return -ENOENT;
	} else {
		bool found = false;

		for (const char *l = text; l && *l && !found; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
			char ctrl[256];

			if (sscanf(l, "%*u:%255[^:]:%4095[^\n]", ctrl, path) != 2)
				continue;
			for (char *save, *c = strtok_r(ctrl, ",", &save); c && !found; c = strtok_r(NULL, ",", &save))
				found = !strcmp(c, "cpu");
		}
		if (!found)
			return -ENOENT;
	}
	while (*p == '/')
		p++;
	if (strlen(p) >= len)
		return -ENAMETOOLONG;
	memcpy(ret, p, strlen(p) + 1);
	return 0;
}

/* Has the cgroup at rel (not the root) a CPU quota? */
static bool has_quota(const struct offcpu_quota *q, const char *rel)
{
	_cleanup_free_ char *text = NULL;
	char file[4200];

	snprintf(file, sizeof(file), "%s/%s", rel, q->v1 ? "cpu.cfs_quota_us" : "cpu.max");
	if (read_file_full(q->root_fd, file, 256, &text) <= 0)
		return false;
	return q->v1 ? strtoll(text, NULL, 10) > 0 : strncmp(text, "max", 3) != 0;
}

/* The limited cgroup at rel, followed from now on (read at now): its index, -1 when
 * too many are or it cannot be opened. */
static int limited_of(struct offcpu_quota *q, const char *rel, uint64_t now)
{
	_cleanup_free_ char *text = NULL;
	struct limited *l;
	uint64_t ns;

	for (size_t i = 0; i < q->nr_lim; i++)
		if (!strcmp(q->lim[i]->path, rel))
			return (int)i;
	if (q->nr_lim == QUOTA_MAX_LIMITED || !(l = calloc(1, sizeof(*l))))
		return -1;
	l->path = strdup(rel);
	l->fd = openat(q->root_fd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (!l->path || l->fd < 0) {
		free(l->path);
		if (l->fd >= 0)
			close(l->fd);
		free(l);
		return -1;
	}
	/* the baseline: a throttling that ends after it is seen */
	if (read_file_full(l->fd, "cpu.stat", 4096, &text) > 0 && quota__parse_cpu_stat(text, &ns))
		quota_timeline__note(&l->tl, now, ns);
	q->lim[q->nr_lim] = l;
	return (int)q->nr_lim++;
}

/* The cgroup at rel among the paths met, made with its limited ancestors: its index,
 * -1 when there are too many. */
static int path_of(struct offcpu_quota *q, const char *rel, uint64_t now)
{
	char anc[4096];
	struct cg_path *p;

	for (size_t i = 0; i < q->nr_paths; i++)
		if (!strcmp(q->paths[i].path, rel))
			return (int)i;
	if (q->nr_paths == QUOTA_MAX_PATHS || VEC_RESERVE(q->paths, q->paths_cap, q->nr_paths + 1) < 0)
		return -1;
	p = &q->paths[q->nr_paths];
	*p = (struct cg_path){ .path = strdup(rel) };
	if (!p->path)
		return -1;
	/* itself, then each ancestor up to (not) the root: the quota may be any's */
	snprintf(anc, sizeof(anc), "%s", rel);
	while (*anc && p->nr < QUOTA_MAX_DEPTH) {
		char *slash;

		if (has_quota(q, anc)) {
			int l = limited_of(q, anc, now);

			if (l >= 0)
				p->limited[p->nr++] = (uint32_t)l;
		}
		slash = strrchr(anc, '/');
		if (!slash)
			break;
		*slash = '\0';
	}
	return (int)q->nr_paths++;
}

void offcpu_quota__watch(struct offcpu_quota *q, int32_t tid, uint64_t time, uint64_t now)
{
	struct watched *w = hashtable__find(&q->threads, tid_hash(tid), &tid);
	_cleanup_free_ char *text = NULL;
	char file[32], rel[4096];
	bool created;

	if (w && time < w->checked + QUOTA_RECHECK_NS)
		return;
	if (!w) {
		w = hashtable__insert(&q->threads, tid_hash(tid), &tid, &created);
		if (!w)
			return;
	}
	w->tid = tid;
	w->checked = time;
	w->path = -1;
	snprintf(file, sizeof(file), "%d/cgroup", tid);
	if (q->root_fd >= 0 && read_file_full(q->proc_fd, file, 1 << 16, &text) > 0 &&
	    cpu_cgroup(q, text, rel, sizeof(rel)) == 0)
		w->path = path_of(q, rel, now);
}

void offcpu_quota__forget(struct offcpu_quota *q, int32_t tid)
{
	hashtable__remove(&q->threads, tid_hash(tid), &tid);
}

void offcpu_quota__read(struct offcpu_quota *q, uint64_t now)
{
	for (size_t i = 0; i < q->nr_lim; i++) {
		_cleanup_free_ char *text = NULL;
		uint64_t ns;

		if (read_file_full(q->lim[i]->fd, "cpu.stat", 4096, &text) > 0 && quota__parse_cpu_stat(text, &ns))
			quota_timeline__note(&q->lim[i]->tl, now, ns);
	}
}

uint64_t offcpu_quota__throttled(const struct offcpu_quota *q, int32_t tid, uint64_t t0, uint64_t t1)
{
	const struct watched *w = hashtable__find(&q->threads, tid_hash(tid), &tid);
	const struct cg_path *p;
	uint64_t most = 0;

	if (!w || w->path < 0)
		return 0;
	p = &q->paths[w->path];
	for (uint32_t i = 0; i < p->nr; i++)
		most = MAX(most, quota_timeline__within(&q->lim[p->limited[i]]->tl, t0, t1));
	return most;
}

size_t offcpu_quota__nr_limited(const struct offcpu_quota *q)
{
	return q ? q->nr_lim : 0;
}
