/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prof/base/util.h"
#include "prof/base/vec.h"
#include "prof/daemon/dict_import.h"
#include "prof/daemon/snapshot.h"
#include "prof/daemon/store.h"

/* 3: buckets' off-CPU windows (BUCKET_OFFCPU) and runq TASK records with the holder's
 * cgroup (48 bytes); 2: TASK records of off-CPU time (36 bytes, snapshot.h); 1 has
 * none.  All three are read; an older profd refuses a newer segment whole. */
#define SEG_MAGIC "profd-history 3"
#define SEG_MAGIC_V2 "profd-history 2"
#define SEG_MAGIC_V1 "profd-history 1"
#define SEG_READ_MAX (256u << 20)

struct seg {
	uint64_t seq, bytes, newest_end;
};

struct store {
	struct store_config c;
	char *dir;
	int dirfd;
	struct seg *segs;               /* oldest first; the open one last */
	size_t nr_segs, cap_segs;
	uint64_t next_seq;
	/* the open segment */
	int fd;
	uint64_t created_ns, generation;
	struct dict *seg_dict;          /* the segment's own ids */
	struct dict_import im;          /* history's dictionary -> the segment's */
	struct snap_cursor cur;
	struct store_stats st;
};

static void seg_name(uint64_t seq, char *buf, size_t len)
{
	snprintf(buf, len, "%016" PRIx64 ".seg", seq);
}

static bool parse_seg_name(const char *name, uint64_t *ret)
{
	char back[32];

	if (strlen(name) != 20 || strcmp(name + 16, ".seg") || parse_u64(strndupa(name, 16), 16, ret) < 0)
		return false;
	seg_name(*ret, back, sizeof(back));
	return !strcmp(back, name);
}

static int cmp_seg(const void *a, const void *b)
{
	const struct seg *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The daemon's own, not writable by others: anything else is not read or written. */
static bool ours(const struct stat *st)
{
	return st->st_uid == geteuid() && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

static int list_segments(struct store *s)
{
	DIR *d = fdopendir(dup(s->dirfd));
	struct dirent *de;
	uint64_t seq;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		struct stat st;

		if (!parse_seg_name(de->d_name, &seq) || fstatat(s->dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (VEC_RESERVE(s->segs, s->cap_segs, s->nr_segs + 1) < 0) {
			closedir(d);
			return -ENOMEM;
		}
		s->segs[s->nr_segs++] = (struct seg){ .seq = seq, .bytes = (uint64_t)st.st_size };
		s->next_seq = MAX(s->next_seq, seq + 1);
	}
	closedir(d);
	if (s->nr_segs)         /* qsort of NULL is undefined, even for none */
		qsort(s->segs, s->nr_segs, sizeof(*s->segs), cmp_seg);
	return 0;
}

int store__open(const struct store_config *c, struct store **ret, char *err, size_t errlen)
{
	struct store *s = calloc(1, sizeof(*s));
	struct stat st;
	int e;

	if (!s || !(s->dir = strdup(c->dir))) {
		free(s);
		errorf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	s->c = *c;
	s->c.dir = s->dir;
	s->fd = -1;
	s->dirfd = -1;
	if (mkdir(c->dir, 0700) < 0 && errno != EEXIST) {
		e = -errno;
		errorf(err, errlen, "%s: cannot make the history directory: %s", c->dir, strerror(-e));
		goto fail;
	}
	s->dirfd = open(c->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (s->dirfd < 0 || fstat(s->dirfd, &st) < 0) {
		e = -errno;
		errorf(err, errlen, "%s: %s", c->dir, strerror(-e));
		goto fail;
	}
	if (!ours(&st)) {
		e = -EPERM;
		errorf(err, errlen, "%s: not the daemon's (owner uid %u, mode %04o): it must be owned by uid %u and "
		       "not writable by group or others", c->dir, st.st_uid, st.st_mode & 07777, geteuid());
		goto fail;
	}
	e = list_segments(s);
	if (e < 0) {
		errorf(err, errlen, "%s: cannot list: %s", c->dir, strerror(-e));
		goto fail;
	}
	*ret = s;
	return 0;
fail:
	if (s->dirfd >= 0)
		close(s->dirfd);
	free(s->dir);
	free(s);
	return e;
}

static void close_segment(struct store *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	dict_import__release(&s->im);
	s->seg_dict = dict__free(s->seg_dict);
}

struct store *store__free(struct store *s)
{
	if (!s)
		return NULL;
	close_segment(s);
	if (s->dirfd >= 0)
		close(s->dirfd);
	free(s->segs);
	free(s->dir);
	free(s);
	return NULL;
}

void store__configure(struct store *s, uint64_t disk_max, bool fsync)
{
	s->c.disk_max = disk_max;
	s->c.fsync = fsync;
}

void store__stats(const struct store *s, struct store_stats *ret)
{
	*ret = s->st;
	ret->segments = s->nr_segs;
	ret->bytes = 0;
	for (size_t i = 0; i < s->nr_segs; i++)
		ret->bytes += s->segs[i].bytes;
}

/* ---- reading back ------------------------------------------------------------------- */

struct loading {
	struct store *s;
	struct history *h;
	uint64_t now;
	struct dict *tmp;               /* the segment's items */
	struct dict_import im;          /* tmp -> history's dictionary */
	uint64_t generation;
	struct seg *seg;
};

static int load_bucket(struct loading *l, const struct bucket_hdr *hdr, const struct bucket_entry *e, size_t nr)
{
	const struct history_config *c = history__config(l->h);
	struct bucket_entry *v;
	struct bucket *b;
	int err = 0;

	l->seg->newest_end = MAX(l->seg->newest_end, hdr->end_ns);
	if (hdr->end_ns + c->span_ns <= l->now || hdr->end_ns > l->now + c->span_ns) {
		l->s->st.skipped_old++;
		return 0;
	}
	if (history__generation(l->h) != l->generation) {
		/* compacted since: ids in the copy map are the old dictionary's */
		dict_import__release(&l->im);
		dict_import__init(&l->im, l->tmp, history__dict(l->h));
		l->generation = history__generation(l->h);
	}
	v = malloc((nr + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < nr && !err; i++) {
		int64_t t = dict_import__task(&l->im, e[i].task), st = t < 0 ? t : dict_import__stack(&l->im, e[i].stack);

		err = st < 0 ? (int)st : 0;
		v[i] = (struct bucket_entry){ (uint32_t)t, (uint32_t)st, e[i].samples, e[i].period };
	}
	b = err ? NULL : bucket__new(hdr, v, nr, history__dict(l->h));
	free(v);
	if (!b)
		return -ENOMEM;
	b->persisted = true;
	l->s->st.loaded++;
	return history__add_coarse(l->h, b);
}

static void note_corrupt(struct store *s, const char *name, const char *why, size_t off)
{
	s->st.corrupt++;
	snprintf(s->st.last_corrupt, sizeof(s->st.last_corrupt), "%s: offset %zu: %s", name, off, why);
}

/* One segment's records, up to the first bad one. */
static int load_records(struct loading *l, const char *name, const uint8_t *p, size_t len)
{
	const struct history_config *c = history__config(l->h);
	struct snap_reader r;
	struct snap_record rec;
	char v[64];
	int n, err = 0;
	bool first = true;

	snap_reader__init(&r, p, len, l->tmp);
	while (!err && (n = snapshot__next(&r, &rec)) > 0) {
		if (first && (rec.type != SNAP_SEG || !snapshot__text_value(rec.text, rec.len, "magic", v, sizeof(v)) ||
			      (strcmp(v, SEG_MAGIC) && strcmp(v, SEG_MAGIC_V2) && strcmp(v, SEG_MAGIC_V1)) || !snapshot__text_value(rec.text, rec.len, "bucket_ns", v, sizeof(v)) ||
			      strtoull(v, NULL, 10) != c->bucket_ns)) {
			l->s->st.refused++;     /* another format, or another bucket size */
			break;
		}
		first = false;
		if (rec.type == SNAP_BUCKET)
			err = load_bucket(l, &rec.bucket, r.entries, r.nr_entries);
	}
	if (n < 0 && n != -ENOMEM)
		note_corrupt(l->s, name, r.msg, r.off);
	snap_reader__release(&r);
	return err ? err : n == -ENOMEM ? n : 0;
}

static int load_segment(struct loading *l)
{
	char name[32];
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *buf = NULL;
	struct stat st;
	ssize_t n;
	int err;

	seg_name(l->seg->seq, name, sizeof(name));
	fd = openat(l->s->dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !ours(&st)) {
		l->s->st.refused++;
		return 0;
	}
	n = read_fd_full(fd, SEG_READ_MAX, &buf);
	if (n < 0) {
		note_corrupt(l->s, name, strerror((int)-n), 0);
		return 0;
	}
	l->tmp = dict__new();
	if (!l->tmp)
		return -ENOMEM;
	dict_import__init(&l->im, l->tmp, history__dict(l->h));
	l->generation = history__generation(l->h);
	err = load_records(l, name, (const uint8_t *)buf, (size_t)n);
	dict_import__release(&l->im);
	l->tmp = dict__free(l->tmp);
	return err;
}

int store__load(struct store *s, struct history *h, uint64_t now)
{
	struct loading l = { .s = s, .h = h, .now = now };
	int err = 0;

	history__lock(h);
	for (size_t i = 0; i < s->nr_segs && !err; i++) {
		l.seg = &s->segs[i];
		err = load_segment(&l);
	}
	history__unlock(h);
	return err;
}

/* ---- writing ------------------------------------------------------------------------ */

static int open_segment(struct store *s, struct history *h, uint64_t now, struct snap_out *o)
{
	char name[32], text[512];
	int len;

	seg_name(s->next_seq, name, sizeof(name));
	s->fd = openat(s->dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (s->fd < 0)
		return -errno;
	s->seg_dict = dict__new();
	if (!s->seg_dict || VEC_RESERVE(s->segs, s->cap_segs, s->nr_segs + 1) < 0) {
		close_segment(s);
		unlinkat(s->dirfd, name, 0);
		return -ENOMEM;
	}
	s->segs[s->nr_segs++] = (struct seg){ .seq = s->next_seq++ };
	dict_import__init(&s->im, history__dict(h), s->seg_dict);
	s->cur = (struct snap_cursor){ 0 };
	s->created_ns = now;
	s->generation = history__generation(h);
	len = snprintf(text, sizeof(text), "magic %s\nbucket_ns %" PRIu64 "\nfine_ns %" PRIu64 "\ncreated %" PRIu64
		       "\nhost %.200s\n", SEG_MAGIC, history__config(h)->bucket_ns, history__config(h)->fine_ns, now,
		       s->c.host ? s->c.host : "");
	snapshot__put_text(o, SNAP_SEG, text, (size_t)len);
	/* the new name must survive a crash too */
	fsync(s->dirfd);
	return 0;
}

static bool segment_done(const struct store *s, struct history *h, uint64_t now)
{
	uint64_t max = MIN(s->c.segment_bytes, MAX(s->c.disk_max / 4, (uint64_t)4096));

	return s->nr_segs && (s->segs[s->nr_segs - 1].bytes >= max || now - s->created_ns >= s->c.segment_ns ||
			      history__generation(h) != s->generation);
}

/* One bucket into o, with the items it names that the segment lacks. */
static int put_bucket(struct store *s, const struct bucket *b, struct snap_out *o)
{
	struct bucket_entry *v = malloc((b->nr + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < b->nr; i++) {
		int64_t t = dict_import__task(&s->im, b->e[i].task);
		int64_t st = t < 0 ? t : dict_import__stack(&s->im, b->e[i].stack);

		if (st < 0) {
			free(v);
			return (int)st;
		}
		v[i] = (struct bucket_entry){ (uint32_t)t, (uint32_t)st, b->e[i].samples, b->e[i].period };
	}
	snapshot__put_items(o, s->seg_dict, &s->cur);
	snapshot__put_bucket(o, &b->h, v, b->nr);
	free(v);
	return o->err;
}

/* Copy the unwritten buckets into o (under the readers' lock).  The first one's start. */
static int collect(struct store *s, struct history *h, uint64_t now, struct snap_out *o, uint64_t *first,
		   uint64_t *newest, size_t *nr)
{
	int err = 0;

	if (s->fd >= 0 && segment_done(s, h, now))
		close_segment(s);
	for (size_t i = 0; i < history__nr(h, false) && !err; i++) {
		struct bucket *b = history__at(h, false, i);

		if (b->persisted)
			continue;
		if (s->fd < 0 && (err = open_segment(s, h, now, o)) < 0)
			break;
		if (!*nr)
			*first = b->h.start_ns;
		err = put_bucket(s, b, o);
		b->persisted = true;
		*newest = MAX(*newest, b->h.end_ns);
		++*nr;
	}
	return err;
}

/* A write failed: cut it off, close the segment, and have the buckets written again. */
static int undo(struct store *s, struct history *h, uint64_t first, uint64_t old_bytes, int err)
{
	struct seg *cur = &s->segs[s->nr_segs - 1];

	if (s->fd >= 0 && ftruncate(s->fd, (off_t)old_bytes) == 0)
		cur->bytes = old_bytes;
	close_segment(s);
	history__rlock(h);
	for (size_t i = 0; i < history__nr(h, false); i++)
		if (history__at(h, false, i)->h.start_ns >= first)
			history__at(h, false, i)->persisted = false;
	history__runlock(h);
	s->st.write_errors++;
	s->st.last_errno = -err;
	return err;
}

static void prune(struct store *s, uint64_t now, uint64_t span)
{
	uint64_t total = 0;
	size_t keep_from = 0;
	char name[32];

	for (size_t i = 0; i < s->nr_segs; i++)
		total += s->segs[i].bytes;
	/* never the one being written (the last) */
	while (keep_from + 1 < s->nr_segs) {
		const struct seg *g = &s->segs[keep_from];
		bool old = g->newest_end + span <= now, big = total > s->c.disk_max;

		if (!old && !big)
			break;
		seg_name(g->seq, name, sizeof(name));
		unlinkat(s->dirfd, name, 0);
		*(old ? &s->st.removed : &s->st.disk_evicted) += 1;
		total -= g->bytes;
		keep_from++;
	}
	memmove(s->segs, s->segs + keep_from, (s->nr_segs - keep_from) * sizeof(*s->segs));
	s->nr_segs -= keep_from;
}

int store__write(struct store *s, struct history *h, uint64_t now)
{
	struct snap_out o = { 0 };
	uint64_t first = 0, newest = 0, old_bytes;
	size_t nr = 0, len;
	int err;

	history__rlock(h);
	err = collect(s, h, now, &o, &first, &newest, &nr);
	history__runlock(h);
	old_bytes = s->nr_segs ? s->segs[s->nr_segs - 1].bytes : 0;
	if (!err && o.len) {
		err = write_full(s->fd, o.p, o.len);
		if (!err && s->c.fsync && fdatasync(s->fd) < 0)
			err = -errno;
	}
	len = o.len;
	snap_out__release(&o);
	if (err < 0) {
		s->st.last_error_ns = now;
		if (nr)
			return undo(s, h, first, old_bytes, err);
		s->st.write_errors++;
		s->st.last_errno = -err;
		return err;
	}
	if (len) {
		s->segs[s->nr_segs - 1].bytes += len;
		s->segs[s->nr_segs - 1].newest_end = MAX(s->segs[s->nr_segs - 1].newest_end, newest);
		s->st.written += nr;
	}
	prune(s, now, history__config(h)->span_ns);
	return (int)nr;
}
