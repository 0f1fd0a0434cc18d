/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perf/event.h>

#include "prof/base/idmap.h"
#include "prof/analyze/model.h"
#include "prof/scope/task_table.h"
#include "prof/base/util.h"

struct map {
	uint64_t start, end, pgoff;
	uint32_t dso;
};

struct mapset {
	struct map *m;
	size_t nr, cap;
};

struct model {
	struct task_table *threads;     /* tid -> pid, comm */
	struct idmap *proc;             /* pid -> index in sets (+1: 0 is the kernel) */
	struct mapset *sets;
	size_t nr_sets, cap_sets;
	struct model_dso *dsos;
	size_t nr_dsos, cap_dsos;
	struct idmap *dso_by_hash;      /* name hash -> dso index (collisions checked) */
	struct idmap *uids;             /* tid -> uid */
	struct idmap *cgroup_idx;       /* cgroup id -> index in cgroups */
	char **cgroups;
	size_t nr_cgroups, cap_cgroups;
	char kref_name[32];
	uint64_t kref_addr;
};

struct model *model__new(void)
{
	struct model *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->threads = task_table__new();
	m->proc = idmap__new();
	m->dso_by_hash = idmap__new();
	m->uids = idmap__new();
	m->cgroup_idx = idmap__new();
	m->sets = calloc(1, sizeof(*m->sets));          /* set 0: the kernel */
	if (!m->threads || !m->proc || !m->dso_by_hash || !m->uids || !m->cgroup_idx || !m->sets)
		return model__free(m);
	m->nr_sets = m->cap_sets = 1;
	return m;
}

struct model *model__free(struct model *m)
{
	if (!m)
		return NULL;
	for (size_t i = 0; i < m->nr_sets; i++)
		free(m->sets[i].m);
	free(m->sets);
	for (size_t i = 0; i < m->nr_dsos; i++)
		free(m->dsos[i].name);
	free(m->dsos);
	for (size_t i = 0; i < m->nr_cgroups; i++)
		free(m->cgroups[i]);
	free(m->cgroups);
	task_table__free(m->threads);
	idmap__free(m->proc);
	idmap__free(m->dso_by_hash);
	idmap__free(m->uids);
	idmap__free(m->cgroup_idx);
	free(m);
	return NULL;
}

static int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t ncap = MAX(*cap * 2, MAX(need, 16));
	void *n = realloc(*arr, ncap * elem);
	if (!n)
		return -ENOMEM;
	*arr = n;
	*cap = ncap;
	return 0;
}

static int dso_index(struct model *m, const char *name, bool kernel, const uint8_t *bid, size_t bid_len,
		     uint32_t *ret)
{
	uint64_t h = hash_bytes(name, strlen(name));
	uint32_t idx;

	/* open addressing on the hash: probe h, h+1, ... until the name matches */
	for (uint64_t k = h;; k++) {
		if (!idmap__get(m->dso_by_hash, k, &idx))
			break;
		if (!strcmp(m->dsos[idx].name, name)) {
			if (bid_len && !m->dsos[idx].build_id_len) {
				memcpy(m->dsos[idx].build_id, bid, MIN(bid_len, 20));
				m->dsos[idx].build_id_len = (uint8_t)MIN(bid_len, 20);
			}
			*ret = idx;
			return 0;
		}
		h = k + 1;
	}
	if (grow((void **)&m->dsos, &m->cap_dsos, m->nr_dsos + 1, sizeof(*m->dsos)) < 0)
		return -ENOMEM;
	struct model_dso *d = &m->dsos[m->nr_dsos];
	memset(d, 0, sizeof(*d));
	d->name = strdup(name);
	if (!d->name)
		return -ENOMEM;
	d->kernel = kernel;
	if (bid_len) {
		memcpy(d->build_id, bid, MIN(bid_len, 20));
		d->build_id_len = (uint8_t)MIN(bid_len, 20);
	}
	if (idmap__set(m->dso_by_hash, h, (uint32_t)m->nr_dsos) < 0)
		return -ENOMEM;
	*ret = (uint32_t)m->nr_dsos++;
	return 0;
}

/* The map set of pid, created when missing (empty). */
static struct mapset *set_of(struct model *m, int32_t pid, bool create)
{
	uint32_t idx;

	if (pid < 0)
		return &m->sets[0];
	if (idmap__get(m->proc, (uint64_t)(uint32_t)pid, &idx))
		return &m->sets[idx];
	if (!create)
		return NULL;
	if (grow((void **)&m->sets, &m->cap_sets, m->nr_sets + 1, sizeof(*m->sets)) < 0)
		return NULL;
	memset(&m->sets[m->nr_sets], 0, sizeof(m->sets[0]));
	if (idmap__set(m->proc, (uint64_t)(uint32_t)pid, (uint32_t)m->nr_sets) < 0)
		return NULL;
	return &m->sets[m->nr_sets++];
}

/* Insert a map, cutting away what it overlaps (a new mapping replaces the old). */
static int map_insert(struct mapset *s, struct map nm)
{
	size_t w = 0, i;

	if (nm.end <= nm.start)
		return 0;
	if (grow((void **)&s->m, &s->cap, s->nr + 2, sizeof(*s->m)) < 0)
		return -ENOMEM;
	/* keep non-overlapping parts; at most one map is split in two */
	struct map split = { 0 };
	bool has_split = false;
	for (i = 0; i < s->nr; i++) {
		struct map o = s->m[i];
		if (o.end <= nm.start || o.start >= nm.end) {
			s->m[w++] = o;
			continue;
		}
		if (o.start < nm.start && o.end > nm.end) {
			split = o;
			split.pgoff += nm.end - o.start;
			split.start = nm.end;
			has_split = true;
		}
		if (o.start < nm.start) {
			o.end = nm.start;
			s->m[w++] = o;
		} else if (o.end > nm.end) {
			o.pgoff += nm.end - o.start;
			o.start = nm.end;
			s->m[w++] = o;
		}
	}
	s->nr = w;
	s->m[s->nr++] = nm;
	if (has_split)
		s->m[s->nr++] = split;
	/* keep sorted by start: insertion of the (at most two) new entries */
	for (size_t k = s->nr - (has_split ? 2 : 1); k < s->nr; k++) {
		struct map x = s->m[k];
		size_t j = k;
		while (j > 0 && s->m[j - 1].start > x.start) {
			s->m[j] = s->m[j - 1];
			j--;
		}
		s->m[j] = x;
	}
	return 0;
}

static struct task *thread_get(struct model *m, int32_t tid, int32_t pid)
{
	bool created;
	struct task *t = task_table__get(m->threads, tid, &created);

	if (t && created)
		t->pid = pid;
	return t;
}

static int on_comm(struct model *m, const struct perf_record_comm *c, const struct perf_event_header *ev)
{
	size_t max = ev->size - offsetof(struct perf_record_comm, comm);
	struct task *t = thread_get(m, (int32_t)c->tid, (int32_t)c->pid);

	if (!t)
		return -ENOMEM;
	t->pid = (int32_t)c->pid;
	memset(t->comm, 0, sizeof(t->comm));
	memcpy(t->comm, c->comm, strnlen(c->comm, MIN(max, sizeof(t->comm) - 1)));
	/* exec keeps the maps: the new image's own maps replace what they overlap, as in
	 * perf, and maps read from /proc may have been stamped before the exec */
	return 0;
}

static int on_fork(struct model *m, const struct perf_record_fork *f)
{
	struct task *p = task_table__find(m->threads, (int32_t)f->ptid), *c;
	char comm[16] = "";

	if (p)
		memcpy(comm, p->comm, sizeof(comm));
	task_table__remove(m->threads, (int32_t)f->tid);
	c = thread_get(m, (int32_t)f->tid, (int32_t)f->pid);
	if (!c)
		return -ENOMEM;
	memcpy(c->comm, comm, sizeof(comm));
	if (f->pid != f->ppid) {
		/* a new process starts with a copy of its parent's maps */
		struct mapset *ps = set_of(m, (int32_t)f->ppid, false), *cs;
		size_t nr = ps ? ps->nr : 0;
		struct map *copy = nr ? malloc(nr * sizeof(*copy)) : NULL;

		if (nr && !copy)
			return -ENOMEM;
		if (nr)
			memcpy(copy, ps->m, nr * sizeof(*copy));
		cs = set_of(m, (int32_t)f->pid, true);  /* may move ps */
		if (!cs) {
			free(copy);
			return -ENOMEM;
		}
		free(cs->m);
		cs->m = copy;
		cs->nr = cs->cap = nr;
	}
	return 0;
}

static int on_mmap(struct model *m, const struct perf_event_header *ev)
{
	const struct perf_record_mmap2 *m2 = (const void *)ev;
	const struct perf_record_mmap *m1 = (const void *)ev;
	bool kernel = (ev->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
	const char *fn;
	size_t max;
	char name[4096];
	const uint8_t *bid = NULL;
	size_t bid_len = 0;
	struct map nm;
	struct mapset *s;
	uint32_t dso;
	int32_t pid;

	if (ev->type == PERF_RECORD_MMAP2) {
		fn = m2->filename;
		max = ev->size - offsetof(struct perf_record_mmap2, filename);
		nm = (struct map){ m2->start, m2->start + m2->len, m2->pgoff, 0 };
		pid = (int32_t)m2->pid;
		if ((ev->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) && m2->build_id_size <= 20) {
			bid = m2->build_id;
			bid_len = m2->build_id_size;
		}
	} else {
		fn = m1->filename;
		max = ev->size - offsetof(struct perf_record_mmap, filename);
		nm = (struct map){ m1->start, m1->start + m1->len, m1->pgoff, 0 };
		pid = (int32_t)m1->pid;
	}
	if (nm.end < nm.start)
		nm.end = UINT64_MAX;    /* the kernel map: up to the top */
	max = MIN(max, sizeof(name) - 1);
	memcpy(name, fn, strnlen(fn, max));
	name[strnlen(fn, max)] = '\0';
	if (kernel && !strncmp(name, "[kernel.kallsyms]", 17)) {
		/* "[kernel.kallsyms]_text": the suffix names the reference symbol at pgoff */
		snprintf(m->kref_name, sizeof(m->kref_name), "%.*s", (int)sizeof(m->kref_name) - 1, name + 17);
		m->kref_addr = nm.pgoff;
		name[17] = '\0';
	}
	if (dso_index(m, name, kernel, bid, bid_len, &dso) < 0)
		return -ENOMEM;
	nm.dso = dso;
	s = set_of(m, kernel ? -1 : pid, true);
	if (!s)
		return -ENOMEM;
	return map_insert(s, nm);
}

static int on_cgroup(struct model *m, const struct perf_record_cgroup *c, const struct perf_event_header *ev)
{
	size_t max = ev->size - offsetof(struct perf_record_cgroup, path);
	char *path;

	if (grow((void **)&m->cgroups, &m->cap_cgroups, m->nr_cgroups + 1, sizeof(*m->cgroups)) < 0)
		return -ENOMEM;
	path = strndup(c->path, max);
	if (!path)
		return -ENOMEM;
	m->cgroups[m->nr_cgroups] = path;
	if (idmap__set(m->cgroup_idx, c->id, (uint32_t)m->nr_cgroups) < 0)
		return -ENOMEM;
	m->nr_cgroups++;
	return 0;
}

int model__process(struct model *m, const struct perf_event_header *ev)
{
	switch (ev->type) {
	case PERF_RECORD_COMM:
		return on_comm(m, (const void *)ev, ev);
	case PERF_RECORD_FORK:
		return on_fork(m, (const void *)ev);
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return on_mmap(m, ev);
	case PERF_RECORD_CGROUP:
		return on_cgroup(m, (const void *)ev, ev);
	default:
		/* EXIT: a thread's last samples may follow it; pid reuse comes with a FORK */
		return 0;
	}
}

void model__load_prof_section(struct model *m, const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		char line[256];
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		int pid, tid;
		unsigned int uid;

		snprintf(line, sizeof(line), "%.*s", (int)MIN(l, sizeof(line) - 1), p);
		if (sscanf(line, "task %d %d %u", &pid, &tid, &uid) == 3)
			idmap__set(m->uids, (uint64_t)(uint32_t)tid, uid);
		p = nl ? nl + 1 : end;
	}
}

bool model__resolve(struct model *m, int32_t pid, bool kernel, uint64_t ip, struct model_location *ret)
{
	const struct mapset *s = kernel ? &m->sets[0] : set_of(m, pid, false);
	size_t lo;

	if (!s || (lo = sorted_find_le(s->m, s->nr, start, ip)) == SIZE_MAX || ip >= s->m[lo].end)
		return false;
	ret->dso = s->m[lo].dso;
	ret->off = m->dsos[s->m[lo].dso].kernel ? ip : ip - s->m[lo].start + s->m[lo].pgoff;
	return true;
}

void model__forget(struct model *m, int32_t pid, int32_t tid)
{
	uint32_t idx;

	task_table__remove(m->threads, tid);
	if (pid != tid || pid <= 0 || !idmap__get(m->proc, (uint64_t)(uint32_t)pid, &idx))
		return;
	/* the slot stays, empty, for the pid's next process: slots are bounded by pid_max */
	free(m->sets[idx].m);
	m->sets[idx] = (struct mapset){ 0 };
}

const struct model_dso *model__dso(const struct model *m, uint32_t idx)
{
	return idx < m->nr_dsos ? &m->dsos[idx] : NULL;
}

const char *model__comm(struct model *m, int32_t tid)
{
	struct task *t = task_table__find(m->threads, tid);
	return t ? t->comm : "";
}

bool model__uid(const struct model *m, int32_t tid, uint32_t *ret)
{
	return idmap__get(m->uids, (uint64_t)(uint32_t)tid, ret);
}

const char *model__cgroup(const struct model *m, uint64_t id)
{
	uint32_t idx;
	return idmap__get(m->cgroup_idx, id, &idx) ? m->cgroups[idx] : NULL;
}

bool model__kernel_ref(const struct model *m, const char **ret_name, uint64_t *ret_addr)
{
	if (!m->kref_name[0])
		return false;
	*ret_name = m->kref_name;
	*ret_addr = m->kref_addr;
	return true;
}
