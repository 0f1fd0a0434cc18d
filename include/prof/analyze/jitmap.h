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

/* How many map files were ignored as untrusted; *ret_why says why the first was. */
size_t jitmap__untrusted(const struct jitmap *j, const char **ret_why);

#endif
