/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The set*uid() calls a uid scope follows: a process that changes its real uid without
 * exec is seen through the syscalls:sys_enter_set{,re,res}uid tracepoints, whose
 * samples carry the call's arguments in PERF_SAMPLE_RAW.  Only the entries are traced
 * (the exits would double the fds and the teardown's RCU grace periods): an entry is
 * judged a round after the call returned, when /proc tells how it went; for a task
 * gone from /proc by then, the call's argument says what it most likely did.
 */
#ifndef PROF_SCOPE_CREDS_H
#define PROF_SCOPE_CREDS_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "prof/perfdata/sample.h"

enum creds_call {
	CREDS_SETUID = 1,               /* syscalls:sys_enter_setuid */
	CREDS_SETREUID,                 /* syscalls:sys_enter_setreuid */
	CREDS_SETRESUID,                /* syscalls:sys_enter_setresuid */
};

/* The argument of setreuid/setresuid that leaves the real uid as it is: (uid_t)-1. */
#define CREDS_UNCHANGED 0xffffffffu

/*
 * The call's first argument (the new real uid: setuid's uid, setre*uid's ruid), read
 * at uid_off of the sample's PERF_SAMPLE_RAW data (the same offset in all three
 * tracepoints' formats).  l is the layout of the tracepoints' samples.  false when
 * the sample is too short to hold it.
 */
bool creds__argument(const struct sample_layout *l, int uid_off, const struct perf_event_header *ev,
		     uint32_t *ret_uid);

enum creds_outcome {
	CREDS_UID_SET,                  /* the real uid is now *ret_uid */
	CREDS_UID_KEPT,                 /* unchanged */
	CREDS_UID_UNKNOWN,              /* cannot tell: the task's samples are unattributed */
};

/*
 * What a call of a task gone from /proc did to its real uid, from its argument and
 * the uid the task had (uid_known: whether it was known): setre*uid set it to their
 * argument unless it is CREDS_UNCHANGED; setuid() by root sets every uid, by anyone
 * else the real uid only with CAP_SETUID, which prof cannot know.
 */
enum creds_outcome creds__outcome(enum creds_call call, uint32_t arg, bool uid_known, uint32_t uid,
				  uint32_t *ret_uid);

#endif
