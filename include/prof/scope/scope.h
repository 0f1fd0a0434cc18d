/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a recording is narrowed to: uids, cgroup subtrees, process trees, or all.
 * Several together mean their union.  Parsing and resolution live here; judging
 * records against it is the tracker's job (tracker.h).
 */
#ifndef PROF_SCOPE_SCOPE_H
#define PROF_SCOPE_SCOPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* How a scoped cgroup was named: its path or name (--cgroup), a container's id
 * (--container), a pod's uid (--pod). */
enum scope_cgroup_kind { SCOPE_CGROUP_PATH, SCOPE_CGROUP_CONTAINER, SCOPE_CGROUP_POD };

struct scope_cgroup {
	enum scope_cgroup_kind kind;
	char *arg;              /* as given */
	char *path;             /* relative to the cgroup2 root, with a leading '/' */
	uint64_t id;            /* cgroup2 id of the directory (what PERF_SAMPLE_CGROUP carries) */
};

struct scope {
	bool all;
	uint32_t *uids;
	size_t nr_uids;
	struct scope_cgroup *cgroups;
	size_t nr_cgroups;
	pid_t *pids;
	size_t nr_pids;
	pid_t workload;         /* the workload's process tree, when no other scope was asked */
};

/* Free what the scope holds (not the struct). */
void scope__release(struct scope *s);

/* True when any of uid/cgroup/pid was given. */
bool scope__narrowed(const struct scope *s);

/*
 * "alice", "1001", "alice,bob": adds each uid.  Unknown names: -ENOENT with the
 * name in err.
 */
int scope__add_uids(struct scope *s, const char *arg, char *err, size_t errlen);

/* "1234" or "1234,5678": -EINVAL on a bad number. */
int scope__add_pids(struct scope *s, const char *arg, char *err, size_t errlen);

/* Remember a --cgroup argument, resolved later by scope__resolve_cgroups(). */
int scope__add_cgroup(struct scope *s, const char *arg);
/* The same for a cgroup named another way (--container ID, --pod UID). */
int scope__add_cgroup_of(struct scope *s, enum scope_cgroup_kind kind, const char *arg);

/*
 * Find the cgroup2 mount point in /proc/self/mountinfo text.  0 or -ENOENT.
 */
int scope__cgroup2_mount(const char *mountinfo, char *ret, size_t len);

/*
 * Resolve each --cgroup argument against the cgroup2 hierarchy mounted at `mount`
 * (root_fd is that directory): an absolute path under the mount, a path relative to
 * its root ("/system.slice/x.service" or "system.slice/x.service"), or a bare unit
 * or slice name found by searching the hierarchy; a container's or pod's cgroup as
 * containers__find() finds it.  Missing or ambiguous: -ENOENT / -EEXIST with a
 * message in err naming the candidates (-EINVAL: a bad container id or pod uid).
 */
int scope__resolve_cgroups(struct scope *s, int root_fd, const char *mount, char *err, size_t errlen);

/* A one-line description, e.g. "uid 1001 (alice), cgroup /system.slice/x.service". */
void scope__describe(const struct scope *s, char *buf, size_t len);

#endif
