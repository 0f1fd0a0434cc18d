/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>

#include "prof/base/hash.h"
#include "prof/base/util.h"
#include "prof/perfdata/build_id.h"
#include "prof/perfdata/build_id_cache.h"
#include "prof/perfdata/perf_data.h"
#include "prof/perfdata/vdso.h"
#include "prof/sys/privs.h"

/* The walk that measures the cache stops here and calls it full: a cache this big
 * is past any limit that makes sense. */
#define WALK_MAX_ENTRIES 1000000u
#define WALK_MAX_DEPTH 64

struct build_id_cache {
	char *dir;
	struct build_id_cache_limits limits;
	uint64_t added;                 /* bytes copied in by this object */
	uint64_t size;                  /* bytes of the cache's files, once walked */
	bool size_known;
	bool walked;                    /* ... by this object (not from SIZE_STATE) */
	bool state_ok;                  /* SIZE_STATE is size as of fp: kept up to date */
	uint64_t fp;                    /* links_fingerprint when size was last right */
	unsigned int walks;
};

/*
 * The cache's size kept between recordings, so that a recording's first copy does
 * not walk the whole cache (~/.debug of a few GB: thousands of directories, a
 * fifth of a busy recording's first seconds).  DIR/SIZE_STATE holds the bytes of
 * the cache's regular files and a fingerprint of its .build-id directories (each
 * one's name, inode and mtime): every entry perf or prof adds makes a link there,
 * so a fingerprint that differs says something was added since, and the cache is
 * walked again.  prof's own adds update the file (under its flock) when the
 * fingerprint just before the link is the one the file holds; otherwise it is
 * removed.  Removals by others only make the figure high: a cache that looks full
 * is walked before an object is refused.  Older than SIZE_STATE_MAX_AGE, it is not
 * trusted at all (an add within the same clock tick as prof's own, which leaves a
 * directory's mtime as it was, is seen by then at the latest).
 */
#define SIZE_STATE ".prof-cache-size"
#define SIZE_STATE_MAX_AGE (24 * 3600)

int build_id_cache__default_dir(char *buf, size_t len)
{
	const char *home = getenv("HOME");
	struct passwd pw, *res = NULL;
	char pwbuf[4096];
	int n;

	if (!home || home[0] != '/') {
		if (getpwuid_r(getuid(), &pw, pwbuf, sizeof(pwbuf), &res) != 0 || !res || !res->pw_dir ||
		    res->pw_dir[0] != '/')
			return -ENOENT;
		home = res->pw_dir;
	}
	n = snprintf(buf, len, "%s/.debug", strcmp(home, "/") ? home : "");
	return n > 0 && (size_t)n < len ? 0 : -ENAMETOOLONG;
}

/* DIR/.build-id/xx/yyyy/base */
static bool entry_path(const char *dir, const struct build_id *b, const char *base, char *buf, size_t len)
{
	char hex[2 * BUILD_ID_MAX + 1];
	int n;

	if (!b->size)
		return false;
	build_id__hex(b, hex, sizeof(hex));
	n = snprintf(buf, len, "%s/.build-id/%.2s/%s/%s", dir, hex, hex + 2, base);
	return n > 0 && (size_t)n < len;
}

bool build_id_cache__elf_path(const char *dir, const struct build_id *b, char *buf, size_t len)
{
	return entry_path(dir, b, "elf", buf, len);
}

bool build_id_cache__vdso_path(const char *dir, const struct build_id *b, char *buf, size_t len)
{
	return entry_path(dir, b, "vdso", buf, len);
}

int build_id_cache__new(const char *dir, const struct build_id_cache_limits *l, struct build_id_cache **ret)
{
	struct build_id_cache *c;

	if (!dir || dir[0] != '/' || strlen(dir) > PATH_MAX / 2)
		return -ENAMETOOLONG;
	c = calloc(1, sizeof(*c));
	if (!c || !(c->dir = strdup(dir))) {
		free(c);
		return -ENOMEM;
	}
	c->limits = *l;
	*ret = c;
	return 0;
}

struct build_id_cache *build_id_cache__free(struct build_id_cache *c)
{
	if (c) {
		free(c->dir);
		free(c);
	}
	return NULL;
}

uint64_t build_id_cache__added(const struct build_id_cache *c)
{
	return c->added;
}

const char *build_id_cache__dir(const struct build_id_cache *c)
{
	return c->dir;
}

unsigned int build_id_cache__walks(const struct build_id_cache *c)
{
	return c->walks;
}

/* The cache-relative directory of path's objects: no leading '/', no " (deleted)",
 * and no empty, "." or ".." component (a mapped file's path has none).  0 or -EINVAL. */
static int relative_dir(const char *path, char *buf, size_t len)
{
	size_t n = strlen(path);

	if (path[0] != '/')
		return -EINVAL;
	if (n > 10 && !strcmp(path + n - 10, " (deleted)"))
		n -= 10;
	if (n < 2 || n >= len)
		return -EINVAL;
	memcpy(buf, path + 1, n - 1);
	buf[n - 1] = '\0';
	for (const char *c = buf;; c++) {
		size_t k = strcspn(c, "/");

		if (k == 0 || (k == 1 && c[0] == '.') || (k == 2 && c[0] == '.' && c[1] == '.'))
			return -EINVAL;
		c += k;
		if (!*c)
			return 0;
	}
}

/* Each component of rel under dirfd made (0700) if missing and entered without
 * following a symlink.  The last directory's fd, or -errno. */
static int mkdirs_at(int dirfd, const char *rel)
{
	char part[NAME_MAX + 1];
	int fd = dup(dirfd);

	if (fd < 0)
		return -errno;
	for (const char *c = rel; *c;) {
		size_t k = strcspn(c, "/");
		int next;

		if (k > NAME_MAX) {
			close(fd);
			return -ENAMETOOLONG;
		}
		memcpy(part, c, k);
		part[k] = '\0';
		if (mkdirat(fd, part, 0700) < 0 && errno != EEXIST) {
			int e = errno;
			close(fd);
			return -e;
		}
		next = openat(fd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		if (next < 0)
			return -errno;
		fd = next;
		c += k + (c[k] == '/');
	}
	return fd;
}

/* The bytes of the regular files under dirfd (owned by the caller), into *size,
 * a file with several links once; false when the walk was cut (too many entries,
 * too deep). */
static bool walk_size(int dirfd, int depth, uint64_t *size, uint64_t *entries)
{
	DIR *d = fdopendir(dirfd);
	struct dirent *e;
	bool whole = true;

	if (!d) {
		close(dirfd);
		return true;            /* unreadable: nothing of it counts */
	}
	while (whole && (e = readdir(d))) {
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (++*entries > WALK_MAX_ENTRIES)
			whole = false;
		else if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		else if (S_ISREG(st.st_mode))
			/* an object kept at several paths is hard links to one file (link_entry):
			 * each link counts its share, so the file counts once */
			*size += (uint64_t)st.st_size / (st.st_nlink ? st.st_nlink : 1);
		else if (S_ISDIR(st.st_mode)) {
			int sub = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (sub >= 0)
				whole = depth < WALK_MAX_DEPTH && walk_size(sub, depth + 1, size, entries);
		}
	}
	closedir(d);
	return whole;
}

/* What is at name under dirfd: the object with build id b (PRESENT), another file
 * (CONFLICT), or -ENOENT. */
static int existing(int dirfd, const char *name, const struct build_id *b)
{
	_cleanup_close_ int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct build_id have;
	struct stat st;

	if (fd < 0)
		return errno == ENOENT ? -ENOENT : BUILD_ID_CACHE_CONFLICT;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || build_id__read_elf(fd, &have) < 0 ||
	    have.size != b->size || memcmp(have.data, b->data, b->size))
		return BUILD_ID_CACHE_CONFLICT;
	return BUILD_ID_CACHE_PRESENT;
}

/* A new unnamed file in dirfd, or a named one (its name in tmp) where the file
 * system has no O_TMPFILE.  The fd, or -errno. */
static int temp_file(int dirfd, char *tmp, size_t len)
{
	int fd = openat(dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	tmp[0] = '\0';
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR))
		return fd < 0 ? -errno : fd;
	snprintf(tmp, len, "elf.prof-%d", (int)getpid());
	fd = openat(dirfd, tmp, O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0600);
	return fd < 0 ? -errno : fd;
}

/* size bytes of src into out, then out's build id must be b.  0, 1 (changed), -errno. */
static int copy_checked(int src, int out, uint64_t size, const struct build_id *b)
{
	struct build_id got;
	off_t off = 0;

	while ((uint64_t)off < size) {
		ssize_t n = sendfile(out, src, &off, (size_t)MIN(size - (uint64_t)off, (uint64_t)1 << 30));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 1;       /* shorter than it was */
	}
	if (build_id__read_elf(out, &got) < 0 || got.size != b->size || memcmp(got.data, b->data, b->size))
		return 1;
	return 0;
}

/* The copy of src linked into entry as base ("elf", "vdso"), never over a file there.
 * A result or -errno. */
static int put_elf(int entry, const char *base, int src, uint64_t size, const struct build_id *b)
{
	char tmp[64], proc[64];
	_cleanup_close_ int out = temp_file(entry, tmp, sizeof(tmp));
	int r;

	if (out < 0)
		return out;
	r = copy_checked(src, out, size, b);
	if (r == 0 && !tmp[0]) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", out);
		r = linkat(AT_FDCWD, proc, entry, base, AT_SYMLINK_FOLLOW) < 0 ? -errno : 0;
	} else if (r == 0) {
		r = linkat(entry, tmp, entry, base, 0) < 0 ? -errno : 0;
	}
	if (tmp[0])
		unlinkat(entry, tmp, 0);
	if (r == -EEXIST)
		return existing(entry, base, b);        /* another prof got there first */
	return r < 0 ? r : r == 1 ? BUILD_ID_CACHE_CHANGED : BUILD_ID_CACHE_KEPT;
}

/* .build-id/xx/yyyy -> ../../rel/hex, made or (dangling) replaced.  0 or -errno. */
static int put_link(int top, const char *rel, const char *hex)
{
	char sub[16], target[PATH_MAX], tmp[64];
	_cleanup_close_ int dir = -1;
	struct stat st;

	if (snprintf(target, sizeof(target), "../../%s/%s", rel, hex) >= (int)sizeof(target))
		return -ENAMETOOLONG;
	snprintf(sub, sizeof(sub), ".build-id/%.2s", hex);
	dir = mkdirs_at(top, sub);
	if (dir < 0)
		return dir;
	if (symlinkat(target, dir, hex + 2) == 0)
		return 0;
	if (errno != EEXIST)
		return -errno;
	if (fstatat(dir, hex + 2, &st, 0) == 0)
		return 0;               /* a live entry of that build id: left as it is */
	/* dangling: replaced by ours through a rename, which replaces only the link */
	snprintf(tmp, sizeof(tmp), ".prof-%d", (int)getpid());
	if (symlinkat(target, dir, tmp) < 0)
		return -errno;
	if (renameat(dir, tmp, dir, hex + 2) < 0) {
		int e = errno;
		unlinkat(dir, tmp, 0);
		return -e;
	}
	return 0;
}

struct add_call {
	struct build_id_cache *c;
	int fd;
	const char *path;               /* NULL: the vDSO's entry */
	const char *base;               /* "elf", "vdso", "debug" */
	const struct build_id *b;
	uint64_t size;
	enum build_id_cache_result result;
};

static uint64_t stat_hash(const char *name, const struct stat *st)
{
	uint64_t h = hash__u64((uint64_t)st->st_ino);

	for (const char *p = name; *p; p++)
		h = hash__mix(h, (uint8_t)*p);
	h = hash__mix(h, (uint64_t)st->st_mtim.tv_sec);
	return hash__mix(h, (uint64_t)st->st_mtim.tv_nsec);
}

/* .build-id's and each of its directories' name, inode and mtime hashed (their sum:
 * the order readdir gives does not matter); 0 without .build-id, 1 when it could not
 * be read (a fingerprint no state holds). */
static uint64_t links_fingerprint(int top)
{
	int fd = openat(top, ".build-id", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct dirent *e;
	struct stat st;
	uint64_t fp;
	DIR *d;

	if (fd < 0)
		return errno == ENOENT ? 0 : 1;
	if (fstat(fd, &st) < 0 || !(d = fdopendir(fd))) {
		close(fd);
		return 1;
	}
	fp = stat_hash(".build-id", &st);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			fp += stat_hash(e->d_name, &st);
	closedir(d);
	return fp | 2;
}

/* The size SIZE_STATE holds for fingerprint fp, if it is the user's own recent file
 * for that fingerprint.  0 or -ENOENT (walk). */
static int state_read(int top, uint64_t fp, uint64_t *ret_size)
{
	_cleanup_close_ int fd = openat(top, SIZE_STATE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	unsigned long long size, have, when;
	char buf[128];
	struct stat st;
	ssize_t n;

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid())
		return -ENOENT;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return -ENOENT;
	buf[n] = '\0';
	if (sscanf(buf, "prof-cache-size 1 %llu %llx %llu", &size, &have, &when) != 3 || have != fp ||
	    (uint64_t)time(NULL) - when > SIZE_STATE_MAX_AGE)
		return -ENOENT;
	*ret_size = size;
	return 0;
}

/* SIZE_STATE written anew (a temporary file renamed over it): size as of fp.  Best
 * effort (without it the next recording walks). */
static void state_write(int top, uint64_t size, uint64_t fp)
{
	char tmp[64], buf[128];
	int fd, n;

	snprintf(tmp, sizeof(tmp), "%s.%d", SIZE_STATE, (int)getpid());
	fd = openat(top, tmp, O_CREAT | O_TRUNC | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	n = snprintf(buf, sizeof(buf), "prof-cache-size 1 %llu %llx %llu\n", (unsigned long long)size,
		     (unsigned long long)fp, (unsigned long long)time(NULL));
	if (write(fd, buf, (size_t)n) != n || close(fd) < 0 || renameat(top, tmp, top, SIZE_STATE) < 0)
		unlinkat(top, tmp, 0);
}

/* The cache walked: c->size, and SIZE_STATE for the next recordings. */
static void size_walk(struct build_id_cache *c, int top)
{
	uint64_t entries = 0, fp = links_fingerprint(top);     /* before: a change during the walk shows */
	int fd = dup(top);

	c->size = 0;
	if (fd >= 0 && !walk_size(fd, 0, &c->size, &entries))
		c->size = UINT64_MAX;
	c->size_known = c->walked = true;
	c->walks++;
	c->fp = fp;
	c->state_ok = c->size != UINT64_MAX && fp != 1;
	if (c->state_ok)
		state_write(top, c->size, fp);
}

/*
 * Before prof's own .build-id link: whether SIZE_STATE may follow it (nothing else
 * changed the links since the figure was right; the file is locked until
 * state_after, whose fd this is), else -1 and the file removed.
 */
static int state_before(struct build_id_cache *c, int top)
{
	int fd;

	if (!c->state_ok)
		return -1;
	fd = openat(top, SIZE_STATE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd >= 0 && flock(fd, LOCK_EX) == 0 && links_fingerprint(top) == c->fp)
		return fd;
	if (fd >= 0)
		close(fd);
	c->state_ok = false;
	unlinkat(top, SIZE_STATE, 0);
	return -1;
}

static void state_after(struct build_id_cache *c, int top, int fd)
{
	if (fd < 0)
		return;
	c->fp = links_fingerprint(top);
	state_write(top, c->size, c->fp);
	close(fd);
}

/* The limits, before anything is written: a result, or -1 when there is room. */
static int over_limits(struct build_id_cache *c, int top, uint64_t size)
{
	if (size > c->limits.object_max)
		return BUILD_ID_CACHE_TOO_BIG;
	if (c->added + size > c->limits.recording_max)
		return BUILD_ID_CACHE_RECORDING_FULL;
	if (!c->size_known) {
		c->fp = links_fingerprint(top);
		c->size_known = c->state_ok = state_read(top, c->fp, &c->size) == 0;
		if (!c->size_known)
			size_walk(c, top);
	}
	if (c->size > c->limits.cache_max || size > c->limits.cache_max - c->size) {
		if (c->walked)
			return BUILD_ID_CACHE_FULL;
		size_walk(c, top);      /* a figure kept from before: made sure of */
		return over_limits(c, top, size);
	}
	return -1;
}

/* rel/hex/base made a hard link to the cache's link (.build-id/xx/yyyy/base, our
 * object) if nothing is there: readers that look an object up by its path and
 * build id (hotspot's perfparser: DIR/PATH/HEX/elf under each debug directory)
 * find it at each path it was mapped at (one library built twice at two places
 * has one build id), not only at the first.  PRESENT (there now, or another file
 * left alone), 1 when the link could not be made, -errno. */
static int link_entry(int top, const char *rel, const char *link, const char *base, const struct build_id *b)
{
	_cleanup_close_ int entry = mkdirs_at(top, rel);

	if (entry < 0)
		return entry;
	if (existing(entry, base, b) != -ENOENT)
		return BUILD_ID_CACHE_PRESENT;  /* ours, or another file left alone */
	if (linkat(top, link, entry, base, 0) < 0 && errno != EEXIST)
		return 1;
	return BUILD_ID_CACHE_PRESENT;
}

static int do_add(void *arg)
{
	struct add_call *a = arg;
	char rel[PATH_MAX], hex[2 * BUILD_ID_MAX + 1], link[PATH_MAX];
	_cleanup_close_ int top = -1, entry = -1;
	const char *base = a->base;
	int r, state;

	if (!a->path)
		snprintf(rel, sizeof(rel), "%s", VDSO_NAME);    /* perf's layout: no leading '/' */
	else if (relative_dir(a->path, rel, sizeof(rel) - sizeof(hex) - 1) < 0)
		return -EINVAL;
	build_id__hex(a->b, hex, sizeof(hex));
	if (mkdir(a->c->dir, 0700) < 0 && errno != EEXIST)
		return -errno;
	top = open(a->c->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (top < 0)
		return -errno;
	snprintf(link, sizeof(link), ".build-id/%.2s/%s/%s", hex, hex + 2, base);
	snprintf(rel + strlen(rel), sizeof(rel) - strlen(rel), "/%s", hex);
	r = existing(top, link, a->b);
	if (r == BUILD_ID_CACHE_PRESENT)
		link_entry(top, rel, link, base, a->b);         /* best effort: perf needs only the link */
	else if (r < 0)
		r = over_limits(a->c, top, a->size);
	if (r >= 0) {
		a->result = (enum build_id_cache_result)r;
		return 0;
	}
	entry = mkdirs_at(top, rel);
	if (entry < 0)
		return entry;
	r = existing(entry, base, a->b);
	if (r == -ENOENT)
		r = put_elf(entry, base, a->fd, a->size, a->b);
	if (r < 0)
		return r;
	a->result = (enum build_id_cache_result)r;
	if (r == BUILD_ID_CACHE_KEPT) {
		a->c->added += a->size;
		a->c->size += a->size;
	}
	if (r != BUILD_ID_CACHE_KEPT && r != BUILD_ID_CACHE_PRESENT)
		return 0;
	*strrchr(rel, '/') = '\0';
	state = state_before(a->c, top);        /* (PRESENT: a link may be made too) */
	r = put_link(top, rel, hex);
	state_after(a->c, top, state);
	return r;
}

/* One object (path NULL: the vDSO's entry) kept as base, as the invoking user. */
static int add_as_user(struct build_id_cache *c, int fd, const char *path, const char *base,
		       const struct build_id *b, uint64_t size, enum build_id_cache_result *ret)
{
	struct add_call a = { .c = c, .fd = fd, .path = path, .base = base, .b = b, .size = size };
	int r;

	if (!b->size)
		return -EINVAL;
	r = privs__as_user(do_add, &a);
	if (r == 0)
		*ret = a.result;
	return r;
}

int build_id_cache__add(struct build_id_cache *c, int fd, const char *path, const struct build_id *b,
			uint64_t size, enum build_id_cache_result *ret)
{
	return path ? add_as_user(c, fd, path, "elf", b, size, ret) : -EINVAL;
}

int build_id_cache__add_vdso(struct build_id_cache *c, int fd, const struct build_id *b, uint64_t size,
			     enum build_id_cache_result *ret)
{
	return add_as_user(c, fd, NULL, "vdso", b, size, ret);
}

int build_id_cache__add_debug(struct build_id_cache *c, int fd, const char *path, const struct build_id *b,
			      uint64_t size, enum build_id_cache_result *ret)
{
	return path ? add_as_user(c, fd, path, "debug", b, size, ret) : -EINVAL;
}

struct paths_call {
	struct build_id_cache *c;
	const uint8_t *p, *end;
	size_t linked;
};

static int do_add_paths(void *arg)
{
	struct paths_call *pc = arg;
	_cleanup_close_ int top = open(pc->c->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct perf_record_header_build_id e;

	if (top < 0)
		return errno == ENOENT ? 0 : -errno;
	for (const uint8_t *p = pc->p; (size_t)(pc->end - p) > sizeof(e); p += e.header.size) {
		char rel[PATH_MAX], hex[2 * BUILD_ID_MAX + 1], link[PATH_MAX];
		const char *path = (const char *)p + sizeof(e);
		struct build_id b;
		size_t max;

		memcpy(&e, p, sizeof(e));
		if (e.header.size <= sizeof(e) || e.header.size > (size_t)(pc->end - p))
			break;
		max = e.header.size - sizeof(e);
		b.size = (e.header.misc & PERF_RECORD_MISC_BUILD_ID_SIZE) ? e.size : 20;
		if (strnlen(path, max) == max || !b.size || b.size > BUILD_ID_MAX || path[0] != '/' ||
		    relative_dir(path, rel, sizeof(rel) - sizeof(hex) - 1) < 0)
			continue;       /* the kernel's, the vDSO's: no path */
		memcpy(b.data, e.data, b.size);
		build_id__hex(&b, hex, sizeof(hex));
		snprintf(link, sizeof(link), ".build-id/%.2s/%s/elf", hex, hex + 2);
		if (existing(top, link, &b) != BUILD_ID_CACHE_PRESENT)
			continue;       /* not kept: readers find it at its path, as perf does */
		snprintf(rel + strlen(rel), sizeof(rel) - strlen(rel), "/%s", hex);
		if (link_entry(top, rel, link, "elf", &b) == BUILD_ID_CACHE_PRESENT)
			pc->linked++;
	}
	return 0;
}

int build_id_cache__add_paths(struct build_id_cache *c, const void *build_ids, size_t len, size_t *ret_linked)
{
	struct paths_call pc = { .c = c, .p = build_ids, .end = (const uint8_t *)build_ids + len };
	int r = privs__as_user(do_add_paths, &pc);

	if (r == 0 && ret_linked)
		*ret_linked = pc.linked;
	return r;
}

struct has_call {
	const struct build_id_cache *c;
	const struct build_id *b;
	const char *base;               /* "elf", "debug" */
};

static int do_has(void *arg)
{
	const struct has_call *h = arg;
	char path[PATH_MAX];
	struct stat st;

	if (!build_id_cache__elf_path(h->c->dir, h->b, path, sizeof(path)) ||
	    strlen(path) - 3 + strlen(h->base) >= sizeof(path))
		return 0;
	strcpy(strrchr(path, '/') + 1, h->base);
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool build_id_cache__has(struct build_id_cache *c, const struct build_id *b)
{
	return privs__as_user(do_has, &(struct has_call){ c, b, "elf" }) == 1;
}

void build_id_cache__each_object(const void *build_ids, size_t len,
				 void (*fn)(const char *path, const struct build_id *b, void *ctx), void *ctx)
{
	const uint8_t *p = build_ids, *end = p + len;
	struct perf_record_header_build_id e;

	for (; (size_t)(end - p) > sizeof(e); p += e.header.size) {
		const char *path = (const char *)p + sizeof(e);
		struct build_id b;
		size_t max;

		memcpy(&e, p, sizeof(e));
		if (e.header.size <= sizeof(e) || e.header.size > (size_t)(end - p))
			break;
		max = e.header.size - sizeof(e);
		b.size = (e.header.misc & PERF_RECORD_MISC_BUILD_ID_SIZE) ? e.size : 20;
		if (strnlen(path, max) == max || !b.size || b.size > BUILD_ID_MAX || path[0] != '/')
			continue;       /* the kernel's, the vDSO's */
		memcpy(b.data, e.data, b.size);
		fn(path, &b, ctx);
	}
}

static int open_as_user(void *arg)
{
	int fd = open(arg, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	return fd < 0 ? -errno : fd;
}

int build_id_cache__open_object(const struct build_id_cache *c, const char *path, const struct build_id *b)
{
	char cached[PATH_MAX];
	const char *at[2] = { NULL, path };

	if (c && build_id_cache__elf_path(c->dir, b, cached, sizeof(cached)))
		at[0] = cached;
	for (int i = 0; i < 2; i++) {
		struct build_id got;
		struct stat st;
		int fd = at[i] ? privs__as_user(open_as_user, (void *)at[i]) : -ENOENT;

		if (fd < 0)
			continue;
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && build_id__read_elf(fd, &got) == 0 &&
		    got.size == b->size && !memcmp(got.data, b->data, b->size))
			return fd;
		close(fd);
	}
	return -ENOENT;
}

bool build_id_cache__has_debug(struct build_id_cache *c, const struct build_id *b)
{
	return privs__as_user(do_has, &(struct has_call){ c, b, "debug" }) == 1;
}
