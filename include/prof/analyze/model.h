/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The report's picture of the recorded host: threads (comm, process), each
 * process's memory maps, the kernel's maps, cgroup paths and the uid of each task
 * (from prof's header section), built from the records in time order.
 */
#ifndef PROF_ANALYZE_MODEL_H
#define PROF_ANALYZE_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

struct model;

struct model_dso {
	char *name;                     /* path, [kernel.kallsyms], [vdso], //anon... */
	bool kernel;
	uint8_t build_id[20];
	uint8_t build_id_len;
};

struct model_location {
	uint32_t dso;                   /* index, or MODEL_NO_DSO */
	uint64_t off;                   /* file offset (user) or address (kernel) */
};
#define MODEL_NO_DSO UINT32_MAX

struct model *model__new(void);
struct model *model__free(struct model *m);

/* Feed a sideband record (COMM, FORK, EXIT, MMAP, MMAP2, CGROUP); others are ignored.
 * Records must be whole (checked by the reader); 0 or -ENOMEM. */
int model__process(struct model *m, const struct perf_event_header *ev);

/* Parse prof's header section (task uids).  Unknown lines are ignored. */
void model__load_prof_section(struct model *m, const char *text, size_t len);

/* Where ip of (pid, tid) is, in kernel or user space.  false when unmapped. */
bool model__resolve(struct model *m, int32_t pid, bool kernel, uint64_t ip, struct model_location *ret);

/*
 * Forget an exited thread (and, for a process leader, its maps), for a live model
 * (prof top) that must not grow with every task it ever saw.  Call it once the
 * task's last samples are in: they may follow its EXIT record.
 */
void model__forget(struct model *m, int32_t pid, int32_t tid);

const struct model_dso *model__dso(const struct model *m, uint32_t idx);
/* The comm of tid ("" when unknown). */
const char *model__comm(struct model *m, int32_t tid);
/* uid of tid from prof's section; false when unknown. */
bool model__uid(const struct model *m, int32_t tid, uint32_t *ret);
/* Path of cgroup id, or NULL. */
const char *model__cgroup(const struct model *m, uint64_t id);
/* The kernel map's reference symbol and address (for relocation), false if none. */
bool model__kernel_ref(const struct model *m, const char **ret_name, uint64_t *ret_addr);

#endif
