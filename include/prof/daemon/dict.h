/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The daemon's dictionary: everything a bucket entry names, interned once and named
 * by a dense id of its kind.  An entry of the history is (task, stack, counts); a
 * task is (uid, cgroup, container, comm, and for off-CPU time its kind and holder); a stack is frames, leaf first; a frame is
 * (object, symbol, flags); an object is (path, build id, kind, mode and owner);
 * strings are the names.  Items never change once made, so two buckets that name
 * one stack share it, and an hour of history of a host that runs the same code
 * costs a few words per entry.
 *
 * The dictionary only grows; what history no longer uses is dropped by copying what
 * it still uses into a fresh one (dict_import.h), which gives new ids.  Not thread
 * safe: history.h says who may touch it when.
 */
#ifndef PROF_DAEMON_DICT_H
#define PROF_DAEMON_DICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DICT_NONE UINT32_MAX            /* no string */
#define DICT_MAX_STR 4096               /* longer strings are cut (a path's tail is kept) */
#define DICT_MAX_STACK 512              /* frames per stack, as the reader's limit */

enum dict_kind { DICT_STR, DICT_OBJ, DICT_FRAME, DICT_STACK, DICT_TASK, DICT_KINDS };

/* An object's kind: where its frames' names come from. */
enum dict_obj_kind { DICT_OBJ_FILE, DICT_OBJ_KERNEL, DICT_OBJ_OTHER /* [vdso], //anon, [unknown] */ };

struct dict_obj {
	uint32_t path;                  /* string */
	uint8_t kind;                   /* enum dict_obj_kind */
	uint8_t has_stat;               /* mode, uid and gid are the file's (as mapped) */
	uint8_t build_id_len;           /* 0: not known */
	uint8_t build_id[20];
	uint32_t mode, uid, gid;        /* who may read it: a tenant gets names only from
					 * objects they could read themselves */
};

#define DICT_FRAME_KERNEL 1u
#define DICT_FRAME_INLINED 2u           /* inlined into the next frame */
#define DICT_FRAME_HAS_ADDR 4u          /* addr is known */

struct dict_frame {
	uint32_t obj;                   /* object */
	uint32_t sym;                   /* string: the function, or "[unknown] (path)" */
	uint32_t flags;
	uint64_t addr;                  /* with DICT_FRAME_HAS_ADDR: the object's address
					 * (for exports that symbolize by build id) */
};

#define DICT_TASK_UID_KNOWN 1u
/*
 * Off-CPU time ([daemon] off_cpu): a task's entries count on-CPU samples (neither
 * flag), or the nanoseconds it waited for a CPU (RUNQ, behind `holder`) or was
 * blocked (BLOCKED), as prof record --off-cpu's offcpu-runq and offcpu-blocked.
 */
#define DICT_TASK_RUNQ 2u
#define DICT_TASK_BLOCKED 4u
#define DICT_TASK_FLAGS (DICT_TASK_UID_KNOWN | DICT_TASK_RUNQ | DICT_TASK_BLOCKED)

struct dict_task {
	uint32_t uid;
	uint32_t flags;
	uint64_t cgroup_id;             /* cgroup2 id, 0 when none */
	uint32_t cgroup;                /* string: its path, DICT_NONE when not known */
	uint32_t container;             /* string: "" on the host (containers come later) */
	uint32_t comm;                  /* string */
	uint32_t holder;                /* RUNQ: who held the CPU (enum offcpu_holder: the
					 * history's are by uid; an answer to a tenant has
					 * self, other tenants, system, idle, [unknown]); else 0 */
	uint64_t holder_cgroup_id;      /* RUNQ: the holder's cgroup2 id, 0 when not known (or
					 * in an answer to a tenant: never another's) */
	uint32_t holder_cgroup;         /* ... string: its path (only with the id) */
};

struct dict;

struct dict *dict__new(void);
struct dict *dict__free(struct dict *d);

/* Intern an item: its id, -ENOMEM, or -EINVAL when it names an id d lacks (a stack of
 * more than DICT_MAX_STACK frames is cut to it, a string to DICT_MAX_STR bytes). */
int64_t dict__str(struct dict *d, const char *s, size_t len);
int64_t dict__obj(struct dict *d, const struct dict_obj *o);
int64_t dict__frame(struct dict *d, const struct dict_frame *f);
int64_t dict__stack(struct dict *d, const uint32_t *frames, size_t nr);
int64_t dict__task(struct dict *d, const struct dict_task *t);

/* The item of id (which must be below dict__nr of its kind). */
const char *dict__str_get(const struct dict *d, uint32_t id, size_t *ret_len);
const struct dict_obj *dict__obj_get(const struct dict *d, uint32_t id);
const struct dict_frame *dict__frame_get(const struct dict *d, uint32_t id);
const uint32_t *dict__stack_get(const struct dict *d, uint32_t id, size_t *ret_nr);
const struct dict_task *dict__task_get(const struct dict *d, uint32_t id);

/* A string as C text: "" for DICT_NONE.  Strings are stored NUL-terminated. */
const char *dict__text(const struct dict *d, uint32_t id);

/* Items of a kind (ids are 0..n-1), and the bytes the whole dictionary holds. */
size_t dict__nr(const struct dict *d, enum dict_kind k);
size_t dict__bytes(const struct dict *d);

#endif
