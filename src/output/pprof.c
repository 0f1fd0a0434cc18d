/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "prof/base/hash.h"
#include "prof/base/hashtable.h"
#include "prof/base/vec.h"
#include "prof/output/pprof.h"
#include "prof/base/util.h"
#include "profile.pb-c.h"

typedef Perftools__Profiles__Profile PbProfile;
typedef Perftools__Profiles__ValueType PbValueType;
typedef Perftools__Profiles__Sample PbSample;
typedef Perftools__Profiles__Label PbLabel;
typedef Perftools__Profiles__Mapping PbMapping;
typedef Perftools__Profiles__Location PbLocation;
typedef Perftools__Profiles__Line PbLine;
typedef Perftools__Profiles__Function PbFunction;

#define NR_LABELS 6     /* uid, user, cgroup, container, comm, pid */

/* The string table: strings by index, and the index of each by its text. */
struct strtab {
	char **v;
	size_t nr, cap;
	struct hashtable index;         /* of uint32_t (index in v), by string */
	int err;                        /* sticky -ENOMEM */
};

static bool str_eq(const void *e, const void *key, const void *ctx)
{
	return !strcmp(((const struct strtab *)ctx)->v[*(const uint32_t *)e], key);
}

static void strtab_init(struct strtab *t)
{
	*t = (struct strtab){ 0 };
	hashtable__init(&t->index, sizeof(uint32_t), str_eq, t);
}

/* The index of s, added the first time. */
static int64_t str_index(struct strtab *t, const char *s)
{
	uint64_t h = hash__bytes(s, strlen(s));
	uint32_t *slot = hashtable__find(&t->index, h, s);
	bool created;

	if (slot)
		return *slot;
	if (VEC_RESERVE(t->v, t->cap, t->nr + 1) < 0 || !(t->v[t->nr] = strdup(s)))
		goto enomem;
	slot = hashtable__insert(&t->index, h, s, &created);
	if (!slot) {
		free(t->v[t->nr]);
		goto enomem;
	}
	*slot = (uint32_t)t->nr;
	return (int64_t)t->nr++;
enomem:
	t->err = -ENOMEM;
	return 0;
}

/* The index of s, or -1 when it is not in the table. */
static int64_t str_find(const struct strtab *t, const char *s)
{
	const uint32_t *slot = hashtable__find(&t->index, hash__bytes(s, strlen(s)), s);

	return slot ? (int64_t)*slot : -1;
}

static void strtab_release(struct strtab *t)
{
	for (size_t i = 0; i < t->nr; i++)
		free(t->v[i]);
	free(t->v);
	hashtable__release(&t->index);
}

/* The recording's build ids (HEADER_BUILD_ID) by file name, as hex strings. */
struct bid_table {
	struct strtab names;            /* index i: a file name; hex[i] its build id */
	char (*hex)[2 * 20 + 1];
	size_t cap;
};

static int bid_add(const struct reader_build_id *b, void *ctx)
{
	struct bid_table *t = ctx;
	size_t before = t->names.nr;
	int64_t i = str_index(&t->names, b->filename);

	if (t->names.err)
		return t->names.err;
	if ((size_t)i < before)
		return 0;               /* the first record of a path wins */
	if (VEC_RESERVE(t->hex, t->cap, t->names.nr) < 0)
		return -ENOMEM;
	for (size_t k = 0; k < MIN(b->size, (uint8_t)20); k++)
		sprintf(t->hex[i] + 2 * k, "%02x", b->data[k]);
	t->hex[i][2 * MIN(b->size, (uint8_t)20)] = '\0';
	return 0;
}

/* An object's name (a pointer: the model's and the frames' names are interned), and
 * what it stands for: a mapping's index, or one of the model's objects. */
struct by_name {
	const char *name;
	uint32_t idx;
};

static bool by_name_eq(const void *e, const void *key, const void *ctx)
{
	return ((const struct by_name *)e)->name == key;
}

struct build {
	PbProfile prof;
	struct bid_table bids;
	struct strtab strs;
	struct hashtable mappings;      /* of struct by_name: an object's mapping */
	struct hashtable dsos;          /* of struct by_name: the model's object of that name */
	PbValueType types[2], period_type;
	PbValueType *type_ptrs[2];
	PbMapping *maps;
	PbMapping **map_ptrs;
	PbLocation *locs;
	PbLocation **loc_ptrs;
	PbLine *lines;
	PbLine **line_ptrs;
	PbFunction *funcs;
	PbFunction **func_ptrs;
	PbSample *samples;
	PbSample **sample_ptrs;
	PbLabel *labels;
	PbLabel **label_ptrs;
	uint64_t *loc_ids;
	int64_t *values;
	int64_t comments[4];
};

static void build_init(struct build *b)
{
	*b = (struct build){ 0 };
	perftools__profiles__profile__init(&b->prof);
	strtab_init(&b->strs);
	strtab_init(&b->bids.names);
	hashtable__init(&b->mappings, sizeof(struct by_name), by_name_eq, NULL);
	hashtable__init(&b->dsos, sizeof(struct by_name), by_name_eq, NULL);
}

static void build_free(struct build *b)
{
	hashtable__release(&b->mappings);
	hashtable__release(&b->dsos);
	strtab_release(&b->bids.names);
	free(b->bids.hex);
	strtab_release(&b->strs);
	free(b->maps);
	free(b->map_ptrs);
	free(b->locs);
	free(b->loc_ptrs);
	free(b->lines);
	free(b->line_ptrs);
	free(b->funcs);
	free(b->func_ptrs);
	free(b->samples);
	free(b->sample_ptrs);
	free(b->labels);
	free(b->label_ptrs);
	free(b->loc_ids);
	free(b->values);
}

static void hex(char *dst, const uint8_t *id, size_t len)
{
	for (size_t i = 0; i < len; i++)
		sprintf(dst + 2 * i, "%02x", id[i]);
	dst[2 * len] = '\0';
}

/* The leaf frame of the hottest entry in a user-space file, or -1. */
static long main_frame(const struct profile *p)
{
	size_t nr, n;
	const struct profile_entry *e = profile__entries(p, &nr);
	const struct profile_frame *f = profile__frames(p, &n);
	uint64_t best = 0;
	long ret = -1;

	for (size_t i = 0; i < nr; i++) {
		const uint32_t *ids = profile__stack(p, e[i].stack, &n);
		if (n && !f[ids[0]].kernel && f[ids[0]].dso[0] == '/' && e[i].period > best) {
			best = e[i].period;
			ret = ids[0];
		}
	}
	return ret;
}

static bool lookup_bid(const struct bid_table *t, const char *path, char *hex_out)
{
	int64_t i = str_find(&t->names, path);

	if (i < 0)
		return false;
	strcpy(hex_out, t->hex[i]);
	return hex_out[0] != '\0';
}

/* The model's objects by name, each the first of its name with a build id, else the
 * first: frames hold the model's (interned) names. */
static int index_dsos(struct build *b, const struct model *m)
{
	const struct model_dso *d;

	for (uint32_t i = 0; m && (d = model__dso(m, i)); i++) {
		bool created;
		struct by_name *e = hashtable__insert(&b->dsos, hash__u64((uintptr_t)d->name), d->name, &created);

		if (!e)
			return -ENOMEM;
		if (created || (d->build_id_len && !model__dso(m, e->idx)->build_id_len))
			*e = (struct by_name){ .name = d->name, .idx = i };
	}
	return 0;
}

/* The mapping of object dso, made the first time (ids in that order). */
static int mapping_of(struct build *b, const struct model *m, const char *dso, uint32_t *ret)
{
	uint64_t h = hash__u64((uintptr_t)dso);
	const struct by_name *known = hashtable__find(&b->mappings, h, dso), *di;
	struct by_name *e;
	PbMapping *map;
	bool created;
	char bid[41];

	if (known) {
		*ret = known->idx;
		return 0;
	}
	map = &b->maps[b->prof.n_mapping];
	perftools__profiles__mapping__init(map);
	map->id = b->prof.n_mapping + 1;
	map->filename = str_index(&b->strs, dso);
	map->has_functions = true;
	/* the recording's HEADER_BUILD_ID, else what its MMAP2 records carried */
	di = hashtable__find(&b->dsos, h, dso);
	if (lookup_bid(&b->bids, dso, bid)) {
		map->build_id = str_index(&b->strs, bid);
	} else if (di && model__dso(m, di->idx)->build_id_len) {
		hex(bid, model__dso(m, di->idx)->build_id, MIN(model__dso(m, di->idx)->build_id_len, (size_t)20));
		map->build_id = str_index(&b->strs, bid);
	}
	b->map_ptrs[b->prof.n_mapping] = map;
	*ret = (uint32_t)b->prof.n_mapping++;
	e = hashtable__insert(&b->mappings, h, dso, &created);
	if (!e)
		return -ENOMEM;
	*e = (struct by_name){ .name = dso, .idx = *ret };
	return 0;
}

/* Room for n frames' mappings, locations, lines and functions. */
static int reserve_frames(struct build *b, size_t n)
{
	b->maps = calloc(n + 1, sizeof(*b->maps));
	b->map_ptrs = calloc(n + 1, sizeof(*b->map_ptrs));
	b->locs = calloc(n + 1, sizeof(*b->locs));
	b->loc_ptrs = calloc(n + 1, sizeof(*b->loc_ptrs));
	b->lines = calloc(n + 1, sizeof(*b->lines));
	b->line_ptrs = calloc(n + 1, sizeof(*b->line_ptrs));
	b->funcs = calloc(n + 1, sizeof(*b->funcs));
	b->func_ptrs = calloc(n + 1, sizeof(*b->func_ptrs));
	if (!b->maps || !b->map_ptrs || !b->locs || !b->loc_ptrs || !b->lines || !b->line_ptrs || !b->funcs ||
	    !b->func_ptrs)
		return -ENOMEM;
	return 0;
}

/* One mapping per object, one function and one location per frame. */
static int build_frames(struct build *b, const struct profile *p, const struct model *m)
{
	size_t nr_frames;
	const struct profile_frame *f = profile__frames(p, &nr_frames);
	long main = main_frame(p);
	uint32_t mi;

	if (index_dsos(b, m) < 0 || reserve_frames(b, nr_frames) < 0)
		return -ENOMEM;
	b->prof.mapping = b->map_ptrs;
	/* pprof takes mapping[0] for the main binary: the object of the hottest user frame */
	if (main >= 0 && mapping_of(b, m, f[main].dso, &mi) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < nr_frames; i++) {
		PbLocation *loc = &b->locs[i];

		if (mapping_of(b, m, f[i].dso, &mi) < 0)
			return -ENOMEM;
		perftools__profiles__function__init(&b->funcs[i]);
		b->funcs[i].id = i + 1;
		b->funcs[i].name = b->funcs[i].system_name = str_index(&b->strs, f[i].sym);
		b->func_ptrs[i] = &b->funcs[i];
		perftools__profiles__line__init(&b->lines[i]);
		b->lines[i].function_id = i + 1;
		b->line_ptrs[i] = &b->lines[i];
		perftools__profiles__location__init(loc);
		loc->id = i + 1;
		loc->mapping_id = mi + 1;
		loc->n_line = 1;
		loc->line = &b->line_ptrs[i];
		b->loc_ptrs[i] = loc;
	}
	b->prof.n_location = b->prof.n_function = nr_frames;
	b->prof.location = b->loc_ptrs;
	b->prof.function = b->func_ptrs;
	return b->strs.err;
}

static void label(struct build *b, PbLabel *l, const char *key, const char *str, bool has_num, int64_t num)
{
	perftools__profiles__label__init(l);
	l->key = str_index(&b->strs, key);
	if (has_num) {
		l->num = num;
		/* a unit makes a zero (uid 0) a value, not an absent label: readers skip
		 * labels with neither a string nor a nonzero number nor a unit */
		l->num_unit = str_index(&b->strs, key);
	} else
		l->str = str_index(&b->strs, str);
}

static int build_samples(struct build *b, const struct profile *p, const struct model *m)
{
	size_t nr, nr_ids = 0, ids_off = 0;
	const struct profile_entry *e = profile__entries(p, &nr);

	for (size_t i = 0; i < nr; i++) {
		size_t n;
		profile__stack(p, e[i].stack, &n);
		nr_ids += n;
	}
	b->samples = calloc(nr + 1, sizeof(*b->samples));
	b->sample_ptrs = calloc(nr + 1, sizeof(*b->sample_ptrs));
	b->labels = calloc(nr * NR_LABELS + 1, sizeof(*b->labels));
	b->label_ptrs = calloc(nr * NR_LABELS + 1, sizeof(*b->label_ptrs));
	b->loc_ids = calloc(nr_ids + 1, sizeof(*b->loc_ids));
	b->values = calloc(2 * nr + 1, sizeof(*b->values));
	if (!b->samples || !b->sample_ptrs || !b->labels || !b->label_ptrs || !b->loc_ids || !b->values)
		return -ENOMEM;
	for (size_t i = 0; i < nr; i++) {
		PbSample *s = &b->samples[i];
		PbLabel *l = &b->labels[i * NR_LABELS];
		size_t n, nl = 0;
		const uint32_t *ids = profile__stack(p, e[i].stack, &n);
		const char *cg = e[i].task.cgroup && m ? model__cgroup(m, e[i].task.cgroup) : NULL;
		struct passwd *pw;

		perftools__profiles__sample__init(s);
		for (size_t k = 0; k < n; k++)
			b->loc_ids[ids_off + k] = (uint64_t)ids[k] + 1;
		s->location_id = b->loc_ids + ids_off;
		s->n_location_id = n;
		ids_off += n;
		b->values[2 * i] = (int64_t)e[i].samples;
		b->values[2 * i + 1] = (int64_t)e[i].period;
		s->value = &b->values[2 * i];
		s->n_value = 2;
		if (e[i].task.uid_known) {
			label(b, &l[nl++], "uid", NULL, true, e[i].task.uid);
			pw = getpwuid(e[i].task.uid);
			if (pw)
				label(b, &l[nl++], "user", pw->pw_name, false, 0);
		}
		if (cg)
			label(b, &l[nl++], "cgroup", cg, false, 0);
		/* the id, empty for a host task (as pprof writes an empty string: index 0) */
		if (e[i].task.container)
			label(b, &l[nl++], "container", e[i].task.container, false, 0);
		if (e[i].task.comm)
			label(b, &l[nl++], "comm", e[i].task.comm, false, 0);
		if (e[i].task.pid > 0)
			label(b, &l[nl++], "pid", NULL, true, e[i].task.pid);
		for (size_t k = 0; k < nl; k++)
			b->label_ptrs[i * NR_LABELS + k] = &l[k];
		s->label = &b->label_ptrs[i * NR_LABELS];
		s->n_label = nl;
		b->sample_ptrs[i] = s;
	}
	b->prof.n_sample = nr;
	b->prof.sample = b->sample_ptrs;
	return b->strs.err;
}

static int gzip_out(int fd, const uint8_t *buf, size_t len)
{
	int dup_fd = dup(fd);
	gzFile gz;
	int ok;

	if (dup_fd < 0)
		return -errno;
	/* gzclose closes the fd it was given: give it a copy */
	gz = gzdopen(dup_fd, "wb9");
	if (!gz) {
		close(dup_fd);
		return -ENOMEM;
	}
	ok = len == 0 || gzwrite(gz, buf, (unsigned)len) == (int)len;
	if (gzclose(gz) != Z_OK)
		ok = 0;
	return ok ? 0 : -EIO;
}

size_t pprof__keys(enum profile_key keys[PROFILE_KEY__MAX])
{
	static const enum profile_key labelled[] = { PROFILE_KEY_UID, PROFILE_KEY_CGROUP, PROFILE_KEY_CONTAINER,
						     PROFILE_KEY_COMM, PROFILE_KEY_PID };

	memcpy(keys, labelled, sizeof(labelled));
	return ARRAY_SIZE(labelled);
}

int pprof__write(const struct profile *p, const struct pprof_meta *m, int fd)
{
	struct build b;
	_cleanup_free_ uint8_t *buf = NULL;
	size_t len, nc = 0;
	int err;

	build_init(&b);
	str_index(&b.strs, "");         /* string_table[0] must be "" */
	/* value 0: samples; value 1: the period, cpu time when the event counts time */
	for (int i = 0; i < 2; i++) {
		perftools__profiles__value_type__init(&b.types[i]);
		b.type_ptrs[i] = &b.types[i];
	}
	b.types[0].type = str_index(&b.strs, "samples");
	b.types[0].unit = str_index(&b.strs, "count");
	b.types[1].type = str_index(&b.strs, m->time_period ? "cpu" : m->event);
	b.types[1].unit = str_index(&b.strs, m->time_period ? "nanoseconds" : "count");
	b.prof.n_sample_type = 2;
	b.prof.sample_type = b.type_ptrs;
	b.period_type = b.types[1];
	b.prof.period_type = &b.period_type;
	b.prof.period = m->period;
	b.prof.duration_nanos = m->duration_ns;
	b.prof.default_sample_type = b.types[1].type;
	for (; nc < ARRAY_SIZE(m->comments) && m->comments[nc]; nc++)
		b.comments[nc] = str_index(&b.strs, m->comments[nc]);
	b.prof.comment = b.comments;
	b.prof.n_comment = nc;
	if (m->reader) {
		err = perf_reader__for_each_build_id(m->reader, bid_add, &b.bids);
		if (err < 0)
			goto out;
	}
	err = build_frames(&b, p, m->model);
	if (!err)
		err = build_samples(&b, p, m->model);
	if (err)
		goto out;
	b.prof.string_table = b.strs.v;
	b.prof.n_string_table = b.strs.nr;
	len = perftools__profiles__profile__get_packed_size(&b.prof);
	buf = malloc(len ? len : 1);
	if (!buf) {
		err = -ENOMEM;
		goto out;
	}
	perftools__profiles__profile__pack(&b.prof, buf);
	err = gzip_out(fd, buf, len);
out:
	build_free(&b);
	return err;
}
