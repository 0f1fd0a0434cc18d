/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The exported symbols of a mapped object: see include/prof/runtime/dynsym.h.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>

#include "prof/runtime/dynsym.h"
#include "prof/sys/task_file.h"

Elf *dynsym__elf(int fd)
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

void dynsym__each(Elf *elf, dynsym_fn fn, void *ctx)
{
	Elf_Scn *scn = NULL;

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
			fn(ctx, name, &sym);
		}
	}
}

int64_t dynsym__file_offset(Elf *elf, uint64_t a, size_t len)
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

int dynsym__open_map(int32_t pid, const struct proc_map *m, const char *path, bool same_ns)
{
	struct task_file f = { .pid = pid, .start = m->start, .end = m->end, .path = path, .maj = m->maj,
			       .min = m->min, .ino = m->ino };
	enum task_file_way way;
	bool refused;

	return task_file__open(&f, same_ns ? TASK_FILE_TRY_HOST : 0, &way, &refused);
}

int dynsym__each_exec_map(int32_t pid, const char *maps, dynsym_map_fn fn, void *ctx)
{
	struct task_ns mine, its;
	bool same_ns = task_file__mnt_ns(0, &mine) == 0 && task_file__mnt_ns(pid, &its) == 0 &&
		       mine.dev == its.dev && mine.ino == its.ino;

	for (const char *line = maps; *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		struct proc_map m;
		char path[256];

		if (procfs__parse_maps_line(line, len, &m) == 0 && m.path_len && m.path_len < sizeof(path) &&
		    (m.prot & PROT_EXEC)) {
			int err;

			memcpy(path, m.path, m.path_len);
			path[m.path_len] = '\0';
			if ((err = fn(ctx, &m, path, same_ns)) != -ENOENT)
				return err;
		}
		line = nl ? nl + 1 : line + len;
	}
	return -ENOENT;
}
