/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An interactive SVG flame graph of stacks of names. */
#ifndef PROF_OUTPUT_FLAMEGRAPH_H
#define PROF_OUTPUT_FLAMEGRAPH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct flamegraph;

struct flamegraph *flamegraph__new(void);
struct flamegraph *flamegraph__free(struct flamegraph *f);
/*
 * Add one stack of nr names, outermost first, seen count times.  Names are
 * interned: one pointer is one name (a frame's children are told apart by
 * pointer), and they must outlive f.  A frame's children are drawn in the order
 * they were first added.  0 or -ENOMEM.
 */
int flamegraph__add(struct flamegraph *f, const char *const *names, size_t nr, uint64_t count);
/* Write the SVG.  0 or -EIO. */
int flamegraph__write(struct flamegraph *f, FILE *out, const char *title);

#endif
