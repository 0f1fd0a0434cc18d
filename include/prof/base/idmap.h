/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A u64 -> u32 open-addressing map: sample ids to events, cgroup ids to scope. */
#ifndef PROF_BASE_IDMAP_H
#define PROF_BASE_IDMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct idmap;

struct idmap *idmap__new(void);
struct idmap *idmap__free(struct idmap *m);
/* Insert or overwrite.  0 or -ENOMEM.  Key 0 is allowed. */
int idmap__set(struct idmap *m, uint64_t key, uint32_t value);
/* True and *ret_value when present. */
bool idmap__get(const struct idmap *m, uint64_t key, uint32_t *ret_value);
/* Remove key; false when it was not there. */
bool idmap__remove(struct idmap *m, uint64_t key);
size_t idmap__size(const struct idmap *m);

#endif
