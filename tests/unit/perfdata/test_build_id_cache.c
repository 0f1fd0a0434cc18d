/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The build-id cache in perf's layout: one object mapped at two paths (a library
 * built twice from the same code has one build id) is found at both, as readers
 * that look an object up by path and build id (hotspot's perfparser:
 * DIR/PATH/HEX/elf) look for it, and its bytes are counted once; and every path
 * of a recording's HEADER_BUILD_ID whose build id was kept gets its entry.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <criterion/criterion.h>

#include "prof/perfdata/build_id_cache.h"
#include "prof/perfdata/perf_data.h"
#include "prof/runtime/elf_writer.h"

static struct stat entry(const char *dir, const char *path, const char *hex)
{
	char p[PATH_MAX];
	struct stat st;

	snprintf(p, sizeof(p), "%s%s/%s/elf", dir, path, hex);
	cr_assert_eq(stat(p, &st), 0, "no entry %s", p);
	cr_assert_eq(st.st_mode & 0777, 0600);
	return st;
}

Test(build_id_cache, one_object_at_each_of_its_paths)
{
	static const char *const names[] = { "f", "g" };
	struct build_id_cache_limits l = { 1 << 20, 1 << 20, 1 << 30 };
	char dir[] = "/tmp/prof-test-cache-XXXXXX", hex[41], cmd[PATH_MAX];
	struct build_id b = { .size = 20, .data = { 0xfe, 0xed, 1, 2, 3 } };
	enum build_id_cache_result r;
	struct build_id_cache *c;
	struct stat one, two;
	uint64_t size;
	int fd = memfd_create("obj", 0);

	cr_assert_geq(fd, 0);
	cr_assert_eq(runtime_elf__write(fd, &b, names, 2), 0);
	size = (uint64_t)lseek(fd, 0, SEEK_END);
	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(build_id_cache__new(dir, &l, &c), 0);
	cr_assert_eq(build_id_cache__add(c, fd, "/app/lib/libx.so", &b, size, &r), 0);
	cr_assert_eq(r, BUILD_ID_CACHE_KEPT);
	cr_assert_eq(build_id_cache__add(c, fd, "/opt/other/libx.so", &b, size, &r), 0);
	cr_assert_eq(r, BUILD_ID_CACHE_PRESENT, "in the cache once by its build id");
	cr_assert_eq(build_id_cache__added(c), size, "its bytes counted once");
	build_id__hex(&b, hex, sizeof(hex));
	one = entry(dir, "/app/lib/libx.so", hex);
	two = entry(dir, "/opt/other/libx.so", hex);
	cr_expect_eq(one.st_ino, two.st_ino, "a hard link, not a second copy");
	cr_assert_eq(build_id_cache__add(c, fd, "/opt/other/libx.so", &b, size, &r), 0);
	cr_assert_eq(r, BUILD_ID_CACHE_PRESENT, "again: nothing more");
	build_id_cache__free(c);
	close(fd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

/* An object kept at ten paths is ten hard links to one file: a later recording
 * sizing the cache counts its bytes once, not ten times (else a cache of many
 * recordings' paths looks full long before it is). */
Test(build_id_cache, hard_links_counted_once_by_a_later_recording)
{
	static const char *const names[] = { "f", "g" };
	char dir[] = "/tmp/prof-test-cache-XXXXXX", path[64], cmd[PATH_MAX];
	struct build_id a = { .size = 20, .data = { 0xaa, 1 } }, b = { .size = 20, .data = { 0xbb, 2 } };
	struct build_id_cache_limits l = { 1 << 20, 1 << 20, 0 };
	enum build_id_cache_result r;
	struct build_id_cache *c;
	int fa = memfd_create("a", 0), fb = memfd_create("b", 0);
	uint64_t size;

	cr_assert_geq(fa, 0);
	cr_assert_geq(fb, 0);
	cr_assert_eq(runtime_elf__write(fa, &a, names, 2), 0);
	cr_assert_eq(runtime_elf__write(fb, &b, names, 2), 0);
	size = (uint64_t)lseek(fa, 0, SEEK_END);
	cr_assert_eq((uint64_t)lseek(fb, 0, SEEK_END), size);
	l.cache_max = 4 * size;         /* room for a and b, not for ten copies of a */
	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(build_id_cache__new(dir, &l, &c), 0);
	for (int i = 0; i < 10; i++) {
		snprintf(path, sizeof(path), "/run%d/lib/liba.so", i);
		cr_assert_eq(build_id_cache__add(c, fa, path, &a, size, &r), 0);
		cr_assert_eq(r, i ? BUILD_ID_CACHE_PRESENT : BUILD_ID_CACHE_KEPT);
	}
	build_id_cache__free(c);
	cr_assert_eq(build_id_cache__new(dir, &l, &c), 0);
	cr_assert_eq(build_id_cache__add(c, fb, "/run/lib/libb.so", &b, size, &r), 0);
	cr_assert_eq(r, BUILD_ID_CACHE_KEPT, "the cache holds one copy of a, not ten: b fits (%d)", r);
	build_id_cache__free(c);
	close(fa);
	close(fb);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

/* One HEADER_BUILD_ID record (perf's build_id_event, the name padded to 8) into buf. */
static size_t record(uint8_t *buf, const struct build_id *b, const char *name)
{
	struct perf_record_header_build_id e = { .pid = -1, .size = (uint8_t)b->size };
	size_t n = (strlen(name) + 1 + 7) & ~(size_t)7;

	e.header.type = PERF_RECORD_HEADER_BUILD_ID;
	e.header.misc = PERF_RECORD_MISC_USER | PERF_RECORD_MISC_BUILD_ID_SIZE;
	e.header.size = (uint16_t)(sizeof(e) + n);
	memcpy(e.data, b->data, b->size);
	memcpy(buf, &e, sizeof(e));
	memset(buf + sizeof(e), 0, n);
	memcpy(buf + sizeof(e), name, strlen(name));
	return sizeof(e) + n;
}

Test(build_id_cache, add_paths_links_each_kept_objects_paths)
{
	static const char *const names[] = { "f" };
	struct build_id_cache_limits l = { 1 << 20, 1 << 20, 1 << 30 };
	char dir[] = "/tmp/prof-test-cache-XXXXXX", hex[41], other_hex[41], cmd[PATH_MAX];
	struct build_id b = { .size = 20, .data = { 0xca, 0xfe, 7 } }, other = { .size = 20, .data = { 0xbe, 0xef } };
	enum build_id_cache_result r;
	struct build_id_cache *c;
	uint8_t payload[1024];
	size_t len = 0, linked = 0;
	struct stat one, two, st;
	int fd = memfd_create("obj", 0);

	cr_assert_geq(fd, 0);
	cr_assert_eq(runtime_elf__write(fd, &b, names, 1), 0);
	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(build_id_cache__new(dir, &l, &c), 0);
	cr_assert_eq(build_id_cache__add(c, fd, "/prof/python-frames", &b, (uint64_t)lseek(fd, 0, SEEK_END), &r), 0);
	cr_assert_eq(r, BUILD_ID_CACHE_KEPT);
	len += record(payload + len, &b, "[vdso]");                     /* no path: skipped */
	len += record(payload + len, &b, "/prof/python-frames");        /* its own entry: there */
	len += record(payload + len, &b, "/opt/app/libsame.so");        /* another path of it */
	len += record(payload + len, &other, "/usr/lib/not-kept.so");   /* not in the cache */
	len += record(payload + len, &b, "/opt/../etc/evil");           /* refused */
	cr_assert_eq(build_id_cache__add_paths(c, payload, len, &linked), 0);
	cr_assert_eq(linked, 2);
	build_id__hex(&b, hex, sizeof(hex));
	build_id__hex(&other, other_hex, sizeof(other_hex));
	one = entry(dir, "/prof/python-frames", hex);
	two = entry(dir, "/opt/app/libsame.so", hex);
	cr_expect_eq(one.st_ino, two.st_ino);
	snprintf(cmd, sizeof(cmd), "%s/usr/lib/not-kept.so/%s", dir, other_hex);
	cr_expect_neq(stat(cmd, &st), 0, "nothing made for an object not kept");
	snprintf(cmd, sizeof(cmd), "%s/etc", dir);
	cr_expect_neq(stat(cmd, &st), 0, "no '..' followed");
	cr_assert_eq(build_id_cache__add_paths(c, payload, len - 8, &linked), 0, "a record cut short is left");
	build_id_cache__free(c);
	close(fd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

/*
 * The cache's size kept between recordings (DIR/.prof-cache-size): a later recording
 * does not walk the cache while nothing else added to it, walks it again when
 * another tool (perf) added an entry since, and walks before it refuses an object
 * on a kept figure (files removed since leave it high).
 */
static int fresh_object(const struct build_id *b, uint64_t *ret_size)
{
	static const char *const names[] = { "f", "g" };
	int fd = memfd_create("o", 0);

	cr_assert_geq(fd, 0);
	cr_assert_eq(runtime_elf__write(fd, b, names, 2), 0);
	*ret_size = (uint64_t)lseek(fd, 0, SEEK_END);
	return fd;
}

/* One recording adding one object: its result, and how often it walked. */
static enum build_id_cache_result one_recording(const char *dir, const struct build_id_cache_limits *l,
						  const struct build_id *b, const char *path, unsigned int *ret_walks)
{
	enum build_id_cache_result r;
	struct build_id_cache *c;
	uint64_t size;
	int fd = fresh_object(b, &size);

	cr_assert_eq(build_id_cache__new(dir, l, &c), 0);
	cr_assert_eq(build_id_cache__add(c, fd, path, b, size, &r), 0);
	*ret_walks = build_id_cache__walks(c);
	build_id_cache__free(c);
	close(fd);
	return r;
}

Test(build_id_cache, size_kept_between_recordings)
{
	char dir[] = "/tmp/prof-test-cache-XXXXXX", p[PATH_MAX], cmd[PATH_MAX];
	struct build_id b[5] = { { .size = 20, .data = { 0xc1 } }, { .size = 20, .data = { 0xc2 } },
				 { .size = 20, .data = { 0xc3 } }, { .size = 20, .data = { 0xc4 } },
				 { .size = 20, .data = { 0xc5 } } };
	struct build_id_cache_limits l = { 1 << 20, 1 << 20, 0 };
	unsigned int walks;
	uint64_t size;
	FILE *f;

	close(fresh_object(&b[0], &size));
	l.cache_max = 3 * size + size / 2;      /* room for three objects, not four */
	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(one_recording(dir, &l, &b[0], "/a/liba.so", &walks), BUILD_ID_CACHE_KEPT);
	cr_assert_eq(walks, 1, "the first recording sizes the cache by walking it");
	cr_assert_eq(one_recording(dir, &l, &b[1], "/a/libb.so", &walks), BUILD_ID_CACHE_KEPT);
	cr_assert_eq(walks, 0, "the next one takes the kept figure");

	/* another tool's entry (perf's layout: the object and its .build-id link), as
	 * big as one object: the cache now holds three, the figure kept says two */
	snprintf(p, sizeof(p), "mkdir -p '%s/perf/x/c7' '%s/.build-id/c7' && head -c %llu /dev/zero > "
		 "'%s/perf/x/c7/elf' && ln -s ../../perf/x/c7 '%s/.build-id/c7/00'", dir, dir,
		 (unsigned long long)size, dir, dir);
	cr_assert_eq(system(p), 0);
	cr_assert_eq(one_recording(dir, &l, &b[2], "/a/libc.so", &walks), BUILD_ID_CACHE_FULL,
		     "another tool's entry is counted: no room for a fourth");
	cr_assert_eq(walks, 1, "a link added since: walked again");

	/* removed by hand: the links changed, walked again, room found */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/perf' '%s/.build-id/c7'", dir, dir);
	cr_assert_eq(system(cmd), 0);
	cr_assert_eq(one_recording(dir, &l, &b[3], "/a/libd.so", &walks), BUILD_ID_CACHE_KEPT);
	cr_assert_eq(one_recording(dir, &l, &b[4], "/a/libe.so", &walks), BUILD_ID_CACHE_FULL,
		     "prof's own adds keep the figure right: three objects, no room");
	cr_assert_eq(walks, 1, "full on a kept figure: made sure of by a walk");

	/* a file that is not the cache's own figure is not believed */
	snprintf(p, sizeof(p), "%s/.prof-cache-size", dir);
	f = fopen(p, "w");
	cr_assert_not_null(f);
	fputs("prof-cache-size 1 0 2 99999999999\n", f);
	fclose(f);
	cr_assert_eq(one_recording(dir, &l, &b[4], "/a/libe.so", &walks), BUILD_ID_CACHE_FULL);
	cr_assert_eq(walks, 1);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}
