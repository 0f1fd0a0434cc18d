/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "prof/base/util.h"
#include "prof/base/vec.h"
#include "prof/daemon/snapshot.h"

#define BUCKET_FIXED (8 + 8 + 4 + 4 + 6 * 8)
#define ENTRY_SIZE (4 + 4 + 8 + 8)

/* ---- writing ----------------------------------------------------------------------- */

void snap_out__release(struct snap_out *o)
{
	free(o->p);
	*o = (struct snap_out){ 0 };
}

void snapshot__put_raw(struct snap_out *o, const void *p, size_t n)
{
	if (o->err)
		return;
	if (VEC_RESERVE(o->p, o->cap, o->len + n) < 0) {
		o->err = -ENOMEM;
		return;
	}
	memcpy(o->p + o->len, p, n);
	o->len += n;
}

/* x86-64 and every target prof builds for are little-endian: the bytes as they are. */
static void put32(struct snap_out *o, uint32_t v)
{
	snapshot__put_raw(o, &v, 4);
}

static void put64(struct snap_out *o, uint64_t v)
{
	snapshot__put_raw(o, &v, 8);
}

/* Start a record; its length is filled in and its CRC appended by end(). */
static size_t begin(struct snap_out *o, enum snap_type type)
{
	size_t at = o->len;

	put32(o, type);
	put32(o, 0);
	return at;
}

static void end(struct snap_out *o, size_t at)
{
	size_t len;
	uint32_t l, crc;

	if (o->err)
		return;
	len = o->len - at - 8;
	if (len > SNAP_MAX_RECORD) {
		o->err = -E2BIG;
		return;
	}
	l = (uint32_t)len;
	memcpy(o->p + at + 4, &l, 4);
	crc = (uint32_t)crc32(0, o->p + at, (uInt)(len + 8));
	put32(o, crc);
}

void snapshot__put_text(struct snap_out *o, enum snap_type type, const char *text, size_t len)
{
	size_t at = begin(o, type);

	snapshot__put_raw(o, text, MIN(len, (size_t)SNAP_MAX_TEXT));
	end(o, at);
}

static void put_items_of(struct snap_out *o, const struct dict *d, enum dict_kind k, size_t from)
{
	for (size_t i = from; i < dict__nr(d, k) && !o->err; i++) {
		size_t at = begin(o, (enum snap_type)(SNAP_STR + k)), n;
		const struct dict_obj *ob;
		const struct dict_frame *f;
		const struct dict_task *t;
		const uint32_t *ids;
		const char *s;

		put32(o, (uint32_t)i);
		switch (k) {
		case DICT_STR:
			s = dict__str_get(d, (uint32_t)i, &n);
			snapshot__put_raw(o, s, n);
			break;
		case DICT_OBJ:
			ob = dict__obj_get(d, (uint32_t)i);
			put32(o, ob->path);
			snapshot__put_raw(o, (uint8_t[4]){ ob->kind, ob->has_stat, ob->build_id_len, 0 }, 4);
			snapshot__put_raw(o, ob->build_id, sizeof(ob->build_id));
			put32(o, ob->mode);
			put32(o, ob->uid);
			put32(o, ob->gid);
			break;
		case DICT_FRAME:
			f = dict__frame_get(d, (uint32_t)i);
			put32(o, f->obj);
			put32(o, f->sym);
			put32(o, f->flags);
			put64(o, f->addr);
			break;
		case DICT_STACK:
			ids = dict__stack_get(d, (uint32_t)i, &n);
			put32(o, (uint32_t)n);
			snapshot__put_raw(o, ids, n * sizeof(*ids));
			break;
		case DICT_TASK:
			t = dict__task_get(d, (uint32_t)i);
			put32(o, t->uid);
			put32(o, t->flags);
			put32(o, t->cgroup);
			put32(o, t->container);
			put32(o, t->comm);
			put64(o, t->cgroup_id);
			/* an off-CPU task has its holder after: a reader of on-CPU tasks only
			 * (history before off-CPU, an older prof) still reads every other */
			if (t->flags & (DICT_TASK_RUNQ | DICT_TASK_BLOCKED))
				put32(o, t->holder);
			/* 48 bytes: and the holder's cgroup (root's answers, history) */
			if (t->holder_cgroup_id) {
				put64(o, t->holder_cgroup_id);
				put32(o, t->holder_cgroup);
			}
			break;
		default:
			break;
		}
		end(o, at);
	}
}

void snapshot__put_items(struct snap_out *o, const struct dict *d, struct snap_cursor *c)
{
	for (int k = 0; k < DICT_KINDS; k++) {
		put_items_of(o, d, (enum dict_kind)k, c->next[k]);
		c->next[k] = dict__nr(d, (enum dict_kind)k);
	}
}

void snapshot__put_bucket(struct snap_out *o, const struct bucket_hdr *h, const struct bucket_entry *e,
			  size_t nr)
{
	size_t at = begin(o, SNAP_BUCKET);

	if (nr > (SNAP_MAX_RECORD - BUCKET_FIXED - 8) / ENTRY_SIZE) {
		o->err = o->err ? o->err : -E2BIG;
		return;
	}
	put64(o, h->start_ns);
	put64(o, h->end_ns);
	put32(o, h->flags);
	put32(o, (uint32_t)nr);
	put64(o, h->c.samples);
	put64(o, h->c.period);
	put64(o, h->c.cut_samples);
	put64(o, h->c.cut_period);
	put64(o, h->c.lost);
	put64(o, h->c.unattributed);
	if (h->flags & BUCKET_OFFCPU)
		put64(o, h->c.offcpu_window_ns);        /* (versioned by the flag) */
	for (size_t i = 0; i < nr; i++) {
		put32(o, e[i].task);
		put32(o, e[i].stack);
		put64(o, e[i].samples);
		put64(o, e[i].period);
	}
	end(o, at);
}

void snapshot__put_end(struct snap_out *o)
{
	end(o, begin(o, SNAP_END));
}

/* ---- reading ----------------------------------------------------------------------- */

void snap_reader__init(struct snap_reader *r, const void *p, size_t len, struct dict *d)
{
	*r = (struct snap_reader){ .p = p, .len = len, .d = d };
}

void snap_reader__release(struct snap_reader *r)
{
	for (int k = 0; k < DICT_KINDS; k++)
		free(r->map[k]);
	free(r->entries);
	snap_reader__init(r, NULL, 0, r->d);
}

__attribute__((format(printf, 2, 3)))
static int bad(struct snap_reader *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof(r->msg), fmt, ap);
	va_end(ap);
	return -EBADMSG;
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* Record id `id` of kind k (named by a later record) as d's id: false when undefined. */
static bool lookup(const struct snap_reader *r, enum dict_kind k, uint32_t id, uint32_t *ret)
{
	if (id >= r->nr[k])
		return false;
	*ret = r->map[k][id];
	return true;
}

static bool lookup_str(const struct snap_reader *r, uint32_t id, uint32_t *ret)
{
	if (id == DICT_NONE) {
		*ret = DICT_NONE;
		return true;
	}
	return lookup(r, DICT_STR, id, ret);
}

/* The item's record id must be the next of its kind; remember where it went. */
static int define(struct snap_reader *r, enum dict_kind k, uint32_t id, int64_t got)
{
	if (got == -EINVAL)
		return bad(r, "item %u names an item not defined before it", id);
	if (got < 0)
		return (int)got;
	if (VEC_RESERVE(r->map[k], r->cap[k], r->nr[k] + 1) < 0)
		return -ENOMEM;
	r->map[k][r->nr[k]++] = (uint32_t)got;
	return 0;
}

static int read_obj(struct snap_reader *r, const uint8_t *p, size_t len, uint32_t id)
{
	struct dict_obj o = { 0 };

	if (len != 44)
		return bad(r, "object record of %zu bytes", len);
	if (!lookup(r, DICT_STR, get32(p + 4), &o.path))
		return bad(r, "object %u: undefined path string", id);
	o.kind = p[8];
	o.has_stat = p[9];
	o.build_id_len = p[10];
	if (o.kind > DICT_OBJ_OTHER || o.has_stat > 1 || o.build_id_len > sizeof(o.build_id))
		return bad(r, "object %u: bad kind, stat flag or build id length", id);
	memcpy(o.build_id, p + 12, sizeof(o.build_id));
	o.mode = get32(p + 32);
	o.uid = get32(p + 36);
	o.gid = get32(p + 40);
	return define(r, DICT_OBJ, id, dict__obj(r->d, &o));
}

static int read_frame(struct snap_reader *r, const uint8_t *p, size_t len, uint32_t id)
{
	struct dict_frame f = { 0 };

	if (len != 24)
		return bad(r, "frame record of %zu bytes", len);
	if (!lookup(r, DICT_OBJ, get32(p + 4), &f.obj) || !lookup(r, DICT_STR, get32(p + 8), &f.sym))
		return bad(r, "frame %u: undefined object or symbol", id);
	f.flags = get32(p + 12);
	if (f.flags & ~(DICT_FRAME_KERNEL | DICT_FRAME_INLINED | DICT_FRAME_HAS_ADDR))
		return bad(r, "frame %u: unknown flags %#x", id, f.flags);
	f.addr = get64(p + 16);
	return define(r, DICT_FRAME, id, dict__frame(r->d, &f));
}

static int read_stack(struct snap_reader *r, const uint8_t *p, size_t len, uint32_t id)
{
	uint32_t ids[DICT_MAX_STACK], nr;

	if (len < 8)
		return bad(r, "stack record of %zu bytes", len);
	nr = get32(p + 4);
	if (nr > DICT_MAX_STACK || len != 8 + (size_t)nr * 4)
		return bad(r, "stack %u: %u frames in %zu bytes", id, nr, len);
	for (uint32_t i = 0; i < nr; i++)
		if (!lookup(r, DICT_FRAME, get32(p + 8 + 4 * i), &ids[i]))
			return bad(r, "stack %u: undefined frame", id);
	return define(r, DICT_STACK, id, dict__stack(r->d, ids, nr));
}

static int read_task(struct snap_reader *r, const uint8_t *p, size_t len, uint32_t id)
{
	struct dict_task t = { 0 };

	if (len != 32 && len != 36 && len != 48)
		return bad(r, "task record of %zu bytes", len);
	t.uid = get32(p + 4);
	t.flags = get32(p + 8);
	if (t.flags & ~DICT_TASK_FLAGS)
		return bad(r, "task %u: unknown flags %#x", id, t.flags);
	/* 36 bytes: off-CPU time, its kind in flags and its holder after (32: on-CPU) */
	if ((len >= 36) != !!(t.flags & (DICT_TASK_RUNQ | DICT_TASK_BLOCKED)) || (len == 48 && !(t.flags & DICT_TASK_RUNQ)) ||
	    (t.flags & DICT_TASK_RUNQ && t.flags & DICT_TASK_BLOCKED))
		return bad(r, "task %u: flags %#x in a record of %zu bytes", id, t.flags, len);
	if (len >= 36)
		t.holder = get32(p + 32);
	if (len == 48) {
		t.holder_cgroup_id = get64(p + 36);
		if (!t.holder_cgroup_id || !lookup_str(r, get32(p + 44), &t.holder_cgroup))
			return bad(r, "task %u: a holder's cgroup without an id or an undefined string", id);
	}
	if (!lookup_str(r, get32(p + 12), &t.cgroup) || !lookup_str(r, get32(p + 16), &t.container) ||
	    !lookup_str(r, get32(p + 20), &t.comm))
		return bad(r, "task %u: undefined string", id);
	t.cgroup_id = get64(p + 24);
	return define(r, DICT_TASK, id, dict__task(r->d, &t));
}

static int read_bucket(struct snap_reader *r, const uint8_t *p, size_t len, struct bucket_hdr *h)
{
	uint32_t nr;
	size_t fixed = BUCKET_FIXED;

	if (len < BUCKET_FIXED)
		return bad(r, "bucket record of %zu bytes", len);
	nr = get32(p + 20);
	*h = (struct bucket_hdr){ .start_ns = get64(p), .end_ns = get64(p + 8), .flags = get32(p + 16) };
	if (h->end_ns < h->start_ns || (h->flags & ~BUCKET_FLAGS))
		return bad(r, "bucket ends before it starts, or has unknown flags");
	/* off-CPU time kept: how long its windows were, after the counts */
	if (h->flags & BUCKET_OFFCPU)
		fixed += 8;
	if (len != fixed + (size_t)nr * ENTRY_SIZE)
		return bad(r, "bucket of %u entries in %zu bytes", nr, len);
	h->c = (struct bucket_counts){ get64(p + 24), get64(p + 32), get64(p + 40), get64(p + 48), get64(p + 56),
				       get64(p + 64), fixed > BUCKET_FIXED ? get64(p + BUCKET_FIXED) : 0 };
	if (VEC_RESERVE(r->entries, r->cap_entries, (size_t)nr + 1) < 0)
		return -ENOMEM;
	p += fixed;
	for (uint32_t i = 0; i < nr; i++, p += ENTRY_SIZE) {
		struct bucket_entry *e = &r->entries[i];

		if (!lookup(r, DICT_TASK, get32(p), &e->task) || !lookup(r, DICT_STACK, get32(p + 4), &e->stack))
			return bad(r, "bucket entry %u: undefined task or stack", i);
		e->samples = get64(p + 8);
		e->period = get64(p + 16);
	}
	r->nr_entries = nr;
	return 0;
}

static int read_item(struct snap_reader *r, enum snap_type type, const uint8_t *p, size_t len)
{
	enum dict_kind k = (enum dict_kind)(type - SNAP_STR);
	uint32_t id;

	if (len < 4)
		return bad(r, "item record of %zu bytes", len);
	id = get32(p);
	if (id != r->nr[k])
		return bad(r, "item %u of kind %d where %zu comes next", id, (int)k, r->nr[k]);
	switch (type) {
	case SNAP_STR:
		if (len - 4 > DICT_MAX_STR)
			return bad(r, "string %u of %zu bytes", id, len - 4);
		return define(r, DICT_STR, id, dict__str(r->d, (const char *)p + 4, len - 4));
	case SNAP_OBJ:
		return read_obj(r, p, len, id);
	case SNAP_FRAME:
		return read_frame(r, p, len, id);
	case SNAP_STACK:
		return read_stack(r, p, len, id);
	default:
		return read_task(r, p, len, id);
	}
}

int snapshot__next(struct snap_reader *r, struct snap_record *ret)
{
	const uint8_t *p;
	uint32_t type, len;
	int err;

	if (r->off == r->len)
		return 0;
	if (r->len - r->off < 12)
		return bad(r, "a record cut short (%zu bytes left)", r->len - r->off);
	p = r->p + r->off;
	type = get32(p);
	len = get32(p + 4);
	if (len > SNAP_MAX_RECORD || len > r->len - r->off - 12)
		return bad(r, "a record of %u bytes where %zu are left", len, r->len - r->off - 12);
	if (get32(p + 8 + len) != (uint32_t)crc32(0, p, len + 8))
		return bad(r, "record of type %u: bad checksum", type);
	*ret = (struct snap_record){ .type = (enum snap_type)type, .text = (const char *)p + 8, .len = len };
	if (type >= SNAP_STR && type <= SNAP_TASK)
		err = read_item(r, (enum snap_type)type, p + 8, len);
	else if (type == SNAP_BUCKET)
		err = read_bucket(r, p + 8, len, &ret->bucket);
	else if (type == SNAP_SEG || type == SNAP_META)
		err = len > SNAP_MAX_TEXT ? bad(r, "text record of %u bytes", len) : 0;
	else if (type == SNAP_END)
		err = len ? bad(r, "end record of %u bytes", len) : 0;
	else
		err = bad(r, "unknown record type %u", type);
	if (err < 0)
		return err;
	r->off += 12 + (size_t)len;
	return 1;
}

bool snapshot__text_value(const char *text, size_t len, const char *key, char *buf, size_t buflen)
{
	size_t kl = strlen(key);

	for (const char *p = text, *e = text + len; p < e;) {
		const char *nl = memchr(p, '\n', (size_t)(e - p)), *le = nl ? nl : e;

		if ((size_t)(le - p) > kl && !memcmp(p, key, kl) && p[kl] == ' ') {
			size_t n = MIN((size_t)(le - p - kl - 1), buflen - 1);

			memcpy(buf, p + kl + 1, n);
			buf[n] = '\0';
			return true;
		}
		p = le + 1;
	}
	return false;
}
