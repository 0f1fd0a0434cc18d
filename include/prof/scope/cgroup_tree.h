/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The cgroup2 hierarchy as a tree of directories: a cgroup's id, whether one path
 * is under another, a walk over a subtree.  What the scope's resolution, the
 * cgroup registry, containers, the tracker and record's cgroup events share.
 */
#ifndef PROF_SCOPE_CGROUP_TREE_H
#define PROF_SCOPE_CGROUP_TREE_H

#include <stdbool.h>
#include <stdint.h>

/* Deep enough for any subtree: the walk's bound, not a search's. */
#define CGROUP_TREE_ALL 64

/* Is cgroup path at or under root ("/a/b" is under "/a", "/ab" is not; all is under "/")? */
bool cgroup_tree__path_under(const char *path, const char *root);

/* The cgroup2 id of a directory under root_fd ("" for the root itself).  0 or -errno. */
int cgroup_tree__id(int root_fd, const char *relpath, uint64_t *ret);

/*
 * Call fn for every cgroup directory under relpath (itself included) down to depth
 * levels below it, depth first, with its path relative to the root (leading '/')
 * and its id; a non-zero return of fn ends the walk with it.  A directory removed
 * while walked is skipped.  0 or -errno.
 */
int cgroup_tree__walk(int root_fd, const char *relpath, int depth,
		      int (*fn)(const char *path, uint64_t id, void *ctx), void *ctx);

#endif
