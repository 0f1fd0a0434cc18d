/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * From addresses to frames on this test's own program: a model fed the MMAP2
 * records of its executable mappings, the real symbolizer on the binary, a JIT map
 * file for anonymous code, and what must stay [unknown] (unmapped addresses, the
 * kernel of another host, a file whose build id is not the recording's).
 */
#include <errno.h>
#include <gelf.h>
#include <sys/auxv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <perf/event.h>
#include <criterion/criterion.h>

#include "prof/analyze/attribution.h"
#include "prof/analyze/jitmap.h"
#include "prof/analyze/model.h"
#include "prof/analyze/resolver.h"
#include "prof/analyze/symbols.h"
#include "prof/base/strset.h"
#include "prof/perfdata/vdso.h"
#include "prof/runtime/dynsym.h"
#include "own_maps.h"

#define ANON_START 0x7f0000000000ull

struct fixture {
	struct model *model;
	struct symbols *syms;
	struct jitmap *jit;
	struct strset names;
	struct resolver res;
	char exe[4096];
	char jitdir[64];
};

static struct fixture fx;

static union record rec;

static void feed(const struct perf_event_header *ev, void *ctx)
{
	cr_assert_eq(model__process(fx.model, ev), 0);
}

static void feed_mmap2(int32_t pid, uint16_t misc, uint64_t start, uint64_t len, uint64_t pgoff,
		       uint32_t maj, uint32_t min, uint64_t ino, uint32_t prot, const char *name)
{
	feed(mmap2_record(&rec, pid, misc, start, len, pgoff, maj, min, ino, prot, name), NULL);
}

static void setup(void)
{
	ssize_t n = readlink("/proc/self/exe", fx.exe, sizeof(fx.exe) - 1);

	cr_assert_gt(n, 0);
	fx.exe[n] = '\0';
	fx.model = model__new();
	fx.syms = symbols__new();
	cr_assert(fx.model && fx.syms);
	strcpy(fx.jitdir, "/tmp/prof-test-jit-XXXXXX");
	cr_assert_not_null(mkdtemp(fx.jitdir));
	fx.jit = jitmap__new(fx.jitdir);
	fx.res = (struct resolver){ .model = fx.model, .syms = fx.syms, .jit = fx.jit, .names = &fx.names,
				    .inlines = true };
	cr_assert_gt(own_maps(getpid(), feed, NULL), 0);
}

static void teardown(void)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/perf-%d.map", fx.jitdir, getpid());
	unlink(path);
	rmdir(fx.jitdir);
	jitmap__free(fx.jit);
	symbols__free(fx.syms);
	model__free(fx.model);
	strset__release(&fx.names);
	memset(&fx, 0, sizeof(fx));
}

TestSuite(resolver, .init = setup, .fini = teardown);

static volatile int sink;

__attribute__((noinline)) static uint64_t resolver_test_target(void)
{
	sink++;
	return (uint64_t)(uintptr_t)__builtin_return_address(0);
}

__attribute__((noinline)) static uint64_t resolver_test_caller(void)
{
	uint64_t ret = resolver_test_target();

	sink++;                         /* no tail call: the return address is in here */
	return ret;
}

static inline __attribute__((always_inline)) uint64_t resolver_test_inlined(void)
{
	uint64_t ip;

	/* the address of this very instruction: inside the inlined code */
	__asm__ volatile("1: lea 1b(%%rip), %0" : "=r"(ip));
	return ip;
}

__attribute__((noinline)) static uint64_t resolver_test_outer(void)
{
	uint64_t ip = resolver_test_inlined();

	sink++;
	return ip;
}

Test(resolver, own_functions_by_name_and_object)
{
	struct profile_frame f;

	resolver__frame(&fx.res, getpid(), false, (uint64_t)(uintptr_t)resolver_test_target + 1, &f);
	cr_assert_str_eq(f.sym, "resolver_test_target");
	cr_assert_str_eq(f.dso, fx.exe);
	cr_assert_not(f.kernel);
	resolver__frame(&fx.res, getpid(), false, (uint64_t)(uintptr_t)resolver_test_caller, &f);
	cr_assert_str_eq(f.sym, "resolver_test_caller");
	/* names are interned: the same object is one pointer */
	struct profile_frame g;
	resolver__frame(&fx.res, getpid(), false, (uint64_t)(uintptr_t)resolver_test_target, &g);
	cr_assert_eq(f.dso, g.dso);
	cr_assert_str_eq(g.sym, "resolver_test_target");
}

/* With addrs, frames carry ELF addresses; with fn_addrs a named one its function's
 * start, so two addresses of one function are one frame (profd's history). */
Test(resolver, addresses_exact_or_of_the_function)
{
	uint64_t ip = (uint64_t)(uintptr_t)resolver_test_target;
	struct profile_frame a, b;

	fx.res.addrs = true;
	resolver__frame(&fx.res, getpid(), false, ip + 1, &a);
	resolver__frame(&fx.res, getpid(), false, ip + 3, &b);
	cr_assert(a.has_addr && b.has_addr);
	cr_assert_eq(b.addr - a.addr, 2, "exact: %#lx %#lx", (unsigned long)a.addr, (unsigned long)b.addr);
	cr_assert_eq(b.off - a.off, 2);
	fx.res.fn_addrs = true;
	resolver__frame(&fx.res, getpid(), false, ip + 1, &a);
	resolver__frame(&fx.res, getpid(), false, ip + 3, &b);
	cr_assert_str_eq(a.sym, "resolver_test_target");
	cr_assert(a.has_addr && a.addr == b.addr && a.off == b.off, "%#lx %#lx", (unsigned long)a.addr,
		  (unsigned long)b.addr);
	/* the function's start: one byte before the first lookup's exact address */
	fx.res.fn_addrs = false;
	resolver__frame(&fx.res, getpid(), false, ip + 1, &b);
	cr_assert_eq(b.addr - a.addr, 1);
}

Test(resolver, a_stack_skips_the_chain_copy_of_the_ip_and_looks_back_from_return_addresses)
{
	uint64_t ip = (uint64_t)(uintptr_t)resolver_test_target + 2, ret = resolver_test_caller();
	uint64_t chain[] = { (uint64_t)PERF_CONTEXT_USER, ip, ret };
	struct profile_frame frames[8];
	size_t n;

	n = resolver__stack(&fx.res, getpid(), PERF_RECORD_MISC_USER, ip, chain, 3, true, frames, 8);
	cr_assert_eq(n, 2, "ip and one caller, not the ip twice: %zu frames", n);
	cr_assert_str_eq(frames[0].sym, "resolver_test_target");
	cr_assert_str_eq(frames[1].sym, "resolver_test_caller");
	n = resolver__stack(&fx.res, getpid(), PERF_RECORD_MISC_USER, ip, chain, 3, false, frames, 8);
	cr_assert_eq(n, 1, "without the chain: the ip only");
	n = resolver__stack(&fx.res, getpid(), PERF_RECORD_MISC_USER, ip, chain, 3, true, frames, 1);
	cr_assert_eq(n, 1, "never more than max");
}

Test(resolver, inlined_functions_are_frames_of_their_own)
{
	uint64_t ip = resolver_test_outer();
	struct profile_frame frames[8];
	size_t n = resolver__stack(&fx.res, getpid(), PERF_RECORD_MISC_USER, ip, NULL, 0, true, frames, 8);

	cr_assert_geq(n, 2, "%zu frames", n);
	cr_assert_str_eq(frames[0].sym, "resolver_test_inlined (inlined)");
	cr_assert(frames[0].inlined);
	cr_assert_str_eq(frames[n - 1].sym, "resolver_test_outer");
	cr_assert_not(frames[n - 1].inlined);
	fx.res.inlines = false;
	n = resolver__stack(&fx.res, getpid(), PERF_RECORD_MISC_USER, ip, NULL, 0, true, frames, 8);
	cr_assert_eq(n, 1);
	cr_assert_str_eq(frames[0].sym, "resolver_test_outer");
}

Test(resolver, unknown_is_said_never_guessed)
{
	struct profile_frame f;
	uint8_t wrong[20] = { 1, 2, 3 };

	/* unmapped, and another process */
	resolver__frame(&fx.res, getpid(), false, 0x10, &f);
	cr_assert_str_eq(f.dso, RESOLVE_UNKNOWN);
	cr_assert_str_eq(f.sym, RESOLVE_UNKNOWN);
	resolver__frame(&fx.res, getpid() + 1, false, (uint64_t)(uintptr_t)resolver_test_target, &f);
	cr_assert_str_eq(f.sym, RESOLVE_UNKNOWN);
	/* the kernel of a recording not made here (kernel_here false) */
	feed_mmap2(-1, PERF_RECORD_MISC_KERNEL, 0xffffffff81000000ull, 0x1000000, 0xffffffff81000000ull, 0, 0, 0,
		   PROT_READ | PROT_EXEC, "[kernel.kallsyms]_text");
	resolver__frame(&fx.res, getpid(), true, 0xffffffff81000100ull, &f);
	cr_assert(f.kernel);
	cr_assert_str_eq(f.dso, "[kernel.kallsyms]");
	cr_assert_str_eq(f.sym, "[unknown] ([kernel.kallsyms])");
	/* the recording says the program had another build id: its file is not that one */
	cr_assert_eq(symbols__expect_build_id(fx.syms, fx.exe, wrong, sizeof(wrong)), 0);
	resolver__frame(&fx.res, getpid(), false, (uint64_t)(uintptr_t)resolver_test_target, &f);
	cr_assert_eq(strncmp(f.sym, "[unknown] (", 11), 0, "%s", f.sym);
	cr_assert_str_eq(f.dso, fx.exe);
}

static void note_clock_gettime(void *ctx, const char *name, const GElf_Sym *sym)
{
	if (!strcmp(name, "__vdso_clock_gettime"))
		*(uint64_t *)ctx = sym->st_value;       /* linked at 0: the offset */
}

/* The offset of __vdso_clock_gettime in this process's vDSO (its .dynsym), 0 if none. */
static uint64_t vdso_clock_gettime(uint64_t *ret_size)
{
	uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	struct vdso_image v;
	uint64_t off = 0;
	Elf *elf;

	if (!base || vdso__own(&v) < 0)
		return 0;
	if ((elf = dynsym__elf(v.fd))) {
		dynsym__each(elf, note_clock_gettime, &off);
		elf_end(elf);
	}
	close(v.fd);
	*ret_size = v.size;
	return off;
}

Test(resolver, vdso_named_from_its_image_of_the_recordings_build_id_only)
{
	uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	uint64_t size = 0, off = vdso_clock_gettime(&size);
	struct profile_frame f;

	if (!off)
		cr_skip_test("no vDSO with __vdso_clock_gettime here");
	/* a 64-bit task's, this kernel's: the live views' case */
	feed_mmap2(getpid(), PERF_RECORD_MISC_USER, base, size, 0, 0, 0, 0, PROT_READ | PROT_EXEC, "[vdso]");
	/* a [vdso] below 4 GiB, perhaps a 32-bit task's other image */
	feed_mmap2(getpid() + 1, PERF_RECORD_MISC_USER, 0xf7fc4000ull, size, 0, 0, 0, 0, PROT_READ | PROT_EXEC,
		   "[vdso]");
	cr_assert_eq(symbols__expect_own_vdso(fx.syms), 0);
	resolver__frame(&fx.res, getpid(), false, base + off + 1, &f);
	cr_assert_str_eq(f.dso, "[vdso]");
	cr_assert_str_eq(f.sym, "__vdso_clock_gettime");
	resolver__frame(&fx.res, getpid() + 1, false, 0xf7fc4000ull + off + 1, &f);
	cr_assert_str_eq(f.sym, "[unknown] ([vdso])", "never the 64-bit image's names");
}

Test(resolver, vdso_of_another_build_id_or_none_is_unknown)
{
	uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	uint64_t size = 0, off = vdso_clock_gettime(&size);
	uint8_t wrong[20] = { 1, 2, 3 };
	struct profile_frame f;
	struct symbols *other = symbols__new();

	if (!off)
		cr_skip_test("no vDSO with __vdso_clock_gettime here");
	feed_mmap2(getpid(), PERF_RECORD_MISC_USER, base, size, 0, 0, 0, 0, PROT_READ | PROT_EXEC, "[vdso]");
	/* a file that names no [vdso] build id (an older prof's): as before */
	resolver__frame(&fx.res, getpid(), false, base + off + 1, &f);
	cr_assert_str_eq(f.sym, "[unknown] ([vdso])");
	/* a file of another kernel: not this one's image */
	fx.res.syms = other;
	resolver__cache_release(&fx.res);
	cr_assert_eq(resolver__cache_init(&fx.res), 0);
	cr_assert_eq(symbols__expect_build_id(other, "[vdso]", wrong, sizeof(wrong)), 0);
	resolver__frame(&fx.res, getpid(), false, base + off + 1, &f);
	cr_assert_str_eq(f.sym, "[unknown] ([vdso])");
	fx.res.syms = fx.syms;
	symbols__free(other);
}

Test(resolver, anonymous_code_from_its_jit_map)
{
	char path[128];
	struct profile_frame f;
	FILE *m;

	/* another process's anonymous code: it has no map file */
	feed_mmap2(getpid() + 1, PERF_RECORD_MISC_USER, ANON_START, 0x10000, 0, 0, 0, 0, PROT_READ | PROT_EXEC,
		   "//anon");
	resolver__frame(&fx.res, getpid() + 1, false, ANON_START + 0x1010, &f);
	cr_assert_str_eq(f.sym, "[unknown] (//anon)");
	feed_mmap2(getpid(), PERF_RECORD_MISC_USER, ANON_START, 0x10000, 0, 0, 0, 0, PROT_READ | PROT_EXEC, "//anon");
	snprintf(path, sizeof(path), "%s/perf-%d.map", fx.jitdir, getpid());
	m = fopen(path, "w");
	cr_assert_not_null(m);
	fprintf(m, "%llx 100 jitted_function\n", (unsigned long long)ANON_START + 0x1000);
	fclose(m);
	cr_assert_eq(model__set_uid(fx.model, getpid(), getuid()), 0);
	resolver__frame(&fx.res, getpid(), false, ANON_START + 0x1010, &f);
	cr_assert_str_eq(f.sym, "jitted_function");
	cr_assert_str_eq(f.dso, "//anon");
	resolver__frame(&fx.res, getpid(), false, ANON_START + 0x20, &f);
	cr_assert_str_eq(f.sym, "[unknown] (//anon)", "outside the map file's functions");
}

/*
 * A map copied into the recording (a container's process) names its lifetime's
 * samples alone: the same host pid used again later has its own copy, and a time in
 * no copied lifetime falls back to /tmp (here: no file, [unknown]).
 */
Test(resolver, copied_maps_name_their_lifetime_only)
{
	int32_t pid = getpid() + 2;
	struct profile_frame f;

	feed_mmap2(pid, PERF_RECORD_MISC_USER, ANON_START, 0x10000, 0, 0, 0, 0, PROT_READ | PROT_EXEC, "//anon");
	feed_mmap2(pid + 1, PERF_RECORD_MISC_USER, ANON_START, 0x10000, 0, 0, 0, 0, PROT_READ | PROT_EXEC, "//anon");
	cr_assert_eq(jitmap__add_copy(fx.jit, pid, 0, 1000, ANON_START + 0x1000, 0x100, "first_life"), 0);
	cr_assert_eq(jitmap__add_copy(fx.jit, pid, 0, 1000, ANON_START, 0x100, "first_life_low"), 0);
	cr_assert_eq(jitmap__add_copy(fx.jit, pid, 2000, UINT64_MAX, ANON_START + 0x1000, 0x100, "second_life"), 0);
	jitmap__at(fx.jit, 1000);
	resolver__frame(&fx.res, pid, false, ANON_START + 0x1010, &f);
	cr_assert_str_eq(f.sym, "first_life", "until is in the lifetime");
	resolver__frame(&fx.res, pid, false, ANON_START + 0x10, &f);
	cr_assert_str_eq(f.sym, "first_life_low", "a copy's lines are sorted before use");
	jitmap__at(fx.jit, 2000);
	resolver__frame(&fx.res, pid, false, ANON_START + 0x1010, &f);
	cr_assert_str_eq(f.sym, "[unknown] (//anon)", "from is not: between two lifetimes, no copy");
	jitmap__at(fx.jit, 2001);
	resolver__frame(&fx.res, pid, false, ANON_START + 0x1010, &f);
	cr_assert_str_eq(f.sym, "second_life");
	resolver__frame(&fx.res, pid + 1, false, ANON_START + 0x1010, &f);
	cr_assert_str_eq(f.sym, "[unknown] (//anon)", "another pid's copy names nothing of it");
}

/* A sample counted by the attribution: the task's facts, its resolved stack. */
Test(resolver, attribution_counts_a_sample_under_its_task_and_stack)
{
	struct profile *p = profile__new(0);
	struct attribution a = { .res = &fx.res, .prof = p, .callchain = true,
				 .keep = { [PROFILE_KEY_PID] = true, [PROFILE_KEY_COMM] = true } };
	uint64_t ip = (uint64_t)(uintptr_t)resolver_test_target + 2, ret = resolver_test_caller();
	uint64_t chain[] = { (uint64_t)PERF_CONTEXT_USER, ip, ret };
	struct sample s = { .misc = PERF_RECORD_MISC_USER, .pid = (uint32_t)getpid(), .tid = (uint32_t)getpid(),
			    .ip = ip, .callchain = chain, .nr_callchain = 3, .cgroup = 42 };
	const struct profile_entry *e;
	size_t nr;
	const uint32_t *ids;

	cr_assert_not_null(p);
	cr_assert_eq(attribution__add(&a, &s), 1);
	s.cgroup = 43;                  /* not kept apart: the same entry */
	cr_assert_eq(attribution__add(&a, &s), 1);
	e = profile__entries(p, &nr);
	cr_assert_eq(nr, 1);
	cr_assert_eq(e[0].samples, 2);
	cr_assert_eq(e[0].period, 2, "no period: 1 each");
	cr_assert_eq(e[0].task.pid, getpid());
	cr_assert_eq(e[0].task.cgroup, 0);
	cr_assert_str_eq(e[0].task.comm, RESOLVE_UNKNOWN, "no COMM record: [unknown]");
	ids = profile__stack(p, e[0].stack, &nr);
	cr_assert_eq(nr, 2);
	cr_assert_str_eq(profile__frames(p, &(size_t){ 0 })[ids[1]].sym, "resolver_test_caller");
	s.tid = 0;
	s.pid = 0;
	cr_assert_eq(attribution__add(&a, &s), 1);
	e = profile__entries(p, &nr);
	cr_assert_str_eq(e[nr - 1].task.comm, "swapper", "the idle task, as perf names it");
	profile__free(p);
}

/* With its cache, a frame is answered again until the maps change, then found anew. */
Test(resolver, cached_frames_follow_the_maps)
{
	uint64_t ip = (uint64_t)(uintptr_t)resolver_test_target + 1;
	struct profile_frame f;

	cr_assert_eq(resolver__cache_init(&fx.res), 0);
	resolver__frame(&fx.res, getpid(), false, ip, &f);
	cr_assert_str_eq(f.sym, "resolver_test_target");
	resolver__frame(&fx.res, getpid(), false, ip, &f);
	cr_assert_str_eq(f.sym, "resolver_test_target", "from the cache");
	model__clear_maps(fx.model, getpid());
	resolver__frame(&fx.res, getpid(), false, ip, &f);
	cr_assert_str_eq(f.sym, RESOLVE_UNKNOWN, "unmapped since: not the cached answer");
	cr_assert_str_eq(f.dso, RESOLVE_UNKNOWN);
	resolver__cache_release(&fx.res);
}

/* With the memo, a sample like one counted lately goes to its entry; after the maps
 * change it is resolved again. */
Test(resolver, attribution_memo_counts_again_until_the_maps_change)
{
	struct profile *p = profile__new(0);
	struct attribution a = { .res = &fx.res, .prof = p, .callchain = true,
				 .keep = { [PROFILE_KEY_PID] = true, [PROFILE_KEY_COMM] = true } };
	uint64_t ip = (uint64_t)(uintptr_t)resolver_test_target + 2, ret = resolver_test_caller();
	uint64_t chain[] = { (uint64_t)PERF_CONTEXT_USER, ip, ret };
	struct sample s = { .misc = PERF_RECORD_MISC_USER, .pid = (uint32_t)getpid(), .tid = (uint32_t)getpid(),
			    .ip = ip, .callchain = chain, .nr_callchain = 3, .period = 3 };
	const struct profile_entry *e;
	size_t nr;

	cr_assert_not_null(p);
	cr_assert_eq(resolver__cache_init(&fx.res), 0);
	cr_assert_eq(attribution__memo_init(&a), 0);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(attribution__add(&a, &s), 1);
	chain[2] = ip + 1;              /* another chain: another stack */
	cr_assert_eq(attribution__add(&a, &s), 1);
	e = profile__entries(p, &nr);
	cr_assert_eq(nr, 2);
	cr_assert_eq(e[0].samples, 3);
	cr_assert_eq(e[0].period, 9);
	cr_assert_eq(profile__stats(p)->samples, 4);
	model__clear_maps(fx.model, getpid());
	cr_assert_eq(attribution__add(&a, &s), 1);
	e = profile__entries(p, &nr);
	cr_assert_eq(nr, 3, "unmapped since: a stack of [unknown]");
	cr_assert_str_eq(profile__frames(p, &(size_t){ 0 })[profile__stack(p, e[2].stack, &nr)[0]].sym,
			 RESOLVE_UNKNOWN);
	attribution__memo_release(&a);
	resolver__cache_release(&fx.res);
	profile__free(p);
}

/* kallsyms: functions only, out-of-order lines sorted, one name one pointer. */
Test(resolver, kallsyms_functions_sorted_names_interned)
{
	static const char ks[] =
		"ffffffff81000000 T _text\n"
		"ffffffff81000100 t dup\n"
		"ffffffff81000300 D data_not_code\n"
		"ffffffff81000400 T later\t[mod]\n"
		"ffffffff81000200 t dup\n"
		"ffffffff810000f0 W weak_one\n";
	const char *a, *b;

	cr_assert_eq(symbols__load_kallsyms(fx.syms, ks, "_text", 0xffffffff91000000ull), 0);
	cr_assert_str_eq(symbols__kernel(fx.syms, 0xffffffff910000f8ull), "weak_one");
	a = symbols__kernel(fx.syms, 0xffffffff91000180ull);
	b = symbols__kernel(fx.syms, 0xffffffff91000280ull);
	cr_assert_str_eq(a, "dup");
	cr_assert_eq(a, b, "interned: one pointer");
	cr_assert_str_eq(symbols__kernel(fx.syms, 0xffffffff91000380ull), "dup", "data is not a function");
	cr_assert_str_eq(symbols__kernel(fx.syms, 0xffffffff91000400ull), "later", "the module's name cut");
	cr_assert_null(symbols__kernel(fx.syms, 0xffffffff80000000ull));
	cr_assert_eq(symbols__load_kallsyms(fx.syms, ks, "_stext", 0), -ENOENT);
}
