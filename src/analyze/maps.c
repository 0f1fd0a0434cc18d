/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prof/analyze/maps.h"
#include "prof/base/vec.h"

/* The index of the first mapping ending after addr (nr when none): mappings are
 * disjoint and sorted, so their ends are sorted too. */
static size_t first_ending_after(const struct maps *ms, uint64_t addr)
{
	size_t lo = 0, hi = ms->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ms->v[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The index of the first mapping overlapping [start, end), and their number. */
static size_t overlapped(const struct maps *ms, uint64_t start, uint64_t end, size_t *ret_nr)
{
	size_t i = first_ending_after(ms, start), j = i;

	while (j < ms->nr && ms->v[j].start < end)
		j++;
	*ret_nr = start < end ? j - i : 0;
	return i;
}

const struct map *maps__overlapping(const struct maps *ms, uint64_t start, uint64_t end, size_t *ret_nr)
{
	size_t i = overlapped(ms, start, end, ret_nr);

	return *ret_nr ? &ms->v[i] : NULL;
}

int maps__insert(struct maps *ms, const struct map *m)
{
	struct map left = { 0 }, right = { 0 };
	size_t i, nr, keep = 0, add;

	if (m->end <= m->start)
		return 0;
	i = overlapped(ms, m->start, m->end, &nr);
	/* what is left of the first and the last overlapped mapping, outside m */
	if (nr && ms->v[i].start < m->start) {
		left = ms->v[i];
		left.end = m->start;
		keep |= 1;
	}
	if (nr && ms->v[i + nr - 1].end > m->end) {
		right = ms->v[i + nr - 1];
		right.pgoff += m->end - right.start;
		right.start = m->end;
		keep |= 2;
	}
	add = 1 + !!(keep & 1) + !!(keep & 2);
	if (add > nr && VEC_RESERVE(ms->v, ms->cap, ms->nr + add - nr) < 0)
		return -ENOMEM;
	/* [i, i + nr) becomes [left] m [right] */
	if (ms->nr > i + nr)
		memmove(ms->v + i + add, ms->v + i + nr, (ms->nr - i - nr) * sizeof(*ms->v));
	ms->nr = ms->nr - nr + add;
	if (keep & 1)
		ms->v[i++] = left;
	ms->v[i++] = *m;
	if (keep & 2)
		ms->v[i] = right;
	return 0;
}

const struct map *maps__find(const struct maps *ms, uint64_t addr)
{
	size_t i = first_ending_after(ms, addr);

	return i < ms->nr && ms->v[i].start <= addr ? &ms->v[i] : NULL;
}

int maps__copy(struct maps *dst, const struct maps *src)
{
	struct map *v = NULL;

	if (src->nr) {
		v = malloc(src->nr * sizeof(*v));
		if (!v)
			return -ENOMEM;
		memcpy(v, src->v, src->nr * sizeof(*v));
	}
	free(dst->v);
	*dst = (struct maps){ .v = v, .nr = src->nr, .cap = src->nr };
	return 0;
}

void maps__clear(struct maps *ms)
{
	ms->nr = 0;
}

void maps__release(struct maps *ms)
{
	free(ms->v);
	*ms = (struct maps){ 0 };
}
