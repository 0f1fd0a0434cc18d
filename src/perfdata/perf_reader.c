/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <perf/event.h>

#include "prof/perfdata/perf_reader.h"
#include "prof/perfdata/record_stream.h"
#include "prof/base/util.h"

#define MAX_FILE_SIZE (64ull << 30)
#define MAX_IDS (1u << 20)
#define MAX_FEATURE_SIZE (64u << 20)    /* a larger section is ignored, like a broken one */
#define UNFINISHED_SCAN (1u << 20)      /* where the ids and attrs of a header never written may lie */

struct id_entry {
	uint64_t id;
	uint32_t attr;
};

/* The attrs of the ids met last: perf record -a gives each CPU its id, so a sample's
 * id is one of a few; a hit saves the bsearch over every id of the file. */
#define ID_CACHE_SLOTS 64
struct id_cache_slot {
	uint64_t id;
	const struct reader_attr *attr;         /* NULL: empty */
};

struct perf_reader {
	int fd;                         /* read with pread, never mapped: see record_stream.h */
	uint64_t size;                  /* when opened */
	struct perf_file_header hdr;
	struct reader_attr attrs[READER_MAX_ATTRS];
	size_t nr_attrs;
	struct id_entry *ids;           /* sorted by id */
	size_t nr_ids;
	uint8_t *feats[PERF_HEADER_FEAT_BITS];  /* each feature section, read at open */
	uint64_t feat_len[PERF_HEADER_FEAT_BITS];
	char *prof;                     /* prof's section, from the trailer, or NULL */
	uint64_t prof_len;
	enum { ID_NONE, ID_IDENTIFIER, ID_SINGLE } id_mode;
	enum reader_finish finish;
	struct record_stream *records;  /* the data section's */
	uint32_t comp_type;             /* HEADER_COMPRESSED's, PERF_COMP_ZSTD when absent */
	uint32_t comp_mmap_len;
	char strings[8][256];           /* decoded string features */
	struct sample_layout layouts[READER_MAX_ATTRS]; /* each attr's fixed fields */
	struct id_cache_slot id_cache[ID_CACHE_SLOTS];
};

#define bad reader_error__set

/* [off, off+len) lies inside the file (no overflow). */
static bool in_file(const struct perf_reader *r, uint64_t off, uint64_t len)
{
	return off <= r->size && len <= r->size - off;
}

/* Exactly len bytes at off (inside the file when opened).  0 or -errno (err says). */
static int read_at(struct perf_reader *r, uint64_t off, void *buf, size_t len, struct reader_error *err)
{
	ssize_t n = pread_full(r->fd, buf, len, (off_t)off);

	if (n < 0)
		return reader_error__read(err, r->fd, r->size, off, (int)n);
	return (size_t)n < len ? reader_error__read(err, r->fd, r->size, off, -ENODATA) : 0;
}

static int cmp_id(const void *a, const void *b)
{
	const struct id_entry *x = a, *y = b;
	return (x->id > y->id) - (x->id < y->id);
}

/* Each event's attr, from its slot of the attrs section; its ids counted. */
static int read_attr(struct perf_reader *r, size_t i, const uint8_t *slot, uint64_t off, uint64_t *total_ids,
		     struct reader_error *err)
{
	size_t asz = r->hdr.attr_size - sizeof(struct perf_file_section);
	struct perf_event_attr *a = &r->attrs[i].attr;
	struct perf_file_section ids;
	uint32_t declared;

	memcpy(&declared, slot + 4, 4);
	/* attr.size says how much of the attr is meaningful; never trust it past asz */
	if (declared < PERF_ATTR_SIZE_VER0 || declared > asz)
		return bad(err, off, 0, "event %zu: attr size %u does not fit its %zu-byte slot", i, declared, asz);
	memset(a, 0, sizeof(*a));
	memcpy(a, slot, MIN((size_t)declared, sizeof(*a)));
	memcpy(&ids, slot + asz, sizeof(ids));
	if (ids.size % 8 || !in_file(r, ids.offset, ids.size))
		return bad(err, off + asz, 0, "event %zu: ids section is not inside the file", i);
	r->attrs[i].nr_ids = ids.size / 8;
	*total_ids += ids.size / 8;
	if (*total_ids > MAX_IDS)
		return bad(err, off + asz, 0, "more than %u sample ids", MAX_IDS);
	return 0;
}

/* Every event's sample ids, sorted, so a record's id finds its event. */
static int read_ids(struct perf_reader *r, const uint8_t *attrs, uint64_t total, struct reader_error *err)
{
	size_t asz = r->hdr.attr_size - sizeof(struct perf_file_section);

	r->ids = calloc(total ? total : 1, sizeof(*r->ids));
	if (!r->ids)
		return -ENOMEM;
	for (size_t i = 0; i < r->nr_attrs; i++) {
		struct perf_file_section s;
		_cleanup_free_ uint64_t *ids = NULL;
		int e;

		memcpy(&s, attrs + i * r->hdr.attr_size + asz, sizeof(s));
		ids = malloc(s.size ? s.size : 1);
		if (!ids)
			return -ENOMEM;
		e = read_at(r, s.offset, ids, s.size, err);
		if (e < 0)
			return e;
		for (uint64_t k = 0; k < s.size / 8; k++)
			r->ids[r->nr_ids++] = (struct id_entry){ .id = ids[k], .attr = (uint32_t)i };
	}
	qsort(r->ids, r->nr_ids, sizeof(*r->ids), cmp_id);
	return 0;
}

/* How a record names its event (perf's rule): IDENTIFIER in every attr, or one attr. */
static int choose_id_mode(struct perf_reader *r, struct reader_error *err)
{
	bool same = true;

	r->id_mode = ID_IDENTIFIER;
	for (size_t i = 0; i < r->nr_attrs; i++)
		if (!(r->attrs[i].attr.sample_type & PERF_SAMPLE_IDENTIFIER))
			r->id_mode = ID_NONE;
	if (r->id_mode == ID_NONE && r->nr_attrs == 1)
		r->id_mode = ID_SINGLE;
	if (r->id_mode != ID_NONE)
		return 0;
	/* perf also accepts same sample types with ID: then events are told by ID */
	for (size_t i = 1; i < r->nr_attrs; i++)
		same &= r->attrs[i].attr.sample_type == r->attrs[0].attr.sample_type;
	if (!same)
		return bad(err, 24, 0, "%zu events without PERF_SAMPLE_IDENTIFIER and with different "
			   "sample types: records cannot be told apart", r->nr_attrs);
	r->id_mode = ID_SINGLE;         /* identical layouts: any attr parses any record */
	return 0;
}

static int read_attrs(struct perf_reader *r, struct reader_error *err)
{
	const struct perf_file_header *h = &r->hdr;
	_cleanup_free_ uint8_t *attrs = NULL;
	uint64_t total_ids = 0;
	int e;

	if (h->attr_size < PERF_ATTR_SIZE_VER0 + sizeof(struct perf_file_section) || h->attr_size > 4096)
		return bad(err, 16, 0, "attr size %llu is not one perf writes", (unsigned long long)h->attr_size);
	if (h->attrs.size % h->attr_size || h->attrs.size == 0 || !in_file(r, h->attrs.offset, h->attrs.size))
		return bad(err, 24, 0, "attrs section (offset %llu, size %llu) is not inside the file or not a "
			   "multiple of the attr size", (unsigned long long)h->attrs.offset,
			   (unsigned long long)h->attrs.size);
	r->nr_attrs = h->attrs.size / h->attr_size;
	if (r->nr_attrs > READER_MAX_ATTRS)
		return bad(err, 24, 0, "%zu events: more than %d", r->nr_attrs, READER_MAX_ATTRS);
	attrs = malloc(h->attrs.size);
	if (!attrs)
		return -ENOMEM;
	e = read_at(r, h->attrs.offset, attrs, h->attrs.size, err);
	for (size_t i = 0; e == 0 && i < r->nr_attrs; i++)
		e = read_attr(r, i, attrs + i * h->attr_size, h->attrs.offset + i * h->attr_size, &total_ids, err);
	if (e == 0)
		e = read_ids(r, attrs, total_ids, err);
	for (size_t i = 0; e == 0 && i < r->nr_attrs; i++)
		sample_layout__init(&r->layouts[i], r->attrs[i].attr.sample_type);
	return e ? e : choose_id_mode(r, err);
}

static void read_string(struct perf_reader *r, unsigned int feat, char *out, size_t outlen)
{
	const uint8_t *p = r->feats[feat];
	uint32_t len;

	out[0] = '\0';
	if (r->feat_len[feat] < 4)
		return;
	memcpy(&len, p, 4);
	if (len > r->feat_len[feat] - 4)
		return;
	snprintf(out, outlen, "%.*s", (int)strnlen((const char *)p + 4, len), (const char *)p + 4);
}

static void read_event_desc(struct perf_reader *r)
{
	const uint8_t *p = r->feats[HEADER_EVENT_DESC], *end = p + r->feat_len[HEADER_EVENT_DESC];
	uint32_t nr, asz;

	if (r->feat_len[HEADER_EVENT_DESC] < 8)
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

/* perf's names of the generic events, for a file without EVENT_DESC (a recording killed). */
static const char *generic_name(const struct perf_event_attr *a)
{
	static const char *const sw[] = { "cpu-clock", "task-clock", "page-faults", "context-switches",
					  "cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
					  "emulation-faults", "dummy", "bpf-output", "cgroup-switches" };
	static const char *const hw[] = { "cycles", "instructions", "cache-references", "cache-misses",
					  "branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
					  "stalled-cycles-backend", "ref-cycles" };

	if (a->type == PERF_TYPE_SOFTWARE && a->config < ARRAY_SIZE(sw))
		return sw[a->config];
	if (a->type == PERF_TYPE_HARDWARE && a->config < ARRAY_SIZE(hw))
		return hw[a->config];
	return "";
}

/* One feature section into memory; a broken or oversized one is left out (features are descriptive). */
static int read_feature(struct perf_reader *r, unsigned int bit, const struct perf_file_section *s,
			struct reader_error *err)
{
	int e;

	if (!in_file(r, s->offset, s->size) || s->size > MAX_FEATURE_SIZE)
		return 0;
	r->feats[bit] = malloc(s->size ? s->size : 1);
	if (!r->feats[bit])
		return -ENOMEM;
	r->feat_len[bit] = s->size;
	e = read_at(r, s->offset, r->feats[bit], s->size, err);
	return e;
}

static int read_features(struct perf_reader *r, struct reader_error *err)
{
	const struct perf_file_header *h = &r->hdr;
	struct perf_file_section secs[PERF_HEADER_FEAT_BITS];
	uint64_t off = h->data.offset + h->data.size, n = 0;
	int e;

	for (unsigned b = 0; b < PERF_HEADER_FEAT_BITS; b++)
		if (h->adds_features[b / 64] & (1ull << (b % 64)))
			n++;
	if (!n)
		return 0;
	if (!in_file(r, off, n * sizeof(struct perf_file_section)))
		return bad(err, off, 0, "the feature section table (%llu entries) is past the end of the file",
			   (unsigned long long)n);
	e = read_at(r, off, secs, n * sizeof(secs[0]), err);
	for (unsigned b = 0, i = 0; e == 0 && b < PERF_HEADER_FEAT_BITS; b++)
		if (h->adds_features[b / 64] & (1ull << (b % 64)))
			e = read_feature(r, b, &secs[i++], err);
	return e;
}

/* The trailer that names prof's section; a broken one is ignored like a broken feature. */
static int read_trailer(struct perf_reader *r, struct reader_error *err)
{
	struct prof_trailer t;
	uint64_t data_end = r->hdr.data.offset + r->hdr.data.size;
	int e;

	if (r->size < data_end + sizeof(t))
		return 0;
	e = read_at(r, r->size - sizeof(t), &t, sizeof(t), err);
	if (e < 0)
		return e;
	/* the section lies after the data and before the trailer */
	if (t.magic != PROF_TRAILER_MAGIC || t.offset < data_end || !in_file(r, t.offset, t.size) ||
	    t.offset + t.size > r->size - sizeof(t) || t.size > MAX_FEATURE_SIZE)
		return 0;
	r->prof = malloc(t.size ? t.size : 1);
	if (!r->prof)
		return -ENOMEM;
	r->prof_len = t.size;
	return read_at(r, t.offset, r->prof, t.size, err);
}

static const unsigned int string_feats[] = { HEADER_HOSTNAME, HEADER_OSRELEASE, HEADER_VERSION,
					      HEADER_ARCH, HEADER_CPUDESC };

/* What the features say that the reader keeps decoded. */
static void decode_features(struct perf_reader *r)
{
	const uint8_t *c = r->feats[HEADER_COMPRESSED];

	for (size_t i = 0; i < ARRAY_SIZE(string_feats); i++)
		if (r->feats[string_feats[i]])
			read_string(r, string_feats[i], r->strings[i], sizeof(r->strings[i]));
	if (r->feats[HEADER_EVENT_DESC])
		read_event_desc(r);
	for (size_t i = 0; i < r->nr_attrs; i++)
		if (!r->attrs[i].name[0])
			snprintf(r->attrs[i].name, sizeof(r->attrs[i].name), "%s", generic_name(&r->attrs[i].attr));
	/* HEADER_COMPRESSED: version, type, level, ratio, mmap_len */
	r->comp_type = PERF_COMP_ZSTD;
	if (c && r->feat_len[HEADER_COMPRESSED] >= 20) {
		memcpy(&r->comp_type, c + 4, 4);
		memcpy(&r->comp_mmap_len, c + 16, 4);
	}
}

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
	return 0;
}

/*
 * prof record before it kept its header valid (killed, it left only the magic, the
 * header and attr sizes): ids from the header's end, then the attrs, then the data,
 * as perf_writer.c lays them out.  The attrs are where a chain of slots starts whose
 * ids sections, each after the one before, begin at the header's end and end just
 * at the chain's start.  Found, the header names them and data of size 0 (read as a
 * killed perf record's).  0, or -EINVAL when nothing fits.
 */
static int find_unfinished_attrs(struct perf_reader *r, struct reader_error *err)
{
	struct perf_file_header *h = &r->hdr;
	uint64_t asz = h->attr_size - sizeof(struct perf_file_section), len = MIN(r->size, UNFINISHED_SCAN);
	_cleanup_free_ uint8_t *buf = malloc(len);
	int e;

	if (!buf)
		return -ENOMEM;
	e = read_at(r, 0, buf, len, err);
	if (e < 0)
		return e;
	for (uint64_t p = sizeof(*h); p + h->attr_size <= len; p += 8) {
		uint64_t next = sizeof(*h), n = 0;
		struct perf_file_section ids;
		uint32_t declared;

		for (uint64_t q = p; q + h->attr_size <= len && n < READER_MAX_ATTRS; q += h->attr_size) {
			memcpy(&declared, buf + q + 4, 4);
			memcpy(&ids, buf + q + asz, sizeof(ids));
			if (declared != asz || ids.offset != next || ids.size % 8 || ids.size > p - next)
				break;
			next += ids.size;
			n++;
			if (next == p) {
				h->attrs = (struct perf_file_section){ p, n * h->attr_size };
				h->data = (struct perf_file_section){ q + h->attr_size, 0 };
				return 0;
			}
		}
	}
	return bad(err, 24, 0, "no attrs section, and no events found after the header: not a file prof record "
		   "left unfinished");
}

/* A header of prof record's that was never written past its sizes. */
static bool never_written(const struct perf_file_header *h)
{
	return h->attrs.offset == 0 && h->attrs.size == 0 && h->data.offset == 0 && h->data.size == 0 &&
	       h->attr_size >= PERF_ATTR_SIZE_VER0 + sizeof(struct perf_file_section) && h->attr_size <= 4096 &&
	       !(h->adds_features[0] | h->adds_features[1] | h->adds_features[2] | h->adds_features[3]);
}

/* The input's fd and its header, checked.  0 or -errno (err says why). */
static int open_file(const char *path, struct perf_reader *r, struct reader_error *err)
{
	struct stat st;
	ssize_t n;
	int e;

	/* O_NONBLOCK: a FIFO named as the input must not hang the open */
	r->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (r->fd < 0) {
		e = -errno;
		if (err)
			snprintf(err->msg, sizeof(err->msg), "cannot open: %s", strerror(-e));
		return e;
	}
	if (fstat(r->fd, &st) < 0 || !S_ISREG(st.st_mode))
		return bad(err, 0, 0, "not a regular file");
	r->size = (uint64_t)st.st_size;
	if (r->size > MAX_FILE_SIZE)
		return bad(err, 0, 0, "larger than %llu GiB", MAX_FILE_SIZE >> 30);
	if (r->size < sizeof(r->hdr))
		return bad(err, 0, 0, "%llu bytes: shorter than a perf.data header (truncated?)",
			   (unsigned long long)r->size);
	n = pread_full(r->fd, &r->hdr, sizeof(r->hdr), 0);
	if (n != (ssize_t)sizeof(r->hdr))
		return bad(err, 0, 0, "cannot read the header: %s", n < 0 ? strerror((int)-n) : "short read");
	if (r->hdr.magic == PERF_MAGIC2 && r->hdr.size == sizeof(r->hdr) && never_written(&r->hdr)) {
		e = find_unfinished_attrs(r, err);
		if (e < 0)
			return e;
	}
	return check_header(&r->hdr, r->size, err);
}

/* The features and prof's section after the data; none in a file never finished. */
static int read_after_data(struct perf_reader *r, struct reader_error *err)
{
	int e;

	if (r->hdr.data.size == 0) {
		/*
		 * Never finished (perf record killed: it writes the data size at the end):
		 * the data runs to the last whole record, and the feature bits perf set at
		 * the start name sections it never wrote.
		 */
		r->finish = READER_UNFINISHED;
		memset(r->hdr.adds_features, 0, sizeof(r->hdr.adds_features));
		return 0;
	}
	e = read_features(r, err);
	if (e == 0)
		e = read_trailer(r, err);
	if (e == 0 && !(r->hdr.adds_features[0] | r->hdr.adds_features[1] | r->hdr.adds_features[2] |
			r->hdr.adds_features[3]))
		r->finish = READER_NO_FEATURES;
	return e;
}

int perf_reader__open(const char *path, struct perf_reader **ret, struct reader_error *err)
{
	struct perf_reader *r = calloc(1, sizeof(*r));
	struct record_stream_config c;
	int e;

	if (err)
		*err = (struct reader_error){ 0 };
	if (!r)
		return -ENOMEM;
	r->fd = -1;
	e = open_file(path, r, err);
	if (e == 0)
		e = read_attrs(r, err);
	if (e == 0)
		e = read_after_data(r, err);
	if (e == 0) {
		decode_features(r);
		c = (struct record_stream_config){
			.fd = r->fd, .file_size = r->size, .start = r->hdr.data.offset,
			.end = r->finish == READER_UNFINISHED ? r->size : r->hdr.data.offset + r->hdr.data.size,
			.unfinished = r->finish == READER_UNFINISHED, .comp_type = r->comp_type,
			.comp_mmap_len = r->comp_mmap_len };
		e = record_stream__new(&c, &r->records);
	}
	if (e < 0) {
		perf_reader__free(r);
		return e;
	}
	*ret = r;
	return 0;
}

struct perf_reader *perf_reader__free(struct perf_reader *r)
{
	if (r) {
		if (r->fd >= 0)
			close(r->fd);
		record_stream__free(r->records);
		for (unsigned b = 0; b < PERF_HEADER_FEAT_BITS; b++)
			free(r->feats[b]);
		free(r->prof);
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
			return r->feats[feat] && r->strings[i][0] ? r->strings[i] : NULL;
	return NULL;
}

const void *perf_reader__feature(const struct perf_reader *r, unsigned int feat, size_t *ret_len)
{
	if (feat >= PERF_HEADER_FEAT_BITS || !r->feats[feat])
		return NULL;
	*ret_len = r->feat_len[feat];
	return r->feats[feat];
}

const char *perf_reader__prof_section(const struct perf_reader *r, size_t *ret_len)
{
	if (r->prof) {
		*ret_len = r->prof_len;
		return r->prof;
	}
	return perf_reader__feature(r, HEADER_PROF_SCOPE_OLD, ret_len);
}

int perf_reader__for_each_build_id(const struct perf_reader *r,
				   int (*fn)(const struct reader_build_id *b, void *ctx), void *ctx)
{
	struct perf_record_header_build_id e;
	const uint8_t *p, *end;

	if (!r->feats[HEADER_BUILD_ID])
		return 0;
	p = r->feats[HEADER_BUILD_ID];
	end = p + r->feat_len[HEADER_BUILD_ID];
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
	return record_stream__unknown(r->records);
}

enum reader_finish perf_reader__finish_state(const struct perf_reader *r, uint64_t *ret_end)
{
	*ret_end = record_stream__end(r->records);
	return r->finish;
}

int perf_reader__next(struct perf_reader *r, const struct perf_event_header **ret_ev,
		      uint64_t *ret_offset, struct reader_error *err)
{
	return record_stream__next(r->records, ret_ev, ret_offset, err);
}

static const struct reader_attr *attr_of_id(struct perf_reader *r, uint64_t id)
{
	struct id_entry key = { .id = id }, *e;
	struct id_cache_slot *c = &r->id_cache[id % ID_CACHE_SLOTS];

	if (!r->nr_ids || (r->id_mode == ID_SINGLE && r->nr_attrs == 1))
		return &r->attrs[0];
	if (c->attr && c->id == id)
		return c->attr;
	e = bsearch(&key, r->ids, r->nr_ids, sizeof(*r->ids), cmp_id);
	if (e)
		*c = (struct id_cache_slot){ .id = id, .attr = &r->attrs[e->attr] };
	/* perf's rule for id 0 (synthesized records): the first event */
	return e ? &r->attrs[e->attr] : (id == 0 ? &r->attrs[0] : NULL);
}

/*
 * A sample's time from its attr's layout, without decoding the rest: the queue that
 * sorts perf's rounds asks it of every sample, which is decoded whole once, when it
 * leaves the queue.  A sample too short for its fixed fields is 0, as its decode
 * fails.
 */
static uint64_t sample_time(struct perf_reader *r, const struct perf_event_header *ev)
{
	const struct reader_attr *a = &r->attrs[0];
	const struct sample_layout *l;
	uint64_t id;

	if (r->id_mode == ID_IDENTIFIER) {
		if (ev->size < sizeof(*ev) + 8)
			return 0;
		memcpy(&id, ev + 1, 8);
		a = attr_of_id(r, id);
		if (!a)
			return 0;
	}
	l = &r->layouts[a - r->attrs];
	if (l->s_time < 0 || ev->size < l->fixed_size)
		return 0;
	memcpy(&id, sample__u64(ev, l->s_time), 8);
	return id;
}

uint64_t perf_reader__time(struct perf_reader *r, const struct perf_event_header *ev)
{
	const struct reader_attr *a;
	uint64_t st, id = 0, v;
	int back = 0;

	if (ev->type == PERF_RECORD_SAMPLE)
		return sample_time(r, ev);
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

int perf_reader__parse_sample(struct perf_reader *r, const struct perf_event_header *ev,
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
