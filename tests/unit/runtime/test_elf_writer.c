/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The synthetic object read back with libelf, as perf and prof report read it: its
 * build id (by prof's reader), one STT_FUNC symbol per name at RUNTIME_ELF_TEXT + i,
 * in an executable .text that a PT_LOAD maps at the same offset and address; and
 * placed by libdwfl as hotspot's perfparser places a mapped object.
 */
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <criterion/criterion.h>

#include "prof/perfdata/build_id.h"
#include "prof/runtime/elf_writer.h"

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
	cr_assert_eq(runtime_elf__write(fd, &b, names, 3), 0);
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
		if (ph.p_type == PT_LOAD && i == 0) {
			cr_expect_eq(ph.p_offset, 0);   /* the headers, as a linker's first segment */
			cr_expect_eq(ph.p_vaddr, 0);
			cr_expect(!(ph.p_flags & PF_X));
		} else if (ph.p_type == PT_LOAD) {
			cr_expect(ph.p_flags & PF_X);
			cr_expect_eq(ph.p_offset, RUNTIME_ELF_TEXT);
			cr_expect_eq(ph.p_vaddr, RUNTIME_ELF_TEXT);
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
			cr_expect_eq(sym.st_value, RUNTIME_ELF_TEXT + i - 1);
			cr_expect_eq(sym.st_size, 1);
			cr_expect_str_eq(elf_strptr(elf, sh.sh_link, sym.st_name), names[i - 1]);
			seen++;
		}
	}
	cr_expect_eq(seen, 3);
	elf_end(elf);
	close(fd);
}

/* hotspot's perfparser (app/perfsymboltable.cpp, reportElf) reports a mapped object
 * with dwfl_report_elf(base = the MMAP2's address - its pgoff, add_p_vaddr = false)
 * and names an address from that module's symbols: the frame at the MMAP2's start +
 * i (prof maps the text at pgoff RUNTIME_ELF_TEXT) must be names[i]. */
Test(elf_writer, placed_by_libdwfl_as_perfparser_places_it)
{
	static const char *const names[] = { "[python: unverified]", "main (/app/x.py:12)", "f (/app/x.py:def 3)" };
	static char *debuginfo_path;
	static const Dwfl_Callbacks cb = { .find_elf = dwfl_build_id_find_elf,
					   .find_debuginfo = dwfl_standard_find_debuginfo,
					   .section_address = dwfl_offline_section_address,
					   .debuginfo_path = &debuginfo_path };
	const uint64_t start = 1ull << 60, base = start - RUNTIME_ELF_TEXT;
	struct build_id b = { .size = 20, .data = { 1, 2, 3 } };
	int fd = memfd_create("t", 0);
	Dwfl *dwfl = dwfl_begin(&cb);
	Dwfl_Module *mod;

	cr_assert_geq(fd, 0);
	cr_assert_not_null(dwfl);
	cr_assert_eq(runtime_elf__write(fd, &b, names, 3), 0);
	dwfl_report_begin_add(dwfl);
	mod = dwfl_report_elf(dwfl, "python-frames", "/proc/self/fd/x", fd, base, false);
	cr_assert_not_null(mod, "%s", dwfl_errmsg(-1));
	cr_assert_eq(dwfl_report_end(dwfl, NULL, NULL), 0);
	for (size_t i = 0; i < 3; i++) {
		GElf_Off off = 1;
		GElf_Sym sym;
		const char *name;

		cr_assert_eq(dwfl_addrmodule(dwfl, start + i), mod, "frame %zu outside the module", i);
		name = dwfl_module_addrinfo(mod, start + i, &off, &sym, NULL, NULL, NULL);
		cr_assert_not_null(name, "frame %zu unnamed", i);
		cr_expect_str_eq(name, names[i]);
		cr_expect_eq(off, 0);
	}
	dwfl_end(dwfl);         /* closes fd */
}
