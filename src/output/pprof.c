/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "prof/base/idmap.h"
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

static void idmap__freep(struct idmap **m)
{
	idmap__free(*m);
}

#define NR_LABELS 5     /* uid, user, cgroup, comm, pid */

/* The string table: index by content (hash, then compare). */
struct strtab {
	char **v;
	size_t nr, cap;
	struct idmap *by_hash;          /* hash -> index of the first string with it */
	int err;
};

static int64_t str_index(struct strtab *t, const char *s)
{
	uint64_t h = hash_bytes(s, strlen(s));
	uint32_t idx;

	/* collisions: probe h, h+1, ... until the string or a free key */
	for (;; h++) {
		if (!idmap__get(t->by_hash, h, &idx))
			break;
		if (!strcmp(t->v[idx], s))
			return idx;
	}
	if (t->nr == t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 256;
		char **n = realloc(t->v, ncap * sizeof(*n));
		if (!n)
			goto enomem;
		t->v = n;
		t->cap = ncap;
	}
	t->v[t->nr] = strdup(s);
	if (!t->v[t->nr] || idmap__set(t->by_hash, h, (uint32_t)t->nr) < 0) {
		free(t->v[t->nr]);
		goto enomem;
	}
	return (int64_t)t->nr++;
enomem:
	t->err = -ENOMEM;
	return 0;
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
	if (t->names.nr > t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 64;
		void *n = realloc(t->hex, ncap * sizeof(*t->hex));
		if (!n)
			return -ENOMEM;
		t->hex = n;
		t->cap = ncap;
	}
	for (size_t k = 0; k < MIN(b->size, (uint8_t)20); k++)
		sprintf(t->hex[i] + 2 * k, "%02x", b->data[k]);
	t->hex[i][2 * MIN(b->size, (uint8_t)20)] = '\0';
	return 0;
}

struct build {
	PbProfile prof;
	struct bid_table bids;
	struct strtab strs;
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

static void strtab_release(struct strtab *t)
{
	for (size_t i = 0; i < t->nr; i++)
		free(t->v[i]);
	free(t->v);
	idmap__free(t->by_hash);
}

static void build_free(struct build *b)
{
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
	uint64_t h = hash_bytes(path, strlen(path));
	uint32_t idx;

	for (;; h++) {
		if (!idmap__get(t->names.by_hash, h, &idx))
			return false;
		if (!strcmp(t->names.v[idx], path)) {
			strcpy(hex_out, t->hex[idx]);
			return hex_out[0] != '\0';
		}
	}
}

/* The mapping of object dso, made the first time (ids in that order). */
static int mapping_of(struct build *b, struct idmap *map_of, const struct idmap *dso_of, struct model *m,
		      const char *dso, uint32_t *ret)
{
	const struct model_dso *d;
	PbMapping *map;
	uint32_t di;
	char bid[41];

	if (idmap__get(map_of, (uintptr_t)dso, ret))
		return 0;
	map = &b->maps[b->prof.n_mapping];
	perftools__profiles__mapping__init(map);
	map->id = b->prof.n_mapping + 1;
	map->filename = str_index(&b->strs, dso);
	map->has_functions = true;
	/* the recording's HEADER_BUILD_ID, else what its MMAP2 records carried */
	if (b->bids.names.by_hash && lookup_bid(&b->bids, dso, bid)) {
		map->build_id = str_index(&b->strs, bid);
	} else if (m && idmap__get(dso_of, (uintptr_t)dso, &di) && (d = model__dso(m, di))->build_id_len) {
		hex(bid, d->build_id, MIN(d->build_id_len, (size_t)20));
		map->build_id = str_index(&b->strs, bid);
	}
	b->map_ptrs[b->prof.n_mapping] = map;
	*ret = (uint32_t)b->prof.n_mapping++;
	return idmap__set(map_of, (uintptr_t)dso, *ret);
}

/* One mapping per object, one function and one location per frame. */
static int build_frames(struct build *b, const struct profile *p, struct model *m)
{
	size_t nr_frames;
	const struct profile_frame *f = profile__frames(p, &nr_frames);
	_cleanup_(idmap__freep) struct idmap *map_of = idmap__new();
	_cleanup_(idmap__freep) struct idmap *dso_of = idmap__new();
	const struct model_dso *d;
	long main = main_frame(p);
	uint32_t mi;

	if (!map_of || !dso_of)
		return -ENOMEM;
	/* the model's objects by name pointer: frames hold the model's names */
	for (uint32_t i = 0; m && (d = model__dso(m, i)); i++)
		if (idmap__set(dso_of, (uintptr_t)d->name, i) < 0)
			return -ENOMEM;
	b->maps = calloc(nr_frames + 1, sizeof(*b->maps));
	b->map_ptrs = calloc(nr_frames + 1, sizeof(*b->map_ptrs));
	b->locs = calloc(nr_frames + 1, sizeof(*b->locs));
	b->loc_ptrs = calloc(nr_frames + 1, sizeof(*b->loc_ptrs));
	b->lines = calloc(nr_frames + 1, sizeof(*b->lines));
	b->line_ptrs = calloc(nr_frames + 1, sizeof(*b->line_ptrs));
	b->funcs = calloc(nr_frames + 1, sizeof(*b->funcs));
	b->func_ptrs = calloc(nr_frames + 1, sizeof(*b->func_ptrs));
	if (!b->maps || !b->map_ptrs || !b->locs || !b->loc_ptrs || !b->lines || !b->line_ptrs || !b->funcs ||
	    !b->func_ptrs)
		return -ENOMEM;
	b->prof.mapping = b->map_ptrs;
	/* pprof takes mapping[0] for the main binary: the object of the hottest user frame */
	if (main >= 0 && mapping_of(b, map_of, dso_of, m, f[main].dso, &mi) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < nr_frames; i++) {
		PbLocation *loc = &b->locs[i];

		if (mapping_of(b, map_of, dso_of, m, f[i].dso, &mi) < 0)
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

static int build_samples(struct build *b, const struct profile *p, struct model *m)
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

int pprof__write(const struct profile *p, const struct pprof_meta *m, int fd)
{
	struct build b = { 0 };
	_cleanup_free_ uint8_t *buf = NULL;
	size_t len, nc = 0;
	int err;

	perftools__profiles__profile__init(&b.prof);
	b.strs.by_hash = idmap__new();
	if (!b.strs.by_hash) {
		err = -ENOMEM;
		goto out;
	}
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
		b.bids.names.by_hash = idmap__new();
		if (!b.bids.names.by_hash) {
			err = -ENOMEM;
			goto out;
		}
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
