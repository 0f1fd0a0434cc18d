/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdlib.h>
#include <string.h>

#include "prof/analyze/profile.h"
#include "prof/base/hash.h"
#include "prof/base/hashtable.h"
#include "prof/base/util.h"
#include "prof/base/vec.h"
#include "prof/offcpu/offcpu.h"

/*
 * Three interned tables (frames, stacks, entries), each a dense array indexed by a
 * base hash table of array positions.  Dense arrays keep the output order stable
 * (insertion order) and make reset and iteration cheap.
 */
struct stack {
	uint32_t off, nr;               /* in pool */
};

/*
 * The entries samples went to lately, by a cheap hash of their frames and task: a
 * hit, checked against the entry's own task and stack, counts the sample without
 * the frame, stack and entry look-ups (a look-up a frame: most of the work of a
 * sample with a call chain).  Fixed size, outside the budget.
 */
#define MEMO_SLOTS 4096

struct memo {
	uint64_t h;
	uint32_t entry;                 /* + 1; 0: empty */
};

struct profile {
	size_t max_entries, max_slots;
	struct profile_frame *frames;
	size_t nr_frames, cap_frames;
	struct hashtable frame_ix;      /* of uint32_t (frame id), by struct profile_frame */
	struct stack *stacks;
	size_t nr_stacks, cap_stacks;
	struct hashtable stack_ix;      /* of uint32_t (stack id), by struct stack_key */
	uint32_t *pool;
	size_t nr_pool, cap_pool;
	struct profile_entry *entries;
	size_t nr_entries, cap_entries;
	struct hashtable entry_ix;      /* of uint32_t (entry index), by struct entry_key */
	struct profile_stats st;
	uint32_t cut_entry;             /* UINT32_MAX until the first cut */
	struct profile_budget *budget;  /* NULL: none */
	size_t charged;                 /* bytes of the tables charged to it */
	struct memo *memo;              /* MEMO_SLOTS */
	uint32_t resets;                /* profile__reset()s: a profile_ref's epoch */
};

struct stack_key {
	const uint32_t *ids;
	size_t nr;
};

struct entry_key {
	const struct profile_task *t;
	uint32_t stack;
};

static bool frame_eq(const void *e, const void *key, const void *ctx)
{
	const struct profile_frame *a = &((const struct profile *)ctx)->frames[*(const uint32_t *)e], *b = key;

	return a->dso == b->dso && a->sym == b->sym && a->kernel == b->kernel && a->inlined == b->inlined &&
	       a->has_addr == b->has_addr && a->addr == b->addr;
}

static bool stack_eq(const void *e, const void *key, const void *ctx)
{
	const struct profile *p = ctx;
	const struct stack *s = &p->stacks[*(const uint32_t *)e];
	const struct stack_key *k = key;

	return s->nr == k->nr && (!k->nr || !memcmp(p->pool + s->off, k->ids, k->nr * sizeof(*k->ids)));
}

static bool task_eq(const struct profile_task *a, const struct profile_task *b)
{
	return a->pid == b->pid && a->comm == b->comm && a->uid == b->uid && a->uid_known == b->uid_known &&
	       a->cgroup == b->cgroup && a->container == b->container && a->holder == b->holder &&
	       a->holder_cgroup == b->holder_cgroup && a->holder_container == b->holder_container;
}

static bool entry_eq(const void *e, const void *key, const void *ctx)
{
	const struct profile_entry *x = &((const struct profile *)ctx)->entries[*(const uint32_t *)e];
	const struct entry_key *k = key;

	return x->stack == k->stack && task_eq(&x->task, k->t);
}

static uint64_t frame_hash(const struct profile_frame *f)
{
	return hash__mix(hash__mix(hash__mix(hash__u64((uintptr_t)f->dso), (uintptr_t)f->sym),
				   (uint64_t)f->kernel | (uint64_t)f->inlined << 1 | (uint64_t)f->has_addr << 2),
			 f->addr);
}

static uint64_t task_hash(uint64_t h, const struct profile_task *t)
{
	h = hash__mix(h, (uint64_t)(uint32_t)t->pid | (uint64_t)t->uid << 32);
	h = hash__mix(h, t->cgroup ^ t->uid_known ^ (uint64_t)t->holder << 8);
	if (t->holder_cgroup || t->holder_container)
		h = hash__mix(h, t->holder_cgroup ^ (uint64_t)(uintptr_t)t->holder_container << 1);
	return hash__mix(h, (uintptr_t)t->comm ^ (uint64_t)(uintptr_t)t->container << 1);
}

struct profile *profile__new(size_t max_entries)
{
	struct profile *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	/* ids and pool offsets are 32-bit: PROFILE_UNLIMITED is this ceiling */
	p->max_entries = max_entries ? max_entries : PROFILE_DEFAULT_MAX_ENTRIES;
	if (p->max_entries > PROFILE_MAX_ENTRIES)
		p->max_entries = PROFILE_MAX_ENTRIES;
	p->max_slots = p->max_entries * PROFILE_FRAMES_PER_ENTRY;
	p->cut_entry = UINT32_MAX;
	hashtable__init(&p->frame_ix, sizeof(uint32_t), frame_eq, p);
	hashtable__init(&p->stack_ix, sizeof(uint32_t), stack_eq, p);
	hashtable__init(&p->entry_ix, sizeof(uint32_t), entry_eq, p);
	p->charged = sizeof(*p);
	p->memo = calloc(MEMO_SLOTS, sizeof(*p->memo));
	if (!p->memo) {
		free(p);
		return NULL;
	}
	return p;
}

struct profile *profile__free(struct profile *p)
{
	if (!p)
		return NULL;
	if (p->budget)
		p->budget->held -= p->charged;
	free(p->frames);
	free(p->stacks);
	free(p->pool);
	free(p->entries);
	free(p->memo);
	hashtable__release(&p->frame_ix);
	hashtable__release(&p->stack_ix);
	hashtable__release(&p->entry_ix);
	free(p);
	return NULL;
}

void profile__reset(struct profile *p)
{
	hashtable__clear(&p->frame_ix);
	hashtable__clear(&p->stack_ix);
	hashtable__clear(&p->entry_ix);
	p->nr_frames = p->nr_stacks = p->nr_pool = p->nr_entries = 0;
	p->cut_entry = UINT32_MAX;
	memset(&p->st, 0, sizeof(p->st));
	memset(p->memo, 0, MEMO_SLOTS * sizeof(*p->memo));
	p->resets++;
}

void profile__set_budget(struct profile *p, struct profile_budget *b)
{
	if (p->budget)
		p->budget->held -= p->charged;
	p->budget = b;
	if (b)
		b->held += p->charged;
}

/* The bytes the tables hold. */
static size_t tables_bytes(const struct profile *p)
{
	return sizeof(*p) + p->cap_frames * sizeof(*p->frames) + p->cap_stacks * sizeof(*p->stacks) +
	       p->cap_pool * sizeof(*p->pool) + p->cap_entries * sizeof(*p->entries) +
	       hashtable__bytes(&p->frame_ix) + hashtable__bytes(&p->stack_ix) + hashtable__bytes(&p->entry_ix);
}

/* May the tables grow by a + b + c bytes?  Past the budget the sample is cut.  (The
 * growth is reckoned with room for the "[cut]" frame, stack and entry, which are made
 * past every cap.) */
static bool fits(struct profile *p, size_t a, size_t b, size_t c)
{
	const struct profile_budget *bg = p->budget;

	if (!bg || !bg->limit || (a <= bg->limit && b <= bg->limit && c <= bg->limit &&
				 bg->held + a + b + c <= bg->limit))
		return true;
	p->st.cut_by_budget = true;
	return false;
}

/* Room kept for the "[cut]" entry (and its frame and stack) until it exists, so that
 * making it, past every cap, never grows a table. */
static size_t spare(const struct profile *p, bool force)
{
	return !force && p->cut_entry == UINT32_MAX;
}

/* What the tables hold now, charged to the budget (after they grew). */
static void charge(struct profile *p)
{
	size_t now = tables_bytes(p);

	if (p->budget)
		p->budget->held += now - p->charged;
	p->charged = now;
}

/* The id of frame f, interned; -ENOSPC when the table is full (unless force); -ENOMEM. */
static int64_t frame_id(struct profile *p, const struct profile_frame *f, bool force)
{
	uint64_t h = frame_hash(f);
	uint32_t *slot = hashtable__find(&p->frame_ix, h, f);
	size_t room = 1 + spare(p, force);
	bool created;
	int err;

	if (slot)
		return *slot;
	if (!force && (p->nr_frames >= p->max_entries ||
		       !fits(p, VEC_GROW_BYTES(p->frames, p->cap_frames, p->nr_frames + room),
			     hashtable__grow_bytes(&p->frame_ix, room), 0)))
		return -ENOSPC;
	err = VEC_RESERVE(p->frames, p->cap_frames, p->nr_frames + room);
	if (!err)
		err = hashtable__reserve(&p->frame_ix, room);
	charge(p);
	if (err || !(slot = hashtable__insert(&p->frame_ix, h, f, &created)))
		return -ENOMEM;
	p->frames[p->nr_frames] = *f;
	*slot = (uint32_t)p->nr_frames++;
	return *slot;
}

/* The id of the stack ids[0..nr), interned; -ENOSPC over the frame budget (unless
 * force); -ENOMEM. */
static int64_t stack_id(struct profile *p, const uint32_t *ids, size_t nr, bool force)
{
	struct stack_key k = { ids, nr };
	uint64_t h = hash__bytes(ids, nr * sizeof(*ids));
	uint32_t *slot = hashtable__find(&p->stack_ix, h, &k);
	size_t room = 1 + spare(p, force);
	bool created;
	int err;

	if (slot)
		return *slot;
	if (!force && (p->nr_pool + nr > p->max_slots ||
		       !fits(p, VEC_GROW_BYTES(p->stacks, p->cap_stacks, p->nr_stacks + room),
			     VEC_GROW_BYTES(p->pool, p->cap_pool, p->nr_pool + nr + room - 1),
			     hashtable__grow_bytes(&p->stack_ix, room))))
		return -ENOSPC;
	err = VEC_RESERVE(p->stacks, p->cap_stacks, p->nr_stacks + room);
	if (!err)
		err = VEC_RESERVE(p->pool, p->cap_pool, p->nr_pool + nr + room - 1);
	if (!err)
		err = hashtable__reserve(&p->stack_ix, room);
	charge(p);
	if (err || !(slot = hashtable__insert(&p->stack_ix, h, &k, &created)))
		return -ENOMEM;
	if (nr)
		memcpy(p->pool + p->nr_pool, ids, nr * sizeof(*ids));
	p->stacks[p->nr_stacks] = (struct stack){ .off = (uint32_t)p->nr_pool, .nr = (uint32_t)nr };
	p->nr_pool += nr;
	*slot = (uint32_t)p->nr_stacks++;
	return *slot;
}

/* The index of a new entry for (t, stack) in its table's slot; -ENOSPC when the table
 * is full (unless force); -ENOMEM. */
static int entry_new(struct profile *p, const struct entry_key *k, uint64_t h, bool force, uint32_t **ret)
{
	size_t room = 1 + spare(p, force);
	bool created;
	int err;

	if (!force && (p->nr_entries >= p->max_entries ||
		       !fits(p, VEC_GROW_BYTES(p->entries, p->cap_entries, p->nr_entries + room),
			     hashtable__grow_bytes(&p->entry_ix, room), 0)))
		return -ENOSPC;
	err = VEC_RESERVE(p->entries, p->cap_entries, p->nr_entries + room);
	if (!err)
		err = hashtable__reserve(&p->entry_ix, room);
	charge(p);
	if (err || !(*ret = hashtable__insert(&p->entry_ix, h, k, &created)))
		return -ENOMEM;
	p->entries[p->nr_entries] = (struct profile_entry){ .task = *k->t, .stack = k->stack };
	**ret = (uint32_t)p->nr_entries++;
	return 0;
}

/* Count into the entry of (t, stack); -ENOSPC when it is new and the table is full
 * (unless force). */
static int entry_add(struct profile *p, const struct profile_task *t, uint32_t stack, uint64_t period,
		     bool force, uint32_t *ret_entry)
{
	struct entry_key k = { t, stack };
	uint64_t h = task_hash(hash__u64(stack), t);
	uint32_t *slot = hashtable__find(&p->entry_ix, h, &k);
	struct profile_entry *e;

	if (!slot) {
		int err = entry_new(p, &k, h, force, &slot);
		if (err < 0)
			return err;
	}
	e = &p->entries[*slot];
	e->samples++;
	e->period += period;
	*ret_entry = *slot;
	return 0;
}

/* The sample goes to the one "[cut]" entry: no task facts, one frame.  Made past
 * the caps, once. */
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
	fid = frame_id(p, &f, true);
	if (fid < 0)
		return (int)fid;
	id = (uint32_t)fid;
	sid = stack_id(p, &id, 1, true);
	if (sid < 0)
		return (int)sid;
	if (entry_add(p, &none, (uint32_t)sid, period, true, &id) < 0)
		return -ENOMEM;
	p->cut_entry = id;
	return 1;
}

/* The memo's hash of a sample: a multiply a word (hash__step), not the tables' hashes. */
static uint64_t memo_hash(const struct profile_task *t, const struct profile_frame *f, size_t nr)
{
	uint64_t h = hash__step(nr, (uint64_t)(uint32_t)t->pid << 16 ^ (uintptr_t)t->comm);

	h = hash__step(h, t->cgroup ^ (uint64_t)t->uid << 32 ^ (uintptr_t)t->container);
	for (size_t i = 0; i < nr; i++) {
		h = hash__step(h, (uintptr_t)f[i].sym);
		h = hash__step(h, (uintptr_t)f[i].dso ^ f[i].addr ^
				  ((uint64_t)f[i].kernel | (uint64_t)f[i].inlined << 1 | (uint64_t)f[i].has_addr << 2));
	}
	return h ^ h >> 31;   /* the high bits down: the slot is h % MEMO_SLOTS */
}

/* Is entry e the one of (t, frames[0..nr)), as the tables would find it? */
static bool memo_matches(const struct profile *p, uint32_t e, const struct profile_task *t,
			 const struct profile_frame *f, size_t nr)
{
	const struct profile_entry *x = &p->entries[e];
	const struct stack *s = &p->stacks[x->stack];

	if (s->nr != nr || !task_eq(&x->task, t))
		return false;
	for (size_t i = 0; i < nr; i++)
		if (!frame_eq(&p->pool[s->off + i], &f[i], p))
			return false;
	return true;
}

/* The tables' way: each frame's id, the stack's, the entry's.  1 when cut. */
static int add_slow(struct profile *p, const struct profile_task *t, const struct profile_frame *frames,
		    size_t nr, uint64_t period, uint32_t *ret_entry)
{
	uint32_t ids[512];
	int64_t sid;
	int err;

	for (size_t i = 0; i < nr; i++) {
		int64_t id = frame_id(p, &frames[i], false);
		if (id == -ENOSPC)
			return add_cut(p, period);
		if (id < 0)
			return (int)id;
		ids[i] = (uint32_t)id;
	}
	sid = stack_id(p, ids, nr, false);
	if (sid == -ENOSPC)
		return add_cut(p, period);
	if (sid < 0)
		return (int)sid;
	err = entry_add(p, t, (uint32_t)sid, period, false, ret_entry);
	if (err == -ENOSPC)
		return add_cut(p, period);
	return err;
}

int profile__add_ref(struct profile *p, const struct profile_task *t, const struct profile_frame *frames,
		     size_t nr, uint64_t period, uint64_t *ret_ref)
{
	uint64_t h;
	struct memo *m;
	uint32_t e;
	int err;

	p->st.samples++;
	p->st.period += period;
	nr = MIN(nr, (size_t)512);      /* add_slow's ids */
	h = memo_hash(t, frames, nr);
	m = &p->memo[h % MEMO_SLOTS];
	if (m->entry && m->h == h && memo_matches(p, m->entry - 1, t, frames, nr)) {
		e = m->entry - 1;
		p->entries[e].samples++;
		p->entries[e].period += period;
	} else {
		err = add_slow(p, t, frames, nr, period, &e);
		if (err != 0)
			return err;
		*m = (struct memo){ .h = h, .entry = e + 1 };
	}
	if (ret_ref)
		*ret_ref = (uint64_t)p->resets << 32 | e;
	return 0;
}

int profile__add(struct profile *p, const struct profile_task *t, const struct profile_frame *frames,
		 size_t nr, uint64_t period)
{
	return profile__add_ref(p, t, frames, nr, period, NULL);
}

int profile__add_again(struct profile *p, uint64_t ref, uint64_t period)
{
	uint32_t e = (uint32_t)ref;

	if (ref >> 32 != p->resets || e >= p->nr_entries)
		return -ESTALE;
	p->st.samples++;
	p->st.period += period;
	p->entries[e].samples++;
	p->entries[e].period += period;
	return 0;
}

const struct profile_stats *profile__stats(const struct profile *p)
{
	struct profile_stats *s = (struct profile_stats *)&p->st;

	s->entries = p->nr_entries;
	s->stacks = p->nr_stacks;
	s->frames = p->nr_frames;
	s->frame_slots = p->nr_pool;
	s->bytes = tables_bytes(p);
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

static void project(const struct profile *p, const struct profile_entry *e, const bool key_on[PROFILE_KEY__MAX],
		    bool by_stack, struct profile_row *r)
{
	size_t nr;
	const uint32_t *ids = profile__stack(p, e->stack, &nr);
	const struct profile_frame *leaf = nr ? &p->frames[ids[0]] : NULL;

	/* a row's symbol is the function the time is in, as perf's: not one inlined into it */
	for (size_t i = 1; i < nr && leaf->inlined; i++)
		leaf = &p->frames[ids[i]];
	*r = (struct profile_row){ .stack = by_stack ? e->stack : UINT32_MAX };
	if (key_on[PROFILE_KEY_UID]) {
		r->task.uid = e->task.uid;
		r->task.uid_known = e->task.uid_known;
	}
	if (key_on[PROFILE_KEY_CGROUP])
		r->task.cgroup = e->task.cgroup;
	if (key_on[PROFILE_KEY_CONTAINER])
		r->task.container = e->task.container;
	if (key_on[PROFILE_KEY_HOLDER])
		r->task.holder = e->task.holder;
	else if (key_on[PROFILE_KEY_HOLDER_CGROUP] || key_on[PROFILE_KEY_HOLDER_CONTAINER])
		/* the holder's kind (self, system, ...) names the rows of no task */
		r->task.holder = offcpu__holder_kind(e->task.holder, e->task.holder_cgroup || e->task.holder_container);
	if (key_on[PROFILE_KEY_HOLDER_CGROUP])
		r->task.holder_cgroup = e->task.holder_cgroup;
	if (key_on[PROFILE_KEY_HOLDER_CONTAINER])
		r->task.holder_container = e->task.holder_container;
	if (key_on[PROFILE_KEY_PID])
		r->task.pid = e->task.pid;
	if (key_on[PROFILE_KEY_COMM])
		r->task.comm = e->task.comm;
	/* as perf's --sort sym, which compares the object first: a symbol is that
	 * symbol of that object (two copies of a program are two rows) */
	if (key_on[PROFILE_KEY_DSO] || key_on[PROFILE_KEY_SYM])
		r->dso = leaf ? leaf->dso : NULL;
	if (key_on[PROFILE_KEY_SYM] && leaf) {
		r->sym = leaf->sym;
		r->kernel = leaf->kernel;
	}
}

/* Rows are grouped through a table of their indexes in the row array. */
static bool row_eq(const void *e, const void *key, const void *ctx)
{
	const struct profile_row *a = &((const struct profile_row *)ctx)[*(const uint32_t *)e], *b = key;

	return a->stack == b->stack && task_eq(&a->task, &b->task) && a->dso == b->dso && a->sym == b->sym &&
	       a->kernel == b->kernel;
}

static uint64_t row_hash(const struct profile_row *r, bool with_dso)
{
	uint64_t h = task_hash(hash__u64(r->stack), &r->task);

	return hash__mix(hash__mix(h, with_dso ? (uintptr_t)r->dso : 0), (uintptr_t)r->sym ^ r->kernel);
}

/* The same row but for its object. */
static bool row_eq_but_dso(const void *e, const void *key, const void *ctx)
{
	const struct profile_row *a = &((const struct profile_row *)ctx)[*(const uint32_t *)e], *b = key;

	return a->stack == b->stack && task_eq(&a->task, &b->task) && a->sym == b->sym && a->kernel == b->kernel;
}

/* Rows of one name in several objects (grouped by sym, not by dso): sym_shared, so
 * that their text can tell them apart.  0 or -ENOMEM. */
static int mark_shared(struct profile_row *v, size_t nr)
{
	struct hashtable ix;

	hashtable__init(&ix, sizeof(uint32_t), row_eq_but_dso, v);
	for (size_t i = 0; i < nr; i++) {
		bool created;
		uint32_t *slot = hashtable__insert(&ix, row_hash(&v[i], false), &v[i], &created);

		if (!slot) {
			hashtable__release(&ix);
			return -ENOMEM;
		}
		if (created)
			*slot = (uint32_t)i;
		else
			v[i].sym_shared = v[*slot].sym_shared = true;
	}
	hashtable__release(&ix);
	return 0;
}

static int cmp_row(const void *x, const void *y)
{
	const struct profile_row *a = x, *b = y;

	if (a->period != b->period)
		return a->period < b->period ? 1 : -1;
	if (a->samples != b->samples)
		return a->samples < b->samples ? 1 : -1;
	return a->order < b->order ? -1 : 1;
}

int profile__rows(const struct profile *p, const bool key_on[PROFILE_KEY__MAX], bool by_stack,
		  struct profile_row **ret, size_t *ret_nr)
{
	struct profile_row *v = calloc(p->nr_entries + 1, sizeof(*v));
	struct hashtable ix;
	size_t nr = 0;

	if (!v)
		return -ENOMEM;
	hashtable__init(&ix, sizeof(uint32_t), row_eq, v);    /* v is not moved: room for every entry */
	for (size_t e = 0; e < p->nr_entries; e++) {
		struct profile_row r;
		uint32_t *slot;
		bool created;

		project(p, &p->entries[e], key_on, by_stack, &r);
		slot = hashtable__insert(&ix, row_hash(&r, true), &r, &created);
		if (!slot) {
			hashtable__release(&ix);
			free(v);
			return -ENOMEM;
		}
		if (created) {
			r.order = (uint32_t)nr;
			v[nr] = r;
			*slot = (uint32_t)nr++;
		}
		v[*slot].samples += p->entries[e].samples;
		v[*slot].period += p->entries[e].period;
	}
	hashtable__release(&ix);
	if (key_on[PROFILE_KEY_SYM] && !key_on[PROFILE_KEY_DSO] && !by_stack && mark_shared(v, nr) < 0) {
		free(v);
		return -ENOMEM;
	}
	qsort(v, nr, sizeof(*v), cmp_row);
	*ret = v;
	*ret_nr = nr;
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
