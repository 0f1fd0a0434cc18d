/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prof/base/util.h"
#include "prof/base/vec.h"
#include "prof/scope/scope.h"
#include "prof/sys/pressure.h"

#define PRESSURE_MAX_CGROUPS 16

static const char *const names[PRESSURE__MAX] = {
	"cpu.some", "cpu.full", "io.some", "io.full", "memory.some", "memory.full",
	"usage_usec", "nr_periods", "nr_throttled", "throttled_usec",
};

const char *pressure__name(enum pressure_field f)
{
	return f < PRESSURE__MAX ? names[f] : "";
}

enum pressure_field pressure__field(const char *name)
{
	for (int f = 0; f < PRESSURE__MAX; f++)
		if (!strcmp(name, names[f]))
			return (enum pressure_field)f;
	return PRESSURE__MAX;
}

static void set(struct pressure *p, enum pressure_field f, uint64_t v)
{
	p->v[f] = v;
	p->have |= 1u << f;
}

void pressure__parse_psi(const char *text, enum pressure_field first, struct pressure *p)
{
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *t = strstr(l, " total=");
		const char *nl = strchr(l, '\n');
		unsigned long long v;
		int off;

		if (!t || (nl && t > nl) || sscanf(t, " total=%llu%n", &v, &off) != 1)
			continue;
		if (!strncmp(l, "some ", 5))
			set(p, first, v);
		else if (!strncmp(l, "full ", 5))
			set(p, (enum pressure_field)(first + 1), v);
	}
}

int pressure__v1_cpu_mount(const char *mounts, char *ret, size_t len)
{
	for (const char *l = mounts; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		char dir[4096], type[32], opts[1024];

		if (sscanf(l, "%*s %4095s %31s %1023s", dir, type, opts) != 3 || strcmp(type, "cgroup"))
			continue;
		for (char *save, *o = strtok_r(opts, ",", &save); o; o = strtok_r(NULL, ",", &save))
			if (!strcmp(o, "cpu") && strlen(dir) < len && !strchr(dir, '\\')) {
				memcpy(ret, dir, strlen(dir) + 1);
				return 0;
			}
	}
	return -ENOENT;
}

/* A cpu.stat's "key value" lines: each key of keys set, its value divided by div. */
struct stat_key {
	const char *key;
	enum pressure_field f;
	unsigned div;
};

static void parse_keyed(const char *text, const struct stat_key *keys, size_t nr, struct pressure *p)
{
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		char key[32];
		unsigned long long v;

		if (sscanf(l, "%31s %llu", key, &v) != 2)
			continue;
		for (size_t i = 0; i < nr; i++)
			if (!strcmp(key, keys[i].key))
				set(p, keys[i].f, v / keys[i].div);
	}
}

void pressure__parse_cpu_stat(const char *text, struct pressure *p)
{
	static const struct stat_key keys[] = {
		{ "usage_usec", PRESSURE_USAGE_USEC, 1 }, { "nr_periods", PRESSURE_NR_PERIODS, 1 },
		{ "nr_throttled", PRESSURE_NR_THROTTLED, 1 }, { "throttled_usec", PRESSURE_THROTTLED_USEC, 1 },
	};

	parse_keyed(text, keys, ARRAY_SIZE(keys), p);
}

void pressure__parse_cpu_stat_v1(const char *text, struct pressure *p)
{
	static const struct stat_key keys[] = {
		{ "nr_periods", PRESSURE_NR_PERIODS, 1 }, { "nr_throttled", PRESSURE_NR_THROTTLED, 1 },
		{ "throttled_time", PRESSURE_THROTTLED_USEC, 1000 },    /* ns there */
	};

	parse_keyed(text, keys, ARRAY_SIZE(keys), p);
}

void pressure__read(int dirfd, struct pressure *ret)
{
	static const struct {
		const char *file;
		enum pressure_field first;
	} psi[] = {
		{ "cpu.pressure", PRESSURE_CPU_SOME }, { "io.pressure", PRESSURE_IO_SOME },
		{ "memory.pressure", PRESSURE_MEMORY_SOME },
	};

	*ret = (struct pressure){ 0 };
	if (dirfd < 0)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(psi); i++) {
		_cleanup_free_ char *text = NULL;

		if (read_file_full(dirfd, psi[i].file, 4096, &text) > 0)
			pressure__parse_psi(text, psi[i].first, ret);
	}
	{
		_cleanup_free_ char *text = NULL;

		if (read_file_full(dirfd, "cpu.stat", 4096, &text) > 0)
			pressure__parse_cpu_stat(text, ret);
	}
}

void pressure__diff(const struct pressure *start, const struct pressure *end, struct pressure *ret)
{
	*ret = (struct pressure){ 0 };
	for (int f = 0; f < PRESSURE__MAX; f++) {
		uint32_t bit = 1u << f;

		if ((start->have & bit) && (end->have & bit) && end->v[f] >= start->v[f])
			set(ret, (enum pressure_field)f, end->v[f] - start->v[f]);
	}
	ret->throttling_v1 = start->throttling_v1 || end->throttling_v1;
}

#define HAVE(d, f) ((d)->have & (1u << (f)))

void pressure__describe(const struct pressure *d, uint64_t wall_ns, char *buf, size_t len)
{
	static const struct {
		const char *name, *file;
		enum pressure_field some;
	} psi[] = {
		{ "cpu", "cpu.pressure", PRESSURE_CPU_SOME },
		{ "io", "io.pressure", PRESSURE_IO_SOME },
		{ "memory", "memory.pressure", PRESSURE_MEMORY_SOME },
	};
	double wall_us = wall_ns ? (double)wall_ns / 1e3 : 1;
	size_t off = 0, shown = 0, absent = 0;

#define ADD(...) do { if (off < len) off += (size_t)snprintf(buf + off, len - off, __VA_ARGS__); } while (0)
	if (len)
		buf[0] = '\0';
	if (HAVE(d, PRESSURE_USAGE_USEC)) {
		ADD("cpu.stat: ");
		if (HAVE(d, PRESSURE_THROTTLED_USEC) && HAVE(d, PRESSURE_NR_THROTTLED))
			ADD("throttled %.0f ms in %" PRIu64 " of %" PRIu64 " periods%s, ",
			    (double)d->v[PRESSURE_THROTTLED_USEC] / 1e3, d->v[PRESSURE_NR_THROTTLED],
			    HAVE(d, PRESSURE_NR_PERIODS) ? d->v[PRESSURE_NR_PERIODS] : 0,
			    d->throttling_v1 ? " (the v1 cpu cgroup's)" : "");
		ADD("usage %.2f s", (double)d->v[PRESSURE_USAGE_USEC] / 1e6);
	}
	for (size_t i = 0; i < ARRAY_SIZE(psi); i++) {
		if (!HAVE(d, psi[i].some)) {
			absent++;
			continue;
		}
		ADD("%s%s some %.1f%%", shown ? ", " : off ? "; pressure " : "pressure ", psi[i].name,
		    100.0 * (double)d->v[psi[i].some] / wall_us);
		if (HAVE(d, psi[i].some + 1))
			ADD(" full %.1f%%", 100.0 * (double)d->v[psi[i].some + 1] / wall_us);
		shown++;
	}
	/* what is not known, once */
	if (!HAVE(d, PRESSURE_USAGE_USEC))
		ADD("%sno cpu.stat", off ? "; " : "");
	else if (!HAVE(d, PRESSURE_THROTTLED_USEC))
		ADD("; no throttling in cpu.stat (no cpu controller on the cgroup)");
	if (absent == ARRAY_SIZE(psi))
		ADD("%sno PSI (psi=0 on the kernel's command line, or no cgroup v2)", off ? "; " : "");
	else
		for (size_t i = 0; i < ARRAY_SIZE(psi); i++)
			if (!HAVE(d, psi[i].some))
				ADD("; no %s", psi[i].file);
#undef ADD
}

/* ---- a scope's cgroups ------------------------------------------------------------ */

static int int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

static int add(struct pressure_set *s, int root_fd, int v1_fd, const char *path)
{
	struct pressure_cgroup *n;
	const char *rel = path;

	for (size_t i = 0; i < s->nr; i++)
		if (!strcmp(s->cg[i].path, path))
			return 0;
	if (s->nr == PRESSURE_MAX_CGROUPS)
		return 0;
	n = realloc(s->cg, (s->nr + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	s->cg = n;
	n = &s->cg[s->nr];
	*n = (struct pressure_cgroup){ .path = strdup(path), .fd = -1, .v1_fd = -1 };
	if (!n->path)
		return -ENOMEM;
	while (*rel == '/')
		rel++;
	n->fd = openat(root_fd, *rel ? rel : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	n->open_err = n->fd < 0 ? -errno : 0;
	if (v1_fd >= 0 && *rel)
		n->v1_fd = openat(v1_fd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	s->nr++;
	return 0;
}

int pressure_set__open(struct pressure_set *s, int root_fd, const struct scope *scope)
{
	int err = 0;

	_cleanup_free_ char *mounts = NULL;
	_cleanup_close_ int v1_fd = -1;
	char v1[4096];

	*s = (struct pressure_set){ 0 };
	if (root_fd < 0)
		return 0;
	if (read_file_full(AT_FDCWD, "/proc/self/mounts", 1u << 20, &mounts) > 0 &&
	    pressure__v1_cpu_mount(mounts, v1, sizeof(v1)) == 0)
		v1_fd = open(v1, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (size_t i = 0; i < scope->nr_cgroups && !err; i++)
		if (scope->cgroups[i].path)
			err = add(s, root_fd, v1_fd, scope->cgroups[i].path);
	for (size_t i = 0; i < scope->nr_uids && !err; i++) {
		char path[64];

		/* systemd's slice of the user's sessions and services, where there is one */
		snprintf(path, sizeof(path), "user.slice/user-%u.slice", scope->uids[i]);
		if (faccessat(root_fd, path, F_OK, 0) == 0) {
			snprintf(path, sizeof(path), "/user.slice/user-%u.slice", scope->uids[i]);
			err = add(s, root_fd, v1_fd, path);
		}
	}
	if (err < 0)
		pressure_set__release(s);
	return err;
}

/* The pids of a cgroup.procs, sorted; NULL when unreadable or empty. */
static int *procs_of(int dirfd, size_t *ret_nr)
{
	_cleanup_free_ char *text = NULL;
	int *v = NULL;
	size_t nr = 0, cap = 0;

	*ret_nr = 0;
	if (read_file_full(dirfd, "cgroup.procs", 1u << 20, &text) <= 0)
		return NULL;
	for (char *save, *t = strtok_r(text, "\n", &save); t; t = strtok_r(NULL, "\n", &save)) {
		if (VEC_RESERVE(v, cap, nr + 1) < 0) {
			free(v);
			return NULL;
		}
		v[nr++] = atoi(t);
	}
	qsort(v, nr, sizeof(*v), int_cmp);
	*ret_nr = nr;
	return v;
}

/* Do the cgroup v2 directory and its v1 cpu namesake hold the same processes? */
static bool same_procs(int v2, int v1)
{
	size_t n2, n1;
	_cleanup_free_ int *p2 = procs_of(v2, &n2);
	_cleanup_free_ int *p1 = procs_of(v1, &n1);

	return p2 && p1 && n1 == n2 && !memcmp(p1, p2, n1 * sizeof(int));
}

/*
 * c's reading; where cgroup v2 has no cpu controller (a hybrid host: cpu.stat with
 * usage_usec only) its throttling from the v1 cpu hierarchy's cgroup of the same
 * path, only while that holds exactly the same processes (else it is another group).
 */
static void read_one(struct pressure_cgroup *c, struct pressure *p)
{
	pressure__read(c->fd, p);
	if (c->v1_fd >= 0 && !(p->have & (1u << PRESSURE_THROTTLED_USEC)) && same_procs(c->fd, c->v1_fd)) {
		_cleanup_free_ char *text = NULL;

		if (read_file_full(c->v1_fd, "cpu.stat", 4096, &text) > 0) {
			pressure__parse_cpu_stat_v1(text, p);
			p->throttling_v1 = p->have & (1u << PRESSURE_THROTTLED_USEC);
		}
	}
}

void pressure_set__read(struct pressure_set *s, bool first)
{
	for (size_t i = 0; i < s->nr; i++) {
		struct pressure_cgroup *c = &s->cg[i];

		read_one(c, first ? &c->first : &c->last);
		*(first ? &c->first_ns : &c->last_ns) = clock_mono_ns();
	}
}

void pressure_set__release(struct pressure_set *s)
{
	for (size_t i = 0; i < s->nr; i++) {
		free(s->cg[i].path);
		if (s->cg[i].fd >= 0)
			close(s->cg[i].fd);
		if (s->cg[i].v1_fd >= 0)
			close(s->cg[i].v1_fd);
	}
	free(s->cg);
	*s = (struct pressure_set){ 0 };
}
