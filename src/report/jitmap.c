/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Symbols of JIT-compiled code from /tmp/perf-PID.map ("START SIZE name" lines in
 * hex), the convention perf and the JITs that support it (V8, the JVM with an
 * agent, LuaJIT, ...) share.  Loaded once per process, and only from a regular
 * file owned by the reader or root: the file is not trusted otherwise.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "prof/idmap.h"
#include "prof/jitmap.h"
#include "prof/strset.h"
#include "prof/util.h"

struct jsym {
	uint64_t start, end;
	const char *name;
};

struct jtable {
	struct jsym *s;
	size_t nr;
};

struct jitmap {
	struct idmap *by_pid;           /* pid -> index in tables (+1; 0 = none found) */
	struct jtable *tables;
	size_t nr, cap;
	struct strset names;
	const char *dir;
};

struct jitmap *jitmap__new(const char *dir)
{
	struct jitmap *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	j->by_pid = idmap__new();
	j->dir = dir;
	if (!j->by_pid) {
		free(j);
		return NULL;
	}
	return j;
}

struct jitmap *jitmap__free(struct jitmap *j)
{
	if (!j)
		return NULL;
	for (size_t i = 0; i < j->nr; i++)
		free(j->tables[i].s);
	free(j->tables);
	idmap__free(j->by_pid);
	strset__release(&j->names);
	free(j);
	return NULL;
}

static int cmp(const void *a, const void *b)
{
	const struct jsym *x = a, *y = b;
	return (x->start > y->start) - (x->start < y->start);
}

/* Parse "START SIZE name" lines into t.  Pure: tests feed it text. */
static int jitmap__parse(struct jitmap *j, const char *text, struct jtable *t)
{
	size_t cap = 0;

	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n'), *end = nl ? nl : line + strlen(line);
		char *p, *q;
		uint64_t start = strtoull(line, &p, 16), size;

		if (p > line && *p == ' ') {
			size = strtoull(p + 1, &q, 16);
			if (q > p + 1 && *q == ' ' && q + 1 < end && size && start + size > start) {
				if (t->nr == cap) {
					size_t ncap = cap ? 2 * cap : 256;
					struct jsym *n = realloc(t->s, ncap * sizeof(*n));
					if (!n)
						return -ENOMEM;
					t->s = n;
					cap = ncap;
				}
				t->s[t->nr].name = strset__intern_n(&j->names, q + 1, (size_t)(end - q - 1));
				if (!t->s[t->nr].name)
					return -ENOMEM;
				t->s[t->nr].start = start;
				t->s[t->nr].end = start + size;
				t->nr++;
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	qsort(t->s, t->nr, sizeof(*t->s), cmp);
	return 0;
}

static struct jtable *table_of(struct jitmap *j, int32_t pid)
{
	_cleanup_free_ char *text = NULL;
	_cleanup_close_ int fd = -1;
	struct jtable t = { 0 };
	struct stat st;
	char path[4200];
	uint32_t idx;

	if (idmap__get(j->by_pid, (uint64_t)(uint32_t)pid, &idx))
		return idx ? &j->tables[idx - 1] : NULL;
	idmap__set(j->by_pid, (uint64_t)(uint32_t)pid, 0);
	snprintf(path, sizeof(path), "%s/perf-%d.map", j->dir, pid);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (st.st_uid != getuid() && st.st_uid != 0 && getuid() != 0))
		return NULL;
	if (read_fd_full(fd, 256u << 20, &text) < 0 || jitmap__parse(j, text, &t) < 0) {
		free(t.s);
		return NULL;
	}
	if (j->nr == j->cap) {
		size_t ncap = j->cap ? 2 * j->cap : 16;
		struct jtable *n = realloc(j->tables, ncap * sizeof(*n));
		if (!n) {
			free(t.s);
			return NULL;
		}
		j->tables = n;
		j->cap = ncap;
	}
	j->tables[j->nr++] = t;
	idmap__set(j->by_pid, (uint64_t)(uint32_t)pid, (uint32_t)j->nr);
	return &j->tables[j->nr - 1];
}

const char *jitmap__lookup(struct jitmap *j, int32_t pid, uint64_t ip)
{
	struct jtable *t = table_of(j, pid);
	size_t i;

	if (!t || (i = sorted_find_le(t->s, t->nr, start, ip)) == SIZE_MAX)
		return NULL;
	return ip < t->s[i].end ? t->s[i].name : NULL;
}
