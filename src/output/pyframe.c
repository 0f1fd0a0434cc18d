/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdlib.h>
#include <string.h>

#include "prof/output/pyframe.h"
#include "prof/python/python.h"

bool pyframe__is_python(const char *obj)
{
	return obj && (strcmp(obj, PYTHON_OBJECT_PATH) == 0 || strcmp(obj, PYTHON_OBJECT_LIVE) == 0);
}

bool pyframe__parse(const char *obj, const char *sym, struct pyframe *ret)
{
	const char *open, *colon, *n;
	char *end;
	long line;
	bool def;

	if (!pyframe__is_python(obj) || !sym)
		return false;
	open = strstr(sym, " (");
	colon = strrchr(sym, ':');
	if (!open || !colon || colon < open + 2)
		return false;
	def = strncmp(colon, ":def ", 5) == 0;
	n = colon + (def ? 5 : 1);
	if (*n < '0' || *n > '9')
		return false;
	line = strtol(n, &end, 10);
	if (strcmp(end, ")") != 0 || line < 0)
		return false;
	*ret = (struct pyframe){ .name_len = (size_t)(open - sym), .file_off = (size_t)(open - sym) + 2,
				 .file_len = (size_t)(colon - open - 2), .line = line, .def = def };
	return true;
}
