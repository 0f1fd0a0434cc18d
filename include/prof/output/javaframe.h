/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A Java frame's parts, for the outputs that give them fields of their own (pprof's
 * function name, file name and lines; the JSON's class, method, file and line): the
 * frames prof names in its synthetic object (JAVA_OBJECT_PATH, jvm/frames.h) are
 * "pkg.Class.method (File.java:LINE)", "pkg.Class.method (File.java)" where the line
 * is not exact, or "pkg.Class.method" where the class names no source file.  Its
 * markers ("[java: unverified]", "[java stub: NAME]", ...) are Java frames with no
 * method.
 */
#ifndef PROF_OUTPUT_JAVAFRAME_H
#define PROF_OUTPUT_JAVAFRAME_H

#include <stdbool.h>
#include <stddef.h>

struct javaframe {
	size_t class_len;               /* the class: sym[0, class_len) */
	size_t name_len;                /* class.method: sym[0, name_len) */
	size_t file_off, file_len;      /* the file: sym[file_off, file_off + file_len), 0 long: none */
	long line;                      /* 0: not known */
};

/* Is obj (a frame's object path, NULL for none) prof's Java frames' object? */
bool javaframe__is_java(const char *obj);

/* The parts of symbol sym of object obj: true when it is a Java method's frame. */
bool javaframe__parse(const char *obj, const char *sym, struct javaframe *ret);

#endif
