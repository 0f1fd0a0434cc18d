/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The cgroups a recording heard of, by cgroup2 id: each one's path (relative to the
 * cgroup2 root), whether it is in a --cgroup scope (the subtree of a scoped path),
 * and whether the file names it yet (a cgroup's record is written just before the
 * first written sample that carries its id).
 *
 * Learnt from the scoped subtrees when created, from the kernel's CGROUP records as
 * they come, and for a cgroup made before the recording and met outside those
 * subtrees, from one walk of the whole hierarchy.
 */
#ifndef PROF_SCOPE_CGROUPS_H
#define PROF_SCOPE_CGROUPS_H

#include <stdbool.h>
#include <stdint.h>

#include "prof/scope/scope.h"

struct cgroups;

/*
 * The registry of a recording of scope s (which must outlive it), over the cgroup2
 * hierarchy at root_fd (borrowed; -1 when none is mounted).  Walks the scoped
 * subtrees, whose ids must be known before their first sample.  0 or -errno.
 */
int cgroups__new(const struct scope *s, int root_fd, struct cgroups **ret);
struct cgroups *cgroups__free(struct cgroups *c);

/* A cgroup announced (a CGROUP record): 0 (also when known already) or -ENOMEM. */
int cgroups__add(struct cgroups *c, uint64_t id, const char *path);

/* In a scoped subtree?  An unknown id is not. */
bool cgroups__in_scope(struct cgroups *c, uint64_t id);

/*
 * The file is about to carry a sample of cgroup id: its path the first time (the
 * cgroup is then marked as named by the file), NULL once named or when unknown even
 * after the hierarchy was walked.  Valid while the registry lives.
 */
const char *cgroups__mark_written(struct cgroups *c, uint64_t id);

/* fn(id, path, ctx) for each cgroup the file names, in the order they were learnt. */
void cgroups__for_each_written(const struct cgroups *c,
			       void (*fn)(uint64_t id, const char *path, void *ctx), void *ctx);

#endif
