/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <perf/event.h>

#include "prof/analyze/attribution.h"
#include "prof/base/hash.h"
#include "prof/base/util.h"
#include "prof/offcpu/offcpu.h"

/* The facts of s's task: comm from the model ("swapper" for the idle task, as perf
 * names it), interned where the resolver interns names. */
static int task_find(const struct attribution *a, const struct sample *s, struct profile_task *t)
{
	const char *comm = model__comm(a->res->model, (int32_t)s->tid);

	if (!comm[0] && s->tid == 0)
		comm = "swapper";
	*t = (struct profile_task){ .pid = (int32_t)s->pid, .cgroup = s->cgroup,
				    .container = model__container(a->res->model, s->cgroup) };
	t->uid_known = a->uid_of ? a->uid_of(a->uid_ctx, (int32_t)s->tid, &t->uid)
				 : model__uid(a->res->model, (int32_t)s->tid, &t->uid);
	t->comm = strset__intern(a->res->names, comm[0] ? comm : RESOLVE_UNKNOWN);
	return t->comm ? 0 : -ENOMEM;
}

/* task_find, remembered by (tid, pid, cgroup) while the model's tasks stay as they
 * were: three look-ups and an interning a sample otherwise.  Not with a uid_of of
 * the caller's, whose answers the model does not date. */
static int task_of(struct attribution *a, const struct sample *s, struct profile_task *t)
{
	uint64_t gen = model__generation(a->res->model, false) + 1;
	struct attribution_task_slot *c = &a->tasks[hash__u64(s->tid ^ (uint64_t)s->pid << 32 ^ s->cgroup) %
						    ATTRIBUTION_TASK_SLOTS];
	int err;

	if (a->uid_of)
		return task_find(a, s, t);
	if (c->gen == gen && c->tid == s->tid && c->t.pid == (int32_t)s->pid && c->t.cgroup == s->cgroup) {
		*t = c->t;
		return 0;
	}
	err = task_find(a, s, t);
	if (!err)
		*c = (struct attribution_task_slot){ .gen = gen, .tid = s->tid, .t = *t };
	return err;
}

/* Samples whose chain is longer than this are not kept in the memo. */
#define MEMO_CHAIN 32
#define MEMO_SLOTS 1024

struct memo_slot {
	uint64_t gen;                   /* the maps' generation + 1; 0: empty */
	const struct profile *prof;
	uint64_t ref;                   /* profile__add_ref's */
	struct profile_task t;          /* as counted: the facts not kept are zeroed */
	int32_t pid;
	bool kernel;
	uint32_t nr;                    /* of chain; 0 without -g */
	uint64_t ip;
	uint64_t chain[MEMO_CHAIN];
};

struct attribution_memo {
	struct memo_slot v[MEMO_SLOTS];
};

int attribution__memo_init(struct attribution *a)
{
	a->memo = calloc(1, sizeof(*a->memo));
	return a->memo ? 0 : -ENOMEM;
}

void attribution__memo_release(struct attribution *a)
{
	free(a->memo);
	a->memo = NULL;
}

static bool task_same(const struct profile_task *x, const struct profile_task *y)
{
	return x->pid == y->pid && x->comm == y->comm && x->uid == y->uid && x->uid_known == y->uid_known &&
	       x->cgroup == y->cgroup && x->container == y->container && x->holder == y->holder &&
	       x->holder_cgroup == y->holder_cgroup && x->holder_container == y->holder_container;
}

/* The memo's slot for the sample (its chain when with_chain), and whether it holds it. */
static struct memo_slot *memo_find(struct attribution *a, const struct profile_task *t, int32_t pid,
				   bool kernel, const struct sample *s, uint32_t nr, uint64_t gen, bool *ret_hit)
{
	uint64_t h = hash__step(s->ip, (uint64_t)(uint32_t)pid << 32 ^ kernel);
	struct memo_slot *m;

	for (uint32_t i = 0; i < nr; i++) {
		uint64_t w;

		memcpy(&w, (const uint8_t *)s->callchain + 8 * i, 8);  /* as resolver__stack reads it */
		h = hash__step(h, w);
	}
	h = hash__step(h, (uintptr_t)t->comm ^ t->cgroup);
	m = &a->memo->v[(h >> 32) % MEMO_SLOTS];   /* the high half: hash__step's mixed bits */
	*ret_hit = m->gen == gen && m->prof == a->prof && m->ip == s->ip && m->pid == pid && m->kernel == kernel &&
		   m->nr == nr && task_same(&m->t, t) && (!nr || !memcmp(m->chain, s->callchain, nr * 8));
	return m;
}

void attribution__keep_only(struct attribution *a, const enum profile_key *keys, size_t nr)
{
	for (size_t k = 0; k < PROFILE_KEY__MAX; k++)
		a->keep[k] = false;
	for (size_t i = 0; i < nr; i++)
		a->keep[keys[i]] = true;
}

/* Zero the facts of t its entries are not keyed by. */
static void keep_only(const struct attribution *a, struct profile_task *t)
{
	if (!a->keep[PROFILE_KEY_PID])
		t->pid = 0;
	if (!a->keep[PROFILE_KEY_UID])
		t->uid = 0, t->uid_known = false;
	if (!a->keep[PROFILE_KEY_CGROUP])
		t->cgroup = 0;
	if (!a->keep[PROFILE_KEY_CONTAINER])
		t->container = NULL;
	if (!a->keep[PROFILE_KEY_HOLDER])
		t->holder = a->keep[PROFILE_KEY_HOLDER_CGROUP] || a->keep[PROFILE_KEY_HOLDER_CONTAINER]
				    ? offcpu__holder_kind(t->holder, t->holder_cgroup || t->holder_container) : 0;
	if (!a->keep[PROFILE_KEY_HOLDER_CGROUP])
		t->holder_cgroup = 0;
	if (!a->keep[PROFILE_KEY_HOLDER_CONTAINER])
		t->holder_container = NULL;
	if (!a->keep[PROFILE_KEY_COMM])
		t->comm = NULL;
}

/*
 * An offcpu-runq sample's holder into t: a task of the holder table (offcpu.h) by its
 * uid, cgroup and container; a holder by uid (a file from before the table, profd) or
 * of a kind (self, system, idle, other tenants) as it is.
 */
static void holder_facts(const struct attribution *a, uint32_t holder, struct profile_task *t)
{
	struct offcpu_holder_info h;

	t->holder = holder;
	if (holder < OFFCPU_HOLDER_TASK || !a->holder_of || !a->holder_of(a->holder_ctx, holder, &h))
		return;
	t->holder = h.uid_known && h.uid < OFFCPU_HOLDER_TASK - OFFCPU_HOLDER_UID ? OFFCPU_HOLDER_UID + h.uid
										: OFFCPU_HOLDER_UNKNOWN;
	t->holder_cgroup = h.cgroup;
	t->holder_container = h.cgroup ? model__container(a->res->model, h.cgroup) : NULL;
}

int attribution__add(struct attribution *a, const struct sample *s)
{
	bool kernel = (s->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL, hit = false;
	uint64_t period = s->period ? s->period : 1, gen = 0, ref, jit;
	uint32_t nr = a->callchain ? (uint32_t)s->nr_callchain : 0;
	struct memo_slot *m = NULL;
	struct profile_task t;
	int32_t pid;
	size_t n;
	int err = task_of(a, s, &t);

	if (err < 0)
		return err;
	/* not the task's: an offcpu-runq sample's, who held its CPU (0 for the kernel's) */
	holder_facts(a, s->cpu_res, &t);
	if (a->admit && !a->admit(a->admit_ctx, &t))
		return 0;
	pid = t.pid;
	keep_only(a, &t);
	if (a->memo && nr <= MEMO_CHAIN) {
		gen = model__generation(a->res->model, true) + 1;
		m = memo_find(a, &t, pid, kernel, s, nr, gen, &hit);
		if (hit && profile__add_again(a->prof, m->ref, period) == 0) {
			a->last_ref = m->ref;
			return 1;
		}
	}
	jit = a->res->jit_lookups;
	if (a->res->jit)
		jitmap__at(a->res->jit, s->time);       /* a copied map is a lifetime's */
	n = resolver__stack(a->res, pid, s->misc, s->ip, s->callchain, s->nr_callchain, a->callchain, a->frames,
			    ARRAY_SIZE(a->frames));
	err = profile__add_ref(a->prof, &t, a->frames, n, period, &ref);
	a->last_ref = err == 0 ? ref : UINT64_MAX;
	if (err == 0 && m && jit == a->res->jit_lookups) {
		*m = (struct memo_slot){ .gen = gen, .prof = a->prof, .ref = ref, .t = t, .pid = pid,
					 .kernel = kernel, .nr = nr, .ip = s->ip };
		if (nr)
			memcpy(m->chain, s->callchain, nr * 8);
	}
	return err < 0 ? err : 1;
}
