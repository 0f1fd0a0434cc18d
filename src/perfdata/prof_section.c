/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof/base/util.h"
#include "prof/base/vec.h"
#include "prof/perfdata/prof_section.h"

/* The stat lines, in the order they are written. */
static const struct {
	const char *name;
	size_t off;
} stat_lines[] = {
	{ "samples_written", offsetof(struct prof_section_stats, samples_written) },
	{ "samples_out_of_scope", offsetof(struct prof_section_stats, samples_out_of_scope) },
	{ "unattributed_gone", offsetof(struct prof_section_stats, unattributed_gone) },
	{ "unattributed_creds", offsetof(struct prof_section_stats, unattributed_creds) },
	{ "lost", offsetof(struct prof_section_stats, lost) },
	{ "lost_samples", offsetof(struct prof_section_stats, lost_samples) },
	{ "tasks_seen", offsetof(struct prof_section_stats, tasks_seen) },
	{ "python_samples", offsetof(struct prof_section_stats, py_samples) },
	{ "python_processes", offsetof(struct prof_section_stats, py_processes) },
	{ "python_with_frames", offsetof(struct prof_section_stats, py_with) },
	{ "python_verified", offsetof(struct prof_section_stats, py_verified) },
	{ "python_chained", offsetof(struct prof_section_stats, py_chained) },
	{ "python_unverified_read_failed", offsetof(struct prof_section_stats, py_unverified[0]) },
	{ "python_unverified_moved", offsetof(struct prof_section_stats, py_unverified[1]) },
	{ "python_unverified_not_code", offsetof(struct prof_section_stats, py_unverified[2]) },
	{ "python_unverified_by_code", offsetof(struct prof_section_stats, py_unverified[3]) },
	{ "python_unverified_not_pinned", offsetof(struct prof_section_stats, py_unverified[4]) },
	{ "python_unverified_not_before", offsetof(struct prof_section_stats, py_unverified[5]) },
	{ "java_samples", offsetof(struct prof_section_stats, java_samples) },
	{ "java_processes", offsetof(struct prof_section_stats, java_processes) },
	{ "java_with_frames", offsetof(struct prof_section_stats, java_with) },
	{ "java_verified", offsetof(struct prof_section_stats, java_verified) },
	{ "java_frames", offsetof(struct prof_section_stats, java_frames) },
	{ "java_callers_not_proven", offsetof(struct prof_section_stats, java_cut) },
	{ "java_vm_threads", offsetof(struct prof_section_stats, java_vm_threads) },
	{ "java_unverified_not_seen", offsetof(struct prof_section_stats, java_unverified[0]) },
	{ "java_unverified_changed", offsetof(struct prof_section_stats, java_unverified[1]) },
	{ "java_unverified_unreadable", offsetof(struct prof_section_stats, java_unverified[2]) },
	{ "java_unverified_between", offsetof(struct prof_section_stats, java_unverified[3]) },
	{ "java_unverified_gone", offsetof(struct prof_section_stats, java_unverified[4]) },
};

/* The longest line read back: a cgroup path (PATH_MAX) and its keyword. */
#define MAX_LINE 4200

__attribute__((format(printf, 2, 3)))
static void line(struct feat_buf *b, const char *fmt, ...)
{
	char buf[MAX_LINE];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	feat_buf__put(b, buf, MIN((size_t)n, sizeof(buf) - 1));
}

static uint64_t stat_value(const struct prof_section_stats *st, size_t i)
{
	uint64_t v;

	memcpy(&v, (const char *)st + stat_lines[i].off, sizeof(v));
	return v;
}

/* A name as one word of a line: bytes that would end or split it, and '%', as %XX.
 * False when it does not fit (the name is then left out, never cut). */
static bool encode_name(const char *name, char *buf, size_t len)
{
	size_t off = 0;

	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		if (off + 4 > len)
			return false;
		if (*p <= ' ' || *p == '%' || *p == 0x7f)
			off += (size_t)snprintf(buf + off, len - off, "%%%02X", *p);
		else
			buf[off++] = (char)*p;
	}
	buf[off] = '\0';
	return off > 0;
}

/* The name encode_name() wrote, in place, at most max bytes; false when it is not one. */
static bool decode_word(char *s, size_t max)
{
	char *out = s;

	for (const char *p = s; *p; p++) {
		unsigned int v;

		if (*p != '%') {
			*out++ = *p;
			continue;
		}
		if (!isxdigit((unsigned char)p[1]) || !isxdigit((unsigned char)p[2]) ||
		    sscanf(p + 1, "%2x", &v) != 1 || v == 0)
			return false;
		*out++ = (char)v;
		p += 2;
	}
	*out = '\0';
	return out > s && (size_t)(out - s) <= max;
}

static bool decode_name(char *s)
{
	return decode_word(s, PROF_SECTION_NAME_MAX);
}

/* "holder <n> <uid|-> <cgroup id> <cgroup, encoded|->" */
static void build_holder(struct feat_buf *b, const struct prof_section_holder *h)
{
	char path[4096 * 3 + 1], uid[16] = "-";

	if (!h->cgroup_path || !encode_name(h->cgroup_path, path, sizeof(path)) || strlen(path) > 4000)
		strcpy(path, "-");
	if (h->uid_known)
		snprintf(uid, sizeof(uid), "%u", h->uid);
	line(b, "holder %u %s %" PRIu64 " %s\n", h->n, uid, h->cgroup, path);
}

/* "pressure <cgroup, encoded> <wall ns> <field>=<value>...": the known fields only */
static void build_pressure(struct feat_buf *b, const struct prof_section_pressure *p)
{
	char path[3 * 4096 + 1], buf[MAX_LINE];
	int off;

	if (!encode_name(p->cgroup, path, sizeof(path)) || strlen(path) > 4000)
		return;
	off = snprintf(buf, sizeof(buf), "pressure %s %" PRIu64, path, p->wall_ns);
	for (int f = 0; f < PRESSURE__MAX && off < (int)sizeof(buf); f++)
		if (p->d.have & (1u << f))
			off += snprintf(buf + off, sizeof(buf) - (size_t)off, " %s=%" PRIu64, pressure__name(f),
					p->d.v[f]);
	if (p->d.throttling_v1 && off < (int)sizeof(buf))
		off += snprintf(buf + off, sizeof(buf) - (size_t)off, " throttling=v1");
	if (off < (int)sizeof(buf) - 1)
		line(b, "%s\n", buf);
}

/* The lines of one copied perf map ("START SIZE name", as jitmap.c reads them). */
static void build_perf_map(struct feat_buf *b, const struct prof_section_perf_map *m)
{
	const char *end = m->text + m->len;
	char until[24] = "-";

	if (m->until != UINT64_MAX)
		snprintf(until, sizeof(until), "%" PRIu64, m->until);
	for (const char *l = m->text; l < end;) {
		const char *nl = memchr(l, '\n', (size_t)(end - l)), *e = nl ? nl : end;
		char name[PROF_SECTION_JIT_NAME_MAX + 1], raw[PROF_SECTION_JIT_NAME_MAX + 1];
		uint64_t start, size;
		char *p, *q;

		/* the line as a string: no longer than a name may be, no NUL */
		if ((size_t)(e - l) < sizeof(raw) && !memchr(l, '\0', (size_t)(e - l))) {
			memcpy(raw, l, (size_t)(e - l));
			raw[e - l] = '\0';
			start = strtoull(raw, &p, 16);
			if (p > raw && *p == ' ') {
				size = strtoull(p + 1, &q, 16);
				if (q > p + 1 && *q == ' ' && q[1] && size && start + size > start &&
				    encode_name(q + 1, name, sizeof(name)))
					line(b, "perf-map %d %" PRIu64 " %s %" PRIx64 " %" PRIx64 " %s\n", m->pid, m->from,
					     until, start, size, name);
			}
		}
		l = nl ? nl + 1 : end;
	}
}

void prof_section__build(struct feat_buf *b, const struct prof_section *s)
{
	line(b, "prof-scope 1\n");
	if (s->kernel_build_id[0])
		line(b, "kernel-build-id %s\n", s->kernel_build_id);
	if (s->mmap_build_ids)
		line(b, "mmap-build-ids 1\n");
	if (s->scope_all)
		line(b, "scope all\n");
	for (size_t i = 0; i < s->nr_scope_uids; i++)
		line(b, "scope uid %u\n", s->scope_uids[i]);
	/* paths never hold a newline that matters: cut at one */
	for (size_t i = 0; i < s->nr_scope_cgroups; i++)
		line(b, "scope cgroup %.*s\n", (int)strcspn(s->scope_cgroups[i], "\n"), s->scope_cgroups[i]);
	for (size_t i = 0; i < s->nr_scope_pids; i++)
		line(b, "scope pid %d\n", s->scope_pids[i]);
	if (s->scope_workload)
		line(b, "scope workload %d\n", s->scope_workload);
	for (size_t i = 0; i < s->nr_tasks; i++) {
		const struct prof_section_task *t = &s->tasks[i];

		if (t->uid_known)
			line(b, "task %d %d %u\n", t->pid, t->tid, t->uid);
		else
			line(b, "task %d %d -\n", t->pid, t->tid);
	}
	for (size_t i = 0; i < s->nr_names; i++) {
		char name[3 * PROF_SECTION_NAME_MAX + 1];

		if (encode_name(s->names[i].name, name, sizeof(name)))
			line(b, "container-name %.64s %s\n", s->names[i].id, name);
	}
	for (size_t i = 0; i < ARRAY_SIZE(stat_lines); i++)
		if ((s->stats.py_samples || strncmp(stat_lines[i].name, "python_", 7) != 0) &&
		    (s->stats.java_samples || strncmp(stat_lines[i].name, "java_", 5) != 0))
			line(b, "stat %s %" PRIu64 "\n", stat_lines[i].name, stat_value(&s->stats, i));
	for (size_t i = 0; i < s->nr_pressure; i++)
		build_pressure(b, &s->pressure[i]);
	for (size_t i = 0; i < s->nr_holders; i++)
		build_holder(b, &s->holders[i]);
	for (size_t i = 0; i < s->nr_perf_maps; i++)
		build_perf_map(b, &s->perf_maps[i]);
	feat_buf__put(b, NULL, ALIGN_UP(b->len + 1, 8) - b->len);
}

/* Arrays being filled, and their capacities. */
struct parser {
	struct prof_section *s;
	size_t cap_uids, cap_cgroups, cap_pids, cap_tasks, cap_names, cap_pressure, cap_jit, cap_holders;
};

/* A whole number in [0, max], nothing else. */
static bool number(const char *s, uint64_t max, uint64_t *ret)
{
	uint64_t v;

	if (parse_u64(s, 10, &v) < 0 || v > max)
		return false;
	*ret = v;
	return true;
}

/* "task <pid> <tid> <uid|->" */
static int parse_task(struct parser *p, char *args)
{
	char *save, *pid = strtok_r(args, " ", &save), *tid = strtok_r(NULL, " ", &save);
	char *uid = strtok_r(NULL, " ", &save);
	uint64_t vp, vt, vu = 0;
	struct prof_section *s = p->s;

	if (!uid || strtok_r(NULL, " ", &save) || !number(pid, INT32_MAX, &vp) || !number(tid, INT32_MAX, &vt) ||
	    (strcmp(uid, "-") && !number(uid, UINT32_MAX, &vu)))
		return 0;
	if (VEC_RESERVE(s->tasks, p->cap_tasks, s->nr_tasks + 1) < 0)
		return -ENOMEM;
	s->tasks[s->nr_tasks++] = (struct prof_section_task){ .pid = (int32_t)vp, .tid = (int32_t)vt,
							       .uid = (uint32_t)vu, .uid_known = strcmp(uid, "-") != 0 };
	return 0;
}

/* "holder <n> <uid|-> <cgroup id> <cgroup|->" */
static int parse_holder(struct parser *p, char *args)
{
	char *save, *n = strtok_r(args, " ", &save), *uid = strtok_r(NULL, " ", &save);
	char *id = strtok_r(NULL, " ", &save), *path = strtok_r(NULL, " ", &save);
	struct prof_section_holder h = { 0 };
	struct prof_section *s = p->s;
	uint64_t vn, vu = 0;

	if (!path || strtok_r(NULL, " ", &save) || !number(n, 0x7fffffff, &vn) ||
	    (strcmp(uid, "-") && !number(uid, UINT32_MAX, &vu)) || !number(id, UINT64_MAX, &h.cgroup) ||
	    (strcmp(path, "-") && !decode_word(path, 4096)))
		return 0;
	h.n = (uint32_t)vn;
	h.uid = (uint32_t)vu;
	h.uid_known = strcmp(uid, "-") != 0;
	if (strcmp(path, "-") && !(h.cgroup_path = strdup(path)))
		return -ENOMEM;
	if (VEC_RESERVE(s->holders, p->cap_holders, s->nr_holders + 1) < 0) {
		free(h.cgroup_path);
		return -ENOMEM;
	}
	s->holders[s->nr_holders++] = h;
	return 0;
}

/* "scope all|uid N|cgroup PATH|pid N|workload N" */
static int parse_scope(struct parser *p, char *args)
{
	struct prof_section *s = p->s;
	uint64_t v;

	if (!strcmp(args, "all")) {
		s->scope_all = true;
	} else if (!strncmp(args, "uid ", 4) && number(args + 4, UINT32_MAX, &v)) {
		if (VEC_RESERVE(s->scope_uids, p->cap_uids, s->nr_scope_uids + 1) < 0)
			return -ENOMEM;
		s->scope_uids[s->nr_scope_uids++] = (uint32_t)v;
	} else if (!strncmp(args, "pid ", 4) && number(args + 4, INT32_MAX, &v)) {
		if (VEC_RESERVE(s->scope_pids, p->cap_pids, s->nr_scope_pids + 1) < 0)
			return -ENOMEM;
		s->scope_pids[s->nr_scope_pids++] = (int32_t)v;
	} else if (!strncmp(args, "workload ", 9) && number(args + 9, INT32_MAX, &v)) {
		s->scope_workload = (int32_t)v;
	} else if (!strncmp(args, "cgroup ", 7) && args[7]) {
		char *path = strdup(args + 7);

		if (!path || VEC_RESERVE(s->scope_cgroups, p->cap_cgroups, s->nr_scope_cgroups + 1) < 0) {
			free(path);
			return -ENOMEM;
		}
		s->scope_cgroups[s->nr_scope_cgroups++] = path;
	}
	return 0;
}

/* "container-name <64 hex> <encoded name>": a later line for the same id replaces it */
static int parse_name(struct parser *p, char *args)
{
	struct prof_section *s = p->s;
	char *save, *id = strtok_r(args, " ", &save), *name = strtok_r(NULL, " ", &save);
	size_t i;

	if (!id || !name || strtok_r(NULL, " ", &save) || strlen(id) != 64 || strspn(id, "0123456789abcdef") != 64 ||
	    !decode_name(name))
		return 0;
	for (i = 0; i < s->nr_names && strcmp(s->names[i].id, id); i++)
		;
	if (i == s->nr_names && VEC_RESERVE(s->names, p->cap_names, s->nr_names + 1) < 0)
		return -ENOMEM;
	name = strdup(name);
	if (!name)
		return -ENOMEM;
	if (i == s->nr_names)
		s->nr_names++;
	else
		free(s->names[i].name);
	memcpy(s->names[i].id, id, 65);
	s->names[i].name = name;
	return 0;
}

/* "pressure <cgroup> <wall ns> <field>=<value>...": fields not known are skipped */
static int parse_pressure(struct parser *p, char *args)
{
	struct prof_section *s = p->s;
	char *save, *path = strtok_r(args, " ", &save), *wall = strtok_r(NULL, " ", &save), *kv;
	struct prof_section_pressure n = { 0 };

	if (!path || !wall || !decode_word(path, 4096) || !number(wall, UINT64_MAX, &n.wall_ns))
		return 0;
	while ((kv = strtok_r(NULL, " ", &save))) {
		char *eq = strchr(kv, '=');
		enum pressure_field f;
		uint64_t v;

		if (!eq)
			continue;
		*eq = '\0';
		if (!strcmp(kv, "throttling") && !strcmp(eq + 1, "v1"))
			n.d.throttling_v1 = true;
		f = pressure__field(kv);
		if (f < PRESSURE__MAX && number(eq + 1, UINT64_MAX, &v)) {
			n.d.v[f] = v;
			n.d.have |= 1u << f;
		}
	}
	if (VEC_RESERVE(s->pressure, p->cap_pressure, s->nr_pressure + 1) < 0)
		return -ENOMEM;
	n.cgroup = strdup(path);
	if (!n.cgroup)
		return -ENOMEM;
	s->pressure[s->nr_pressure++] = n;
	return 0;
}

/* "perf-map <pid> <from> <until|-> <start> <size> <name>" */
static int parse_perf_map(struct parser *p, char *args)
{
	struct prof_section *s = p->s;
	char *save, *w[6];
	struct prof_section_jit j = { 0 };
	uint64_t pid;
	size_t n = 0;

	for (char *t = strtok_r(args, " ", &save); t && n < 6; t = strtok_r(NULL, " ", &save))
		w[n++] = t;
	if (n != 6 || strtok_r(NULL, " ", &save) || !number(w[0], INT32_MAX, &pid) || !pid ||
	    !number(w[1], UINT64_MAX, &j.from) || (strcmp(w[2], "-") && !number(w[2], UINT64_MAX, &j.until)) ||
	    parse_u64(w[3], 16, &j.start) < 0 || parse_u64(w[4], 16, &j.size) < 0 || !j.size ||
	    j.start + j.size <= j.start || !decode_word(w[5], PROF_SECTION_JIT_NAME_MAX))
		return 0;
	if (!strcmp(w[2], "-"))
		j.until = UINT64_MAX;
	if (j.until <= j.from)
		return 0;
	j.pid = (int32_t)pid;
	if (VEC_RESERVE(s->jit, p->cap_jit, s->nr_jit + 1) < 0 || !(j.name = strdup(w[5])))
		return -ENOMEM;
	s->jit[s->nr_jit++] = j;
	return 0;
}

/* "stat <name> <value>" */
static void parse_stat(struct parser *p, char *args)
{
	char *save, *name = strtok_r(args, " ", &save), *value = strtok_r(NULL, " ", &save);
	uint64_t v;

	if (!value || strtok_r(NULL, " ", &save) || !number(value, UINT64_MAX, &v))
		return;
	for (size_t i = 0; i < ARRAY_SIZE(stat_lines); i++)
		if (!strcmp(name, stat_lines[i].name)) {
			memcpy((char *)&p->s->stats + stat_lines[i].off, &v, sizeof(v));
			p->s->has_stats = true;
		}
}

/* One line, NUL-terminated. */
static int parse_line(struct parser *p, char *l)
{
	if (!strncmp(l, "kernel-build-id ", 16)) {
		snprintf(p->s->kernel_build_id, sizeof(p->s->kernel_build_id), "%.*s",
			 (int)sizeof(p->s->kernel_build_id) - 1, l + 16);
		return 0;
	}
	if (!strcmp(l, "mmap-build-ids 1")) {
		p->s->mmap_build_ids = true;
		return 0;
	}
	if (!strncmp(l, "scope ", 6))
		return parse_scope(p, l + 6);
	if (!strncmp(l, "task ", 5))
		return parse_task(p, l + 5);
	if (!strncmp(l, "container-name ", 15))
		return parse_name(p, l + 15);
	if (!strncmp(l, "pressure ", 9))
		return parse_pressure(p, l + 9);
	if (!strncmp(l, "holder ", 7))
		return parse_holder(p, l + 7);
	if (!strncmp(l, "perf-map ", 9))
		return parse_perf_map(p, l + 9);
	if (!strncmp(l, "stat ", 5))
		parse_stat(p, l + 5);
	return 0;
}

int prof_section__parse(const char *text, size_t len, struct prof_section *ret)
{
	struct parser p = { .s = ret };
	const char *end = text + len;
	char buf[MAX_LINE + 1];

	*ret = (struct prof_section){ 0 };
	for (const char *l = text; l < end;) {
		const char *nl = memchr(l, '\n', (size_t)(end - l));
		size_t n = (size_t)((nl ? nl : end) - l);

		/* skipped: a line cut short (no newline: the file was truncated), too long
		 * for any line prof writes, or holding a NUL (the padding) */
		if (nl && n <= MAX_LINE && !memchr(l, '\0', n)) {
			memcpy(buf, l, n);
			buf[n] = '\0';
			if (parse_line(&p, buf) < 0) {
				prof_section__release(ret);
				return -ENOMEM;
			}
		}
		l = nl ? nl + 1 : end;
	}
	return 0;
}

void prof_section__release(struct prof_section *s)
{
	for (size_t i = 0; i < s->nr_scope_cgroups; i++)
		free(s->scope_cgroups[i]);
	free(s->scope_cgroups);
	free(s->scope_uids);
	free(s->scope_pids);
	free(s->tasks);
	for (size_t i = 0; i < s->nr_names; i++)
		free(s->names[i].name);
	free(s->names);
	for (size_t i = 0; i < s->nr_pressure; i++)
		free(s->pressure[i].cgroup);
	free(s->pressure);
	for (size_t i = 0; i < s->nr_jit; i++)
		free(s->jit[i].name);
	free(s->jit);
	for (size_t i = 0; i < s->nr_holders; i++)
		free(s->holders[i].cgroup_path);
	free(s->holders);
	*s = (struct prof_section){ 0 };
}

const struct prof_section_holder *prof_section__holder(const struct prof_section *s, uint32_t n)
{
	/* written in order: entry n is the nth */
	if (n < s->nr_holders && s->holders[n].n == n)
		return &s->holders[n];
	for (size_t i = 0; i < s->nr_holders; i++)
		if (s->holders[i].n == n)
			return &s->holders[i];
	return NULL;
}

void prof_section__describe_scope(const struct prof_section *s, char *buf, size_t len)
{
	size_t off = 0;

#define ADD(...) do { if (off < len) off += (size_t)snprintf(buf + off, len - off, __VA_ARGS__); } while (0)
	if (len)
		buf[0] = '\0';
	if (s->scope_all)
		ADD("all");
	for (size_t i = 0; i < s->nr_scope_uids; i++)
		ADD("%suid %u", off ? ", " : "", s->scope_uids[i]);
	for (size_t i = 0; i < s->nr_scope_cgroups; i++)
		ADD("%scgroup %s", off ? ", " : "", s->scope_cgroups[i]);
	for (size_t i = 0; i < s->nr_scope_pids; i++)
		ADD("%spid %d", off ? ", " : "", s->scope_pids[i]);
	if (s->scope_workload)
		ADD("%sworkload %d", off ? ", " : "", s->scope_workload);
#undef ADD
}
