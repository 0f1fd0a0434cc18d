/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pure parsers of /proc text.  They take a buffer and never touch the file system,
 * so unit tests feed them fixture text; src/synth/synth.c is the thin shell that
 * reads the files.
 */
#ifndef PROF_SYS_PROCFS_H
#define PROF_SYS_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct proc_map {
	uint64_t start, end, pgoff;
	uint32_t prot;          /* PROT_* */
	uint32_t flags;         /* MAP_PRIVATE or MAP_SHARED */
	uint32_t maj, min;
	uint64_t ino;
	const char *path;       /* points into the parsed line; not NUL-terminated */
	size_t path_len;        /* 0 for an anonymous mapping */
};

/* One line of /proc/PID/maps (without its newline).  0 or -EINVAL. */
int procfs__parse_maps_line(const char *line, size_t len, struct proc_map *ret);

/* Address of symbol `name` in /proc/kallsyms text.  0, -ENOENT, or -EPERM when
 * the addresses are hidden (all zero: kernel.kptr_restrict). */
int procfs__kallsyms_find(const char *buf, const char *name, uint64_t *ret_addr);

/* One line of /proc/modules: name, load address and size.  0 or -EINVAL. */
int procfs__parse_module_line(const char *line, size_t len, char *name, size_t namelen,
			      uint64_t *ret_addr, uint64_t *ret_size);

/* A numeric field of /proc/PID/status ("Uid:", "PPid:"...): its first value. 0/-ENOENT. */
int procfs__status_u64(const char *buf, const char *key, uint64_t *ret);

/* The cgroup2 path ("0::/path" line) of /proc/PID/cgroup text.  0 or -ENOENT. */
int procfs__cgroup2_path(const char *buf, char *ret, size_t len);

/* The GNU build id in /sys/kernel/notes (ELF notes), as hex.  0, -ENOENT, -EINVAL. */
int procfs__kernel_build_id(const uint8_t *notes, size_t len, char *hex, size_t hexlen);

/* The mount point of the first mount of file system type fstype in
 * /proc/self/mountinfo text.  0, -ENOENT or -ENAMETOOLONG. */
int procfs__mount_point(const char *mountinfo, const char *fstype, char *ret, size_t len);

/* Copy a /proc/PID/comm content (trailing newline dropped) into comm[16]. */
void procfs__comm(const char *buf, char comm[16]);

#endif
