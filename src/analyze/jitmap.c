/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Symbols of JIT-compiled code from /tmp/perf-PID.map ("START SIZE name" lines in
 * hex), the convention perf and the JITs that support it (V8, the JVM with an
 * agent, LuaJIT, ...) share.  Loaded once per process, and only from a regular
 * file owned by the reader, root or the process's own user: anyone can create
 * /tmp/perf-PID.map for any pid, so another user's file would let a tenant name
 * the code of someone else's process (or root's) whatever it likes.
 *
 * A process in a container or chroot wrote its map in its own /tmp, by its pid in
 * its own namespace: prof record copies those into the file (synth/perf_maps.h), one
 * per lifetime of a host pid, and a sample in such a lifetime is named from that copy
 * alone, never from a file of /tmp.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "prof/base/idmap.h"
#include "prof/analyze/jitmap.h"
#include "prof/base/strset.h"
#include "prof/base/util.h"
#include "prof/base/vec.h"
#include "prof/sys/privs.h"

struct jsym {
	uint64_t start, end;
	const char *name;
};

struct jtable {
	struct jsym *s;
	size_t nr, cap;
};

/* A map copied into the recording: samples of pid in (from, until]. */
struct jcopy {
	int32_t pid;
	uint32_t next;                  /* the pid's next copy + 1, 0: none */
	uint64_t from, until;
	struct jtable t;
	bool sorted;
};

struct jitmap {
	struct idmap *by_pid;           /* pid -> index in tables (+1; 0 = none found) */
	struct idmap *copies_of;        /* pid -> its first copy + 1 */
	struct jcopy *copies;
	size_t nr_copies, cap_copies;
	uint64_t now;                   /* the sample's time (jitmap__at) */
	struct jtable *tables;
	size_t nr, cap;
	struct strset names;
	const char *dir;
	size_t nr_untrusted;            /* files ignored for who owns them or what they are */
	char untrusted[4400];           /* why the first one was (its path and owner) */
};

struct jitmap *jitmap__new(const char *dir)
{
	struct jitmap *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	j->by_pid = idmap__new();
	j->copies_of = idmap__new();
	j->dir = dir;
	if (!j->by_pid || !j->copies_of) {
		idmap__free(j->by_pid);
		idmap__free(j->copies_of);
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
	for (size_t i = 0; i < j->nr_copies; i++)
		free(j->copies[i].t.s);
	free(j->copies);
	idmap__free(j->copies_of);
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
	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n'), *end = nl ? nl : line + strlen(line);
		char *p, *q;
		uint64_t start = strtoull(line, &p, 16), size;

		if (p > line && *p == ' ') {
			size = strtoull(p + 1, &q, 16);
			if (q > p + 1 && *q == ' ' && q + 1 < end && size && start + size > start) {
				if (VEC_RESERVE(t->s, t->cap, t->nr + 1) < 0)
					return -ENOMEM;
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

/*
 * Whether the map file open at fd may name the code of a process whose user is
 * owner (-1: not known); if not, say why in j->untrusted (first time only).
 */
static bool trusted(struct jitmap *j, int fd, const char *path, int64_t owner)
{
	struct stat st;
	uid_t me = geteuid();

	if (fstat(fd, &st) < 0)
		return false;
	if (S_ISREG(st.st_mode) && (st.st_uid == me || st.st_uid == 0 || (int64_t)st.st_uid == owner))
		return true;
	if (!j->nr_untrusted++) {
		if (!S_ISREG(st.st_mode))
			snprintf(j->untrusted, sizeof(j->untrusted), "%s: not a regular file", path);
		else if (owner >= 0)
			snprintf(j->untrusted, sizeof(j->untrusted),
				 "%s: owned by uid %u, not by you (%u), root or the process's user (%lld)", path,
				 (unsigned)st.st_uid, (unsigned)me, (long long)owner);
		else
			snprintf(j->untrusted, sizeof(j->untrusted), "%s: owned by uid %u, not by you (%u) or root",
				 path, (unsigned)st.st_uid, (unsigned)me);
	}
	return false;
}

static struct jtable *table_of(struct jitmap *j, int32_t pid, int64_t owner)
{
	_cleanup_free_ char *text = NULL;
	_cleanup_close_ int fd = -1;
	struct jtable t = { 0 };
	char path[4200];
	uint32_t idx;

	if (idmap__get(j->by_pid, (uint64_t)(uint32_t)pid, &idx))
		return idx ? &j->tables[idx - 1] : NULL;
	idmap__set(j->by_pid, (uint64_t)(uint32_t)pid, 0);
	snprintf(path, sizeof(path), "%s/perf-%d.map", j->dir, pid);
	/* no following a link another user planted, no hanging on a FIFO, no reading
	 * with prof's capabilities what the user could not */
	fd = privs__open_as_user(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		if (fd == -ELOOP && !j->nr_untrusted++)
			snprintf(j->untrusted, sizeof(j->untrusted), "%s: a symbolic link", path);
		return NULL;
	}
	if (!trusted(j, fd, path, owner))
		return NULL;
	if (read_fd_full(fd, 256u << 20, &text) < 0 || jitmap__parse(j, text, &t) < 0) {
		free(t.s);
		return NULL;
	}
	if (VEC_RESERVE(j->tables, j->cap, j->nr + 1) < 0) {
		free(t.s);
		return NULL;
	}
	j->tables[j->nr++] = t;
	idmap__set(j->by_pid, (uint64_t)(uint32_t)pid, (uint32_t)j->nr);
	return &j->tables[j->nr - 1];
}

int jitmap__add_copy(struct jitmap *j, int32_t pid, uint64_t from, uint64_t until, uint64_t start,
		     uint64_t size, const char *name)
{
	struct jcopy *c = j->nr_copies ? &j->copies[j->nr_copies - 1] : NULL;
	struct jtable *t;

	if (!size || start + size <= start)
		return 0;
	if (!c || c->pid != pid || c->from != from || c->until != until) {
		uint32_t first;

		if (VEC_RESERVE(j->copies, j->cap_copies, j->nr_copies + 1) < 0)
			return -ENOMEM;
		c = &j->copies[j->nr_copies];
		*c = (struct jcopy){ .pid = pid, .from = from, .until = until };
		/* pushed in front of the pid's list */
		if (idmap__get(j->copies_of, (uint64_t)(uint32_t)pid, &first))
			c->next = first;
		if (idmap__set(j->copies_of, (uint64_t)(uint32_t)pid, (uint32_t)j->nr_copies + 1) < 0)
			return -ENOMEM;
		j->nr_copies++;
	}
	t = &c->t;
	if (VEC_RESERVE(t->s, t->cap, t->nr + 1) < 0)
		return -ENOMEM;
	t->s[t->nr].name = strset__intern(&j->names, name);
	if (!t->s[t->nr].name)
		return -ENOMEM;
	t->s[t->nr].start = start;
	t->s[t->nr].end = start + size;
	t->nr++;
	c->sorted = false;
	return 0;
}

void jitmap__at(struct jitmap *j, uint64_t time)
{
	j->now = time;
}

/* The copy of pid's map for the sample at j->now, or NULL. */
static struct jtable *copy_of(struct jitmap *j, int32_t pid)
{
	uint32_t idx;

	if (!j->nr_copies || !idmap__get(j->copies_of, (uint64_t)(uint32_t)pid, &idx))
		return NULL;
	for (; idx; idx = j->copies[idx - 1].next) {
		struct jcopy *c = &j->copies[idx - 1];

		if (j->now > c->from && j->now <= c->until) {
			if (!c->sorted) {
				qsort(c->t.s, c->t.nr, sizeof(*c->t.s), cmp);
				c->sorted = true;
			}
			return &c->t;
		}
	}
	return NULL;
}

const char *jitmap__lookup(struct jitmap *j, int32_t pid, int64_t owner, uint64_t ip)
{
	struct jtable *t = copy_of(j, pid);
	size_t i;

	if (!t)
		t = table_of(j, pid, owner);

	if (!t || (i = sorted_find_le(t->s, t->nr, start, ip)) == SIZE_MAX)
		return NULL;
	return ip < t->s[i].end ? t->s[i].name : NULL;
}

size_t jitmap__untrusted(const struct jitmap *j, const char **ret_why)
{
	*ret_why = j->untrusted;
	return j->nr_untrusted;
}
