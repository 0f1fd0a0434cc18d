/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What turns samples into named frames, owned together: the map model, the
 * symbolizer, the JIT maps under /tmp, and the resolver over them.  prof report,
 * prof top and profd's sampler each hold one; they set the resolver's options
 * (kernel_here, inlines, addrs, uid_of) after analysis__init.
 */
#ifndef PROF_ANALYZE_ANALYSIS_H
#define PROF_ANALYZE_ANALYSIS_H

#include "prof/analyze/resolver.h"

struct analysis {
	struct model *model;
	struct symbols *syms;
	struct jitmap *jit;             /* NULL when it could not be made (no JIT names) */
	struct resolver res;            /* over the three, interning into names */
};

/* A new analysis whose "[unknown] (obj)" names go to names (borrowed).  0 or -ENOMEM
 * (then release it all the same). */
int analysis__init(struct analysis *a, struct strset *names);

void analysis__release(struct analysis *a);

#endif
