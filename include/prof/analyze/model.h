/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The picture of the recorded host that a stream of records gives, in time order:
 * threads (process, comm), each process's address map (maps.h), the kernel's maps,
 * the objects mapped (path, build id, device and inode), cgroup paths, and the uid
 * of each task when the caller knows it (prof's section of a file).  Fed by prof
 * report from a file, by prof top from the live session, and by the unwinder from
 * the records the session writes.
 */
#ifndef PROF_ANALYZE_MODEL_H
#define PROF_ANALYZE_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "prof/analyze/maps.h"

struct model;

/* An object as the records name it: a path (or [kernel.kallsyms], [vdso], //anon...)
 * and, where the record says, the file's device and inode or its build id. */
enum model_vdso {
	MODEL_VDSO_NONE,                /* not the vDSO */
	MODEL_VDSO_NATIVE,              /* a 64-bit task's [vdso] (mapped above 4 GiB) */
	MODEL_VDSO_OTHER,               /* a [vdso] that may be a 32-bit or x32 task's */
};

struct model_dso {
	const char *name;               /* interned: objects of one path share the pointer */
	bool kernel;
	uint8_t vdso;                   /* enum model_vdso (perfdata/vdso.h) */
	bool has_inode;                 /* maj, min, ino are the mapped file's (an MMAP2 without build id) */
	uint8_t build_id_len;
	uint8_t build_id[20];
	uint32_t maj, min;
	uint64_t ino;
};

struct model_location {
	uint32_t dso;                   /* index, or MODEL_NO_DSO */
	uint64_t off;                   /* file offset (user) or address (kernel) */
};
#define MODEL_NO_DSO UINT32_MAX

struct model *model__new(void);
struct model *model__free(struct model *m);

/* Feed a sideband record (COMM, FORK, MMAP, MMAP2, CGROUP); others are ignored.
 * Records must be whole (checked by the reader); 0 or -ENOMEM. */
int model__process(struct model *m, const struct perf_event_header *ev);

/*
 * A count that changes whenever what model__resolve() answers may change (maps: the
 * address maps and objects), or what model__comm(), model__uid() and
 * model__container() answer (!maps): callers cache answers while it stays.
 */
uint64_t model__generation(const struct model *m, bool maps);

/* The uid tid ran as (prof's section of a file says).  0 or -ENOMEM. */
int model__set_uid(struct model *m, int32_t tid, uint32_t uid);

/* Where ip of (pid, tid) is, in kernel or user space.  false when unmapped. */
bool model__resolve(const struct model *m, int32_t pid, bool kernel, uint64_t ip, struct model_location *ret);

/* pid's address map, or NULL when the model knows none.  Valid until the model changes. */
const struct maps *model__maps(const struct model *m, int32_t pid);

/* Forget pid's mappings (an exec, for a reader that does not keep the old image's). */
void model__clear_maps(struct model *m, int32_t pid);

/*
 * Forget an exited thread (and, for a process leader, its maps), for a live model
 * (prof top) that must not grow with every task it ever saw.  Call it once the
 * task's last samples are in: they may follow its EXIT record.
 */
void model__forget(struct model *m, int32_t pid, int32_t tid);

/* Object idx (model_location.dso, map.dso), NULL past the last. */
const struct model_dso *model__dso(const struct model *m, uint32_t idx);
/* The comm of tid, interned ("" when unknown). */
const char *model__comm(const struct model *m, int32_t tid);
/* uid of tid (model__set_uid); false when unknown. */
bool model__uid(const struct model *m, int32_t tid, uint32_t *ret);
/* Cgroup id is at path (a record's that is not in the stream: prof's section names
 * the cgroups of --off-cpu's CPU holders).  0 or -ENOMEM. */
int model__add_cgroup(struct model *m, uint64_t id, const char *path);
/* Path of cgroup id, or NULL. */
const char *model__cgroup(const struct model *m, uint64_t id);
/* The container cgroup id is in (containers__of_path() of its path), interned (one
 * pointer per id); "" for a host cgroup; NULL when the id is 0 or unknown. */
const char *model__container(const struct model *m, uint64_t id);
/* The host kernel's build id (hex) the data named in a HEADER_BUILD_ID record, ""
 * when it named none. */
const char *model__kernel_build_id(const struct model *m);
/* Name the container of id (its 64 hex digits) as its runtime does (prof's section
 * carries the names).  0 or -ENOMEM. */
int model__name_container(struct model *m, const char *id, const char *name);
/* The runtime's name of container id (model__container's answer), or NULL. */
const char *model__container_name(const struct model *m, const char *id);
/* The kernel map's reference symbol and address (for relocation), false if none. */
bool model__kernel_ref(const struct model *m, const char **ret_name, uint64_t *ret_addr);

#endif
