/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Synthesized records: the COMM/MMAP2 records describing a task that existed before
 * the recording (read from /proc when it first matters), and the kernel's own maps.
 * Records are handed to an emit callback; nothing here writes files or prints.
 */
#ifndef PROF_SYNTH_SYNTH_H
#define PROF_SYNTH_SYNTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* What the records' sample_id_all trailer looks like, and where /proc is. */
struct synth_env {
	uint64_t sample_type;   /* of the events in the file */
	uint64_t id;            /* sample id stamped on synthesized records (0: first event) */
	int proc_fd;            /* directory fd of /proc (tests pass a fixture tree) */
	bool data_maps;         /* also non-executable maps */
	uint64_t *read_done;    /* if set, synth__task stores the CLOCK_MONOTONIC time its
				 * /proc reads ended, before emitting anything */
};

typedef int (*synth_emit_fn)(const void *rec, size_t len, void *ctx);

/* Bytes of sample_id_all trailer for env->sample_type. */
size_t synth__id_trailer_size(const struct synth_env *env);

enum synth_what {
	SYNTH_COMM = 1 << 0,
	SYNTH_MAPS = 1 << 1,
};

/*
 * Describe task tid of process pid from /proc: a COMM record (pid, tid) and, with
 * SYNTH_MAPS, one MMAP2 per mapping of the process, all stamped `time`.
 * Returns 0; -ESRCH when the task is gone (normal, not an error to report);
 * another -errno otherwise.  With -ESRCH nothing was emitted.
 */
int synth__task(const struct synth_env *env, pid_t pid, pid_t tid, unsigned int what,
		uint64_t time, synth_emit_fn emit, void *ctx);

/* A COMM record. */
int synth__comm(const struct synth_env *env, pid_t pid, pid_t tid, const char comm[16],
		uint64_t time, synth_emit_fn emit, void *ctx);

/* A CGROUP record naming cgroup id by its path (relative to the cgroup2 root). */
int synth__cgroup(const struct synth_env *env, uint64_t id, const char *path, uint64_t time,
		  synth_emit_fn emit, void *ctx);

/*
 * The kernel map ("[kernel.kallsyms]_text", as perf writes it) and one map per
 * module, from /proc/kallsyms and /proc/modules.  -EPERM when kallsyms addresses
 * are hidden (kptr_restrict): then nothing is emitted.
 */
int synth__kernel_maps(const struct synth_env *env, synth_emit_fn emit, void *ctx);

#endif
