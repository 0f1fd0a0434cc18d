/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Build ids from notes and ELF files (hostile ones too), and the recording's table. */
#include <criterion/criterion.h>
#include <elf.h>
#include <stddef.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "prof/perfdata/build_id.h"
#include "prof/perfdata/build_id_table.h"
#include "prof/base/util.h"

static const uint8_t note[] = {
	4, 0, 0, 0, 8, 0, 0, 0, 1, 0, 0, 0, 'G', 'N', 'U', 0, 1, 2, 3, 4, 5, 6, 7, 8,   /* ABI tag */
	4, 0, 0, 0, 4, 0, 0, 0, 3, 0, 0, 0, 'G', 'N', 'U', 0, 0xde, 0xad, 0xbe, 0xef,   /* build id */
};

Test(build_id, from_notes)
{
	struct build_id b = { 0 };
	char hex[41];

	cr_assert_eq(build_id__from_notes(note, sizeof(note), 4, &b), 0);
	cr_assert_eq(b.size, 4);
	build_id__hex(&b, hex, sizeof(hex));
	cr_assert_str_eq(hex, "deadbeef");
	cr_assert_eq(build_id__from_notes(note, 24, 4, &b), -ENOENT, "only the ABI tag");
	for (size_t cut = 25; cut < sizeof(note); cut++)
		cr_assert_neq(build_id__from_notes(note, cut, 4, &b), 0, "cut at %zu", cut);
	uint8_t bad[sizeof(note)];
	memcpy(bad, note, sizeof(note));
	bad[24] = 0xff;                 /* a name size past the end */
	cr_assert_eq(build_id__from_notes(bad, sizeof(bad), 4, &b), -EINVAL);
	memcpy(bad, note, sizeof(note));
	bad[28] = 0xff;                 /* a build id longer than perf.data can hold */
	cr_assert_eq(build_id__from_notes(bad, sizeof(bad), 4, &b), -EINVAL);
}

static int memfd_with(const void *data, size_t len)
{
	int fd = memfd_create("elf", 0);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, data, len), (ssize_t)len);
	return fd;
}

Test(build_id, read_elf)
{
	struct build_id b = { 0 };
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int fd;

	cr_assert_gt(n, 0);
	self[n] = '\0';
	fd = open(self, O_RDONLY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(build_id__read_elf(fd, &b), 0, "the test binary has a build id (gcc's default)");
	cr_assert_eq(b.size, 20);
	close(fd);

	/* not ELF, empty, and the header of an ELF file without the rest */
	uint8_t text[64];
	memset(text, 'x', sizeof(text));
	fd = memfd_with(text, sizeof(text));
	cr_assert_eq(build_id__read_elf(fd, &b), -EINVAL);
	close(fd);
	fd = memfd_with("", 0);
	cr_assert_eq(build_id__read_elf(fd, &b), -EINVAL);
	close(fd);
	uint8_t head[64];
	fd = open(self, O_RDONLY);
	cr_assert_eq(read(fd, head, sizeof(head)), 64);
	close(fd);
	fd = memfd_with(head, sizeof(head));
	cr_assert_eq(build_id__read_elf(fd, &b), -EINVAL, "program headers past the end");
	close(fd);
	head[56] = 0xff;                /* e_phnum: 65535 */
	head[57] = 0xff;
	fd = memfd_with(head, sizeof(head));
	cr_assert_eq(build_id__read_elf(fd, &b), -EINVAL, "too many program headers");
	close(fd);
}

/* An executable MMAP2 of path, the rest zero. */
static void mmap2_exec(struct perf_record_mmap2 *m, const char *path)
{
	memset(m, 0, sizeof(*m) + PATH_MAX);
	m->header.type = PERF_RECORD_MMAP2;
	m->header.size = (uint16_t)ALIGN_UP(sizeof(*m) + strlen(path) + 1, 8);
	m->prot = PROT_READ | PROT_EXEC;
	strcpy(m->filename, path);
}

/* An MMAP2 record of a file (maj, min, ino). */
static void mmap2_of(struct perf_record_mmap2 *m, const char *path, uint32_t maj, uint32_t min, uint64_t ino)
{
	mmap2_exec(m, path);
	m->maj = maj;
	m->min = min;
	m->ino = ino;
}

/* The objects' build ids as the recording found them: inode i has build id i (in
 * its first byte), inodes from 100 on have none. */
static bool lookup(void *ctx, uint32_t maj, uint32_t min, uint64_t ino, struct build_id *ret)
{
	(*(int *)ctx)++;
	if (ino >= 100 || maj != 8)
		return false;
	*ret = (struct build_id){ .size = 20 };
	ret->data[0] = (uint8_t)ino;
	return true;
}

Test(build_id, table_asks_each_object_its_build_id_when_written)
{
	_Alignas(8) uint8_t buf[sizeof(struct perf_record_mmap2) + PATH_MAX];
	struct perf_record_mmap2 *m = (void *)buf;
	struct build_id_table *t = build_id_table__new();
	struct feat_buf f = { 0 };
	struct perf_record_header_build_id e;
	size_t off = 0;
	int asked = 0;

	mmap2_of(m, "/usr/lib/libc.so.6", 8, 1, 1);
	cr_assert_eq(build_id_table__note(t, &m->header), 0);
	cr_assert_eq(build_id_table__note(t, &m->header), 0, "again: the same entry");
	m->prot = PROT_READ;            /* data: ignored */
	cr_assert_eq(build_id_table__note(t, &m->header), 0);
	/* a container's overlay per container: other inodes of one build id at the path */
	mmap2_of(m, "/app/server", 8, 2, 2);
	cr_assert_eq(build_id_table__note(t, &m->header), 0);
	mmap2_of(m, "/app/server", 8, 3, 2);
	cr_assert_eq(build_id_table__note(t, &m->header), 0);
	/* the same path, another build: a second record */
	mmap2_of(m, "/app/server", 8, 1, 3);
	cr_assert_eq(build_id_table__note(t, &m->header), 0);
	/* no build id found: no record; a deleted file's is kept */
	mmap2_of(m, "/app/unread", 8, 1, 100);
	cr_assert_eq(build_id_table__note(t, &m->header), 0);
	mmap2_of(m, "/app/old (deleted)", 8, 1, 4);
	cr_assert_eq(build_id_table__note(t, &m->header), 0);
	cr_assert_eq(build_id_table__stats(t)->objects, 6);
	cr_assert_eq(asked, 0, "nothing is asked before the feature is written");

	build_id_table__write(t, &f, lookup, &asked);
	cr_assert_eq(asked, 6);
	cr_assert_eq(build_id_table__stats(t)->entries, 4);
	const char *paths[] = { "/usr/lib/libc.so.6", "/app/server", "/app/server", "/app/old (deleted)" };
	const uint8_t ids[] = { 1, 2, 3, 4 };
	for (size_t i = 0; i < ARRAY_SIZE(paths); i++) {
		cr_assert_lt(off + sizeof(e), f.len);
		memcpy(&e, f.data + off, sizeof(e));
		cr_assert_eq(e.header.size % 4, 0);
		cr_assert_eq(e.header.misc, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_BUILD_ID_SIZE);
		cr_assert_eq(e.pid, -1);
		cr_assert_eq(e.size, 20);
		cr_assert_eq(e.data[0], ids[i]);
		cr_assert_str_eq((const char *)f.data + off + sizeof(e), paths[i], "in the order met");
		off += e.header.size;
	}
	cr_assert_eq(off, f.len);
	feat_buf__release(&f);

	/* without a lookup: only build ids the records carry */
	build_id_table__write(t, &f, NULL, NULL);
	cr_assert_eq(build_id_table__stats(t)->entries, 0);
	feat_buf__release(&f);
	build_id_table__free(t);
}

/* An MMAP2 that carries its build id (PERF_RECORD_MISC_MMAP_BUILD_ID): no file access. */
static void mmap2_carried(struct perf_record_mmap2 *m, const char *path, uint8_t id)
{
	mmap2_exec(m, path);
	m->header.misc = PERF_RECORD_MISC_MMAP_BUILD_ID;
	m->build_id_size = 20;
	memset(m->build_id, id, 20);
}

Test(build_id, table_has_one_entry_per_path_and_object_in_order)
{
	_Alignas(8) uint8_t buf[sizeof(struct perf_record_mmap2) + PATH_MAX];
	struct perf_record_mmap2 *m = (void *)buf;
	struct build_id_table *t = build_id_table__new();
	struct feat_buf f = { 0 };
	char path[64];
	size_t off = 0;

	cr_assert_not_null(t);
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < 3000; i++) {
			snprintf(path, sizeof(path), "/lib/x%d.so", i);
			mmap2_carried(m, path, (uint8_t)(i % 251 + 1));
			cr_assert_eq(build_id_table__note(t, &m->header), 0);
		}
	}
	/* the same path with another build id: a second object behind that path */
	mmap2_carried(m, "/lib/x7.so", 0xee);
	cr_assert_eq(build_id_table__note(t, &m->header), 0);
	cr_assert_eq(build_id_table__note(t, &m->header), 0);
	/* /memfd: is not noted */
	mmap2_carried(m, "/memfd:jit", 1);
	cr_assert_eq(build_id_table__note(t, &m->header), 0);
	cr_assert_eq(build_id_table__stats(t)->objects, 3001);

	build_id_table__write(t, &f, NULL, NULL);
	cr_assert_eq(build_id_table__stats(t)->entries, 3001);
	for (int i = 0; i <= 3000; i++) {
		struct perf_record_header_build_id e;

		cr_assert_lt(off + sizeof(e), f.len);
		memcpy(&e, f.data + off, sizeof(e));
		if (i < 3000)
			snprintf(path, sizeof(path), "/lib/x%d.so", i);
		else
			snprintf(path, sizeof(path), "/lib/x7.so");
		cr_assert_str_eq((const char *)f.data + off + sizeof(e), path, "in the order met");
		cr_assert_eq(e.data[0], i < 3000 ? (uint8_t)(i % 251 + 1) : 0xee);
		off += e.header.size;
	}
	cr_assert_eq(off, f.len);
	feat_buf__release(&f);
	build_id_table__free(t);
}

/* ---- hostile ELF files: build_id__check_elf refuses them, nothing reads past them ---- */

/* A small valid ELF64: header, a PT_LOAD of the whole file, a PT_NOTE with a GNU
 * build id (0x11 x 20), and a section header table of 2 entries. */
struct tiny_elf {
	Elf64_Ehdr eh;
	Elf64_Phdr ph[2];
	uint8_t note[16 + 20];
	Elf64_Shdr sh[2];
};

static void tiny_elf(struct tiny_elf *e)
{
	memset(e, 0, sizeof(*e));
	memcpy(e->eh.e_ident, ELFMAG, SELFMAG);
	e->eh.e_ident[EI_CLASS] = ELFCLASS64;
	e->eh.e_ident[EI_DATA] = ELFDATA2LSB;
	e->eh.e_ident[EI_VERSION] = EV_CURRENT;
	e->eh.e_type = ET_DYN;
	e->eh.e_machine = EM_X86_64;
	e->eh.e_version = EV_CURRENT;
	e->eh.e_ehsize = sizeof(Elf64_Ehdr);
	e->eh.e_phoff = offsetof(struct tiny_elf, ph);
	e->eh.e_phentsize = sizeof(Elf64_Phdr);
	e->eh.e_phnum = 2;
	e->eh.e_shoff = offsetof(struct tiny_elf, sh);
	e->eh.e_shentsize = sizeof(Elf64_Shdr);
	e->eh.e_shnum = 2;
	e->ph[0] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_filesz = sizeof(*e),
				 .p_memsz = sizeof(*e), .p_align = 4096 };
	e->ph[1] = (Elf64_Phdr){ .p_type = PT_NOTE, .p_offset = offsetof(struct tiny_elf, note),
				 .p_filesz = sizeof(e->note), .p_align = 4 };
	memcpy(e->note, (uint32_t[]){ 4, 20, NT_GNU_BUILD_ID }, 12);
	memcpy(e->note + 12, "GNU", 4);
	memset(e->note + 16, 0x11, 20);
}

static int check(const void *data, size_t len, struct build_id *b)
{
	int fd = memfd_with(data, len), r = build_id__check_elf(fd, len);

	/* the reader must not fail badly either way */
	if (build_id__read_elf(fd, b) == 0)
		cr_assert_leq(b->size, BUILD_ID_MAX);
	close(fd);
	return r;
}

Test(build_id, check_elf_refuses_hostile_headers)
{
	struct tiny_elf e, bad;
	struct build_id b = { 0 };

	tiny_elf(&e);
	cr_assert_eq(check(&e, sizeof(e), &b), 0, "the valid one");
	cr_assert_eq(b.size, 20);
	cr_assert_eq(b.data[19], 0x11);
	cr_assert_eq(check("#!/bin/sh\necho not an ELF file, but longer than a header......\n", 64, &b), -ENOEXEC);
	cr_assert_eq(check("\177ELF", 4, &b), -ENOEXEC, "shorter than a header");
	for (size_t cut = sizeof(Elf64_Ehdr); cut < sizeof(e); cut++)
		cr_assert_eq(check(&e, cut, &b), -EINVAL, "truncated at %zu", cut);
	bad = e;
	bad.eh.e_phnum = 0xffff;
	cr_assert_eq(check(&bad, sizeof(bad), &b), -EINVAL, "a huge program header count");
	bad = e;
	bad.eh.e_shnum = 0xfff0;
	cr_assert_eq(check(&bad, sizeof(bad), &b), -EINVAL, "a huge section count");
	bad = e;
	bad.eh.e_shnum = 0;             /* the count in section 0: SHN_LORESERVE and up */
	cr_assert_eq(check(&bad, sizeof(bad), &b), -EINVAL, "an extended section count");
	bad = e;
	bad.eh.e_shoff = UINT64_MAX - 8;
	cr_assert_eq(check(&bad, sizeof(bad), &b), -EINVAL, "section headers past the end, overflowing");
	bad = e;
	bad.eh.e_phentsize = 8;
	cr_assert_eq(check(&bad, sizeof(bad), &b), -EINVAL, "program headers of the wrong size");
	bad = e;
	bad.ph[1].p_offset = 1u << 30;
	cr_assert_eq(check(&bad, sizeof(bad), &b), -EINVAL, "notes pointing out of the file");
	bad = e;
	bad.ph[1].p_filesz = UINT64_MAX;
	cr_assert_eq(check(&bad, sizeof(bad), &b), -EINVAL, "notes running out of the file");
	bad = e;
	bad.ph[0].p_filesz = 1u << 20;
	cr_assert_eq(check(&bad, sizeof(bad), &b), -EINVAL, "a load segment past the end");
	bad = e;
	bad.eh.e_ident[EI_DATA] = ELFDATA2MSB;
	cr_assert_eq(check(&bad, sizeof(bad), &b), -EINVAL, "the other byte order");
	bad = e;
	memcpy(bad.note, (uint32_t[]){ 0xfffffff0u, 20, NT_GNU_BUILD_ID }, 12);
	cr_assert_eq(check(&bad, sizeof(bad), &b), 0, "a bad note inside the file: the headers are sane");
	int fd = memfd_with(&bad, sizeof(bad));
	cr_assert_eq(build_id__read_elf(fd, &b), -ENOENT, "but it holds no build id");
	close(fd);
}

/* Random damage to the valid file: whatever check_elf accepts has its segments and
 * tables inside the file; nothing crashes (the sanitizer build runs this too). */
Test(build_id, check_elf_under_random_damage)
{
	struct tiny_elf e, bad;
	struct build_id b;
	uint64_t x = 0x9e3779b97f4a7c15ull;

	tiny_elf(&e);
	for (int i = 0; i < 20000; i++) {
		bad = e;
		for (int k = 0; k < 1 + i % 4; k++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			((uint8_t *)&bad)[(x >> 33) % sizeof(bad)] = (uint8_t)(x >> 17);
		}
		if (check(&bad, sizeof(bad), &b) != 0)
			continue;
		cr_assert_leq(bad.eh.e_phoff + bad.eh.e_phnum * sizeof(Elf64_Phdr), sizeof(bad));
		for (int p = 0; p < bad.eh.e_phnum && bad.eh.e_phoff == e.eh.e_phoff; p++)
			if (bad.ph[p].p_type == PT_NOTE || bad.ph[p].p_type == PT_LOAD)
				cr_assert_leq(bad.ph[p].p_offset + bad.ph[p].p_filesz, sizeof(bad));
	}
}

/* Which executable MMAP2s name a file: "//anon" (perf's name for anonymous memory,
 * a JIT's code) names none, whatever place its task is in. */
Test(build_id, mmap2_path_is_a_file_only)
{
	_Alignas(8) uint8_t buf[sizeof(struct perf_record_mmap2) + PATH_MAX];
	struct perf_record_mmap2 *m = (void *)buf;

	mmap2_exec(m, "/app/prof-jit");
	cr_assert_eq(build_id__mmap2_path(&m->header), strlen("/app/prof-jit"));
	mmap2_exec(m, "//anon");
	cr_assert_eq(build_id__mmap2_path(&m->header), 0);
	mmap2_exec(m, "[vdso]");
	cr_assert_eq(build_id__mmap2_path(&m->header), 0);
	mmap2_exec(m, "/memfd:jit (deleted)");
	cr_assert_eq(build_id__mmap2_path(&m->header), 0);
}
