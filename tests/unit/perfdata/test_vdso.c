/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The vDSO as perf names it: its mapping's size, which [vdso] is a 64-bit task's,
 * this process's image, its entry in the build-id table and in the cache. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prof/base/util.h"
#include "prof/perfdata/build_id.h"
#include "prof/perfdata/build_id_cache.h"
#include "prof/perfdata/build_id_table.h"
#include "prof/perfdata/vdso.h"

Test(vdso, maps_size_of_the_line_at_base)
{
	const char *maps =
		"55d0c8a00000-55d0c8a02000 r-xp 00001000 08:01 1234  /usr/bin/cat\n"
		"7ffd1d7f0000-7ffd1d7f4000 r--p 00000000 00:00 0     [vvar]\n"
		"7ffd1d7f4000-7ffd1d7f6000 r-xp 00000000 00:00 0     [vdso]\n"
		"7ffd1d800000-7ffd1d801000 r-xp 00000000 08:01 99    /tmp/x [vdso]x\n";

	cr_assert_eq(vdso__maps_size(maps, 0x7ffd1d7f4000ull), 0x2000);
	cr_assert_eq(vdso__maps_size(maps, 0x7ffd1d7f0000ull), 0, "[vvar] is not the vDSO");
	cr_assert_eq(vdso__maps_size(maps, 0x55d0c8a00000ull), 0);
	cr_assert_eq(vdso__maps_size(maps, 0x7ffd1d800000ull), 0, "a file whose name has [vdso] in it");
	cr_assert_eq(vdso__maps_size("7f-7e r-xp 0 00:00 0 [vdso]", 0x7f), 0, "end before start");
	cr_assert_eq(vdso__maps_size("", 0x1000), 0);
}

Test(vdso, only_a_mapping_above_4_GiB_is_surely_a_64_bit_tasks)
{
	cr_assert(vdso__native_map(0x7ffd1d7f4000ull, 0x7ffd1d7f6000ull));
	cr_assert(vdso__native_map(0xfffff000ull, 0x100001000ull), "its end is above");
	cr_assert_not(vdso__native_map(0xf7fc4000ull, 0xf7fc6000ull), "a 32-bit task's place");
	cr_assert_not(vdso__native_map(0xfffff000ull, 0x100000000ull), "up to 4 GiB exactly");
	cr_assert_not(vdso__native_map(0x7ffd1d7f6000ull, 0x7ffd1d7f4000ull));
	cr_assert(vdso__is_name("[vdso]"));
	cr_assert_not(vdso__is_name("[vdso32]"));
	cr_assert_not(vdso__is_name("/[vdso]"));
}

Test(vdso, own_image_is_the_mapped_one_with_its_build_id)
{
	struct vdso_image v;
	struct build_id again;
	char *copy;
	uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);

	if (!base)
		cr_skip_test("no vDSO in this process");
	cr_assert_eq(vdso__own(&v), 0);
	cr_assert_gt(v.size, 0);
	cr_assert_eq(v.size % 4096, 0);
	cr_assert_gt(v.bid.size, 0);
	copy = malloc(v.size);
	cr_assert_eq(pread(v.fd, copy, v.size, 0), (ssize_t)v.size);
	cr_assert_eq(memcmp(copy, (const void *)base, v.size), 0);
	cr_assert_eq(build_id__read_elf(v.fd, &again), 0);
	cr_assert_eq(memcmp(again.data, v.bid.data, v.bid.size), 0);
	cr_assert_lt(pwrite(v.fd, "x", 1, 0), 0, "sealed");
	free(copy);
	close(v.fd);
}

static void mmap2_vdso(struct perf_record_mmap2 *m, uint64_t start, const char *name)
{
	memset(m, 0, sizeof(*m) + 64);
	m->header.type = PERF_RECORD_MMAP2;
	m->header.size = (uint16_t)ALIGN_UP(sizeof(*m) + strlen(name) + 1, 8);
	m->prot = PROT_READ | PROT_EXEC;
	m->start = start;
	m->len = 0x2000;
	strcpy(m->filename, name);
}

Test(vdso, table_names_it_when_a_64_bit_tasks_was_mapped)
{
	_Alignas(8) uint8_t buf[sizeof(struct perf_record_mmap2) + 64];
	struct perf_record_mmap2 *m = (void *)buf;
	struct build_id_table *t = build_id_table__new();
	struct build_id b = { .size = 20, .data = { 0xab, 0xcd } };
	struct perf_record_header_build_id e;
	struct feat_buf f = { 0 };

	build_id_table__set_vdso(t, &b);
	mmap2_vdso(m, 0xf7fc4000ull, "[vdso]");
	cr_assert_eq(build_id_table__note(t, &m->header), 0);
	mmap2_vdso(m, 0x7ffd1d7f4000ull, "[vvar]");
	cr_assert_eq(build_id_table__note(t, &m->header), 0);
	mmap2_vdso(m, 0x7ffd1d7f4000ull, "[vdso]");
	m->prot = PROT_READ;
	cr_assert_eq(build_id_table__note(t, &m->header), 0);
	cr_assert_not(build_id_table__saw_vdso(t), "a 32-bit task's, [vvar], data");
	build_id_table__write(t, &f, NULL, NULL);
	cr_assert_eq(f.len, 0, "no entry");
	feat_buf__release(&f);

	mmap2_vdso(m, 0x7ffd1d7f4000ull, "[vdso]");
	cr_assert_eq(build_id_table__note(t, &m->header), 0);
	cr_assert(build_id_table__saw_vdso(t));
	build_id_table__write(t, &f, NULL, NULL);
	cr_assert_geq(f.len, sizeof(e));
	memcpy(&e, f.data, sizeof(e));
	cr_assert_eq(e.header.size, f.len, "one entry");
	cr_assert_eq(e.header.misc, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_BUILD_ID_SIZE);
	cr_assert_eq(e.pid, -1);
	cr_assert_eq(e.size, 20);
	cr_assert_eq(e.data[0], 0xab);
	cr_assert_str_eq((const char *)f.data + sizeof(e), "[vdso]", "perf's name");
	feat_buf__release(&f);
	build_id_table__free(t);
}

Test(vdso, cache_entry_is_perfs_layout)
{
	struct build_id_cache_limits l = { 1 << 20, 1 << 20, 1 << 30 };
	char dir[] = "/tmp/prof-test-vdso-XXXXXX", path[PATH_MAX], hex[41], link[PATH_MAX], want[PATH_MAX];
	struct build_id_cache *c;
	enum build_id_cache_result r;
	struct vdso_image v;
	struct stat st;
	ssize_t n;

	if (!getauxval(AT_SYSINFO_EHDR))
		cr_skip_test("no vDSO in this process");
	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(vdso__own(&v), 0);
	cr_assert_eq(build_id_cache__new(dir, &l, &c), 0);
	cr_assert_eq(build_id_cache__add_vdso(c, v.fd, &v.bid, v.size, &r), 0);
	cr_assert_eq(r, BUILD_ID_CACHE_KEPT);
	cr_assert_eq(build_id_cache__add_vdso(c, v.fd, &v.bid, v.size, &r), 0);
	cr_assert_eq(r, BUILD_ID_CACHE_PRESENT, "once");
	build_id__hex(&v.bid, hex, sizeof(hex));
	snprintf(path, sizeof(path), "%s/[vdso]/%s/vdso", dir, hex);
	cr_assert_eq(stat(path, &st), 0, "%s", path);
	cr_assert_eq(st.st_size, (off_t)v.size);
	cr_assert_eq(st.st_mode & 0777, 0600);
	snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s", dir, hex, hex + 2);
	n = readlink(path, link, sizeof(link) - 1);
	cr_assert_gt(n, 0);
	link[n] = '\0';
	snprintf(want, sizeof(want), "../../[vdso]/%s", hex);
	cr_assert_str_eq(link, want);
	cr_assert(build_id_cache__vdso_path(dir, &v.bid, path, sizeof(path)));
	cr_assert_eq(stat(path, &st), 0, "the reader's path %s", path);
	build_id_cache__free(c);
	close(v.fd);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	cr_assert_eq(system(path), 0);
}
