/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdlib.h>
#include <string.h>

#include "prof/jvm/frames.h"
#include "prof/output/javaframe.h"

bool javaframe__is_java(const char *obj)
{
	return obj && (strcmp(obj, JAVA_OBJECT_PATH) == 0 || strcmp(obj, JAVA_OBJECT_LIVE) == 0);
}

bool javaframe__parse(const char *obj, const char *sym, struct javaframe *ret)
{
	const char *open, *dot, *close, *colon;
	size_t name_len;
	long line = 0;

	if (!javaframe__is_java(obj) || !sym || sym[0] == '[')
		return false;
	open = strstr(sym, " (");
	name_len = open ? (size_t)(open - sym) : strlen(sym);
	dot = memrchr(sym, '.', name_len);
	if (!dot || dot == sym || (size_t)(dot - sym) + 1 == name_len || memchr(sym, ' ', name_len))
		return false;
	*ret = (struct javaframe){ .class_len = (size_t)(dot - sym), .name_len = name_len };
	if (!open)
		return true;
	close = strrchr(open, ')');
	if (!close || close[1] || close == open + 2)
		return false;
	colon = memrchr(open + 2, ':', (size_t)(close - open - 2));
	if (colon) {
		char *end;

		line = strtol(colon + 1, &end, 10);
		if (end != close || line <= 0 || colon[1] < '0' || colon[1] > '9')
			return false;
	}
	ret->file_off = name_len + 2;
	ret->file_len = (size_t)((colon ? colon : close) - open - 2);
	ret->line = line;
	return true;
}
