/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The insides of struct symbols, shared by symbols.c (objects, their files and
 * symbol tables) and symbols_inline.c (inline chains).  Not a public header.
 */
#ifndef PROF_ANALYZE_SYMBOLS_IMPL_H
#define PROF_ANALYZE_SYMBOLS_IMPL_H

#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "prof/analyze/debuginfo_find.h"
#include "prof/analyze/elf_funcs.h"
#include "prof/analyze/gopclntab.h"
#include "prof/analyze/kallsyms.h"
#include "prof/analyze/symbols.h"
#include "prof/base/hashtable.h"
#include "prof/base/strset.h"
#include "prof/perfdata/vdso.h"

/*
 * One object as the report meets it: a path and the build id its MMAP2 carries
 * (bid_len 0: none, the recording's HEADER_BUILD_ID for the path applies).
 */
struct dso_entry {
	char *path;
	uint8_t bid[20];
	uint8_t bid_len;
	bool vdso;                      /* a 64-bit task's [vdso]: its image by build id only */
	bool by_inode;                  /* no build id to check: only the mapped (device,
					 * inode) at the path is trusted */
	uint64_t file_dev, file_ino;    /* ... of the file opened at the path */
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	GElf_Phdr *loads;
	size_t nr_loads;
	bool opened;                    /* dso_open() ran */
	bool bad;                       /* missing, not ELF, or build id mismatch */
	bool conflict;                  /* the recording gave two build ids for the path */
	enum symbols_refusal refused;   /* why bad, when it is the build id */
	bool refused_inode;             /* a lookup was refused: another file at the path */
	uint8_t expect[20];             /* the recording's build id for the path */
	uint8_t expect_len;
	uint8_t found[20];              /* the file's, when it differs */
	uint8_t found_len;
	uint8_t own[20];                /* the build id of the file opened (none: 0) */
	uint8_t own_len;
	struct elf_func *syms;          /* functions by address, aliases resolved */
	struct gopclntab *go;           /* not lean: Go's table, when it named functions */
	size_t nr_syms;
	char *raw;                      /* lean: the names of syms as the file has them */
	size_t bytes;                   /* lean: of syms and raw, counted in held */
	uint64_t used;                  /* lean: the tick of its last look-up */
	struct hashtable inl;           /* of struct inl: inline chains by module address */
	const char **inl_names;         /* their names, "f (inlined)", innermost first */
	size_t nr_inl_names, cap_inl_names;
};

/* The inline chain at one address: inl_names[first .. first + n). */
struct inl {
	uint64_t addr;
	uint32_t first;
	uint8_t n;
};

/* The entries of objects met lately, by the model's interned name: a hit skips
 * hashing the path and probing.  The key is dso_get's, (path, build id); an object's build id
 * may be filled in later, so it is compared too. */
#define DSO_MEMO_SLOTS 64

struct dso_memo {
	const char *name;               /* the model's, interned; NULL: empty */
	uint8_t bid_len;
	uint8_t bid[20];
	uint32_t ix;                    /* in dsos */
};

struct symbols {
	struct strset names;
	struct dso_memo dso_memo[DSO_MEMO_SLOTS];
	char cache_dir[4096];           /* perf's build-id cache, "" when there is none */
	struct vdso_image own_vdso;     /* this process's vDSO, read when one is wanted (fd -1: none) */
	bool own_vdso_read;
	bool unread_unknown;            /* an MMAP2 without a build id: one prof could not read */
	struct dso_entry *dsos;
	size_t nr_dsos, cap_dsos;
	struct hashtable dso_index;     /* of uint32_t (index in dsos), by path */
	struct kallsyms *kallsyms;       /* made by symbols__load_kallsyms */
	/* lean (symbols__set_lean): no file kept open, names demangled when first asked,
	 * the least recently used objects' symbols let go past budget bytes */
	bool lean;
	size_t budget, held;
	uint64_t tick;
	struct symbols_stats st;
	struct debuginfo_find dbg;      /* libdwfl's find_debuginfo: debug files, debuginfod */
	uint64_t arrived;               /* the worker's debuginfod__arrived, last seen */
};

/* The trusted, opened entry of object o and the module address of file offset off;
 * NULL when o is not trusted or off is in no PT_LOAD segment. */
struct dso_entry *symbols__dso_addr(struct symbols *s, const struct model_dso *o, uint64_t off, uint64_t *ret_addr);

/* d's cache of inline chains, empty. */
void symbols_inline__init(struct dso_entry *d);

#endif
