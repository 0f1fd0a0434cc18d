/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Without --call-graph dwarf, the samples of processes that map an executable
 * CPython interpreter are counted (python/hint.h): by the file names CPython's
 * objects have, executable mappings only, a process forgotten at its exec.
 */
#include <string.h>
#include <sys/mman.h>
#include <criterion/criterion.h>

#include "prof/python/hint.h"

static struct sample_layout L;
static struct python_hint *h;

static void init(void)
{
	sample_layout__init(&L, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME);
	h = python_hint__new(&L);
	cr_assert_not_null(h);
}

static void fini(void)
{
	python_hint__free(h);
}

static void mmap2(int32_t pid, const char *path, uint32_t prot)
{
	union {
		struct perf_record_mmap2 m;
		uint8_t b[256];
	} u = { 0 };
	size_t len = (offsetof(struct perf_record_mmap2, filename) + strlen(path) + 1 + 7) & ~7ul;

	u.m.header = (struct perf_event_header){ .type = PERF_RECORD_MMAP2, .size = (uint16_t)len };
	u.m.pid = (uint32_t)pid;
	u.m.tid = (uint32_t)pid;
	u.m.prot = prot;
	strcpy(u.m.filename, path);
	python_hint__note(h, &u.m.header);
}

static void sample(int32_t pid)
{
	struct {
		struct perf_event_header h;
		uint64_t ip;
		uint32_t pid, tid;
		uint64_t time;
	} s = { { PERF_RECORD_SAMPLE, 0, sizeof(s) }, 0x1000, (uint32_t)pid, (uint32_t)pid, 1 };

	python_hint__note(h, &s.h);
}

static void exec_comm(int32_t pid)
{
	struct perf_record_comm c = { .header = { PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, sizeof(c) },
				      .pid = (uint32_t)pid, .tid = (uint32_t)pid };

	python_hint__note(h, &c.header);
}

Test(hint, interpreters_by_their_names, .init = init, .fini = fini)
{
	mmap2(10, "/usr/bin/python3.11", PROT_READ | PROT_EXEC);
	mmap2(11, "/opt/py/lib/libpython3.12.so.1.0", PROT_READ | PROT_EXEC);
	mmap2(12, "/usr/bin/python3.13t", PROT_READ | PROT_EXEC);
	mmap2(20, "/usr/bin/python3.11", PROT_READ);                 /* not executable */
	mmap2(21, "/home/a/python3.x", PROT_READ | PROT_EXEC);
	mmap2(22, "/usr/lib/python3.11/lib-dynload/_ctypes.so", PROT_READ | PROT_EXEC);
	mmap2(23, "/usr/bin/mypython3.11", PROT_READ | PROT_EXEC);
	mmap2(24, "/usr/bin/python3.11-config", PROT_READ | PROT_EXEC);
	for (int32_t pid = 10; pid < 25; pid++)
		sample(pid);
	cr_expect_eq(python_hint__stats(h)->processes, 3);
	cr_expect_eq(python_hint__stats(h)->samples, 3);
	cr_expect_str_eq(python_hint__stats(h)->name, "python3.11");
}

Test(hint, an_exec_forgets_the_process, .init = init, .fini = fini)
{
	mmap2(10, "/usr/bin/python3.11", PROT_READ | PROT_EXEC);
	mmap2(10, "/usr/bin/python3.11", PROT_READ | PROT_EXEC);    /* a second segment */
	sample(10);
	exec_comm(10);
	sample(10);
	cr_expect_eq(python_hint__stats(h)->processes, 1);
	cr_expect_eq(python_hint__stats(h)->samples, 1);
}
