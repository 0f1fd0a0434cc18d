/* SPDX-License-Identifier: GPL-2.0-or-later */
/* For the daemon's unit tests: tasks, stacks and buckets of a history, by name. */
#ifndef PROF_TESTS_UNIT_DAEMON_HIST_H
#define PROF_TESTS_UNIT_DAEMON_HIST_H

#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "prof/daemon/dict.h"
#include "prof/daemon/history.h"

#define SEC 1000000000ull

static inline uint32_t str_of(struct dict *d, const char *s)
{
	int64_t id = dict__str(d, s, strlen(s));

	cr_assert_geq(id, 0);
	return (uint32_t)id;
}

static inline uint32_t task_of(struct dict *d, uint32_t uid, const char *comm, const char *cgroup)
{
	struct dict_task t = { .uid = uid, .flags = DICT_TASK_UID_KNOWN, .cgroup_id = 7,
			       .cgroup = cgroup ? str_of(d, cgroup) : DICT_NONE, .container = str_of(d, ""),
			       .comm = str_of(d, comm) };
	int64_t id = dict__task(d, &t);

	cr_assert_geq(id, 0);
	return (uint32_t)id;
}

/* A frame of sym in an object: path NULL for the kernel; mode its file mode. */
static inline uint32_t frame_of(struct dict *d, const char *path, const char *sym, uint32_t mode, uint32_t owner)
{
	struct dict_obj o = { .path = str_of(d, path ? path : "[kernel.kallsyms]"),
			      .kind = path ? DICT_OBJ_FILE : DICT_OBJ_KERNEL, .has_stat = path != NULL,
			      .mode = mode, .uid = owner, .gid = owner };
	int64_t obj = dict__obj(d, &o), f;

	cr_assert_geq(obj, 0);
	f = dict__frame(d, &(struct dict_frame){ .obj = (uint32_t)obj, .sym = str_of(d, sym),
						 .flags = path ? 0 : DICT_FRAME_KERNEL });
	cr_assert_geq(f, 0);
	return (uint32_t)f;
}

static inline uint32_t stack_of(struct dict *d, const uint32_t *frames, size_t nr)
{
	int64_t id = dict__stack(d, frames, nr);

	cr_assert_geq(id, 0);
	return (uint32_t)id;
}

/* Add a fine bucket [t, t + 1 s) of entries to h (which takes the lock itself). */
static inline int add_fine(struct history *h, uint64_t t, const struct bucket_entry *e, size_t nr)
{
	struct bucket_hdr hdr = { .start_ns = t, .end_ns = t + SEC };
	struct bucket *b;
	int r;

	for (size_t i = 0; i < nr; i++) {
		hdr.c.samples += e[i].samples;
		hdr.c.period += e[i].period;
	}
	history__lock(h);
	b = bucket__new(&hdr, e, nr, history__dict(h));
	cr_assert(b);
	r = history__add_fine(h, b);
	history__unlock(h);
	return r;
}

static inline struct history_config hist_config(void)
{
	return (struct history_config){ .fine_ns = SEC, .bucket_ns = 10 * SEC, .span_ns = 3600 * SEC,
					.fine_span_ns = 60 * SEC, .memory_max = 64 << 20,
					.bucket_max_stacks = 1000 };
}

#endif
