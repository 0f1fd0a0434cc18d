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

/* Does frame start right where a frame of the outer activation's pinned frame and
 * code (outer, outer_code) ends, so that it is its own activation's first frame? */
static bool first_after(const struct python_walk *w, uint64_t frame, uint64_t outer, uint64_t outer_code)
{
	const struct python_layout *l = w->l;
	uint8_t head[PYTHON_CODE_HEAD];
	uint64_t type;
	int32_t n, s;

	if (!outer || !outer_code || (outer_code & 7) || w->read(w->ctx, outer_code, head, l->co_code_adaptive) < 0)
		return false;
	memcpy(&type, head + 8, 8);
	memcpy(&n, head + l->co_nlocalsplus, 4);
	memcpy(&s, head + l->co_stacksize, 4);
	return type == w->code_type && n >= 0 && s >= 0 &&
	       frame == outer + l->frame_specials + 8 * ((uint64_t)n + (uint64_t)s);
}

enum python_verdict python_walk__frame(const struct python_walk *w, uint64_t frame, uint64_t code,
				       uint64_t outer, uint64_t outer_code, struct python_frame *out)
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
	/* moved on: whether the frame was an entry frame is read no more */
	out->callers = !first_after(w, frame, outer, outer_code) && (c != code || !fbuf[l->f_is_entry]);
	return c == code ? PYTHON_VERIFIED : PYTHON_MOVED;
}
