/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CPython's layouts and the parsers of its strings and location tables: see
 * include/prof/python/layout.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "prof/base/util.h"
#include "prof/python/layout.h"

/*
 * 3.11's offsets, from its headers (Include/internal/pycore_frame.h,
 * Include/cpython/code.h, Include/cpython/unicodeobject.h) and checked on the
 * running interpreter (ctypes over id() of a code object and a str; PyCode_Type's
 * tp_basicsize is co_code_adaptive's offset).  The eval function's slots are the
 * prologue of Debian 12's python3.11 (3.11.2-6, build id 571d98e0...):
 *
 *   push x6; sub $0x128,%rsp                     CFA = rsp + 0x160
 *   lea 0xb0(%rsp),%rcx; mov %rcx,0x38(%rdi)     tstate->cframe = &cframe (CFA-0xb0)
 *   movups %xmm0,0xb8(%rsp)                      cframe.current_frame = frame (CFA-0xa8)
 *   lea 0xb8(%rdx),%rcx; mov %rcx,0x20(%rsp)     first_instr = code + 0xb8 (CFA-0x140)
 *
 * Both slots are rewritten on every Python-to-Python call and return inside the
 * activation (frame = cframe.current_frame = new_frame; first_instr reloaded at
 * resume_frame), so a stack copy holds the activation's current frame and code.
 *
 * The thread states (chain.h) are Include/internal/pycore_runtime.h's
 * interpreters.head, Include/internal/pycore_interp.h's threads.head and
 * Include/cpython/pystate.h's PyThreadState, as a 3.11.7 and a 3.12.1 build's DWARF
 * give them, checked in each process at attach (chain_frames.c: the first thread
 * state's interp is the interpreter it was found from, its native_thread_id a thread
 * of the process).
 */
static const struct python_layout layouts[] = {
	{
		.what = "CPython 3.11 (Debian 12's python3.11, 3.11.2-6)",
		.version_mask = 0xffff0000, .version = 0x030b0000,
		.build_id = { 0x57, 0x1d, 0x98, 0xe0, 0x10, 0x96, 0xd5, 0xc1, 0xc3, 0x24,
			      0x20, 0xd2, 0x29, 0xa6, 0x73, 0x1a, 0x0a, 0x50, 0xd2, 0xa0 },
		.build_id_len = 20,
		.has_is_entry = true, .str_ready = true,
		.cfa_frame = 0xa8, .cfa_first_instr = 0x140,
		.f_code = 32, .f_previous = 48, .f_prev_instr = 56, .f_is_entry = 68, .f_owner = 69,
		.frame_specials = 72,
		.chain = true, .rt_interp_head = 40, .is_next = 0, .is_threads_head = 16,
		.ts_next = 8, .ts_interp = 16, .ts_native_tid = 160, .ts_cframe = 56, .cframe_current = 8,
		.co_size = 16, .co_stacksize = 68, .co_firstlineno = 72, .co_nlocalsplus = 76,
		.co_filename = 112, .co_qualname = 128, .co_linetable = 136, .co_code_adaptive = 184,
		.code_basicsize = 184, .code_itemsize = 2,
		.tp_name = 24, .tp_basicsize = 32, .tp_itemsize = 40,
		.str_length = 16, .str_state = 32, .str_ascii_data = 48, .str_compact_data = 72,
		.bytes_size = 16, .bytes_data = 32,
	},
};

/*
 * Every build of a version: the same structures, from each version's headers
 * (Include/internal/pycore_frame.h, Include/cpython/code.h,
 * Include/cpython/unicodeobject.h), cross-checked at attach against the build's own
 * DWARF where it has some (dwarf_pins.h), PyCode_Type (interp.h), and for 3.13
 * _Py_DebugOffsets.  The eval function's frame, first and next instruction are
 * wherever the build's DWARF says at each pc, else its code (code_pins.h,
 * prologue.h), else nowhere: its chains alone (interp.h, INTERP_CHAIN).
 */
static const struct python_layout dwarf_layouts[] = {
	{
		.what = "CPython 3.11",
		.version_mask = 0xffff0000, .version = 0x030b0000,
		.dwarf = true, .has_is_entry = true, .str_ready = true,
		.f_code = 32, .f_previous = 48, .f_prev_instr = 56, .f_is_entry = 68, .f_owner = 69,
		.frame_specials = 72,
		.chain = true, .rt_interp_head = 40, .is_next = 0, .is_threads_head = 16,
		.ts_next = 8, .ts_interp = 16, .ts_native_tid = 160, .ts_cframe = 56, .cframe_current = 8,
		.co_size = 16, .co_stacksize = 68, .co_firstlineno = 72, .co_nlocalsplus = 76,
		.co_filename = 112, .co_qualname = 128, .co_linetable = 136, .co_code_adaptive = 184,
		.code_basicsize = 184, .code_itemsize = 2,
		.tp_name = 24, .tp_basicsize = 32, .tp_itemsize = 40,
		.str_length = 16, .str_state = 32, .str_ascii_data = 48, .str_compact_data = 72,
		.bytes_size = 16, .bytes_data = 32,
	},
	{
		.what = "CPython 3.12",
		.version_mask = 0xffff0000, .version = 0x030c0000,
		.dwarf = true,
		.f_code = 0, .f_previous = 8, .f_prev_instr = 56, .f_owner = 70,
		.frame_specials = 72,
		.chain = true, .rt_interp_head = 40, .is_next = 0, .is_threads_head = 72,
		.ts_next = 8, .ts_interp = 16, .ts_native_tid = 144, .ts_cframe = 56, .cframe_current = 0,
		.co_size = 16, .co_stacksize = 64, .co_firstlineno = 68, .co_nlocalsplus = 72,
		.co_filename = 112, .co_qualname = 128, .co_linetable = 136, .co_code_adaptive = 192,
		.code_basicsize = 192, .code_itemsize = 2,
		.tp_name = 24, .tp_basicsize = 32, .tp_itemsize = 40,
		.str_length = 16, .str_state = 32, .str_ascii_data = 40, .str_compact_data = 56,
		.bytes_size = 16, .bytes_data = 32,
	},
	{
		.what = "CPython 3.13",
		.version_mask = 0xffff0000, .version = 0x030d0000,
		.dwarf = true, .debug_offsets = true,
		.f_code = 0, .f_previous = 8, .f_prev_instr = 56, .f_owner = 70,  /* f_executable, instr_ptr */
		.chain = true,  /* the thread states where its _Py_DebugOffsets say (chain_frames.c) */
		.frame_specials = 72,
		.co_size = 16, .co_stacksize = 64, .co_firstlineno = 68, .co_nlocalsplus = 72,
		.co_filename = 112, .co_qualname = 128, .co_linetable = 136, .co_code_adaptive = 200,
		.code_basicsize = 200, .code_itemsize = 2,
		.tp_name = 24, .tp_basicsize = 32, .tp_itemsize = 40,
		.str_length = 16, .str_state = 32, .str_ascii_data = 40, .str_compact_data = 56,
		.bytes_size = 16, .bytes_data = 32,
	},
};

/*
 * 3.8 to 3.10 (builds with debug info): no _PyInterpreterFrame, each Python call its
 * own activation of the eval function, whose parameter f (a PyFrameObject) is
 * pinned (frame_old.h).  From Include/cpython/frameobject.h and
 * Include/cpython/code.h of each version, checked at attach against the build's
 * DWARF (struct _frame, PyCodeObject), PyCode_Type (176 bytes, no items) and
 * PyFrame_Type (368 bytes, 360 in 3.10) as the process holds them.  3.8
 * and 3.9 have the same structures; 3.10 drops f_stacktop (f_lasti moves, not
 * read) and replaces co_lnotab with co_linetable (PEP 626) at the same offset.
 */
static const struct python_layout old_layouts[] = {
	{
		.what = "CPython 3.8 (with debug info)",
		.version_mask = 0xffff0000, .version = 0x03080000, .old = 8, .frame_basicsize = 368,
		.dwarf = true, .str_ready = true,
		.f_code = 32, .f_previous = 24,
		.co_firstlineno = 40, .co_code = 48, .co_filename = 104, .co_qualname = 112, .co_linetable = 120,
		.co_stacksize = 32, .co_code_adaptive = 176, .code_basicsize = 176, .code_itemsize = 0,
		.tp_name = 24, .tp_basicsize = 32, .tp_itemsize = 40,
		.str_length = 16, .str_state = 32, .str_ascii_data = 48, .str_compact_data = 72,
		.bytes_size = 16, .bytes_data = 32,
	},
	{
		.what = "CPython 3.9 (with debug info)",
		.version_mask = 0xffff0000, .version = 0x03090000, .old = 9, .frame_basicsize = 368,
		.dwarf = true, .str_ready = true,
		.f_code = 32, .f_previous = 24,
		.co_firstlineno = 40, .co_code = 48, .co_filename = 104, .co_qualname = 112, .co_linetable = 120,
		.co_stacksize = 32, .co_code_adaptive = 176, .code_basicsize = 176, .code_itemsize = 0,
		.tp_name = 24, .tp_basicsize = 32, .tp_itemsize = 40,
		.str_length = 16, .str_state = 32, .str_ascii_data = 48, .str_compact_data = 72,
		.bytes_size = 16, .bytes_data = 32,
	},
	{
		.what = "CPython 3.10 (with debug info)",
		.version_mask = 0xffff0000, .version = 0x030a0000, .old = 10, .frame_basicsize = 360,
		.dwarf = true, .str_ready = true,
		.f_code = 32, .f_previous = 24,
		.co_firstlineno = 40, .co_code = 48, .co_filename = 104, .co_qualname = 112, .co_linetable = 120,
		.co_stacksize = 32, .co_code_adaptive = 176, .code_basicsize = 176, .code_itemsize = 0,
		.tp_name = 24, .tp_basicsize = 32, .tp_itemsize = 40,
		.str_length = 16, .str_state = 32, .str_ascii_data = 48, .str_compact_data = 72,
		.bytes_size = 16, .bytes_data = 32,
	},
};

const struct python_layout *python_layout__find_old(unsigned int minor)
{
	for (size_t i = 0; i < ARRAY_SIZE(old_layouts); i++)
		if (old_layouts[i].old == minor)
			return &old_layouts[i];
	return NULL;
}

const struct python_layout *python_layout__find(uint32_t version, const uint8_t *id, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(layouts); i++) {
		const struct python_layout *l = &layouts[i];

		if ((version & l->version_mask) == l->version && len == l->build_id_len &&
		    memcmp(id, l->build_id, len) == 0)
			return l;
	}
	return NULL;
}

bool python_layout__knows_version(uint32_t version)
{
	for (size_t i = 0; i < ARRAY_SIZE(layouts); i++)
		if ((version & layouts[i].version_mask) == layouts[i].version)
			return true;
	return python_layout__find_dwarf(version) != NULL;
}

const struct python_layout *python_layout__find_dwarf(uint32_t version)
{
	for (size_t i = 0; i < ARRAY_SIZE(dwarf_layouts); i++)
		if ((version & dwarf_layouts[i].version_mask) == dwarf_layouts[i].version)
			return &dwarf_layouts[i];
	return NULL;
}

/* ---- location tables (3.11+) ------------------------------------------------ */

/* An unsigned varint of the table at *i (6 bits a byte, 0x40: more). */
static bool varint(const uint8_t *t, size_t len, size_t *i, uint32_t *ret)
{
	uint32_t v = 0;
	unsigned int shift = 0;

	do {
		if (*i >= len || shift > 28)
			return false;
		v |= (uint32_t)(t[*i] & 0x3f) << shift;
		shift += 6;
	} while (t[(*i)++] & 0x40);
	*ret = v;
	return true;
}

static bool svarint(const uint8_t *t, size_t len, size_t *i, int32_t *ret)
{
	uint32_t v;

	if (!varint(t, len, i, &v))
		return false;
	*ret = (v & 1) ? -(int32_t)(v >> 1) : (int32_t)(v >> 1);
	return true;
}

int python_linetable__line(const uint8_t *t, size_t len, int32_t firstlineno, uint32_t off)
{
	uint32_t unit = off / 2, at = 0, skip;
	int32_t line = firstlineno;
	size_t i = 0;

	while (i < len) {
		uint8_t b = t[i++];
		unsigned int code = (b >> 3) & 15, n = (b & 7) + 1;
		int32_t delta = 0;
		bool none = false;

		if (!(b & 0x80))
			return -1;              /* not the start of an entry */
		if (code == 15) {
			none = true;
		} else if (code == 14) {
			if (!svarint(t, len, &i, &delta) || !varint(t, len, &i, &skip) ||
			    !varint(t, len, &i, &skip) || !varint(t, len, &i, &skip))
				return -1;
		} else if (code == 13) {
			if (!svarint(t, len, &i, &delta))
				return -1;
		} else if (code >= 10) {
			delta = (int32_t)code - 10;
			if (i + 2 > len)
				return -1;
			i += 2;                 /* start and end columns */
		} else {
			if (i + 1 > len)
				return -1;
			i += 1;                 /* short form: columns */
		}
		line += delta;
		if (unit < at + n)
			return none ? -1 : line;
		at += n;
	}
	return -1;
}

/* ---- str ------------------------------------------------------------------- */

int python_str__data(const struct python_layout *l, const uint8_t *head, size_t head_len,
		     uint32_t *ret_offset, uint32_t *ret_bytes)
{
	uint32_t state, kind;
	int64_t length;

	if (head_len < l->str_compact_data)
		return -EINVAL;
	memcpy(&length, head + l->str_length, 8);
	memcpy(&state, head + l->str_state, 4);
	kind = (state >> 2) & 7;
	/* compact (bit 5) and, where there is one, ready (bit 7): the data follows the head */
	if (!(state & (1u << 5)) || (l->str_ready && !(state & (1u << 7))) || length < 0 || length > 4096 ||
	    (kind != 1 && kind != 2 && kind != 4))
		return -EINVAL;
	*ret_offset = (state & (1u << 6)) ? l->str_ascii_data : l->str_compact_data;
	*ret_bytes = (uint32_t)length * kind;
	return 0;
}

/* c as UTF-8 at *n of buf, if it fits with the NUL. */
static int put_utf8(char *buf, size_t len, size_t *n, uint32_t c)
{
	uint8_t u[4];
	size_t k;

	if (c < 0x80)
		u[0] = (uint8_t)c, k = 1;
	else if (c < 0x800)
		u[0] = (uint8_t)(0xc0 | c >> 6), u[1] = (uint8_t)(0x80 | (c & 0x3f)), k = 2;
	else if (c < 0x10000)
		u[0] = (uint8_t)(0xe0 | c >> 12), u[1] = (uint8_t)(0x80 | ((c >> 6) & 0x3f)),
		u[2] = (uint8_t)(0x80 | (c & 0x3f)), k = 3;
	else if (c < 0x110000)
		u[0] = (uint8_t)(0xf0 | c >> 18), u[1] = (uint8_t)(0x80 | ((c >> 12) & 0x3f)),
		u[2] = (uint8_t)(0x80 | ((c >> 6) & 0x3f)), u[3] = (uint8_t)(0x80 | (c & 0x3f)), k = 4;
	else
		return -EINVAL;
	if (*n + k >= len)
		return -ENOSPC;
	memcpy(buf + *n, u, k);
	*n += k;
	return 0;
}

int python_str__utf8(const struct python_layout *l, const uint8_t *head, const uint8_t *data, size_t data_len,
		     char *buf, size_t len)
{
	uint32_t off, bytes, state, kind;
	size_t n = 0;

	if (!len || python_str__data(l, head, l->str_compact_data, &off, &bytes) < 0 || data_len < bytes)
		return -EINVAL;
	memcpy(&state, head + l->str_state, 4);
	kind = (state >> 2) & 7;
	for (uint32_t i = 0; i < bytes; i += kind) {
		uint32_t c = 0;
		int err;

		if (kind == 1)
			c = data[i];
		else if (kind == 2)
			c = (uint32_t)data[i] | (uint32_t)data[i + 1] << 8;
		else
			memcpy(&c, data + i, 4);
		/* a name is printed on one line: controls are not kept */
		if (c < 0x20 || c == 0x7f)
			c = '?';
		err = put_utf8(buf, len, &n, c);
		if (err < 0)
			return err;
	}
	buf[n] = '\0';
	return 0;
}
