/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Build ids from notes and ELF files (hostile ones too), and the recording's table. */
#include <criterion/criterion.h>
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

/* An MMAP2 record of the test binary, with its real device and inode or not. */
static void mmap2_of(struct perf_record_mmap2 *m, const char *path, const struct stat *st, uint64_t ino)
{
	mmap2_exec(m, path);
	m->maj = major(st->st_dev);
	m->min = minor(st->st_dev);
	m->ino = ino;
}

Test(build_id, table_reads_only_the_mapped_file)
{
	_Alignas(8) uint8_t buf[sizeof(struct perf_record_mmap2) + PATH_MAX];
	struct perf_record_mmap2 *m = (void *)buf;
	struct build_id_table *t = build_id_table__new();
	struct feat_buf f = { 0 };
	char self[PATH_MAX];
	struct stat st;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	cr_assert_gt(n, 0);
	self[n] = '\0';
	cr_assert_eq(stat(self, &st), 0);
	mmap2_of(m, self, &st, st.st_ino + 1);  /* not the file on disk: no build id */
	cr_assert_eq(build_id_table__note(t, &m->header), 0);
	mmap2_of(m, self, &st, st.st_ino);
	cr_assert_eq(build_id_table__note(t, &m->header), 0);
	cr_assert_eq(build_id_table__note(t, &m->header), 0, "again: no second read");
	m->prot = PROT_READ;            /* data: ignored */
	cr_assert_eq(build_id_table__note(t, &m->header), 0);
	cr_assert_eq(build_id_table__stats(t)->objects, 2);
	cr_assert_eq(build_id_table__stats(t)->read, 1);
	build_id_table__write(t, &f);
	cr_assert_eq(build_id_table__stats(t)->entries, 1);
	struct perf_record_header_build_id e;
	memcpy(&e, f.data, sizeof(e));
	cr_assert_eq(f.len, e.header.size);
	cr_assert_eq(e.header.size % 4, 0);
	cr_assert_eq(e.header.misc, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_BUILD_ID_SIZE);
	cr_assert_eq(e.pid, -1);
	cr_assert_eq(e.size, 20);
	cr_assert_str_eq((const char *)f.data + sizeof(e), self);
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
	/* " (deleted)", /memfd: and non-executable maps are not noted */
	mmap2_carried(m, "/lib/gone.so (deleted)", 1);
	cr_assert_eq(build_id_table__note(t, &m->header), 0);
	mmap2_carried(m, "/memfd:jit", 1);
	cr_assert_eq(build_id_table__note(t, &m->header), 0);
	cr_assert_eq(build_id_table__stats(t)->objects, 3001);

	build_id_table__write(t, &f);
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
