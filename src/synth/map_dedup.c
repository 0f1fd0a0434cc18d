/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdlib.h>

#include "prof/synth/map_dedup.h"
#include "prof/base/util.h"

struct entry {
	int32_t pid;
	uint64_t until, start, len, pgoff;
};

/* Few processes are described at once and their entries expire within a round:
 * a flat array scanned linearly is the right size. */
struct map_dedup {
	struct entry *e;
	size_t nr, cap;
	uint64_t max_until;
};

struct map_dedup *map_dedup__new(void)
{
	return calloc(1, sizeof(struct map_dedup));
}

struct map_dedup *map_dedup__free(struct map_dedup *d)
{
	if (d) {
		free(d->e);
		free(d);
	}
	return NULL;
}

int map_dedup__add(struct map_dedup *d, int32_t pid, uint64_t until,
		   uint64_t start, uint64_t len, uint64_t pgoff)
{
	if (d->nr == d->cap) {
		size_t ncap = d->cap ? 2 * d->cap : 64;
		struct entry *n = realloc(d->e, ncap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		d->e = n;
		d->cap = ncap;
	}
	d->e[d->nr++] = (struct entry){ pid, until, start, len, pgoff };
	if (until > d->max_until)
		d->max_until = until;
	return 0;
}

bool map_dedup__repeats(struct map_dedup *d, int32_t pid, uint64_t time,
			uint64_t start, uint64_t len, uint64_t pgoff)
{
	bool hit = false;
	size_t w = 0;

	if (!d->nr)
		return false;
	if (time > d->max_until) {
		d->nr = 0;      /* all expired */
		return false;
	}
	for (size_t i = 0; i < d->nr; i++) {
		struct entry *x = &d->e[i];
		if (x->until < time)
			continue;       /* expired: dropped by the compaction */
		if (!hit && x->pid == pid && x->start == start && x->len == len && x->pgoff == pgoff) {
			hit = true;
			continue;       /* a map is announced once: forget it once matched */
		}
		d->e[w++] = *x;
	}
	d->nr = w;
	return hit;
}

void map_dedup__forget(struct map_dedup *d, int32_t pid)
{
	size_t w = 0;

	for (size_t i = 0; i < d->nr; i++)
		if (d->e[i].pid != pid)
			d->e[w++] = d->e[i];
	d->nr = w;
}
