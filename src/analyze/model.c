/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <perf/event.h>

#include "prof/analyze/model.h"
#include "prof/scope/containers.h"
#include "prof/base/hash.h"
#include "prof/base/hashtable.h"
#include "prof/base/strset.h"
#include "prof/base/util.h"
#include "prof/base/vec.h"
#include "prof/perfdata/build_id.h"
#include "prof/perfdata/vdso.h"

struct thread {
	int32_t tid, pid;
	const char *comm;               /* interned, "" when unknown */
};

/* pid -> its address map, an index in sets: a pid's slot is reused by its next process. */
struct process {
	int32_t pid;
	uint32_t set;
};

/* An object's identity: its path and, when known, the mapped file's device and inode,
 * or the build id its MMAP2 carries (objects of one path and two builds are two). */
struct dso_key {
	const char *name;               /* interned */
	uint8_t vdso;                   /* enum model_vdso: the two kinds of [vdso] are two */
	uint32_t maj, min;
	uint64_t ino;
	uint8_t bid_len;
	uint8_t bid[20];
};

struct uid_entry {
	int32_t tid;
	uint32_t uid;
};

struct cgroup_entry {
	uint64_t id;
	char *path;
	const char *container;          /* interned in names: its id, "" for a host cgroup */
};

struct model {
	struct hashtable threads;       /* of struct thread, by tid */
	struct hashtable processes;     /* of struct process, by pid */
	struct maps *sets;              /* sets[0]: the kernel's */
	size_t nr_sets, cap_sets;
	struct model_dso *dsos;
	size_t nr_dsos, cap_dsos;
	struct hashtable dso_index;     /* of uint32_t (index in dsos), by struct dso_key */
	struct hashtable uids;          /* of struct uid_entry, by tid */
	struct hashtable cgroups;       /* of struct cgroup_entry, by id */
	struct strset names;            /* object paths and comms */
	struct container_name *cnames;  /* the runtimes' names of containers (a file's few) */
	size_t nr_cnames, cap_cnames;
	char kref_name[32];
	uint64_t kref_addr;
	char kernel_bid[2 * BUILD_ID_MAX + 1];  /* hex, from the data's HEADER_BUILD_ID; "" */
	uint64_t maps_gen, tasks_gen;   /* model__generation() */
};

static bool thread_eq(const void *e, const void *key, const void *ctx)
{
	return ((const struct thread *)e)->tid == *(const int32_t *)key;
}

static bool process_eq(const void *e, const void *key, const void *ctx)
{
	return ((const struct process *)e)->pid == *(const int32_t *)key;
}

static bool uid_eq(const void *e, const void *key, const void *ctx)
{
	return ((const struct uid_entry *)e)->tid == *(const int32_t *)key;
}

static bool cgroup_eq(const void *e, const void *key, const void *ctx)
{
	return ((const struct cgroup_entry *)e)->id == *(const uint64_t *)key;
}

static bool dso_eq(const void *e, const void *key, const void *ctx)
{
	const struct model_dso *d = &((const struct model *)ctx)->dsos[*(const uint32_t *)e];
	const struct dso_key *k = key;

	return d->name == k->name && d->vdso == k->vdso && d->maj == k->maj && d->min == k->min &&
	       d->ino == k->ino &&
	       (d->has_inode || (d->build_id_len == k->bid_len && !memcmp(d->build_id, k->bid, k->bid_len)));
}

static uint64_t tid_hash(int32_t tid)
{
	return hash__u64((uint32_t)tid);
}

static uint64_t dso_hash(const struct dso_key *k)
{
	uint64_t h = hash__mix(hash__mix(hash__u64((uintptr_t)k->name ^ k->vdso), (uint64_t)k->maj << 32 | k->min),
			       k->ino);

	return k->bid_len ? hash__mix(h, hash__bytes(k->bid, k->bid_len)) : h;
}

/* A container id and its runtime's name, both interned in names. */
struct container_name {
	const char *id, *name;
};

struct model *model__new(void)
{
	struct model *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	hashtable__init(&m->threads, sizeof(struct thread), thread_eq, NULL);
	hashtable__init(&m->processes, sizeof(struct process), process_eq, NULL);
	hashtable__init(&m->dso_index, sizeof(uint32_t), dso_eq, m);
	hashtable__init(&m->uids, sizeof(struct uid_entry), uid_eq, NULL);
	hashtable__init(&m->cgroups, sizeof(struct cgroup_entry), cgroup_eq, NULL);
	if (VEC_RESERVE(m->sets, m->cap_sets, 1) < 0)
		return model__free(m);
	m->sets[0] = (struct maps){ 0 };        /* the kernel's */
	m->nr_sets = 1;
	return m;
}

struct model *model__free(struct model *m)
{
	struct cgroup_entry *c;

	if (!m)
		return NULL;
	for (size_t i = 0; i < m->nr_sets; i++)
		maps__release(&m->sets[i]);
	free(m->sets);
	free(m->dsos);
	free(m->cnames);
	for (size_t i = 0; (c = hashtable__next(&m->cgroups, &i));)
		free(c->path);
	hashtable__release(&m->threads);
	hashtable__release(&m->processes);
	hashtable__release(&m->dso_index);
	hashtable__release(&m->uids);
	hashtable__release(&m->cgroups);
	strset__release(&m->names);
	free(m);
	return NULL;
}

/* The index of object k, made the first time; a build id fills in one not known yet. */
static int dso_of(struct model *m, const struct dso_key *k, bool kernel, bool has_inode, const uint8_t *bid,
		  size_t bid_len, uint32_t *ret)
{
	uint64_t h = dso_hash(k);
	uint32_t *slot = hashtable__find(&m->dso_index, h, k);
	struct model_dso *d;
	bool created;

	if (!slot) {
		if (VEC_RESERVE(m->dsos, m->cap_dsos, m->nr_dsos + 1) < 0)
			return -ENOMEM;
		m->dsos[m->nr_dsos] = (struct model_dso){ .name = k->name, .kernel = kernel, .vdso = k->vdso,
							  .has_inode = has_inode,
							  .maj = k->maj, .min = k->min, .ino = k->ino };
		slot = hashtable__insert(&m->dso_index, h, k, &created);
		if (!slot)
			return -ENOMEM;
		*slot = (uint32_t)m->nr_dsos++;
	}
	d = &m->dsos[*slot];
	if (bid_len && !d->build_id_len) {
		d->build_id_len = (uint8_t)MIN(bid_len, sizeof(d->build_id));
		memcpy(d->build_id, bid, d->build_id_len);
	}
	*ret = *slot;
	return 0;
}

/* The index in sets of pid's address map (0, the kernel's, for pid < 0), SIZE_MAX when none. */
static size_t set_index(const struct model *m, int32_t pid)
{
	const struct process *p;

	if (pid < 0)
		return 0;
	p = hashtable__find(&m->processes, tid_hash(pid), &pid);
	return p ? p->set : SIZE_MAX;
}

/* The address map of pid, made empty when missing.  NULL on ENOMEM. */
static struct maps *maps_get(struct model *m, int32_t pid)
{
	size_t i = set_index(m, pid);
	struct process *p;
	bool created;

	if (i != SIZE_MAX)
		return &m->sets[i];
	if (VEC_RESERVE(m->sets, m->cap_sets, m->nr_sets + 1) < 0)
		return NULL;
	p = hashtable__insert(&m->processes, tid_hash(pid), &pid, &created);
	if (!p)
		return NULL;
	*p = (struct process){ .pid = pid, .set = (uint32_t)m->nr_sets };
	m->sets[m->nr_sets] = (struct maps){ 0 };
	return &m->sets[m->nr_sets++];
}

static struct thread *thread_get(struct model *m, int32_t tid, int32_t pid)
{
	bool created;
	struct thread *t = hashtable__insert(&m->threads, tid_hash(tid), &tid, &created);

	if (t && created)
		*t = (struct thread){ .tid = tid, .pid = pid, .comm = "" };
	return t;
}

static int on_comm(struct model *m, const struct perf_record_comm *c, const struct perf_event_header *ev)
{
	size_t max = ev->size - offsetof(struct perf_record_comm, comm);
	/* a comm is at most 15 bytes (TASK_COMM_LEN) */
	const char *comm = strset__intern_n(&m->names, c->comm, strnlen(c->comm, MIN(max, (size_t)15)));
	struct thread *t;

	if (!comm)
		return -ENOMEM;
	t = thread_get(m, (int32_t)c->tid, (int32_t)c->pid);
	if (!t)
		return -ENOMEM;
	t->pid = (int32_t)c->pid;
	t->comm = comm;
	/* exec keeps the maps: the new image's own maps replace what they overlap, as in
	 * perf, and maps read from /proc may have been stamped before the exec */
	return 0;
}

static int on_fork(struct model *m, const struct perf_record_fork *f)
{
	int32_t ptid = (int32_t)f->ptid, tid = (int32_t)f->tid;
	const struct thread *p = hashtable__find(&m->threads, tid_hash(ptid), &ptid);
	const char *comm = p ? p->comm : "";
	struct thread *c;
	struct maps *cs;
	const struct maps *ps;

	hashtable__remove(&m->threads, tid_hash(tid), &tid);
	c = thread_get(m, tid, (int32_t)f->pid);
	if (!c)
		return -ENOMEM;
	c->comm = comm;
	if (f->pid == f->ppid)
		return 0;               /* a thread: its process's maps */
	/* a new process starts with a copy of its parent's maps */
	cs = maps_get(m, (int32_t)f->pid);
	if (!cs)
		return -ENOMEM;
	ps = model__maps(m, (int32_t)f->ppid);          /* after: making cs may move the sets */
	return maps__copy(cs, ps ? ps : &(struct maps){ 0 });
}

/*
 * The mapping an MMAP or MMAP2 record describes, and its object: its name (into
 * name), its key (without the interned name) and build id.  Returns whether the
 * record gave the file's device and inode.
 */
static bool mmap_fields(const struct perf_event_header *ev, struct map *ret, int32_t *ret_pid, char *name,
			size_t len, struct dso_key *key, const uint8_t **ret_bid, size_t *ret_bid_len)
{
	const struct perf_record_mmap2 *m2 = (const void *)ev;
	const struct perf_record_mmap *m1 = (const void *)ev;
	const char *fn;
	size_t max, n;
	bool has_inode = false;

	*key = (struct dso_key){ 0 };
	*ret_bid = NULL;
	*ret_bid_len = 0;
	if (ev->type == PERF_RECORD_MMAP2) {
		fn = m2->filename;
		max = ev->size - offsetof(struct perf_record_mmap2, filename);
		*ret = (struct map){ m2->start, m2->start + m2->len, m2->pgoff, 0, m2->prot };
		*ret_pid = (int32_t)m2->pid;
		if (!(ev->misc & PERF_RECORD_MISC_MMAP_BUILD_ID)) {
			*key = (struct dso_key){ .maj = m2->maj, .min = m2->min, .ino = m2->ino };
			has_inode = true;
		} else if (m2->build_id_size <= 20) {
			*ret_bid = m2->build_id;
			*ret_bid_len = m2->build_id_size;
			key->bid_len = m2->build_id_size;
			memcpy(key->bid, m2->build_id, m2->build_id_size);
		}
	} else {
		fn = m1->filename;
		max = ev->size - offsetof(struct perf_record_mmap, filename);
		/* MMAP records carry no protection: data mappings say so in misc */
		*ret = (struct map){ m1->start, m1->start + m1->len, m1->pgoff, 0,
				     (ev->misc & PERF_RECORD_MISC_MMAP_DATA) ? PROT_READ : PROT_READ | PROT_EXEC };
		*ret_pid = (int32_t)m1->pid;
	}
	if (ret->end < ret->start)
		ret->end = UINT64_MAX;  /* the kernel map: up to the top */
	n = strnlen(fn, MIN(max, len - 1));
	memcpy(name, fn, n);
	name[n] = '\0';
	return has_inode;
}

static int on_mmap(struct model *m, const struct perf_event_header *ev)
{
	bool kernel = (ev->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
	char name[4096];
	const uint8_t *bid;
	size_t bid_len;
	struct dso_key key;
	struct map nm;
	struct maps *s;
	int32_t pid;
	bool has_inode = mmap_fields(ev, &nm, &pid, name, sizeof(name), &key, &bid, &bid_len);

	if (kernel && !strncmp(name, "[kernel.kallsyms]", 17)) {
		/* "[kernel.kallsyms]_text": the suffix names the reference symbol at pgoff */
		snprintf(m->kref_name, sizeof(m->kref_name), "%.*s", (int)sizeof(m->kref_name) - 1, name + 17);
		m->kref_addr = nm.pgoff;
		name[17] = '\0';
	}
	if (!kernel && vdso__is_name(name))
		key.vdso = vdso__native_map(nm.start, nm.end) ? MODEL_VDSO_NATIVE : MODEL_VDSO_OTHER;
	key.name = strset__intern(&m->names, name);
	if (!key.name || dso_of(m, &key, kernel, has_inode, bid, bid_len, &nm.dso) < 0)
		return -ENOMEM;
	s = maps_get(m, kernel ? -1 : pid);
	return s ? maps__insert(s, &nm) : -ENOMEM;
}

/* Cgroup id is at path (owned: taken, or freed on error). */
static int add_cgroup(struct model *m, uint64_t id, char *path)
{
	struct cgroup_entry *e;
	char cid[CONTAINER_ID_LEN + 1];
	const char *container;
	bool created;

	if (!path)
		return -ENOMEM;
	/* once per cgroup, so that a sample's container is one lookup */
	container = strset__intern(&m->names, containers__of_path(path, cid) ? cid : "");
	if (!container) {
		free(path);
		return -ENOMEM;
	}
	e = hashtable__insert(&m->cgroups, hash__u64(id), &id, &created);
	if (!e) {
		free(path);
		return -ENOMEM;
	}
	if (!created)
		free(e->path);  /* the id's latest record names it */
	*e = (struct cgroup_entry){ .id = id, .path = path, .container = container };
	return 0;
}

static int on_cgroup(struct model *m, const struct perf_record_cgroup *c, const struct perf_event_header *ev)
{
	size_t max = ev->size - offsetof(struct perf_record_cgroup, path);

	return add_cgroup(m, c->id, strndup(c->path, max));
}

int model__add_cgroup(struct model *m, uint64_t id, const char *path)
{
	return add_cgroup(m, id, strdup(path));
}

/* The host kernel's build id, as prof record writes it after the kernel's map (and
 * perf into a pipe): what names the kernel in a file that never got its features. */
static void on_build_id(struct model *m, const struct perf_event_header *ev)
{
	const struct perf_record_header_build_id *e = (const void *)ev;
	size_t max = ev->size - sizeof(*e);
	struct build_id b = { 0 };

	if (ev->size < sizeof(*e) + sizeof("[kernel.kallsyms]") || e->pid != -1 ||
	    (ev->misc & PERF_RECORD_MISC_CPUMODE_MASK) != PERF_RECORD_MISC_KERNEL ||
	    strncmp(e->filename, "[kernel.kallsyms]", max) || !(ev->misc & PERF_RECORD_MISC_BUILD_ID_SIZE) ||
	    !e->size || e->size > BUILD_ID_MAX)
		return;
	memcpy(b.data, e->data, e->size);
	b.size = e->size;
	build_id__hex(&b, m->kernel_bid, sizeof(m->kernel_bid));
}

int model__process(struct model *m, const struct perf_event_header *ev)
{
	switch (ev->type) {
	case PERF_RECORD_COMM:
		m->tasks_gen++;
		return on_comm(m, (const void *)ev, ev);
	case PERF_RECORD_FORK:
		m->tasks_gen++;
		m->maps_gen++;
		return on_fork(m, (const void *)ev);
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		m->maps_gen++;  /* a new object too: dsos may move */
		return on_mmap(m, ev);
	case PERF_RECORD_CGROUP:
		m->tasks_gen++;
		return on_cgroup(m, (const void *)ev, ev);
	case PERF_RECORD_HEADER_BUILD_ID:
		on_build_id(m, ev);
		return 0;
	default:
		/* EXIT: a thread's last samples may follow it; pid reuse comes with a FORK */
		return 0;
	}
}

int model__set_uid(struct model *m, int32_t tid, uint32_t uid)
{
	bool created;

	m->tasks_gen++;
	struct uid_entry *e = hashtable__insert(&m->uids, tid_hash(tid), &tid, &created);

	if (!e)
		return -ENOMEM;
	*e = (struct uid_entry){ .tid = tid, .uid = uid };
	return 0;
}

const struct maps *model__maps(const struct model *m, int32_t pid)
{
	size_t i = set_index(m, pid);

	return i != SIZE_MAX ? &m->sets[i] : NULL;
}

bool model__resolve(const struct model *m, int32_t pid, bool kernel, uint64_t ip, struct model_location *ret)
{
	const struct maps *s = model__maps(m, kernel ? -1 : pid);
	const struct map *map = s ? maps__find(s, ip) : NULL;

	if (!map)
		return false;
	ret->dso = map->dso;
	ret->off = m->dsos[map->dso].kernel ? ip : ip - map->start + map->pgoff;
	return true;
}

void model__clear_maps(struct model *m, int32_t pid)
{
	size_t i = pid > 0 ? set_index(m, pid) : SIZE_MAX;

	m->maps_gen++;
	if (i != SIZE_MAX)
		maps__clear(&m->sets[i]);
}

void model__forget(struct model *m, int32_t pid, int32_t tid)
{
	size_t i;

	m->tasks_gen++;
	m->maps_gen++;
	hashtable__remove(&m->threads, tid_hash(tid), &tid);
	if (pid != tid || pid <= 0 || (i = set_index(m, pid)) == SIZE_MAX)
		return;
	/* the slot stays, empty, for the pid's next process: slots are bounded by pid_max */
	maps__release(&m->sets[i]);
}

const struct model_dso *model__dso(const struct model *m, uint32_t idx)
{
	return idx < m->nr_dsos ? &m->dsos[idx] : NULL;
}

const char *model__comm(const struct model *m, int32_t tid)
{
	const struct thread *t = hashtable__find(&m->threads, tid_hash(tid), &tid);

	return t ? t->comm : "";
}

bool model__uid(const struct model *m, int32_t tid, uint32_t *ret)
{
	const struct uid_entry *e = hashtable__find(&m->uids, tid_hash(tid), &tid);

	if (e)
		*ret = e->uid;
	return e != NULL;
}

const char *model__cgroup(const struct model *m, uint64_t id)
{
	const struct cgroup_entry *e = hashtable__find(&m->cgroups, hash__u64(id), &id);

	return e ? e->path : NULL;
}

const char *model__container(const struct model *m, uint64_t id)
{
	const struct cgroup_entry *e = id ? hashtable__find(&m->cgroups, hash__u64(id), &id) : NULL;

	return e ? e->container : NULL;
}

int model__name_container(struct model *m, const char *id, const char *name)
{
	const char *i = strset__intern(&m->names, id), *n = strset__intern(&m->names, name);

	if (!i || !n || VEC_RESERVE(m->cnames, m->cap_cnames, m->nr_cnames + 1) < 0)
		return -ENOMEM;
	for (size_t k = 0; k < m->nr_cnames; k++)
		if (m->cnames[k].id == i) {
			m->cnames[k].name = n;
			return 0;
		}
	m->cnames[m->nr_cnames++] = (struct container_name){ i, n };
	return 0;
}

const char *model__container_name(const struct model *m, const char *id)
{
	/* ids are interned: one pointer each (model__container's) */
	for (size_t k = 0; id && k < m->nr_cnames; k++)
		if (m->cnames[k].id == id || !strcmp(m->cnames[k].id, id))
			return m->cnames[k].name;
	return NULL;
}

uint64_t model__generation(const struct model *m, bool maps)
{
	return maps ? m->maps_gen : m->tasks_gen;
}

const char *model__kernel_build_id(const struct model *m)
{
	return m->kernel_bid;
}

bool model__kernel_ref(const struct model *m, const char **ret_name, uint64_t *ret_addr)
{
	if (!m->kref_name[0])
		return false;
	*ret_name = m->kref_name;
	*ret_addr = m->kref_addr;
	return true;
}
