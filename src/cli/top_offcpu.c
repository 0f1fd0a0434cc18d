/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prof/base/hash.h"
#include "prof/base/hashtable.h"
#include "prof/base/util.h"
#include "prof/base/vec.h"
#include "prof/cli/top_offcpu.h"
#include "prof/offcpu/offcpu.h"
#include "prof/offcpu/offcpu_events.h"

struct top_offcpu {
	struct profile *runq;           /* keyed by the view's facts and the holder */
	struct profile *blocked;
	/* the intervals open at the last look, counted anew at each (they still grow) */
	struct profile *open_runq, *open_blocked;
};

int top_offcpu__new(size_t max_entries, struct top_offcpu **ret)
{
	struct top_offcpu *o = calloc(1, sizeof(*o));

	if (!o)
		return -ENOMEM;
	o->runq = profile__new(max_entries);
	o->blocked = profile__new(max_entries);
	o->open_runq = profile__new(max_entries);
	o->open_blocked = profile__new(max_entries);
	if (!o->runq || !o->blocked || !o->open_runq || !o->open_blocked) {
		top_offcpu__free(o);
		return -ENOMEM;
	}
	*ret = o;
	return 0;
}

struct top_offcpu *top_offcpu__free(struct top_offcpu *o)
{
	if (!o)
		return NULL;
	profile__free(o->runq);
	profile__free(o->blocked);
	profile__free(o->open_runq);
	profile__free(o->open_blocked);
	free(o);
	return NULL;
}

/* The holder keys, kept together: the view tells holders apart by any of them (the
 * 'h' key switches without losing what was counted). */
static const enum profile_key holder_keys[] = { PROFILE_KEY_HOLDER, PROFILE_KEY_HOLDER_CGROUP,
						PROFILE_KEY_HOLDER_CONTAINER };

/* s attributed into prof (instead of a's own), keyed by its holder or not. */
static int add_into(struct attribution *a, struct profile *prof, bool by_holder, const struct sample *s)
{
	struct profile *on = a->prof;
	bool keep[ARRAY_SIZE(holder_keys)];
	int err;

	a->prof = prof;
	for (size_t k = 0; k < ARRAY_SIZE(holder_keys); k++) {
		keep[k] = a->keep[holder_keys[k]];
		a->keep[holder_keys[k]] = by_holder;
	}
	err = attribution__add(a, s);
	a->prof = on;
	for (size_t k = 0; k < ARRAY_SIZE(holder_keys); k++)
		a->keep[holder_keys[k]] = keep[k];
	return err;
}

int top_offcpu__add(struct top_offcpu *o, struct attribution *a, const struct sample *s, uint64_t since)
{
	struct sample c;
	int err;

	if (s->id != OFFCPU_ID_RUNQ && s->id != OFFCPU_ID_BLOCKED)
		return 0;
	/* an interval is timed at its end: only its part since the view's start counts */
	c = *s;
	if (since && c.time - c.period < since)
		c.period = c.time > since ? c.time - since : 0;
	if (!c.period)
		return 1;
	err = add_into(a, c.id == OFFCPU_ID_RUNQ ? o->runq : o->blocked, c.id == OFFCPU_ID_RUNQ, &c);
	return err < 0 ? err : 1;
}

void top_offcpu__reset(struct top_offcpu *o)
{
	profile__reset(o->runq);
	profile__reset(o->blocked);
	top_offcpu__forget_open(o);
}

void top_offcpu__forget_open(struct top_offcpu *o)
{
	profile__reset(o->open_runq);
	profile__reset(o->open_blocked);
}

int top_offcpu__add_open(struct top_offcpu *o, struct attribution *a, const struct sample *s, bool runq)
{
	int err = add_into(a, runq ? o->open_runq : o->open_blocked, false, s);

	return err < 0 ? err : 0;
}

void top_offcpu__counts(const struct top_offcpu *o, uint64_t *ret_samples, uint64_t *ret_cut)
{
	const struct profile_stats *r = profile__stats(o->runq), *b = profile__stats(o->blocked);

	*ret_samples = r->samples + b->samples;
	*ret_cut = r->cut_samples + b->cut_samples;
}

/* ---- rows ----------------------------------------------------------------------- */

/* A row's facts, as profile__rows leaves them (what is not grouped by is zero). */
static bool same_facts(const struct profile_row *a, const struct profile_row *b)
{
	return a->task.uid == b->task.uid && a->task.uid_known == b->task.uid_known &&
	       a->task.cgroup == b->task.cgroup && a->task.container == b->task.container &&
	       a->task.pid == b->task.pid && a->task.comm == b->task.comm && a->dso == b->dso &&
	       a->sym == b->sym && a->kernel == b->kernel;
}

static uint64_t facts_hash(const struct profile_row *r)
{
	uint64_t h = hash__u64(r->task.uid ^ ((uint64_t)r->task.uid_known << 32));

	h = hash__mix(h, r->task.cgroup);
	h = hash__mix(h, (uintptr_t)r->task.container);
	h = hash__mix(h, (uint64_t)(uint32_t)r->task.pid);
	h = hash__mix(h, (uintptr_t)r->task.comm);
	h = hash__mix(h, (uintptr_t)r->dso);
	h = hash__mix(h, (uintptr_t)r->sym ^ r->kernel);
	return h | 1;
}

struct slot {
	struct profile_row key;
	size_t idx;
};

static bool slot_eq(const void *entry, const void *key, const void *ctx)
{
	return same_facts(&((const struct slot *)entry)->key, key);
}

struct merge {
	struct hashtable idx;
	struct top_offcpu_row *rows;
	size_t nr, cap;
	enum top_holders by;
	/* per row, every holder of its runq time (few: self, system, idle, a few users) */
	struct holders {
		struct top_holder h[16];
		uint64_t ns[16];
		size_t nr;
		uint64_t rest;
	} *hs;
	size_t hs_cap;
};

/* The row of r's facts, made when new; NULL on ENOMEM. */
static struct top_offcpu_row *row_of(struct merge *m, const struct profile_row *r, size_t *ret_i)
{
	struct profile_row k = *r;
	struct slot *s;
	bool created;

	k.task.holder = 0;
	k.task.holder_cgroup = 0;
	k.task.holder_container = NULL;
	s = hashtable__insert(&m->idx, facts_hash(&k), &k, &created);
	if (!s)
		return NULL;
	if (created) {
		if (VEC_RESERVE(m->rows, m->cap, m->nr + 1) < 0 || VEC_RESERVE(m->hs, m->hs_cap, m->nr + 1) < 0) {
			hashtable__remove(&m->idx, facts_hash(&k), &k);
			return NULL;
		}
		s->key = k;
		s->idx = m->nr;
		m->rows[m->nr] = (struct top_offcpu_row){ .key = k };
		m->hs[m->nr] = (struct holders){ 0 };
		m->nr++;
	}
	*ret_i = s->idx;
	return &m->rows[s->idx];
}

/* A runq row's holder as the view tells them apart (as keys.c's keep_only). */
static struct top_holder holder_by(const struct profile_task *t, enum top_holders by)
{
	bool task = t->holder_cgroup || t->holder_container;

	switch (by) {
	case TOP_HOLDERS_CGROUP:
		return (struct top_holder){ .holder = offcpu__holder_kind(t->holder, task), .cgroup = t->holder_cgroup };
	case TOP_HOLDERS_CONTAINER:
		return (struct top_holder){ .holder = offcpu__holder_kind(t->holder, task),
					    .container = t->holder_container };
	default:
		return (struct top_holder){ .holder = t->holder };
	}
}

static bool same_holder(const struct top_holder *a, const struct top_holder *b)
{
	return a->holder == b->holder && a->cgroup == b->cgroup && a->container == b->container;
}

static void holders_add(struct holders *h, struct top_holder holder, uint64_t ns)
{
	size_t i;

	for (i = 0; i < h->nr && !same_holder(&h->h[i], &holder); i++)
		;
	if (i == h->nr) {
		if (h->nr == ARRAY_SIZE(h->h)) {
			h->rest += ns;
			return;
		}
		h->h[h->nr] = holder;
		h->ns[h->nr++] = 0;
	}
	h->ns[i] += ns;
}

/* One profile's rows into the merge: which = 0 on, 1 runq (by holder), 2 blocked, 3
 * runq still open (its holders not known yet). */
static int merge_profile(struct merge *m, const struct profile *p, const bool key_on[PROFILE_KEY__MAX], int which)
{
	bool keys[PROFILE_KEY__MAX];
	struct profile_row *rows = NULL;
	size_t nr = 0;
	int err;

	memcpy(keys, key_on, sizeof(keys));
	for (size_t k = 0; k < ARRAY_SIZE(holder_keys); k++)
		keys[holder_keys[k]] = which == 1;
	err = profile__rows(p, keys, false, &rows, &nr);
	if (err < 0)
		return err;
	for (size_t i = 0; i < nr; i++) {
		size_t at;
		struct top_offcpu_row *r = row_of(m, &rows[i], &at);

		if (!r) {
			free(rows);
			return -ENOMEM;
		}
		if (which == 0) {
			r->on_ns += rows[i].period;
		} else if (which == 2) {
			r->blocked_ns += rows[i].period;
		} else if (which == 3) {
			r->runq_ns += rows[i].period;
			r->open_runq_ns += rows[i].period;
		} else {
			r->runq_ns += rows[i].period;
			holders_add(&m->hs[at], holder_by(&rows[i].task, m->by), rows[i].period);
		}
	}
	free(rows);
	return 0;
}

/* Each row's largest holders, the rest summed. */
static void pick_holders(struct top_offcpu_row *r, struct holders *h)
{
	r->other_holders_ns = h->rest;
	for (size_t n = 0; n < TOP_OFFCPU_HOLDERS; n++) {
		size_t best = h->nr;

		for (size_t i = 0; i < h->nr; i++)
			if (h->ns[i] && (best == h->nr || h->ns[i] > h->ns[best]))
				best = i;
		if (best == h->nr)
			break;
		r->holder[n] = h->h[best];
		r->holder_ns[n] = h->ns[best];
		r->nr_holders++;
		h->ns[best] = 0;
	}
	for (size_t i = 0; i < h->nr; i++)
		r->other_holders_ns += h->ns[i];
}

static int by_total(const void *a, const void *b)
{
	const struct top_offcpu_row *x = a, *y = b;
	uint64_t tx = x->on_ns + x->runq_ns + x->blocked_ns, ty = y->on_ns + y->runq_ns + y->blocked_ns;

	return tx < ty ? 1 : tx > ty ? -1 : 0;
}

int top_offcpu__rows(const struct top_offcpu *o, const struct profile *on, const bool key_on[PROFILE_KEY__MAX],
		     enum top_holders by, struct top_offcpu_row **ret, size_t *ret_nr)
{
	struct merge m = { .by = by };
	int err;

	hashtable__init(&m.idx, sizeof(struct slot), slot_eq, NULL);
	err = merge_profile(&m, on, key_on, 0);
	if (err == 0)
		err = merge_profile(&m, o->runq, key_on, 1);
	if (err == 0)
		err = merge_profile(&m, o->blocked, key_on, 2);
	if (err == 0)
		err = merge_profile(&m, o->open_runq, key_on, 3);
	if (err == 0)
		err = merge_profile(&m, o->open_blocked, key_on, 2);
	hashtable__release(&m.idx);
	if (err < 0) {
		free(m.rows);
		free(m.hs);
		return err;
	}
	for (size_t i = 0; i < m.nr; i++)
		pick_holders(&m.rows[i], &m.hs[i]);
	free(m.hs);
	/* stable enough: profile__rows' order within equal totals is not promised here */
	qsort(m.rows, m.nr, sizeof(*m.rows), by_total);
	*ret = m.rows;
	*ret_nr = m.nr;
	return 0;
}
