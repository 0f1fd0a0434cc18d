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
	[PYTHON_NOT_BEFORE] = "code object not seen before the sample",
};

const char *python_verdict__name(enum python_verdict v)
{
	return v < PYTHON_VERDICTS ? verdict_names[v] : "?";
}

enum python_verdict python_walk__frame(const struct python_walk *w, uint64_t frame, uint64_t code,
				       struct python_frame *out)
{
	const struct python_layout *l = w->l;
	uint8_t fbuf[128];
	uint64_t c, type;

	if (l->frame_specials > sizeof(fbuf) || l->co_code_adaptive > PYTHON_CODE_HEAD)
		return PYTHON_READ_FAILED;
	if (!frame || w->read(w->ctx, frame, fbuf, l->frame_specials) < 0)
		return PYTHON_READ_FAILED;
	if (!code || (code & 7))
		return PYTHON_NOT_CODE;
	if (w->read(w->ctx, code, out->head, l->co_code_adaptive) < 0)
		return PYTHON_READ_FAILED;
	memcpy(&type, out->head + 8, 8);
	if (type != w->code_type)
		return PYTHON_NOT_CODE;
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
