/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where a task's paths resolve: its place, the pair (mount namespace, root
 * directory).  A kernel MMAP2's path is the mapping task's view: a container's
 * (another mount namespace, after pivot_root) or a chroot's (prof's namespace,
 * another root) names another file on the host, or none.  A place is known by the
 * mount namespace's nsfs inode and the root directory's device and inode; prof's own
 * is the one where a path means what it means to prof.
 *
 * Each task's place is known from its parent's at FORK (a chroot() without exec is
 * not seen), forgotten at a NAMESPACES record of it (setns, unshare) and a few
 * rounds after its EXIT (records are looked up as each CPU's ring is drained, so a
 * child's FORK or MMAP2 may come after its parent's or its own EXIT), and otherwise read from /proc/PID/ns/mnt and /proc/PID/root as the invoking user
 * the first time it is asked.  The first task met in a place other than prof's own
 * gives it an O_PATH descriptor of its root directory (task_file__root), held while
 * room remains (PLACES_MAX_HELD, a place without a task known to be in it making
 * room), so that its objects can still be reached once that task is gone while the
 * place's mounts live on in the descriptor (task_file__open_in_root: never above
 * that root, never through a link, only the mapped inode).
 */
#ifndef PROF_SYNTH_PLACES_H
#define PROF_SYNTH_PLACES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/sys/task_file.h"

#define PLACES_MAX_HELD 64u
#define PLACES_MAX 4096u
#define PLACE_NONE UINT32_MAX
/* Rounds an exited task's place is kept: a ring is drained at most a pass late. */
#define PLACES_EXITED_ROUNDS 4u

struct places;

/* prof's own place read now.  0 or -errno (-ENOMEM). */
int places__new(struct places **ret);
/* Closes the descriptors it holds.  NULL-safe; returns NULL. */
struct places *places__free(struct places *pl);

/* pid's place: known, or read from /proc now.  Its index, or PLACE_NONE (the task is
 * gone or not the user's to look at, or no memory). */
uint32_t places__of(struct places *pl, int32_t pid);
/* A new process is in its parent's place (when known).  0 or -ENOMEM. */
int places__fork(struct places *pl, int32_t ppid, int32_t pid);
/* pid exec'd or changed namespaces (stale: read again when asked, the place it had
 * the guess if it is gone by then and that place was not prof's own), or exited. */
void places__forget(struct places *pl, int32_t pid, bool stale);
/* A round ended: exited tasks older than PLACES_EXITED_ROUNDS are forgotten. */
void places__round(struct places *pl);

/* Is it prof's own place (paths mean what they mean on the host)? */
bool places__own(const struct places *pl, uint32_t place);
/* Does it share prof's mount namespace (a chroot does)? */
bool places__own_ns(const struct places *pl, uint32_t place);
/* Its root's held O_PATH descriptor (the place's, not the caller's), or -1. */
int places__root(const struct places *pl, uint32_t place);
/* A name for it, for a path that must not resolve on the host: "mnt:INODE" (another
 * mount namespace, as lsns numbers them), "chroot:PATH" (its root as seen from prof's,
 * "chroot:DEV:INODE" when unknown), "unknown" for PLACE_NONE. */
void places__name(const struct places *pl, uint32_t place, char *buf, size_t size);

struct places_stats {
	uint64_t places;                /* other than prof's own */
	uint64_t held;                  /* their roots held, at most */
	uint64_t not_held;              /* no room (PLACES_MAX_HELD); a root not the user's to
					 * open makes no place */
};
const struct places_stats *places__stats(const struct places *pl);

#endif
