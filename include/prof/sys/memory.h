/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * How much memory this process may still take: what a report sizes its budget by
 * (a report of a file is exact unless memory truly runs out).  The least of the
 * host's MemAvailable, the room under the memory.max of its cgroup and of each
 * ancestor, and the room RLIMIT_AS / RLIMIT_DATA leave past what it holds.
 */
#ifndef PROF_SYS_MEMORY_H
#define PROF_SYS_MEMORY_H

#include <stdint.h>

/* MemAvailable of /proc/meminfo text, in bytes.  0 or -ENOENT. */
int memory__meminfo_available(const char *meminfo, uint64_t *ret);

/* The room a cgroup's memory.max and memory.current texts leave ("max": none,
 * UINT64_MAX).  0 or -EINVAL. */
int memory__cgroup_room(const char *max, const char *current, uint64_t *ret);

/* The room a resource limit of limit bytes leaves a process whose /proc/self/status
 * text gives key ("VmSize:", "VmData:") in kB.  0 or -ENOENT. */
int memory__limit_room(uint64_t limit, const char *status, const char *key, uint64_t *ret);

/* The bytes this process may still take, as above; UINT64_MAX when nothing can be
 * read. */
uint64_t memory__available(void);

#endif
