/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "prof/base/hash.h"
#include "prof/base/hashtable.h"
#include "prof/base/vec.h"
#include "prof/output/pprof.h"
#include "prof/offcpu/offcpu.h"
#include "prof/perfdata/build_id.h"
#include "prof/output/javaframe.h"
#include "prof/output/pyframe.h"
#include "prof/base/util.h"
#include "prof/sys/users.h"
#include "profile.pb-c.h"

typedef Perftools__Profiles__Profile PbProfile;
typedef Perftools__Profiles__ValueType PbValueType;
typedef Perftools__Profiles__Sample PbSample;
typedef Perftools__Profiles__Label PbLabel;
typedef Perftools__Profiles__Mapping PbMapping;
typedef Perftools__Profiles__Location PbLocation;
typedef Perftools__Profiles__Line PbLine;
typedef Perftools__Profiles__Function PbFunction;

#define PAGE 4096u

/* A string table: strings by index, and the index of each by its text. */
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

/* The index of s, added the first time (*created says so, when asked). */
static int64_t str_add(struct strtab *t, const char *s, bool *created)
{
	uint64_t h = hash__bytes(s, strlen(s));
	uint32_t *slot = hashtable__find(&t->index, h, s);
	bool c;

	if (created)
		*created = !slot;
	if (slot)
		return *slot;
	if (VEC_RESERVE(t->v, t->cap, t->nr + 1) < 0 || !(t->v[t->nr] = strdup(s)))
		goto enomem;
	slot = hashtable__insert(&t->index, h, s, &c);
	if (!slot) {
		free(t->v[t->nr]);
		goto enomem;
	}
	*slot = (uint32_t)t->nr;
	return (int64_t)t->nr++;
enomem:
	t->err = -ENOMEM;
	if (created)
		*created = false;
	return 0;
}

static int64_t str_index(struct strtab *t, const char *s)
{
	return str_add(t, s, NULL);
}

static void strtab_release(struct strtab *t)
{
	for (size_t i = 0; i < t->nr; i++)
		free(t->v[i]);
	free(t->v);
	hashtable__release(&t->index);
}

/* ---- building the profile ------------------------------------------------------------ */

/* What a mapping's locations say of it: the range of their addresses, and the one
 * distance from file offsets to addresses they agree on. */
struct map_facts {
	uint64_t lo, hi;
	int64_t delta;                  /* addr - off */
	bool has_range, range_ok, all_named;
};

struct build {
	PbProfile prof;
	struct strtab strs, map_names, func_names;
	PbValueType types[2 * PPROF_MAX_EVENTS], period_type;
	PbValueType *type_ptrs[2 * PPROF_MAX_EVENTS];
	size_t nr_events;               /* each sample has 2 values per event */
	PbMapping *maps;
	struct map_facts *facts;
	size_t cap_maps, cap_facts;
	PbFunction *funcs;
	size_t cap_funcs;
	PbLocation *locs;
	PbLine *lines;                  /* lines[i]: location i's, when it has one */
	size_t cap_locs, cap_lines;
	uint32_t *loc_of;               /* the source's location -> its id, 0 until used */
	PbSample *samples;
	size_t nr_samples, cap_samples;
	uint64_t *ids;                  /* every sample's location ids, one after another */
	size_t nr_ids, cap_ids;
	PbLabel *labels;
	size_t nr_labels, cap_labels;
	size_t *sample_at;              /* per sample: its first id, first label */
	size_t cap_at;
	int64_t *values;
	size_t cap_values;
	int64_t comments[4];
	/* pointer arrays protobuf-c wants, made once everything is in place */
	void **ptrs;
};

static void build_init(struct build *b)
{
	*b = (struct build){ 0 };
	perftools__profiles__profile__init(&b->prof);
	strtab_init(&b->strs);
	strtab_init(&b->map_names);
	strtab_init(&b->func_names);
}

static void build_free(struct build *b)
{
	strtab_release(&b->strs);
	strtab_release(&b->map_names);
	strtab_release(&b->func_names);
	free(b->maps);
	free(b->facts);
	free(b->funcs);
	free(b->locs);
	free(b->lines);
	free(b->loc_of);
	free(b->samples);
	free(b->ids);
	free(b->labels);
	free(b->sample_at);
	free(b->values);
	free(b->ptrs);
}

/* The mapping of l's object (its index), made the first time. */
static int mapping_of(struct build *b, const struct pprof_loc *l, uint32_t *ret)
{
	bool created;
	int64_t i = str_add(&b->map_names, l->obj, &created);
	PbMapping *m;

	if (b->map_names.err)
		return -ENOMEM;
	*ret = (uint32_t)i;
	if (!created) {
		m = &b->maps[i];
		if (!m->build_id && l->build_id && l->build_id[0])
			m->build_id = str_index(&b->strs, l->build_id);
		return 0;
	}
	if (VEC_RESERVE(b->maps, b->cap_maps, (size_t)i + 1) < 0 ||
	    VEC_RESERVE(b->facts, b->cap_facts, (size_t)i + 1) < 0)
		return -ENOMEM;
	m = &b->maps[i];
	perftools__profiles__mapping__init(m);
	m->id = (uint64_t)i + 1;
	m->filename = str_index(&b->strs, l->obj);
	if (l->build_id && l->build_id[0])
		m->build_id = str_index(&b->strs, l->build_id);
	b->facts[i] = (struct map_facts){ .range_ok = true, .all_named = true };
	return 0;
}

/* What location l tells of its mapping. */
static void map_learn(struct map_facts *f, const struct pprof_loc *l)
{
	if (!l->sym)
		f->all_named = false;
	if (!l->has_addr || !l->has_off)
		return;
	if (!f->has_range) {
		*f = (struct map_facts){ .lo = l->addr, .hi = l->addr, .delta = (int64_t)(l->addr - l->off),
					 .has_range = true, .range_ok = f->range_ok, .all_named = f->all_named };
		return;
	}
	f->lo = MIN(f->lo, l->addr);
	f->hi = l->addr > f->hi ? l->addr : f->hi;
	if ((int64_t)(l->addr - l->off) != f->delta)
		f->range_ok = false;    /* two segments: no one range says both */
}

/*
 * The function of symbol sym of object obj (its id), made the first time.  A Python
 * frame's has pprof's own fields: name its qualname, filename its file, start_line
 * its def line when the symbol gives it; system_name keeps the symbol (perf report's
 * and prof report's name), or "qualname (file)" for the lines of one function, which
 * are one function with a line each (location_of).
 */
static int function_of(struct build *b, const char *obj, const char *sym, const char *native_file, uint64_t *ret)
{
	struct pyframe ps;
	struct javaframe js;
	bool py = pyframe__parse(obj, sym, &ps), created;
	bool java = !py && javaframe__parse(obj, sym, &js) && js.file_len;
	/* "qualname (file:" with its ':' made the ')'; a Java method's "pkg.Class.method
	 * (File.java" likewise, each line of it one function's */
	char *key = py && !ps.def ? strndup(sym, ps.file_off + ps.file_len + 1)
		    : java ? strndup(sym, js.file_off + js.file_len + 1) : NULL;
	char *name = py ? strndup(sym, ps.name_len) : java ? strndup(sym, js.name_len) : NULL;
	char *file = py ? strndup(sym + ps.file_off, ps.file_len) : java ? strndup(sym + js.file_off, js.file_len) : NULL;
	int64_t i;
	PbFunction *f;
	int err = -ENOMEM;

	if ((py || java) && (!name || !file || (!(py && ps.def) && !key)))
		goto out;
	if (key)
		key[py ? ps.file_off + ps.file_len : js.file_off + js.file_len] = ')';
	i = str_add(&b->func_names, key ? key : sym, &created);
	if (b->func_names.err)
		goto out;
	*ret = (uint64_t)i + 1;
	err = 0;
	if (!created)
		goto out;
	err = -ENOMEM;
	if (VEC_RESERVE(b->funcs, b->cap_funcs, (size_t)i + 1) < 0)
		goto out;
	f = &b->funcs[i];
	perftools__profiles__function__init(f);
	f->id = (uint64_t)i + 1;
	f->name = f->system_name = str_index(&b->strs, key ? key : sym);
	if (py || java) {
		f->name = str_index(&b->strs, name);
		f->filename = str_index(&b->strs, file);
		f->start_line = py && ps.def ? ps.line : 0;
	} else if (native_file) {
		f->filename = str_index(&b->strs, native_file);
	}
	err = b->strs.err;
out:
	free(key);
	free(name);
	free(file);
	return err;
}

/* The id of the source's location i, made the first time. */
static int location_of(struct build *b, const struct pprof_source *src, uint32_t i, uint64_t *ret)
{
	struct pprof_loc l = { 0 };
	size_t n = b->prof.n_location;
	PbLocation *loc;
	uint32_t mi;
	uint64_t fid = 0;

	if (i >= src->nr_locs)
		return -EINVAL;
	if (b->loc_of[i]) {
		*ret = b->loc_of[i];
		return 0;
	}
	src->loc(src->ctx, i, &l);
	if (!l.obj)
		l.obj = "[unknown]";
	if (mapping_of(b, &l, &mi) < 0 || (l.sym && function_of(b, l.obj, l.sym, l.file, &fid) < 0) ||
	    VEC_RESERVE(b->locs, b->cap_locs, n + 1) < 0 || VEC_RESERVE(b->lines, b->cap_lines, n + 1) < 0)
		return -ENOMEM;
	map_learn(&b->facts[mi], &l);
	loc = &b->locs[n];
	perftools__profiles__location__init(loc);
	loc->id = n + 1;
	loc->mapping_id = (uint64_t)mi + 1;
	loc->address = l.has_addr ? l.addr : 0;
	perftools__profiles__line__init(&b->lines[n]);
	if (l.sym) {
		struct pyframe ps;
		struct javaframe js;

		b->lines[n].function_id = fid;
		/* the line a Python or Java frame ran, where its symbol says it */
		if (pyframe__parse(l.obj, l.sym, &ps) && !ps.def)
			b->lines[n].line = ps.line;
		else if (javaframe__parse(l.obj, l.sym, &js) && js.line > 0)
			b->lines[n].line = js.line;
		else if (l.file && l.line > 0)
			b->lines[n].line = l.line;      /* a Go frame's, from its own table */
		loc->n_line = 1;
	}
	b->prof.n_location = n + 1;
	*ret = b->loc_of[i] = (uint32_t)(n + 1);
	return 0;
}

static void label(struct build *b, PbLabel *l, const struct pprof_label *in)
{
	perftools__profiles__label__init(l);
	l->key = str_index(&b->strs, in->key);
	if (!in->str) {
		l->num = in->num;
		/* a unit makes a zero (uid 0) a value, not an absent label: readers skip
		 * labels with neither a string nor a nonzero number nor a unit */
		l->num_unit = str_index(&b->strs, in->key);
	} else {
		l->str = str_index(&b->strs, in->str);
	}
}

static int add_sample(struct build *b, const struct pprof_source *src, const struct pprof_sample *s)
{
	size_t n = b->nr_samples;
	PbSample *ps;

	size_t nv = 2 * b->nr_events;

	if (s->event >= b->nr_events)
		return -EINVAL;
	if (VEC_RESERVE(b->samples, b->cap_samples, n + 1) < 0 || VEC_RESERVE(b->sample_at, b->cap_at, 2 * n + 2) < 0 ||
	    VEC_RESERVE(b->values, b->cap_values, nv * (n + 1)) < 0 ||
	    VEC_RESERVE(b->ids, b->cap_ids, b->nr_ids + s->nr + 1) < 0 ||
	    VEC_RESERVE(b->labels, b->cap_labels, b->nr_labels + s->nr_labels + 1) < 0)
		return -ENOMEM;
	b->sample_at[2 * n] = b->nr_ids;
	b->sample_at[2 * n + 1] = b->nr_labels;
	for (size_t k = 0; k < s->nr; k++) {
		int err = location_of(b, src, s->locs[k], &b->ids[b->nr_ids]);

		if (err < 0)
			return err;
		b->nr_ids++;
	}
	for (size_t k = 0; k < s->nr_labels; k++)
		label(b, &b->labels[b->nr_labels++], &s->labels[k]);
	ps = &b->samples[n];
	perftools__profiles__sample__init(ps);
	ps->n_location_id = s->nr;
	ps->n_label = s->nr_labels;
	ps->n_value = nv;
	memset(&b->values[nv * n], 0, nv * sizeof(*b->values));
	b->values[nv * n + 2 * s->event] = (int64_t)s->samples;
	b->values[nv * n + 2 * s->event + 1] = (int64_t)s->period;
	b->nr_samples = n + 1;
	return b->strs.err;
}

/*
 * A mapping's range, where its locations' file offsets give one: from the page of
 * the lowest address to past the highest, the file offset of its start.  Readers
 * (pprof's GetBase, Parca) then compute a base of 0 and take the addresses as they
 * are.  Else the fake mapping 0/0/0, which they read the same way.
 */
static void finish_mapping(PbMapping *m, const struct map_facts *f)
{
	uint64_t start = f->lo & ~(uint64_t)(PAGE - 1), limit = ALIGN_UP(f->hi + 1, (uint64_t)PAGE);

	m->has_functions = f->all_named;
	if (!f->has_range || !f->range_ok || (int64_t)start < f->delta)
		return;
	m->memory_start = start;
	m->memory_limit = limit;
	m->file_offset = (uint64_t)((int64_t)start - f->delta);
}

/* The pointer arrays protobuf-c serializes from, now that nothing moves. */
static int link_pointers(struct build *b)
{
	size_t nm = b->map_names.nr, nf = b->func_names.nr, nl = b->prof.n_location, ns = b->nr_samples;
	void **p = b->ptrs = calloc(nm + nf + 2 * nl + ns + b->nr_labels + 1, sizeof(void *));

	if (!p)
		return -ENOMEM;
	b->prof.mapping = (PbMapping **)p;
	b->prof.n_mapping = nm;
	for (size_t i = 0; i < nm; i++) {
		finish_mapping(&b->maps[i], &b->facts[i]);
		*p++ = &b->maps[i];
	}
	b->prof.function = (PbFunction **)p;
	b->prof.n_function = nf;
	for (size_t i = 0; i < nf; i++)
		*p++ = &b->funcs[i];
	b->prof.location = (PbLocation **)p;
	for (size_t i = 0; i < nl; i++)
		*p++ = &b->locs[i];
	for (size_t i = 0; i < nl; i++) {
		b->locs[i].line = (PbLine **)p;
		*p++ = &b->lines[i];
	}
	b->prof.sample = (PbSample **)p;
	b->prof.n_sample = ns;
	for (size_t i = 0; i < ns; i++)
		*p++ = &b->samples[i];
	for (size_t i = 0; i < ns; i++) {
		PbSample *s = &b->samples[i];

		s->location_id = b->ids + b->sample_at[2 * i];
		s->value = &b->values[2 * b->nr_events * i];
		s->label = (PbLabel **)p;
		for (size_t k = 0; k < s->n_label; k++)
			*p++ = &b->labels[b->sample_at[2 * i + 1] + k];
	}
	return 0;
}

static void header(struct build *b, const struct pprof_meta *m)
{
	const struct pprof_event one = { .name = m->event, .time_period = m->time_period, .period = m->period };
	const struct pprof_event *ev = m->nr_events > 1 ? m->events : &one;
	size_t ne = m->nr_events > 1 ? MIN(m->nr_events, (size_t)PPROF_MAX_EVENTS) : 1, nc = 0;
	char name[256];

	str_index(&b->strs, "");        /* string_table[0] must be "" */
	b->nr_events = ne;
	for (size_t i = 0; i < 2 * ne; i++) {
		perftools__profiles__value_type__init(&b->types[i]);
		b->type_ptrs[i] = &b->types[i];
	}
	for (size_t i = 0; i < ne; i++) {
		const char *e = ev[i].name ? ev[i].name : "events";
		PbValueType *count = &b->types[2 * i], *period = &b->types[2 * i + 1];

		/* one event, as Go names them: samples/count, cpu/nanoseconds; several: by event */
		if (ne == 1)
			snprintf(name, sizeof(name), "samples");
		else
			snprintf(name, sizeof(name), "%s_samples", e);
		count->type = str_index(&b->strs, name);
		count->unit = str_index(&b->strs, "count");
		period->type = str_index(&b->strs, ne == 1 && ev[i].time_period ? "cpu" : e);
		period->unit = str_index(&b->strs, ev[i].time_period ? "nanoseconds" : "count");
	}
	b->prof.n_sample_type = 2 * ne;
	b->prof.sample_type = b->type_ptrs;
	b->period_type = b->types[1];
	b->prof.period_type = &b->period_type;
	b->prof.period = ev[0].period;
	b->prof.time_nanos = m->time_ns;
	b->prof.duration_nanos = m->duration_ns;
	b->prof.default_sample_type = b->types[1].type;
	for (; nc < ARRAY_SIZE(m->comments) && m->comments[nc]; nc++)
		b->comments[nc] = str_index(&b->strs, m->comments[nc]);
	b->prof.comment = b->comments;
	b->prof.n_comment = nc;
}

/* buf gzipped, into *ret (malloc'd).  0 or -ENOMEM. */
static int gzip_buf(const uint8_t *buf, size_t len, uint8_t **ret, size_t *ret_len)
{
	z_stream z = { 0 };
	size_t cap;
	uint8_t *out;
	int r;

	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	cap = deflateBound(&z, len) + 32;
	out = malloc(cap);
	if (!out) {
		deflateEnd(&z);
		return -ENOMEM;
	}
	z.next_in = (uint8_t *)buf;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	r = deflate(&z, Z_FINISH);
	*ret_len = z.total_out;
	deflateEnd(&z);
	if (r != Z_STREAM_END) {
		free(out);
		return -ENOMEM;
	}
	*ret = out;
	return 0;
}

int pprof__encode(const struct pprof_source *src, const struct pprof_meta *m, uint8_t **ret, size_t *ret_len)
{
	struct build b;
	_cleanup_free_ uint8_t *buf = NULL;
	struct pprof_sample s;
	uint64_t unused;
	size_t len;
	int err = 0;

	*ret = NULL;
	*ret_len = 0;
	build_init(&b);
	header(&b, m);
	b.loc_of = calloc(src->nr_locs + 1, sizeof(*b.loc_of));
	if (!b.loc_of)
		err = -ENOMEM;
	/* pprof takes mapping 1 for the main binary */
	if (!err && src->main_loc >= 0)
		err = location_of(&b, src, (uint32_t)src->main_loc, &unused);
	for (size_t i = 0; i < src->nr_samples && !err; i++)
		if (src->sample(src->ctx, i, &s))
			err = add_sample(&b, src, &s);
	if (!err)
		err = b.strs.err ? b.strs.err : link_pointers(&b);
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
	err = gzip_buf(buf, len, ret, ret_len);
out:
	build_free(&b);
	return err;
}

/* ---- the engine's profile as a source ------------------------------------------------- */

/* HEADER_BUILD_ID's file names; hex[i] their ids. */
struct bid_table {
	struct strtab names;
	char (*hex)[2 * 20 + 1];
	size_t cap_hex;
};

/* One engine's profile, the samples of event `event`. */
struct engine_src {
	const struct profile *p;
	const struct pprof_meta *m;
	uint32_t event;
	const struct profile_frame *frames;
	const struct profile_entry *entries;
	struct bid_table *bids;
	struct users *users;
	struct pprof_label labels[11];  /* uid, user, cgroup, container, container_name, comm, pid, holder,
					 * holder_cgroup, holder_container, holder_container_name */
	char holder[64];                /* the holder label's text, for one sample */
	char hex[2 * 20 + 1];
};

static void hex(char *dst, const uint8_t *id, size_t len)
{
	struct build_id b = { .size = (uint8_t)MIN(len, (size_t)BUILD_ID_MAX) };

	memcpy(b.data, id, b.size);
	build_id__hex(&b, dst, 2 * 20 + 1);
}

static int bid_add(const struct reader_build_id *b, void *ctx)
{
	struct bid_table *t = ctx;
	bool created;
	int64_t i = str_add(&t->names, b->filename, &created);

	if (t->names.err)
		return t->names.err;
	if (!created)
		return 0;               /* the first record of a path wins */
	if (VEC_RESERVE(t->hex, t->cap_hex, t->names.nr) < 0)
		return -ENOMEM;
	hex(t->hex[i], b->data, MIN(b->size, (uint8_t)20));
	return 0;
}

/* An object's build id: the recording's HEADER_BUILD_ID, else what the model's MMAP2
 * records of it carried (the first of that name with one). */
static const char *engine_bid(struct engine_src *e, const char *dso)
{
	const uint32_t *slot = hashtable__find(&e->bids->names.index, hash__bytes(dso, strlen(dso)), dso);
	const struct model_dso *d;

	if (slot && e->bids->hex[*slot][0])
		return e->bids->hex[*slot];
	for (uint32_t i = 0; e->m->model && (d = model__dso(e->m->model, i)); i++)
		if (d->name == dso && d->build_id_len) {
			hex(e->hex, d->build_id, MIN(d->build_id_len, (size_t)20));
			return e->hex;
		}
	return NULL;
}

static void engine_loc(void *ctx, uint32_t i, struct pprof_loc *ret)
{
	struct engine_src *e = ctx;
	const struct profile_frame *f = &e->frames[i];

	*ret = (struct pprof_loc){ .obj = f->dso, .build_id = engine_bid(e, f->dso), .sym = f->sym,
				   .has_addr = f->has_addr, .addr = f->addr, .has_off = f->has_addr, .off = f->off };
	/* what prof could not name, a backend may, by the address and the build id */
	if (f->has_addr && !strncmp(f->sym, "[unknown]", 9))
		ret->sym = NULL;
	else if (f->has_addr && !f->kernel && !f->inlined && e->m->line) {
		int32_t line;

		if (e->m->line(e->m->line_ctx, f->dso, f->off, &ret->file, &line))
			ret->line = line;
	}
}

static bool engine_sample(void *ctx, size_t i, struct pprof_sample *ret)
{
	struct engine_src *e = ctx;
	const struct profile_entry *en = &e->entries[i];
	const char *cg = en->task.cgroup && e->m->model ? model__cgroup(e->m->model, en->task.cgroup) : NULL;
	const uint32_t *ids;
	const char *user, *name;
	size_t n, nl = 0;

	ids = profile__stack(e->p, en->stack, &n);
	if (en->task.uid_known) {
		e->labels[nl++] = (struct pprof_label){ .key = "uid", .num = en->task.uid };
		user = users__name(e->users, en->task.uid);
		if (user)
			e->labels[nl++] = (struct pprof_label){ .key = "user", .str = user };
	}
	if (cg)
		e->labels[nl++] = (struct pprof_label){ .key = "cgroup", .str = cg };
	/* the id, empty for a host task (as pprof writes an empty string: index 0) */
	if (en->task.container)
		e->labels[nl++] = (struct pprof_label){ .key = "container", .str = en->task.container };
	/* its runtime's name, where the file has one */
	name = en->task.container && en->task.container[0] && e->m->model ?
		       model__container_name(e->m->model, en->task.container) : NULL;
	if (name)
		e->labels[nl++] = (struct pprof_label){ .key = "container_name", .str = name };
	if (en->task.comm)
		e->labels[nl++] = (struct pprof_label){ .key = "comm", .str = en->task.comm };
	if (en->task.pid > 0)
		e->labels[nl++] = (struct pprof_label){ .key = "pid", .num = en->task.pid };
	if (en->task.holder) {
		/* who held the CPU an offcpu-runq sample waited for */
		user = en->task.holder >= OFFCPU_HOLDER_UID ? users__name(e->users, en->task.holder - OFFCPU_HOLDER_UID)
							     : NULL;
		offcpu__holder_text(en->task.holder, user, e->holder, sizeof(e->holder));
		e->labels[nl++] = (struct pprof_label){ .key = "holder", .str = e->holder };
	}
	/* a holder task's cgroup and container (root's and the admins' files) */
	cg = en->task.holder_cgroup && e->m->model ? model__cgroup(e->m->model, en->task.holder_cgroup) : NULL;
	if (cg)
		e->labels[nl++] = (struct pprof_label){ .key = "holder_cgroup", .str = cg };
	if (en->task.holder_container)
		e->labels[nl++] = (struct pprof_label){ .key = "holder_container", .str = en->task.holder_container };
	name = en->task.holder_container && en->task.holder_container[0] && e->m->model ?
		       model__container_name(e->m->model, en->task.holder_container) : NULL;
	if (name)
		e->labels[nl++] = (struct pprof_label){ .key = "holder_container_name", .str = name };
	*ret = (struct pprof_sample){ .locs = ids, .nr = n, .samples = en->samples, .period = en->period,
				      .event = e->event, .labels = e->labels, .nr_labels = nl };
	return true;
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

static int write_all(int fd, const uint8_t *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -EIO;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

size_t pprof__keys(enum profile_key keys[PROFILE_KEY__MAX])
{
	static const enum profile_key labelled[] = { PROFILE_KEY_UID, PROFILE_KEY_CGROUP, PROFILE_KEY_CONTAINER,
						     PROFILE_KEY_COMM, PROFILE_KEY_PID, PROFILE_KEY_HOLDER,
						     PROFILE_KEY_HOLDER_CGROUP, PROFILE_KEY_HOLDER_CONTAINER };

	memcpy(keys, labelled, sizeof(labelled));
	return ARRAY_SIZE(labelled);
}

/* Several engines as one source: their locations, then their samples, one after another. */
struct engines_src {
	struct engine_src e[PPROF_MAX_EVENTS];
	size_t n;
	size_t loc_off[PPROF_MAX_EVENTS + 1], sample_off[PPROF_MAX_EVENTS + 1];
	uint32_t *locs;                 /* a sample's locations, moved to the source's indexes */
	struct users users;
};

/* Room in s->locs for the deepest stack of the engines after the first. */
static int engines_reserve(struct engines_src *s)
{
	size_t deepest = 1, n;

	for (size_t k = 1; k < s->n; k++) {
		const struct profile_entry *en = s->e[k].entries;

		for (size_t i = 0; i < s->sample_off[k + 1] - s->sample_off[k]; i++) {
			profile__stack(s->e[k].p, en[i].stack, &n);
			deepest = MAX(deepest, n);
		}
	}
	s->locs = malloc(deepest * sizeof(*s->locs));
	return s->locs ? 0 : -ENOMEM;
}

static size_t engine_at(const size_t *off, size_t n, size_t i)
{
	size_t k = 0;

	while (k + 1 < n && i >= off[k + 1])
		k++;
	return k;
}

static void engines_loc(void *ctx, uint32_t i, struct pprof_loc *ret)
{
	struct engines_src *s = ctx;
	size_t k = engine_at(s->loc_off, s->n, i);

	engine_loc(&s->e[k], (uint32_t)(i - s->loc_off[k]), ret);
}

static bool engines_sample(void *ctx, size_t i, struct pprof_sample *ret)
{
	struct engines_src *s = ctx;
	size_t k = engine_at(s->sample_off, s->n, i);

	if (!engine_sample(&s->e[k], i - s->sample_off[k], ret))
		return false;
	if (!s->loc_off[k])
		return true;
	for (size_t j = 0; j < ret->nr; j++)
		s->locs[j] = (uint32_t)(ret->locs[j] + s->loc_off[k]);
	ret->locs = s->locs;
	return true;
}

int pprof__write_events(const struct profile *const *profiles, const struct pprof_meta *m, int fd)
{
	size_t n = m->nr_events > 1 ? MIN(m->nr_events, (size_t)PPROF_MAX_EVENTS) : 1;
	struct engines_src *s = calloc(1, sizeof(*s));
	struct bid_table bids = { 0 };
	struct pprof_source src = { .loc = engines_loc, .sample = engines_sample, .ctx = s };
	_cleanup_free_ uint8_t *out = NULL;
	size_t len, nl, ns;
	int err = 0;

	if (!s)
		return -ENOMEM;
	strtab_init(&bids.names);
	s->n = n;
	for (size_t k = 0; k < n; k++) {
		struct engine_src *e = &s->e[k];

		*e = (struct engine_src){ .p = profiles[k], .m = m, .event = (uint32_t)k, .bids = &bids,
					  .users = &s->users };
		e->frames = profile__frames(profiles[k], &nl);
		e->entries = profile__entries(profiles[k], &ns);
		s->loc_off[k + 1] = s->loc_off[k] + nl;
		s->sample_off[k + 1] = s->sample_off[k] + ns;
	}
	src.nr_locs = s->loc_off[n];
	src.nr_samples = s->sample_off[n];
	src.main_loc = main_frame(profiles[0]);
	err = engines_reserve(s);
	if (!err && m->reader)
		err = perf_reader__for_each_build_id(m->reader, bid_add, &bids);
	if (!err)
		err = pprof__encode(&src, m, &out, &len);
	if (!err)
		err = write_all(fd, out, len);
	strtab_release(&bids.names);
	free(bids.hex);
	free(s->locs);
	free(s);
	return err;
}

int pprof__write(const struct profile *p, const struct pprof_meta *m, int fd)
{
	struct pprof_meta one = *m;

	one.nr_events = 0;
	return pprof__write_events(&p, &one, fd);
}
