/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A process's address map against a page-by-page reference of what each address maps. */
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>

#include "prof/analyze/maps.h"

#define PAGES 64
#define PAGE 0x1000ull
#define BASE 0x400000ull

/* What the reference says about a page: the mapping's id (+1, 0 unmapped) and the
 * file offset of the page. */
struct page {
	uint32_t id;
	uint64_t off;
};

static void check_against(const struct maps *ms, const struct page *ref)
{
	for (size_t i = 0; i + 1 < ms->nr; i++) {
		cr_assert_lt(ms->v[i].start, ms->v[i].end, "mapping %zu empty", i);
		cr_assert_leq(ms->v[i].end, ms->v[i + 1].start, "mappings %zu and %zu overlap or are unsorted", i, i + 1);
	}
	for (size_t p = 0; p < PAGES + 2; p++) {
		uint64_t a = BASE - PAGE + p * PAGE + 0x10;
		const struct map *m = maps__find(ms, a);
		const struct page *r = p >= 1 && p <= PAGES ? &ref[p - 1] : &(struct page){ 0 };

		if (!r->id) {
			cr_assert_null(m, "page %zu: mapped, the reference says not", p);
			continue;
		}
		cr_assert_not_null(m, "page %zu: unmapped, the reference says mapping %u", p, r->id - 1);
		cr_assert_eq(m->dso, r->id - 1, "page %zu: mapping %u, want %u", p, m->dso, r->id - 1);
		cr_assert_eq(m->pgoff + (a & ~(PAGE - 1)) - m->start, r->off, "page %zu: file offset", p);
	}
}

Test(maps, random_inserts_match_the_reference)
{
	struct maps ms = { 0 };
	struct page ref[PAGES] = { 0 };
	unsigned int seed = 11;

	for (uint32_t id = 0; id < 3000; id++) {
		size_t first = (size_t)rand_r(&seed) % PAGES, n = 1 + (size_t)rand_r(&seed) % 12;
		uint64_t pgoff = PAGE * (uint64_t)(rand_r(&seed) % 100);
		struct map m;

		if (first + n > PAGES)
			n = PAGES - first;
		m = (struct map){ .start = BASE + first * PAGE, .end = BASE + (first + n) * PAGE, .pgoff = pgoff,
				  .dso = id, .prot = 5 };
		cr_assert_eq(maps__insert(&ms, &m), 0);
		for (size_t p = 0; p < n; p++)
			ref[first + p] = (struct page){ .id = id + 1, .off = pgoff + p * PAGE };
		check_against(&ms, ref);
	}
	maps__release(&ms);
	cr_assert_eq(ms.nr, 0);
}

Test(maps, a_mapping_inside_another_splits_it)
{
	struct maps ms = { 0 };
	const struct map big = { .start = 0x1000, .end = 0x9000, .pgoff = 0x100000, .dso = 1 };
	const struct map mid = { .start = 0x3000, .end = 0x4000, .pgoff = 0, .dso = 2 };
	const struct map *m;
	size_t nr;

	cr_assert_eq(maps__insert(&ms, &big), 0);
	cr_assert_eq(maps__insert(&ms, &mid), 0);
	cr_assert_eq(ms.nr, 3);
	m = maps__find(&ms, 0x4000);
	cr_assert_eq(m->dso, 1);
	cr_assert_eq(m->start, 0x4000);
	cr_assert_eq(m->pgoff, 0x103000, "the upper part's offset follows the cut");
	cr_assert_eq(maps__find(&ms, 0x2fff)->end, 0x3000);
	cr_assert_eq(maps__find(&ms, 0x3fff)->dso, 2);
	cr_assert_null(maps__find(&ms, 0x9000));
	cr_assert_null(maps__find(&ms, 0xfff));
	m = maps__overlapping(&ms, 0x2000, 0x3001, &nr);
	cr_assert_eq(nr, 2);
	cr_assert_eq(m[0].dso, 1);
	cr_assert_eq(m[1].dso, 2);
	cr_assert_null(maps__overlapping(&ms, 0x9000, 0xa000, &nr));
	cr_assert_eq(nr, 0);
	cr_assert_null(maps__overlapping(&ms, 0x5000, 0x5000, &nr), "an empty range overlaps nothing");
	/* an empty mapping changes nothing */
	cr_assert_eq(maps__insert(&ms, &(struct map){ .start = 0x3000, .end = 0x3000, .dso = 9 }), 0);
	cr_assert_eq(ms.nr, 3);
	maps__release(&ms);
}

Test(maps, copy_and_clear)
{
	struct maps parent = { 0 }, child = { 0 };
	const struct map a = { .start = 0x1000, .end = 0x2000, .dso = 1 };
	const struct map b = { .start = 0x8000, .end = 0x9000, .dso = 2 };

	cr_assert_eq(maps__copy(&child, &parent), 0, "a copy of nothing");
	cr_assert_eq(child.nr, 0);
	cr_assert_eq(maps__insert(&parent, &a), 0);
	cr_assert_eq(maps__insert(&child, &b), 0);
	cr_assert_eq(maps__copy(&child, &parent), 0);
	cr_assert_eq(child.nr, 1, "the copy replaces what the child had");
	cr_assert_eq(maps__find(&child, 0x1800)->dso, 1);
	cr_assert_null(maps__find(&child, 0x8800));
	cr_assert_eq(maps__insert(&child, &b), 0);
	cr_assert_eq(parent.nr, 1, "the parent's map is its own");
	maps__clear(&child);
	cr_assert_eq(child.nr, 0);
	cr_assert_null(maps__find(&child, 0x1800));
	cr_assert_eq(maps__insert(&child, &a), 0, "usable after a clear");
	maps__release(&parent);
	maps__release(&child);
}
