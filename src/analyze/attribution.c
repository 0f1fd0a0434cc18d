/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>

#include "prof/analyze/attribution.h"
#include "prof/base/hash.h"
#include "prof/base/util.h"

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

void attribution__keep_only(struct attribution *a, const enum profile_key *keys, size_t nr)
{
	for (size_t k = 0; k < PROFILE_KEY__MAX; k++)
		a->keep[k] = false;
	for (size_t i = 0; i < nr; i++)
		a->keep[keys[i]] = true;
}

int attribution__add(struct attribution *a, const struct sample *s)
{
	struct profile_task t;
	size_t n;
	int err = task_of(a, s, &t);

	if (err < 0)
		return err;
	if (a->admit && !a->admit(a->admit_ctx, &t))
		return 0;
	n = resolver__stack(a->res, t.pid, s->misc, s->ip, s->callchain, s->nr_callchain, a->callchain, a->frames,
			    ARRAY_SIZE(a->frames));
	if (!a->keep[PROFILE_KEY_PID])
		t.pid = 0;
	if (!a->keep[PROFILE_KEY_UID])
		t.uid = 0, t.uid_known = false;
	if (!a->keep[PROFILE_KEY_CGROUP])
		t.cgroup = 0;
	if (!a->keep[PROFILE_KEY_CONTAINER])
		t.container = NULL;
	if (!a->keep[PROFILE_KEY_COMM])
		t.comm = NULL;
	err = profile__add(a->prof, &t, a->frames, n, s->period ? s->period : 1);
	return err < 0 ? err : 1;
}
