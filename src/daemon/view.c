/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "prof/analyze/profile.h"
#include "prof/base/idmap.h"
#include "prof/base/util.h"
#include "prof/base/vec.h"
#include "prof/daemon/dict_import.h"
#include "prof/daemon/view.h"
#include "prof/offcpu/offcpu.h"

#define KERNEL_NAME "[kernel]"

struct build {
	struct history *h;
	const struct dict *d;           /* the history's */
	const struct view_identity *id;
	const struct view_query *q;
	struct view_answer *a;
	struct bucket **picked;
	size_t nr_picked, cap_picked;
	struct merge raw;               /* by the history's ids */
	struct idmap *task_ok;          /* history task -> 1 admitted, 2 not */
	struct idmap *stacks;           /* history stack -> answer stack + 1, with the rules */
	struct dict_import im;
	int64_t kernel_frame;           /* the answer's [kernel] frame, -1 until needed */
};

bool view__may_read(const struct view_identity *id, uint32_t mode, uint32_t uid, uint32_t gid)
{
	if (id->admin || (mode & S_IROTH))
		return true;
	if (uid == id->uid)
		return mode & S_IRUSR;
	for (size_t i = 0; i < id->nr_gids; i++)
		if (id->gids[i] == gid)
			return mode & S_IRGRP;
	return false;
}

/* ---- which buckets -------------------------------------------------------------- */

static int pick(struct build *b, struct bucket *bk, bool fine)
{
	struct view_answer *a = b->a;

	if (VEC_RESERVE(b->picked, b->cap_picked, b->nr_picked + 1) < 0)
		return -ENOMEM;
	b->picked[b->nr_picked++] = bk;
	a->from = a->coarse + a->fine ? MIN(a->from, bk->h.start_ns) : bk->h.start_ns;
	a->until = MAX(a->until, bk->h.end_ns);
	a->flags |= bk->h.flags;
	a->c.lost += bk->h.c.lost;
	a->c.unattributed += bk->h.c.unattributed;
	a->c.offcpu_window_ns += bk->h.c.offcpu_window_ns;
	*(fine ? &a->fine : &a->coarse) += 1;
	return 0;
}

static bool overlaps(const struct bucket *bk, uint64_t from, uint64_t until)
{
	return bk->h.end_ns > from && bk->h.start_ns < until;
}

/* The fine buckets of [start, end) that overlap the window. */
static int pick_fine(struct build *b, uint64_t start, uint64_t end)
{
	for (size_t i = 0; i < history__nr(b->h, true); i++) {
		struct bucket *f = history__at(b->h, true, i);

		if (f->h.start_ns >= start && f->h.start_ns < end && overlaps(f, b->q->from, b->q->until) &&
		    pick(b, f, true) < 0)
			return -ENOMEM;
	}
	return 0;
}

/*
 * Coarse buckets wholly inside the window; at its edges the fine buckets where the
 * fine ring still has the span, else the whole coarse bucket (the window widens);
 * after the newest coarse bucket, the fine ones.
 */
static int select_buckets(struct build *b)
{
	size_t nc = history__nr(b->h, false), nf = history__nr(b->h, true);
	uint64_t from = b->q->from, until = b->q->until;
	uint64_t fine_oldest = nf ? history__at(b->h, true, 0)->h.start_ns : UINT64_MAX;
	uint64_t coarse_end = nc ? history__at(b->h, false, nc - 1)->h.end_ns : 0;
	int err = 0;

	for (size_t i = 0; i < nc && !err; i++) {
		struct bucket *c = history__at(b->h, false, i);

		if (!overlaps(c, from, until))
			continue;
		if ((c->h.start_ns >= from && c->h.end_ns <= until) || fine_oldest > MAX(c->h.start_ns, from))
			err = pick(b, c, false);
		else
			err = pick_fine(b, c->h.start_ns, c->h.end_ns);
	}
	return err ? err : pick_fine(b, coarse_end, UINT64_MAX);
}

/* ---- which entries -------------------------------------------------------------- */

static bool cgroup_matches(const char *path, const char *want)
{
	size_t l = strlen(want);

	while (l > 1 && want[l - 1] == '/')
		l--;
	if (l == 1 && want[0] == '/')
		return true;
	return !strncmp(path, want, l) && (path[l] == '\0' || path[l] == '/');
}

static bool any_equal(const char *s, const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s, v[i]))
			return true;
	return false;
}

/* Rules 1 and 2 for one task of the history (the uid range was chosen already). */
static bool admits(const struct build *b, const struct dict_task *t)
{
	const struct view_query *q = b->q;
	bool in = !q->nr_cgroups;

	if (!b->id->admin && (!(t->flags & DICT_TASK_UID_KNOWN) || t->uid != b->id->uid))
		return false;
	if (!q->off_cpu && (t->flags & (DICT_TASK_RUNQ | DICT_TASK_BLOCKED)))
		return false;
	for (size_t i = 0; i < q->nr_cgroups && !in; i++)
		in = t->cgroup != DICT_NONE && cgroup_matches(dict__text(b->d, t->cgroup), q->cgroups[i]);
	if (!in)
		return false;
	if (q->nr_comms && !any_equal(dict__text(b->d, t->comm), q->comms, q->nr_comms))
		return false;
	return !q->nr_containers || any_equal(dict__text(b->d, t->container), q->containers, q->nr_containers);
}

static int task_admitted(struct build *b, uint32_t task)
{
	uint32_t v;

	if (idmap__get(b->task_ok, task, &v))
		return v == 1;
	v = admits(b, dict__task_get(b->d, task)) ? 1 : 2;
	return idmap__set(b->task_ok, task, v) < 0 ? -ENOMEM : v == 1;
}

static int scan_range(struct build *b, const struct bucket *bk, size_t first, size_t end)
{
	for (size_t i = first; i < end; i++) {
		const struct bucket_entry *e = &bk->e[i];
		int in = task_admitted(b, e->task);

		if (in < 0 || (in && merge__add(&b->raw, e->task, e->stack, e->samples, e->period) < 0))
			return -ENOMEM;
	}
	return 0;
}

/* The picked buckets' entries this asker may see and asked for, by history ids. */
static int scan(struct build *b)
{
	size_t first, end;
	int err = 0;

	for (size_t i = 0; i < b->nr_picked && !err; i++) {
		const struct bucket *bk = b->picked[i];

		if (!b->id->admin) {
			bucket__uid_range(bk, b->d, true, b->id->uid, &first, &end);
			err = scan_range(b, bk, first, end);
		} else if (b->q->nr_uids) {
			for (size_t u = 0; u < b->q->nr_uids && !err; u++) {
				bucket__uid_range(bk, b->d, true, b->q->uids[u], &first, &end);
				err = scan_range(b, bk, first, end);
			}
		} else {
			err = scan_range(b, bk, 0, bk->nr);
		}
	}
	return err;
}

/* ---- into the answer's dictionary, with the rules ---------------------------------- */

static int64_t intern_frame(struct dict *d, const char *obj, enum dict_obj_kind kind, const char *sym,
			    uint32_t flags)
{
	int64_t o = dict__str(d, obj, strlen(obj)), s;

	if (o >= 0)
		o = dict__obj(d, &(struct dict_obj){ .path = (uint32_t)o, .kind = (uint8_t)kind });
	s = o < 0 ? o : dict__str(d, sym, strlen(sym));
	if (s < 0)
		return s;
	return dict__frame(d, &(struct dict_frame){ .obj = (uint32_t)o, .sym = (uint32_t)s, .flags = flags });
}

/* Rule 4: a frame of an object the asker could not read, without its name. */
static int64_t unreadable_frame(struct build *b, const struct dict_frame *f)
{
	const char *path = dict__text(b->d, dict__obj_get(b->d, f->obj)->path), *slash = strrchr(path, '/');
	char name[DICT_MAX_STR + 16];
	int64_t obj = dict_import__obj(&b->im, f->obj), sym;

	snprintf(name, sizeof(name), "[unknown] (%s)", slash && slash[1] ? slash + 1 : path);
	sym = obj < 0 ? obj : dict__str(b->a->dict, name, strlen(name));
	if (sym < 0)
		return sym;
	return dict__frame(b->a->dict, &(struct dict_frame){ .obj = (uint32_t)obj, .sym = (uint32_t)sym,
							     .flags = f->flags & ~DICT_FRAME_HAS_ADDR });
}

/* One frame under rules 3 and 4: its answer id, or DICT_NONE to leave it out. */
static int64_t frame_for(struct build *b, uint32_t fid, bool *in_kernel)
{
	const struct dict_frame *f = dict__frame_get(b->d, fid);
	const struct dict_obj *o = dict__obj_get(b->d, f->obj);
	bool was = *in_kernel;

	*in_kernel = (f->flags & DICT_FRAME_KERNEL) && !b->id->kernel;
	if (*in_kernel) {
		if (was)
			return DICT_NONE;       /* one [kernel] frame for the whole kernel part */
		if (b->kernel_frame < 0)
			b->kernel_frame = intern_frame(b->a->dict, KERNEL_NAME, DICT_OBJ_KERNEL, KERNEL_NAME,
						       DICT_FRAME_KERNEL);
		return b->kernel_frame;
	}
	if (o->kind == DICT_OBJ_FILE && !(o->has_stat && view__may_read(b->id, o->mode, o->uid, o->gid)))
		return unreadable_frame(b, f);
	return dict_import__frame(&b->im, fid);
}

static int64_t stack_for(struct build *b, uint32_t sid)
{
	uint32_t ids[DICT_MAX_STACK], v;
	const uint32_t *src;
	bool in_kernel = false;
	size_t nr, n = 0;
	int64_t id;

	if (b->id->admin)
		return dict_import__stack(&b->im, sid);
	if (idmap__get(b->stacks, sid, &v))
		return v;
	src = dict__stack_get(b->d, sid, &nr);
	for (size_t i = 0; i < nr; i++) {
		int64_t f = frame_for(b, src[i], &in_kernel);

		if (f < 0)
			return f;
		if (f != DICT_NONE)
			ids[n++] = (uint32_t)f;
	}
	id = dict__stack(b->a->dict, ids, n);
	if (id >= 0 && idmap__set(b->stacks, sid, (uint32_t)id) < 0)
		return -ENOMEM;
	return id;
}

/* Is this the history's [cut] stack (samples its caps did not keep apart)? */
static bool is_cut(const struct build *b, uint32_t sid)
{
	size_t nr;
	const uint32_t *f = dict__stack_get(b->d, sid, &nr);

	return nr == 1 && !strcmp(dict__text(b->d, dict__frame_get(b->d, f[0])->sym), PROFILE_CUT_SYM) &&
	       dict__obj_get(b->d, dict__frame_get(b->d, f[0])->obj)->kind == DICT_OBJ_OTHER;
}

/* The answer's [cut] entry for an answer task (past max_stacks). */
static int answer_cut(void *ctx, uint32_t task, uint32_t *ret_task, uint32_t *ret_stack)
{
	struct view_answer *a = ctx;
	struct dict_task t = *dict__task_get(a->dict, task);
	int64_t frame = intern_frame(a->dict, PROFILE_CUT_SYM, DICT_OBJ_OTHER, PROFILE_CUT_SYM, 0), stack, name, id;
	uint32_t fid = (uint32_t)frame;

	if (frame < 0)
		return (int)frame;
	stack = dict__stack(a->dict, &fid, 1);
	name = stack < 0 ? stack : dict__str(a->dict, PROFILE_CUT_SYM, strlen(PROFILE_CUT_SYM));
	t = (struct dict_task){ .uid = t.uid, .flags = t.flags, .cgroup = DICT_NONE, .container = DICT_NONE,
				.comm = (uint32_t)name, .holder = t.holder, .holder_cgroup_id = t.holder_cgroup_id,
				.holder_cgroup = t.holder_cgroup };
	id = name < 0 ? name : dict__task(a->dict, &t);
	if (id < 0)
		return (int)id;
	*ret_task = (uint32_t)id;
	*ret_stack = (uint32_t)stack;
	return 0;
}

/*
 * Rule 6: who held the CPU, as the asker may know it.  History names holders by uid
 * (and cgroup); someone who is not an admin gets "self" for their own uid and "other
 * tenants" for any other (system, idle and [unknown] as they are), and no holder's
 * cgroup, so no other uid or cgroup enters.
 */
static uint32_t holder_for(const struct build *b, uint32_t holder)
{
	if (b->id->admin || holder < OFFCPU_HOLDER_UID)
		return holder;
	return holder - OFFCPU_HOLDER_UID == b->id->uid ? OFFCPU_HOLDER_SELF : OFFCPU_HOLDER_OTHERS;
}

static int64_t task_for(struct build *b, uint32_t task)
{
	struct dict_task t = *dict__task_get(b->d, task);
	int64_t cg, ct, comm;

	if (holder_for(b, t.holder) == t.holder && (b->id->admin || !t.holder_cgroup_id))
		return dict_import__task(&b->im, task);
	/* not the history's task: its holder would name another uid or cgroup in the answer */
	cg = dict_import__str(&b->im, t.cgroup);
	ct = cg < 0 ? cg : dict_import__str(&b->im, t.container);
	comm = ct < 0 ? ct : dict_import__str(&b->im, t.comm);
	if (comm < 0)
		return comm;
	t.cgroup = (uint32_t)cg;
	t.container = (uint32_t)ct;
	t.comm = (uint32_t)comm;
	t.holder = holder_for(b, t.holder);
	t.holder_cgroup_id = 0;         /* (not an admin's answer) */
	return dict__task(b->a->dict, &t);
}

static int translate(struct build *b)
{
	struct view_answer *a = b->a;

	for (size_t i = 0; i < b->raw.nr; i++) {
		const struct bucket_entry *e = &b->raw.e[i];
		int64_t t = task_for(b, e->task), s = t < 0 ? t : stack_for(b, e->stack);
		int r;

		if (s < 0)
			return (int)s;
		r = merge__add(&a->entries, (uint32_t)t, (uint32_t)s, e->samples, e->period);
		if (r < 0)
			return r;
		a->c.samples += e->samples;
		a->c.period += e->period;
		if (is_cut(b, e->stack)) {
			a->c.cut_samples += e->samples;
			a->c.cut_period += e->period;
		}
	}
	a->c.cut_samples += a->entries.cut_samples;
	a->c.cut_period += a->entries.cut_period;
	return 0;
}

/* ---- the whole -------------------------------------------------------------------- */

/* Rule 1 before anything is read: another uid is refused, naming the rule. */
static int check(const struct view_identity *id, const struct view_query *q, char *err, size_t errlen)
{
	if (id->admin)
		return 0;
	for (size_t i = 0; i < q->nr_uids; i++)
		if (q->uids[i] != id->uid) {
			errorf(err, errlen, "policy: uid %u is not yours (you are uid %u); only root and members of "
			       "the admin group ([policy] admin_group) may see other users' samples", q->uids[i], id->uid);
			return -EPERM;
		}
	return 0;
}

int view__build(struct history *h, const struct view_identity *id, const struct view_query *q,
		struct view_answer *ret, char *err, size_t errlen)
{
	struct build b = { .h = h, .id = id, .q = q, .a = ret, .kernel_frame = -1 };
	int e;

	*ret = (struct view_answer){ .dict = dict__new() };
	merge__init(&ret->entries, q->max_stacks ? q->max_stacks : PROFILE_DEFAULT_MAX_ENTRIES, answer_cut, ret);
	e = check(id, q, err, errlen);
	if (e < 0)
		return e;
	merge__init(&b.raw, 0, NULL, NULL);
	b.task_ok = idmap__new();
	b.stacks = idmap__new();
	if (!ret->dict || !b.task_ok || !b.stacks) {
		e = -ENOMEM;
		goto out;
	}
	history__rlock(h);
	b.d = history__dict(h);
	dict_import__init(&b.im, b.d, ret->dict);
	e = select_buckets(&b);
	if (!e)
		e = scan(&b);
	if (!e)
		e = translate(&b);
	{
		struct history_stats st;

		history__stats(h, &st);
		if (st.evicted_before > q->from)
			ret->evicted_before = st.evicted_before;
	}
	history__runlock(h);
	dict_import__release(&b.im);
	if (e < 0)
		errorf(err, errlen, "out of memory building the answer");
out:
	merge__release(&b.raw);
	idmap__free(b.task_ok);
	idmap__free(b.stacks);
	free(b.picked);
	return e;
}

void view__release(struct view_answer *a)
{
	merge__release(&a->entries);
	a->dict = dict__free(a->dict);
}
