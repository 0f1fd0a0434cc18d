/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Synthesized COMM/MMAP2/MMAP records, from a fake /proc tree in a temporary directory. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <perf/event.h>
#include <criterion/criterion.h>

#include "prof/base/util.h"
#include "prof/synth/synth.h"

#define SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
		     PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CGROUP)
/* sample_id_all trailer of SAMPLE_TYPE: TID, TIME, CPU, IDENTIFIER. */
#define TRAILER 32
#define SAMPLE_ID 0x5151
#define TIME 123456789012ull

#define MAX_RECS 32

struct sink {
	int nr;
	int fail_at;            /* emit returns -ENOSPC for this record (-1: never) */
	size_t len[MAX_RECS];
	uint64_t rec[MAX_RECS][8192 / 8];
};

static char root[64];
static struct sink *sink;
static struct synth_env env;

static int emit(const void *rec, size_t len, void *ctx)
{
	struct sink *s = ctx;

	cr_assert_lt(s->nr, MAX_RECS, "too many records");
	cr_assert_leq(len, sizeof(s->rec[0]));
	if (s->nr == s->fail_at)
		return -ENOSPC;
	memcpy(s->rec[s->nr], rec, len);
	s->len[s->nr++] = len;
	return 0;
}

static void put_file(const char *path, const char *text)
{
	char dir[256], *p;
	int fd;

	/* mkdir -p the parents, relative to the tree. */
	snprintf(dir, sizeof(dir), "%s", path);
	for (p = strchr(dir, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdirat(env.proc_fd, dir, 0755) < 0)
			cr_assert_eq(errno, EEXIST, "mkdir %s: %s", dir, strerror(errno));
		*p = '/';
	}
	fd = openat(env.proc_fd, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	cr_assert_geq(fd, 0, "create %s: %s", path, strerror(errno));
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static const char maps[] =
	"00400000-00452000 r-xp 00001000 08:02 173521      /usr/bin/dbus-daemon\n"
	"00651000-00652000 r--p 00051000 08:02 173521      /usr/bin/dbus-daemon\n"
	"00652000-00655000 rw-p 00052000 08:02 173521      /usr/bin/dbus-daemon\n"
	"7f0000000000-7f0000001000 rwxp 00000000 00:00 0 \n"
	"7f1234560000-7f1234580000 r-xs 00010000 fd:01 42    /opt/my app/lib x.so\n"
	"this line is not a mapping\n"
	"7ffd1234a000-7ffd1234c000 r-xp 00000000 00:00 0                          [vdso]";

static const char kallsyms[] =
	"0000000000000000 A fixed_percpu_data\n"
	"ffffffff81e00000 T _text_end\n"
	"ffffffff81000000 T _text\n"
	"ffffffff81001000 T _stext\n"
	"ffffffffc0a01000 t ext4_fill_super\t[ext4]\n";

static const char modules[] =
	"ext4 1036288 1 - Live 0xffffffffc0a00000\n"
	"nvidia 56823808 10 nvidia_modeset,nvidia_uvm, Live 0xffffffffc1000000 (POE)\n"
	"hidden 4096 0 - Live 0x0000000000000000\n";

static void setup(void)
{
	strcpy(root, "/tmp/prof-test-synth-XXXXXX");
	cr_assert_not_null(mkdtemp(root), "mkdtemp: %s", strerror(errno));
	env = (struct synth_env){ .sample_type = SAMPLE_TYPE, .id = SAMPLE_ID };
	env.proc_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(env.proc_fd, 0);
	sink = calloc(1, sizeof(*sink));
	cr_assert_not_null(sink);
	sink->fail_at = -1;

	put_file("1000/task/1000/comm", "dbus-daemon\n");
	put_file("1000/task/1003/comm", "gdbus\n");
	put_file("1000/maps", maps);
	put_file("2000/task/2000/comm", "a-very-long-process-name\n");
	put_file("2000/maps", "");
	/* A task whose maps vanished after its comm was there. */
	put_file("3000/task/3000/comm", "dying\n");
	put_file("kallsyms", kallsyms);
	put_file("modules", modules);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static void teardown(void)
{
	free(sink);
	if (env.proc_fd >= 0)
		close(env.proc_fd);
	if (root[0])
		nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(synth, .init = setup, .fini = teardown);

static const struct perf_event_header *hdr(int i)
{
	return (const struct perf_event_header *)(const void *)sink->rec[i];
}

/* Common checks on a record: size, and the trailer's pid/tid, time, cpu and id. */
static void assert_record(int i, uint32_t type, uint32_t pid, uint32_t tid, uint64_t time)
{
	const struct perf_event_header *h = hdr(i);
	const uint8_t *end = (const uint8_t *)h + h->size;
	uint32_t ids[2];
	uint64_t v;

	cr_assert_lt(i, sink->nr);
	cr_assert_eq(h->type, type, "record %d: type %u, want %u", i, h->type, type);
	cr_assert_eq(h->size, sink->len[i], "record %d: header.size %u, emitted %zu", i, h->size,
		     sink->len[i]);
	cr_assert_eq(h->size % 8, 0, "record %d: size %u not a multiple of 8", i, h->size);
	memcpy(ids, end - 32, 8);
	cr_assert_eq(ids[0], pid, "record %d: trailer pid %u, want %u", i, ids[0], pid);
	cr_assert_eq(ids[1], tid, "record %d: trailer tid %u, want %u", i, ids[1], tid);
	memcpy(&v, end - 24, 8);
	cr_assert_eq(v, time, "record %d: trailer time %llu, want %llu", i,
		     (unsigned long long)v, (unsigned long long)time);
	memcpy(&v, end - 8, 8);
	cr_assert_eq(v, SAMPLE_ID, "record %d: trailer id %#llx", i, (unsigned long long)v);
}

static void assert_comm(int i, uint32_t pid, uint32_t tid, const char *comm)
{
	const struct perf_record_comm *c = (const void *)sink->rec[i];
	size_t body = (strlen(comm) + 1 + 7) & ~(size_t)7;

	assert_record(i, PERF_RECORD_COMM, pid, tid, TIME);
	cr_assert_eq(c->pid, pid);
	cr_assert_eq(c->tid, tid);
	cr_assert_str_eq(c->comm, comm);
	cr_assert_eq(c->header.size, sizeof(c->header) + 8 + body + TRAILER);
}

static void assert_mmap2(int i, uint32_t pid, uint64_t start, uint64_t end, uint64_t pgoff,
			 uint32_t maj, uint32_t min, uint64_t ino, uint32_t prot, uint32_t flags,
			 const char *name)
{
	const struct perf_record_mmap2 *m = (const void *)sink->rec[i];
	size_t fixed = offsetof(struct perf_record_mmap2, filename);
	size_t name_room = m->header.size - fixed - TRAILER;

	assert_record(i, PERF_RECORD_MMAP2, pid, pid, TIME);
	cr_assert_eq(m->header.misc & PERF_RECORD_MISC_CPUMODE_MASK, PERF_RECORD_MISC_USER);
	cr_assert_eq(m->pid, pid);
	cr_assert_eq(m->tid, pid, "maps belong to the process: tid == pid");
	cr_assert_eq(m->start, start, "record %d: start %#llx", i, (unsigned long long)m->start);
	cr_assert_eq(m->len, end - start);
	cr_assert_eq(m->pgoff, pgoff);
	cr_assert_eq(m->maj, maj);
	cr_assert_eq(m->min, min);
	cr_assert_eq(m->ino, ino);
	cr_assert_eq(m->ino_generation, 0);
	cr_assert_eq(m->prot, prot, "record %d: prot %#x, want %#x", i, m->prot, prot);
	cr_assert_eq(m->flags, flags);
	cr_assert_eq(name_room, (strlen(name) + 1 + 7) & ~(size_t)7, "record %d: name room %zu", i,
		     name_room);
	cr_assert_eq(strnlen(m->filename, name_room), strlen(name), "filename not NUL-terminated");
	cr_assert_str_eq(m->filename, name);
}

/* Read the task from the fixture /proc, then describe it to the sink. */
static int describe(pid_t pid, pid_t tid, unsigned int what)
{
	struct synth_task t;
	int err = synth__read_task(&env, pid, tid, what, &t);

	if (err == 0)
		err = synth__task(&env, &t, TIME, emit, sink);
	synth_task__release(&t);
	return err;
}

Test(synth, trailer_size)
{
	struct synth_env e = { 0 };

	cr_assert_eq(synth__id_trailer_size(&env), TRAILER);
	cr_assert_eq(synth__id_trailer_size(&e), 0);
	e.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
			PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN;
	cr_assert_eq(synth__id_trailer_size(&e), 48);
}

Test(synth, task_comm_and_exec_maps)
{
	cr_assert_eq(describe(1000, 1000, SYNTH_COMM | SYNTH_MAPS), 0);
	cr_assert_eq(sink->nr, 5, "one COMM and four exec maps, got %d records", sink->nr);
	assert_comm(0, 1000, 1000, "dbus-daemon");
	assert_mmap2(1, 1000, 0x400000, 0x452000, 0x1000, 8, 2, 173521, PROT_READ | PROT_EXEC,
		     MAP_PRIVATE, "/usr/bin/dbus-daemon");
	assert_mmap2(2, 1000, 0x7f0000000000ull, 0x7f0000001000ull, 0, 0, 0, 0,
		     PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE, "//anon");
	assert_mmap2(3, 1000, 0x7f1234560000ull, 0x7f1234580000ull, 0x10000, 0xfd, 1, 42,
		     PROT_READ | PROT_EXEC, MAP_SHARED, "/opt/my app/lib x.so");
	assert_mmap2(4, 1000, 0x7ffd1234a000ull, 0x7ffd1234c000ull, 0, 0, 0, 0,
		     PROT_READ | PROT_EXEC, MAP_PRIVATE, "[vdso]");
}

Test(synth, task_data_maps)
{
	env.data_maps = true;
	cr_assert_eq(describe(1000, 1000, SYNTH_MAPS), 0);
	cr_assert_eq(sink->nr, 6, "every mapping, got %d records", sink->nr);
	assert_mmap2(0, 1000, 0x400000, 0x452000, 0x1000, 8, 2, 173521, PROT_READ | PROT_EXEC,
		     MAP_PRIVATE, "/usr/bin/dbus-daemon");
	assert_mmap2(1, 1000, 0x651000, 0x652000, 0x51000, 8, 2, 173521, PROT_READ, MAP_PRIVATE,
		     "/usr/bin/dbus-daemon");
	assert_mmap2(2, 1000, 0x652000, 0x655000, 0x52000, 8, 2, 173521, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE, "/usr/bin/dbus-daemon");
	assert_mmap2(3, 1000, 0x7f0000000000ull, 0x7f0000001000ull, 0, 0, 0, 0,
		     PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE, "//anon");
	assert_mmap2(5, 1000, 0x7ffd1234a000ull, 0x7ffd1234c000ull, 0, 0, 0, 0,
		     PROT_READ | PROT_EXEC, MAP_PRIVATE, "[vdso]");
}

Test(synth, task_comm_only)
{
	cr_assert_eq(describe(1000, 1000, SYNTH_COMM), 0);
	cr_assert_eq(sink->nr, 1);
	assert_comm(0, 1000, 1000, "dbus-daemon");
}

Test(synth, task_maps_only)
{
	cr_assert_eq(describe(1000, 1000, SYNTH_MAPS), 0);
	cr_assert_eq(sink->nr, 4);
	for (int i = 0; i < sink->nr; i++)
		cr_assert_eq(hdr(i)->type, PERF_RECORD_MMAP2);
}

Test(synth, thread_of_a_process)
{
	cr_assert_eq(describe(1000, 1003, SYNTH_COMM), 0);
	cr_assert_eq(sink->nr, 1);
	assert_comm(0, 1000, 1003, "gdbus");
}

Test(synth, long_comm_truncated)
{
	cr_assert_eq(describe(2000, 2000, SYNTH_COMM | SYNTH_MAPS), 0);
	cr_assert_eq(sink->nr, 1, "empty maps: COMM only");
	assert_comm(0, 2000, 2000, "a-very-long-pro");
}

Test(synth, vanished_task)
{
	cr_assert_eq(describe(4242, 4242, SYNTH_COMM | SYNTH_MAPS), -ESRCH);
	cr_assert_eq(sink->nr, 0);
	cr_assert_eq(describe(4242, 4242, SYNTH_MAPS), -ESRCH);
	cr_assert_eq(describe(1000, 4243, SYNTH_COMM), -ESRCH,
		     "a thread that is gone");
	cr_assert_eq(sink->nr, 0);
}

Test(synth, vanished_between_files)
{
	/* comm was read, maps was not there any more: still nothing emitted. */
	cr_assert_eq(describe(3000, 3000, SYNTH_COMM | SYNTH_MAPS), -ESRCH);
	cr_assert_eq(sink->nr, 0);
	/* Its comm alone is fine. */
	cr_assert_eq(describe(3000, 3000, SYNTH_COMM), 0);
	assert_comm(0, 3000, 3000, "dying");
}

Test(synth, bad_ids)
{
	cr_assert_eq(describe(0, 0, SYNTH_COMM), -ESRCH);
	cr_assert_eq(describe(-1, 1000, SYNTH_COMM), -ESRCH);
	cr_assert_eq(sink->nr, 0);
}

/* The reads end before anything is described, and say when: a kernel MMAP2 stamped up
 * to then repeats a map read (map_dedup.h). */
Test(synth, read_first_then_describe)
{
	struct synth_task t;
	uint64_t before = clock_mono_ns(), after;

	cr_assert_eq(synth__read_task(&env, 1000, 1000, SYNTH_COMM | SYNTH_MAPS, &t), 0);
	after = clock_mono_ns();
	cr_assert_eq(sink->nr, 0, "nothing is emitted by the read");
	cr_assert_geq(t.read_done, before);
	cr_assert_leq(t.read_done, after);
	cr_assert_str_eq(t.comm, "dbus-daemon");
	cr_assert_not_null(t.maps);
	cr_assert_eq(synth__task(&env, &t, TIME, emit, sink), 0);
	cr_assert_eq(sink->nr, 5);
	synth_task__release(&t);
	cr_assert_null(t.maps);
	/* gone: nothing to release, nothing to describe */
	cr_assert_eq(synth__read_task(&env, 4242, 4242, SYNTH_COMM, &t), -ESRCH);
	cr_assert_null(t.maps);
}

Test(synth, emit_error_propagates)
{
	sink->fail_at = 2;
	cr_assert_eq(describe(1000, 1000, SYNTH_COMM | SYNTH_MAPS), -ENOSPC);
	cr_assert_eq(sink->nr, 2, "stops at the first failure");

	sink->nr = 0;
	sink->fail_at = 0;
	cr_assert_eq(describe(1000, 1000, SYNTH_COMM | SYNTH_MAPS), -ENOSPC);
	cr_assert_eq(sink->nr, 0);
}

/* synth__comm() takes a comm[16], as the kernel and procfs__comm() keep it. */
static int emit_comm(pid_t pid, pid_t tid, const char *str)
{
	char comm[16] = { 0 };

	cr_assert_lt(strlen(str), sizeof(comm));
	memcpy(comm, str, strlen(str));
	return synth__comm(&env, pid, tid, comm, TIME, emit, sink);
}

Test(synth, comm_record)
{
	const char full[16] = { 'f', 'i', 'f', 't', 'e', 'e', 'n', '-', 'c', 'h', 'a', 'r', 's', '!',
				'!', 'X' };     /* not NUL-terminated */

	cr_assert_eq(emit_comm(7, 8, "cat"), 0);
	assert_comm(0, 7, 8, "cat");
	cr_assert_eq(hdr(0)->size, 8 + 8 + 8 + TRAILER);

	cr_assert_eq(emit_comm(7, 9, "1234567"), 0);
	assert_comm(1, 7, 9, "1234567");
	cr_assert_eq(hdr(1)->size, 8 + 8 + 8 + TRAILER);

	cr_assert_eq(emit_comm(7, 10, "12345678"), 0);
	assert_comm(2, 7, 10, "12345678");
	cr_assert_eq(hdr(2)->size, 8 + 8 + 16 + TRAILER);

	cr_assert_eq(synth__comm(&env, 7, 11, full, TIME, emit, sink), 0);
	assert_comm(3, 7, 11, "fifteen-chars!!");
	cr_assert_eq(hdr(3)->size, 8 + 8 + 16 + TRAILER);

	cr_assert_eq(emit_comm(7, 12, ""), 0);
	assert_comm(4, 7, 12, "");
}

Test(synth, comm_without_trailer)
{
	const struct perf_record_comm *c;

	env.sample_type = PERF_SAMPLE_IP;
	cr_assert_eq(emit_comm(7, 8, "cat"), 0);
	c = (const void *)sink->rec[0];
	cr_assert_eq(c->header.type, PERF_RECORD_COMM);
	cr_assert_eq(c->header.size, 8 + 8 + 8);
	cr_assert_eq(sink->len[0], 24);
	cr_assert_str_eq(c->comm, "cat");
}

static void assert_kmap(int i, uint64_t start, uint64_t len, uint64_t pgoff, const char *name)
{
	const struct perf_record_mmap *m = (const void *)sink->rec[i];
	const struct perf_event_header *h = hdr(i);
	size_t fixed = offsetof(struct perf_record_mmap, filename);
	size_t name_room = h->size - fixed - TRAILER;

	cr_assert_lt(i, sink->nr);
	cr_assert_eq(h->type, PERF_RECORD_MMAP, "record %d: type %u", i, h->type);
	cr_assert_eq(h->misc & PERF_RECORD_MISC_CPUMODE_MASK, PERF_RECORD_MISC_KERNEL);
	cr_assert_eq(h->size, sink->len[i]);
	cr_assert_eq(h->size % 8, 0);
	cr_assert_eq(m->pid, (uint32_t)-1, "kernel maps belong to pid -1");
	cr_assert_eq(m->tid, 0);
	cr_assert_eq(m->start, start, "record %d: start %#llx", i, (unsigned long long)m->start);
	cr_assert_eq(m->len, len, "record %d: len %#llx", i, (unsigned long long)m->len);
	cr_assert_eq(m->pgoff, pgoff, "record %d: pgoff %#llx", i, (unsigned long long)m->pgoff);
	cr_assert_eq(name_room, (strlen(name) + 1 + 7) & ~(size_t)7);
	cr_assert_str_eq(m->filename, name);
}

Test(synth, kernel_maps)
{
	uint64_t text = 0xffffffff81000000ull;

	cr_assert_eq(synth__kernel_maps(&env, emit, sink), 0);
	cr_assert_eq(sink->nr, 3, "kernel, ext4, nvidia (hidden skipped), got %d", sink->nr);
	assert_kmap(0, text, ~0ull - text, text, "[kernel.kallsyms]_text");
	assert_kmap(1, 0xffffffffc0a00000ull, 1036288, 0, "[ext4]");
	assert_kmap(2, 0xffffffffc1000000ull, 56823808, 0, "[nvidia]");
}

Test(synth, kernel_maps_stext_fallback)
{
	put_file("kallsyms", "ffffffff81000000 T startup_64\nffffffff81001000 T _stext\n");
	cr_assert_eq(synth__kernel_maps(&env, emit, sink), 0);
	cr_assert_geq(sink->nr, 1);
	assert_kmap(0, 0xffffffff81001000ull, ~0ull - 0xffffffff81001000ull, 0xffffffff81001000ull,
		    "[kernel.kallsyms]_stext");
}

Test(synth, kernel_maps_hidden)
{
	put_file("kallsyms", "0000000000000000 T startup_64\n0000000000000000 T _text\n"
			     "0000000000000000 T _stext\n");
	cr_assert_eq(synth__kernel_maps(&env, emit, sink), -EPERM);
	cr_assert_eq(sink->nr, 0);
}

Test(synth, kernel_maps_no_modules)
{
	cr_assert_eq(unlinkat(env.proc_fd, "modules", 0), 0);
	cr_assert_eq(synth__kernel_maps(&env, emit, sink), 0);
	cr_assert_eq(sink->nr, 1);
	assert_kmap(0, 0xffffffff81000000ull, ~0ull - 0xffffffff81000000ull, 0xffffffff81000000ull,
		    "[kernel.kallsyms]_text");
}

Test(synth, kernel_maps_no_kallsyms)
{
	cr_assert_eq(unlinkat(env.proc_fd, "kallsyms", 0), 0);
	cr_assert_lt(synth__kernel_maps(&env, emit, sink), 0);
	cr_assert_eq(sink->nr, 0);
}

Test(synth, kernel_maps_no_reference_symbol)
{
	put_file("kallsyms", "ffffffff81000000 T startup_64\n");
	cr_assert_eq(synth__kernel_maps(&env, emit, sink), -ENOENT);
	cr_assert_eq(sink->nr, 0);
}
