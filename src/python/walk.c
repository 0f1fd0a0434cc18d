/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An eval activation's pinned Python frame, checked: see include/prof/python/walk.h.
 */
#include <stdbool.h>
#include <string.h>

#include "prof/python/walk.h"

static const char *const verdict_names[PYTHON_VERDICTS] = {
	[PYTHON_VERIFIED] = "verified",
	[PYTHON_READ_FAILED] = "memory not readable",
	[PYTHON_MOVED] = "frame moved on",
	[PYTHON_NOT_CODE] = "not a code object",
	[PYTHON_BY_CODE] = "code object as named before",
	[PYTHON_NOT_PINNED] = "not pinned at that instruction",
	[PYTHON_NOT_BEFORE] = "code object not seen before the sample",
};

const char *python_verdict__name(enum python_verdict v)
{
	return v < PYTHON_VERDICTS ? verdict_names[v] : "?";
}

enum python_verdict python_walk__code(const struct python_walk *w, uint64_t code, uint8_t *head)
{
	uint64_t type;

	if (!code || (code & 7))
		return PYTHON_NOT_CODE;
	if (w->read(w->ctx, code, head, w->l->co_code_adaptive) < 0)
		return PYTHON_READ_FAILED;
	memcpy(&type, head + 8, 8);
	return type == w->code_type ? PYTHON_VERIFIED : PYTHON_NOT_CODE;
}

enum python_verdict python_walk__frame(const struct python_walk *w, uint64_t frame, uint64_t code,
				       struct python_frame *out)
{
	const struct python_layout *l = w->l;
	uint8_t fbuf[128];
	uint64_t c;
	enum python_verdict v;

	if (l->frame_specials > sizeof(fbuf) || l->co_code_adaptive > PYTHON_CODE_HEAD)
		return PYTHON_READ_FAILED;
	if (!frame || w->read(w->ctx, frame, fbuf, l->frame_specials) < 0)
		return PYTHON_READ_FAILED;
	v = python_walk__code(w, code, out->head);
	if (v != PYTHON_VERIFIED)
		return v;
	memcpy(&c, fbuf + l->f_code, 8);
	out->frame = frame;
	out->code = code;
	/*
	 * Moved on: whether the frame was an entry frame is read no more.  Where it
	 * starts says nothing: a frame right after the outer activation's pinned one
	 * is the first of a callback from C (sorted(key=)), or the callee of a
	 * generator or coroutine whose own frame is in its object, not in the chunk.
	 */
	out->callers = c != code || !fbuf[l->f_is_entry];
	return c == code ? PYTHON_VERIFIED : PYTHON_MOVED;
}

bool python_walk__holds(const struct python_layout *l, uint64_t code, const uint8_t *head, uint64_t instr)
{
	int64_t units;

	memcpy(&units, head + l->co_size, 8);
	return units > 0 && instr >= code + l->co_code_adaptive &&
	       instr - (code + l->co_code_adaptive) < 2 * (uint64_t)units && !(instr & 1);
}

enum python_verdict python_walk__pinned(const struct python_walk *w, uint64_t frame, uint64_t code,
					const struct python_pinned *pin, struct python_frame *out)
{
	const struct python_layout *l = w->l;
	uint8_t fbuf[128];
	uint64_t c, prev;
	bool runs;

	if (l->frame_specials > sizeof(fbuf) || l->co_code_adaptive > PYTHON_CODE_HEAD)
		return PYTHON_READ_FAILED;
	if (!frame)
		return PYTHON_NOT_PINNED;
	if (w->read(w->ctx, frame, fbuf, l->frame_specials) < 0)
		return PYTHON_READ_FAILED;
	memcpy(&c, fbuf + l->f_code, 8);
	memcpy(&prev, fbuf + l->f_previous, 8);
	out->frame = frame;
	out->instr = 0;
	if (!code) {
		/* no code pinned: the frame's own, if it holds the pinned instruction */
		if (!pin->instr)
			return PYTHON_NOT_PINNED;
		out->code = 0;
		if (python_walk__code(w, c, out->head) != PYTHON_VERIFIED || !python_walk__holds(l, c, out->head, pin->instr))
			return PYTHON_MOVED;
		code = c;
	} else {
		enum python_verdict v = python_walk__code(w, code, out->head);

		if (v != PYTHON_VERIFIED)
			return v;
	}
	out->code = code;
	if (pin->instr && python_walk__holds(l, code, out->head, pin->instr))
		out->instr = pin->instr, out->before_next = pin->before_next;
	runs = c == code;
	/* moved on: whether the frame was its activation's first is read no more */
	if (l->has_is_entry)
		out->callers = !runs || !fbuf[l->f_is_entry];
	else
		out->callers = !runs || !pin->entry_frame || prev != pin->entry_frame;
	return runs ? PYTHON_VERIFIED : PYTHON_MOVED;
}
