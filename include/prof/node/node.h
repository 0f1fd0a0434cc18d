/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A process's V8: found by its mapping of the node executable or of libnode.so
 * (Debian's node is a small launcher linked to libnode.so.NNN, which holds V8),
 * opened as every mapped object is (sys/task_file.h: inside a container through the
 * task's root), its postmortem metadata read from that very file (the v8dbg_* ints
 * are initialised data: their values are the file's, in .data, or 0 in .bss) and
 * checked (v8meta.h).  The process's memory is read with the caller's read function.
 */
#ifndef PROF_NODE_NODE_H
#define PROF_NODE_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/node/v8meta.h"

struct node_v8 {
	struct v8_meta m;
	char path[256];                 /* the object holding V8, as the task names it */
	v8_read_fn read;
	void *ctx;
};

/*
 * The v8dbg_* symbols of the ELF file open on fd into *ret (v8_meta__note each).
 * 0; -ENOENT when it has none (no V8, or one built without postmortem metadata);
 * -EINVAL when fd is no ELF.  Not checked: v8_meta__check.
 */
int node__read_meta(int fd, struct v8_meta *ret);

/* Could the object at path hold V8 (node, nodejs, node<N>, libnode.so[.N])? */
bool node__looks_like(const char *path);

/* -g: is a V8 in reach of a recording (its workload argv0 looks like node, or one of
 * pids maps an object that does), so that its samples need the stack copy? */
bool node__in_reach(const char *argv0, const int *pids, size_t n);

/*
 * Find V8 in process pid by the text of its /proc/PID/maps (maps, NUL-terminated):
 * the first object that looks like node's and has the metadata.  0 with *ret read and
 * checked, read/ctx kept for the frame readers; -ENOENT (no node mapped);
 * -ENOTSUP with why (one line: a node without metadata, or metadata that does not
 * check out, and which item); -errno opening the object.
 */
int node__find_in_maps(int32_t pid, const char *maps, v8_read_fn read, void *ctx, struct node_v8 *ret, char *why,
		       size_t why_len);

/* The same, reading /proc/PID/maps (-ESRCH: gone). */
int node__find(int32_t pid, v8_read_fn read, void *ctx, struct node_v8 *ret, char *why, size_t why_len);

#endif
