/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Finding and checking a process's CPython: see include/prof/python/interp.h.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "prof/analyze/unwinder.h"
#include "prof/perfdata/build_id.h"
#include "prof/python/interp.h"

/* The file offset of address a of elf (in a PT_LOAD's file bytes), or -1. */
static int64_t file_offset(Elf *elf, uint64_t a, size_t len)
{
	size_t n;

	if (elf_getphdrnum(elf, &n) != 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && a >= ph.p_vaddr &&
		    a + len <= ph.p_vaddr + ph.p_filesz)
			return (int64_t)(ph.p_offset + (a - ph.p_vaddr));
	}
	return -1;
}

static void note_sym(struct interp_syms *s, const char *name, const GElf_Sym *sym)
{
	if (strcmp(name, "_PyEval_EvalFrameDefault") == 0 && GELF_ST_TYPE(sym->st_info) == STT_FUNC) {
		s->eval = sym->st_value;
		s->eval_size = sym->st_size;
	} else if (strcmp(name, "PyCode_Type") == 0) {
		s->code_type = sym->st_value;
	} else if (strcmp(name, "_PyRuntime") == 0) {
		s->runtime = sym->st_value;
	} else if (strcmp(name, "Py_Version") == 0) {
		s->version_addr = sym->st_value;
	}
}

static int syms_of(Elf *elf, int fd, struct interp_syms *ret)
{
	Elf_Scn *scn = NULL;
	int64_t off;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
			    !(name = elf_strptr(elf, sh.sh_link, sym.st_name)))
				continue;
			note_sym(ret, name, &sym);
		}
	}
	if (!ret->eval || !ret->eval_size || !ret->code_type || !ret->runtime || !ret->version_addr)
		return -ENOENT;
	off = file_offset(elf, ret->version_addr, 4);
	if (off < 0 || pread(fd, &ret->version, 4, off) != 4)
		return -ENOENT;
	return 0;
}

/* elf_begin on fd for an ELF file, or NULL. */
static Elf *elf_of(int fd)
{
	Elf *elf;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		elf = NULL;
	}
	return elf;
}

int interp__read_syms(int fd, struct interp_syms *ret)
{
	Elf *elf = elf_of(fd);
	int err;

	memset(ret, 0, sizeof(*ret));
	if (!elf)
		return -EINVAL;
	err = syms_of(elf, fd, ret);
	elf_end(elf);
	return err;
}

/* Could the object at path be an interpreter (python3.X, libpython3.X.so)? */
static bool looks_like_python(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return strncmp(base, "python3", 7) == 0 || strncmp(base, "libpython3", 10) == 0;
}

/* Judge one candidate mapping (open on fd): 0, -ENOENT (no interpreter), -ENOTSUP. */
static int judge(int fd, const struct map *m, const char *path, struct interp *ret, char *why, size_t why_len)
{
	struct interp_syms s;
	struct build_id b = { 0 };
	uint64_t bias;
	char hex[2 * BUILD_ID_MAX + 1];
	Elf *elf = elf_of(fd);
	bool found;

	/* one reading of the file for its symbols and where it is loaded */
	memset(&s, 0, sizeof(s));
	if (!elf)
		return -ENOENT;
	found = syms_of(elf, fd, &s) == 0 && unwinder__map_bias(elf, m, &bias);
	elf_end(elf);
	if (!found)
		return -ENOENT;
	if (build_id__read_elf(fd, &b) < 0)
		b.size = 0;
	*ret = (struct interp){ .eval_lo = bias + s.eval, .eval_hi = bias + s.eval + s.eval_size,
				.code_type = bias + s.code_type, .runtime = bias + s.runtime, .version = s.version };
	snprintf(ret->path, sizeof(ret->path), "%s", path);
	ret->l = python_layout__find(s.version, b.data, b.size);
	if (ret->l)
		return 0;
	build_id__hex(&b, hex, sizeof(hex));
	if (python_layout__knows_version(s.version))
		snprintf(why, why_len, "%s: CPython %u.%u.%u of build id %s is not a build prof knows", path,
			 s.version >> 24, (s.version >> 16) & 0xff, (s.version >> 8) & 0xff, b.size ? hex : "(none)");
	else
		snprintf(why, why_len, "%s: CPython %u.%u.%u (Py_Version %#x) is not a version prof knows", path,
			 s.version >> 24, (s.version >> 16) & 0xff, (s.version >> 8) & 0xff, s.version);
	return -ENOTSUP;
}

int interp__find(const struct model *m, int32_t pid, unwinder_open_fn open, void *ctx, struct interp *ret,
		 char *why, size_t why_len)
{
	const struct maps *ms = model__maps(m, pid);

	for (size_t i = 0; ms && i < ms->nr; i++) {
		const struct map *mp = &ms->v[i];
		const struct model_dso *d = model__dso(m, mp->dso);
		int fd, err;

		if (!(mp->prot & PROT_EXEC) || !d->name || !looks_like_python(d->name))
			continue;
		fd = open(ctx, &(struct task_file){ .pid = pid, .start = mp->start, .end = mp->end, .path = d->name,
						    .maj = d->maj, .min = d->min, .ino = d->ino });
		if (fd < 0)
			continue;
		err = judge(fd, mp, d->name, ret, why, why_len);
		close(fd);
		if (err != -ENOENT)
			return err;
	}
	return -ENOENT;
}

int interp__check(const struct interp *in, python_read_fn read, void *ctx, char *why, size_t why_len)
{
	const struct python_layout *l = in->l;
	uint8_t head[64];
	char name[8] = { 0 };
	uint64_t basic, item, name_at;
	int err = read(ctx, in->code_type, head, sizeof(head));

	if (err < 0)
		return err;
	memcpy(&name_at, head + l->tp_name, 8);
	memcpy(&basic, head + l->tp_basicsize, 8);
	memcpy(&item, head + l->tp_itemsize, 8);
	err = read(ctx, name_at, name, 5);
	if (err < 0)
		return err;
	if (strcmp(name, "code") != 0 || basic != l->code_basicsize || item != l->code_itemsize) {
		snprintf(why, why_len, "%s: its PyCode_Type (%.5s, %lu + %lu bytes) is not what %s has", in->path, name,
			 (unsigned long)basic, (unsigned long)item, l->what);
		return -ENOTSUP;
	}
	return 0;
}
