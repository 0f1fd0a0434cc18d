/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libdwfl's find_debuginfo for prof's readers (symbols.c): the debug file of a
 * module by its build id, from prof record's build-id cache entry, the system's
 * (libdwfl's own search), then a debuginfod server.  Either libdwfl asks the server
 * itself on the reader's thread (prof report), or a worker does
 * (debuginfod_worker.h: profd, prof top), and the hook only opens what the worker
 * put in its cache, never waiting on the network.  A file from a server is used only
 * with the module's build id.  Every file is opened with the user's rights.
 */
#ifndef PROF_ANALYZE_DEBUGINFO_FIND_H
#define PROF_ANALYZE_DEBUGINFO_FIND_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>

#include "prof/analyze/debuginfod.h"
#include "prof/base/hashtable.h"

struct debuginfod_worker;

struct debuginfo_find {
	const char *cache_dir;          /* perf's build-id cache ("": none), not owned */
	struct debuginfod_worker *worker;       /* not owned; NULL: libdwfl asks the server */
	struct debuginfod_stats st;     /* what libdwfl asked debuginfod for */
	struct hashtable seen;          /* of struct seen_id: the build ids counted in st */
	bool skip;                      /* the build id looked up now was asked already, in
					 * vain: no server is asked again */
};

void debuginfo_find__init(struct debuginfo_find *f, const char *cache_dir);
void debuginfo_find__release(struct debuginfo_find *f);

/* libdwfl's callbacks for an offline module, with prof's find_debuginfo. */
extern const Dwfl_Callbacks debuginfo_find__callbacks;

/* f is what the hook of dwfl's modules uses: call on a new Dwfl (its debuginfod
 * client's progress) and on each module reported (its userdata). */
void debuginfo_find__attach(struct debuginfo_find *f, Dwfl *dwfl);
void debuginfo_find__module(struct debuginfo_find *f, Dwfl_Module *mod);

/* What was asked: libdwfl's counts, or the worker's when there is one. */
void debuginfo_find__stats(const struct debuginfo_find *f, struct debuginfod_stats *ret);

#endif
