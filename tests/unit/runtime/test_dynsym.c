/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An object's exported symbols as the runtimes find themselves by them (dynsym.h),
 * on the machine's own C library: a function and a constant it exports, the
 * constant's bytes read from the file at the offset found, and a file that is not an
 * ELF refused.
 */
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <criterion/criterion.h>

#include "prof/runtime/dynsym.h"

#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"

struct found {
	GElf_Sym malloc_sym, domain;
	int undefined_seen;
};

static void note(void *ctx, const char *name, const GElf_Sym *sym)
{
	struct found *f = ctx;

	f->undefined_seen += sym->st_shndx == SHN_UNDEF;
	if (strcmp(name, "malloc") == 0)
		f->malloc_sym = *sym;
	else if (strcmp(name, "_libc_intl_domainname") == 0)
		f->domain = *sym;
}

Test(dynsym, libc_exports_read_back)
{
	struct found f = { 0 };
	char word[5] = { 0 };
	int fd = open(LIBC, O_RDONLY | O_CLOEXEC);
	int64_t off;
	Elf *elf;

	if (fd < 0)
		cr_skip_test("no %s", LIBC);
	cr_assert_not_null(elf = dynsym__elf(fd));
	dynsym__each(elf, note, &f);
	cr_expect_eq(GELF_ST_TYPE(f.malloc_sym.st_info), STT_FUNC);
	cr_expect_gt(f.malloc_sym.st_size, 0);
	cr_expect_eq(f.undefined_seen, 0, "undefined symbols are passed over");
	cr_assert_neq(f.domain.st_value, 0);
	off = dynsym__file_offset(elf, f.domain.st_value, 5);
	cr_assert_geq(off, 0);
	cr_assert_eq(pread(fd, word, 5, off), 5);
	cr_expect_str_eq(word, "libc", "the constant's bytes, read from the file where it lies");
	cr_expect_eq(dynsym__file_offset(elf, 1ull << 46, 4), -1, "an address no PT_LOAD holds");
	elf_end(elf);
	close(fd);
}

Test(dynsym, not_an_elf)
{
	int fd = memfd_create("t", 0);

	cr_assert_eq(write(fd, "#!/bin/sh\n", 10), 10);
	cr_expect_null(dynsym__elf(fd));
	close(fd);
}
