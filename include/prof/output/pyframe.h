/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A Python frame's parts, for the outputs that give them fields of their own (pprof's
 * function name, file name and lines; the JSON's function, file and line): the frames
 * prof record names in its synthetic object (PYTHON_OBJECT_PATH, src/python/python.c;
 * in profd's history, PYTHON_OBJECT_LIVE) are "qualname (file:def N)", N the function's
 * first line, or "qualname (file:N)", N the line it ran (qualnames have no space).
 * Its markers ("[python: unverified]", "[python: callers not proven]") are Python
 * frames with no function.
 */
#ifndef PROF_OUTPUT_PYFRAME_H
#define PROF_OUTPUT_PYFRAME_H

#include <stdbool.h>
#include <stddef.h>

struct pyframe {
	size_t name_len;                /* the qualname: sym[0, name_len) */
	size_t file_off, file_len;      /* the file: sym[file_off, file_off + file_len) */
	long line;
	bool def;                       /* line is the def line, not the line it ran */
};

/* Is obj (a frame's object path, NULL for none) prof's Python frames' object? */
bool pyframe__is_python(const char *obj);

/* The parts of symbol sym of object obj: true when it is a Python function's frame. */
bool pyframe__parse(const char *obj, const char *sym, struct pyframe *ret);

#endif
