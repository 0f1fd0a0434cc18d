/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perf/event.h>

#include "prof/perfdata/decompress.h"
#include "prof/perfdata/file_window.h"
#include "prof/perfdata/perf_data.h"
#include "prof/perfdata/record_stream.h"
#include "prof/base/util.h"

#define WINDOW_SIZE (1u << 20)          /* the data is read 1 MiB at a time */

struct record_stream {
	struct record_stream_config c;
	uint64_t pos, end;
	uint64_t rec_off;               /* the file's record last read */
	uint64_t unknown;
	bool unfinished;
	struct file_window win;
	struct decompress *z;           /* from the first compressed record on */
	uint64_t z_offset;              /* the compressed record being read */
	bool in_z;
	uint32_t comp_type, comp_mmap_len;
	uint64_t scratch[65536 / 8];    /* a record that follows an odd-sized one, aligned */
};

int record_stream__new(const struct record_stream_config *c, struct record_stream **ret)
{
	struct record_stream *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->c = *c;
	s->pos = c->start;
	s->end = c->end;
	s->unfinished = c->unfinished;
	s->comp_type = c->comp_type;
	s->comp_mmap_len = c->comp_mmap_len;
	if (file_window__init(&s->win, c->fd, WINDOW_SIZE) < 0) {
		free(s);
		return -ENOMEM;
	}
	*ret = s;
	return 0;
}

struct record_stream *record_stream__free(struct record_stream *s)
{
	if (s) {
		file_window__release(&s->win);
		decompress__free(s->z);
		free(s);
	}
	return NULL;
}

uint64_t record_stream__unknown(const struct record_stream *s)
{
	return s->unknown;
}

uint64_t record_stream__end(const struct record_stream *s)
{
	return s->end;
}

static int read_error(struct record_stream *s, uint64_t off, int e, struct reader_error *err)
{
	return reader_error__read(err, s->c.fd, s->c.file_size, off, e);
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
	case PROF_RECORD_COMPRESSED2: return 8 + 8;
	case PERF_RECORD_SAMPLE: return 8;
	default: return 8;
	}
}

/*
 * A record's size against its type, wherever it lies (in the file or inside
 * compressed data: in says which, for the message); records of unknown types counted.
 */
static int check_record(struct record_stream *s, const struct perf_event_header *h, uint64_t off, const char *in,
			struct reader_error *err)
{
	if (h->size < sizeof(*h))
		return reader_error__set(err, off, h->type, "%srecord size %u is smaller than a record header", in, h->size);
	if (h->size < min_size(h->type))
		return reader_error__set(err, off, h->type, "%srecord of %u bytes is smaller than its type's minimum %u", in,
			   h->size, min_size(h->type));
	/* every record the kernel writes is a multiple of 8 bytes: anything else is
	 * corruption.  perf's own records need not be (perf inject -b writes 100-byte
	 * HEADER_BUILD_IDs); records are read with memcpy, so alignment is not needed. */
	if (h->size % 8 && h->type < PERF_RECORD_USER_TYPE_START)
		return reader_error__set(err, off, h->type, "%srecord size %u is not a multiple of 8", in, h->size);
	if (h->type == 0 || (h->type > PERF_RECORD_MAX && h->type < PERF_RECORD_USER_TYPE_START) ||
	    (h->type >= PERF_RECORD_HEADER_MAX && h->type != PROF_RECORD_COMPRESSED2))
		s->unknown++;
	return 0;
}

static bool is_compressed(uint32_t type)
{
	return type == PERF_RECORD_COMPRESSED || type == PROF_RECORD_COMPRESSED2;
}

/* The end of what an unfinished file holds whole: where its data ends. */
static int end_unfinished(struct record_stream *s)
{
	s->end = s->pos;
	return 0;
}

/* AUX data follows an AUXTRACE record, outside its size: 0, 1 at the end of an
 * unfinished file (the record is not whole), or -EINVAL. */
static int skip_aux(struct record_stream *s, const struct perf_event_header *h, struct reader_error *err)
{
	uint64_t aux;

	if (h->type != PERF_RECORD_AUXTRACE || h->size < 16)
		return 0;
	memcpy(&aux, (const uint8_t *)h + 8, 8);
	if (aux % 8 || aux > s->end - s->pos) {
		if (s->unfinished) {
			s->pos = s->rec_off;
			end_unfinished(s);
			return 1;
		}
		return reader_error__set(err, s->rec_off, h->type, "AUX data of %llu bytes runs past the end of the data",
			   (unsigned long long)aux);
	}
	s->pos += aux;
	return 0;
}

/* The file's next record, checked, through the window.  1, 0 at the end, -errno. */
static int next_in_file(struct record_stream *s, const struct perf_event_header **ret_ev, struct reader_error *err)
{
	uint64_t left = s->end - s->pos;
	struct perf_event_header h;
	const uint8_t *p;
	int e;

	if (s->pos >= s->end)
		return 0;
	if (left < sizeof(h) && s->unfinished)
		return end_unfinished(s);
	if (left < sizeof(h))
		return reader_error__set(err, s->pos, 0, "%llu stray bytes at the end of the data", (unsigned long long)left);
	e = file_window__get(&s->win, s->pos, sizeof(h), s->end, &p);
	if (e < 0)
		return read_error(s, s->pos, e, err);
	memcpy(&h, p, sizeof(h));
	if (h.size > left && h.size >= sizeof(h) && s->unfinished)
		return end_unfinished(s);
	if (h.size > left)
		return reader_error__set(err, s->pos, h.type, "record of %u bytes runs past the end of the data (%llu left): truncated?",
			   h.size, (unsigned long long)left);
	e = check_record(s, &h, s->pos, "", err);
	if (e == 0)
		e = file_window__get(&s->win, s->pos, h.size, s->end, &p);
	if (e < 0)
		return e == -EINVAL ? e : read_error(s, s->pos, e, err);
	if ((uintptr_t)p % 8) {
		/* after an odd-sized perf record: give the caller an aligned copy */
		memcpy(s->scratch, p, h.size);
		p = (const uint8_t *)s->scratch;
	}
	*ret_ev = (const void *)p;
	s->rec_off = s->pos;
	s->pos += h.size;
	e = skip_aux(s, *ret_ev, err);
	return e ? (e < 0 ? e : 0) : 1;
}

/* What the decompressor refused, as the reader's error. */
static int decompress_error(struct record_stream *s, int e, struct reader_error *err)
{
	uint64_t in, out;

	decompress__totals(s->z, &in, &out);
	if (e == -EBADMSG)
		return reader_error__set(err, s->z_offset, PERF_RECORD_COMPRESSED, "its data cannot be decompressed (zstd: %s): "
			   "corrupt, or not zstd", decompress__why(s->z));
	if (e == -E2BIG)
		return reader_error__set(err, s->z_offset, PERF_RECORD_COMPRESSED, "expands past %u bytes, the ring buffer it was "
			   "written from (HEADER_COMPRESSED): corrupt, or a decompression bomb", s->comp_mmap_len);
	if (e == -EOVERFLOW)
		return reader_error__set(err, s->z_offset, PERF_RECORD_COMPRESSED, "the compressed data expands %llu times (%llu "
			   "bytes from %llu): no real perf data does; a decompression bomb?",
			   (unsigned long long)(out / (in ? in : 1)), (unsigned long long)out, (unsigned long long)in);
	return e;
}

/* The next record inside the compressed records: 1, 0 when they hold no more, -errno. */
static int next_compressed(struct record_stream *s, const struct perf_event_header **ret_ev, struct reader_error *err)
{
	const struct perf_event_header *ev;
	char in[48];
	int e = decompress__next(s->z, &ev);

	if (e <= 0)
		return e < 0 ? decompress_error(s, e, err) : 0;
	snprintf(in, sizeof(in), "at byte %llu of its data: ", (unsigned long long)decompress__position(s->z));
	e = check_record(s, ev, s->z_offset, in, err);
	if (e < 0)
		return e;
	if (is_compressed(ev->type))
		return reader_error__set(err, s->z_offset, ev->type, "%sa compressed record inside compressed data", in);
	if (ev->type == PERF_RECORD_AUXTRACE)
		return reader_error__set(err, s->z_offset, ev->type, "%sAUX data inside compressed data (perf writes it outside)", in);
	*ret_ev = ev;
	return 1;
}

/* Hand a compressed record's payload to the one stream they share. */
static int feed(struct record_stream *s, const struct perf_event_header *ev, struct reader_error *err)
{
	const uint8_t *src = (const uint8_t *)ev + sizeof(*ev);
	uint64_t len = ev->size - sizeof(*ev);

	if (s->comp_type != PERF_COMP_ZSTD)
		return reader_error__set(err, s->rec_off, ev->type, "compressed with type %u (HEADER_COMPRESSED): prof reads zstd "
			   "(type 1), the only one perf writes", s->comp_type);
	if (ev->type == PROF_RECORD_COMPRESSED2) {
		memcpy(&len, src, 8);
		src += 8;
		if (len > ev->size - sizeof(*ev) - 8u)
			return reader_error__set(err, s->rec_off, ev->type, "its data size %llu runs past the record's %u bytes",
				   (unsigned long long)len, ev->size);
	}
	if (!s->z) {
		s->z = decompress__new(s->comp_mmap_len);
		if (!s->z)
			return -ENOMEM;
	}
	if (decompress__feed(s->z, src, (size_t)len) < 0)
		return reader_error__set(err, s->rec_off, ev->type, "a compressed record before the last one was read");
	s->z_offset = s->rec_off;
	s->in_z = true;
	return 0;
}

/* The end of the data: nothing left half-read inside the compressed records. */
static int end_of_data(struct record_stream *s, struct reader_error *err)
{
	size_t left = s->z ? decompress__pending(s->z) : 0;

	if (left && !s->unfinished)
		return reader_error__set(err, s->z_offset, PERF_RECORD_COMPRESSED, "the compressed data ends %zu bytes into a record",
			   left);
	return 0;
}

int record_stream__next(struct record_stream *s, const struct perf_event_header **ret_ev,
		      uint64_t *ret_offset, struct reader_error *err)
{
	const struct perf_event_header *ev = NULL;
	int n;

	for (;;) {
		if (s->in_z) {
			n = next_compressed(s, ret_ev, err);
			if (n > 0)
				*ret_offset = s->z_offset;
			if (n != 0)
				return n;
			s->in_z = false;
		}
		n = next_in_file(s, &ev, err);
		if (n <= 0)
			return n < 0 ? n : end_of_data(s, err);
		if (!is_compressed(ev->type)) {
			*ret_ev = ev;
			*ret_offset = s->rec_off;
			return 1;
		}
		n = feed(s, ev, err);
		if (n < 0)
			return n;
	}
}
