/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "prof/perfdata/build_id.h"
#include "prof/perfdata/build_id_cache.h"
#include "prof/perfdata/vdso.h"
#include "prof/base/hash.h"
#include "prof/base/hashtable.h"
#include "prof/base/strset.h"
#include "prof/base/vec.h"
#include "prof/analyze/debuginfo_find.h"
#include "prof/analyze/debuginfod_worker.h"
#include "prof/analyze/elf_funcs.h"
#include "prof/analyze/gopclntab.h"
#include "prof/analyze/kallsyms.h"
#include "prof/analyze/symbols.h"
#include "prof/base/util.h"
#include "prof/sys/privs.h"
#include "symbols_impl.h"

/* The key of an entry: a path, and the build id the mapping's record carries. */
struct dso_key {
	const char *path;
	const uint8_t *bid;
	size_t bid_len;
};

static bool dso_eq(const void *e, const void *key, const void *ctx)
{
	const struct dso_entry *d = &((const struct symbols *)ctx)->dsos[*(const uint32_t *)e];
	const struct dso_key *k = key;

	return d->bid_len == k->bid_len && (!k->bid_len || !memcmp(d->bid, k->bid, k->bid_len)) &&
	       !strcmp(d->path, k->path);
}

static uint64_t dso_hash(const struct dso_key *k)
{
	uint64_t h = hash__bytes(k->path, strlen(k->path));

	return k->bid_len ? hash__mix(h, hash__bytes(k->bid, k->bid_len)) : h;
}

struct symbols *symbols__new(void)
{
	struct symbols *s = calloc(1, sizeof(struct symbols));

	if (!s)
		return NULL;
	hashtable__init(&s->dso_index, sizeof(uint32_t), dso_eq, s);
	s->own_vdso.fd = -1;
	if (build_id_cache__default_dir(s->cache_dir, sizeof(s->cache_dir)) < 0)
		s->cache_dir[0] = '\0';
	debuginfo_find__init(&s->dbg, s->cache_dir);
	return s;
}

struct symbols *symbols__free(struct symbols *s)
{
	if (!s)
		return NULL;
	for (size_t i = 0; i < s->nr_dsos; i++) {
		free(s->dsos[i].path);
		free(s->dsos[i].loads);
		free(s->dsos[i].syms);
		gopclntab__free(s->dsos[i].go);
		free(s->dsos[i].raw);
		hashtable__release(&s->dsos[i].inl);
		free(s->dsos[i].inl_names);
		if (s->dsos[i].dwfl)
			dwfl_end(s->dsos[i].dwfl);
	}
	free(s->dsos);
	if (s->own_vdso.fd >= 0)
		close(s->own_vdso.fd);
	hashtable__release(&s->dso_index);
	debuginfo_find__release(&s->dbg);
	kallsyms__free(s->kallsyms);
	strset__release(&s->names);
	free(s);
	return NULL;
}


/*
 * The file's build id (n bytes) is the recorded one: perf files without the size
 * field hold 20 bytes, a shorter id (md5: 16) zero-padded.
 */
static bool same_build_id(const unsigned char *bid, int n, const uint8_t *rec, size_t len)
{
	if (n <= 0 || memcmp(bid, rec, MIN((size_t)n, len)))
		return false;
	for (size_t i = (size_t)n; i < len; i++)
		if (rec[i])
			return false;
	return true;
}

/* The recording's build id for the path: the feature's, else the MMAP2's. */
static void expect(struct dso_entry *d, const uint8_t *bid, size_t len)
{
	len = MIN(len, sizeof(d->expect));
	if (!len)
		return;
	if (!d->expect_len) {
		memcpy(d->expect, bid, len);
		d->expect_len = (uint8_t)len;
	} else if (d->expect_len != len || memcmp(d->expect, bid, len)) {
		d->conflict = true;
	}
}

/* The file opened as the user (see find_debuginfo), handed to libdwfl by fd. */
static int open_object(void *arg)
{
	int fd = open(arg, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	return fd < 0 ? -errno : fd;
}

/* The file open on fd (owned: taken) as d's module (replacing any), file its name;
 * its build id's length, or <= 0. */
static int report_fd(struct symbols *s, struct dso_entry *d, const char *file, int fd,
		     const unsigned char **ret_bid)
{
	GElf_Addr vaddr;
	struct stat st;
	int n;

	*ret_bid = NULL;
	if (d->dwfl)
		dwfl_end(d->dwfl);
	d->mod = NULL;
	d->dwfl = dwfl_begin(&debuginfo_find__callbacks);
	debuginfo_find__attach(&s->dbg, d->dwfl);
	if (!d->dwfl || fd < 0) {
		if (fd >= 0)
			close(fd);
		return d->dwfl ? fd : -ENOMEM;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -ENOENT;
	}
	d->file_dev = st.st_dev;
	d->file_ino = st.st_ino;
	/* libdwfl owns fd from here (it closes it with the Dwfl) */
	d->mod = dwfl_report_offline(d->dwfl, d->path, file, fd);
	dwfl_report_end(d->dwfl, NULL, NULL);
	if (!d->mod)
		return -ENOENT;
	debuginfo_find__module(&s->dbg, d->mod);
	n = dwfl_module_build_id(d->mod, ret_bid, &vaddr);
	d->own_len = n > 0 ? (uint8_t)MIN((size_t)n, sizeof(d->own)) : 0;
	if (d->own_len)
		memcpy(d->own, *ret_bid, d->own_len);
	return n;
}

/* Open file (as the user) as d's module; its build id's length, or <= 0. */
static int report_file(struct symbols *s, struct dso_entry *d, const char *file, const unsigned char **ret_bid)
{
	return report_fd(s, d, file, privs__as_user(open_object, (void *)file), ret_bid);
}

/* perf's build-id cache entry of the expected build id: ~/.debug/.build-id/xx/yyyy/elf. */
static bool cache_path(const struct symbols *s, const struct dso_entry *d, char *buf, size_t len)
{
	struct build_id b = { .size = d->expect_len };

	if (!s->cache_dir[0] || !d->expect_len)
		return false;
	memcpy(b.data, d->expect, d->expect_len);
	return build_id_cache__elf_path(s->cache_dir, &b, buf, len);
}

/*
 * d's file: with a build id to expect, perf's build-id cache first (a copy the
 * recording kept: the container's file, the build that ran), then the path, each
 * only with that build id; without one, the file at the path, which lookups then
 * trust only for the device and inode it has (by_inode).
 */
static void dso_find_file(struct symbols *s, struct dso_entry *d)
{
	const unsigned char *bid = NULL;
	char cached[PATH_MAX];
	bool opened = false;
	int n;

	if (!d->expect_len) {
		d->by_inode = true;
		report_file(s, d, d->path, &bid);
		return;
	}
	if (cache_path(s, d, cached, sizeof(cached))) {
		n = report_file(s, d, cached, &bid);
		if (same_build_id(bid, n, d->expect, d->expect_len))
			return;
		opened = d->mod != NULL;
	}
	n = report_file(s, d, d->path, &bid);
	if (same_build_id(bid, n, d->expect, d->expect_len))
		return;
	/* not the file that was mapped, and no copy of it (or neither could be opened) */
	d->refused = opened || d->mod ? SYMBOLS_REFUSED_MISMATCH : SYMBOLS_REFUSED_MISSING;
	d->found_len = n > 0 ? (uint8_t)MIN((size_t)n, sizeof(d->found)) : 0;
	if (n > 0)
		memcpy(d->found, bid, d->found_len);
	if (d->dwfl)
		dwfl_end(d->dwfl);
	d->dwfl = NULL;
	d->mod = NULL;
}

/* This process's vDSO image, read the first time; NULL when there is none. */
static const struct vdso_image *own_vdso(struct symbols *s)
{
	if (!s->own_vdso_read) {
		s->own_vdso_read = true;
		if (vdso__own(&s->own_vdso) < 0)
			s->own_vdso.fd = -1;
	}
	return s->own_vdso.fd >= 0 ? &s->own_vdso : NULL;
}

/* The entry's file is this process's vDSO image. */
static bool is_own_vdso(const struct symbols *s, const struct dso_entry *d)
{
	struct stat st;

	return d->vdso && s->own_vdso.fd >= 0 && fstat(s->own_vdso.fd, &st) == 0 && st.st_dev == d->file_dev &&
	       st.st_ino == d->file_ino;
}

/*
 * The [vdso] image of the recording's build id: perf's cache entry of it
 * (DIR/.build-id/xx/yyyy/vdso), else this process's own image when it has that
 * build id (the same kernel).  Never an image by another build id, nor any without
 * one to expect (a file of another host and kernel, or one that names none): the
 * samples stay [unknown].
 */
static void vdso_find_file(struct symbols *s, struct dso_entry *d)
{
	struct build_id b = { .size = d->expect_len };
	const struct vdso_image *own;
	const unsigned char *bid = NULL;
	char cached[PATH_MAX];
	int n;

	if (!d->expect_len)
		return;
	memcpy(b.data, d->expect, d->expect_len);
	if (s->cache_dir[0] && build_id_cache__vdso_path(s->cache_dir, &b, cached, sizeof(cached))) {
		n = report_file(s, d, cached, &bid);
		if (same_build_id(bid, n, d->expect, d->expect_len))
			return;
	}
	own = own_vdso(s);
	if (own && own->bid.size == b.size && !memcmp(own->bid.data, b.data, b.size)) {
		snprintf(cached, sizeof(cached), "/proc/self/fd/%d", own->fd);
		n = report_fd(s, d, "[vdso]", open(cached, O_RDONLY | O_CLOEXEC), &bid);
		if (same_build_id(bid, n, d->expect, d->expect_len))
			return;
	}
	d->refused = SYMBOLS_REFUSED_MISSING;
	if (d->dwfl)
		dwfl_end(d->dwfl);
	d->dwfl = NULL;
	d->mod = NULL;
}

/* Lean: d's tables freed and no longer held (read again at its next look-up). */
static void lean_free(struct symbols *s, struct dso_entry *d)
{
	s->held -= d->bytes;
	s->st.objects -= d->bytes != 0;
	free(d->syms);
	free(d->raw);
	free(d->loads);
	d->syms = NULL;
	d->raw = NULL;
	d->loads = NULL;
	d->nr_syms = d->nr_loads = d->bytes = 0;
	d->opened = false;
}

/* Lean: let go of d's symbols past the budget. */
static void lean_evict(struct symbols *s, struct dso_entry *d)
{
	s->st.evicted++;
	s->st.evicted_bytes += d->bytes;
	lean_free(s, d);
}

/*
 * Lean: d's names copied out of the file (which is closed next), its bytes counted,
 * and the least recently used other objects' symbols let go while past the budget.
 */
static void lean_keep(struct symbols *s, struct dso_entry *d)
{
	size_t n = 0, at = 0;

	for (size_t i = 0; i < d->nr_syms; i++)
		n += d->syms[i].named ? 0 : strlen(d->syms[i].name) + 1;
	d->raw = n ? malloc(n) : NULL;
	if (n && !d->raw) {
		free(d->syms);          /* out of memory: no names rather than dangling ones */
		d->syms = NULL;
		d->nr_syms = 0;
	}
	for (size_t i = 0; d->raw && i < d->nr_syms; i++) {
		size_t len;

		if (d->syms[i].named)
			continue;
		len = strlen(d->syms[i].name) + 1;
		memcpy(d->raw + at, d->syms[i].name, len);
		d->syms[i].name = d->raw + at;
		at += len;
	}
	d->bytes = n + d->nr_syms * sizeof(*d->syms) + d->nr_loads * sizeof(*d->loads);
	s->held += d->bytes;
	s->st.objects += d->bytes != 0;
	s->st.loaded++;
	while (s->held > s->budget) {
		struct dso_entry *lru = NULL;

		for (size_t i = 0; i < s->nr_dsos; i++)
			if (&s->dsos[i] != d && s->dsos[i].bytes && (!lru || s->dsos[i].used < lru->used))
				lru = &s->dsos[i];
		if (!lru)
			break;          /* d alone is past it: it stays while it is used */
		lean_evict(s, lru);
	}
}

void symbols__set_lean(struct symbols *s, size_t budget)
{
	s->lean = true;
	s->budget = budget;
}

void symbols__debuginfod_stats(const struct symbols *s, struct debuginfod_stats *ret)
{
	debuginfo_find__stats(&s->dbg, ret);
}

void symbols__set_worker(struct symbols *s, struct debuginfod_worker *w)
{
	s->dbg.worker = w;
}

/* Let go of d's file and symbols: it is read again at its next look-up. */
static void dso_reset(struct symbols *s, struct dso_entry *d)
{
	if (s->lean) {
		lean_free(s, d);        /* not for the budget: read again, named now */
		if (d->dwfl)
			dwfl_end(d->dwfl);
		d->dwfl = NULL;
		d->mod = NULL;
		d->opened = false;
		return;
	}
	free(d->loads);
	free(d->syms);
	gopclntab__free(d->go);
	hashtable__clear(&d->inl);
	d->nr_inl_names = 0;
	if (d->dwfl)
		dwfl_end(d->dwfl);
	d->dwfl = NULL;
	d->mod = NULL;
	d->loads = NULL;
	d->syms = NULL;
	d->go = NULL;
	d->nr_syms = d->nr_loads = 0;
	d->opened = false;
}

struct arrival {
	struct symbols *s;
	bool any;
};

/* A debug file arrived for (bid, len): the objects of that build id read again
 * (len 0: too many arrived to tell, all objects read so far). */
static void arrived(const uint8_t *bid, size_t len, void *ctx)
{
	struct arrival *a = ctx;

	for (size_t i = 0; i < a->s->nr_dsos; i++) {
		struct dso_entry *d = &a->s->dsos[i];

		if (d->opened && (!len || (d->own_len == len && !memcmp(d->own, bid, len)))) {
			dso_reset(a->s, d);
			a->any = true;
		}
	}
}

bool symbols__refresh(struct symbols *s)
{
	struct arrival a = { s, false };

	if (s->dbg.worker)
		debuginfod_worker__arrived(s->dbg.worker, &s->arrived, arrived, &a);
	return a.any;
}

void symbols__stats(const struct symbols *s, struct symbols_stats *ret)
{
	*ret = s->st;
	ret->bytes = s->held;
	ret->names = strset__size(&s->names);
}

static void dso_open(struct symbols *s, struct dso_entry *d)
{
	Elf *elf;
	size_t phnum;

	d->opened = true;
	d->bad = true;
	if (d->bid_len) {
		/* the mapping's own build id: the path's others are not its */
		memcpy(d->expect, d->bid, d->bid_len);
		d->expect_len = d->bid_len;
		d->conflict = false;
	} else if (s->unread_unknown && !d->vdso) {
		d->expect_len = 0;      /* an object the recording could not read */
		d->conflict = false;
	}
	if (d->conflict) {
		/* which of the two files a sample hit is not known: name none */
		d->refused = SYMBOLS_REFUSED_CONFLICT;
		return;
	}
	if (d->vdso)
		vdso_find_file(s, d);
	else
		dso_find_file(s, d);
	if (!d->mod)
		return;
	elf = dwfl_module_getelf(d->mod, &d->bias);
	if (!elf || elf_getphdrnum(elf, &phnum) < 0)
		return;
	d->loads = calloc(phnum ? phnum : 1, sizeof(*d->loads));
	if (!d->loads)
		return;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			d->loads[d->nr_loads++] = ph;
	}
	d->nr_syms = elf_funcs__read(d->mod, &s->names, s->lean, &d->syms);
	d->nr_syms = elf_funcs__add_go(d->mod, &s->names, s->lean, &d->syms, d->nr_syms, s->lean ? NULL : &d->go);
	if (s->lean)
		lean_keep(s, d);
	d->bad = false;
	if (s->lean) {
		/* its symbols are copied out: the file's pages need not stay mapped */
		dwfl_end(d->dwfl);
		d->dwfl = NULL;
		d->mod = NULL;
	}
}

/* The entry of (path, build id), made the first time; NULL on ENOMEM.  Valid until
 * the next one is made. */
static struct dso_entry *dso_get(struct symbols *s, const char *path, const uint8_t *bid, size_t bid_len)
{
	struct dso_key k = { path, bid, bid_len <= 20 ? bid_len : 0 };
	uint64_t h = dso_hash(&k);
	uint32_t *slot = hashtable__find(&s->dso_index, h, &k);
	struct dso_entry *d;
	bool created;

	if (slot)
		return &s->dsos[*slot];
	if (VEC_RESERVE(s->dsos, s->cap_dsos, s->nr_dsos + 1) < 0)
		return NULL;
	d = &s->dsos[s->nr_dsos];
	*d = (struct dso_entry){ .path = strdup(path), .bid_len = (uint8_t)k.bid_len, .vdso = vdso__is_name(path) };
	if (k.bid_len)
		memcpy(d->bid, bid, k.bid_len);
	k.path = d->path;
	k.bid = d->bid;
	if (!d->path || !(slot = hashtable__insert(&s->dso_index, h, &k, &created))) {
		free(d->path);
		return NULL;
	}
	*slot = (uint32_t)s->nr_dsos++;
	symbols_inline__init(d);
	return d;
}

int symbols__expect_build_id(struct symbols *s, const char *path, const uint8_t *build_id, size_t len)
{
	struct dso_entry *d = dso_get(s, path, NULL, 0);

	if (!d)
		return -ENOMEM;
	expect(d, build_id, len);
	return 0;
}

int symbols__expect_own_vdso(struct symbols *s)
{
	const struct vdso_image *own = own_vdso(s);

	return own ? symbols__expect_build_id(s, VDSO_NAME, own->bid.data, own->bid.size) : -ENOENT;
}

void symbols__set_unread_unknown(struct symbols *s, bool on)
{
	s->unread_unknown = on;
}

void symbols__for_each_refused(const struct symbols *s,
			       void (*fn)(const struct symbols_refused *o, void *ctx), void *ctx)
{
	for (size_t i = 0; i < s->nr_dsos; i++) {
		const struct dso_entry *d = &s->dsos[i];
		struct symbols_refused o = { .path = d->path, .why = d->refused, .expected = d->expect,
					     .expected_len = d->expect_len, .found = d->found,
					     .found_len = d->found_len };

		if (d->opened && d->refused)
			fn(&o, ctx);
		else if (d->refused_inode && !d->bad)
			fn(&(struct symbols_refused){ .path = d->path, .why = SYMBOLS_REFUSED_NOT_MAPPED }, ctx);
	}
}

/* dso_get of o's path and build id, through the memo. */
static struct dso_entry *dso_memo_get(struct symbols *s, const struct model_dso *o)
{
	struct dso_memo *m = &s->dso_memo[hash__top(hash__step(0, (uintptr_t)o->name), 6)];
	size_t bid_len = o->build_id_len <= 20 ? o->build_id_len : 0;
	struct dso_entry *d;

	/* the path compared as well: a model freed, another's name could reuse the address */
	if (m->name == o->name && m->bid_len == bid_len && !memcmp(m->bid, o->build_id, bid_len) &&
	    !strcmp(s->dsos[m->ix].path, o->name))
		return &s->dsos[m->ix];
	d = dso_get(s, o->name, o->build_id, o->build_id_len);
	if (d) {
		*m = (struct dso_memo){ .name = o->name, .bid_len = (uint8_t)bid_len, .ix = (uint32_t)(d - s->dsos) };
		memcpy(m->bid, o->build_id, bid_len);
	}
	return d;
}

/* The trusted, opened entry of object o, or NULL. */
static struct dso_entry *dso_trusted(struct symbols *s, const struct model_dso *o)
{
	struct dso_entry *d;

	if (o->name[0] != '/' && o->vdso != MODEL_VDSO_NATIVE)
		return NULL;    /* //anon, [heap], a 32-bit task's [vdso]...: no file to read */
	d = dso_memo_get(s, o);
	if (!d)
		return NULL;
	d->used = ++s->tick;
	if (!d->opened)
		dso_open(s, d);
	if (d->bad)
		return NULL;
	if (d->by_inode && o->has_inode &&
	    (makedev(o->maj, o->min) != d->file_dev || o->ino != d->file_ino)) {
		/* no build id vouches for the file, and it is not the one that was mapped
		 * (another container's, a decoy, a file replaced since) */
		d->refused_inode = true;
		return NULL;
	}
	return d;
}

struct dso_entry *symbols__dso_addr(struct symbols *s, const struct model_dso *o, uint64_t off, uint64_t *ret_addr)
{
	struct dso_entry *d = dso_trusted(s, o);

	for (size_t i = 0; d && i < d->nr_loads; i++) {
		const GElf_Phdr *ph = &d->loads[i];
		if (off >= ph->p_offset && off - ph->p_offset < ph->p_filesz) {
			*ret_addr = off - ph->p_offset + ph->p_vaddr + d->bias;
			return d;
		}
	}
	return NULL;
}

int symbols__open_object(struct symbols *s, const struct model_dso *o)
{
	struct dso_entry *d = dso_trusted(s, o);
	const char *file = NULL;
	struct stat st;
	int fd;

	if (!d || (!d->mod && !is_own_vdso(s, d)))
		return -ENOENT; /* lean: no file kept */
	if (is_own_vdso(s, d)) {
		char own[64];

		snprintf(own, sizeof(own), "/proc/self/fd/%d", s->own_vdso.fd);
		fd = open(own, O_RDONLY | O_CLOEXEC);
		return fd < 0 ? -errno : fd;
	}
	dwfl_module_info(d->mod, NULL, NULL, NULL, NULL, NULL, &file, NULL);
	fd = file ? privs__as_user(open_object, (void *)file) : -ENOENT;
	/* the very file whose build id (or device and inode) was checked */
	if (fd >= 0 && (fstat(fd, &st) < 0 || st.st_dev != d->file_dev || st.st_ino != d->file_ino)) {
		close(fd);
		fd = -ESTALE;
	}
	return fd;
}

const char *symbols__user_in(struct symbols *s, const struct model_dso *o, uint64_t off, uint64_t *ret_into)
{
	uint64_t a;
	struct dso_entry *d = symbols__dso_addr(s, o, off, &a);
	size_t k;

	if (!d)
		return NULL;
	k = sorted_find_le(d->syms, d->nr_syms, start, a);
	if (k == SIZE_MAX || a >= d->syms[k].end)
		return NULL;
	if (!d->syms[k].named) {
		/* lean: named the first time a sample lands in it */
		const char *n = elf_funcs__demangle(&s->names, d->syms[k].name);

		if (!n)
			return NULL;
		d->syms[k].name = n;
		d->syms[k].named = true;
	}
	if (ret_into)
		*ret_into = a - d->syms[k].start;
	return d->syms[k].name;
}

const char *symbols__user(struct symbols *s, const struct model_dso *o, uint64_t off)
{
	return symbols__user_in(s, o, off, NULL);
}

bool symbols__go_line(struct symbols *s, const struct model_dso *o, uint64_t off, const char **ret_file,
		      int32_t *ret_line)
{
	uint64_t a;
	struct dso_entry *d = symbols__dso_addr(s, o, off, &a);

	return d && d->go && gopclntab__line(d->go, a - d->bias, ret_file, ret_line);
}

bool symbols__vaddr(struct symbols *s, const struct model_dso *o, uint64_t off, uint64_t *ret)
{
	uint64_t a;
	struct dso_entry *d = symbols__dso_addr(s, o, off, &a);

	if (!d)
		return false;
	*ret = a - d->bias;
	return true;
}

int symbols__load_kallsyms(struct symbols *s, const char *text, const char *ref_name, uint64_t ref_addr)
{
	if (!s->kallsyms)
		s->kallsyms = kallsyms__new(&s->names);
	if (!s->kallsyms)
		return -ENOMEM;
	return kallsyms__load(s->kallsyms, text, ref_name, ref_addr);
}

const char *symbols__kernel(struct symbols *s, uint64_t addr)
{
	return s->kallsyms ? kallsyms__find(s->kallsyms, addr) : NULL;
}
