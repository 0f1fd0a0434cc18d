/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <string.h>
#include <sys/mman.h>

#include "prof/perfdata/build_id_table.h"
#include "prof/perfdata/vdso.h"
#include "prof/base/hash.h"
#include "prof/base/hashtable.h"
#include "prof/base/util.h"
#include "prof/base/vec.h"

struct object {
	uint32_t maj, min;
	uint64_t ino;
	struct build_id bid;            /* one the record carried; else found when written */
	bool carried;
};

struct entry {
	char *path;
	uint32_t obj;
};

/*
 * objs and ents are in the order met (the feature lists paths in that order); the
 * two tables index them, each slot an index (uint32_t) into its array.
 */
struct build_id_table {
	struct object *objs;
	size_t nr_objs, cap_objs;
	struct entry *ents;
	size_t nr_ents, cap_ents;
	struct hashtable obj_index;     /* files, by (maj, min, ino) */
	struct hashtable ent_index;     /* entries, by path: one per (path, object) */
	struct build_id kernel;
	bool vdso_seen;                 /* a 64-bit task's [vdso] was mapped */
	struct build_id vdso;
	struct build_id_table_stats st;
};

struct obj_key {
	uint32_t maj, min;
	uint64_t ino;
};

/* A path and the record's object: its (maj, min, ino), or the build id it carries. */
struct ent_key {
	const char *path;
	size_t len;
	const struct perf_record_mmap2 *m;
};

static uint64_t obj_hash(const struct obj_key *k)
{
	return hash__mix(hash__mix(hash__u64(k->maj), k->min), k->ino);
}

static bool obj_eq(const void *entry, const void *key, const void *ctx)
{
	const struct build_id_table *t = ctx;
	const struct object *o = &t->objs[*(const uint32_t *)entry];
	const struct obj_key *k = key;

	return o->maj == k->maj && o->min == k->min && o->ino == k->ino;
}

/* The same path, and the same object by the record's own measure. */
static bool ent_eq(const void *entry, const void *key, const void *ctx)
{
	const struct build_id_table *t = ctx;
	const struct entry *e = &t->ents[*(const uint32_t *)entry];
	const struct object *o = &t->objs[e->obj];
	const struct ent_key *k = key;
	const struct perf_record_mmap2 *m = k->m;

	if (strncmp(e->path, k->path, k->len) || e->path[k->len])
		return false;
	if (m->header.misc & PERF_RECORD_MISC_MMAP_BUILD_ID)
		return o->carried && m->build_id_size == o->bid.size && !memcmp(m->build_id, o->bid.data, o->bid.size);
	return !o->carried && o->maj == m->maj && o->min == m->min && o->ino == m->ino;
}

struct build_id_table *build_id_table__new(void)
{
	struct build_id_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	hashtable__init(&t->obj_index, sizeof(uint32_t), obj_eq, t);
	hashtable__init(&t->ent_index, sizeof(uint32_t), ent_eq, t);
	return t;
}

struct build_id_table *build_id_table__free(struct build_id_table *t)
{
	if (!t)
		return NULL;
	for (size_t i = 0; i < t->nr_ents; i++)
		free(t->ents[i].path);
	free(t->ents);
	free(t->objs);
	hashtable__release(&t->obj_index);
	hashtable__release(&t->ent_index);
	free(t);
	return NULL;
}

/* The object (maj, min, ino), made the first time it is met.  Index or -ENOMEM. */
static int64_t object_get(struct build_id_table *t, const struct perf_record_mmap2 *m)
{
	struct obj_key key = { m->maj, m->min, m->ino };
	uint32_t *idx;
	bool created;

	if (VEC_RESERVE(t->objs, t->cap_objs, t->nr_objs + 1) < 0)
		return -ENOMEM;
	idx = hashtable__insert(&t->obj_index, obj_hash(&key), &key, &created);
	if (!idx)
		return -ENOMEM;
	if (!created)
		return *idx;
	*idx = (uint32_t)t->nr_objs;
	t->objs[t->nr_objs] = (struct object){ .maj = key.maj, .min = key.min, .ino = key.ino };
	t->st.objects++;
	return (int64_t)t->nr_objs++;
}

/* An object whose build id the record itself carries (PERF_RECORD_MISC_MMAP_BUILD_ID). */
static int64_t object_carried(struct build_id_table *t, const struct perf_record_mmap2 *m)
{
	struct object *o;

	if (VEC_RESERVE(t->objs, t->cap_objs, t->nr_objs + 1) < 0)
		return -ENOMEM;
	o = &t->objs[t->nr_objs];
	*o = (struct object){ .maj = UINT32_MAX, .min = UINT32_MAX, .ino = UINT64_MAX, .carried = true };
	if (m->build_id_size > 0 && m->build_id_size <= BUILD_ID_MAX) {
		memcpy(o->bid.data, m->build_id, m->build_id_size);
		o->bid.size = m->build_id_size;
	}
	t->st.objects++;
	return (int64_t)t->nr_objs++;
}

/* A 64-bit task's [vdso] mapping (vdso.h). */
static bool native_vdso(const struct perf_event_header *ev)
{
	const struct perf_record_mmap2 *m = (const void *)ev;

	return ev->type == PERF_RECORD_MMAP2 &&
	       ev->size >= offsetof(struct perf_record_mmap2, filename) + sizeof(VDSO_NAME) &&
	       (m->prot & PROT_EXEC) && !memcmp(m->filename, VDSO_NAME, sizeof(VDSO_NAME)) &&
	       vdso__native_map(m->start, m->start + m->len);
}

int build_id_table__note(struct build_id_table *t, const struct perf_event_header *ev)
{
	const struct perf_record_mmap2 *m = (const void *)ev;
	struct ent_key key = { m->filename, build_id__mmap2_path(ev), m };
	uint64_t h;
	uint32_t *idx;
	int64_t obj;
	char *path;
	bool created;

	if (!key.len) {
		if (!t->vdso_seen && ev->type == PERF_RECORD_MMAP2 && m->filename[0] == '[')
			t->vdso_seen = native_vdso(ev);
		return 0;
	}
	h = hash__bytes(key.path, key.len);
	/* the same path and object as before: the common case, no file access */
	if (hashtable__find(&t->ent_index, h, &key))
		return 0;
	obj = ev->misc & PERF_RECORD_MISC_MMAP_BUILD_ID ? object_carried(t, m) : object_get(t, m);
	if (obj < 0)
		return (int)obj;
	if (VEC_RESERVE(t->ents, t->cap_ents, t->nr_ents + 1) < 0)
		return -ENOMEM;
	path = strndup(m->filename, key.len);
	if (!path)
		return -ENOMEM;
	idx = hashtable__insert(&t->ent_index, h, &key, &created);
	if (!idx) {
		free(path);
		return -ENOMEM;
	}
	t->ents[t->nr_ents] = (struct entry){ .path = path, .obj = (uint32_t)obj };
	*idx = (uint32_t)t->nr_ents++;
	return 0;
}

void build_id_table__set_kernel(struct build_id_table *t, const struct build_id *b)
{
	t->kernel = *b;
}

bool build_id_table__saw_vdso(const struct build_id_table *t)
{
	return t->vdso_seen;
}

void build_id_table__set_vdso(struct build_id_table *t, const struct build_id *b)
{
	t->vdso = *b;
}

/* One struct build_id_event, as perf's write_buildid() lays it out. */
static void write_one(struct feat_buf *b, const char *name, const struct build_id *bid, uint16_t misc)
{
	struct perf_record_header_build_id e = { 0 };
	size_t len = ALIGN_UP(strlen(name) + 1, PERF_NAME_ALIGN);

	memcpy(e.data, bid->data, bid->size);
	e.size = bid->size;
	e.pid = -1;                     /* perf's HOST_KERNEL_ID: the host machine */
	e.header.misc = misc | PERF_RECORD_MISC_BUILD_ID_SIZE;
	e.header.size = (uint16_t)(sizeof(e) + len);
	feat_buf__put(b, &e, sizeof(e));
	feat_buf__put(b, name, strlen(name) + 1);
	feat_buf__put(b, NULL, len - strlen(name) - 1);
}

/* An entry being written: its path and the build id found for it. */
struct written {
	const char *path;
	const struct build_id *bid;
};

static bool written_eq(const void *entry, const void *key, const void *ctx)
{
	const struct written *a = entry, *b = key;

	return a->bid->size == b->bid->size && !memcmp(a->bid->data, b->bid->data, a->bid->size) &&
	       !strcmp(a->path, b->path);
}

/* The build id of entry i: the one its record carried, else lookup's.  NULL: none. */
static const struct build_id *entry_build_id(const struct build_id_table *t, size_t i, build_id_table_lookup_fn lookup,
					     void *ctx, struct build_id *buf)
{
	const struct object *o = &t->objs[t->ents[i].obj];

	if (o->carried)
		return o->bid.size ? &o->bid : NULL;
	return lookup && lookup(ctx, o->maj, o->min, o->ino, buf) && buf->size ? buf : NULL;
}

void build_id_table__write(struct build_id_table *t, struct feat_buf *b, build_id_table_lookup_fn lookup, void *ctx)
{
	struct hashtable seen;
	struct build_id *bids = calloc(t->nr_ents + 1, sizeof(*bids));

	t->st.entries = 0;
	t->st.read = 0;
	if (!bids) {
		b->err = -ENOMEM;
		return;
	}
	hashtable__init(&seen, sizeof(struct written), written_eq, NULL);
	/* the kernel first: perf's reader recognises an old layout by that entry */
	if (t->kernel.size) {
		write_one(b, "[kernel.kallsyms]", &t->kernel, PERF_RECORD_MISC_KERNEL);
		t->st.entries++;
	}
	if (t->vdso_seen && t->vdso.size) {
		write_one(b, VDSO_NAME, &t->vdso, PERF_RECORD_MISC_USER);
		t->st.entries++;
	}
	for (size_t i = 0; i < t->nr_ents; i++) {
		struct written w = { t->ents[i].path, entry_build_id(t, i, lookup, ctx, &bids[i]) };
		bool created;
		struct written *e;

		/* a path longer than a record can hold: no record (perf's limit is PATH_MAX) */
		if (!w.bid || strlen(w.path) >= 4096)
			continue;
		t->st.read++;
		/* objects of one build id at one path (a container image's file in each
		 * container's overlay): one record */
		e = hashtable__insert(&seen, hash__mix(hash__bytes(w.path, strlen(w.path)),
						       hash__bytes(w.bid->data, w.bid->size)), &w, &created);
		if (!e) {
			b->err = -ENOMEM;
			break;
		}
		if (!created)
			continue;
		*e = w;
		write_one(b, w.path, w.bid, PERF_RECORD_MISC_USER);
		t->st.entries++;
	}
	hashtable__release(&seen);
	free(bids);
}

const struct build_id_table_stats *build_id_table__stats(const struct build_id_table *t)
{
	return &t->st;
}
