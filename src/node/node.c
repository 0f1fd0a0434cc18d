/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Finding a process's V8 and reading its metadata: see include/prof/node/node.h.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "prof/base/util.h"
#include "prof/node/node.h"
#include "prof/runtime/dynsym.h"
#include "prof/runtime/runtime.h"
#include "prof/sys/procfs.h"

#define MAPS_MAX (64u << 20)     /* a process with more maps text than this is refused */

bool node__looks_like(const char *path)
{
	const char *b = strrchr(path, '/');

	b = b ? b + 1 : path;
	if (strcmp(b, "node") == 0 || strcmp(b, "nodejs") == 0)
		return true;
	if (strncmp(b, "node", 4) == 0 && b[4]) {
		for (const char *p = b + 4; *p; p++)
			if (!isdigit((unsigned char)*p))
				return false;
		return true;
	}
	if (strncmp(b, "libnode.so", 10) != 0)
		return false;
	for (const char *p = b + 10; *p; p++)
		if (!isdigit((unsigned char)*p) && *p != '.')
			return false;
	return true;
}

bool node__in_reach(const char *argv0, const int *pids, size_t n)
{
	return (argv0 && node__looks_like(argv0)) || runtime__pids_map(pids, n, node__looks_like);
}

/* The int at address addr (as linked) of the file: its section's bytes, 0 in .bss. */
static bool value_at(Elf *elf, uint64_t addr, int64_t *ret)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		int32_t v;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) || addr < sh.sh_addr ||
		    addr + 4 > sh.sh_addr + sh.sh_size)
			continue;
		if (sh.sh_type == SHT_NOBITS) {
			*ret = 0;
			return true;
		}
		if (!(d = elf_getdata(scn, NULL)) || !d->d_buf || addr - sh.sh_addr + 4 > d->d_size)
			return false;
		memcpy(&v, (const char *)d->d_buf + (addr - sh.sh_addr), 4);
		*ret = v;
		return true;
	}
	return false;
}

struct meta_walk {
	Elf *elf;
	struct v8_meta *m;
	unsigned found;
};

static void note_meta(void *ctx, const char *name, const GElf_Sym *sym)
{
	struct meta_walk *w = ctx;
	int64_t v;

	if (sym->st_size != 4 || strncmp(name, "v8dbg_", 6) != 0 || !value_at(w->elf, sym->st_value, &v))
		return;
	v8_meta__note(w->m, name, v);
	w->found++;
}

/* The file offsets of the Builtins_* functions of .symtab (an unstripped node's
 * embedded builtins: V8's interpreter, its bytecode handlers, its baseline and
 * other builtins), lowest to highest, into m. */
static void builtins_range(Elf *elf, struct v8_meta *m)
{
	Elf_Scn *scn = NULL, *text;
	GElf_Shdr sh, tsh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		size_t n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; i < n; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_size ||
			    sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE ||
			    !(name = elf_strptr(elf, sh.sh_link, sym.st_name)) || strncmp(name, "Builtins_", 9) != 0 ||
			    !(text = elf_getscn(elf, sym.st_shndx)) || !gelf_getshdr(text, &tsh) ||
			    sym.st_value < tsh.sh_addr || sym.st_value + sym.st_size > tsh.sh_addr + tsh.sh_size)
				continue;
			uint64_t lo = sym.st_value - tsh.sh_addr + tsh.sh_offset, hi = lo + sym.st_size;

			if (!m->builtins_hi || lo < m->builtins_lo)
				m->builtins_lo = lo;
			if (hi > m->builtins_hi)
				m->builtins_hi = hi;
		}
	}
}

int node__read_meta(int fd, struct v8_meta *ret)
{
	struct meta_walk w = { .m = ret };

	v8_meta__init(ret);
	if (!(w.elf = dynsym__elf(fd)))
		return -EINVAL;
	dynsym__each(w.elf, note_meta, &w);
	if (w.found)
		builtins_range(w.elf, ret);
	elf_end(w.elf);
	return w.found ? 0 : -ENOENT;
}

/* Judge the object of mapping m (its path NUL-terminated in path): 0, -ENOENT (no
 * metadata: look further), -ENOTSUP (why), -errno. */
static int judge(int32_t pid, const struct proc_map *m, const char *path, bool same_ns, struct node_v8 *ret,
		 char *why, size_t why_len)
{
	int fd = dynsym__open_map(pid, m, path, same_ns), err;

	if (fd < 0) {
		snprintf(why, why_len, "%s: could not be opened (%s)", path, strerror(-fd));
		return fd;
	}
	err = node__read_meta(fd, &ret->m);
	close(fd);
	if (err < 0)
		return err == -EINVAL ? -ENOENT : err;
	snprintf(ret->path, sizeof(ret->path), "%s", path);
	if ((err = v8_meta__check(&ret->m, why, why_len)) < 0) {
		char tail[200];

		snprintf(tail, sizeof(tail), "%s", why);
		snprintf(why, why_len, "%s: a V8 prof cannot check: %s", path, tail);
	}
	return err;
}

struct node_walk {
	int32_t pid;
	struct node_v8 *ret;
	char *why;
	size_t why_len;
	char seen[256];         /* the last object that looked like node, judged */
};

static int node_map(void *ctx, const struct proc_map *m, const char *path, bool same_ns)
{
	struct node_walk *w = ctx;
	int err;

	if (!node__looks_like(path) || strcmp(path, w->seen) == 0)
		return -ENOENT;
	err = judge(w->pid, m, path, same_ns, w->ret, w->why, w->why_len);
	if (err == -ENOENT)
		snprintf(w->seen, sizeof(w->seen), "%s", path);
	return err;
}

int node__find_in_maps(int32_t pid, const char *maps, v8_read_fn read, void *ctx, struct node_v8 *ret, char *why,
		       size_t why_len)
{
	struct node_walk w = { .pid = pid, .ret = ret, .why = why, .why_len = why_len };
	int err;

	why[0] = '\0';
	ret->read = read;
	ret->ctx = ctx;
	err = dynsym__each_exec_map(pid, maps, node_map, &w);
	if (err == -ENOENT && w.seen[0]) {
		snprintf(why, why_len, "%s: a node without V8's postmortem metadata (no v8dbg_* symbols)", w.seen);
		return -ENOTSUP;
	}
	return err;
}

int node__find(int32_t pid, v8_read_fn read, void *ctx, struct node_v8 *ret, char *why, size_t why_len)
{
	char path[64];
	_cleanup_free_ char *maps = NULL;
	ssize_t n;

	why[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	n = read_file_full(AT_FDCWD, path, MAPS_MAX, &maps);
	if (n < 0)
		return n == -ENOENT ? -ESRCH : (int)n;
	return node__find_in_maps(pid, maps, read, ctx, ret, why, why_len);
}
