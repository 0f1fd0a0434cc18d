/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <perf/event.h>

#include "prof/perfdata/perf_reader.h"
#include "prof/base/util.h"

#define MAX_FILE_SIZE (64ull << 30)
#define MAX_IDS (1u << 20)

struct id_entry {
	uint64_t id;
	uint32_t attr;
};

struct perf_reader {
	const uint8_t *buf;             /* the file, mapped read-only */
	uint64_t size;
	struct perf_file_header hdr;
	struct reader_attr attrs[READER_MAX_ATTRS];
	size_t nr_attrs;
	struct id_entry *ids;           /* sorted by id */
	size_t nr_ids;
	struct perf_file_section feats[PERF_HEADER_FEAT_BITS];
	bool has_feat[PERF_HEADER_FEAT_BITS];
	struct perf_file_section prof;  /* from the trailer; size 0 when none */
	enum { ID_NONE, ID_IDENTIFIER, ID_SINGLE } id_mode;
	uint64_t pos, end;              /* iteration over the data section */
	uint64_t unknown;
	char strings[8][256];           /* decoded string features */
	uint64_t scratch[65536 / 8];    /* a record that follows an odd-sized one, aligned */
};

__attribute__((format(printf, 4, 5)))
static int bad(struct reader_error *e, uint64_t off, uint32_t type, const char *fmt, ...)
{
	va_list ap;

	if (e) {
		e->offset = off;
		e->type = type;
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* [off, off+len) lies inside the file (no overflow). */
static bool in_file(const struct perf_reader *r, uint64_t off, uint64_t len)
{
	return off <= r->size && len <= r->size - off;
}

static int cmp_id(const void *a, const void *b)
{
	const struct id_entry *x = a, *y = b;
	return (x->id > y->id) - (x->id < y->id);
}

static int read_attrs(struct perf_reader *r, struct reader_error *err)
{
	const struct perf_file_header *h = &r->hdr;
	uint64_t total_ids = 0;

	if (h->attr_size < PERF_ATTR_SIZE_VER0 + sizeof(struct perf_file_section) || h->attr_size > 4096)
		return bad(err, 16, 0, "attr size %llu is not one perf writes", (unsigned long long)h->attr_size);
	if (h->attrs.size % h->attr_size || h->attrs.size == 0 || !in_file(r, h->attrs.offset, h->attrs.size))
		return bad(err, 24, 0, "attrs section (offset %llu, size %llu) is not inside the file or not a "
			   "multiple of the attr size", (unsigned long long)h->attrs.offset,
			   (unsigned long long)h->attrs.size);
	r->nr_attrs = h->attrs.size / h->attr_size;
	if (r->nr_attrs > READER_MAX_ATTRS)
		return bad(err, 24, 0, "%zu events: more than %d", r->nr_attrs, READER_MAX_ATTRS);
	for (size_t i = 0; i < r->nr_attrs; i++) {
		uint64_t off = h->attrs.offset + i * h->attr_size;
		size_t asz = h->attr_size - sizeof(struct perf_file_section);
		struct perf_file_section ids;
		struct perf_event_attr *a = &r->attrs[i].attr;
		uint32_t declared;

		memcpy(&declared, r->buf + off + 4, 4);
		/* attr.size says how much of the attr is meaningful; never trust it past asz */
		if (declared < PERF_ATTR_SIZE_VER0 || declared > asz)
			return bad(err, off, 0, "event %zu: attr size %u does not fit its %zu-byte slot", i, declared, asz);
		memset(a, 0, sizeof(*a));
		memcpy(a, r->buf + off, MIN((size_t)declared, sizeof(*a)));
		memcpy(&ids, r->buf + off + asz, sizeof(ids));
		if (ids.size % 8 || !in_file(r, ids.offset, ids.size))
			return bad(err, off + asz, 0, "event %zu: ids section is not inside the file", i);
		r->attrs[i].nr_ids = ids.size / 8;
		total_ids += ids.size / 8;
		if (total_ids > MAX_IDS)
			return bad(err, off + asz, 0, "more than %u sample ids", MAX_IDS);
	}
	r->ids = calloc(total_ids ? total_ids : 1, sizeof(*r->ids));
	if (!r->ids)
		return -ENOMEM;
	for (size_t i = 0; i < r->nr_attrs; i++) {
		uint64_t off = h->attrs.offset + i * h->attr_size + h->attr_size - sizeof(struct perf_file_section);
		struct perf_file_section ids;

		memcpy(&ids, r->buf + off, sizeof(ids));
		for (uint64_t k = 0; k < ids.size / 8; k++) {
			memcpy(&r->ids[r->nr_ids].id, r->buf + ids.offset + 8 * k, 8);
			r->ids[r->nr_ids++].attr = (uint32_t)i;
		}
	}
	qsort(r->ids, r->nr_ids, sizeof(*r->ids), cmp_id);
	/* How a record names its event (perf's rule): IDENTIFIER in every attr, or one attr. */
	r->id_mode = ID_IDENTIFIER;
	for (size_t i = 0; i < r->nr_attrs; i++)
		if (!(r->attrs[i].attr.sample_type & PERF_SAMPLE_IDENTIFIER))
			r->id_mode = ID_NONE;
	if (r->id_mode == ID_NONE && r->nr_attrs == 1)
		r->id_mode = ID_SINGLE;
	if (r->id_mode == ID_NONE) {
		/* perf also accepts same sample types with ID: then events are told by ID */
		bool same = true;
		for (size_t i = 1; i < r->nr_attrs; i++)
			same &= r->attrs[i].attr.sample_type == r->attrs[0].attr.sample_type;
		if (!same)
			return bad(err, 24, 0, "%zu events without PERF_SAMPLE_IDENTIFIER and with different "
				   "sample types: records cannot be told apart", r->nr_attrs);
		r->id_mode = ID_SINGLE;         /* identical layouts: any attr parses any record */
	}
	return 0;
}

static void read_string(struct perf_reader *r, unsigned int feat, char *out, size_t outlen)
{
	const struct perf_file_section *s = &r->feats[feat];
	uint32_t len;

	out[0] = '\0';
	if (s->size < 4)
		return;
	memcpy(&len, r->buf + s->offset, 4);
	if (len > s->size - 4)
		return;
	snprintf(out, outlen, "%.*s", (int)strnlen((const char *)r->buf + s->offset + 4, len),
		 (const char *)r->buf + s->offset + 4);
}

static void read_event_desc(struct perf_reader *r)
{
	const struct perf_file_section *s = &r->feats[HEADER_EVENT_DESC];
	const uint8_t *p = r->buf + s->offset, *end = p + s->size;
	uint32_t nr, asz;

	if (s->size < 8)
		return;
	memcpy(&nr, p, 4);
	memcpy(&asz, p + 4, 4);
	p += 8;
	for (uint32_t i = 0; i < nr && i < r->nr_attrs; i++) {
		uint32_t nids, slen;

		if ((size_t)(end - p) < (size_t)asz + 8)
			return;
		p += asz;
		memcpy(&nids, p, 4);
		memcpy(&slen, p + 4, 4);
		p += 8;
		if (slen > (size_t)(end - p))
			return;
		snprintf(r->attrs[i].name, sizeof(r->attrs[i].name), "%.*s",
			 (int)strnlen((const char *)p, slen), (const char *)p);
		p += slen;
		if ((uint64_t)nids * 8 > (size_t)(end - p))
			return;
		p += (size_t)nids * 8;
	}
}

static int read_features(struct perf_reader *r, struct reader_error *err)
{
	const struct perf_file_header *h = &r->hdr;
	uint64_t off = h->data.offset + h->data.size, n = 0;

	for (unsigned b = 0; b < PERF_HEADER_FEAT_BITS; b++)
		if (h->adds_features[b / 64] & (1ull << (b % 64)))
			n++;
	if (!n)
		return 0;
	if (!in_file(r, off, n * sizeof(struct perf_file_section)))
		return bad(err, off, 0, "the feature section table (%llu entries) is past the end of the file",
			   (unsigned long long)n);
	for (unsigned b = 0, i = 0; b < PERF_HEADER_FEAT_BITS; b++) {
		struct perf_file_section s;

		if (!(h->adds_features[b / 64] & (1ull << (b % 64))))
			continue;
		memcpy(&s, r->buf + off + (uint64_t)i++ * sizeof(s), sizeof(s));
		/* A broken section is ignored, not fatal: features are descriptive. */
		if (!in_file(r, s.offset, s.size))
			continue;
		r->feats[b] = s;
		r->has_feat[b] = true;
	}
	if (r->has_feat[HEADER_EVENT_DESC])
		read_event_desc(r);
	return 0;
}

/* The trailer that names prof's section; a broken one is ignored like a broken feature. */
static void read_trailer(struct perf_reader *r)
{
	struct prof_trailer t;
	uint64_t data_end = r->hdr.data.offset + r->hdr.data.size;

	if (r->size < data_end + sizeof(t))
		return;
	memcpy(&t, r->buf + r->size - sizeof(t), sizeof(t));
	/* the section lies after the data and before the trailer */
	if (t.magic != PROF_TRAILER_MAGIC || t.offset < data_end || !in_file(r, t.offset, t.size) ||
	    t.offset + t.size > r->size - sizeof(t))
		return;
	r->prof = (struct perf_file_section){ .offset = t.offset, .size = t.size };
}

static const unsigned int string_feats[] = { HEADER_HOSTNAME, HEADER_OSRELEASE, HEADER_VERSION,
					      HEADER_ARCH, HEADER_CPUDESC };

/* The header, read before anything else of the file is touched. */
static int check_header(const struct perf_file_header *h, uint64_t size, struct reader_error *err)
{
	if (h->magic != PERF_MAGIC2) {
		if (__builtin_bswap64(h->magic) == PERF_MAGIC2)
			return bad(err, 0, 0, "a big-endian perf.data: not supported");
		return bad(err, 0, 0, "not a perf.data file (no PERFILE2 magic)");
	}
	if (h->size != sizeof(*h))
		return bad(err, 8, 0, "header size %llu, expected %zu", (unsigned long long)h->size, sizeof(*h));
	if (h->data.offset > size || h->data.size > size - h->data.offset || h->data.offset < sizeof(*h) ||
	    h->data.offset % 8)
		return bad(err, 40, 0, "data section (offset %llu, size %llu) is not inside the %llu-byte file: "
			   "truncated?", (unsigned long long)h->data.offset, (unsigned long long)h->data.size,
			   (unsigned long long)size);
	if (h->data.size == 0)
		return bad(err, 40, 0, "the data size is 0: the recording was not finished");
	return 0;
}

int perf_reader__open(const char *path, struct perf_reader **ret, struct reader_error *err)
{
	/* O_NONBLOCK: a FIFO named as the input must not hang the open */
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct perf_file_header hdr;
	struct perf_reader *r;
	struct stat st;
	void *map;
	ssize_t n;
	int e;

	if (err)
		*err = (struct reader_error){ 0 };
	if (fd < 0) {
		e = -errno;
		if (err)
			snprintf(err->msg, sizeof(err->msg), "cannot open: %s", strerror(-e));
		return e;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return bad(err, 0, 0, "not a regular file");
	if ((uint64_t)st.st_size > MAX_FILE_SIZE)
		return bad(err, 0, 0, "larger than %llu GiB", MAX_FILE_SIZE >> 30);
	if ((uint64_t)st.st_size < sizeof(hdr))
		return bad(err, 0, 0, "%llu bytes: shorter than a perf.data header (truncated?)",
			   (unsigned long long)st.st_size);
	do
		n = pread(fd, &hdr, sizeof(hdr), 0);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(hdr))
		return bad(err, 0, 0, "cannot read the header: %s", n < 0 ? strerror(errno) : "short read");
	e = check_header(&hdr, (uint64_t)st.st_size, err);
	if (e < 0)
		return e;
	/*
	 * Mapped, not read: only the pages the report touches cost memory, so a huge
	 * file costs what its header, attrs and records need.  (A file truncated under
	 * the report by its writer would fault: the files read are the user's own.)
	 */
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return bad(err, 0, 0, "cannot map the file: %s", strerror(errno));
	r = calloc(1, sizeof(*r));
	if (!r) {
		munmap(map, (size_t)st.st_size);
		return -ENOMEM;
	}
	r->buf = map;
	r->size = (uint64_t)st.st_size;
	r->hdr = hdr;
	e = read_attrs(r, err);
	if (e < 0)
		goto fail;
	e = read_features(r, err);
	if (e < 0)
		goto fail;
	read_trailer(r);
	for (size_t i = 0; i < ARRAY_SIZE(string_feats); i++)
		if (r->has_feat[string_feats[i]])
			read_string(r, string_feats[i], r->strings[i], sizeof(r->strings[i]));
	r->pos = r->hdr.data.offset;
	r->end = r->hdr.data.offset + r->hdr.data.size;
	*ret = r;
	return 0;
fail:
	perf_reader__free(r);
	return e;
}

struct perf_reader *perf_reader__free(struct perf_reader *r)
{
	if (r) {
		if (r->buf)
			munmap((void *)r->buf, (size_t)r->size);
		free(r->ids);
		free(r);
	}
	return NULL;
}

size_t perf_reader__nr_attrs(const struct perf_reader *r)
{
	return r->nr_attrs;
}

const struct reader_attr *perf_reader__attr(const struct perf_reader *r, size_t i)
{
	return i < r->nr_attrs ? &r->attrs[i] : NULL;
}

const char *perf_reader__feature_string(const struct perf_reader *r, unsigned int feat)
{
	for (size_t i = 0; i < ARRAY_SIZE(string_feats); i++)
		if (string_feats[i] == feat)
			return r->has_feat[feat] && r->strings[i][0] ? r->strings[i] : NULL;
	return NULL;
}

const void *perf_reader__feature(const struct perf_reader *r, unsigned int feat, size_t *ret_len)
{
	if (feat >= PERF_HEADER_FEAT_BITS || !r->has_feat[feat])
		return NULL;
	*ret_len = r->feats[feat].size;
	return r->buf + r->feats[feat].offset;
}

const char *perf_reader__prof_section(const struct perf_reader *r, size_t *ret_len)
{
	if (r->prof.size) {
		*ret_len = r->prof.size;
		return (const char *)r->buf + r->prof.offset;
	}
	return perf_reader__feature(r, HEADER_PROF_SCOPE_OLD, ret_len);
}

int perf_reader__for_each_build_id(const struct perf_reader *r,
				   int (*fn)(const struct reader_build_id *b, void *ctx), void *ctx)
{
	struct perf_record_header_build_id e;
	const uint8_t *p, *end;

	if (!r->has_feat[HEADER_BUILD_ID])
		return 0;
	p = r->buf + r->feats[HEADER_BUILD_ID].offset;
	end = p + r->feats[HEADER_BUILD_ID].size;
	while ((size_t)(end - p) > sizeof(e)) {
		struct reader_build_id b;
		size_t name_max;
		int ret;

		memcpy(&e, p, sizeof(e));
		if (e.header.size <= sizeof(e) || e.header.size > (size_t)(end - p))
			return 0;
		name_max = e.header.size - sizeof(e);
		if (strnlen((const char *)p + sizeof(e), name_max) == name_max)
			return 0;       /* the name must end inside its record */
		b = (struct reader_build_id){ .misc = e.header.misc, .pid = e.pid,
					      .filename = (const char *)p + sizeof(e) };
		b.size = (e.header.misc & PERF_RECORD_MISC_BUILD_ID_SIZE) ? e.size : 20;
		if (b.size == 0 || b.size > 20)
			return 0;
		memcpy(b.data, e.data, b.size);
		ret = fn(&b, ctx);
		if (ret)
			return ret;
		p += e.header.size;
	}
	return 0;
}

uint64_t perf_reader__unknown_records(const struct perf_reader *r)
{
	return r->unknown;
}

/* The smallest size each kernel record type can have (without sample_id_all). */
static uint32_t min_size(uint32_t type)
{
	switch (type) {
	case PERF_RECORD_MMAP: return 8 + 8 + 24 + 1;
	case PERF_RECORD_MMAP2: return 8 + 8 + 24 + 24 + 8 + 1;
	case PERF_RECORD_COMM: return 8 + 8 + 1;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: return 8 + 16 + 8;
	case PERF_RECORD_LOST: return 8 + 16;
	case PERF_RECORD_LOST_SAMPLES: return 8 + 8;
	case PERF_RECORD_CGROUP: return 8 + 8 + 1;
	case PERF_RECORD_SAMPLE: return 8;
	default: return 8;
	}
}

int perf_reader__next(struct perf_reader *r, const struct perf_event_header **ret_ev,
		      uint64_t *ret_offset, struct reader_error *err)
{
	struct perf_event_header h;

	if (r->pos >= r->end)
		return 0;
	if (r->end - r->pos < sizeof(h))
		return bad(err, r->pos, 0, "%llu stray bytes at the end of the data", (unsigned long long)(r->end - r->pos));
	memcpy(&h, r->buf + r->pos, sizeof(h));
	if (h.size < sizeof(h))
		return bad(err, r->pos, h.type, "record size %u is smaller than a record header", h.size);
	if (h.size > r->end - r->pos)
		return bad(err, r->pos, h.type, "record of %u bytes runs past the end of the data (%llu left): truncated?",
			   h.size, (unsigned long long)(r->end - r->pos));
	if (h.size < min_size(h.type))
		return bad(err, r->pos, h.type, "record of %u bytes is smaller than its type's minimum %u",
			   h.size, min_size(h.type));
	/* every record the kernel writes is a multiple of 8 bytes: anything else is
	 * corruption.  perf's own records need not be (perf inject -b writes 100-byte
	 * HEADER_BUILD_IDs); records are read with memcpy, so alignment is not needed. */
	if (h.size % 8 && h.type < PERF_RECORD_USER_TYPE_START)
		return bad(err, r->pos, h.type, "record size %u is not a multiple of 8", h.size);
	if (h.type == 0 || (h.type > PERF_RECORD_MAX && h.type < PERF_RECORD_USER_TYPE_START) ||
	    h.type >= PERF_RECORD_HEADER_MAX)
		r->unknown++;
	*ret_ev = (const void *)(r->buf + r->pos);
	if (r->pos % 8) {
		/* after an odd-sized perf record: give the caller an aligned copy */
		memcpy(r->scratch, r->buf + r->pos, h.size);
		*ret_ev = (const void *)r->scratch;
	}
	*ret_offset = r->pos;
	r->pos += h.size;
	if (h.type == PERF_RECORD_AUXTRACE && h.size >= 16) {
		/* AUX data follows the record, outside its size */
		uint64_t aux;
		memcpy(&aux, r->buf + *ret_offset + 8, 8);
		if (aux % 8 || aux > r->end - r->pos)
			return bad(err, *ret_offset, h.type, "AUX data of %llu bytes runs past the end of the data",
				   (unsigned long long)aux);
		r->pos += aux;
	}
	return 1;
}

static const struct reader_attr *attr_of_id(const struct perf_reader *r, uint64_t id)
{
	struct id_entry key = { .id = id }, *e;

	if (!r->nr_ids || (r->id_mode == ID_SINGLE && r->nr_attrs == 1))
		return &r->attrs[0];
	e = bsearch(&key, r->ids, r->nr_ids, sizeof(*r->ids), cmp_id);
	/* perf's rule for id 0 (synthesized records): the first event */
	return e ? &r->attrs[e->attr] : (id == 0 ? &r->attrs[0] : NULL);
}

uint64_t perf_reader__time(const struct perf_reader *r, const struct perf_event_header *ev)
{
	const struct reader_attr *a;
	uint64_t st, id = 0, v;
	int back = 0;

	if (ev->type == PERF_RECORD_SAMPLE) {
		struct sample s;
		return perf_reader__parse_sample(r, ev, 0, &s, NULL, NULL) == 0 ? s.time : 0;
	}
	if (ev->type >= PERF_RECORD_USER_TYPE_START)
		return 0;
	if (r->id_mode == ID_IDENTIFIER) {
		if (ev->size < 16)
			return 0;
		memcpy(&id, (const uint8_t *)ev + ev->size - 8, 8);
	}
	a = attr_of_id(r, id);
	if (!a || !a->attr.sample_id_all || !((st = a->attr.sample_type) & PERF_SAMPLE_TIME))
		return 0;
	/* trailer: TID TIME ID STREAM_ID CPU IDENTIFIER: count what follows TIME */
	back = 1 + !!(st & PERF_SAMPLE_ID) + !!(st & PERF_SAMPLE_STREAM_ID) + !!(st & PERF_SAMPLE_CPU) +
	       !!(st & PERF_SAMPLE_IDENTIFIER);
	if (ev->size < sizeof(*ev) + 8u * (unsigned)back)
		return 0;
	memcpy(&v, (const uint8_t *)ev + ev->size - 8 * back, 8);
	return v;
}

int perf_reader__parse_sample(const struct perf_reader *r, const struct perf_event_header *ev,
			      uint64_t off, struct sample *s, const struct reader_attr **ret_attr,
			      struct reader_error *err)
{
	const struct reader_attr *a = &r->attrs[0];
	uint64_t id;
	int e;

	if (r->id_mode == ID_IDENTIFIER) {
		if (ev->size < sizeof(*ev) + 8)
			return bad(err, off, ev->type, "sample too short for its id");
		memcpy(&id, ev + 1, 8);
		a = attr_of_id(r, id);
		if (!a)
			return bad(err, off, ev->type, "sample id %llu names no event", (unsigned long long)id);
	}
	e = sample__decode(s, &a->attr, ev);
	/* one layout for all, but events told apart by PERF_SAMPLE_ID (perf record of
	 * -e a,b without -a): the sample's id names its event */
	if (e == 0 && r->id_mode == ID_SINGLE && r->nr_attrs > 1 && (a->attr.sample_type & PERF_SAMPLE_ID)) {
		a = attr_of_id(r, s->id);
		if (!a)
			return bad(err, off, ev->type, "sample id %llu names no event", (unsigned long long)s->id);
	}
	if (e == -E2BIG)
		return bad(err, off, ev->type, "call chain of %llu entries", (unsigned long long)s->nr_callchain);
	if (e < 0)
		return bad(err, off, ev->type, "sample of %u bytes is shorter than its fields (sample_type %#llx)",
			   ev->size, (unsigned long long)a->attr.sample_type);
	if (ret_attr)
		*ret_attr = a;
	return 0;
}
