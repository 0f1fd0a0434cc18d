/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Java methods' names, lines and inlined frames: see include/prof/jvm/method.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "prof/base/util.h"
#include "prof/jvm/method.h"

#define MAX_SCOPES_BYTES (1u << 20)
#define MAX_LINE_TABLE   (64u * 1024)
#define MAX_INLINE_DEPTH 64
/* ConstMethod's flag (JDK 8 to 25: its first bit) */
#define HAS_LINENUMBER_TABLE 1u
/* DebugInformationRecorder::serialized_null, InvocationEntryBci */
#define SERIALIZED_NULL 0
#define INVOCATION_ENTRY_BCI (-1)

static uint16_t u16_at(const uint8_t *b, uint64_t off)
{
	uint16_t v;

	memcpy(&v, b + off, 2);
	return v;
}

int jvm_unsigned5__read(const uint8_t *buf, size_t len, size_t *at, uint8_t x, uint32_t *ret)
{
	uint32_t sum = 0;
	size_t p = *at;

	for (int i = 0, shift = 0; i < 5; i++, shift += 6) {
		uint8_t b;

		if (p >= len)
			return -EINVAL;
		b = buf[p++];
		if (b < x)
			return -EINVAL;
		sum += (uint32_t)(b - x) << shift;
		/* a byte below L = 192 - x (as b - x) ends the number; the fifth always does */
		if (b < 192 || i == 4)
			break;
	}
	*at = p;
	*ret = sum;
	return 0;
}

static int signed5(const uint8_t *buf, size_t len, size_t *at, uint8_t x, int32_t *ret)
{
	uint32_t v;
	int err = jvm_unsigned5__read(buf, len, at, x, &v);

	if (err == 0)
		*ret = (int32_t)(v >> 1) ^ -(int32_t)(v & 1);
	return err;
}

int jvm_line_table__find(const uint8_t *tbl, size_t len, uint8_t x, int32_t bci)
{
	int32_t cur_bci = 0, cur_line = 0, best_bci = 0, best_line = 0;
	size_t at = 0;

	/* Method::line_number_from_bci: the exact bci, else the last entry before it */
	while (at < len) {
		uint8_t b = tbl[at++];

		if (b == 0)
			return best_line;
		if (b == 0xff) {
			int32_t db = 0, dl = 0;

			if (signed5(tbl, len, &at, x, &db) < 0 || signed5(tbl, len, &at, x, &dl) < 0)
				return -EINVAL;
			cur_bci += db;
			cur_line += dl;
		} else {
			cur_bci += b >> 3;
			cur_line += b & 7;
		}
		if (cur_bci == bci)
			return cur_line > 0 ? cur_line : 0;
		if (cur_bci < bci && cur_bci >= best_bci) {
			best_bci = cur_bci;
			best_line = cur_line > 0 ? cur_line : 0;
		}
	}
	return -EINVAL;
}

/* Symbol sym's text into buf (len bytes, cut there): 0, -ESTALE when it is none. */
static int symbol_read(const struct jvm *j, uint64_t sym, char *buf, size_t len)
{
	const struct jvm_layout *l = &j->l;
	uint8_t head[64];
	uint16_t n;
	int err;

	buf[0] = '\0';
	if (!sym || l->v[JF_SYM_BODY] > sizeof(head))
		return -ESTALE;
	if ((err = j->read(j->ctx, sym, head, l->v[JF_SYM_BODY])) < 0)
		return err;
	n = u16_at(head, l->v[JF_SYM_LENGTH]);
	if (n >= len)
		n = (uint16_t)(len - 1);
	if (n && (err = j->read(j->ctx, sym + l->v[JF_SYM_BODY], buf, n)) < 0)
		return err;
	buf[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
			return -ESTALE;
	return 0;
}

/* The Symbol at index i of constant pool cp (a pool of len entries) into buf. */
static int pool_symbol(const struct jvm *j, uint64_t cp, int32_t len, uint16_t i, char *buf, size_t size)
{
	uint64_t sym;
	int err;

	buf[0] = '\0';
	if (i == 0 || (len > 0 && i >= len))
		return -ESTALE;
	if ((err = j->read(j->ctx, cp + j->l.v[JT_CONSTANTPOOL] + 8 * (uint64_t)i, &sym, 8)) < 0)
		return err;
	/* the low bit marks a resolved entry in some JDKs: a Symbol* is aligned */
	return symbol_read(j, sym & ~(uint64_t)1, buf, size);
}

int jvm_method__read(const struct jvm *j, uint64_t method, struct jvm_method *ret)
{
	const struct jvm_layout *l = &j->l;
	uint8_t cm[512], cp[512];
	uint64_t holder, kname;
	int32_t cp_len = -1;
	uint16_t src;
	int err;

	memset(ret, 0, sizeof(*ret));
	ret->method = method;
	/* an nmethod made unloaded has no method left (nmethod::make_unloaded) */
	if (!method)
		return -ESTALE;
	if (l->v[JT_CONSTMETHOD] > sizeof(cm) || l->v[JT_CONSTANTPOOL] > sizeof(cp))
		return -ENOTSUP;
	if ((err = j->read(j->ctx, method + l->v[JF_METHOD_CONST_METHOD], &ret->const_method, 8)) < 0 ||
	    (err = j->read(j->ctx, ret->const_method, cm, l->v[JT_CONSTMETHOD])) < 0)
		return err;
	ret->constants = u64_at(cm, l->v[JF_CM_CONSTANTS]);
	ret->code_size = u16_at(cm, l->v[JF_CM_CODE_SIZE]);
	if ((err = j->read(j->ctx, ret->constants, cp, l->v[JT_CONSTANTPOOL])) < 0)
		return err;
	if (l->v[JF_CP_LENGTH] != JVM_NONE)
		cp_len = i32_at(cp, l->v[JF_CP_LENGTH]);
	holder = u64_at(cp, l->v[JF_CP_HOLDER]);
	if ((err = j->read(j->ctx, holder + l->v[JF_KLASS_NAME], &kname, 8)) < 0 ||
	    (err = symbol_read(j, kname, ret->klass, sizeof(ret->klass))) < 0 ||
	    (err = pool_symbol(j, ret->constants, cp_len, u16_at(cm, l->v[JF_CM_NAME_INDEX]), ret->name,
			       sizeof(ret->name))) < 0 ||
	    (err = pool_symbol(j, ret->constants, cp_len, u16_at(cm, l->v[JF_CM_SIGNATURE_INDEX]), ret->signature,
			       sizeof(ret->signature))) < 0)
		return err;
	if (l->v[JF_CP_SOURCE_FILE] != JVM_NONE)
		src = u16_at(cp, l->v[JF_CP_SOURCE_FILE]);
	else if ((err = j->read(j->ctx, holder + l->v[JF_IK_SOURCE_FILE], &src, 2)) < 0)
		return err;
	/* a class with no SourceFile attribute (generated ones) has index 0 */
	if (src && pool_symbol(j, ret->constants, cp_len, src, ret->file, sizeof(ret->file)) < 0)
		ret->file[0] = '\0';
	if (!ret->klass[0] || !ret->name[0] || ret->signature[0] != '(')
		return -ESTALE;
	return 0;
}

static size_t class_dotted(const struct jvm_method *m, char *buf, size_t len)
{
	size_t at = 0;

	for (const char *p = m->klass; *p && at + 1 < len; p++)
		buf[at++] = *p == '/' ? '.' : *p;
	buf[at] = '\0';
	return at;
}

void jvm_method__format(const struct jvm_method *m, char *buf, size_t len)
{
	size_t at = class_dotted(m, buf, len);

	snprintf(buf + at, len - at, ".%s%s", m->name, m->signature);
}

void jvm_method__format_short(const struct jvm_method *m, char *buf, size_t len)
{
	size_t at = class_dotted(m, buf, len);

	snprintf(buf + at, len - at, ".%s", m->name);
}

int32_t jvm_method__bci(const struct jvm *j, const struct jvm_method *m, uint64_t bcp)
{
	uint64_t code = m->const_method + j->l.v[JT_CONSTMETHOD];

	return bcp >= code && bcp < code + m->code_size ? (int32_t)(bcp - code) : -1;
}

int jvm_method__line(const struct jvm *j, const struct jvm_method *m, int32_t bci)
{
	const struct jvm_layout *l = &j->l;
	uint8_t tbl[MAX_LINE_TABLE];
	uint64_t at = m->const_method + l->v[JT_CONSTMETHOD] + m->code_size;
	uint8_t flags;
	size_t have = 0;
	int err;

	if (bci < 0 || (uint32_t)bci >= m->code_size)
		return 0;
	if ((err = j->read(j->ctx, m->const_method + l->v[JF_CM_FLAGS], &flags, 1)) < 0)
		return err;
	if (!(flags & HAS_LINENUMBER_TABLE))
		return 0;
	/* read a page at a time until the table's end (a 0 where an entry starts) */
	while (have < sizeof(tbl)) {
		size_t n = 4096 - ((at + have) & 4095);
		int line;

		if (n > sizeof(tbl) - have)
			n = sizeof(tbl) - have;
		if ((err = j->read(j->ctx, at + have, tbl + have, n)) < 0)
			return err;
		have += n;
		line = jvm_line_table__find(tbl, have, l->u5_x, bci);
		if (line >= 0)
			return line;
	}
	return -ESTALE;
}

/* Where an nmethod's scopes are: its metadata (Method* by index), its pc descs, its
 * scopes data, as [begin, end) addresses. */
struct scopes {
	uint64_t md, md_end, pcs, pcs_end, data, data_end;
};

static int scopes_of(const struct jvm *j, const struct jvm_blob *b, struct scopes *s)
{
	const struct jvm_layout *l = &j->l;
	uint8_t nm[2048];
	int err;

	if (l->v[JT_NMETHOD] > sizeof(nm))
		return -ENOTSUP;
	if ((err = j->read(j->ctx, b->start, nm, l->v[JT_NMETHOD])) < 0)
		return err;
	if (i32_at(nm, l->v[JF_NM_COMPILE_ID]) != b->compile_id)
		return -ESTALE;
	if (!l->immutable) {
		/* JDK 9-22: [metadata][scopes data][pc descs][dependencies] in the blob */
		s->md = b->start + (uint32_t)i32_at(nm, l->v[JF_NM_METADATA_OFFSET]);
		s->data = u64_at(nm, l->v[JF_NM_SCOPES_DATA]);
		s->md_end = s->data;
		s->pcs = b->start + (uint32_t)i32_at(nm, l->v[JF_NM_SCOPES_PCS_OFFSET]);
		s->data_end = s->pcs;
		s->pcs_end = b->start + (uint32_t)i32_at(nm, l->v[JF_NM_DEPENDENCIES_OFFSET]);
	} else {
		/* JDK 23+: pc descs then scopes data in the nmethod's immutable data */
		uint64_t imm = u64_at(nm, l->v[JF_NM_IMMUTABLE_DATA]);
		uint32_t size = (uint32_t)i32_at(nm, l->v[JF_NM_IMMUTABLE_SIZE]);

		if (l->v[JF_NM_IMMUTABLE_REFCOUNT] != JVM_NONE &&
		    (uint32_t)i32_at(nm, l->v[JF_NM_IMMUTABLE_REFCOUNT]) < size)
			size = (uint32_t)i32_at(nm, l->v[JF_NM_IMMUTABLE_REFCOUNT]);
		s->pcs = imm + (uint32_t)i32_at(nm, l->v[JF_NM_SCOPES_PCS_OFFSET]);
		s->pcs_end = s->data = imm + (uint32_t)i32_at(nm, l->v[JF_NM_SCOPES_DATA]);
		s->data_end = imm + size;
		if (l->mutable_md) {
			/* JDK 25+: the metadata after the relocations in the mutable data */
			uint64_t mut = u64_at(nm, l->v[JF_BLOB_MUTABLE_DATA]);
			uint32_t rel = (uint32_t)i32_at(nm, l->v[JF_BLOB_RELOC_SIZE]);

			s->md = mut + rel;
			s->md_end = mut + (uint32_t)i32_at(nm, l->v[JF_BLOB_MUTABLE_SIZE]);
		} else {
			s->md = b->code_end + u16_at(nm, l->v[JF_NM_METADATA_OFFSET]);
			s->md_end = b->start + b->size;
		}
	}
	if (s->md > s->md_end || s->pcs > s->pcs_end || s->data > s->data_end || s->pcs_end - s->pcs > MAX_SCOPES_BYTES ||
	    s->data_end - s->data > MAX_SCOPES_BYTES || s->md_end - s->md > MAX_SCOPES_BYTES)
		return -ESTALE;
	return 0;
}

/* The decode offset of the pc desc for pc: exact, else the nearest after (0: none). */
static int pc_desc(const struct jvm *j, const struct jvm_blob *b, const struct scopes *s, uint64_t pc,
		   int32_t *ret, bool *exact)
{
	const struct jvm_layout *l = &j->l;
	uint64_t stride = l->v[JT_PCDESC];
	int64_t want = (int64_t)(pc - b->code_begin), best = INT64_MAX;
	uint8_t buf[4096];
	int err;

	*ret = SERIALIZED_NULL;
	if (stride < 8 || stride > 64)
		return -ENOTSUP;
	for (uint64_t at = s->pcs; at + stride <= s->pcs_end;) {
		size_t n = (size_t)((s->pcs_end - at) / stride * stride);

		if (n > sizeof(buf) / stride * stride)
			n = sizeof(buf) / stride * stride;
		if ((err = j->read(j->ctx, at, buf, n)) < 0)
			return err;
		for (size_t i = 0; i < n; i += stride) {
			int32_t off = i32_at(buf, i + l->v[JF_PC_PC_OFFSET]);

			if (off >= want && off < best) {
				best = off;
				*ret = i32_at(buf, i + l->v[JF_PC_SCOPE_DECODE_OFFSET]);
			}
		}
		at += n;
	}
	*exact = best == want;
	return 0;
}

static int frames_at(const struct jvm *j, const struct jvm_blob *b, uint64_t pc, bool exact_only,
		     struct jvm_frame *ret, size_t max)
{
	struct scopes s;
	int32_t off;
	size_t n = 0;
	bool exact;
	int err;

	if (!max)
		return -EINVAL;
	if ((err = scopes_of(j, b, &s)) < 0 || (err = pc_desc(j, b, &s, pc, &off, &exact)) < 0)
		return err;
	if (exact_only && !exact)
		return -ENOENT;
	if (off == SERIALIZED_NULL) {
		ret[0] = (struct jvm_frame){ .method = b->method, .bci = -1 };
		return 1;
	}
	for (int depth = 0; off != SERIALIZED_NULL && n < max; depth++) {
		uint8_t buf[16] = { 0 };
		size_t len = sizeof(buf), at = 0;
		uint32_t sender, idx, bci;
		uint64_t m = 0;

		if (depth == MAX_INLINE_DEPTH || off < 0 || s.data + (uint32_t)off >= s.data_end)
			return -ESTALE;
		if (s.data_end - s.data - (uint32_t)off < len)
			len = s.data_end - s.data - (uint32_t)off;
		if ((err = j->read(j->ctx, s.data + (uint32_t)off, buf, len)) < 0)
			return err;
		if (jvm_unsigned5__read(buf, len, &at, j->l.u5_x, &sender) < 0 ||
		    jvm_unsigned5__read(buf, len, &at, j->l.u5_x, &idx) < 0 ||
		    jvm_unsigned5__read(buf, len, &at, j->l.u5_x, &bci) < 0)
			return -ESTALE;
		/* a sender is decoded before its callee: offsets only go down */
		if (sender != SERIALIZED_NULL && (int32_t)sender >= off)
			return -ESTALE;
		if (idx == 0 || s.md + 8 * (uint64_t)idx > s.md_end)
			return -ESTALE;
		if ((err = j->read(j->ctx, s.md + 8 * (uint64_t)(idx - 1), &m, 8)) < 0)
			return err;
		ret[n++] = (struct jvm_frame){ .method = m, .bci = (int32_t)bci + INVOCATION_ENTRY_BCI };
		off = (int32_t)sender;
	}
	/* the outermost scope is the nmethod's own method */
	if (off == SERIALIZED_NULL && ret[n - 1].method != b->method)
		return -ESTALE;
	return (int)n;
}

int jvm_nmethod__frames(const struct jvm *j, const struct jvm_blob *b, uint64_t pc, struct jvm_frame *ret,
			size_t max)
{
	return frames_at(j, b, pc, false, ret, max);
}

int jvm_nmethod__frames_exact(const struct jvm *j, const struct jvm_blob *b, uint64_t pc, struct jvm_frame *ret,
			      size_t max)
{
	return frames_at(j, b, pc, true, ret, max);
}
