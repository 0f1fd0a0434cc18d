/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What prof knows of CPython's memory, per version and build, and the pure parsers
 * over bytes read from a Python process: its strings.
 *
 * A layout names the offsets of the structures prof walks (the interpreter frame,
 * the code object, str and bytes objects, the thread states) as CPython's headers
 * define them for that version, for every build of it; and, for one build (by its
 * GNU build id: a faster path), where its eval function keeps its current frame and
 * code object in its own C stack frame.  Other builds are pinned by their DWARF or
 * their code, or not at all (interp.h).  Nothing is guessed: a version not in the
 * table gets no Python frames (python.h says why, once).
 */
#ifndef PROF_PYTHON_LAYOUT_H
#define PROF_PYTHON_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The bytes of 3.13's _Py_DebugOffsets prof checks (from _PyRuntime's start). */
#define PYTHON_DEBUG_OFFSETS_LEN 360

struct python_layout {
	const char *what;               /* "CPython 3.11 (Debian 3.11.2-6)" */
	uint32_t version_mask, version; /* Py_Version & mask == version */
	uint8_t build_id[20];           /* of the object that has the eval function */
	uint8_t build_id_len;           /* 0: any build with debug info (dwarf) */
	/* the eval function's frame and instruction pointers are pinned by the build's
	 * own DWARF (dwarf_pins.h), not by fixed slots: cfa_* unused */
	bool dwarf;
	bool has_is_entry;              /* 3.11: f_is_entry; 3.12+: previous is the entry frame */
	bool str_ready;                 /* 3.11: a str's state has the "ready" bit (7) */
	bool debug_offsets;             /* 3.13+: _PyRuntime starts with _Py_DebugOffsets */
	/* 3.8-3.10 (frame_old.h): minor version, 0 for 3.11+.  f_code, f_previous are
	 * PyFrameObject's f_code and f_back; co_qualname is co_name (no co_qualname
	 * before 3.11); co_linetable is co_lnotab (3.8, 3.9) or 3.10's co_linetable;
	 * co_code_adaptive is the code object's size (what is read of its head) */
	uint8_t old;
	uint32_t co_code;               /* 3.8-3.10: the bytes object of the bytecode */
	uint32_t frame_basicsize;       /* 3.8-3.10: PyFrame_Type's, checked at attach */
	/* _PyEval_EvalFrameDefault's frame: distances below its CFA */
	uint32_t cfa_frame;             /* cframe.current_frame (_PyInterpreterFrame *) */
	uint32_t cfa_first_instr;       /* first_instr: code + code_adaptive */
	/* _PyInterpreterFrame */
	uint32_t f_code, f_previous, f_prev_instr, f_is_entry, f_owner, frame_specials;
	/* where a thread's current frame is (the BPF chain, chain.h; chain false: not known):
	 * _PyRuntime.interpreters.head, PyInterpreterState's next and threads.head,
	 * PyThreadState's next, interp, native_thread_id and cframe, _PyCFrame's
	 * current_frame */
	bool chain;
	uint32_t rt_interp_head, is_next, is_threads_head;
	uint32_t ts_next, ts_interp, ts_native_tid, ts_cframe, cframe_current;
	/* PyCodeObject */
	uint32_t co_size;               /* ob_size: code units of co_code_adaptive */
	uint32_t co_stacksize, co_firstlineno, co_nlocalsplus;
	uint32_t co_filename, co_qualname, co_linetable, co_code_adaptive;
	uint32_t code_basicsize, code_itemsize; /* PyCode_Type's, checked at attach */
	/* PyTypeObject */
	uint32_t tp_name, tp_basicsize, tp_itemsize;
	/* str (PyASCIIObject / PyCompactUnicodeObject) and bytes */
	uint32_t str_length, str_state, str_ascii_data, str_compact_data;
	uint32_t bytes_size, bytes_data;
};

/* The layout for an interpreter whose Py_Version is version and whose eval function's
 * object has build id (id, len); NULL when prof knows none. */
const struct python_layout *python_layout__find(uint32_t version, const uint8_t *id, size_t len);

/* Is there a layout for that version at all (with another build)? */
bool python_layout__knows_version(uint32_t version);

/* The layout of that version for any build (dwarf: pinned by other means than fixed
 * slots), NULL when none. */
const struct python_layout *python_layout__find_dwarf(uint32_t version);

/* The layout of CPython 3.minor for 3.8-3.10 builds with debug info, NULL when none. */
const struct python_layout *python_layout__find_old(unsigned int minor);

/*
 * The line of the code unit at byte offset off of co_code_adaptive, from the code
 * object's co_linetable bytes (3.11+'s location table, Objects/locations.md) and its
 * co_firstlineno: the line, or -1 when the table says none (or is malformed).
 */
int python_linetable__line(const uint8_t *table, size_t len, int32_t firstlineno, uint32_t off);

/*
 * A str object's text as UTF-8 into buf (len bytes, NUL-terminated), from the object's
 * head (head_len bytes read at its address, at least str_compact_data) and the
 * bytes of its data (data, data_len, read at the address python_str__data_offset
 * gave).  0, -EINVAL when the head is no compact str, -ENOSPC when it does not fit.
 */
int python_str__data(const struct python_layout *l, const uint8_t *head, size_t head_len,
		     uint32_t *ret_offset, uint32_t *ret_bytes);
int python_str__utf8(const struct python_layout *l, const uint8_t *head, const uint8_t *data, size_t data_len,
		     char *buf, size_t len);

#endif
