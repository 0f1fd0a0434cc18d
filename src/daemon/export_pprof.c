/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof/base/util.h"
#include "prof/base/vec.h"
#include "prof/daemon/export_pprof.h"
#include "prof/output/pprof.h"
#include "prof/perfdata/build_id.h"
#include "prof/sys/users.h"

struct src {
	const struct view_answer *a;
	const struct export_pprof_opts *o;
	uint32_t stack[DICT_MAX_STACK];
	struct pprof_label labels[6];   /* user, uid, cgroup, unit, container, comm */
	char uid_text[16], unit[256], hex[2 * 20 + 1];
	struct users users;             /* names of the uids seen, each looked up once */
	char uid_name[16];
};

/* The user's name, else the number (a label must say whom). */
static const char *user_of(struct src *s, uint32_t uid)
{
	const struct user_entry *e = users__get(&s->users, uid);

	if (e->found)
		return e->name;
	snprintf(s->uid_name, sizeof(s->uid_name), "%" PRIu32, uid);
	return s->uid_name;
}

void export_pprof__unit(const char *cgroup, char *buf, size_t len)
{
	const char *best = NULL, *p = cgroup;
	size_t best_len = 0;

	buf[0] = '\0';
	while (p && *p) {
		const char *end;
		size_t n;

		while (*p == '/')
			p++;
		end = strchr(p, '/');
		n = end ? (size_t)(end - p) : strlen(p);
		if ((n > 8 && !memcmp(p + n - 8, ".service", 8)) || (n > 6 && !memcmp(p + n - 6, ".scope", 6))) {
			best = p;
			best_len = n;
		}
		p = end;
	}
	if (best && best_len < len) {
		memcpy(buf, best, best_len);
		buf[best_len] = '\0';
	}
}

static void loc(void *ctx, uint32_t i, struct pprof_loc *ret)
{
	struct src *s = ctx;
	const struct dict *d = s->a->dict;
	const struct dict_frame *f = dict__frame_get(d, i);
	const struct dict_obj *ob = dict__obj_get(d, f->obj);
	const char *sym = dict__text(d, f->sym);
	bool has_addr = f->flags & DICT_FRAME_HAS_ADDR;

	struct build_id bid = { .size = (uint8_t)MIN((size_t)ob->build_id_len, sizeof(ob->build_id)) };

	memcpy(bid.data, ob->build_id, bid.size);
	build_id__hex(&bid, s->hex, sizeof(s->hex));
	/* the daemon keeps no file offsets: the fake mapping (addresses are the object's) */
	*ret = (struct pprof_loc){ .obj = dict__text(d, ob->path), .build_id = s->hex, .sym = sym,
				   .has_addr = has_addr, .addr = f->addr };
	if (has_addr && !strncmp(sym, "[unknown]", 9))
		ret->sym = NULL;        /* the backend may name it, by the build id */
}

static bool in_series(const struct dict *d, const struct dict_task *t, const struct export_series *se)
{
	bool known = t->flags & DICT_TASK_UID_KNOWN;

	return known == se->uid_known && (!known || t->uid == se->uid) &&
	       !strcmp(t->cgroup == DICT_NONE ? "" : dict__text(d, t->cgroup), se->cgroup) &&
	       !strcmp(dict__text(d, t->container), se->container);
}

static bool sample(void *ctx, size_t i, struct pprof_sample *ret)
{
	struct src *s = ctx;
	const struct dict *d = s->a->dict;
	const struct bucket_entry *e = &s->a->entries.e[i];
	const struct dict_task *t = dict__task_get(d, e->task);
	const char *cg = t->cgroup == DICT_NONE ? "" : dict__text(d, t->cgroup), *ct = dict__text(d, t->container);
	const uint32_t *ids;
	size_t n, nl = 0;

	if (s->o->series && !in_series(d, t, s->o->series))
		return false;
	ids = dict__stack_get(d, e->stack, &n);
	n = MIN(n, (size_t)DICT_MAX_STACK);
	memcpy(s->stack, ids, n * sizeof(*ids));
	if (s->o->labels) {
		if (t->flags & DICT_TASK_UID_KNOWN) {
			snprintf(s->uid_text, sizeof(s->uid_text), "%" PRIu32, t->uid);
			s->labels[nl++] = (struct pprof_label){ .key = "user", .str = user_of(s, t->uid) };
			s->labels[nl++] = (struct pprof_label){ .key = "uid", .str = s->uid_text };
		}
		if (cg[0]) {
			s->labels[nl++] = (struct pprof_label){ .key = "cgroup", .str = cg };
			export_pprof__unit(cg, s->unit, sizeof(s->unit));
			if (s->unit[0])
				s->labels[nl++] = (struct pprof_label){ .key = "unit", .str = s->unit };
		}
		if (ct[0])
			s->labels[nl++] = (struct pprof_label){ .key = "container", .str = ct };
		s->labels[nl++] = (struct pprof_label){ .key = "comm", .str = dict__text(d, t->comm) };
	}
	*ret = (struct pprof_sample){ .locs = s->stack, .nr = n, .samples = e->samples, .period = e->period,
				      .labels = s->labels, .nr_labels = nl };
	return true;
}

int export_pprof__build(const struct view_answer *a, const struct export_pprof_opts *o, uint8_t **ret,
			size_t *ret_len)
{
	struct src *s = calloc(1, sizeof(*s));
	struct pprof_meta m = { .event = o->event, .time_period = o->time_period, .period = (int64_t)o->period,
				.time_ns = (int64_t)o->from,
				.duration_ns = o->until > o->from ? (int64_t)(o->until - o->from) : 0,
				.comments = { o->comment } };
	struct pprof_source src = { .nr_locs = dict__nr(a->dict, DICT_FRAME), .nr_samples = a->entries.nr,
				    .loc = loc, .sample = sample, .main_loc = -1 };
	int err;

	if (!s)
		return -ENOMEM;
	*s = (struct src){ .a = a, .o = o };
	src.ctx = s;
	err = pprof__encode(&src, &m, ret, ret_len);
	free(s);
	return err;
}

int export_pprof__series(const struct view_answer *a, struct export_series **ret, size_t *ret_nr)
{
	const struct dict *d = a->dict;
	struct export_series *v = NULL;
	size_t nr = 0, cap = 0;

	for (size_t i = 0; i < a->entries.nr; i++) {
		const struct bucket_entry *e = &a->entries.e[i];
		const struct dict_task *t = dict__task_get(d, e->task);
		struct export_series se = { .uid_known = t->flags & DICT_TASK_UID_KNOWN, .uid = t->uid,
					    .cgroup = t->cgroup == DICT_NONE ? "" : dict__text(d, t->cgroup),
					    .container = dict__text(d, t->container) };
		size_t k;

		if (!se.uid_known)
			se.uid = 0;
		for (k = 0; k < nr; k++)
			if (v[k].uid_known == se.uid_known && v[k].uid == se.uid && !strcmp(v[k].cgroup, se.cgroup) &&
			    !strcmp(v[k].container, se.container))
				break;
		if (k == nr) {
			if (VEC_RESERVE(v, cap, nr + 1) < 0) {
				free(v);
				return -ENOMEM;
			}
			v[nr++] = se;
		}
		v[k].samples += e->samples;
	}
	*ret = v;
	*ret_nr = nr;
	return 0;
}
