/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdlib.h>
#include <string.h>

#include "prof/analyze/profile.h"
#include "prof/base/util.h"

/*
 * Three interned tables (frames, stacks, entries), each a dense array plus an open
 * addressing index of array positions + 1 (0: empty slot).  Dense arrays keep the
 * output order stable and make reset and iteration cheap.
 */
struct index {
	uint32_t *slot;
	size_t mask;                    /* capacity - 1, a power of two minus one */
};

struct stack {
	uint64_t hash;
	uint32_t off, nr;               /* in frame_pool */
};

struct profile {
	size_t max_entries, max_slots;
	struct profile_frame *frames;
	uint64_t *frame_hash;
	size_t nr_frames, cap_frames;
	struct index frame_ix;
	struct stack *stacks;
	size_t nr_stacks, cap_stacks;
	struct index stack_ix;
	uint32_t *pool;
	size_t nr_pool, cap_pool;
	struct profile_entry *entries;
	uint64_t *entry_hash;
	size_t nr_entries, cap_entries;
	struct index entry_ix;
	struct profile_stats st;
	uint32_t cut_entry;             /* UINT32_MAX until the first cut */
};

static inline uint64_t mix(uint64_t h, uint64_t v)
{
	/* one round of a 64-bit finalizer per word: good enough spread for pointers */
	h ^= v;
	h *= 0xff51afd7ed558ccdull;
	return h ^ (h >> 33);
}

static int index_init(struct index *ix, size_t cap)
{
	ix->slot = calloc(cap, sizeof(*ix->slot));
	ix->mask = cap - 1;
	return ix->slot ? 0 : -ENOMEM;
}

typedef bool (*eq_fn)(const struct profile *p, uint32_t idx, const void *key);

/* The slot of key: holding it (*ret_found) or the empty one where it goes. */
static size_t index_find(const struct profile *p, const struct index *ix, uint64_t h, eq_fn eq,
			 const void *key, const uint64_t *hashes, bool *ret_found)
{
	size_t i;

	for (i = h & ix->mask; ix->slot[i]; i = (i + 1) & ix->mask) {
		uint32_t idx = ix->slot[i] - 1;
		if (hashes[idx] == h && eq(p, idx, key)) {
			*ret_found = true;
			return i;
		}
	}
	*ret_found = false;
	return i;
}

/* Make room for one more key (load <= 1/2); positions are rehashed from hashes. */
static int index_reserve(struct index *ix, size_t nr, const uint64_t *hashes)
{
	struct index n;

	if ((nr + 1) * 2 <= ix->mask + 1)
		return 0;
	if (index_init(&n, (ix->mask + 1) * 2) < 0)
		return -ENOMEM;
	for (size_t k = 0; k < nr; k++) {
		size_t i = hashes[k] & n.mask;
		while (n.slot[i])
			i = (i + 1) & n.mask;
		n.slot[i] = (uint32_t)k + 1;
	}
	free(ix->slot);
	*ix = n;
	return 0;
}

static int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 64;
	void *n;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	n = realloc(*arr, ncap * elem);
	if (!n)
		return -ENOMEM;
	*arr = n;
	*cap = ncap;
	return 0;
}

/* A hash array resized to cap entries; untouched on failure. */
static int hashes_fit(uint64_t **h, size_t cap)
{
	uint64_t *n = realloc(*h, cap * sizeof(*n));

	if (!n)
		return -ENOMEM;
	*h = n;
	return 0;
}

struct profile *profile__new(size_t max_entries)
{
	struct profile *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->max_entries = max_entries ? max_entries : PROFILE_DEFAULT_MAX_ENTRIES;
	if (p->max_entries > UINT32_MAX / PROFILE_FRAMES_PER_ENTRY)
		p->max_entries = UINT32_MAX / PROFILE_FRAMES_PER_ENTRY;
	p->max_slots = p->max_entries * PROFILE_FRAMES_PER_ENTRY;
	p->cut_entry = UINT32_MAX;
	if (index_init(&p->frame_ix, 256) < 0 || index_init(&p->stack_ix, 256) < 0 ||
	    index_init(&p->entry_ix, 256) < 0)
		return profile__free(p);
	return p;
}

struct profile *profile__free(struct profile *p)
{
	if (!p)
		return NULL;
	free(p->frames);
	free(p->frame_hash);
	free(p->frame_ix.slot);
	free(p->stacks);
	free(p->stack_ix.slot);
	free(p->pool);
	free(p->entries);
	free(p->entry_hash);
	free(p->entry_ix.slot);
	free(p);
	return NULL;
}

void profile__reset(struct profile *p)
{
	memset(p->frame_ix.slot, 0, (p->frame_ix.mask + 1) * sizeof(uint32_t));
	memset(p->stack_ix.slot, 0, (p->stack_ix.mask + 1) * sizeof(uint32_t));
	memset(p->entry_ix.slot, 0, (p->entry_ix.mask + 1) * sizeof(uint32_t));
	p->nr_frames = p->nr_stacks = p->nr_pool = p->nr_entries = 0;
	p->cut_entry = UINT32_MAX;
	p->max_slots = p->max_entries * PROFILE_FRAMES_PER_ENTRY;
	memset(&p->st, 0, sizeof(p->st));
}

static bool frame_eq(const struct profile *p, uint32_t idx, const void *key)
{
	const struct profile_frame *a = &p->frames[idx], *b = key;

	return a->dso == b->dso && a->sym == b->sym && a->kernel == b->kernel && a->inlined == b->inlined;
}

/* The id of frame f, interned; -ENOSPC when the table is full; -ENOMEM. */
static int64_t frame_id(struct profile *p, const struct profile_frame *f)
{
	uint64_t h = mix(mix(mix(0, (uintptr_t)f->dso), (uintptr_t)f->sym), f->kernel);
	bool found;
	size_t i = index_find(p, &p->frame_ix, h, frame_eq, f, p->frame_hash, &found);

	if (found)
		return p->frame_ix.slot[i] - 1;
	if (p->nr_frames >= p->max_entries)
		return -ENOSPC;
	if (grow((void **)&p->frames, &p->cap_frames, p->nr_frames + 1, sizeof(*p->frames)) < 0)
		return -ENOMEM;
	/* the hashes follow the frames' capacity */
	if (hashes_fit(&p->frame_hash, p->cap_frames) < 0)
		return -ENOMEM;
	if (index_reserve(&p->frame_ix, p->nr_frames, p->frame_hash) < 0)
		return -ENOMEM;
	i = index_find(p, &p->frame_ix, h, frame_eq, f, p->frame_hash, &found);
	p->frames[p->nr_frames] = *f;
	p->frame_hash[p->nr_frames] = h;
	p->frame_ix.slot[i] = (uint32_t)++p->nr_frames;
	return (int64_t)p->nr_frames - 1;
}

struct stack_key {
	const uint32_t *ids;
	size_t nr;
};

static bool stack_eq(const struct profile *p, uint32_t idx, const void *key)
{
	const struct stack_key *k = key;
	const struct stack *s = &p->stacks[idx];

	return s->nr == k->nr && !memcmp(p->pool + s->off, k->ids, k->nr * sizeof(*k->ids));
}

/* Lookup in the stack index by hash through the stacks array (strided hashes). */
static size_t stack_find(const struct profile *p, uint64_t h, const struct stack_key *k, bool *ret_found)
{
	size_t i;

	for (i = h & p->stack_ix.mask; p->stack_ix.slot[i]; i = (i + 1) & p->stack_ix.mask) {
		uint32_t idx = p->stack_ix.slot[i] - 1;
		if (p->stacks[idx].hash == h && stack_eq(p, idx, k)) {
			*ret_found = true;
			return i;
		}
	}
	*ret_found = false;
	return i;
}

/* The id of the stack ids[0..nr), interned; -ENOSPC over the frame budget; -ENOMEM. */
static int64_t stack_id(struct profile *p, const uint32_t *ids, size_t nr)
{
	struct stack_key k = { ids, nr };
	uint64_t h = hash_bytes(ids, nr * sizeof(*ids));
	bool found;
	size_t i = stack_find(p, h, &k, &found);

	if (found)
		return p->stack_ix.slot[i] - 1;
	if (p->nr_pool + nr > p->max_slots)
		return -ENOSPC;
	if (grow((void **)&p->stacks, &p->cap_stacks, p->nr_stacks + 1, sizeof(*p->stacks)) < 0 ||
	    grow((void **)&p->pool, &p->cap_pool, p->nr_pool + nr, sizeof(*p->pool)) < 0)
		return -ENOMEM;
	if ((p->nr_stacks + 1) * 2 > p->stack_ix.mask + 1) {
		struct index n;
		if (index_init(&n, (p->stack_ix.mask + 1) * 2) < 0)
			return -ENOMEM;
		for (size_t s = 0; s < p->nr_stacks; s++) {
			size_t j = p->stacks[s].hash & n.mask;
			while (n.slot[j])
				j = (j + 1) & n.mask;
			n.slot[j] = (uint32_t)s + 1;
		}
		free(p->stack_ix.slot);
		p->stack_ix = n;
		i = stack_find(p, h, &k, &found);
	}
	memcpy(p->pool + p->nr_pool, ids, nr * sizeof(*ids));
	p->stacks[p->nr_stacks] = (struct stack){ .hash = h, .off = (uint32_t)p->nr_pool, .nr = (uint32_t)nr };
	p->nr_pool += nr;
	p->stack_ix.slot[i] = (uint32_t)++p->nr_stacks;
	return (int64_t)p->nr_stacks - 1;
}

struct entry_key {
	const struct profile_task *t;
	uint32_t stack;
};

static bool entry_eq(const struct profile *p, uint32_t idx, const void *key)
{
	const struct entry_key *k = key;
	const struct profile_entry *e = &p->entries[idx];

	return e->stack == k->stack && e->task.pid == k->t->pid && e->task.comm == k->t->comm &&
	       e->task.uid == k->t->uid && e->task.uid_known == k->t->uid_known &&
	       e->task.cgroup == k->t->cgroup;
}

static uint64_t entry_hash(const struct profile_task *t, uint32_t stack)
{
	uint64_t h = mix(0x9e3779b97f4a7c15ull, stack);

	h = mix(h, (uint64_t)(uint32_t)t->pid | (uint64_t)t->uid << 32);
	h = mix(h, t->cgroup ^ t->uid_known);
	return mix(h, (uintptr_t)t->comm);
}

/* Count into the entry of (t, stack); -ENOSPC when it is new and the table is full. */
static int entry_add(struct profile *p, const struct profile_task *t, uint32_t stack, uint64_t period,
		     bool may_exceed)
{
	struct entry_key k = { t, stack };
	uint64_t h = entry_hash(t, stack);
	bool found;
	size_t i = index_find(p, &p->entry_ix, h, entry_eq, &k, p->entry_hash, &found);
	struct profile_entry *e;

	if (!found) {
		if (p->nr_entries >= p->max_entries && !may_exceed)
			return -ENOSPC;
		if (grow((void **)&p->entries, &p->cap_entries, p->nr_entries + 1, sizeof(*p->entries)) < 0)
			return -ENOMEM;
		if (hashes_fit(&p->entry_hash, p->cap_entries) < 0)
			return -ENOMEM;
		if (index_reserve(&p->entry_ix, p->nr_entries, p->entry_hash) < 0)
			return -ENOMEM;
		i = index_find(p, &p->entry_ix, h, entry_eq, &k, p->entry_hash, &found);
		p->entries[p->nr_entries] = (struct profile_entry){ .task = *t, .stack = stack };
		p->entry_hash[p->nr_entries] = h;
		p->entry_ix.slot[i] = (uint32_t)++p->nr_entries;
	}
	e = &p->entries[p->entry_ix.slot[i] - 1];
	e->samples++;
	e->period += period;
	return 0;
}

/* The sample goes to the one "[cut]" entry: no task facts, one frame. */
static int add_cut(struct profile *p, uint64_t period)
{
	static const struct profile_task none = { .comm = PROFILE_CUT_SYM };
	const struct profile_frame f = { .dso = PROFILE_CUT_SYM, .sym = PROFILE_CUT_SYM };
	int64_t fid, sid;
	uint32_t id;

	p->st.cut_samples++;
	p->st.cut_period += period;
	if (p->cut_entry != UINT32_MAX) {
		p->entries[p->cut_entry].samples++;
		p->entries[p->cut_entry].period += period;
		return 1;
	}
	/* the first cut: one frame, one stack, one entry past the caps, once */
	p->max_slots++;
	p->max_entries++;
	fid = frame_id(p, &f);
	if (fid < 0)
		return (int)fid;
	id = (uint32_t)fid;
	sid = stack_id(p, &id, 1);
	if (sid < 0)
		return sid == -ENOSPC ? -ENOMEM : (int)sid;
	p->max_entries--;
	if (entry_add(p, &none, (uint32_t)sid, period, true) < 0)
		return -ENOMEM;
	p->cut_entry = (uint32_t)p->nr_entries - 1;
	return 1;
}

int profile__add(struct profile *p, const struct profile_task *t, const struct profile_frame *frames,
		 size_t nr, uint64_t period)
{
	uint32_t ids[512];
	int64_t sid;
	int err;

	p->st.samples++;
	p->st.period += period;
	nr = MIN(nr, ARRAY_SIZE(ids));
	for (size_t i = 0; i < nr; i++) {
		int64_t id = frame_id(p, &frames[i]);
		if (id == -ENOSPC)
			return add_cut(p, period);
		if (id < 0)
			return (int)id;
		ids[i] = (uint32_t)id;
	}
	sid = stack_id(p, ids, nr);
	if (sid == -ENOSPC)
		return add_cut(p, period);
	if (sid < 0)
		return (int)sid;
	err = entry_add(p, t, (uint32_t)sid, period, false);
	if (err == -ENOSPC)
		return add_cut(p, period);
	return err;
}

const struct profile_stats *profile__stats(const struct profile *p)
{
	struct profile_stats *s = (struct profile_stats *)&p->st;

	s->entries = p->nr_entries;
	s->stacks = p->nr_stacks;
	s->frames = p->nr_frames;
	s->frame_slots = p->nr_pool;
	s->bytes = sizeof(*p) +
		   p->cap_frames * (sizeof(*p->frames) + sizeof(uint64_t)) +
		   (p->frame_ix.mask + 1 + p->stack_ix.mask + 1 + p->entry_ix.mask + 1) * sizeof(uint32_t) +
		   p->cap_stacks * sizeof(*p->stacks) + p->cap_pool * sizeof(*p->pool) +
		   p->cap_entries * (sizeof(*p->entries) + sizeof(uint64_t));
	return s;
}

const struct profile_entry *profile__entries(const struct profile *p, size_t *ret_nr)
{
	*ret_nr = p->nr_entries;
	return p->entries;
}

const uint32_t *profile__stack(const struct profile *p, uint32_t stack, size_t *ret_nr)
{
	if (stack >= p->nr_stacks) {
		*ret_nr = 0;
		return NULL;
	}
	*ret_nr = p->stacks[stack].nr;
	return p->pool + p->stacks[stack].off;
}

const struct profile_frame *profile__frames(const struct profile *p, size_t *ret_nr)
{
	*ret_nr = p->nr_frames;
	return p->frames;
}

/* Rows are built with a temporary index over the row array, as entries are. */
struct rows_ctx {
	struct profile_row *v;
	uint64_t *hash;
	size_t nr;
	struct index ix;
};

static void project(const struct profile *p, const struct profile_entry *e, const bool key_on[KEY__MAX],
		    bool by_stack, struct profile_row *r)
{
	size_t nr;
	const uint32_t *ids = profile__stack(p, e->stack, &nr);
	const struct profile_frame *leaf = nr ? &p->frames[ids[0]] : NULL;
	struct report_sample *k = &r->row.key;

	/* a row's symbol is the function the time is in, as perf's: not one inlined into it */
	for (size_t i = 1; i < nr && leaf->inlined; i++)
		leaf = &p->frames[ids[i]];
	memset(r, 0, sizeof(*r));
	r->stack = by_stack ? e->stack : UINT32_MAX;
	if (key_on[KEY_UID]) {
		k->uid = e->task.uid;
		k->uid_known = e->task.uid_known;
	}
	if (key_on[KEY_CGROUP])
		k->cgroup = e->task.cgroup;
	if (key_on[KEY_PID])
		k->pid = e->task.pid;
	if (key_on[KEY_COMM])
		k->comm = e->task.comm;
	/* as perf's --sort sym: a symbol is its name wherever it lives, unless the
	 * object is a key too */
	if (key_on[KEY_DSO])
		k->dso = leaf ? leaf->dso : NULL;
	if (key_on[KEY_SYM] && leaf) {
		k->sym = leaf->sym;
		k->kernel = leaf->kernel;
	}
}

static bool row_eq(const struct profile_row *a, const struct profile_row *b)
{
	const struct report_sample *x = &a->row.key, *y = &b->row.key;

	return a->stack == b->stack && x->uid == y->uid && x->uid_known == y->uid_known &&
	       x->cgroup == y->cgroup && x->pid == y->pid && x->comm == y->comm && x->dso == y->dso &&
	       x->sym == y->sym && x->kernel == y->kernel;
}

static uint64_t row_hash(const struct profile_row *r)
{
	const struct report_sample *k = &r->row.key;
	uint64_t h = mix(0, r->stack);

	h = mix(h, (uint64_t)(uint32_t)k->pid | (uint64_t)k->uid << 32);
	h = mix(h, k->cgroup ^ k->uid_known ^ (uint64_t)k->kernel << 1);
	h = mix(h, (uintptr_t)k->comm);
	h = mix(h, (uintptr_t)k->dso);
	return mix(h, (uintptr_t)k->sym);
}

static int cmp_row(const void *x, const void *y)
{
	const struct report_row *a = &((const struct profile_row *)x)->row;
	const struct report_row *b = &((const struct profile_row *)y)->row;

	if (a->period != b->period)
		return a->period < b->period ? 1 : -1;
	if (a->samples != b->samples)
		return a->samples < b->samples ? 1 : -1;
	return ((const struct profile_row *)x)->order < ((const struct profile_row *)y)->order ? -1 : 1;
}

int profile__rows(const struct profile *p, const bool key_on[KEY__MAX], bool by_stack,
		  struct profile_row **ret, size_t *ret_nr)
{
	size_t cap = 16;
	struct rows_ctx c = { 0 };

	while (cap < 2 * (p->nr_entries + 1))
		cap *= 2;
	c.v = malloc((p->nr_entries + 1) * sizeof(*c.v));
	c.hash = malloc((p->nr_entries + 1) * sizeof(*c.hash));
	if (!c.v || !c.hash || index_init(&c.ix, cap) < 0) {
		free(c.v);
		free(c.hash);
		return -ENOMEM;
	}
	for (size_t e = 0; e < p->nr_entries; e++) {
		struct profile_row r;
		uint64_t h;
		size_t i;

		project(p, &p->entries[e], key_on, by_stack, &r);
		h = row_hash(&r);
		for (i = h & c.ix.mask; c.ix.slot[i]; i = (i + 1) & c.ix.mask)
			if (c.hash[c.ix.slot[i] - 1] == h && row_eq(&c.v[c.ix.slot[i] - 1], &r))
				break;
		if (!c.ix.slot[i]) {
			r.order = (uint32_t)c.nr;
			c.v[c.nr] = r;
			c.hash[c.nr] = h;
			c.ix.slot[i] = (uint32_t)++c.nr;
		}
		c.v[c.ix.slot[i] - 1].row.samples += p->entries[e].samples;
		c.v[c.ix.slot[i] - 1].row.period += p->entries[e].period;
	}
	free(c.ix.slot);
	free(c.hash);
	qsort(c.v, c.nr, sizeof(*c.v), cmp_row);
	*ret = c.v;
	*ret_nr = c.nr;
	return 0;
}

int profile__parse_max(const char *arg, size_t *ret, char *err, size_t errlen)
{
	uint64_t v;

	if (parse_u64(arg, 10, &v) < 0 || v == 0 || v > 100000000) {
		errorf(err, errlen, "bad --max-stacks '%s': a positive number, at most 100000000", arg);
		return -EINVAL;
	}
	*ret = (size_t)v;
	return 0;
}
