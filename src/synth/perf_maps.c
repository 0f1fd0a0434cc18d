/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "prof/base/idmap.h"
#include "prof/base/util.h"
#include "prof/base/vec.h"
#include "prof/synth/perf_maps.h"
#include "prof/sys/privs.h"

enum life_kind {
	LIFE_NEW,                       /* not looked at yet: it is, at a sample a round later */
	LIFE_HOST,                      /* prof's own place, or not known: nothing to copy */
	LIFE_FOREIGN,                   /* another place: its map is copied */
	LIFE_GONE,                      /* another place, but its namespace pid is not known */
};

/* One lifetime of a process: its samples are those of its pid in (from, until]. */
struct life {
	int32_t pid, nspid;
	uint32_t prev;                  /* the pid's previous lifetime + 1, 0: none */
	uint32_t place;
	uint32_t uid;
	uint8_t kind;
	uint32_t round;                 /* made in this round */
	bool written;                   /* it has written samples */
	bool read;                      /* its map was tried */
	uint64_t from, until;
	char *text;                     /* its map, when copied */
	size_t len;
};

struct perf_maps {
	struct places *places;          /* borrowed */
	struct life *v;
	size_t nr, cap;
	struct idmap *latest;           /* pid -> its latest lifetime + 1 */
	uint32_t recent[64];            /* by pid: a lifetime looked up lately + 1 (the fast path) */
	uint64_t total;                 /* bytes copied */
	uint32_t round;
	struct perf_maps_stats st;
};

struct perf_maps *perf_maps__new(struct places *places)
{
	struct perf_maps *pm = calloc(1, sizeof(*pm));

	if (!pm)
		return NULL;
	pm->places = places;
	pm->latest = idmap__new();
	if (!pm->latest) {
		free(pm);
		return NULL;
	}
	return pm;
}

struct perf_maps *perf_maps__free(struct perf_maps *pm)
{
	if (!pm)
		return NULL;
	for (size_t i = 0; i < pm->nr; i++)
		free(pm->v[i].text);
	free(pm->v);
	idmap__free(pm->latest);
	free(pm);
	return NULL;
}

static struct life *latest(const struct perf_maps *pm, int32_t pid)
{
	uint32_t idx;

	return idmap__get(pm->latest, (uint32_t)pid, &idx) && idx ? &pm->v[idx - 1] : NULL;
}

/* The lifetime of pid holding time, or NULL. */
static struct life *life_at(struct perf_maps *pm, int32_t pid, uint64_t time)
{
	uint32_t *r = &pm->recent[(uint32_t)pid % ARRAY_SIZE(pm->recent)];
	struct life *l = *r ? &pm->v[*r - 1] : NULL;

	if (l && l->pid == pid && time > l->from && time <= l->until)
		return l;
	for (l = latest(pm, pid); l; l = l->prev ? &pm->v[l->prev - 1] : NULL)
		if (time > l->from && time <= l->until) {
			*r = (uint32_t)(l - pm->v) + 1;
			return l;
		}
	return NULL;
}

/* pid's pid in its own pid namespace (the last of NSpid) and its real uid, from
 * /proc/PID/status.  0 or -errno. */
static int read_status(int32_t pid, int32_t *ret_nspid, uint32_t *ret_uid)
{
	_cleanup_free_ char *text = NULL;
	char path[64];
	const char *ns, *uid;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if (read_file_full(AT_FDCWD, path, 1 << 16, &text) < 0)
		return -ESRCH;
	ns = strstr(text, "\nNSpid:");
	uid = strstr(text, "\nUid:");
	if (!ns || !uid || sscanf(uid + 5, "%u", ret_uid) != 1)
		return -ENODATA;
	for (const char *p = ns + 7; *p && *p != '\n';) {
		char *end;
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		n = (int)v;
		p = end;
	}
	if (n <= 0)
		return -ENODATA;
	*ret_nspid = n;
	return 0;
}

/* l's place and namespace pid, read now. */
static void learn(struct perf_maps *pm, struct life *l)
{
	uint32_t place = places__of(pm->places, l->pid);

	l->kind = LIFE_HOST;
	if (place == PLACE_NONE || places__own(pm->places, place))
		return;
	l->place = place;
	l->kind = read_status(l->pid, &l->nspid, &l->uid) == 0 ? LIFE_FOREIGN : LIFE_GONE;
}

void perf_maps__met(struct perf_maps *pm, int32_t pid, uint64_t time)
{
	struct life *l;

	if (pid <= 0)
		return;
	l = life_at(pm, pid, time);
	if (l) {
		/* a process that lives past a round (exec'd processes come and go by the
		 * thousand on a build host: their /proc is not read) */
		if (l->kind == LIFE_NEW && l->round != pm->round && !l->read && l->until == PERF_MAPS_UNTIL_ALIVE)
			learn(pm, l);
		return;
	}
	l = latest(pm, pid);
	if (l && (l->until == PERF_MAPS_UNTIL_ALIVE || time <= l->until))
		return;                 /* older than the latest lifetime: of none tracked */
	if (pm->nr >= PERF_MAPS_MAX_LIVES || VEC_RESERVE(pm->v, pm->cap, pm->nr + 1) < 0) {
		pm->st.untracked++;
		return;
	}
	l = latest(pm, pid);
	pm->v[pm->nr] = (struct life){ .pid = pid, .prev = l ? (uint32_t)(l - pm->v) + 1 : 0,
				       .from = l ? l->until : 0, .until = PERF_MAPS_UNTIL_ALIVE, .kind = LIFE_NEW,
				       .round = pm->round };
	if (idmap__set(pm->latest, (uint32_t)pid, (uint32_t)pm->nr + 1) < 0) {
		pm->st.untracked++;
		return;
	}
	pm->recent[(uint32_t)pid % ARRAY_SIZE(pm->recent)] = (uint32_t)++pm->nr;
}

void perf_maps__round(struct perf_maps *pm)
{
	pm->round++;
}

void perf_maps__moved(struct perf_maps *pm, int32_t pid)
{
	struct life *l = latest(pm, pid);

	/* looked at again once it has lived a round since */
	if (l && l->until == PERF_MAPS_UNTIL_ALIVE && !l->read) {
		l->kind = LIFE_NEW;
		l->round = pm->round;
	}
}

void perf_maps__exited(struct perf_maps *pm, int32_t pid, uint64_t time)
{
	struct life *l = latest(pm, pid);

	if (l && l->until == PERF_MAPS_UNTIL_ALIVE && time > l->from)
		l->until = time;
}

void perf_maps__written(struct perf_maps *pm, int32_t pid, uint64_t time)
{
	struct life *l = life_at(pm, pid, time);

	if (l)
		l->written = true;
}

struct map_read {
	int root;
	char path[64];
	uint32_t uid;
	int fd;                         /* opened for reading */
	struct stat st;
};

/* As the user: the map's path under the root, no link, not above the root, checked
 * before it is opened for reading.  0 or -errno (-ELOOP a link, -EISDIR not a regular
 * file, -EPERM not the process's or root's). */
static int do_open_map(void *arg)
{
	struct map_read *m = arg;
	struct open_how how = { .flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
				.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	_cleanup_close_ int pfd = (int)syscall(SYS_openat2, m->root, m->path, &how, sizeof(how));
	char proc[64];

	if (pfd < 0)
		return -errno;
	if (fstat(pfd, &m->st) < 0)
		return -errno;
	if (S_ISLNK(m->st.st_mode))
		return -ELOOP;
	if (!S_ISREG(m->st.st_mode))
		return -EISDIR;
	if (m->st.st_uid != m->uid && m->st.st_uid != 0)
		return -EPERM;
	if ((uint64_t)m->st.st_size > PERF_MAPS_MAX_BYTES)
		return -EFBIG;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
	m->fd = open(proc, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	return m->fd < 0 ? -errno : 0;
}

/* Copy l's map, and count why not. */
static void read_map(struct perf_maps *pm, struct life *l)
{
	struct map_read m = { .root = places__root(pm->places, l->place), .uid = l->uid, .fd = -1 };
	char *text = NULL;
	ssize_t n;
	int err;

	l->read = true;
	if (l->kind == LIFE_GONE || m.root < 0) {
		pm->st.gone++;
		return;
	}
	snprintf(m.path, sizeof(m.path), "/tmp/perf-%d.map", l->nspid);
	err = privs__as_user(do_open_map, &m);
	if (err == 0) {
		n = read_fd_full(m.fd, PERF_MAPS_MAX_BYTES, &text);
		close(m.fd);
		err = n < 0 ? (int)n : 0;
		if (err == 0 && pm->total + (uint64_t)n > PERF_MAPS_TOTAL_BYTES) {
			free(text);
			pm->st.over_limit++;
			return;
		}
		if (err == 0) {
			l->text = text;
			l->len = (size_t)n;
			pm->total += (uint64_t)n;
			pm->st.copied++;
			pm->st.bytes += (uint64_t)n;
			return;
		}
	} else if (m.fd >= 0) {
		close(m.fd);
	}
	if (err == -ENOENT)
		return;         /* no map: not a JIT (or its map is elsewhere) */
	if (err == -EPERM)
		pm->st.not_owned++;
	else if (err == -ELOOP || err == -EISDIR || err == -EXDEV)
		pm->st.not_regular++;
	else if (err == -EFBIG)
		pm->st.too_big++;
	else
		pm->st.unreadable++;
}

void perf_maps__exit_written(struct perf_maps *pm, int32_t pid, uint64_t time)
{
	struct life *l = life_at(pm, pid, time);

	if (l && l->until == time && l->written && l->kind > LIFE_HOST && !l->read)
		read_map(pm, l);
}

void perf_maps__finish(struct perf_maps *pm)
{
	for (size_t i = 0; i < pm->nr; i++) {
		struct life *l = &pm->v[i];

		/* sampled in one round only, and alive: looked at now */
		if (l->written && l->kind == LIFE_NEW && l->until == PERF_MAPS_UNTIL_ALIVE)
			learn(pm, l);
		if (l->written && l->kind > LIFE_HOST && !l->read)
			read_map(pm, l);
	}
}

void perf_maps__each(const struct perf_maps *pm, perf_maps_fn fn, void *ctx)
{
	for (size_t i = 0; i < pm->nr; i++)
		if (pm->v[i].text)
			fn(ctx, pm->v[i].pid, pm->v[i].from, pm->v[i].until, pm->v[i].text, pm->v[i].len);
}

const struct perf_maps_stats *perf_maps__stats(const struct perf_maps *pm)
{
	return &pm->st;
}
