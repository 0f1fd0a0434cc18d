/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Finding tracepoints: the tracefs mount, an event's id and its fields' offsets. */
#ifndef PROF_SYS_TRACEFS_H
#define PROF_SYS_TRACEFS_H

#include <stddef.h>

/* The tracefs mount point in /proc/self/mountinfo text (or debugfs/tracing).  0/-ENOENT. */
int tracefs__find_mount(const char *mountinfo, char *ret, size_t len);

/* Offset of field `name` in an event's format text ("field:long ret;\toffset:16;...").  0/-ENOENT. */
int tracefs__field_offset(const char *format, const char *name, int *ret);

/*
 * The tracefs directory, mounting tracefs at /sys/kernel/tracing when it is not
 * mounted and prof may (as perf does).  0 or -errno.
 */
int tracefs__dir(char *ret, size_t len);

/* Read events/<system>/<event>/{id,format}: the id and the offset of `field`. 0/-errno. */
int tracefs__event(const char *dir, const char *system, const char *event, const char *field,
		   unsigned long long *ret_id, int *ret_off);

#endif
