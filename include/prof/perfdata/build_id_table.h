/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The build ids of a recording, for perf.data's HEADER_BUILD_ID feature: the kernel's
 * and those of every file-backed executable mapping written to the file (each
 * MMAP2 with PROT_EXEC and a path).  An object's ELF note is read once, when its
 * first MMAP2 is written, and only from the file the mapping was made of: the path
 * is opened without following a final symlink, and its device and inode must be
 * the MMAP2's, else (the file was replaced since, or the path means another file
 * in another mount namespace) the object gets no build id rather than a wrong one.
 * Files are opened with the invoking user's rights only (privs__open_mapped).
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
	uint64_t read;          /* ... whose build id was read */
	uint64_t entries;       /* build id records written */
};

struct build_id_table *build_id_table__new(void);
struct build_id_table *build_id_table__free(struct build_id_table *t);

/*
 * A record about to be written: an executable file MMAP2 is noted (others are
 * ignored, cheaply).  0 or -ENOMEM; a file that cannot be read is not an error.
 */
int build_id_table__note(struct build_id_table *t, const struct perf_event_header *ev);

/* The running kernel's build id, written first as [kernel.kallsyms]. */
void build_id_table__set_kernel(struct build_id_table *t, const struct build_id *b);

/*
 * The HEADER_BUILD_ID payload (perf's struct build_id_event records, pid -1, the
 * build id size in the record) into b; b->err is set on ENOMEM.  A path that named
 * two different objects during the recording has a record for each.
 */
void build_id_table__write(struct build_id_table *t, struct feat_buf *b);

const struct build_id_table_stats *build_id_table__stats(const struct build_id_table *t);

#endif
