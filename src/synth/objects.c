/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "prof/base/hash.h"
#include "prof/base/hashtable.h"
#include "prof/base/util.h"
#include "prof/base/vec.h"
#include "prof/perfdata/sample.h"
#include "prof/synth/objects.h"
#include "prof/synth/perf_maps.h"
#include "prof/synth/places.h"

/* An object that could not be reached is tried again at later MMAP2s of it (another
 * task of the same image may still run), this many times in all. */
#define MAX_TRIES 4

/* Objects whose task was gone before its place was known, waiting for its FORK (read
 * from another CPU's ring, it may come after the MMAP2): at most this many, for two
 * rounds. */
#define MAX_PENDING 256

/* One mapped file: (device, inode). */
struct object {
	uint32_t maj, min;
	uint64_t ino;
	uint32_t gen;                   /* its inode's generation, when has_gen */
	bool has_gen;                   /* from the kernel's MMAP2 (synthesized ones have none) */
	bool ambiguous;                 /* two files (generations) had its device and inode */
	int32_t kept;                   /* its build id's entry in kept[], -1: none read */
	int err;                        /* why not, while kept < 0 */
	uint8_t tries;
	uint8_t way;                    /* enum task_file_way it was reached by */
	bool hit;                       /* written samples in it */
	bool written;                   /* an MMAP2 of it is in the file */
	bool host_ok;                   /* its path on the host was found to be it */
	uint32_t place;                 /* of its latest mapping task, PLACE_NONE */
	char *path;                     /* of its first MMAP2 */
	int32_t pid;                    /* its latest mapping, to reach it again */
	uint64_t start, end;
};

/* One build id, and whether the report needs a copy of it. */
struct kept {
	struct build_id bid;
	uint32_t obj;                   /* an object of it (fd's, when held) */
	int fd;                         /* held for the copy, -1 */
	bool wanted;                    /* an object of it was reached through its task */
	bool hit, queued, done;
};

/*
 * A process's address ranges whose objects have all their hits noted, and addresses
 * in none of its maps (a frame-pointer walk through code built without them returns
 * the same few bogus ones): a sample whose user addresses all fall in them needs no
 * map look-up (that was a sixth of prof record's CPU at high rates).  Direct-mapped
 * by pid; a slot is emptied when its process's maps may change (MMAP, MMAP2, exec,
 * exit, a fork onto its pid).
 */
#define DONE_SLOTS 64
#define DONE_RANGES 6
#define DONE_STRAYS 4
struct done_ranges {
	int32_t pid;                    /* 0: empty */
	uint32_t nr, next, nr_strays, next_stray;
	uint64_t start[DONE_RANGES], end[DONE_RANGES];
	uint64_t strays[DONE_STRAYS];   /* in no map */
};

struct objects {
	struct objects_config cfg;
	struct done_ranges done[DONE_SLOTS];
	struct sample_layout layout;
	struct model *model;            /* the written maps (keeping only) */
	bool own_model;
	struct places *places;          /* where the mapping tasks' paths resolve */
	struct perf_maps *perf_maps;    /* of processes in other places (kernel_layout), or NULL */
	bool map_files_refused;         /* as the user, map_files is not reachable */
	struct object *objs;
	size_t nr_objs, cap_objs;
	struct hashtable obj_index;     /* of uint32_t (index in objs), by (maj, min, ino) */
	struct kept *kept;
	size_t nr_kept, cap_kept;
	struct hashtable kept_index;    /* of uint32_t (index in kept), by build id */
	uint32_t *dso_obj;              /* model dso -> object index + 1, 0 unknown, UINT32_MAX none */
	size_t cap_dso_obj;
	uint32_t *due, *hits;           /* kept entries: to copy; first hit this round */
	size_t nr_due, cap_due, done_due, nr_hits, cap_hits;
	unsigned int held, max_held;
	struct pending { uint32_t obj, round; } *pending;
	size_t nr_pending, cap_pending;
	uint32_t round;
	struct objects_stats st;
};

struct obj_key {
	uint32_t maj, min;
	uint64_t ino;
};

static uint64_t obj_hash(uint32_t maj, uint32_t min, uint64_t ino)
{
	return hash__mix(hash__mix(hash__u64(maj), min), ino);
}

static bool obj_eq(const void *entry, const void *key, const void *ctx)
{
	const struct object *o = &((const struct objects *)ctx)->objs[*(const uint32_t *)entry];
	const struct obj_key *k = key;

	return o->maj == k->maj && o->min == k->min && o->ino == k->ino;
}

static bool kept_eq(const void *entry, const void *key, const void *ctx)
{
	const struct kept *k = &((const struct objects *)ctx)->kept[*(const uint32_t *)entry];
	const struct build_id *b = key;

	return k->bid.size == b->size && !memcmp(k->bid.data, b->data, b->size);
}

int objects__new(const struct objects_config *cfg, struct objects **ret)
{
	struct objects *o = calloc(1, sizeof(*o));
	struct rlimit rl;

	if (!o)
		return -ENOMEM;
	o->cfg = *cfg;
	sample_layout__init(&o->layout, cfg->sample_type);
	hashtable__init(&o->obj_index, sizeof(uint32_t), obj_eq, o);
	hashtable__init(&o->kept_index, sizeof(uint32_t), kept_eq, o);
	if (places__new(&o->places) < 0) {
		free(o);
		return -ENOMEM;
	}
	if (cfg->kernel_layout && !(o->perf_maps = perf_maps__new(o->places))) {
		objects__free(o);
		return -ENOMEM;
	}
	o->max_held = OBJECTS_MAX_HELD;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur / 4 < o->max_held)
		o->max_held = (unsigned int)(rl.rlim_cur / 4);
	if (cfg->cache) {
		o->model = cfg->model;
		if (!o->model) {
			o->model = model__new();
			o->own_model = true;
		}
		if (!o->model) {
			objects__free(o);
			return -ENOMEM;
		}
	}
	*ret = o;
	return 0;
}

static void kept_release(struct objects *o, struct kept *k)
{
	if (k->fd >= 0) {
		close(steal_fd(&k->fd));
		o->held--;
	}
}

struct objects *objects__free(struct objects *o)
{
	if (!o)
		return NULL;
	for (size_t i = 0; i < o->nr_kept; i++)
		kept_release(o, &o->kept[i]);
	for (size_t i = 0; i < o->nr_objs; i++)
		free(o->objs[i].path);
	free(o->objs);
	free(o->kept);
	free(o->dso_obj);
	free(o->due);
	free(o->hits);
	free(o->pending);
	hashtable__release(&o->obj_index);
	hashtable__release(&o->kept_index);
	perf_maps__free(o->perf_maps);
	places__free(o->places);
	if (o->own_model)
		model__free(o->model);
	free(o);
	return NULL;
}

static struct object *object_find(const struct objects *o, uint32_t maj, uint32_t min, uint64_t ino)
{
	struct obj_key k = { maj, min, ino };
	const uint32_t *idx = hashtable__find(&o->obj_index, obj_hash(maj, min, ino), &k);

	return idx ? &o->objs[*idx] : NULL;
}

/* ---- reaching an object ------------------------------------------------------------ */

/* The build id's entry, made the first time.  Its index, or -ENOMEM. */
static int64_t kept_get(struct objects *o, const struct build_id *b, uint32_t obj)
{
	uint64_t h = hash__bytes(b->data, b->size);
	uint32_t *idx = hashtable__find(&o->kept_index, h, b);
	bool created;

	if (idx)
		return *idx;
	if (VEC_RESERVE(o->kept, o->cap_kept, o->nr_kept + 1) < 0)
		return -ENOMEM;
	idx = hashtable__insert(&o->kept_index, h, b, &created);
	if (!idx)
		return -ENOMEM;
	o->kept[o->nr_kept] = (struct kept){ .bid = *b, .obj = obj, .fd = -1 };
	*idx = (uint32_t)o->nr_kept;
	return (int64_t)o->nr_kept++;
}

/* Close a held descriptor whose build id has no sample yet, to make room.  false if none. */
static bool evict_unhit(struct objects *o)
{
	for (size_t i = 0; i < o->nr_kept; i++) {
		struct kept *k = &o->kept[i];

		if (k->fd >= 0 && !k->hit) {
			kept_release(o, k);
			return true;
		}
	}
	return false;
}

/* Keep fd (the caller's otherwise) for k's copy.  True when taken. */
static bool hold(struct objects *o, struct kept *k, uint32_t obj, int fd)
{
	if (!o->cfg.cache || k->fd >= 0 || k->done || (o->held >= o->max_held && !evict_unhit(o)))
		return false;
	k->fd = fd;
	k->obj = obj;
	o->held++;
	return true;
}

static struct task_file ref_of(const struct object *obj)
{
	return (struct task_file){ .pid = obj->pid, .start = obj->start, .end = obj->end, .path = obj->path,
				   .maj = obj->maj, .min = obj->min, .ino = obj->ino, .gen = obj->gen,
				   .has_gen = obj->has_gen };
}

/*
 * Open f: from prof's root first (unless task_only) when its task shares prof's mount
 * namespace, or when that cannot be told (then the device and inode check decides),
 * then through the task, then, once the task is gone, under the root its place
 * holds.  The fd, or -errno.
 */
static int reach_file(struct objects *o, const struct task_file *f, uint32_t place, bool task_only,
		      enum task_file_way *way)
{
	unsigned int flags = o->map_files_refused ? TASK_FILE_NO_MAP_FILES : 0;
	bool refused = false;
	int fd, alt;

	if (!task_only && (place == PLACE_NONE || places__own_ns(o->places, place)))
		flags |= TASK_FILE_TRY_HOST;
	fd = task_file__open(f, flags, way, &refused);
	if (refused)
		o->map_files_refused = true;
	if (fd >= 0 || fd == -EACCES || fd == -EPERM || places__root(o->places, place) < 0)
		return fd;
	alt = task_file__open_in_root(places__root(o->places, place), f);
	if (alt < 0)
		/* another file or a link at its path under the held root says more than
		 * that the task was gone */
		return fd == -ESRCH && alt != -ESTALE ? fd : alt;
	*way = TASK_FILE_HELD_ROOT;
	return alt;
}

/* Open obj where its latest mapping says; its place is learnt on the way. */
static int reach(struct objects *o, struct object *obj, bool task_only, enum task_file_way *way)
{
	struct task_file f = ref_of(obj);
	uint32_t place = places__of(o->places, obj->pid);
	int fd;

	if (place != PLACE_NONE)
		obj->place = place;
	fd = reach_file(o, &f, obj->place, task_only, way);
	if (fd >= 0 && *way == TASK_FILE_HOST)
		obj->host_ok = true;
	return fd;
}

/* A regular ELF file with sane headers, and its build id.  0 or -errno. */
static int read_elf(int fd, struct build_id *ret)
{
	struct stat st;
	int err;

	if (fstat(fd, &st) < 0)
		return -errno;
	err = build_id__check_elf(fd, (uint64_t)st.st_size);
	return err < 0 ? err : build_id__read_elf(fd, ret);
}

/* A path of /proc/PID/maps whose file was unlinked (or renamed over). */
static bool deleted(const char *path)
{
	size_t n = strlen(path);

	return n > 10 && !strcmp(path + n - 10, " (deleted)");
}

/* Reach obj now and read its build id; the descriptor is held for a copy when only
 * the task gave it.  0 or -ENOMEM (anything else is obj->err). */
static int object_read(struct objects *o, uint32_t idx)
{
	struct object *obj = &o->objs[idx];
	enum task_file_way way = TASK_FILE_NONE;
	struct build_id bid;
	int64_t k;
	int fd;

	obj->tries++;
	fd = reach(o, obj, false, &way);
	if (fd == -ENOENT && deleted(obj->path))
		fd = -ESTALE;   /* unlinked or renamed over, and no way in but its path */
	obj->err = fd < 0 ? fd : read_elf(fd, &bid);
	if (fd >= 0 && obj->err == -ENOENT)
		obj->err = -ENODATA;    /* reached, but without a build-id note */
	if (obj->err < 0) {
		if (fd >= 0)
			close(fd);
		if (obj->err == -ESRCH && obj->place == PLACE_NONE && o->nr_pending < MAX_PENDING &&
		    VEC_RESERVE(o->pending, o->cap_pending, o->nr_pending + 1) == 0)
			o->pending[o->nr_pending++] = (struct pending){ idx, o->round };
		return 0;
	}
	k = kept_get(o, &bid, idx);
	if (k < 0) {
		close(fd);
		return (int)k;
	}
	obj = &o->objs[idx];
	obj->kept = (int32_t)k;
	obj->way = (uint8_t)way;
	if (way != TASK_FILE_HOST)
		o->kept[k].wanted = true;
	o->kept[k].hit |= obj->hit;
	if (way == TASK_FILE_HOST || !hold(o, &o->kept[k], idx, fd))
		close(fd);
	return 0;
}

/*
 * An executable file's MMAP2, as it is drained (written: it is in the file): its
 * object, reached the first time (or again, while it could not be).
 */
static int note_mmap(struct objects *o, const struct perf_record_mmap2 *m, size_t len, bool written)
{
	struct obj_key key = { m->maj, m->min, m->ino };
	uint64_t h = obj_hash(m->maj, m->min, m->ino);
	uint32_t *idx = hashtable__find(&o->obj_index, h, &key);
	struct object *obj;
	bool created;

	if (!idx) {
		if (VEC_RESERVE(o->objs, o->cap_objs, o->nr_objs + 1) < 0 ||
		    !(idx = hashtable__insert(&o->obj_index, h, &key, &created)))
			return -ENOMEM;
		o->objs[o->nr_objs] = (struct object){ .maj = m->maj, .min = m->min, .ino = m->ino, .kept = -1,
						       .place = PLACE_NONE, .path = strndup(m->filename, len) };
		if (!o->objs[o->nr_objs].path)
			return -ENOMEM;
		*idx = (uint32_t)o->nr_objs++;
	}
	obj = &o->objs[*idx];
	if (!written && !obj->has_gen) {
		/* the kernel's record (drained, not written): the generation of the inode
		 * mapped, which a file made later at its number does not have */
		obj->gen = (uint32_t)m->ino_generation;
		obj->has_gen = true;
	} else if (!written && obj->gen != (uint32_t)m->ino_generation && !obj->ambiguous) {
		/* Another file got its inode number (a program rebuilt and run again):
		 * its build id is not this one's, and which of the two a mapping written
		 * from now on is cannot be told by device and inode.  No build id from
		 * now on, and no path a reader would resolve (objects__foreign). */
		obj->ambiguous = true;
		o->st.ambiguous++;
	}
	if (written && !obj->written) {
		obj->written = true;
		o->st.objects++;
	}
	obj->pid = (int32_t)m->pid;
	obj->start = m->start;
	obj->end = m->start + m->len;
	if (obj->kept >= 0 || obj->tries >= MAX_TRIES || obj->err == -ENOEXEC || obj->err == -EINVAL ||
	    obj->err == -ENODATA)
		return 0;
	return object_read(o, *idx);
}

/* pid's FORK came: its objects pending (gone, their place unknown then) are tried
 * again, now that its place is its parent's.  0 or -ENOMEM. */
static int retry_pending(struct objects *o, int32_t pid)
{
	if (!o->nr_pending || places__of(o->places, pid) == PLACE_NONE)
		return 0;
	for (size_t i = 0; i < o->nr_pending;) {
		uint32_t idx = o->pending[i].obj;
		int err;

		if (o->objs[idx].pid != pid) {
			i++;
			continue;
		}
		o->pending[i] = o->pending[--o->nr_pending];
		if (o->objs[idx].kept >= 0 || o->objs[idx].tries >= MAX_TRIES)
			continue;
		err = object_read(o, idx);
		if (err < 0)
			return err;
	}
	return 0;
}

/* ---- samples: which objects they hit ---------------------------------------------- */

/* The object of model dso d, found once. */
static struct object *object_of_dso(struct objects *o, uint32_t d)
{
	const struct model_dso *md;
	struct object *obj;

	if (d >= o->cap_dso_obj) {
		size_t old = o->cap_dso_obj;

		if (VEC_RESERVE(o->dso_obj, o->cap_dso_obj, (size_t)d + 1) < 0)
			return NULL;
		memset(o->dso_obj + old, 0, (o->cap_dso_obj - old) * sizeof(*o->dso_obj));
	}
	if (o->dso_obj[d] == UINT32_MAX)
		return NULL;
	if (o->dso_obj[d])
		return &o->objs[o->dso_obj[d] - 1];
	md = model__dso(o->model, d);
	obj = md && md->has_inode ? object_find(o, md->maj, md->min, md->ino) : NULL;
	o->dso_obj[d] = obj ? (uint32_t)(obj - o->objs) + 1 : UINT32_MAX;
	return obj;
}

/* obj has a written sample: its build id's first is queued for the round's end. */
static void mark_hit(struct objects *o, struct object *obj)
{
	struct kept *k = obj->kept >= 0 ? &o->kept[obj->kept] : NULL;

	obj->hit = true;
	if (!k || k->hit || VEC_RESERVE(o->hits, o->cap_hits, o->nr_hits + 1) < 0)
		return;
	k->hit = true;
	o->hits[o->nr_hits++] = (uint32_t)obj->kept;
}

static struct done_ranges *done_slot(struct objects *o, int32_t pid)
{
	return &o->done[(uint32_t)pid % DONE_SLOTS];
}

static void done_forget(struct objects *o, int32_t pid)
{
	struct done_ranges *d = done_slot(o, pid);

	if (d->pid == pid)
		d->pid = 0;
}

/* Is a in d (a noted range, [*ret_start, *ret_end), or a stray)? */
static bool done_has(const struct done_ranges *d, uint64_t a, uint64_t *ret_start, uint64_t *ret_end)
{
	for (uint32_t r = 0; r < d->nr; r++)
		if (a >= d->start[r] && a < d->end[r]) {
			*ret_start = d->start[r];
			*ret_end = d->end[r];
			return true;
		}
	for (uint32_t r = 0; r < d->nr_strays; r++)
		if (d->strays[r] == a)
			return true;
	return false;
}

static void done_add(struct done_ranges *d, const struct map *m)
{
	uint32_t r = d->nr < DONE_RANGES ? d->nr++ : d->next++ % DONE_RANGES;

	d->start[r] = m->start;
	d->end[r] = m->end;
}

static void done_add_stray(struct done_ranges *d, uint64_t a)
{
	uint32_t r = d->nr_strays < DONE_STRAYS ? d->nr_strays++ : d->next_stray++ % DONE_STRAYS;

	d->strays[r] = a;
}

/* Is every hit of obj noted (mark_hit has nothing more to do)? */
static bool hit_noted(const struct objects *o, const struct object *obj)
{
	return obj->hit && (obj->kept < 0 || o->kept[obj->kept].hit);
}

/*
 * Where a kernel sample's user frames start: its chain's last context marker when that
 * is PERF_CONTEXT_USER (the kernel writes the kernel's frames first).  0, the whole
 * chain, when it has no marker or another layout.
 */
static uint64_t user_frames(const struct sample *s)
{
	for (uint64_t i = s->nr_callchain; i-- > 0;) {
		uint64_t a;

		memcpy(&a, &s->callchain[i], 8);
		if (a >= (uint64_t)PERF_CONTEXT_MAX)
			return a == (uint64_t)PERF_CONTEXT_USER ? i : 0;
	}
	return 0;
}

/* The user-space addresses of a written sample: its ip, its call chain's. */
static void note_sample(struct objects *o, const struct perf_event_header *ev)
{
	bool user = (ev->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_USER;
	uint64_t last_start = 0, last_end = 0, from;
	const struct maps *ms = NULL;
	struct done_ranges *d;
	struct sample s;

	if (!sample_layout__sample(&o->layout, ev, &s) || (int32_t)s.pid <= 0)
		return;
	if (o->perf_maps)
		perf_maps__written(o->perf_maps, (int32_t)s.pid, s.time);
	if (!o->cfg.cache)
		return;
	d = done_slot(o, (int32_t)s.pid);
	if (d->pid != (int32_t)s.pid) {
		d->pid = (int32_t)s.pid;
		d->nr = d->next = d->nr_strays = d->next_stray = 0;
	}
	/* a kernel sample's kernel frames skipped at once: i = from + 1 is the marker */
	from = user ? 0 : user_frames(&s);
	for (uint64_t i = from ? from + 1 : 0; i <= s.nr_callchain; i++) {
		uint64_t a = s.ip;
		const struct map *m;
		struct object *obj;

		if (i) {
			memcpy(&a, &s.callchain[i - 1], 8);
			if (a >= (uint64_t)PERF_CONTEXT_MAX) {
				user = a == (uint64_t)PERF_CONTEXT_USER;
				continue;
			}
		}
		if (!user || (a >= last_start && a < last_end) || done_has(d, a, &last_start, &last_end))
			continue;
		if (!ms && !(ms = model__maps(o->model, (int32_t)s.pid)))
			return;
		m = maps__find(ms, a);
		if (!m) {
			done_add_stray(d, a);
			continue;
		}
		last_start = m->start;
		last_end = m->end;
		obj = object_of_dso(o, m->dso);
		if (obj && !hit_noted(o, obj))
			mark_hit(o, obj);
		if (!obj || hit_noted(o, obj))
			done_add(d, m);
	}
}

/* A record that may change pid's maps in the model: what its slot noted is forgotten. */
static void done_note(struct objects *o, const struct perf_event_header *ev)
{
	const struct perf_record_fork *f = (const void *)ev;

	switch (ev->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		if (ev->size >= sizeof(*ev) + 8)
			done_forget(o, (int32_t)((const struct perf_record_mmap2 *)(const void *)ev)->pid);
		break;
	case PERF_RECORD_COMM:
		if (ev->size >= sizeof(*ev) + 8)
			done_forget(o, (int32_t)((const struct perf_record_comm *)(const void *)ev)->pid);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (ev->size >= sizeof(*f))
			done_forget(o, (int32_t)f->pid);
		break;
	default:
		break;
	}
}

/* The written maps, as the unwinder keeps them (exec clears, exit forgets). */
static int model_note(struct objects *o, const struct perf_event_header *ev)
{
	const struct perf_record_fork *f = (const void *)ev;
	const struct perf_record_comm *c = (const void *)ev;

	if (!o->own_model)
		return 0;
	if (ev->type == PERF_RECORD_COMM && (ev->misc & PERF_RECORD_MISC_COMM_EXEC) && ev->size >= sizeof(*c)) {
		model__clear_maps(o->model, (int32_t)c->pid);
		return 0;
	}
	if (ev->type == PERF_RECORD_EXIT && ev->size >= sizeof(*f)) {
		if (f->pid == f->tid)
			model__forget(o->model, (int32_t)f->pid, (int32_t)f->tid);
		return 0;
	}
	return model__process(o->model, ev);
}

int objects__note(struct objects *o, const struct perf_event_header *ev)
{
	size_t len;
	int err;

	if (ev->type == PERF_RECORD_SAMPLE) {
		if (o->cfg.cache || o->perf_maps)
			note_sample(o, ev);
		return 0;
	}
	if (o->perf_maps && ev->type == PERF_RECORD_EXIT && ev->size >= sizeof(struct perf_record_fork)) {
		const struct perf_record_fork *f = (const void *)ev;

		if (f->pid == f->tid)
			perf_maps__exit_written(o->perf_maps, (int32_t)f->pid, f->time);
	}
	done_note(o, ev);
	err = o->cfg.cache ? model_note(o, ev) : 0;
	if (err < 0)
		return err;
	len = ev->misc & PERF_RECORD_MISC_MMAP_BUILD_ID ? 0 : build_id__mmap2_path(ev);
	return len ? note_mmap(o, (const void *)ev, len, true) : 0;
}

int objects__look_up(struct objects *o, const struct perf_event_header *ev)
{
	const struct perf_record_fork *f = (const void *)ev;
	const struct perf_record_comm *c = (const void *)ev;
	size_t len;

	switch (ev->type) {
	case PERF_RECORD_SAMPLE:
		if (o->perf_maps) {
			int32_t pid, tid;

			if (sample_layout__tid(o->cfg.kernel_layout, ev, &pid, &tid))
				perf_maps__met(o->perf_maps, pid, sample_layout__time(o->cfg.kernel_layout, ev));
		}
		return 0;
	case PERF_RECORD_MMAP2:
		len = ev->misc & PERF_RECORD_MISC_MMAP_BUILD_ID ? 0 : build_id__mmap2_path(ev);
		return len ? note_mmap(o, (const void *)ev, len, false) : 0;
	case PERF_RECORD_FORK:
		if (ev->size >= sizeof(*f) && f->pid != f->ppid) {
			int err = places__fork(o->places, (int32_t)f->ppid, (int32_t)f->pid);

			/* a new process: whatever had its pid before ended (its EXIT lost) */
			if (o->perf_maps && f->pid == f->tid)
				perf_maps__exited(o->perf_maps, (int32_t)f->pid, f->time);

			return err < 0 ? err : retry_pending(o, (int32_t)f->pid);
		}
		return 0;
	case PERF_RECORD_EXIT:
		if (ev->size >= sizeof(*f) && f->pid == f->tid) {
			places__forget(o->places, (int32_t)f->pid, false);
			if (o->perf_maps)
				perf_maps__exited(o->perf_maps, (int32_t)f->pid, f->time);
		}
		return 0;
	case PERF_RECORD_COMM:
		/* an exec, after a chroot() or pivot_root: read again */
		if ((ev->misc & PERF_RECORD_MISC_COMM_EXEC) && ev->size >= sizeof(*c)) {
			places__forget(o->places, (int32_t)c->pid, true);
			if (o->perf_maps)
				perf_maps__moved(o->perf_maps, (int32_t)c->pid);
		}
		return 0;
	case PERF_RECORD_NAMESPACES:
		/* setns, unshare */
		if (ev->size >= sizeof(struct perf_record_namespaces)) {
			int32_t pid = (int32_t)((const struct perf_record_namespaces *)(const void *)ev)->pid;

			places__forget(o->places, pid, true);
			if (o->perf_maps)
				perf_maps__moved(o->perf_maps, pid);
		}
		return 0;
	default:
		return 0;
	}
}

/* ---- keeping ------------------------------------------------------------------------ */

static void queue(struct objects *o, uint32_t k)
{
	if (o->kept[k].queued || o->kept[k].done || VEC_RESERVE(o->due, o->cap_due, o->nr_due + 1) < 0)
		return;
	o->kept[k].queued = true;
	o->due[o->nr_due++] = k;
}

static void count_result(struct objects *o, enum build_id_cache_result r, uint64_t size)
{
	uint64_t *c[] = {
		[BUILD_ID_CACHE_KEPT] = &o->st.kept, [BUILD_ID_CACHE_PRESENT] = &o->st.present,
		[BUILD_ID_CACHE_TOO_BIG] = &o->st.too_big, [BUILD_ID_CACHE_RECORDING_FULL] = &o->st.recording_full,
		[BUILD_ID_CACHE_FULL] = &o->st.cache_full, [BUILD_ID_CACHE_CONFLICT] = &o->st.conflict,
		[BUILD_ID_CACHE_CHANGED] = &o->st.changed,
	};

	if ((size_t)r < ARRAY_SIZE(c) && c[r])
		(*c[r])++;
	if (r == BUILD_ID_CACHE_KEPT)
		o->st.kept_bytes += size;
}

/* Copy k into the cache, from its held descriptor or the file reached again.  The
 * bytes it took. */
static uint64_t copy_one(struct objects *o, struct kept *k)
{
	struct object *obj = &o->objs[k->obj];
	enum build_id_cache_result r;
	enum task_file_way way;
	struct build_id bid;
	struct stat st;
	int fd = k->fd, err;

	k->done = true;
	if (fd < 0)
		fd = reach(o, obj, obj->way != TASK_FILE_HOST, &way);
	else
		o->held--;
	k->fd = -1;
	if (fd < 0) {
		o->st.lost++;
		return 0;
	}
	err = fstat(fd, &st) < 0 ? -errno : read_elf(fd, &bid);
	if (err == 0 && (bid.size != k->bid.size || memcmp(bid.data, k->bid.data, bid.size)))
		err = 1;
	if (err)
		o->st.changed++;
	else if ((err = build_id_cache__add(o->cfg.cache, fd, obj->path, &k->bid, (uint64_t)st.st_size, &r)) < 0) {
		if (!o->st.failed++)
			o->st.failed_err = err;
	} else {
		count_result(o, r, (uint64_t)st.st_size);
	}
	close(fd);
	return err ? 0 : (uint64_t)st.st_size;
}

static void copy_due(struct objects *o, uint64_t budget)
{
	uint64_t spent = 0;

	while (o->done_due < o->nr_due && spent < budget)
		spent += copy_one(o, &o->kept[o->due[o->done_due++]]);
	if (o->done_due == o->nr_due)
		o->nr_due = o->done_due = 0;
}

/* First hit this round: a build id only a copy keeps is queued; a host object's file
 * is held, to keep it if a deployment replaces it before the end. */
static void first_hits(struct objects *o)
{
	for (size_t i = 0; i < o->nr_hits; i++) {
		uint32_t ki = o->hits[i];
		struct kept *k = &o->kept[ki];
		enum task_file_way way = TASK_FILE_NONE;
		int fd;

		if (k->wanted) {
			queue(o, ki);
			continue;
		}
		if (k->fd >= 0 || o->held >= o->max_held)
			continue;
		fd = reach(o, &o->objs[k->obj], false, &way);
		if (fd >= 0 && way != TASK_FILE_HOST)
			k->wanted = true;       /* replaced since its MMAP2 */
		if (fd >= 0 && !hold(o, k, k->obj, fd))
			close(fd);
		if (k->wanted)
			queue(o, ki);
	}
	o->nr_hits = 0;
}

void objects__round(struct objects *o)
{
	size_t n = 0;

	/* a FORK is drained at most a pass after its child's MMAP2: older ones will not come */
	for (size_t i = 0; i < o->nr_pending; i++)
		if (o->round - o->pending[i].round < 2)
			o->pending[n++] = o->pending[i];
	o->nr_pending = n;
	o->round++;
	places__round(o->places);
	if (o->perf_maps)
		perf_maps__round(o->perf_maps);
	if (!o->cfg.cache)
		return;
	first_hits(o);
	copy_due(o, OBJECTS_ROUND_BYTES);
}

/* Does the host object's path still name its file? */
static bool still_at_path(struct objects *o, const struct object *obj)
{
	struct task_file f = ref_of(obj);
	enum task_file_way way;
	int fd;

	f.pid = 0;
	fd = task_file__open(&f, TASK_FILE_TRY_HOST, &way, NULL);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* The objects the file maps: how each was read, or why it has no build id. */
static void count_unread(struct objects *o)
{
	for (size_t i = 0; i < o->nr_objs; i++) {
		int e = o->objs[i].err;

		if (!o->objs[i].written)
			continue;
		if (o->objs[i].kept >= 0) {
			o->st.read++;
			o->st.via_task += o->objs[i].way != TASK_FILE_HOST;
			o->st.via_held_root += o->objs[i].way == TASK_FILE_HELD_ROOT;
			continue;
		}
		if (e == -ESRCH)
			o->st.gone++;
		else if (e == -ESTALE)
			o->st.replaced++;
		else if (e == -EACCES || e == -EPERM)
			o->st.denied++;
		else if (e == -ENOEXEC)
			o->st.not_elf++;
		else if (e == -EINVAL)
			o->st.malformed++;
		else if (e == -ENODATA)
			o->st.no_build_id++;
		else
			o->st.other++;
	}
}

void objects__finish(struct objects *o)
{
	if (o->cfg.cache) {
		first_hits(o);
		for (size_t i = 0; i < o->nr_kept; i++) {
			struct kept *k = &o->kept[i];

			if (k->hit && !k->wanted && !k->done && !still_at_path(o, &o->objs[k->obj])) {
				k->wanted = true;
				queue(o, (uint32_t)i);
			}
		}
		copy_due(o, UINT64_MAX);
	}
	for (size_t i = 0; i < o->nr_kept; i++)
		kept_release(o, &o->kept[i]);
	count_unread(o);
	if (o->places) {
		const struct places_stats *ps = places__stats(o->places);

		o->st.places = ps->places;
		o->st.roots_held = ps->held;
		o->st.roots_not_held = ps->not_held;
	}
	if (o->perf_maps)
		perf_maps__finish(o->perf_maps);
}

const struct perf_maps *objects__perf_maps(const struct objects *o)
{
	return o->perf_maps;
}

bool objects__build_id(const struct objects *o, uint32_t maj, uint32_t min, uint64_t ino, struct build_id *ret)
{
	const struct object *obj = object_find(o, maj, min, ino);

	if (!obj || obj->kept < 0 || obj->ambiguous)
		return false;
	*ret = o->kept[obj->kept].bid;
	return true;
}

int objects__open(struct objects *o, const struct task_file *f)
{
	const struct object *obj = object_find(o, f->maj, f->min, f->ino);
	uint32_t place = places__of(o->places, f->pid);
	struct task_file g = *f;
	enum task_file_way way;
	int fd;

	if (obj && obj->kept >= 0 && o->kept[obj->kept].fd >= 0) {
		fd = dup(o->kept[obj->kept].fd);
		return fd < 0 ? -errno : fd;
	}
	if (place == PLACE_NONE && obj)
		place = obj->place;
	if (obj && obj->has_gen && !g.has_gen) {
		g.gen = obj->gen;
		g.has_gen = true;
	}
	return reach_file(o, &g, place, false, &way);
}

bool objects__foreign(const struct objects *o, uint32_t maj, uint32_t min, uint64_t ino, char *buf, size_t size)
{
	const struct object *obj = object_find(o, maj, min, ino);

	if (obj && obj->ambiguous) {
		snprintf(buf, size, "unknown");
		return true;
	}
	if (!obj || obj->kept >= 0 || obj->host_ok || (obj->place != PLACE_NONE && places__own(o->places, obj->place)))
		return false;
	places__name(o->places, obj->place, buf, size);
	return true;
}

const struct objects_stats *objects__stats(const struct objects *o)
{
	return &o->st;
}
