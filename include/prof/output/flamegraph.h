/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An interactive SVG flame graph from folded stacks. */
#ifndef PROF_OUTPUT_FLAMEGRAPH_H
#define PROF_OUTPUT_FLAMEGRAPH_H

#include <stdint.h>
#include <stdio.h>

struct flamegraph;

struct flamegraph *flamegraph__new(void);
struct flamegraph *flamegraph__free(struct flamegraph *f);
/* Add one folded stack ("outer;...;inner") seen count times.  0 or -ENOMEM. */
int flamegraph__add(struct flamegraph *f, const char *folded, uint64_t count);
/* Write the SVG.  0 or -EIO. */
int flamegraph__write(struct flamegraph *f, FILE *out, const char *title);

#endif
