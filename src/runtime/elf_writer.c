/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The synthetic object of a recording's runtime frames: see
 * include/prof/runtime/elf_writer.h.  Written by hand (no libelf writing): a handful
 * of fixed sections, laid out in one pass.
 */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prof/base/util.h"
#include "prof/runtime/elf_writer.h"

/* Sections, in file order after the ELF header and the program header. */
enum { S_NULL, S_NOTE, S_TEXT, S_SYMTAB, S_STRTAB, S_SHSTRTAB, S_NR };

static const char shstrtab[] = "\0.note.gnu.build-id\0.text\0.symtab\0.strtab\0.shstrtab";
static const uint32_t shname[S_NR] = { 0, 1, 20, 26, 34, 42 };

static int write_all(int fd, const void *buf, size_t len, uint64_t off)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = pwrite(fd, p, len, (off_t)off);

		if (n < 0)
			return errno == EINTR ? 0 : -errno;
		p += n, len -= (size_t)n, off += (uint64_t)n;
	}
	return 0;
}

struct layout {
	uint64_t note, text, symtab, strtab, shstrtab, shdrs, end;
	size_t note_len, strtab_len;
};

static size_t note_size(const struct build_id *b)
{
	return sizeof(Elf64_Nhdr) + 4 + ALIGN_UP((size_t)b->size, 4);
}

static void lay_out(struct layout *lo, const struct build_id *b, const char *const *names, size_t nr)
{
	lo->note_len = note_size(b);
	lo->strtab_len = 1;
	for (size_t i = 0; i < nr; i++)
		lo->strtab_len += strlen(names[i]) + 1;
	lo->note = sizeof(Elf64_Ehdr) + 3 * sizeof(Elf64_Phdr);
	lo->text = RUNTIME_ELF_TEXT;
	lo->symtab = ALIGN_UP(lo->text + nr, 8);
	lo->strtab = lo->symtab + sizeof(Elf64_Sym) * (nr + 1);
	lo->shstrtab = lo->strtab + lo->strtab_len;
	lo->shdrs = ALIGN_UP(lo->shstrtab + sizeof(shstrtab), 8);
	lo->end = lo->shdrs + S_NR * sizeof(Elf64_Shdr);
}

static int write_heads(int fd, const struct layout *lo, size_t nr)
{
	Elf64_Ehdr eh = {
		.e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB, EV_CURRENT },
		.e_type = ET_DYN, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
		.e_phoff = sizeof(Elf64_Ehdr), .e_shoff = lo->shdrs, .e_ehsize = sizeof(Elf64_Ehdr),
		.e_phentsize = sizeof(Elf64_Phdr), .e_phnum = 3, .e_shentsize = sizeof(Elf64_Shdr),
		.e_shnum = S_NR, .e_shstrndx = S_SHSTRTAB,
	};
	/* the text is at the same offset and address: an offset is an address.  The
	 * headers' segment first, at 0, as a linker lays a shared object out: libdwfl
	 * readers that place a module by its mapping (hotspot's perfparser reports it
	 * at the MMAP2's start - pgoff, dwfl_report_elf(add_p_vaddr = false)) take the
	 * first PT_LOAD's address as that start, so a first PT_LOAD at the text put
	 * every symbol RUNTIME_ELF_TEXT below its frames. */
	Elf64_Phdr ph[3] = {
		{ .p_type = PT_LOAD, .p_flags = PF_R, .p_filesz = lo->note + lo->note_len,
		  .p_memsz = lo->note + lo->note_len, .p_align = 0x1000 },
		{ .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = lo->text, .p_vaddr = lo->text,
		  .p_paddr = lo->text, .p_filesz = nr, .p_memsz = nr, .p_align = 0x1000 },
		/* where build-id readers look (perf's, prof's) */
		{ .p_type = PT_NOTE, .p_flags = PF_R, .p_offset = lo->note, .p_vaddr = lo->note,
		  .p_paddr = lo->note, .p_filesz = lo->note_len, .p_memsz = lo->note_len, .p_align = 4 },
	};
	Elf64_Shdr sh[S_NR] = {
		[S_NOTE] = { .sh_type = SHT_NOTE, .sh_flags = SHF_ALLOC, .sh_offset = lo->note,
			     .sh_addr = lo->note, .sh_size = lo->note_len, .sh_addralign = 4 },
		[S_TEXT] = { .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC | SHF_EXECINSTR,
			     .sh_offset = lo->text, .sh_addr = lo->text, .sh_size = nr, .sh_addralign = 1 },
		[S_SYMTAB] = { .sh_type = SHT_SYMTAB, .sh_offset = lo->symtab,
			       .sh_size = sizeof(Elf64_Sym) * (nr + 1), .sh_link = S_STRTAB, .sh_info = 1,
			       .sh_addralign = 8, .sh_entsize = sizeof(Elf64_Sym) },
		[S_STRTAB] = { .sh_type = SHT_STRTAB, .sh_offset = lo->strtab, .sh_size = lo->strtab_len,
			       .sh_addralign = 1 },
		[S_SHSTRTAB] = { .sh_type = SHT_STRTAB, .sh_offset = lo->shstrtab, .sh_size = sizeof(shstrtab),
				 .sh_addralign = 1 },
	};
	int err;

	for (int i = 0; i < S_NR; i++)
		sh[i].sh_name = shname[i];
	err = write_all(fd, &eh, sizeof(eh), 0);
	if (err == 0)
		err = write_all(fd, ph, sizeof(ph), sizeof(eh));
	if (err == 0)
		err = write_all(fd, sh, sizeof(sh), lo->shdrs);
	if (err == 0)
		err = write_all(fd, shstrtab, sizeof(shstrtab), lo->shstrtab);
	return err;
}

static int write_note(int fd, const struct layout *lo, const struct build_id *b)
{
	uint8_t buf[sizeof(Elf64_Nhdr) + 4 + BUILD_ID_MAX + 4] = { 0 };
	Elf64_Nhdr nh = { .n_namesz = 4, .n_descsz = b->size, .n_type = NT_GNU_BUILD_ID };

	memcpy(buf, &nh, sizeof(nh));
	memcpy(buf + sizeof(nh), "GNU", 4);
	memcpy(buf + sizeof(nh) + 4, b->data, b->size);
	return write_all(fd, buf, lo->note_len, lo->note);
}

/* The text (int3 bytes), the symbols and their names. */
static int write_symbols(int fd, const struct layout *lo, const char *const *names, size_t nr)
{
	size_t syms_len = sizeof(Elf64_Sym) * (nr + 1);
	uint8_t *text = malloc(nr ? nr : 1);
	Elf64_Sym *syms = calloc(nr + 1, sizeof(*syms));
	char *str = calloc(1, lo->strtab_len);
	size_t at = 1;
	int err = -ENOMEM;

	if (!text || !syms || !str)
		goto out;
	memset(text, 0xcc, nr);
	for (size_t i = 0; i < nr; i++) {
		size_t n = strlen(names[i]) + 1;

		syms[i + 1] = (Elf64_Sym){ .st_name = (uint32_t)at, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
					   .st_shndx = S_TEXT, .st_value = lo->text + i, .st_size = 1 };
		memcpy(str + at, names[i], n);
		at += n;
	}
	err = write_all(fd, text, nr, lo->text);
	if (err == 0)
		err = write_all(fd, syms, syms_len, lo->symtab);
	if (err == 0)
		err = write_all(fd, str, lo->strtab_len, lo->strtab);
out:
	free(text);
	free(syms);
	free(str);
	return err;
}

int runtime_elf__write(int fd, const struct build_id *b, const char *const *names, size_t nr)
{
	struct layout lo;
	int err;

	if (nr > (1u << 24) || !b->size || b->size > BUILD_ID_MAX)
		return -EFBIG;
	lay_out(&lo, b, names, nr);
	if (lo.strtab_len > UINT32_MAX)
		return -EFBIG;
	err = write_heads(fd, &lo, nr);
	if (err == 0)
		err = write_note(fd, &lo, b);
	if (err == 0)
		err = write_symbols(fd, &lo, names, nr);
	return err;
}
