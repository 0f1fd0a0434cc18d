/* SPDX-License-Identifier: GPL-2.0-or-later */
/* JIT symbols from /tmp/perf-PID.map files. */
#ifndef PROF_JITMAP_H
#define PROF_JITMAP_H

#include <stdint.h>

struct jitmap;
struct jtable;

/* dir: where the map files are (/tmp). */
struct jitmap *jitmap__new(const char *dir);
struct jitmap *jitmap__free(struct jitmap *j);

/* The JIT symbol at ip of process pid, or NULL. */
const char *jitmap__lookup(struct jitmap *j, int32_t pid, uint64_t ip);

#endif
