/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What frames_g.c needs of frames.c's struct node_frames. */
#ifndef PROF_NODE_FRAMES_INTERNAL_H
#define PROF_NODE_FRAMES_INTERNAL_H

#include <linux/perf_event.h>

#include "prof/analyze/unwinder.h"

struct node_frames;

struct node_frames_g {
	struct perf_event_attr attr;    /* the samples' layout */
	struct unwind_regs *regs;       /* a sample's frames' registers, NULL until needed */
};

/* nf's (owned by it). */
struct node_frames_g *node_frames__g(struct node_frames *nf);

#endif
