/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The synthetic object read back with libelf, as perf and prof report read it: its
 * build id (by prof's reader), one STT_FUNC symbol per name at PYTHON_ELF_TEXT + i,
 * in an executable .text that a PT_LOAD maps at the same offset and address.
 */
#include <gelf.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <criterion/criterion.h>

#include "prof/perfdata/build_id.h"
#include "prof/python/elf_writer.h"

Test(elf_writer, symbols_and_build_id_read_back)
{
	static const char *const names[] = { "[python: unverified]", "main (/app/x.py:12)",
					      "helper (/app/x.py:def 3)" };
	struct build_id b = { .size = 20 }, got;
	int fd = memfd_create("t", 0);
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t seen = 0, n;

	for (int i = 0; i < 20; i++)
		b.data[i] = (uint8_t)(i * 7 + 1);
	cr_assert_geq(fd, 0);
	cr_assert_eq(python_elf__write(fd, &b, names, 3), 0);
	cr_assert_eq(build_id__read_elf(fd, &got), 0);
	cr_expect_eq(got.size, 20);
	cr_expect_eq(memcmp(got.data, b.data, 20), 0);

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	cr_assert_not_null(elf);
	cr_assert_eq(elf_getphdrnum(elf, &n), 0);
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		cr_assert(gelf_getphdr(elf, (int)i, &ph));
		if (ph.p_type == PT_LOAD) {
			cr_expect_eq(ph.p_offset, PYTHON_ELF_TEXT);
			cr_expect_eq(ph.p_vaddr, PYTHON_ELF_TEXT);
			cr_expect_eq(ph.p_filesz, 3);
		}
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		cr_assert(gelf_getshdr(scn, &sh));
		if (sh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 1; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;

			cr_assert(gelf_getsym(d, (int)i, &sym));
			cr_expect_eq(GELF_ST_TYPE(sym.st_info), STT_FUNC);
			cr_expect_eq(sym.st_value, PYTHON_ELF_TEXT + i - 1);
			cr_expect_eq(sym.st_size, 1);
			cr_expect_str_eq(elf_strptr(elf, sh.sh_link, sym.st_name), names[i - 1]);
			seen++;
		}
	}
	cr_expect_eq(seen, 3);
	elf_end(elf);
	close(fd);
}
