/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The aggregation engine shared by `prof report`, `prof top` (and a daemon later):
 * samples counted per (task facts, stack), where task facts are uid, cgroup, container,
 * pid and comm, and a stack is a list of resolved frames (object, symbol), leaf first.
 *
 * Memory is bounded: at most max_entries distinct (task, stack) keys, as many
 * distinct frames, and PROFILE_FRAMES_PER_ENTRY x max_entries frame slots in the
 * stacks they hold (about 350 bytes per entry at worst: 33 MB measured at the default),
 * and, when a budget is set, at most its bytes in the tables of every profile
 * charged to it (a report's profiles, one per event).  A sample that would need
 * more is cut: it is not kept under its own key but added to one "[cut]" entry (so
 * totals stay exact) and counted, and every output says how many samples were cut.
 * Frames and stacks are interned: one copy each, compared by id; names are
 * compared by pointer, so the caller interns them (strset).
 */
#ifndef PROF_ANALYZE_PROFILE_H
#define PROF_ANALYZE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROFILE_DEFAULT_MAX_ENTRIES 100000
/* max_entries for no cap but the engine's own (ids are 32-bit), and a budget's */
#define PROFILE_UNLIMITED SIZE_MAX
#define PROFILE_MAX_ENTRIES (UINT32_MAX / PROFILE_FRAMES_PER_ENTRY)
#define PROFILE_FRAMES_PER_ENTRY 32     /* average stack depth budgeted per entry */
#define PROFILE_CUT_SYM "[cut]"          /* the frame of samples the cap cut */

/* The facts a row can group by (the --sort keys of report and top). */
enum profile_key {
	PROFILE_KEY_UID, PROFILE_KEY_CGROUP, PROFILE_KEY_PID, PROFILE_KEY_COMM, PROFILE_KEY_DSO, PROFILE_KEY_SYM,
	PROFILE_KEY_CONTAINER, PROFILE_KEY_HOLDER, PROFILE_KEY_HOLDER_CGROUP, PROFILE_KEY_HOLDER_CONTAINER,
	PROFILE_KEY__MAX
};

struct profile_task {
	uint32_t uid;
	bool uid_known;
	uint64_t cgroup;                /* cgroup2 id, 0 when none */
	const char *container;          /* interned: its id, "" for a host task, NULL unknown */
	int32_t pid;
	const char *comm;               /* interned */
	uint32_t holder;                /* an offcpu-runq sample's CPU holder (enum offcpu_holder), 0;
					 * a task's is by uid (OFFCPU_HOLDER_UID + uid) */
	uint64_t holder_cgroup;         /* ... a task's cgroup2 id, 0 when not known */
	const char *holder_container;   /* ... its container as container is, NULL unknown */
};

struct profile_frame {
	const char *dso;                /* interned; "[unknown]" when unmapped */
	const char *sym;                /* interned */
	bool kernel;
	bool inlined;                   /* sym is inlined into the next frame ("f (inlined)") */
	bool has_addr;                  /* addr and off are known (a resolver asked for them) */
	uint64_t addr;                  /* the object's ELF virtual address of the frame: what a
					 * backend symbolizes by build id (not ASLR's) */
	uint64_t off;                   /* the file offset of addr */
};

struct profile_entry {
	struct profile_task task;
	uint32_t stack;                 /* profile__stack() */
	uint64_t samples, period;
};

struct profile_stats {
	uint64_t samples, period;       /* everything added, cut or not */
	uint64_t cut_samples, cut_period;
	size_t entries, stacks, frames, frame_slots;
	size_t bytes;                   /* memory held by the tables (not the names) */
	bool cut_by_budget;             /* some were cut by the byte budget, not max_entries */
};

/* A cap on the bytes held by the tables of the profiles charged to it. */
struct profile_budget {
	size_t limit;                   /* 0: none */
	size_t held;                    /* by its profiles now */
};

struct profile;

/* max_entries 0: PROFILE_DEFAULT_MAX_ENTRIES; PROFILE_UNLIMITED (or anything above
 * PROFILE_MAX_ENTRIES): PROFILE_MAX_ENTRIES.  NULL on ENOMEM. */
struct profile *profile__new(size_t max_entries);
/* Charge p's tables to b (NULL: none), which must outlive p or be unset first.
 * Several profiles may share one budget. */
void profile__set_budget(struct profile *p, struct profile_budget *b);
/* Parse a --max-stacks value (1..100000000) into *ret; 0, or -EINVAL with err set. */
int profile__parse_max(const char *arg, size_t *ret, char *err, size_t errlen);
struct profile *profile__free(struct profile *p);

/*
 * Count one sample of period for task t with stack frames[0..nr) (leaf first; nr may
 * be 0).  0 when kept under its key, 1 when the cap cut it (counted under "[cut]"),
 * -ENOMEM.  The pointers in t and frames must outlive p.
 */
int profile__add(struct profile *p, const struct profile_task *t, const struct profile_frame *frames,
		 size_t nr, uint64_t period);

/* profile__add, and when it returns 0, the entry counted into (*ret_ref, when not
 * NULL), for profile__add_again. */
int profile__add_ref(struct profile *p, const struct profile_task *t, const struct profile_frame *frames,
		     size_t nr, uint64_t period, uint64_t *ret_ref);

/* Count one more sample of period into the entry ref names, as profile__add of the
 * same task and frames would.  0, or -ESTALE when p was reset since (then
 * profile__add it). */
int profile__add_again(struct profile *p, uint64_t ref, uint64_t period);

/* Forget every sample (keys, stacks, counts); the cap stays.  For prof top's zeroing. */
void profile__reset(struct profile *p);

const struct profile_stats *profile__stats(const struct profile *p);

/* Entries in insertion order, valid until the next add or reset. */
const struct profile_entry *profile__entries(const struct profile *p, size_t *ret_nr);
/* A stack's frame ids (leaf first) and their number. */
const uint32_t *profile__stack(const struct profile *p, uint32_t stack, size_t *ret_nr);
/* Every distinct frame, indexed by frame id. */
const struct profile_frame *profile__frames(const struct profile *p, size_t *ret_nr);

/* Entries grouped by some keys: the grouped facts, the others zero. */
struct profile_row {
	struct profile_task task;       /* uid, cgroup, container, pid, comm when grouped by them */
	const char *dso, *sym;          /* the leaf frame's, when grouped by dso or sym (a
					 * symbol row is that symbol of that object) */
	bool kernel;                    /* the leaf frame's, with sym */
	bool sym_shared;                /* grouped by sym, not dso: another row has this
					 * name in another object */
	uint32_t stack;                 /* with by_stack, else UINT32_MAX */
	uint32_t order;                 /* first seen: ties keep that order */
	uint64_t samples, period;
};

/*
 * Rows: entries grouped by the keys set in key_on (PROFILE_KEY_DSO/SYM mean the
 * leaf frame's, past frames inlined into it; SYM is a symbol of an object, as
 * perf's --sort sym keeps two objects' symbols of one name apart), and by the whole stack too when
 * by_stack; sorted by period, then samples, largest first.  *ret (malloc'd, the
 * caller frees) holds *ret_nr rows.  0 or -ENOMEM.
 */
int profile__rows(const struct profile *p, const bool key_on[PROFILE_KEY__MAX], bool by_stack,
		  struct profile_row **ret, size_t *ret_nr);

#endif
