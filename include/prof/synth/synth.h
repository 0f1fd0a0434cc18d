/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Synthesized records: the COMM/MMAP2 records describing a task that existed before
 * the recording (read from /proc when it first matters), and the kernel's own maps.
 * Records are handed to a sink callback; nothing here writes files or prints.
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
};

typedef int (*synth_sink_fn)(const void *rec, size_t len, void *ctx);

/* Bytes of sample_id_all trailer for env->sample_type. */
size_t synth__id_trailer_size(const struct synth_env *env);

enum synth_what {
	SYNTH_COMM = 1 << 0,
	SYNTH_MAPS = 1 << 1,
};

/* A task as /proc showed it: what synth__task() describes it with. */
struct synth_task {
	pid_t pid, tid;
	unsigned int what;      /* SYNTH_COMM | SYNTH_MAPS read */
	char comm[16];          /* with SYNTH_COMM */
	char *maps;             /* with SYNTH_MAPS: /proc/PID/maps (owned) */
	uint64_t read_done;     /* CLOCK_MONOTONIC when its reads ended: kernel MMAP2s
				 * stamped up to then repeat what the maps show */
};

/*
 * Read task tid of process pid from /proc: its comm (SYNTH_COMM) and its process's
 * maps (SYNTH_MAPS), everything before anything is described, so that a task that
 * vanishes meanwhile gives nothing half-read.  0; -ESRCH when the task is gone
 * (normal, not an error to report), *ret then empty; another -errno otherwise.
 * Release *ret with synth_task__release().
 */
int synth__read_task(const struct synth_env *env, pid_t pid, pid_t tid, unsigned int what,
		     struct synth_task *ret);
void synth_task__release(struct synth_task *t);

/*
 * Describe a task read by synth__read_task(): a COMM record (pid, tid) and one MMAP2
 * per mapping of the process, all stamped `time`.  0, or the sink's error.
 */
int synth__task(const struct synth_env *env, const struct synth_task *task, uint64_t time,
		synth_sink_fn sink, void *ctx);

/* A COMM record. */
int synth__comm(const struct synth_env *env, pid_t pid, pid_t tid, const char comm[16],
		uint64_t time, synth_sink_fn sink, void *ctx);

/* A CGROUP record naming cgroup id by its path (relative to the cgroup2 root). */
int synth__cgroup(const struct synth_env *env, uint64_t id, const char *path, uint64_t time,
		  synth_sink_fn sink, void *ctx);

/*
 * An MMAP2 of an object prof wrote (PERF_RECORD_MISC_MMAP_BUILD_ID: it carries its
 * build id, id_len bytes), readable and executable, into process pid.
 */
int synth__mmap2_build_id(const struct synth_env *env, pid_t pid, pid_t tid, uint64_t start, uint64_t len,
			  uint64_t pgoff, const uint8_t *id, size_t id_len, const char *name, uint64_t time,
			  synth_sink_fn sink, void *ctx);

/*
 * The kernel map ("[kernel.kallsyms]_text", as perf writes it) and one map per
 * module, from /proc/kallsyms and /proc/modules.  -EPERM when kallsyms addresses
 * are hidden (kptr_restrict): then nothing is emitted.
 */
int synth__kernel_maps(const struct synth_env *env, synth_sink_fn sink, void *ctx);

#endif
