/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libdwfl's find_debuginfo for prof's readers: see include/prof/analyze/debuginfo_find.h.
 */
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prof/analyze/debuginfo_find.h"
#include "prof/analyze/debuginfod_worker.h"
#include "prof/analyze/gopclntab.h"
#include "prof/base/hash.h"
#include "prof/base/util.h"
#include "prof/perfdata/build_id.h"
#include "prof/perfdata/build_id_cache.h"
#include "prof/sys/privs.h"

/* A build id counted in st (an object opened again, lean, is not counted again). */
struct seen_id {
	uint8_t len;
	uint8_t id[20];
	bool found;
};

static bool seen_eq(const void *e, const void *key, const void *ctx)
{
	const struct seen_id *a = e, *b = key;

	(void)ctx;
	return a->len == b->len && !memcmp(a->id, b->id, a->len);
}

void debuginfo_find__init(struct debuginfo_find *f, const char *cache_dir)
{
	*f = (struct debuginfo_find){ .cache_dir = cache_dir };
	hashtable__init(&f->seen, sizeof(struct seen_id), seen_eq, NULL);
}

void debuginfo_find__release(struct debuginfo_find *f)
{
	hashtable__release(&f->seen);
}

void debuginfo_find__stats(const struct debuginfo_find *f, struct debuginfod_stats *ret)
{
	if (f->worker)
		debuginfod_worker__stats(f->worker, ret);
	else
		*ret = f->st;
}

/*
 * Every file libdwfl opens for the report (the objects a perf.data names, their
 * debug files by build id or debuglink) is opened with the user's own rights: a
 * capability install of prof must not name the symbols of a file they cannot read.
 */
struct debuginfo_call {
	Dwfl_Module *mod;
	void **userdata;
	const char *modname, *file_name, *debuglink_file;
	Dwarf_Addr base;
	GElf_Word debuglink_crc;
	char **ret_name;
	int fd;
};

static int debuginfo_as_user(void *arg)
{
	struct debuginfo_call *c = arg;

	/* as_user's negative returns are its own: libdwfl's (-1, or libdebuginfod's
	 * -errno) are kept in c->fd */
	c->fd = dwfl_standard_find_debuginfo(c->mod, c->userdata, c->modname, c->base, c->file_name,
					     c->debuglink_file, c->debuglink_crc, c->ret_name);
	return 0;
}

/* Count a debuginfod answer for the module's build id, the first time it is met. */
static void count_answer(struct debuginfo_find *f, const unsigned char *bid, int len, int r, bool refused)
{
	struct seen_id k = { .len = (uint8_t)MIN((size_t)len, sizeof(k.id)) };
	bool created = false;
	struct seen_id *e;

	memcpy(k.id, bid, k.len);
	e = hashtable__insert(&f->seen, hash__bytes(k.id, k.len), &k, &created);
	if (!e || !created)
		return;
	*e = k;
	e->found = r >= 0 && !refused;
	if (refused) {
		f->st.asked++;
		f->st.refused++;
	} else {
		debuginfod__count(&f->st, r);
	}
}

/*
 * The debug file prof record kept for build id (bid, len) in perf's build-id cache
 * (.build-id/xx/yyyy/debug: a server's, or a stripped Go program's symbol table),
 * opened as the user, with that build id; its name in *ret_name.  -1 when none.
 */
static int cached_debug(const struct debuginfo_find *f, Dwfl_Module *mod, const unsigned char *bid, int len,
			char **ret_name)
{
	struct build_id b = { .size = (uint8_t)MIN((size_t)len, sizeof(b.data)) };
	struct gopclntab *t = NULL;
	char path[PATH_MAX];
	Dwarf_Addr bias;
	Elf *elf;
	int fd;

	memcpy(b.data, bid, b.size);
	if (!f->cache_dir[0] || !build_id_cache__elf_path(f->cache_dir, &b, path, sizeof(path)) ||
	    strlen(path) + 2 >= sizeof(path))
		return -1;
	strcpy(strrchr(path, '/') + 1, "debug");
	fd = privs__open_as_user(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -1;
	/* a Go program's is the symbol table prof made of its own table, which names it
	 * better (lines, inline frames: elf_funcs__add_go keeps it when no debug file
	 * gives a .symtab) */
	elf = dwfl_module_getelf(mod, &bias);
	if (elf && gopclntab__from_elf(elf, &t) == 0) {
		gopclntab__free(t);
		close(fd);
		return -1;
	}
	if (!debuginfod__matches(fd, bid, (size_t)len) || !(*ret_name = strdup(path))) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * With a worker: what it fetched already (its cache only, checked by build id), else
 * the build id handed to it, which names the object once it arrives (the reader reads
 * the object again: symbols__refresh).  Never waits on the network.
 */
static int from_worker(struct debuginfo_find *f, const unsigned char *bid, int len, char **ret_name)
{
	int fd = debuginfod_worker__open(f->worker, bid, (size_t)len, ret_name);

	if (fd < 0)
		debuginfod_worker__ask(f->worker, bid, (size_t)len);
	return fd < 0 ? -1 : fd;
}

/*
 * The debug file prof record kept in the build-id cache, then
 * libdwfl's own search (the object's build id under /usr/lib/debug, its debuglink),
 * then libdebuginfod when DEBUGINFOD_URLS names a server (elfutils 0.188 calls it
 * from dwfl_standard_find_debuginfo), or the worker's cache when there is a worker
 * (DEBUGINFOD_URLS is unset then: libdwfl asks nothing).  A file from a server is
 * used only with the object's build id: libdwfl does not check it, and a wrong one
 * would name every address wrongly.  A local file has no such check either, as
 * before: it is the system's own (libdwfl finds it by the build id's path or a
 * debuglink's CRC).
 */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			  char **debuginfo_file_name)
{
	struct debuginfo_call c = { mod, userdata, modname, file_name, debuglink_file, base, debuglink_crc,
				    debuginfo_file_name, -1 };
	struct debuginfo_find *f = *userdata;
	const unsigned char *bid = NULL;
	GElf_Addr vaddr;
	int r, len = dwfl_module_build_id(mod, &bid, &vaddr);
	/* not when libdwfl looks for a dwz alt file (a debuglink name without a CRC) */
	bool main_file = !(debuglink_file && !debuglink_crc);

	if (f && len > 0) {
		/* libdwfl looks again for DWARF after the symbol table (and again for a lean
		 * reader's object read anew): a server that failed or had nothing is not
		 * asked again, which a hung one would make seconds each (dwfl_progress) */
		struct seen_id k = { .len = (uint8_t)MIN((size_t)len, sizeof(k.id)) };
		const struct seen_id *e;

		memcpy(k.id, bid, k.len);
		e = hashtable__find(&f->seen, hash__bytes(k.id, k.len), &k);
		f->skip = e && !e->found;
	}
	if (f && len > 0 && main_file) {
		r = cached_debug(f, mod, bid, len, debuginfo_file_name);
		if (r >= 0)
			return r;
	}
	r = privs__as_user(debuginfo_as_user, &c);
	if (f)
		f->skip = false;
	if (r < 0)
		return -1;
	if (c.fd < 0 && f && f->worker && len > 0 && main_file)
		return from_worker(f, bid, len, debuginfo_file_name);
	/* libdebuginfod's answer: an fd without a name (libdwfl passes it none), or -errno */
	if ((c.fd >= 0 && !*debuginfo_file_name) || c.fd < -1) {
		if (c.fd >= 0 && (len <= 0 || !debuginfod__matches(c.fd, bid, (size_t)len))) {
			if (len > 0)
				debuginfod__forget(c.fd, bid, (size_t)len);
			close(c.fd);
			c.fd = -1;
			if (f && len > 0)
				count_answer(f, bid, len, 0, true);
		} else if (f && len > 0) {
			count_answer(f, bid, len, c.fd, false);
		}
	}
	return c.fd < 0 ? -1 : c.fd;
}

/* libdebuginfod's progress callback on libdwfl's client: non-zero ends the query. */
static int dwfl_progress(debuginfod_client *dc, long a, long b)
{
	const struct debuginfo_find *f = debuginfod_get_user_data(dc);

	(void)a;
	(void)b;
	return f && f->skip;
}

const Dwfl_Callbacks debuginfo_find__callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

void debuginfo_find__attach(struct debuginfo_find *f, Dwfl *dwfl)
{
	debuginfod_client *dc;

	if (!dwfl || f->worker || !debuginfod__on())
		return;
	dc = dwfl_get_debuginfod_client(dwfl);
	if (dc) {
		debuginfod_set_user_data(dc, f);
		debuginfod_set_progressfn(dc, dwfl_progress);
	}
}

void debuginfo_find__module(struct debuginfo_find *f, Dwfl_Module *mod)
{
	void **ud;

	/* find_debuginfo's: where it counts what debuginfod answered */
	dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
	*ud = f;
}
