/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "prof/base/hash.h"
#include "prof/base/hashtable.h"
#include "prof/base/util.h"
#include "prof/base/vec.h"
#include "prof/synth/places.h"

struct place_key {
	uint64_t ns_dev, ns_ino;        /* the mount namespace */
	uint64_t root_dev, root_ino;    /* the root directory */
};

struct place {
	struct place_key key;
	int fd;                         /* its root, O_PATH, held; -1 */
	uint32_t tasks;                 /* tasks known to be in it */
	char *path;                     /* its root as prof sees it, or NULL */
};

struct pid_place {
	int32_t pid;
	uint32_t place;
	bool stale;                     /* it exec'd or changed namespaces since */
	bool exited;                    /* kept a few rounds for records drained late */
	bool read;                      /* from its own /proc, in round read_round */
	uint32_t exit_round, read_round;
};

/* An exited pid, forgotten once its round is old enough. */
struct exited_pid {
	int32_t pid;
	uint32_t round;
};

struct places {
	struct place *v;
	size_t nr, cap;
	struct hashtable index;         /* of uint32_t (in v), by key */
	struct hashtable pids;          /* of struct pid_place, by pid */
	bool own_known;                 /* v[0] is prof's own */
	unsigned int held;
	struct exited_pid *exited;      /* oldest first, from first_exited */
	size_t nr_exited, cap_exited, first_exited;
	uint32_t round;
	struct places_stats st;
};

static uint64_t key_hash(const struct place_key *k)
{
	return hash__mix(hash__mix(hash__mix(hash__u64(k->ns_dev), k->ns_ino), k->root_dev), k->root_ino);
}

static bool index_eq(const void *entry, const void *key, const void *ctx)
{
	const struct places *pl = ctx;

	return !memcmp(&pl->v[*(const uint32_t *)entry].key, key, sizeof(struct place_key));
}

static bool pid_eq(const void *entry, const void *key, const void *ctx)
{
	(void)ctx;
	return ((const struct pid_place *)entry)->pid == *(const int32_t *)key;
}

static uint64_t pid_hash(int32_t pid)
{
	return hash__u64((uint32_t)pid);
}

/* pid's place read from /proc: its key, its root's descriptor and path.  0 or -errno. */
static int place_read(int32_t pid, struct place_key *ret, int *ret_fd, char *name, size_t size)
{
	struct task_ns ns;
	struct stat st;
	int fd, err = task_file__mnt_ns(pid, &ns);

	if (err < 0)
		return err;
	fd = task_file__root(pid, name, size);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	*ret = (struct place_key){ ns.dev, ns.ino, st.st_dev, st.st_ino };
	*ret_fd = fd;
	return 0;
}

/* Make room for one more held root: close one of a place no known task is in. */
static bool make_room(struct places *pl)
{
	if (pl->held < PLACES_MAX_HELD)
		return true;
	for (size_t i = 1; i < pl->nr; i++)
		if (pl->v[i].fd >= 0 && !pl->v[i].tasks) {
			close(steal_fd(&pl->v[i].fd));
			pl->held--;
			return true;
		}
	return false;
}

/* The place of key, made the first time (fd: its root, taken or closed).  Its
 * index, or PLACE_NONE. */
static uint32_t place_get(struct places *pl, const struct place_key *key, int fd, const char *path)
{
	uint64_t h = key_hash(key);
	uint32_t *idx = hashtable__find(&pl->index, h, key);
	bool created;

	if (idx || pl->nr >= PLACES_MAX || VEC_RESERVE(pl->v, pl->cap, pl->nr + 1) < 0 ||
	    !(idx = hashtable__insert(&pl->index, h, key, &created))) {
		close(fd);
		return idx ? *idx : PLACE_NONE;
	}
	pl->v[pl->nr] = (struct place){ .key = *key, .fd = -1, .path = path && *path ? strdup(path) : NULL };
	*idx = (uint32_t)pl->nr;
	if (pl->nr && make_room(pl)) {
		pl->v[pl->nr].fd = fd;
		pl->held++;
		pl->st.held = MAX(pl->st.held, pl->held);
	} else {
		if (pl->nr)
			pl->st.not_held++;
		close(fd);
	}
	if (pl->nr)
		pl->st.places++;
	return (uint32_t)pl->nr++;
}

/* pid is in place: inherited (its FORK), or read (its /proc). */
static int pid_set(struct places *pl, int32_t pid, uint32_t place, bool read)
{
	bool created;
	struct pid_place *e = hashtable__insert(&pl->pids, pid_hash(pid), &pid, &created);

	if (!e)
		return -ENOMEM;
	if (!created && !e->exited && e->place < pl->nr && pl->v[e->place].tasks)
		pl->v[e->place].tasks--;
	*e = (struct pid_place){ .pid = pid, .place = place, .read = read, .read_round = pl->round };
	pl->v[place].tasks++;
	return 0;
}

int places__new(struct places **ret)
{
	struct places *pl = calloc(1, sizeof(*pl));
	struct place_key own;
	int fd;

	if (!pl)
		return -ENOMEM;
	hashtable__init(&pl->index, sizeof(uint32_t), index_eq, pl);
	hashtable__init(&pl->pids, sizeof(struct pid_place), pid_eq, NULL);
	if (place_read(0, &own, &fd, NULL, 0) == 0) {
		if (place_get(pl, &own, fd, NULL) == PLACE_NONE) {
			places__free(pl);
			return -ENOMEM;
		}
		pl->own_known = true;
	}
	*ret = pl;
	return 0;
}

struct places *places__free(struct places *pl)
{
	if (!pl)
		return NULL;
	for (size_t i = 0; i < pl->nr; i++) {
		if (pl->v[i].fd >= 0)
			close(pl->v[i].fd);
		free(pl->v[i].path);
	}
	free(pl->v);
	free(pl->exited);
	hashtable__release(&pl->index);
	hashtable__release(&pl->pids);
	free(pl);
	return NULL;
}

uint32_t places__of(struct places *pl, int32_t pid)
{
	const struct pid_place *e;
	struct place_key key;
	char path[256];
	uint32_t place;
	int fd;

	if (pid <= 0 || !pl->own_known)
		return PLACE_NONE;
	e = hashtable__find(&pl->pids, pid_hash(pid), &pid);
	if (e && !e->stale && !e->exited)
		return e->place;
	if (place_read(pid, &key, &fd, path, sizeof(path)) < 0) {
		/* gone: where it was (exited), or before its exec, unless that was
		 * prof's own (a chroot or pivot_root before the exec would go unseen) */
		return e && (e->place || (e->exited && !e->stale)) ? e->place : PLACE_NONE;
	}
	place = place_get(pl, &key, fd, path);
	if (place == PLACE_NONE || pid_set(pl, pid, place, true) < 0)
		return PLACE_NONE;
	return place;
}

int places__fork(struct places *pl, int32_t ppid, int32_t pid)
{
	const struct pid_place *p = hashtable__find(&pl->pids, pid_hash(ppid), &ppid);
	const struct pid_place *c = hashtable__find(&pl->pids, pid_hash(pid), &pid);

	/* The child's own /proc, read lately, was read after this FORK (its rings
	 * drained first): fresher than its parent's place, which a chroot or an
	 * unshare between its fork and its exec left behind.  (A pid's earlier
	 * holder read as lately, its EXIT lost, is not told apart.) */
	if (c && c->read && !c->exited && pl->round - c->read_round <= PLACES_EXITED_ROUNDS)
		return 0;
	if (!p) {
		places__forget(pl, pid, false);
		return 0;
	}
	return pid_set(pl, pid, p->place, false);
}

void places__forget(struct places *pl, int32_t pid, bool stale)
{
	struct pid_place *e = hashtable__find(&pl->pids, pid_hash(pid), &pid);

	if (!e)
		return;
	if (stale) {
		e->stale = true;
		return;
	}
	if (e->exited)
		return;
	if (pl->v[e->place].tasks)
		pl->v[e->place].tasks--;
	/* Rings are drained one CPU after another: a child's FORK, or its MMAP2, may
	 * come after its parent's (or its own) EXIT.  Kept a few rounds, unless no
	 * memory. */
	if (VEC_RESERVE(pl->exited, pl->cap_exited, pl->nr_exited + 1) < 0) {
		hashtable__remove(&pl->pids, pid_hash(pid), &pid);
		return;
	}
	e->exited = true;
	e->exit_round = pl->round;
	pl->exited[pl->nr_exited++] = (struct exited_pid){ pid, pl->round };
}

void places__round(struct places *pl)
{
	pl->round++;
	while (pl->first_exited < pl->nr_exited &&
	       pl->round - pl->exited[pl->first_exited].round > PLACES_EXITED_ROUNDS) {
		const struct exited_pid *x = &pl->exited[pl->first_exited++];
		const struct pid_place *e = hashtable__find(&pl->pids, pid_hash(x->pid), &x->pid);

		/* not if a new task took the pid since (its FORK; it may have exited too) */
		if (e && e->exited && e->exit_round == x->round)
			hashtable__remove(&pl->pids, pid_hash(x->pid), &x->pid);
	}
	if (pl->first_exited == pl->nr_exited) {
		pl->first_exited = pl->nr_exited = 0;
	} else if (pl->first_exited > pl->nr_exited / 2) {
		memmove(pl->exited, pl->exited + pl->first_exited,
			(pl->nr_exited - pl->first_exited) * sizeof(*pl->exited));
		pl->nr_exited -= pl->first_exited;
		pl->first_exited = 0;
	}
}

bool places__own(const struct places *pl, uint32_t place)
{
	return !pl->own_known || place == 0;
}

bool places__own_ns(const struct places *pl, uint32_t place)
{
	if (!pl->own_known)
		return true;
	return place < pl->nr && pl->v[place].key.ns_dev == pl->v[0].key.ns_dev &&
	       pl->v[place].key.ns_ino == pl->v[0].key.ns_ino;
}

int places__root(const struct places *pl, uint32_t place)
{
	return place < pl->nr ? pl->v[place].fd : -1;
}

void places__name(const struct places *pl, uint32_t place, char *buf, size_t size)
{
	const struct place *p = place < pl->nr ? &pl->v[place] : NULL;

	if (!p)
		snprintf(buf, size, "unknown");
	else if (!places__own_ns(pl, place))
		snprintf(buf, size, "mnt:%" PRIu64, p->key.ns_ino);
	else if (p->path && p->path[0] == '/' && !strchr(p->path, ']'))
		snprintf(buf, size, "chroot:%s", p->path);
	else
		snprintf(buf, size, "chroot:%u:%u:%" PRIu64, major(p->key.root_dev), minor(p->key.root_dev),
			 p->key.root_ino);
}

const struct places_stats *places__stats(const struct places *pl)
{
	return &pl->st;
}
