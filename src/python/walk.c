/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One eval activation's Python frames, proven: see include/prof/python/walk.h.
 */
#include <stdbool.h>
#include <string.h>

#include "prof/python/walk.h"

static const char *const verdict_names[PYTHON_VERDICTS] = {
	[PYTHON_VERIFIED] = "verified",
	[PYTHON_READ_FAILED] = "memory not readable",
	[PYTHON_MOVED] = "frame moved on",
	[PYTHON_NOT_CODE] = "not a code object",
	[PYTHON_NOT_CONTIGUOUS] = "frames not contiguous",
	[PYTHON_NO_ENTRY] = "no entry frame",
	[PYTHON_WRONG_ENTRY] = "entry frame not the outer activation's",
	[PYTHON_SLOW] = "read too slowly",
};

const char *python_verdict__name(enum python_verdict v)
{
	return v < PYTHON_VERDICTS ? verdict_names[v] : "?";
}

static uint64_t u64_at(const uint8_t *p, uint32_t off)
{
	uint64_t v;

	memcpy(&v, p + off, 8);
	return v;
}

static int32_t i32_at(const uint8_t *p, uint32_t off)
{
	int32_t v;

	memcpy(&v, p + off, 4);
	return v;
}

/* The bytes a frame of code (its head) takes in its chunk. */
static uint64_t frame_size(const struct python_layout *l, const uint8_t *head)
{
	int32_t n = i32_at(head, l->co_nlocalsplus), s = i32_at(head, l->co_stacksize);

	if (n < 0 || s < 0)
		return 0;
	return l->frame_specials + 8 * ((uint64_t)n + (uint64_t)s);
}

/* Frame f's fields and its code's head; the code must be a code object. */
static enum python_verdict read_frame(const struct python_walk *w, uint64_t f, uint8_t *fbuf,
				      struct python_frame *out)
{
	const struct python_layout *l = w->l;

	if (w->read(w->ctx, f, fbuf, l->frame_specials) < 0)
		return PYTHON_READ_FAILED;
	out->frame = f;
	out->code = u64_at(fbuf, l->f_code);
	out->prev_instr = u64_at(fbuf, l->f_prev_instr);
	out->previous = u64_at(fbuf, l->f_previous);
	if (!out->code || (out->code & 7))
		return PYTHON_NOT_CODE;
	if (w->read(w->ctx, out->code, out->head, l->co_code_adaptive) < 0)
		return PYTHON_READ_FAILED;
	if (u64_at(out->head, 8) != w->code_type)
		return PYTHON_NOT_CODE;
	return PYTHON_VERIFIED;
}

/* Does the copy b of frame f (from the first pass) show it as it was? */
static bool same(const struct python_layout *l, const uint8_t *b, const struct python_frame *f, bool entry, bool top)
{
	return u64_at(b, l->f_code) == f->code && u64_at(b, l->f_previous) == f->previous &&
	       (top || u64_at(b, l->f_prev_instr) == f->prev_instr) && entry == (b[l->f_is_entry] != 0);
}

/*
 * The frames were read one after the other, while the thread runs.  Read them
 * again in one call: the callers, the top frame, the callers once more.  Each copy
 * of each caller must be as the first pass read it (a caller's instruction stays
 * put while its callee runs), and the top frame must have the same code and
 * caller; its instruction is taken from this copy, taken between two copies of
 * unchanged callers.  A return and a new call (a() then b() calling helper() at
 * the same addresses) while the frames were read shows as a caller that changed;
 * it could only go unseen if the callers changed and changed back (two such
 * switches) while the one call read them.  That call is short, unless prof is
 * preempted in it: one that took longer than PYTHON_AGAIN_MAX_NS proves nothing
 * (on a loaded host, python/callers once showed 4 of 19,500 samples with helper()
 * at a()'s line under b() before this bound).
 */
static enum python_verdict again(const struct python_walk *w, struct python_frame *out, size_t n)
{
	const struct python_layout *l = w->l;
	uint8_t buf[2 * PYTHON_WALK_MAX][80];
	uint64_t addrs[2 * PYTHON_WALK_MAX];
	size_t m = 2 * n - 1;

	if (n > PYTHON_WALK_MAX || l->frame_specials > sizeof(buf[0]))
		return PYTHON_NO_ENTRY;
	/* out[n - 1] is the entry frame, out[0] the top one */
	for (size_t k = 0; k < n; k++)
		addrs[k] = out[n - 1 - k].frame;
	for (size_t k = 0; k + 1 < n; k++)
		addrs[n + k] = out[n - 1 - k].frame;
	uint64_t t0 = w->clock_ns ? w->clock_ns() : 0;

	if (w->readv(w->ctx, addrs, m, l->frame_specials, buf) < 0)
		return PYTHON_READ_FAILED;
	if (w->clock_ns && w->clock_ns() - t0 > PYTHON_AGAIN_MAX_NS)
		return PYTHON_SLOW;
	for (size_t k = 0; k < m; k++) {
		size_t i = k < n ? n - 1 - k : 2 * n - 1 - k;

		if (!same(l, buf[k], &out[i], i == n - 1, i == 0))
			return PYTHON_MOVED;
	}
	out[0].prev_instr = u64_at(buf[n - 1], l->f_prev_instr);
	return PYTHON_VERIFIED;
}

enum python_verdict python_walk__activation(const struct python_walk *w, uint64_t frame, uint64_t code,
					    uint64_t outer, struct python_frame *out, size_t max, size_t *ret_nr)
{
	const struct python_layout *l = w->l;
	uint8_t fbuf[128];
	uint64_t f = frame;
	size_t n = 0;

	*ret_nr = 0;
	if (l->frame_specials > sizeof(fbuf) || l->co_code_adaptive > PYTHON_CODE_HEAD)
		return PYTHON_READ_FAILED;
	while (n < max) {
		struct python_frame *cur = &out[n];
		enum python_verdict v = read_frame(w, f, fbuf, cur);
		uint64_t prev;

		if (v != PYTHON_VERIFIED)
			return v;
		if (n == 0 && cur->code != code)
			return PYTHON_MOVED;
		if (n > 0 && out[n - 1].frame != f + frame_size(l, cur->head))
			return PYTHON_NOT_CONTIGUOUS;
		n++;
		prev = u64_at(fbuf, l->f_previous);
		if (fbuf[l->f_is_entry]) {
			if (outer && prev != outer)
				return PYTHON_WRONG_ENTRY;
			*ret_nr = n;
			return again(w, out, n);
		}
		/* a caller lies below its callee in the chunk */
		if (!prev || prev >= f)
			return PYTHON_NOT_CONTIGUOUS;
		f = prev;
	}
	return PYTHON_NO_ENTRY;
}
