/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The build ids of a recording, for perf.data's HEADER_BUILD_ID feature: the kernel's
 * and those of every file-backed executable mapping written to the file (each
 * MMAP2 with PROT_EXEC and a path): one record per path and build id.  The table
 * keeps which objects (device, inode) each path named; their build ids are asked of
 * the caller when the feature is written (the recording's objects, read from the
 * very files that were mapped: src/synth/objects.c), so an object without one gets
 * no record rather than a wrong one.
 */
#ifndef PROF_PERFDATA_BUILD_ID_TABLE_H
#define PROF_PERFDATA_BUILD_ID_TABLE_H

#include <stdint.h>
#include <perf/event.h>

#include "prof/perfdata/build_id.h"
#include "prof/perfdata/perf_data.h"

struct build_id_table;

struct build_id_table_stats {
	uint64_t objects;       /* distinct files (device, inode) met */
	uint64_t read;          /* (path, object) pairs with a build id, when written */
	uint64_t entries;       /* build id records written */
};

struct build_id_table *build_id_table__new(void);
struct build_id_table *build_id_table__free(struct build_id_table *t);

/*
 * A record about to be written: an executable file MMAP2 is noted (others are
 * ignored, cheaply).  No file is opened.  0 or -ENOMEM.
 */
int build_id_table__note(struct build_id_table *t, const struct perf_event_header *ev);

/* The running kernel's build id, written first as [kernel.kallsyms]. */
void build_id_table__set_kernel(struct build_id_table *t, const struct build_id *b);

/* Whether a 64-bit task's [vdso] mapping was noted (vdso.h). */
bool build_id_table__saw_vdso(const struct build_id_table *t);

/* The vDSO image's build id, written as "[vdso]" when one was noted (as perf does). */
void build_id_table__set_vdso(struct build_id_table *t, const struct build_id *b);

/* The build id of object (maj, min, ino): true with *ret filled, false when none. */
typedef bool (*build_id_table_lookup_fn)(void *ctx, uint32_t maj, uint32_t min, uint64_t ino,
					 struct build_id *ret);

/*
 * The HEADER_BUILD_ID payload (perf's struct build_id_event records, pid -1, the
 * build id size in the record) into b, with the build ids lookup gives (NULL: only
 * those the records carried); b->err is set on ENOMEM.  A path that named objects
 * of two different build ids during the recording has a record for each.
 */
void build_id_table__write(struct build_id_table *t, struct feat_buf *b, build_id_table_lookup_fn lookup, void *ctx);

const struct build_id_table_stats *build_id_table__stats(const struct build_id_table *t);

#endif
