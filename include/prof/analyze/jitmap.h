/* SPDX-License-Identifier: GPL-2.0-or-later */
/* JIT symbols from /tmp/perf-PID.map files. */
#ifndef PROF_ANALYZE_JITMAP_H
#define PROF_ANALYZE_JITMAP_H

#include <stddef.h>
#include <stdint.h>

struct jitmap;
struct jtable;

/* dir: where the map files are (/tmp). */
struct jitmap *jitmap__new(const char *dir);
struct jitmap *jitmap__free(struct jitmap *j);

/*
 * The JIT symbol at ip of process pid, or NULL.  owner is the uid the recording gave
 * the process (-1 when it gave none): the process's map file is read only when it
 * is a regular file owned by the reader (euid), root or owner; otherwise it is
 * ignored and counted for jitmap__untrusted().  The name lives as long as j.
 */
const char *jitmap__lookup(struct jitmap *j, int32_t pid, int64_t owner, uint64_t ip);

/*
 * A line of a process's map copied into the recording (prof_section.h's perf-map
 * lines: a process in a container or chroot, whose map is not the host's
 * /tmp/perf-PID.map): for samples of pid with a time in (from, until].  Those
 * samples take their JIT names from the copy alone; others as before.  The lines of
 * one lifetime come together.  0 or -ENOMEM.
 */
int jitmap__add_copy(struct jitmap *j, int32_t pid, uint64_t from, uint64_t until, uint64_t start,
		     uint64_t size, const char *name);
/* The time of the sample whose frames are looked up next (for the copies). */
void jitmap__at(struct jitmap *j, uint64_t time);

/* How many map files were ignored as untrusted; *ret_why says why the first was. */
size_t jitmap__untrusted(const struct jitmap *j, const char **ret_why);

#endif
