/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CPython 3.8-3.10: the build's checks at attach, the check of each activation's
 * pinned frame, and their line tables: see include/prof/python/frame_old.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof/python/frame_old.h"

/* ---- line tables ------------------------------------------------------------ */

int python_lnotab__line(const uint8_t *t, size_t len, int32_t firstlineno, uint32_t off)
{
	int32_t line = firstlineno;
	uint32_t addr = 0;

	/* Objects/codeobject.c's PyCode_Addr2Line of 3.8/3.9: the line increment of a
	 * pair applies from its address on */
	for (size_t i = 0; i + 1 < len; i += 2) {
		addr += t[i];
		if (addr > off)
			break;
		line += (int8_t)t[i + 1];
	}
	return line;
}

int python_linetable310__line(const uint8_t *t, size_t len, int32_t firstlineno, uint32_t off)
{
	int32_t computed = firstlineno;
	uint32_t start, end = 0;

	/* Objects/lnotab_notes.txt of 3.10: each pair covers [end, end + delta) */
	for (size_t i = 0; i + 1 < len; i += 2) {
		int8_t ldelta = (int8_t)t[i + 1];
		int32_t line = -1;

		start = end;
		end += t[i];
		if (ldelta != -128)
			line = computed += ldelta;
		if (off >= start && off < end)
			return line;
	}
	return -1;
}

int python_lines__line(const struct python_layout *l, const uint8_t *t, size_t len, int32_t firstlineno,
		       uint32_t off)
{
	if (l->old == 8 || l->old == 9)
		return python_lnotab__line(t, len, firstlineno, off);
	if (l->old == 10)
		return python_linetable310__line(t, len, firstlineno, off);
	return python_linetable__line(t, len, firstlineno, off);
}

/* ---- the build ------------------------------------------------------------------ */

int python_old__minor(const char *path)
{
	const char *base = strrchr(path, '/'), *v;
	char *end;
	long minor;

	base = base ? base + 1 : path;
	if (strncmp(base, "libpython3.", 11) == 0)
		v = base + 11;
	else if (strncmp(base, "python3.", 8) == 0)
		v = base + 8;
	else
		return -1;
	minor = strtol(v, &end, 10);
	if (end == v || minor < 0 || minor > 99 || (*end && *end != '.' && *end != 'd' && *end != 'm'))
		return -1;
	return (int)minor;
}

#define CHECK(name, have, want)                                                                   \
	do {                                                                                      \
		if ((int64_t)(have) != (int64_t)(want)) {                                         \
			snprintf(why, why_len, "%s: its DWARF's %s is %lld where %s has %lld", path, name, \
				 (long long)(have), l->what, (long long)(want));                  \
			return -ENOTSUP;                                                          \
		}                                                                                 \
	} while (0)

/* Does the build's DWARF (o) agree with layout l, 3.8/3.9 with a co_lnotab, 3.10
 * with a co_linetable? */
static int check_offsets(const struct python_layout *l, const struct pin_offsets *o, const char *path, char *why,
			 size_t why_len)
{
	CHECK("struct _frame.f_code", o->fo_code, l->f_code);
	CHECK("struct _frame.f_back", o->fo_back, l->f_previous);
	CHECK("PyCodeObject.co_code", o->co_code, l->co_code);
	CHECK("PyCodeObject.co_name", o->co_name, l->co_qualname);
	CHECK("PyCodeObject.co_filename", o->co_filename, l->co_filename);
	CHECK("PyCodeObject.co_firstlineno", o->co_firstlineno, l->co_firstlineno);
	CHECK("PyCodeObject's size", o->co_size, l->code_basicsize);
	if (l->old < 10) {
		CHECK("PyCodeObject.co_lnotab", o->co_lnotab, l->co_linetable);
		CHECK("PyCodeObject.co_linetable", o->co_linetable, -1);
	} else {
		CHECK("PyCodeObject.co_linetable", o->co_linetable, l->co_linetable);
		CHECK("PyCodeObject.co_lnotab", o->co_lnotab, -1);
	}
	return 0;
}

static void debug_path_of(const struct build_id *b, char *buf, size_t len)
{
	char hex[2 * BUILD_ID_MAX + 1];

	build_id__hex(b, hex, sizeof(hex));
	snprintf(buf, len, "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
}

int interp_old__judge(Elf *elf, const char *path, const struct interp_syms *s, const struct build_id *b,
		      struct interp *ret, char *why, size_t why_len)
{
	int minor = python_old__minor(path);
	const struct python_layout *l = minor >= 0 ? python_layout__find_old((unsigned int)minor) : NULL;
	/* f is the first parameter in 3.8, the second (after tstate) from 3.9 */
	uint8_t reg = minor == 8 ? 5 : 4;
	char debug_path[128];
	struct pin_loc loc;
	int err;

	if (!l) {
		snprintf(why, why_len, "%s: a CPython older than 3.11 (no Py_Version) and not 3.8-3.10 by its name: "
			 "not a version prof knows", path);
		return -ENOTSUP;
	}
	ret->version = 0x03000000u | (uint32_t)minor << 16;
	if (!s->frame_type) {
		snprintf(why, why_len, "%s: CPython 3.%d (by its name) without PyFrame_Type: not a build prof knows",
			 path, minor);
		return -ENOTSUP;
	}
	if (b->size)
		debug_path_of(b, debug_path, sizeof(debug_path));
	err = python_pins__read(elf, b->size ? debug_path : NULL, s->eval, &ret->pins);
	if (err == -ENOENT) {
		snprintf(why, why_len, "%s: CPython 3.%d (by its name): no debug info (3.8-3.10's frames are pinned "
			 "by the build's DWARF alone: install its debug symbols)", path, minor);
		return -ENOTSUP;
	}
	if (err < 0)
		return err;
	err = check_offsets(l, python_pins__offsets(ret->pins), path, why, why_len);
	/* the build's own word on its signature: f arrives in 3.N's register */
	if (err == 0 && (!python_pins__at(ret->pins, PIN_F, s->eval, &loc) || loc.op != PIN_REG || loc.reg != reg)) {
		snprintf(why, why_len, "%s: CPython 3.%d (by its name): its DWARF does not say the eval function "
			 "gets f in %s as 3.%d's does: not a build prof knows", path, minor, reg == 5 ? "rdi" : "rsi",
			 minor);
		err = -ENOTSUP;
	}
	if (err == 0) {
		err = python_callsites__read(elf, b->size ? debug_path : NULL, reg, "_PyEval_EvalFrameDefault",
					     &ret->calls);
		if (err == -ENOENT) {
			snprintf(why, why_len, "%s: CPython 3.%d: not a build prof knows (its DWARF describes no call "
				 "passing the eval function its frame)", path, minor);
			err = -ENOTSUP;
		}
	}
	if (err < 0) {
		interp__release(ret);
		return err;
	}
	ret->f_reg = reg;
	ret->l = l;
	return 0;
}

/* ---- the frame -------------------------------------------------------------- */

/* The pinned code object, if it still is one, for a frame that moved on. */
static enum python_verdict moved(const struct python_walk *w, uint64_t code, struct python_frame *out)
{
	out->code = code && python_walk__code(w, code, out->head) == PYTHON_VERIFIED ? code : 0;
	return PYTHON_MOVED;
}

enum python_verdict python_walk_old__frame(const struct python_walk *w, uint64_t frame, uint64_t code,
					   const struct python_pinned *pin, struct python_frame *out)
{
	const struct python_layout *l = w->l;
	uint8_t fbuf[48], bytes[32];
	uint64_t type, c, co_code;
	int64_t size;
	enum python_verdict v;

	if (l->co_code_adaptive > PYTHON_CODE_HEAD || l->f_code + 8 > sizeof(fbuf))
		return PYTHON_READ_FAILED;
	if (!frame)
		return PYTHON_NOT_PINNED;
	if (frame & 7)
		return PYTHON_NOT_CODE;
	if (w->read(w->ctx, frame, fbuf, sizeof(fbuf)) < 0)
		return PYTHON_READ_FAILED;
	*out = (struct python_frame){ .frame = frame };
	memcpy(&type, fbuf + 8, 8);
	memcpy(&c, fbuf + l->f_code, 8);
	/* no frame object there now, or one running another code object than pinned */
	if (type != w->frame_type || (code && c != code))
		return moved(w, code, out);
	v = python_walk__code(w, c, out->head);
	if (v != PYTHON_VERIFIED)
		return v;
	out->code = c;
	memcpy(&co_code, out->head + l->co_code, 8);
	if (!co_code || w->read(w->ctx, co_code, bytes, sizeof(bytes)) < 0)
		return PYTHON_READ_FAILED;
	memcpy(&size, bytes + l->bytes_size, 8);
	out->first = co_code + l->bytes_data;
	if (size <= 0 || (pin->first_instr && pin->first_instr != out->first))
		return moved(w, code, out);
	if (pin->instr) {
		/* the running instruction is this code object's, or the frame moved on */
		if (pin->instr < out->first || pin->instr - out->first >= (uint64_t)size || (pin->instr & 1))
			return moved(w, code, out);
		out->instr = pin->instr;
		out->before_next = pin->before_next;
		return PYTHON_VERIFIED;
	}
	out->by_frame = !code && !pin->first_instr;
	return PYTHON_VERIFIED;
}
