/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One process's address map, as its MMAP/MMAP2 records describe it: mappings that
 * do not overlap, sorted by start.  A new mapping hides whatever it overlaps (the
 * parts of older mappings outside it stay), a fork copies the parent's map, an exec
 * may clear it.  Used by the model (model.h) for prof report, prof top and the
 * unwinder alike.
 */
#ifndef PROF_ANALYZE_MAPS_H
#define PROF_ANALYZE_MAPS_H

#include <stddef.h>
#include <stdint.h>

struct map {
	uint64_t start, end;            /* [start, end) */
	uint64_t pgoff;                 /* file offset of start */
	uint32_t dso;                   /* the owner's object index (model_dso) */
	uint32_t prot;                  /* PROT_* of the mapping */
};

/* A member of its owner, zero-initialized: an empty map. */
struct maps {
	struct map *v;                  /* nr of them, sorted by start, disjoint */
	size_t nr, cap;
};

/*
 * Add m, cutting away the parts of the mappings it overlaps (their file offsets
 * follow the cut).  An empty range changes nothing.  0, or -ENOMEM with the map
 * unchanged.
 */
int maps__insert(struct maps *ms, const struct map *m);

/* The mapping holding addr, or NULL.  Valid until the map changes. */
const struct map *maps__find(const struct maps *ms, uint64_t addr);

/* The mappings overlapping [start, end): *ret_nr of them from the one returned
 * (NULL when none). */
const struct map *maps__overlapping(const struct maps *ms, uint64_t start, uint64_t end, size_t *ret_nr);

/* Make dst a copy of src (a forked process).  0, or -ENOMEM with dst unchanged. */
int maps__copy(struct maps *dst, const struct maps *src);

/* Forget every mapping (an exec); the memory is kept. */
void maps__clear(struct maps *ms);

/* Free the memory; ms is empty again. */
void maps__release(struct maps *ms);

#endif
