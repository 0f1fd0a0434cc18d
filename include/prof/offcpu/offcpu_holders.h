/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --off-cpu's holder table (offcpu.h): in root's and the admins' recordings, who held
 * a CPU a thread of the scope waited for, when it was another tenant's task: one
 * entry per distinct (real uid, cgroup), numbered from 0 in the order met, the
 * holder OFFCPU_HOLDER_TASK + its number.  offcpu.c asks once per holder task (and
 * again after its exec), never per switch record; prof's section carries the table.
 */
#ifndef PROF_OFFCPU_OFFCPU_HOLDERS_H
#define PROF_OFFCPU_OFFCPU_HOLDERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/offcpu/offcpu.h"

struct offcpu_holders;

/* An empty table reading /proc at proc_fd and cgroup ids under cgroup_fd (the cgroup2
 * root; -1: none), both borrowed.  NULL on ENOMEM. */
struct offcpu_holders *offcpu_holders__new(int proc_fd, int cgroup_fd);
struct offcpu_holders *offcpu_holders__free(struct offcpu_holders *h);

/* The holder of task tid of uid (uid_known) in the cgroup /proc names for it now:
 * OFFCPU_HOLDER_TASK + its entry, made the first time; 0 when the table is full
 * (OFFCPU_MAX_HOLDERS) or on ENOMEM: name it by its uid then. */
uint32_t offcpu_holders__of(struct offcpu_holders *h, int32_t tid, uint32_t uid, bool uid_known);

/* The entry of holder value, NULL when value is none of the table's.  Valid while h
 * lives. */
const struct offcpu_holder_info *offcpu_holders__get(const struct offcpu_holders *h, uint32_t value);
size_t offcpu_holders__nr(const struct offcpu_holders *h);

#endif
