/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading V8's heap: see include/prof/node/v8heap.h.
 */
#include <errno.h>
#include <string.h>

#include "prof/node/v8heap.h"

#define CHUNK 4096

#define REFUSE(w) ({ *why = (w); -EINVAL; })

int v8__word(const struct node_v8 *v, uint64_t tagged, int64_t off, uint64_t *ret)
{
	return v->read(v->ctx, tagged - 1 + (uint64_t)off, ret, 8);
}

int v8__type(const struct node_v8 *v, uint64_t tagged, uint16_t *ret, const char **why)
{
	const int64_t *m = v->m.v;
	uint64_t map, meta;
	uint16_t type, meta_type;
	int err;

	if (!v8__is_object(tagged))
		return REFUSE("not a heap object");
	if ((err = v8__word(v, tagged, m[VO_HEAP_OBJECT_MAP], &map)) < 0)
		return err;
	if (!v8__is_object(map))
		return REFUSE("an object whose map is no heap object");
	if ((err = v->read(v->ctx, map - 1 + (uint64_t)m[VO_MAP_INSTANCE_TYPE], &type, 2)) < 0 ||
	    (err = v8__word(v, map, m[VO_HEAP_OBJECT_MAP], &meta)) < 0)
		return err;
	/* the meta map is its own map, of MAP_TYPE */
	if (!v8__is_object(meta) ||
	    (err = v->read(v->ctx, meta - 1 + (uint64_t)m[VO_MAP_INSTANCE_TYPE], &meta_type, 2)) < 0)
		return err < 0 ? err : REFUSE("an object whose map's map is no heap object");
	if (meta_type != m[VT_MAP])
		return REFUSE("an object whose map is not a Map");
	*ret = type;
	return 0;
}

bool v8__is_string_type(const struct node_v8 *v, uint16_t type)
{
	return type < v->m.v[VC_FIRST_NONSTRING_TYPE];
}

int v8_string__length(const struct node_v8 *v, uint64_t tagged, uint32_t *ret, const char **why)
{
	uint16_t type;
	int32_t len;
	int err;

	if ((err = v8__type(v, tagged, &type, why)) < 0)
		return err;
	if (!v8__is_string_type(v, type))
		return REFUSE("a name that is no string");
	if ((err = v->read(v->ctx, tagged - 1 + (uint64_t)v->m.v[VO_STRING_LENGTH], &len, 4)) < 0)
		return err;
	if (len < 0 || len > (1 << 29))
		return REFUSE("a string of impossible length");
	*ret = (uint32_t)len;
	return 0;
}

static int walk(const struct node_v8 *v, uint64_t tagged, uint32_t from, uint32_t len, v8_units_fn fn, void *ctx,
		int depth, const char **why)
{
	const int64_t *m = v->m.v;
	unsigned char buf[CHUNK];
	uint32_t total;
	uint16_t type;
	uint64_t a, b;
	int err;

	if (depth > V8_STRING_DEPTH)
		return REFUSE("a string nested deeper than prof follows");
	if ((err = v8__type(v, tagged, &type, why)) < 0)
		return err;
	if (!v8__is_string_type(v, type))
		return REFUSE("a name that is no string");
	if ((err = v8_string__length(v, tagged, &total, why)) < 0)
		return err;
	if (len == UINT32_MAX)
		len = from <= total ? total - from : 0;
	if (from > total || len > total - from)
		return REFUSE("a string shorter than its parts say");
	if (!len)
		return 0;
	if ((type & m[VC_STRING_REPRESENTATION_MASK]) == m[VC_SEQ_STRING_TAG]) {
		unsigned width = (type & m[VC_STRING_ENCODING_MASK]) == m[VC_ONE_BYTE_STRING_TAG] ? 1 : 2;
		uint64_t chars = tagged - 1 +
				 (uint64_t)(width == 1 ? m[VO_SEQ_ONE_BYTE_CHARS] : m[VO_SEQ_TWO_BYTE_CHARS]);

		if (width == 2 && (type & m[VC_STRING_ENCODING_MASK]) != m[VC_TWO_BYTE_STRING_TAG])
			return REFUSE("a string of an encoding prof does not know");
		for (uint32_t done = 0; done < len;) {
			uint32_t n = len - done < CHUNK / width ? len - done : CHUNK / width;

			if ((err = v->read(v->ctx, chars + (uint64_t)(from + done) * width, buf, (size_t)n * width)) < 0 ||
			    (err = fn(ctx, buf, n, width)) < 0)
				return err;
			done += n;
		}
		return 0;
	}
	if ((type & m[VC_STRING_REPRESENTATION_MASK]) == m[VC_CONS_STRING_TAG]) {
		uint32_t first_len;

		if ((err = v8__word(v, tagged, m[VO_CONS_FIRST], &a)) < 0 ||
		    (err = v8__word(v, tagged, m[VO_CONS_SECOND], &b)) < 0)
			return err;
		if ((err = v8_string__length(v, a, &first_len, why)) < 0)
			return err;
		if (first_len > total)
			return REFUSE("a cons string whose first part is longer than it");
		if (from < first_len) {
			uint32_t n = len < first_len - from ? len : first_len - from;

			if ((err = walk(v, a, from, n, fn, ctx, depth + 1, why)) < 0)
				return err;
			len -= n;
			from = first_len;
		}
		return len ? walk(v, b, from - first_len, len, fn, ctx, depth + 1, why) : 0;
	}
	if ((type & m[VC_STRING_REPRESENTATION_MASK]) == m[VC_SLICED_STRING_TAG]) {
		if ((err = v8__word(v, tagged, m[VO_SLICED_PARENT], &a)) < 0 ||
		    (err = v8__word(v, tagged, m[VO_SLICED_OFFSET], &b)) < 0)
			return err;
		if (!v8__is_smi64(b) || v8__smi(b) < 0 || v8__smi(b) > (1 << 29))
			return REFUSE("a sliced string whose offset is no Smi");
		return walk(v, a, from + (uint32_t)v8__smi(b), len, fn, ctx, depth + 1, why);
	}
	if ((type & m[VC_STRING_REPRESENTATION_MASK]) == m[VC_THIN_STRING_TAG]) {
		if ((err = v8__word(v, tagged, m[VO_THIN_ACTUAL], &a)) < 0)
			return err;
		return walk(v, a, from, len, fn, ctx, depth + 1, why);
	}
	if ((type & m[VC_STRING_REPRESENTATION_MASK]) == m[VC_EXTERNAL_STRING_TAG])
		return REFUSE("an external string (the embedder's bytes)");
	return REFUSE("a string of a representation prof does not know");
}

int v8_string__walk(const struct node_v8 *v, uint64_t tagged, uint32_t from, uint32_t len, v8_units_fn fn,
		    void *ctx, const char **why)
{
	return walk(v, tagged, from, len, fn, ctx, 0, why);
}

struct utf8 {
	char *buf;
	size_t size, len;
	uint32_t high;                  /* a high surrogate waiting for its low half */
};

static int put(struct utf8 *u, const char *s, size_t n)
{
	if (u->len + n >= u->size)
		return -E2BIG;
	memcpy(u->buf + u->len, s, n);
	u->len += n;
	return 0;
}

static int put_cp(struct utf8 *u, uint32_t c)
{
	char s[4];

	if (c < 0x80)
		return put(u, (char[]){ (char)c }, 1);
	if (c < 0x800) {
		s[0] = (char)(0xc0 | c >> 6);
		s[1] = (char)(0x80 | (c & 0x3f));
		return put(u, s, 2);
	}
	if (c < 0x10000) {
		s[0] = (char)(0xe0 | c >> 12);
		s[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		s[2] = (char)(0x80 | (c & 0x3f));
		return put(u, s, 3);
	}
	s[0] = (char)(0xf0 | c >> 18);
	s[1] = (char)(0x80 | ((c >> 12) & 0x3f));
	s[2] = (char)(0x80 | ((c >> 6) & 0x3f));
	s[3] = (char)(0x80 | (c & 0x3f));
	return put(u, s, 4);
}

/* Latin-1 or UTF-16 units to UTF-8; a lone surrogate becomes U+FFFD, as V8 prints it. */
static int to_utf8(void *ctx, const void *units, size_t n, unsigned width)
{
	struct utf8 *u = ctx;
	int err;

	for (size_t i = 0; i < n; i++) {
		uint32_t c = width == 1 ? ((const uint8_t *)units)[i] : ((const uint16_t *)units)[i];

		if (u->high) {
			uint32_t hi = u->high;

			u->high = 0;
			if (c >= 0xdc00 && c < 0xe000) {
				if ((err = put_cp(u, 0x10000 + ((hi - 0xd800) << 10) + (c - 0xdc00))) < 0)
					return err;
				continue;
			}
			if ((err = put_cp(u, 0xfffd)) < 0)
				return err;
		}
		if (c >= 0xd800 && c < 0xdc00) {
			u->high = c;
			continue;
		}
		if ((err = put_cp(u, c >= 0xdc00 && c < 0xe000 ? 0xfffd : c)) < 0)
			return err;
	}
	return 0;
}

int v8_string__utf8(const struct node_v8 *v, uint64_t tagged, char *buf, size_t size, const char **why)
{
	struct utf8 u = { .buf = buf, .size = size };
	uint32_t len;
	int err;

	if (!size)
		return -E2BIG;
	buf[0] = '\0';
	if ((err = v8_string__length(v, tagged, &len, why)) < 0)
		return err;
	if (len >= size)
		return ({ *why = "a name longer than prof keeps"; -E2BIG; });
	err = v8_string__walk(v, tagged, 0, UINT32_MAX, to_utf8, &u, why);
	if (err == 0 && u.high)
		err = put_cp(&u, 0xfffd);
	if (err == -E2BIG)
		*why = "a name longer than prof keeps";
	if (err < 0) {
		buf[0] = '\0';
		return err;
	}
	buf[u.len] = '\0';
	return 0;
}
