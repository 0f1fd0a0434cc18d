/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Symbol lookup.  User space through elfutils' libdwfl (.symtab, .dynsym, build-id
 * and .gnu_debuglink debug files), and a Go program's own table where no ELF
 * symbol names an address (gopclntab.h); the kernel through /proc/kallsyms, when the
 * recording host is this host.  A lookup that cannot be trusted (no file, a build id
 * that does not match) answers NULL: the caller shows [unknown], never a wrong name.
 *
 * An object is found by its build id when the recording has one (the one its MMAP2
 * carries, else HEADER_BUILD_ID's for its path): in perf's build-id cache first
 * (~/.debug/.build-id/xx/yyyy/elf: the copy prof record keeps of a container's
 * object or of a file replaced while it ran), then at its path, each only if the
 * build id matches.  Objects of one path with different build ids are different
 * objects.  Without a build id, the file at the path is trusted only where it is
 * the mapped device and inode (same host, not replaced).
 */
#ifndef PROF_ANALYZE_SYMBOLS_H
#define PROF_ANALYZE_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/analyze/model.h"

struct symbols;

struct symbols *symbols__new(void);
struct symbols *symbols__free(struct symbols *s);

/*
 * The function at file offset `off` of object o (as its MMAP2 names it: path, and
 * build id or device and inode).  The file's build id must be the recording's: o's,
 * else the one given to symbols__expect_build_id() for the path.  The returned name
 * lives as long as s.  NULL when unknown, and for every offset of a file that is not
 * the recorded one.
 */
const char *symbols__user(struct symbols *s, const struct model_dso *o, uint64_t off);

/* symbols__user, and how many bytes into that function off is (when named). */
const char *symbols__user_in(struct symbols *s, const struct model_dso *o, uint64_t off, uint64_t *ret_into);

/*
 * The ELF virtual address (p_vaddr space, without any load bias) of file offset off
 * of o, trusted as for symbols__user: what a backend looks up in the object's
 * symbol table by its build id.  false when the file is not the recorded one or off
 * is in no PT_LOAD segment.
 */
bool symbols__vaddr(struct symbols *s, const struct model_dso *o, uint64_t off, uint64_t *ret);

/*
 * The source file and line of file offset off of o (trusted as for symbols__user)
 * from a Go program's own table, when that table names o's functions (no
 * .symtab; gopclntab.h).  The file name lives as long as s.  false otherwise, and
 * always for a lean reader (which keeps no table).
 */
bool symbols__go_line(struct symbols *s, const struct model_dso *o, uint64_t off, const char **ret_file,
		      int32_t *ret_line);

/*
 * The file of object o that lookups trust (found as for symbols__user: by build id,
 * the cache first), opened for reading as the user, for the unwinder's CFI.  An fd,
 * or -errno (-ENOENT: no trusted file).
 */
int symbols__open_object(struct symbols *s, const struct model_dso *o);

/*
 * The functions inlined at file offset off of o (trusted as for symbols__user),
 * from its DWARF debug information: "f (inlined)" names, the innermost first, the
 * function they are inlined into (symbols__user's) not included.  At most max (and
 * SYMBOLS_INLINE_MAX) are written to ret; the count, 0 without debug information.
 * Cached per (object, address), up to SYMBOLS_INLINE_CACHE addresses per object.
 */
#define SYMBOLS_INLINE_MAX 8
#define SYMBOLS_INLINE_CACHE (1u << 18)
size_t symbols__inlined(struct symbols *s, const struct model_dso *o, uint64_t off, const char **ret, size_t max);

/*
 * The recording's build id for path (perf.data's HEADER_BUILD_ID).  Two different
 * ones for a path (a file replaced while it was recorded) leave its symbols unknown.
 * 0 or -ENOMEM.
 */
int symbols__expect_build_id(struct symbols *s, const char *path, const uint8_t *build_id, size_t len);

/*
 * A live view's: the [vdso] of the tasks sampled is this kernel's, this process's
 * own image (by its build id).  0, -ENOENT (no vDSO to read), -ENOMEM.
 */
int symbols__expect_own_vdso(struct symbols *s);

/*
 * The recording's MMAP2s carry the build id of every object it could read (prof
 * writes them so): one without is an object whose build id is unknown, which the
 * path's HEADER_BUILD_ID does not vouch for.
 */
void symbols__set_unread_unknown(struct symbols *s, bool on);

enum symbols_refusal {
	SYMBOLS_NOT_REFUSED,
	SYMBOLS_REFUSED_MISMATCH,       /* the file's build id is not the recording's */
	SYMBOLS_REFUSED_CONFLICT,       /* two build ids recorded for the path */
	SYMBOLS_REFUSED_NOT_MAPPED,     /* no build id, and the path is another file than the
					 * mapped device and inode */
	SYMBOLS_REFUSED_MISSING,        /* a build id recorded, but neither its copy in the
					 * build-id cache nor a file at the path opens */
};

struct symbols_refused {
	const char *path;
	enum symbols_refusal why;
	const uint8_t *expected, *found;        /* found_len 0: the file has none */
	size_t expected_len, found_len;
};

/* Each object a lookup was asked of and refused because of its build id. */
void symbols__for_each_refused(const struct symbols *s,
			       void (*fn)(const struct symbols_refused *o, void *ctx), void *ctx);

/*
 * A long-lived process's (profd's): no object file is kept open or mapped once its
 * symbols are read (so no inline chains, no symbols__open_object), a function's name
 * is demangled and kept the first time a look-up finds it, and past budget bytes of
 * symbol tables the least recently looked-up objects' are let go (read again from
 * the file, its build id checked again, if it is looked up later).  The names found
 * stay (one copy of each distinct name).  Call before the first look-up.
 */
void symbols__set_lean(struct symbols *s, size_t budget);

struct symbols_stats {
	uint64_t bytes;                 /* lean: symbol tables held now */
	uint64_t objects;               /* ... of this many objects */
	uint64_t loaded;                /* objects read, since the start */
	uint64_t evicted, evicted_bytes;        /* let go past the budget, since the start */
	uint64_t names;                 /* distinct names found (kept) */
};
void symbols__stats(const struct symbols *s, struct symbols_stats *ret);

/*
 * What libdwfl asked debuginfod for (DEBUGINFOD_URLS set: objects without a local
 * debug file), one count per build id; a file of another build id is refused and
 * counted so, never used.
 */
struct debuginfod_stats;
void symbols__debuginfod_stats(const struct symbols *s, struct debuginfod_stats *ret);

/*
 * Debug files from debuginfod through worker w (not owned, outliving s), never on
 * the looking-up thread: an object without symbols has its build id handed to w,
 * and lookups open only what w has fetched.  Call before the first look-up, with
 * DEBUGINFOD_URLS unset (libdwfl would ask itself).  The stats are then w's.
 */
struct debuginfod_worker;
void symbols__set_worker(struct symbols *s, struct debuginfod_worker *w);

/*
 * The objects whose debug file the worker fetched since the last call are read again
 * at their next look-up (names from then on).  true when any was: a caller's cache
 * of names (resolver__cache_flush) is stale.  Cheap when nothing arrived.
 */
bool symbols__refresh(struct symbols *s);

/*
 * Load the running kernel's symbols from kallsyms text, relocated so that ref_addr
 * (the address of the reference symbol in the recording, e.g. _text) maps to this
 * kernel's.  0, or -ENOENT when the reference symbol is missing.
 */
int symbols__load_kallsyms(struct symbols *s, const char *kallsyms, const char *ref_name, uint64_t ref_addr);

/* The kernel function at addr, or NULL. */
const char *symbols__kernel(struct symbols *s, uint64_t addr);

#endif
