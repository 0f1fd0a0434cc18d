// SPDX-License-Identifier: GPL-2.0-or-later
/* The access policy on history: a tenant sees their own samples and nothing of
 * anyone else's; windows pick coarse buckets inside and fine ones at the edges. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "prof/daemon/view.h"
#include "prof/offcpu/offcpu.h"
#include "hist.h"

struct world {
	struct history *h;
	uint32_t alice, bob, root, nobody_knows;        /* tasks */
	uint32_t s_user, s_kernel, s_secret;            /* stacks */
};

/* alice (1000) and bob (1001) run /bin/prog (public) and /opt/secret (mode 0711, root's);
 * root runs in the kernel; one task's uid is not known.  60 s of fine buckets. */
static void make_world(struct world *w)
{
	struct history_config c = hist_config();
	struct dict *d;

	cr_assert_eq(history__new(&c, &w->h), 0);
	history__lock(w->h);
	d = history__dict(w->h);
	w->alice = task_of(d, 1000, "alice-job", "/user.slice/user-1000.slice/a.scope");
	w->bob = task_of(d, 1001, "bob-job", "/user.slice/user-1001.slice/b.scope");
	w->root = task_of(d, 0, "kworker", NULL);
	w->nobody_knows = (uint32_t)dict__task(d, &(struct dict_task){ .comm = str_of(d, "ghost"),
								       .cgroup = DICT_NONE, .container = DICT_NONE });
	uint32_t user[2] = { frame_of(d, "/bin/prog", "hot", 0755, 0), frame_of(d, "/bin/prog", "main", 0755, 0) };
	uint32_t kern[4] = { frame_of(d, NULL, "clear_page", 0, 0), frame_of(d, NULL, "do_syscall_64", 0, 0), user[0],
			     user[1] };
	uint32_t secret[2] = { frame_of(d, "/opt/secret", "secret_fn", 0711, 0), user[1] };
	w->s_user = stack_of(d, user, 2);
	w->s_kernel = stack_of(d, kern, 4);
	w->s_secret = stack_of(d, secret, 2);
	history__unlock(w->h);
	struct bucket_entry e[] = {
		{ w->alice, w->s_user, 1, 10 }, { w->alice, w->s_kernel, 1, 10 }, { w->alice, w->s_secret, 1, 10 },
		{ w->bob, w->s_user, 2, 20 }, { w->root, w->s_kernel, 3, 30 }, { w->nobody_knows, w->s_user, 4, 40 },
	};
	for (uint64_t t = 1000; t < 1060; t++)
		cr_assert_geq(add_fine(w->h, t * SEC, e, sizeof(e) / sizeof(e[0])), 0);
}

static struct view_query window(uint64_t from, uint64_t until)
{
	return (struct view_query){ .from = from * SEC, .until = until * SEC };
}

static bool answer_has_text(const struct view_answer *a, const char *needle)
{
	for (size_t i = 0; i < dict__nr(a->dict, DICT_STR); i++)
		if (strstr(dict__text(a->dict, (uint32_t)i), needle))
			return true;
	return false;
}

Test(view, tenant_sees_only_their_own)
{
	struct world w;
	struct view_identity alice = { .uid = 1000 };
	struct view_query q = window(0, 2000);
	struct view_answer a;
	char err[256];

	make_world(&w);
	cr_assert_eq(view__build(w.h, &alice, &q, &a, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(a.c.samples, 3 * 60);
	cr_assert_eq(a.c.period, 30 * 60);
	for (size_t i = 0; i < a.entries.nr; i++)
		cr_assert_eq(dict__task_get(a.dict, a.entries.e[i].task)->uid, 1000);
	cr_assert(answer_has_text(&a, "alice-job"));
	cr_assert_not(answer_has_text(&a, "bob"));
	cr_assert_not(answer_has_text(&a, "kworker"));
	cr_assert_not(answer_has_text(&a, "ghost"));
	cr_assert_not(answer_has_text(&a, "user-1001"));
	/* rule 3: no kernel symbol; rule 4: nothing named from the object they cannot read */
	cr_assert_not(answer_has_text(&a, "clear_page"));
	cr_assert_not(answer_has_text(&a, "do_syscall_64"));
	cr_assert(answer_has_text(&a, "[kernel]"));
	cr_assert_not(answer_has_text(&a, "secret_fn"));
	cr_assert(answer_has_text(&a, "[unknown] (secret)"));
	view__release(&a);

	/* the kernel's part is one frame: [kernel], hot, main */
	alice.kernel = true;
	cr_assert_eq(view__build(w.h, &alice, &q, &a, err, sizeof(err)), 0);
	cr_assert(answer_has_text(&a, "do_syscall_64"));
	view__release(&a);
	history__free(w.h);
}

Test(view, another_uid_is_refused_naming_the_rule)
{
	struct world w;
	struct view_identity alice = { .uid = 1000 };
	struct view_query q = window(0, 2000);
	struct view_answer a;
	char err[256] = "";

	make_world(&w);
	q.uids[q.nr_uids++] = 1000;
	q.uids[q.nr_uids++] = 1001;
	cr_assert_eq(view__build(w.h, &alice, &q, &a, err, sizeof(err)), -EPERM);
	cr_assert(strstr(err, "uid 1001 is not yours"), "%s", err);
	cr_assert(strstr(err, "admin_group"), "%s", err);
	view__release(&a);
	history__free(w.h);
}

Test(view, admin_sees_all_and_selects)
{
	struct world w;
	struct view_identity root = { .uid = 0, .admin = true };
	struct view_query q = window(0, 2000);
	struct view_answer a;
	char err[256];

	make_world(&w);
	cr_assert_eq(view__build(w.h, &root, &q, &a, err, sizeof(err)), 0);
	cr_assert_eq(a.c.samples, 12 * 60);
	cr_assert(answer_has_text(&a, "clear_page"));
	cr_assert(answer_has_text(&a, "secret_fn"));
	cr_assert(answer_has_text(&a, "ghost"));
	view__release(&a);
	q.uids[q.nr_uids++] = 1001;
	cr_assert_eq(view__build(w.h, &root, &q, &a, err, sizeof(err)), 0);
	cr_assert_eq(a.c.samples, 2 * 60);
	view__release(&a);
	q = window(0, 2000);
	q.cgroups[q.nr_cgroups++] = "/user.slice/user-1000.slice";
	cr_assert_eq(view__build(w.h, &root, &q, &a, err, sizeof(err)), 0);
	cr_assert_eq(a.c.samples, 3 * 60);
	view__release(&a);
	q = window(0, 2000);
	q.comms[q.nr_comms++] = "bob-job";
	q.comms[q.nr_comms++] = "kworker";
	cr_assert_eq(view__build(w.h, &root, &q, &a, err, sizeof(err)), 0);
	cr_assert_eq(a.c.samples, 5 * 60);
	view__release(&a);
	history__free(w.h);
}

/* [1005, 1035): coarse [1010, 1020), [1020, 1030) inside, fine at both edges. */
Test(view, window_edges_from_fine_buckets)
{
	struct world w;
	struct view_identity root = { .admin = true };
	struct view_query q = window(1005, 1035);
	struct view_answer a;
	char err[256];

	make_world(&w);
	cr_assert_eq(view__build(w.h, &root, &q, &a, err, sizeof(err)), 0);
	cr_assert_eq(a.from, 1005 * SEC);
	cr_assert_eq(a.until, 1035 * SEC);
	cr_assert_eq(a.coarse, 2);
	cr_assert_eq(a.fine, 10);
	cr_assert_eq(a.c.samples, 12 * 30);
	view__release(&a);
	/* after the newest coarse bucket: fine ones only */
	q = window(1052, 1060);
	cr_assert_eq(view__build(w.h, &root, &q, &a, err, sizeof(err)), 0);
	cr_assert_eq(a.coarse, 0);
	cr_assert_eq(a.c.samples, 12 * 8);
	view__release(&a);
	history__free(w.h);
}

Test(view, max_stacks_cuts_per_tenant)
{
	struct world w;
	struct view_identity root = { .admin = true };
	struct view_query q = window(0, 2000);
	struct view_answer a;
	char err[256];

	make_world(&w);
	q.max_stacks = 2;
	cr_assert_eq(view__build(w.h, &root, &q, &a, err, sizeof(err)), 0);
	cr_assert_eq(a.c.samples, 12 * 60);                    /* totals stay exact */
	cr_assert_gt(a.c.cut_samples, 0);
	cr_assert_leq(a.entries.nr, 2 + 4);                   /* past the cap, one [cut] per task */
	uint64_t sum = 0;
	for (size_t i = 0; i < a.entries.nr; i++)
		sum += a.entries.e[i].samples;
	cr_assert_eq(sum, 12 * 60);
	view__release(&a);
	history__free(w.h);
}

/* Random tenants, random askers: no answer to a tenant holds another's task or name. */
Test(view, random_tenants_never_leak)
{
	struct history_config c = hist_config();
	struct history *h;
	char err[256], name[64];

	srand(18);
	cr_assert_eq(history__new(&c, &h), 0);
	for (uint64_t t = 0; t < 40; t++) {
		struct bucket_entry e[64];

		history__lock(h);
		for (int i = 0; i < 64; i++) {
			uint32_t uid = 1000 + (uint32_t)(rand() % 8);
			uint32_t f;

			snprintf(name, sizeof(name), "comm-of-%u", uid);
			e[i].task = task_of(history__dict(h), uid, name, NULL);
			snprintf(name, sizeof(name), "fn-of-%u-%d", uid, rand() % 5);
			f = frame_of(history__dict(h), "/usr/bin/x", name, 0755, 0);
			e[i].stack = stack_of(history__dict(h), &f, 1);
			e[i].samples = 1;
			e[i].period = 1;
		}
		history__unlock(h);
		add_fine(h, (100 + t) * SEC, e, 64);
	}
	for (int n = 0; n < 50; n++) {
		struct view_identity id = { .uid = 1000 + (uint32_t)(rand() % 10) };
		struct view_query q = window(100 + (uint64_t)(rand() % 20), 120 + (uint64_t)(rand() % 30));
		struct view_answer a;

		cr_assert_eq(view__build(h, &id, &q, &a, err, sizeof(err)), 0);
		for (size_t i = 0; i < a.entries.nr; i++)
			cr_assert_eq(dict__task_get(a.dict, a.entries.e[i].task)->uid, id.uid);
		for (uint32_t other = 1000; other < 1010; other++) {
			if (other == id.uid)
				continue;
			snprintf(name, sizeof(name), "-of-%u", other);
			cr_assert_not(answer_has_text(&a, name), "uid %u sees %s", id.uid, name);
		}
		view__release(&a);
	}
	history__free(h);
}

/* Off-CPU time: only when asked; holders by uid for admins, and for a tenant only
 * self (their own uid), other tenants, system, idle and [unknown]: no other uid. */
Test(view, off_cpu_holders_as_the_asker_may_know_them)
{
	struct history_config c = hist_config();
	struct view_identity alice = { .uid = 1000 }, bob = { .uid = 1001 }, root = { .uid = 0, .admin = true };
	struct view_query q = window(0, 2000);
	struct view_answer a;
	struct history *h;
	char err[256];
	uint32_t on, behind_bob, behind_self, behind_sys, blocked, bob_behind_alice, s;
	struct dict *d;

	cr_assert_eq(history__new(&c, &h), 0);
	history__lock(h);
	d = history__dict(h);
	on = task_of(d, 1000, "alice-job", NULL);
	struct dict_task t = *dict__task_get(d, on), u;
	u = t;
	u.flags |= DICT_TASK_RUNQ;
	u.holder = OFFCPU_HOLDER_UID + 1001;
	u.holder_cgroup_id = 4242;      /* the holder's cgroup: root's and the admins' only */
	u.holder_cgroup = str_of(d, "/user.slice/secret.scope");
	behind_bob = (uint32_t)dict__task(d, &u);
	u.holder_cgroup_id = 0;
	u.holder = OFFCPU_HOLDER_UID + 1000;
	behind_self = (uint32_t)dict__task(d, &u);
	u.holder = OFFCPU_HOLDER_SYSTEM;
	behind_sys = (uint32_t)dict__task(d, &u);
	u = t;
	u.flags |= DICT_TASK_BLOCKED;
	blocked = (uint32_t)dict__task(d, &u);
	u = *dict__task_get(d, task_of(d, 1001, "bob-job", NULL));
	u.flags |= DICT_TASK_RUNQ;
	u.holder = OFFCPU_HOLDER_UID + 1000;
	bob_behind_alice = (uint32_t)dict__task(d, &u);
	uint32_t f = frame_of(d, "/bin/prog", "hot", 0755, 0);
	s = stack_of(d, &f, 1);
	history__unlock(h);
	struct bucket_entry e[] = { { on, s, 1, 10 }, { behind_bob, s, 1, 200 }, { behind_self, s, 1, 30 },
				    { behind_sys, s, 1, 4 }, { blocked, s, 1, 5000 }, { bob_behind_alice, s, 1, 60000 } };
	cr_assert_geq(add_fine(h, 1000 * SEC, e, sizeof(e) / sizeof(e[0])), 0);

	/* not asked: on-CPU samples only, as before off-CPU */
	cr_assert_eq(view__build(h, &alice, &q, &a, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(a.c.period, 10);
	view__release(&a);

	q.off_cpu = true;
	cr_assert_eq(view__build(h, &alice, &q, &a, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(a.c.period, 10 + 200 + 30 + 4 + 5000);
	uint64_t by[32] = { 0 };
	for (size_t i = 0; i < a.entries.nr; i++) {
		const struct dict_task *x = dict__task_get(a.dict, a.entries.e[i].task);

		cr_assert_eq(x->uid, 1000);
		cr_assert_lt(x->holder, OFFCPU_HOLDER_UID, "a tenant's answer names holder %u", x->holder);
		by[x->holder] += a.entries.e[i].period;
	}
	cr_assert_eq(by[OFFCPU_HOLDER_OTHERS], 200);
	cr_assert_eq(by[OFFCPU_HOLDER_SELF], 30);
	cr_assert_eq(by[OFFCPU_HOLDER_SYSTEM], 4);
	cr_assert_eq(by[0], 10 + 5000);         /* on-CPU and blocked have none */
	for (size_t i = 0; i < dict__nr(a.dict, DICT_TASK); i++) {
		cr_assert_lt(dict__task_get(a.dict, (uint32_t)i)->holder, OFFCPU_HOLDER_UID);
		cr_assert_eq(dict__task_get(a.dict, (uint32_t)i)->holder_cgroup_id, 0, "a holder's cgroup to a tenant");
	}
	cr_assert_not(answer_has_text(&a, "bob"));
	cr_assert_not(answer_has_text(&a, "secret"));
	view__release(&a);

	/* bob: waited behind alice, told as other tenants */
	cr_assert_eq(view__build(h, &bob, &q, &a, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(a.entries.nr, 1);
	cr_assert_eq(dict__task_get(a.dict, a.entries.e[0].task)->holder, OFFCPU_HOLDER_OTHERS);
	cr_assert_not(answer_has_text(&a, "alice"));
	view__release(&a);

	/* root: by uid */
	cr_assert_eq(view__build(h, &root, &q, &a, err, sizeof(err)), 0, "%s", err);
	bool named = false, cg = false;
	for (size_t i = 0; i < a.entries.nr; i++) {
		const struct dict_task *x = dict__task_get(a.dict, a.entries.e[i].task);

		named |= x->holder == OFFCPU_HOLDER_UID + 1001;
		cg |= x->holder_cgroup_id == 4242 && !strcmp(dict__text(a.dict, x->holder_cgroup), "/user.slice/secret.scope");
	}
	cr_assert(named);
	cr_assert(cg, "root's answer keeps the holder's cgroup");
	view__release(&a);
	history__free(h);
}
