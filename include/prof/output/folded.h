/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The engine's stacks (profile.h) as folded stacks: "comm;outer;...;leaf count"
 * lines, the format of flamegraph.pl, speedscope and inferno, and as the SVG flame
 * graph drawn from them.  Entries whose text is the same (they differ only in
 * facts the text does not show: pid, uid, object) are one stack; counts are
 * samples.  ';', ' ' and newlines in names become '_' (the format's separators);
 * a stack of more than 16 KiB of text keeps its outer frames.
 */
#ifndef PROF_OUTPUT_FOLDED_H
#define PROF_OUTPUT_FOLDED_H

#include <stdio.h>

#include "prof/analyze/profile.h"

struct folded;

/* The task facts folded stacks show (the comm): the only ones the engine needs to
 * keep apart for them (attribution__keep_only).  Their number. */
size_t folded__keys(enum profile_key keys[PROFILE_KEY__MAX]);

/* The folded stacks of p (which must outlive them).  0 or -ENOMEM. */
int folded__new(const struct profile *p, struct folded **ret);
struct folded *folded__free(struct folded *f);

/* One line a stack, most samples first (then by text), names through escape__text().
 * 0, -ENOMEM or -EIO. */
int folded__write(const struct folded *f, FILE *out);

/* The SVG flame graph of the stacks (flamegraph.h).  0, -ENOMEM or -EIO. */
int folded__write_svg(const struct folded *f, FILE *out, const char *title);

#endif
