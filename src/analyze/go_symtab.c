/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The symbol-table ELF of a stripped Go program: see include/prof/analyze/go_symtab.h.
 * Written by hand, as the Python frames' object is (python/elf_writer.c).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prof/analyze/go_symtab.h"
#include "prof/analyze/gopclntab.h"
#include "prof/base/util.h"
#include "prof/base/vec.h"
#include "prof/perfdata/perf_data.h"
#include "prof/sys/privs.h"

enum { S_NULL, S_NOTE, S_TEXT, S_SYMTAB, S_STRTAB, S_SHSTRTAB, S_NR };

static const char shstrtab[] = "\0.note.gnu.build-id\0.text\0.symtab\0.strtab\0.shstrtab";
static const uint32_t shname[S_NR] = { 0, 1, 20, 26, 34, 42 };

/* A growing buffer of the file's bytes. */
struct out {
	uint8_t *b;
	size_t len, cap;
	bool err;
};

static size_t put(struct out *o, const void *p, size_t n)
{
	size_t at = o->len;

	if (o->err || VEC_RESERVE(o->b, o->cap, o->len + n) < 0) {
		o->err = true;
		return at;
	}
	memcpy(o->b + o->len, p, n);
	o->len += n;
	return at;
}

static void pad(struct out *o, size_t align)
{
	static const uint8_t zero[8];

	put(o, zero, ALIGN_UP(o->len, align) - o->len);
}

/* The .text section's header of elf, else its first executable PT_LOAD's extent. */
static bool text_of(Elf *elf, Elf64_Shdr *ret)
{
	size_t shstrndx, phnum;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx) == 0)
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			const char *n;

			if (gelf_getshdr(scn, &sh) && (n = elf_strptr(elf, shstrndx, sh.sh_name)) && !strcmp(n, ".text")) {
				*ret = (Elf64_Shdr){ .sh_addr = sh.sh_addr, .sh_offset = sh.sh_offset, .sh_size = sh.sh_size };
				return true;
			}
		}
	if (elf_getphdrnum(elf, &phnum) < 0)
		return false;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			*ret = (Elf64_Shdr){ .sh_addr = ph.p_vaddr, .sh_offset = ph.p_offset, .sh_size = ph.p_filesz };
			return true;
		}
	}
	return false;
}

static void put_symbols(struct out *o, const struct gopclntab *t, size_t *ret_sym, size_t *ret_str, size_t *ret_nsym)
{
	struct out str = { 0 };
	Elf64_Sym none = { 0 };
	size_t n = 0;

	put(&str, "", 1);
	pad(o, 8);
	*ret_sym = put(o, &none, sizeof(none));
	for (size_t i = 0; i < gopclntab__count(t); i++) {
		uint64_t s, e;
		const char *name;
		Elf64_Sym sym;

		if (!gopclntab__func(t, i, &s, &e, &name) || !name[0])
			continue;
		sym = (Elf64_Sym){ .st_name = (uint32_t)str.len, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
				   .st_shndx = S_TEXT, .st_value = s, .st_size = e - s };
		put(&str, name, strlen(name) + 1);
		put(o, &sym, sizeof(sym));
		n++;
	}
	*ret_str = put(o, str.b, str.len);
	o->err |= str.err || str.len > UINT32_MAX;
	*ret_nsym = n + 1;
	free(str.b);
}

static int64_t write_all(int fd, const struct out *o)
{
	for (size_t at = 0; at < o->len;) {
		ssize_t n = pwrite(fd, o->b + at, o->len - at, (off_t)at);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		at += (size_t)n;
	}
	return (int64_t)o->len;
}

int64_t go_symtab__write(int fd, Elf *elf, const struct gopclntab *t, const struct build_id *b)
{
	GElf_Ehdr eh;
	Elf64_Ehdr h;
	Elf64_Shdr sh[S_NR] = { 0 }, text;
	Elf64_Nhdr nh = { .n_namesz = 4, .n_descsz = b->size, .n_type = NT_GNU_BUILD_ID };
	struct out o = { 0 };
	size_t phnum, nload = 0, note, sym, str, nsym, shs, shoff;
	int64_t r;

	if (!gelf_getehdr(elf, &eh) || eh.e_ident[EI_CLASS] != ELFCLASS64 || elf_getphdrnum(elf, &phnum) < 0 ||
	    !text_of(elf, &text))
		return -ENOTSUP;
	h = (Elf64_Ehdr){ .e_type = eh.e_type, .e_machine = eh.e_machine, .e_version = EV_CURRENT,
			  .e_phoff = sizeof(h), .e_ehsize = sizeof(h), .e_phentsize = sizeof(Elf64_Phdr),
			  .e_shentsize = sizeof(Elf64_Shdr), .e_shnum = S_NR, .e_shstrndx = S_SHSTRTAB };
	memcpy(h.e_ident, eh.e_ident, EI_NIDENT);
	put(&o, &h, sizeof(h));
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD) {
			Elf64_Phdr p = { ph.p_type, ph.p_flags, ph.p_offset, ph.p_vaddr, ph.p_paddr,
					 ph.p_filesz, ph.p_memsz, ph.p_align };
			put(&o, &p, sizeof(p));
			nload++;
		}
	}
	/* the note's program header, filled in below */
	put(&o, &(Elf64_Phdr){ 0 }, sizeof(Elf64_Phdr));
	pad(&o, 4);
	note = put(&o, &nh, sizeof(nh));
	put(&o, "GNU", 4);
	put(&o, b->data, b->size);
	pad(&o, 4);
	put_symbols(&o, t, &sym, &str, &nsym);
	shs = put(&o, shstrtab, sizeof(shstrtab));
	pad(&o, 8);
	sh[S_NOTE] = (Elf64_Shdr){ .sh_type = SHT_NOTE, .sh_flags = SHF_ALLOC, .sh_offset = note,
				   .sh_size = sizeof(nh) + 4 + ALIGN_UP((size_t)b->size, 4), .sh_addralign = 4 };
	/* the program's .text (its bytes are not here): perf places symbols by it */
	sh[S_TEXT] = (Elf64_Shdr){ .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC | SHF_EXECINSTR,
				   .sh_addr = text.sh_addr, .sh_offset = text.sh_offset, .sh_size = text.sh_size,
				   .sh_addralign = 16 };
	sh[S_SYMTAB] = (Elf64_Shdr){ .sh_type = SHT_SYMTAB, .sh_offset = sym, .sh_size = nsym * sizeof(Elf64_Sym),
				     .sh_link = S_STRTAB, .sh_info = 1, .sh_addralign = 8,
				     .sh_entsize = sizeof(Elf64_Sym) };
	sh[S_STRTAB] = (Elf64_Shdr){ .sh_type = SHT_STRTAB, .sh_offset = str, .sh_size = shs - str, .sh_addralign = 1 };
	sh[S_SHSTRTAB] = (Elf64_Shdr){ .sh_type = SHT_STRTAB, .sh_offset = shs, .sh_size = sizeof(shstrtab),
				       .sh_addralign = 1 };
	for (int i = 0; i < S_NR; i++)
		sh[i].sh_name = shname[i];
	shoff = put(&o, sh, sizeof(sh));
	if (o.err) {
		free(o.b);
		return -ENOMEM;
	}
	((Elf64_Ehdr *)o.b)->e_phnum = (uint16_t)(nload + 1);
	((Elf64_Ehdr *)o.b)->e_shoff = shoff;
	memcpy(o.b + sizeof(h) + nload * sizeof(Elf64_Phdr),
	       &(Elf64_Phdr){ .p_type = PT_NOTE, .p_flags = PF_R, .p_offset = note, .p_filesz = sh[S_NOTE].sh_size,
			      .p_memsz = sh[S_NOTE].sh_size, .p_align = 4 }, sizeof(Elf64_Phdr));
	r = write_all(fd, &o);
	free(o.b);
	return r;
}

/* Keep the debug file of the object at path (build id b) if it is stripped Go. */
static bool keep_one(struct build_id_cache *c, const char *path, const struct build_id *b)
{
	int fd = build_id_cache__open_object(c, path, b), mfd = -1;
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	struct gopclntab *t = NULL;
	enum build_id_cache_result res;
	bool kept = false;
	size_t shnum;
	int64_t size;

	if (!elf || elf_kind(elf) != ELF_K_ELF || gopclntab__from_elf(elf, &t) < 0)
		goto out;
	/* a symbol table names it already (perf reads it) */
	for (Elf_Scn *scn = NULL; elf_getshdrnum(elf, &shnum) == 0 && (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			goto out;
	}
	mfd = memfd_create("prof-go-symtab", MFD_CLOEXEC);
	if (mfd < 0 || (size = go_symtab__write(mfd, elf, t, b)) < 0)
		goto out;
	kept = build_id_cache__add_debug(c, mfd, path, b, (uint64_t)size, &res) == 0 &&
	       (res == BUILD_ID_CACHE_KEPT || res == BUILD_ID_CACHE_PRESENT);
out:
	gopclntab__free(t);
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	if (mfd >= 0)
		close(mfd);
	return kept;
}

struct keep_ctx {
	struct build_id_cache *c;
	size_t kept;
};

static void keep_each(const char *path, const struct build_id *b, void *ctx)
{
	struct keep_ctx *k = ctx;

	k->kept += keep_one(k->c, path, b);
}

size_t go_symtab__keep(struct build_id_cache *c, const void *build_ids, size_t len)
{
	struct keep_ctx k = { c, 0 };

	elf_version(EV_CURRENT);
	build_id_cache__each_object(build_ids, len, keep_each, &k);
	return k.kept;
}
