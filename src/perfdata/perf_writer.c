/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Writes perf.data in file mode: ids and attrs first, with a header that names them
 * and the data (of size 0), then the data as it comes, the header's data size
 * brought up to date after each round; at the end the feature sections and the
 * final header.  The layout is the one perf's own header.c writes, so perf
 * report/script read it, and read it too when prof is killed mid-recording.
 */
#include <stddef.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "prof/perfdata/perf_data.h"
#include "prof/base/util.h"
#include "prof/base/vec.h"

#define WBUF_SIZE (64u * 1024)

struct feature {
	unsigned int bit;
	uint8_t *data;
	size_t len;
};

struct perf_writer {
	int fd;
	uint64_t attrs_offset, attrs_size;
	uint64_t data_offset, data_size;
	uint64_t file_size;
	struct feature feats[PERF_HEADER_FEAT_BITS];
	unsigned int nr_feats;
	struct feature prof;            /* prof's section (bit unused), or len 0 */
	int err;                /* the first write error */
	size_t wlen;
	uint8_t wbuf[WBUF_SIZE];
};

void feat_buf__put(struct feat_buf *b, const void *p, size_t n)
{
	if (b->err)
		return;
	if (VEC_RESERVE(b->data, b->cap, b->len + n) < 0) {
		b->err = -ENOMEM;
		return;
	}
	if (p)
		memcpy(b->data + b->len, p, n);
	else
		memset(b->data + b->len, 0, n);
	b->len += n;
}

void feat_buf__u32(struct feat_buf *b, uint32_t v)
{
	feat_buf__put(b, &v, sizeof(v));
}

void feat_buf__u64(struct feat_buf *b, uint64_t v)
{
	feat_buf__put(b, &v, sizeof(v));
}

void feat_buf__string(struct feat_buf *b, const char *s)
{
	size_t len = strlen(s) + 1, olen = ALIGN_UP(len, PERF_NAME_ALIGN);

	feat_buf__u32(b, (uint32_t)olen);
	feat_buf__put(b, s, len);
	feat_buf__put(b, NULL, olen - len);
}

void feat_buf__release(struct feat_buf *b)
{
	free(b->data);
	*b = (struct feat_buf){ 0 };
}

/*
 * Write n bytes of whole records at the end of the data.  When the disk fills up
 * part-way, the records that made it whole are kept and the rest dropped, so the
 * data always ends on a record boundary.  0 or -errno.
 */
static int write_records(struct perf_writer *w, const uint8_t *buf, size_t n, uint64_t off)
{
	size_t done = 0, keep = 0;
	int err = 0;

	while (done < n) {
		ssize_t r = pwrite(w->fd, buf + done, n - done, (off_t)(off + done));
		if (r < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		if (r == 0) {
			err = -EIO;
			break;
		}
		done += (size_t)r;
	}
	if (!err)
		return 0;
	while (keep + sizeof(struct perf_event_header) <= done) {
		const struct perf_event_header *h = (const void *)(buf + keep);
		if (h->size < sizeof(*h) || keep + h->size > done)
			break;
		keep += h->size;
	}
	/* what follows the last whole record is not data */
	w->data_size -= n - keep;
	return err;
}

static int flush_buf(struct perf_writer *w)
{
	size_t n = w->wlen;

	if (!n)
		return 0;
	w->wlen = 0;
	return write_records(w, w->wbuf, n, w->data_offset + w->data_size - n);
}

/*
 * A round ends: its records to the file, then the header's data size over them, so
 * a recording killed now (SIGKILL, the OOM killer) leaves a file perf and prof read
 * up to here.  The size is one aligned u64 written in place after the data it
 * covers: killed between the two writes, the header names the previous round's
 * end, and the bytes past it are not read.  0 or -errno (sticky, as for a write).
 */
static int end_round(struct perf_writer *w)
{
	int r = flush_buf(w), r2;

	r2 = pwrite_full(w->fd, &w->data_size, sizeof(w->data_size),
			 (off_t)offsetof(struct perf_file_header, data.size));
	if (r == 0)
		r = r2;
	if (r < 0)
		w->err = r;
	return r;
}

static int write_event_desc(struct perf_writer *w, const struct perf_data_event *evs, size_t nr)
{
	struct feat_buf b = { 0 };
	int r;

	feat_buf__u32(&b, (uint32_t)nr);
	feat_buf__u32(&b, sizeof(struct perf_event_attr));
	for (size_t i = 0; i < nr; i++) {
		feat_buf__put(&b, &evs[i].attr, sizeof(evs[i].attr));
		feat_buf__u32(&b, evs[i].nr_ids);
		feat_buf__string(&b, evs[i].name ? evs[i].name : "");
		feat_buf__put(&b, evs[i].ids, evs[i].nr_ids * sizeof(uint64_t));
	}
	r = b.err ? b.err : perf_writer__add_feature(w, HEADER_EVENT_DESC, b.data, b.len);
	feat_buf__release(&b);
	return r;
}

int perf_writer__new(int fd, const struct perf_data_event *evs, size_t nr,
			  struct perf_writer **ret)
{
	_cleanup_free_ struct perf_writer *w = NULL;
	_cleanup_free_ struct perf_file_attr *fattrs = NULL;
	struct perf_file_header hdr = { 0 };
	uint64_t off = sizeof(hdr);
	int r;

	if (nr == 0)
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	fattrs = calloc(nr, sizeof(*fattrs));
	if (!w || !fattrs)
		return -ENOMEM;
	w->fd = fd;

	for (size_t i = 0; i < nr; i++) {
		size_t len = evs[i].nr_ids * sizeof(uint64_t);

		r = pwrite_full(fd, evs[i].ids, len, (off_t)off);
		if (r < 0)
			return r;
		fattrs[i].attr = evs[i].attr;
		fattrs[i].attr.size = sizeof(struct perf_event_attr);
		fattrs[i].ids = (struct perf_file_section){ .offset = off, .size = len };
		off += len;
	}
	w->attrs_offset = off;
	w->attrs_size = nr * sizeof(*fattrs);
	r = pwrite_full(fd, fattrs, w->attrs_size, (off_t)off);
	if (r < 0)
		return r;
	w->data_offset = off + w->attrs_size;
	/*
	 * The header over the attrs (written first), data of size 0 and no features:
	 * what perf record writes at its start.  end_round() keeps the size up to date.
	 */
	hdr = (struct perf_file_header){ .magic = PERF_MAGIC2, .size = sizeof(hdr),
					 .attr_size = sizeof(struct perf_file_attr),
					 .attrs = { w->attrs_offset, w->attrs_size }, .data = { w->data_offset, 0 } };
	r = pwrite_full(fd, &hdr, sizeof(hdr), 0);
	if (r < 0)
		return r;
	r = write_event_desc(w, evs, nr);
	if (r < 0)
		return r;
	*ret = steal_pointer(&w);
	return 0;
}

int perf_writer__write(struct perf_writer *w, const void *rec, size_t len)
{
	if (w->err)
		return w->err;
	if (len > WBUF_SIZE - w->wlen) {
		int r = flush_buf(w);
		if (r == 0 && len > WBUF_SIZE) {
			w->data_size += len;
			r = write_records(w, rec, len, w->data_offset + w->data_size - len);
			if (r == 0)
				return 0;
		}
		if (r < 0) {
			w->err = r;     /* sticky: nothing is appended after a gap */
			return r;
		}
	}
	memcpy(w->wbuf + w->wlen, rec, len);
	w->wlen += len;
	w->data_size += len;
	if (len >= sizeof(struct perf_event_header) &&
	    ((const struct perf_event_header *)rec)->type == PERF_RECORD_FINISHED_ROUND)
		return end_round(w);
	return 0;
}

int perf_writer__add_feature(struct perf_writer *w, unsigned int feat,
				  const void *data, size_t len)
{
	struct feature *f = NULL;

	if (feat == 0 || feat >= HEADER_LAST_FEATURE)
		return -EINVAL;
	for (unsigned int i = 0; i < w->nr_feats; i++)
		if (w->feats[i].bit == feat)
			f = &w->feats[i];
	if (!f)
		f = &w->feats[w->nr_feats++];
	free(f->data);
	f->bit = feat;
	f->len = len;
	f->data = malloc(len ? len : 1);
	if (!f->data) {
		f->len = 0;
		return -ENOMEM;
	}
	memcpy(f->data, data, len);
	return 0;
}

int perf_writer__set_prof_section(struct perf_writer *w, const void *data, size_t len)
{
	uint8_t *d = malloc(len ? len : 1);

	if (!d)
		return -ENOMEM;
	memcpy(d, data, len);
	free(w->prof.data);
	w->prof = (struct feature){ .data = d, .len = len };
	return 0;
}

static int cmp_feat(const void *a, const void *b)
{
	const struct feature *x = a, *y = b;
	return (x->bit > y->bit) - (x->bit < y->bit);
}

/* Section table then contents, in bit order, as perf's reader pairs them. */
static int write_features(struct perf_writer *w, uint64_t start, uint64_t *ret_end,
			  uint64_t *bitmap)
{
	struct perf_file_section secs[PERF_HEADER_FEAT_BITS];
	uint64_t off = start + w->nr_feats * sizeof(secs[0]);
	int r;

	qsort(w->feats, w->nr_feats, sizeof(w->feats[0]), cmp_feat);
	for (unsigned int i = 0; i < w->nr_feats; i++) {
		secs[i] = (struct perf_file_section){ .offset = off, .size = w->feats[i].len };
		r = pwrite_full(w->fd, w->feats[i].data, w->feats[i].len, (off_t)off);
		if (r < 0)
			return r;
		off += w->feats[i].len;
	}
	r = pwrite_full(w->fd, secs, w->nr_feats * sizeof(secs[0]), (off_t)start);
	if (r < 0)
		return r;
	for (unsigned int i = 0; i < w->nr_feats; i++)
		bitmap[w->feats[i].bit / 64] |= 1ull << (w->feats[i].bit % 64);
	*ret_end = off;
	return 0;
}

/* prof's section, 8-aligned after the features, and the trailer that ends the file. */
static int write_prof_section(struct perf_writer *w, uint64_t start, uint64_t *ret_end)
{
	static const uint8_t zeros[8];
	uint64_t off = ALIGN_UP(start, 8);
	struct prof_trailer t = { .offset = off, .size = w->prof.len, .magic = PROF_TRAILER_MAGIC };
	int r;

	if (!w->prof.data)
		return 0;
	r = pwrite_full(w->fd, zeros, off - start, (off_t)start);
	if (r == 0)
		r = pwrite_full(w->fd, w->prof.data, w->prof.len, (off_t)off);
	if (r == 0)
		r = pwrite_full(w->fd, &t, sizeof(t), (off_t)(off + w->prof.len));
	if (r < 0)
		return r;
	*ret_end = off + w->prof.len + sizeof(t);
	return 0;
}

int perf_writer__finish(struct perf_writer *w)
{
	struct perf_file_header hdr = {
		.magic = PERF_MAGIC2,
		.size = sizeof(hdr),
		.attr_size = sizeof(struct perf_file_attr),
		.attrs = { w->attrs_offset, w->attrs_size },
	};
	uint64_t end, bitmap[PERF_HEADER_FEAT_BITS / 64] = { 0 };
	int r, ret;

	ret = w->err ? w->err : flush_buf(w);
	/* data_size now counts only whole records that reached the disk */
	end = w->data_offset + w->data_size;
	if (ftruncate(w->fd, (off_t)end) < 0 && ret == 0)
		ret = -errno;
	hdr.data = (struct perf_file_section){ w->data_offset, w->data_size };
	r = write_features(w, end, &end, bitmap);
	if (r == 0)
		r = write_prof_section(w, end, &end);
	if (r < 0) {
		if (!ret)
			ret = r;
		memset(bitmap, 0, sizeof(bitmap));
		end = w->data_offset + w->data_size;
		if (ftruncate(w->fd, (off_t)end) < 0) {
			/* nothing more to do: the header below still makes the data readable */
		}
	}
	memcpy(hdr.adds_features, bitmap, sizeof(bitmap));
	r = pwrite_full(w->fd, &hdr, sizeof(hdr), 0);
	if (r < 0)
		return r;
	w->file_size = end;
	return ret;
}

uint64_t perf_writer__data_size(const struct perf_writer *w)
{
	return w->data_size;
}

uint64_t perf_writer__file_size(const struct perf_writer *w)
{
	return w->file_size;
}

struct perf_writer *perf_writer__free(struct perf_writer *w)
{
	if (!w)
		return NULL;
	for (unsigned int i = 0; i < w->nr_feats; i++)
		free(w->feats[i].data);
	free(w->prof.data);
	free(w);
	return NULL;
}
