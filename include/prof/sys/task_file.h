/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The file a task mapped, reached so that nothing else is opened: the one way prof
 * opens a recorded object (its build id, the unwinder's CFI, a copy for the build-id
 * cache).  An MMAP2 names the file by the task's own path (inside a container: the
 * container's root, after pivot_root) and its device and inode.  Three ways in, each
 * with the invoking user's rights only (privs__as_user: no capability, the real uid
 * as file system uid), each checked to end at a regular file with the MMAP2's
 * device and inode (else -ESTALE):
 *
 *   host        the path from prof's root, for a task of prof's own mount namespace
 *               (openat2 RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS: the path of a
 *               mapping has neither, so a link met means the tree changed since)
 *   map_files   /proc/PID/map_files/<start>-<end>: the kernel's own reference to the
 *               mapped file, whatever its path, mount namespace or overlayfs layer,
 *               deleted or replaced since; needs CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE
 *               in the initial user namespace, so with the user's rights only root
 *               reaches it
 *   task root   the path under an O_PATH descriptor of /proc/PID/root (the task's
 *               root directory, which ptrace access as the user opens: their own
 *               tasks, rootless containers included), resolved with openat2
 *               RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS: no
 *               component may leave the task's root or be a link of any kind
 *
 * The last component is opened O_PATH | O_NOFOLLOW, checked with fstat, and only then
 * reopened for reading through /proc/self/fd, so a symlink, FIFO or device put at the
 * path is never opened.  The device and inode compared are the MMAP2's: the kernel
 * writes the file's user-visible inode there, the one stat shows through the task
 * (for an overlayfs root, the overlay's device, as /proc/PID/maps shows it).  With
 * has_gen, the inode's generation too (the MMAP2's ino_generation, FS_IOC_GETVERSION
 * where the file system answers it): once the mapping task is gone its inode may be
 * freed, and ext4 gives a freed inode number to the next file made, so device and
 * inode alone would take a rebuilt or planted file for the mapped one.
 */
#ifndef PROF_SYS_TASK_FILE_H
#define PROF_SYS_TASK_FILE_H

#include <stdbool.h>
#include <stdint.h>

/* A mapping as its MMAP2 names it. */
struct task_file {
	int32_t pid;
	uint64_t start, end;            /* [start, end) */
	const char *path;               /* NUL-terminated, the task's view */
	uint32_t maj, min;
	uint64_t ino;
	uint32_t gen;                   /* the inode's generation, when has_gen */
	bool has_gen;                   /* the kernel's MMAP2 gave it (not /proc's maps) */
};

enum task_file_way {
	TASK_FILE_NONE,
	TASK_FILE_HOST,
	TASK_FILE_MAP_FILES,
	TASK_FILE_TASK_ROOT,
	TASK_FILE_HELD_ROOT,            /* task_file__open_in_root */
};

/* A namespace as NAMESPACES records name it: nsfs's device (the kernel's encoding) and inode. */
struct task_ns {
	uint64_t dev, ino;
};

#define TASK_FILE_TRY_HOST      1u      /* the task is known to share prof's mount namespace */
#define TASK_FILE_NO_MAP_FILES  2u      /* map_files was refused before: do not ask again */

/*
 * Open the file of mapping f for reading: from prof's root first with
 * TASK_FILE_TRY_HOST, then through the task (map_files, then its root).  An fd, with
 * *ret_way saying how, or the most telling -errno: -ESTALE (a path names another file
 * now), -EACCES/-EPERM (not the user's to read), -ESRCH (the task or the mapping is
 * gone), -ENOENT.  *ret_map_files_refused is set when map_files answered EPERM.
 */
int task_file__open(const struct task_file *f, unsigned int flags, enum task_file_way *ret_way,
		    bool *ret_map_files_refused);

/*
 * Open f's path under root_fd, an O_PATH descriptor of a task's root directory that
 * task_file__root gave (the task may be gone: the descriptor keeps its mount
 * reachable), as the "task root" way does: as the user, RESOLVE_IN_ROOT |
 * RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS, the last component O_PATH|O_NOFOLLOW,
 * a regular file with f's device and inode.  An fd, or -errno (-ESTALE: another
 * file, or a link, at the path).
 */
int task_file__open_in_root(int root_fd, const struct task_file *f);

/* An O_PATH descriptor of pid's root directory (0: prof's own), opened as the user
 * through /proc/PID/root (ptrace access to pid), and its path as the opener sees it
 * in ret_name (size bytes, "" when unknown; size 0: not asked).  The fd, or -errno
 * (-ESRCH: gone). */
int task_file__root(int32_t pid, char *ret_name, size_t size);

/* The mount namespace of pid (0: prof's own), from /proc/PID/ns/mnt, as the user.
 * 0 or -errno (-ENOENT: gone). */
int task_file__mnt_ns(int32_t pid, struct task_ns *ret);

/* "host", "map_files", "task root", "held root". */
const char *task_file__way_name(enum task_file_way way);

#endif
