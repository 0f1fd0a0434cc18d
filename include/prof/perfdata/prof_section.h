/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * prof's own perf.data section: the scope asked for, the uid of every task with
 * written samples, and the accounting.  Written and parsed here, nowhere else.
 *
 * Where: after the feature sections, not as a feature bit (perf inject copies
 * every set bit and calls the writer of each, out of bounds for bits it does not
 * know).  The file ends with a trailer of three little-endian u64,
 *
 *   offset   where the section starts (8-aligned, after the last feature section)
 *   size     its length in bytes
 *   magic    0x31434553464f5250, the bytes "PROFSEC1"
 *
 * (struct prof_trailer in perf_data.h).  perf's tools read the file by the offsets
 * in its header and never look there; files prof wrote before kept the section as
 * feature bit 255, which prof report still reads.
 *
 * Text, one fact per line, so it is easy to read back and to inspect:
 *
 *   prof-scope 1
 *   kernel-build-id <hex>          (of the recording kernel, for report's kallsyms)
 *   mmap-build-ids 1               (each MMAP2 of an executable file carries its build
 *                                   id where prof could read it: one without is an
 *                                   object whose build id is unknown)
 *   scope all
 *   scope uid 1001
 *   scope cgroup /system.slice/nginx.service
 *   scope pid 1234
 *   scope workload 5678
 *   task <pid> <tid> <uid|->
 *   stat <name> <value>            (the names of struct prof_section_stats)
 *   container-name <id> <name>     (the runtime's name of a container of the file,
 *                                   its 64-hex id; the name's bytes below '!', '%'
 *                                   and DEL written %XX)
 *   pressure <cgroup> <wall ns> <field>=<value>...
 *                                  (a scope's cgroup's PSI totals and cpu.stat over
 *                                   the recording's wall ns: the end's minus the
 *                                   start's, fields as pressure.h names them, those
 *                                   not known left out; the path encoded as a name)
 *
 *   holder <n> <uid|-> <cgroup id> <cgroup|->
 *                                  (--off-cpu, root's and the admins' recordings only:
 *                                   an offcpu-runq sample whose holder (its cpu_res) is
 *                                   OFFCPU_HOLDER_TASK + n waited behind a task of that
 *                                   uid in that cgroup (its path encoded as a name; 0
 *                                   and "-": not known).  Files without these lines
 *                                   name a holder by OFFCPU_HOLDER_UID + uid)
 *
 *   perf-map <pid> <from> <until|-> <start> <size> <name>
 *                                  (one line of the perf map, /tmp/perf-PID.map, of a
 *                                   process in a container or chroot, copied while
 *                                   recording (synth/perf_maps.h): its host pid, its
 *                                   lifetime (from, until] in sample time ("-": alive
 *                                   at the end), START and SIZE in hex as the map has
 *                                   them, the name encoded as a container's; a name
 *                                   too long for a line is left out)
 *
 * Older files also have "cgroup <id> <path>" lines: the CGROUP records of the
 * file name the same cgroups, so they are no longer written, and skipped.  A line
 * this parser does not know is skipped too.
 */
#ifndef PROF_PERFDATA_PROF_SECTION_H
#define PROF_PERFDATA_PROF_SECTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/perfdata/perf_data.h"
#include "prof/sys/pressure.h"

struct prof_section_task {
	int32_t pid, tid;
	uint32_t uid;
	bool uid_known;
};

#define PROF_SECTION_NAME_MAX 400       /* bytes of a container's name (RUNTIME_NAME_MAX) */

/* A container's name as its runtime (docker, podman, the kubelet) gave it. */
struct prof_section_name {
	char id[65];                    /* 64 hex digits */
	char *name;                     /* as the runtime has it: may hold any byte but NUL */
};

/* What happened to the samples while recording (the summary line's numbers). */
struct prof_section_stats {
	uint64_t samples_written, samples_out_of_scope;
	uint64_t unattributed_gone, unattributed_creds;
	uint64_t lost, lost_samples;    /* records and samples the kernel lost */
	uint64_t tasks_seen;
	/* Python frames (python.h's python_stats, 0 where there were none): samples of
	 * interpreters, with Python frames, all verified, shown from the chain read at
	 * the sample instant; activations [python: unverified] by why (enum
	 * python_verdict's order, from PYTHON_READ_FAILED) */
	uint64_t py_samples, py_processes, py_with, py_verified, py_chained;
	uint64_t py_unverified[6];
	/* Java frames (jvm/frames.h's jvm_frames_stats, 0 where there were none): samples
	 * of JVMs, with Java frames, all named; frames named; samples with callers not
	 * proven; [java: unverified] frames by why (enum java_why's order) */
	uint64_t java_samples, java_processes, java_with, java_verified, java_frames, java_cut;
	uint64_t java_vm_threads;       /* samples of the VM's own threads, named by role */
	uint64_t java_unverified[5];
};

/* A cgroup's pressure over the recording (pressure.h). */
struct prof_section_pressure {
	char *cgroup;                   /* its path under the cgroup2 root (built: borrowed) */
	uint64_t wall_ns;               /* between the two readings */
	struct pressure d;              /* the differences; have: the fields known */
};

/* An entry of --off-cpu's holder table (offcpu.h): who held a CPU. */
struct prof_section_holder {
	uint32_t n;                     /* the holder is OFFCPU_HOLDER_TASK + n */
	uint32_t uid;
	bool uid_known;
	uint64_t cgroup;                /* 0: not known */
	char *cgroup_path;              /* NULL: not known (built: borrowed) */
};

/* A copied perf map, to build (borrowed): its text as read. */
struct prof_section_perf_map {
	int32_t pid;
	uint64_t from, until;           /* until: UINT64_MAX, alive at the end */
	const char *text;
	size_t len;
};

/* A perf map's line, parsed. */
struct prof_section_jit {
	int32_t pid;
	uint64_t from, until;
	uint64_t start, size;
	char *name;
};

#define PROF_SECTION_JIT_NAME_MAX 3800  /* bytes of an encoded name on a perf-map line */

/* The section's facts: filled by the recorder to build it, by the parser from a file. */
struct prof_section {
	char kernel_build_id[84];       /* hex, "" when unknown */
	bool mmap_build_ids;            /* MMAP2s carry the build ids prof could read */
	bool scope_all;
	uint32_t *scope_uids;
	size_t nr_scope_uids;
	char **scope_cgroups;           /* paths */
	size_t nr_scope_cgroups;
	int32_t *scope_pids;
	size_t nr_scope_pids;
	int32_t scope_workload;         /* 0: none */
	struct prof_section_task *tasks;
	size_t nr_tasks;
	struct prof_section_name *names;        /* of the file's containers (built: borrowed) */
	size_t nr_names;
	struct prof_section_pressure *pressure; /* none in older files (built: borrowed) */
	size_t nr_pressure;
	struct prof_section_holder *holders;    /* --off-cpu's holder table (built: borrowed) */
	size_t nr_holders;
	const struct prof_section_perf_map *perf_maps;  /* built only (borrowed) */
	size_t nr_perf_maps;
	struct prof_section_jit *jit;   /* parsed only */
	size_t nr_jit;
	bool has_stats;                 /* parsed: the file had stat lines */
	struct prof_section_stats stats;
};

/* Build the section of s into b (NUL-padded to 8 bytes).  b->err is set on ENOMEM. */
void prof_section__build(struct feat_buf *b, const struct prof_section *s);

/*
 * Parse a section's text (from a file: anything) into *ret, which owns what it
 * holds (prof_section__release).  Lines that are not well formed are skipped.
 * 0, or -ENOMEM with *ret empty.
 */
int prof_section__parse(const char *text, size_t len, struct prof_section *ret);

/* The holder table's entry n (OFFCPU_HOLDER_TASK + n), NULL when the file has none. */
const struct prof_section_holder *prof_section__holder(const struct prof_section *s, uint32_t n);

/* Free what prof_section__parse() allocated; s is empty again. */
void prof_section__release(struct prof_section *s);

/* The scope in words, "uid 1001, cgroup /a, pid 5" ("" for none), cut to len. */
void prof_section__describe_scope(const struct prof_section *s, char *buf, size_t len);

#endif
