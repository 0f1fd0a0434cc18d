/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf's build-id cache of the invoking user, in the layout perf record and perf
 * buildid-cache write (util/build-id.c, build_id_cache__add) and perf report, perf
 * annotate, hotspot and prof report read:
 *
 *   DIR/<path>/<build id in hex>/elf             the object, a copy (a hard link to it
 *                                                at each other path it was mapped at)
 *   DIR/.build-id/<2 hex>/<the other hex>        -> ../../<path>/<build id in hex>
 *
 *   DIR/<path>/<build id in hex>/debug           a debug file of the object (the symbol
 *                                                table prof makes of a stripped Go
 *                                                program), where perf report looks
 *
 *   DIR/[vdso]/<build id in hex>/vdso           the vDSO image (perf's name and layout)
 *   DIR/.build-id/<2 hex>/<the other hex>        -> ../../[vdso]/<build id in hex>
 *
 * DIR is ~/.debug.  Everything is done with the user's rights only (privs__as_user):
 * the cache is theirs, in their home.  Copies are made 0600 and new directories
 * 0700: an object of a tenant's container is the tenant's to read, not everyone's.
 * An entry is never replaced by another file: the copy is linked into place (never
 * renamed over), and an existing entry with another build id is left alone (a
 * conflict).  A copy is read back and must have the build id it is filed under.
 * Bounded: one object, the bytes one recording adds, and the whole cache (its
 * regular files, counted once by walking it, the figure kept in
 * DIR/.prof-cache-size for the next recordings while the .build-id directories
 * stay as it saw them) have limits.
 */
#ifndef PROF_PERFDATA_BUILD_ID_CACHE_H
#define PROF_PERFDATA_BUILD_ID_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/perfdata/build_id.h"

struct build_id_cache;

struct build_id_cache_limits {
	uint64_t object_max;            /* bytes of one object */
	uint64_t recording_max;         /* bytes one cache object (a recording) adds */
	uint64_t cache_max;             /* bytes of the whole cache */
};

/* prof.conf's defaults ([record] keep_object_max, keep_recording_max, keep_cache_max). */
#define BUILD_ID_CACHE_OBJECT_MAX (256ull << 20)
#define BUILD_ID_CACHE_RECORDING_MAX (1ull << 30)
#define BUILD_ID_CACHE_MAX (4ull << 30)

enum build_id_cache_result {
	BUILD_ID_CACHE_KEPT,            /* copied in now */
	BUILD_ID_CACHE_PRESENT,         /* an entry with that build id was there */
	BUILD_ID_CACHE_TOO_BIG,         /* above object_max */
	BUILD_ID_CACHE_RECORDING_FULL,  /* recording_max reached */
	BUILD_ID_CACHE_FULL,            /* cache_max reached */
	BUILD_ID_CACHE_CONFLICT,        /* an entry of another file is at its place */
	BUILD_ID_CACHE_CHANGED,         /* the copy has not that build id (the file changed) */
};

/*
 * The default DIR: $HOME/.debug as perf has it ($HOME absolute), else the home of
 * the real uid's passwd entry.  0, -ENOENT (no home), -ENAMETOOLONG.
 */
int build_id_cache__default_dir(char *buf, size_t len);

/* DIR/.build-id/xx/yyyy/elf, the path a reader opens.  false when it does not fit. */
bool build_id_cache__elf_path(const char *dir, const struct build_id *b, char *buf, size_t len);

/* DIR/.build-id/xx/yyyy/vdso, where a reader finds the vDSO image of build id b. */
bool build_id_cache__vdso_path(const char *dir, const struct build_id *b, char *buf, size_t len);

/* A cache at dir (made when missing, at the first copy), with limits l.  0 or
 * -ENOMEM/-ENAMETOOLONG. */
int build_id_cache__new(const char *dir, const struct build_id_cache_limits *l, struct build_id_cache **ret);
struct build_id_cache *build_id_cache__free(struct build_id_cache *c);

/* Whether the cache has an object for b (its elf exists, as the user sees it). */
bool build_id_cache__has(struct build_id_cache *c, const struct build_id *b);

/*
 * Copy the ELF file open on fd (size bytes, build id b, mapped at path) into the
 * cache.  0 with *ret saying what happened, or -errno when it could not be written
 * (nothing is left behind but empty directories).  path must be absolute, without
 * "." or ".." components (a " (deleted)" suffix is dropped).
 */
int build_id_cache__add(struct build_id_cache *c, int fd, const char *path, const struct build_id *b,
			uint64_t size, enum build_id_cache_result *ret);

/* Copy the vDSO image open on fd (size bytes, build id b) into the cache as perf
 * does ([vdso]/<hex>/vdso), by the same rules and limits as build_id_cache__add(). */
int build_id_cache__add_vdso(struct build_id_cache *c, int fd, const struct build_id *b, uint64_t size,
			     enum build_id_cache_result *ret);

/*
 * A debug file for the object of build id b mapped at path (its bytes open on fd:
 * an ELF with that build id, e.g. the symbol table prof makes of a stripped Go
 * program's own table), kept as DIR/<path>/<hex>/debug, where perf report looks
 * for one (DSO_BINARY_TYPE__BUILD_ID_CACHE_DEBUGINFO: .build-id/xx/yyyy/debug),
 * by the same rules and limits as build_id_cache__add().  A .build-id link of the
 * build id that exists already (the object kept at another path) is left alone.
 */
int build_id_cache__add_debug(struct build_id_cache *c, int fd, const char *path, const struct build_id *b,
			      uint64_t size, enum build_id_cache_result *ret);

/*
 * Every path of a recording's objects kept by build id, as readers that look an
 * object up by its path and build id find it (hotspot's perfparser: DIR/PATH/HEX/elf;
 * perf looks in .build-id/): for each record of build_ids (len bytes of
 * HEADER_BUILD_ID, perf's build_id_event records) whose build id has an entry here,
 * PATH/HEX/elf is made a hard link to it if nothing is there.  A path the recording
 * mapped the same object at twice (one library at two places) gets both; runtimes'
 * synthetic objects (python-frames) and the containers' objects alike.  Nothing is
 * copied, nothing replaced.  0 with *ret_linked (may be NULL) the records whose
 * entry is there now, or -errno when the cache could not be opened.
 */
int build_id_cache__add_paths(struct build_id_cache *c, const void *build_ids, size_t len, size_t *ret_linked);

/* Whether the cache has a debug file for b (.build-id/xx/yyyy/debug), as the user sees it. */
bool build_id_cache__has_debug(struct build_id_cache *c, const struct build_id *b);

/*
 * fn(path, build id, ctx) for each record of build_ids (len bytes of HEADER_BUILD_ID)
 * that names a file by an absolute path (not the kernel's, nor the vDSO's).
 */
void build_id_cache__each_object(const void *build_ids, size_t len,
				 void (*fn)(const char *path, const struct build_id *b, void *ctx), void *ctx);

/*
 * The file of build id b, opened read-only as the user: its copy in c (c may be
 * NULL), else the file at path, each only when its build id is b.  An fd, or -ENOENT.
 */
int build_id_cache__open_object(const struct build_id_cache *c, const char *path, const struct build_id *b);

/* Bytes copied in by c. */
uint64_t build_id_cache__added(const struct build_id_cache *c);
/* Times c walked the whole cache to size it (DIR/.prof-cache-size spares most). */
unsigned int build_id_cache__walks(const struct build_id_cache *c);
const char *build_id_cache__dir(const struct build_id_cache *c);

#endif
