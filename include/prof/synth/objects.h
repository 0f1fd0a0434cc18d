/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The objects a recording maps, and what the file and its readers need of them:
 * each file-backed executable mapping the file describes is an object (device,
 * inode), reached once, while its task most likely still runs (at the MMAP2 being
 * written: a round after the mapping, or right after /proc was read for a task that
 * existed before), through task_file.h: from prof's root for a task of prof's own
 * mount namespace whose path still names the mapped file, else through the task
 * (map_files, its root).  Its ELF headers are checked (build_id__check_elf) and its
 * build id read: the file's HEADER_BUILD_ID, and the unwinder's files, come from
 * here.  The mount namespace of each task is known from the NAMESPACES records the
 * file describes (a FORK gives the parent's until its own arrives), else from
 * /proc/PID/ns/mnt.
 *
 * Keeping (cfg.keep): a report needs the object itself, and where a container's
 * task is gone (or a deployment replaced the file) only a copy has it.  Each build
 * id whose objects get written samples (the sampled ip and the user call chain's
 * return addresses, located in a model of the written maps) is copied once into
 * the invoking user's build-id cache (build_id_cache.h), if one of its objects was
 * reached through its task, or a host object's path names another file by the end.
 * The copy is of the mapped inode: the descriptor opened when it was reached is
 * held until the copy (at most OBJECTS_MAX_HELD at a time; beyond, or for a host
 * object, the file is reached again when it is first hit).  Copies are made at the
 * end of a round, at most OBJECTS_ROUND_BYTES a round, and the rest at the end.
 * The per-record cost is one hash lookup for an MMAP2 of a known object, and a map
 * lookup per user frame of a sample while keeping.
 */
#ifndef PROF_SYNTH_OBJECTS_H
#define PROF_SYNTH_OBJECTS_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include <perf/event.h>

#include "prof/analyze/model.h"
#include "prof/perfdata/build_id.h"
#include "prof/perfdata/build_id_cache.h"
#include "prof/sys/task_file.h"

#define OBJECTS_MAX_HELD 256u
#define OBJECTS_ROUND_BYTES (16ull << 20)

struct objects_config {
	uint64_t sample_type;           /* of the samples passed to objects__note (the file's) */
	struct model *model;            /* the written maps, kept up to date by the caller (the
					 * unwinder's), or NULL: objects keeps its own */
	struct build_id_cache *cache;   /* where to keep hit objects (borrowed), or NULL: no keeping */
	/* of the kernel's records passed to objects__look_up (their samples' pid and
	 * time, for the perf maps of processes in containers: perf_maps.h), or NULL */
	const struct sample_layout *kernel_layout;
};

struct objects_stats {
	uint64_t objects;               /* distinct files (device, inode) the file maps */
	uint64_t read;                  /* ... whose build id was read */
	uint64_t via_task;              /* ... reached through their task (map_files, its root) */
	uint64_t via_held_root;         /* ... of those, under a root held after the task was gone */
	/* the others, by why */
	uint64_t gone;                  /* their tasks exited before prof reached them */
	uint64_t replaced;              /* their path names another file or none (deleted),
					 * map_files out of reach */
	uint64_t denied;                /* not the invoking user's to read */
	uint64_t not_elf;
	uint64_t malformed;             /* hostile or damaged ELF headers, refused */
	uint64_t no_build_id;
	uint64_t other;
	uint64_t ambiguous;             /* their inode number given to another file meanwhile */
	/* the containers and chroots met (places.h), at the end */
	uint64_t places;                /* other than prof's own */
	uint64_t roots_held;            /* their roots held at once, at most */
	uint64_t roots_not_held;        /* met when no room was left (PLACES_MAX_HELD) */
	/* keeping: build ids with written samples that a report finds only in the cache */
	uint64_t kept, kept_bytes;      /* copied in by this recording */
	uint64_t present;               /* already there */
	uint64_t too_big, recording_full, cache_full, conflict, changed;
	uint64_t lost;                  /* gone before they could be copied */
	uint64_t failed;                /* the cache could not be written */
	int failed_err;                 /* ... the first error */
};

struct objects;

/* 0 or -ENOMEM. */
int objects__new(const struct objects_config *cfg, struct objects **ret);
/* Closes what it holds.  NULL-safe; returns NULL. */
struct objects *objects__free(struct objects *o);

/* A record the file receives (MMAP2, NAMESPACES, FORK, COMM, EXIT, SAMPLE matter).
 * 0 or -ENOMEM; an object that cannot be reached is counted, not an error. */
int objects__note(struct objects *o, const struct perf_event_header *ev);

/*
 * A record as it is drained from the rings, before it is ordered and judged: an
 * executable MMAP2's object is reached now, while its task most likely runs (the
 * drain is within milliseconds of the mapping, a judged record ~50 ms later); FORK,
 * COMM (exec), NAMESPACES and EXIT tell each task's place (places.h).  Objects of
 * tasks outside the scope are reached too: which are in scope is known only once
 * ordered; only those with an MMAP2 in the file are counted and named.  0 or
 * -ENOMEM.
 */
int objects__look_up(struct objects *o, const struct perf_event_header *ev);

/* The end of a round: copy what samples hit, within OBJECTS_ROUND_BYTES. */
void objects__round(struct objects *o);

/* The end of the recording: host objects replaced since are kept too, then every
 * copy still due is made and the descriptors closed. */
void objects__finish(struct objects *o);

/* The perf maps copied from containers and chroots (perf_maps.h), or NULL. */
struct perf_maps;
const struct perf_maps *objects__perf_maps(const struct objects *o);

/* The build id of object (maj, min, ino) (its MMAP2 noted before), false when none
 * (or when another file, another generation of the inode, had its number since). */
bool objects__build_id(const struct objects *o, uint32_t maj, uint32_t min, uint64_t ino, struct build_id *ret);

/*
 * Must the MMAP2 of object (maj, min, ino) not name its path as is?  True when it has
 * no build id, its path on the host was never found to be it, and its task's place
 * is not prof's own (another mount namespace or root, or unknown): a reader
 * resolving that path on the host would name another file.  buf gets the place's
 * name (places__name).  Also true ("unknown") once two files (generations) had its
 * device and inode: which one a mapping is cannot be told.
 */
bool objects__foreign(const struct objects *o, uint32_t maj, uint32_t min, uint64_t ino, char *buf, size_t size);

/* The mapped file of mapping f (for the unwinder): a new descriptor, or -errno. */
int objects__open(struct objects *o, const struct task_file *f);

const struct objects_stats *objects__stats(const struct objects *o);

#endif
