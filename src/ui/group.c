/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * prof ui's group and filter: a window's samples by what prof knows of their task
 * (the user, cgroup, container, comm, off-CPU holder), named by prof report's own
 * key text (keys__raw_text), so a group's row is prof report --sort KEY's row and a
 * filtered view is the samples of that row.  What a tenant may see is already
 * decided by what the source holds: a tenant's recording and profd's answer to a
 * tenant name no other tenant (holders are self, other tenants, system, idle).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof/analyze/attribution.h"
#include "prof/base/escape.h"
#include "prof/base/util.h"
#include "prof/output/keys.h"
#include "prof/ui/ui.h"

/* Whether task t's key text is value (a container: its id or its name). */
static bool task_matches(const struct profile_task *t, const struct model *m, const struct ui_filter *f)
{
	struct profile_row row = { .task = *t, .stack = UINT32_MAX };
	char buf[1024];
	const char *name, *id;

	keys__raw_text(&row, f->key, m, NULL, buf, sizeof(buf));
	if (!strcmp(buf, f->value))
		return true;
	if (f->key == PROFILE_KEY_UID && t->uid_known) {    /* a uid by its number too */
		snprintf(buf, sizeof(buf), "%u", t->uid);
		return !strcmp(buf, f->value);
	}
	if (f->key != PROFILE_KEY_CONTAINER && f->key != PROFILE_KEY_HOLDER_CONTAINER)
		return false;
	id = f->key == PROFILE_KEY_CONTAINER ? t->container : t->holder_container;
	name = m && id && id[0] ? model__container_name(m, id) : NULL;
	return name && !strcmp(name, f->value);
}

/* Entry e of p (its samples and period) into w.  0 or -ENOMEM. */
static int copy_entry(struct profile *w, const struct profile *p, const struct profile_entry *e)
{
	struct profile_frame frames[ATTRIBUTION_MAX_FRAMES];
	const struct profile_frame *all = profile__frames(p, &(size_t){ 0 });
	size_t n;
	const uint32_t *ids = profile__stack(p, e->stack, &n);
	uint64_t ref;
	int r;

	n = MIN(n, ARRAY_SIZE(frames));
	for (size_t k = 0; k < n; k++)
		frames[k] = all[ids[k]];
	/* the first sample carries the entry's period, the others none: the sums are p's */
	r = profile__add_ref(w, &e->task, frames, n, e->period, &ref);
	for (uint64_t i = 1; r == 0 && i < e->samples; i++)
		r = profile__add_again(w, ref, 0);
	for (uint64_t i = 1; r == 1 && i < e->samples; i++)
		r = profile__add(w, &e->task, frames, n, 0);
	return r < 0 ? -ENOMEM : 0;
}

int ui_filter__apply(const struct profile *p, const struct model *m, const struct ui_filter *f, size_t nr,
		     struct profile **ret)
{
	size_t nr_entries;
	const struct profile_entry *e = profile__entries(p, &nr_entries);
	struct profile *w = profile__new(PROFILE_UNLIMITED);

	if (!w)
		return -ENOMEM;
	for (size_t i = 0; i < nr_entries; i++) {
		bool ok = true;

		for (size_t k = 0; k < nr && ok; k++)
			ok = task_matches(&e[i].task, m, &f[k]);
		if (ok && copy_entry(w, p, &e[i]) < 0) {
			profile__free(w);
			return -ENOMEM;
		}
	}
	*ret = w;
	return 0;
}

int ui_render__group(const struct profile *p, const struct model *m, enum profile_key k, char **ret,
		     size_t *ret_len)
{
	bool key_on[PROFILE_KEY__MAX] = { false };
	_cleanup_free_ struct profile_row *rows = NULL;
	size_t nr;
	char buf[1024];
	const char *name;
	FILE *f;
	bool bad;
	int err;

	key_on[k] = true;
	err = profile__rows(p, key_on, false, &rows, &nr);
	if (err < 0)
		return err;
	*ret = NULL;
	f = open_memstream(ret, ret_len);
	if (!f)
		return -ENOMEM;
	fprintf(f, "{\"key\":\"%s\",\"total\":%" PRIu64 ",\"rows\":[", keys__name(k), profile__stats(p)->samples);
	for (size_t i = 0; i < nr; i++) {
		keys__raw_text(&rows[i], k, m, p, buf, sizeof(buf));
		fputs(i ? ",{\"value\":" : "{\"value\":", f);
		escape__json(f, buf, strlen(buf));
		name = NULL;
		if (m && k == PROFILE_KEY_CONTAINER && rows[i].task.container && rows[i].task.container[0])
			name = model__container_name(m, rows[i].task.container);
		if (m && k == PROFILE_KEY_HOLDER_CONTAINER && rows[i].task.holder_container &&
		    rows[i].task.holder_container[0])
			name = model__container_name(m, rows[i].task.holder_container);
		fputs(",\"name\":", f);
		if (name)
			escape__json(f, name, strlen(name));
		else
			fputs("null", f);
		fprintf(f, ",\"samples\":%" PRIu64 ",\"period\":%" PRIu64 "}", rows[i].samples, rows[i].period);
	}
	fputs("]}\n", f);
	bad = ferror(f);
	if (fclose(f) || bad) {
		free(*ret);
		*ret = NULL;
		return -ENOMEM;
	}
	return 0;
}
