/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prof/base/hash.h"
#include "prof/base/hashtable.h"
#include "prof/base/idmap.h"
#include "prof/base/strset.h"
#include "prof/base/vec.h"

struct pair {
	uint32_t key;
	uint32_t value;
};

static bool pair_eq(const void *e, const void *k, const void *ctx)
{
	return ((const struct pair *)e)->key == *(const uint32_t *)k;
}

/* A hash that puts every key in a handful of home slots: long runs to shift. */
static uint64_t clumped(uint32_t k)
{
	return (k % 5) + 1;
}

Test(hashtable, insert_find_remove_against_a_reference)
{
	enum { N = 4096 };
	static uint32_t ref[N];         /* value + 1 for present keys, 0 absent */
	struct hashtable t;
	unsigned int seed = 7;

	for (int pass = 0; pass < 2; pass++) {
		uint64_t (*h)(uint32_t) = pass ? clumped : NULL;

		memset(ref, 0, sizeof(ref));
		hashtable__init(&t, sizeof(struct pair), pair_eq, NULL);
		for (int op = 0; op < 40000; op++) {
			uint32_t k = (uint32_t)rand_r(&seed) % (pass ? 300 : N);
			uint64_t hk = h ? h(k) : hash__u64(k);
			struct pair *p;
			bool created;

			if (rand_r(&seed) % 3) {
				p = hashtable__insert(&t, hk, &k, &created);
				cr_assert_not_null(p);
				cr_assert_eq(created, ref[k] == 0, "key %u: created %d", k, created);
				p->key = k;
				p->value = (uint32_t)op;
				ref[k] = (uint32_t)op + 1;
			} else {
				cr_assert_eq(hashtable__remove(&t, hk, &k), ref[k] != 0, "remove %u", k);
				ref[k] = 0;
			}
			if (op % 97 == 0) {
				size_t present = 0;
				for (uint32_t q = 0; q < (pass ? 300u : (uint32_t)N); q++) {
					p = hashtable__find(&t, h ? h(q) : hash__u64(q), &q);
					cr_assert_eq(p != NULL, ref[q] != 0, "find %u after op %d", q, op);
					if (p) {
						cr_assert_eq(p->value + 1, ref[q]);
						present++;
					}
				}
				cr_assert_eq(hashtable__size(&t), present);
			}
		}
		hashtable__release(&t);
		cr_assert_eq(hashtable__size(&t), 0);
	}
}

Test(hashtable, walk_sees_each_entry_once_and_clear_empties)
{
	struct hashtable t;
	struct pair *p;
	bool created, seen[100] = { false };
	size_t n = 0;

	hashtable__init(&t, sizeof(struct pair), pair_eq, NULL);
	cr_assert_null(hashtable__next(&t, &(size_t){ 0 }), "an empty table walks nothing");
	for (uint32_t k = 0; k < 100; k++) {
		p = hashtable__insert(&t, hash__u64(k), &k, &created);
		p->key = k;
	}
	for (size_t i = 0; (p = hashtable__next(&t, &i));) {
		cr_assert(!seen[p->key]);
		seen[p->key] = true;
		n++;
	}
	cr_assert_eq(n, 100);
	cr_assert_gt(hashtable__bytes(&t), 100 * sizeof(struct pair));
	hashtable__clear(&t);
	cr_assert_eq(hashtable__size(&t), 0);
	cr_assert_null(hashtable__find(&t, hash__u64(5), &(uint32_t){ 5 }));
	hashtable__release(&t);
}

Test(hashtable, a_zero_hash_is_a_hash_like_any_other)
{
	struct hashtable t;
	bool created;
	uint32_t a = 1, b = 2;
	struct pair *p;

	hashtable__init(&t, sizeof(struct pair), pair_eq, NULL);
	p = hashtable__insert(&t, 0, &a, &created);
	p->key = a;
	p = hashtable__insert(&t, 0, &b, &created);
	p->key = b;
	cr_assert_not_null(hashtable__find(&t, 0, &a));
	cr_assert(hashtable__remove(&t, 0, &a));
	cr_assert_null(hashtable__find(&t, 0, &a));
	cr_assert_not_null(hashtable__find(&t, 0, &b));
	hashtable__release(&t);
}

Test(idmap, set_get_overwrite)
{
	struct idmap *m = idmap__new();
	uint32_t v;

	cr_assert_not_null(m);
	cr_assert_not(idmap__get(m, 0, &v));
	for (uint64_t k = 0; k < 1000; k++)
		cr_assert_eq(idmap__set(m, k << 40, (uint32_t)k), 0);
	cr_assert_eq(idmap__set(m, 0, 77), 0);
	cr_assert(idmap__get(m, 0, &v));
	cr_assert_eq(v, 77);
	cr_assert(idmap__get(m, 999ull << 40, &v));
	cr_assert_eq(v, 999);
	cr_assert_eq(idmap__size(m), 1000);
	idmap__free(m);
}

Test(strset, equal_text_same_pointer)
{
	struct strset s = { 0 };
	const char *a = strset__intern(&s, "hot_function"), *b;
	char buf[] = "hot_function and more";

	b = strset__intern_n(&s, buf, 12);
	cr_assert_not_null(a);
	cr_assert_eq(a, b);
	cr_assert_str_eq(b, "hot_function");
	cr_assert_neq(strset__intern(&s, "hot"), a);
	cr_assert_eq(strset__find(&s, "hot_function"), a);
	cr_assert_null(strset__find(&s, "cold"));
	cr_assert_eq(strset__size(&s), 2);
	strset__release(&s);
	cr_assert_null(strset__find(&s, "hot"));
}

Test(vec, reserve_doubles_and_keeps_contents)
{
	int *v = NULL;
	size_t cap = 0;

	cr_assert_eq(VEC_RESERVE(v, cap, 3), 0);
	cr_assert_eq(cap, 16);
	for (int i = 0; i < 16; i++)
		v[i] = i;
	cr_assert_eq(VEC_RESERVE(v, cap, 17), 0);
	cr_assert_eq(cap, 32);
	cr_assert_eq(v[15], 15);
	cr_assert_eq(vec__reserve((void **)&v, &cap, SIZE_MAX / 2, sizeof(*v)), -ENOMEM);
	cr_assert_eq(cap, 32, "untouched on failure");
	free(v);
}

/* What a bounded table needs to refuse growth before it happens: the bytes the next
 * inserts would add (as vec's), and room made ahead so that they add none. */
Test(hashtable, grow_bytes_and_reserve)
{
	struct hashtable t;
	void *arr = NULL;
	size_t cap = 0;

	hashtable__init(&t, sizeof(struct pair), pair_eq, NULL);
	cr_assert_eq(hashtable__grow_bytes(&t, 1), 16 * (sizeof(struct pair) + 8));
	for (uint32_t k = 0; k < 1000; k++) {
		size_t before = hashtable__bytes(&t), predicted = hashtable__grow_bytes(&t, 1);
		bool created;

		cr_assert_not_null(hashtable__insert(&t, hash__u64(k), &k, &created));
		cr_assert_eq(hashtable__bytes(&t) - before, predicted, "key %u", k);
	}
	cr_assert_eq(hashtable__reserve(&t, 5000), 0);
	size_t reserved = hashtable__bytes(&t);
	cr_assert_eq(hashtable__grow_bytes(&t, 5000), 0);
	for (uint32_t k = 1000; k < 6000; k++) {
		bool created;
		cr_assert_not_null(hashtable__insert(&t, hash__u64(k), &k, &created));
	}
	cr_assert_eq(hashtable__bytes(&t), reserved, "grew after a reserve");
	hashtable__release(&t);
	cr_assert_eq(vec__grow_bytes(cap, 1, 8), 16 * 8);
	cr_assert_eq(vec__reserve(&arr, &cap, 1, 8), 0);
	cr_assert_eq(vec__grow_bytes(cap, 16, 8), 0);
	cr_assert_eq(vec__grow_bytes(cap, 17, 8), 16 * 8);
	cr_assert_eq(vec__grow_bytes(cap, SIZE_MAX / 4, 8), SIZE_MAX, "overflow is no size");
	free(arr);
}

/* A memo holds while nothing moved; an insert of a new key or a remove voids it. */
Test(hashtable, memo_is_void_after_the_table_changes)
{
	struct hashtable t;
	struct hashtable_memo m = { 0 };
	uint32_t k = 7, other = 8;
	bool created;
	struct pair *p;

	hashtable__init(&t, sizeof(struct pair), pair_eq, NULL);
	cr_assert_null(hashtable_memo__get(&m, &t, k), "a zeroed memo matches nothing");
	p = hashtable__insert(&t, hash__u64(k), &k, &created);
	p->key = k;
	hashtable_memo__set(&m, &t, k, p);
	cr_assert_eq(hashtable_memo__get(&m, &t, k), p);
	cr_assert_null(hashtable_memo__get(&m, &t, other), "another key");
	cr_assert_not_null(hashtable__insert(&t, hash__u64(k), &k, &created));
	cr_assert_not(created);
	cr_assert_eq(hashtable_memo__get(&m, &t, k), p, "finding an existing key moves nothing");
	((struct pair *)hashtable__insert(&t, hash__u64(other), &other, &created))->key = other;
	cr_assert_null(hashtable_memo__get(&m, &t, k), "an insert may move entries");
	hashtable_memo__set(&m, &t, k, hashtable__find(&t, hash__u64(k), &k));
	cr_assert(hashtable__remove(&t, hash__u64(other), &other));
	cr_assert_null(hashtable_memo__get(&m, &t, k), "a remove shifts entries back");
	hashtable_memo__set(&m, &t, k, hashtable__find(&t, hash__u64(k), &k));
	hashtable__clear(&t);
	cr_assert_null(hashtable_memo__get(&m, &t, k));
	hashtable__release(&t);
}
