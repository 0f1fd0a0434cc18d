/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf's --call-graph dwarf samples unwound while a file is read: this process's
 * own registers and stack, laid out as perf record asks for them (perf's register
 * mask, a bigger one than prof's), its executable mappings told as MMAP2 records
 * to the reader's model through dwarf_stacks__note, and the objects found through
 * the symbols (the mapped device and inode: no build id is recorded here).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <perf/event.h>
#include <criterion/criterion.h>

#include "prof/analyze/dwarf_stacks.h"
#include "prof/analyze/model.h"
#include "prof/analyze/symbols.h"
#include "prof/perfdata/sample.h"
#include "own_maps.h"
#include "own_stack.h"

/* what perf record --call-graph dwarf samples (without ADDR, DATA_SRC...) */
#define PERF_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN | \
		   PERF_SAMPLE_PERIOD | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)
/* perf's x86-64 mask: ax..ip, flags, cs, ss, r8..r15 (no ds, es, fs, gs) */
#define PERF_REGS 0xff0fffull
#define NR_PERF_REGS 20
#define STACK_LEN 4096

static struct {
	uint64_t regs[NR_PERF_REGS];
	uint8_t stack[STACK_LEN];
	uint64_t stack_len;
} cap;

static volatile int sink;

/* The registers and stack here, in perf's mask order; flags, cs, ss are noise. */
__attribute__((noinline)) static void capture_here(void)
{
	uint64_t ip, sp, bp;

	__asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2" : "=r"(ip), "=r"(sp), "=r"(bp));
	memset(&cap, 0, sizeof(cap));
	cap.regs[6] = bp;
	cap.regs[7] = sp;
	cap.regs[8] = ip;
	cap.regs[9] = cap.regs[10] = cap.regs[11] = 0x5a5a5a5a5a5a5a5aull;
	cap.stack_len = own_stack(cap.stack, sp, STACK_LEN);
}

__attribute__((noinline)) static void outer(void)
{
	capture_here();
	sink++;
}

static bool in_outer(uint64_t a)
{
	return a > (uint64_t)(uintptr_t)outer && a < (uint64_t)(uintptr_t)outer + 256;
}

static union {
	struct perf_event_header h;
	uint64_t align;
	uint8_t bytes[16384];
} rec;
static size_t rec_len;

static void put(const void *p, size_t n)
{
	cr_assert_leq(rec_len + n, sizeof(rec.bytes));
	memcpy(rec.bytes + rec_len, p, n);
	rec_len += n;
}

static void put64(uint64_t v)
{
	put(&v, 8);
}

/* A sample of pid as perf writes them: the kernel's part of the chain only. */
static void make_sample(int32_t pid, uint64_t abi)
{
	uint32_t ids[2] = { (uint32_t)pid, (uint32_t)pid };
	uint64_t kchain[2] = { PERF_CONTEXT_KERNEL, 0xffffffff81000000ull };

	memset(&rec.h, 0, sizeof(rec.h));
	rec_len = sizeof(rec.h);
	rec.h.type = PERF_RECORD_SAMPLE;
	rec.h.misc = PERF_RECORD_MISC_KERNEL;
	put64(0xffffffff81000000ull);   /* IP */
	put(ids, 8);                    /* TID */
	put64(1000);                    /* TIME */
	put64(1);                       /* PERIOD */
	put64(2);                       /* CALLCHAIN */
	put(kchain, sizeof(kchain));
	put64(abi);                     /* REGS_USER */
	if (abi)
		put(cap.regs, sizeof(cap.regs));
	put64(STACK_LEN);               /* STACK_USER */
	put(cap.stack, STACK_LEN);
	put64(cap.stack_len);
	rec.h.size = (uint16_t)rec_len;
}

static const struct perf_event_attr attr = { .size = sizeof(attr), .sample_type = PERF_TYPE,
					     .sample_regs_user = PERF_REGS, .sample_stack_user = STACK_LEN };

static void note_one(const struct perf_event_header *ev, void *d)
{
	cr_assert_eq(dwarf_stacks__note(d, ev), 0);
}

Test(dwarf_stacks, perf_sample_unwound_over_the_readers_model)
{
	struct model *m = model__new();
	struct symbols *syms = symbols__new();
	struct dwarf_stacks *d = dwarf_stacks__new(m, syms);
	struct sample s;

	cr_assert(m && syms && d);
	cr_assert(dwarf_stacks__wanted(&attr));
	cr_assert(own_maps(getpid(), note_one, d) > 0);
	cr_assert_not_null(model__maps(m, getpid()), "the records reached the reader's model");
	outer();
	make_sample(getpid(), PERF_SAMPLE_REGS_ABI_64);
	cr_assert_eq(sample__decode(&s, &attr, &rec.h), 0);
	cr_assert(dwarf_stacks__unwind(d, &attr, &s));
	cr_assert_geq(s.nr_callchain, 2 + 1 + 3, "kernel part, PERF_CONTEXT_USER, >= 3 user frames");
	cr_assert_eq(s.callchain[0], PERF_CONTEXT_KERNEL);
	cr_assert_eq(s.callchain[1], 0xffffffff81000000ull);
	cr_assert_eq(s.callchain[2], PERF_CONTEXT_USER);
	cr_assert_eq(s.callchain[3], cap.regs[8], "the sampled user ip first");
	cr_assert(in_outer(s.callchain[4]), "then the return address in outer(): %#lx",
		  (unsigned long)s.callchain[4]);
	cr_assert_eq(dwarf_stacks__stats(d)->samples, 1);
	dwarf_stacks__free(d);
	symbols__free(syms);
	model__free(m);
}

Test(dwarf_stacks, exec_keeps_the_maps_as_perf_does)
{
	struct model *m = model__new();
	struct symbols *syms = symbols__new();
	struct dwarf_stacks *d = dwarf_stacks__new(m, syms);
	struct { struct perf_record_comm c; char pad[16]; } comm = { 0 };
	struct sample s;

	cr_assert(own_maps(getpid(), note_one, d) > 0);
	outer();
	comm.c.header = (struct perf_event_header){ .type = PERF_RECORD_COMM, .misc = PERF_RECORD_MISC_COMM_EXEC,
						    .size = sizeof(comm) };
	comm.c.pid = comm.c.tid = (uint32_t)getpid();
	strcpy(comm.c.comm, "new");
	cr_assert_eq(dwarf_stacks__note(d, &comm.c.header), 0);
	cr_assert_str_eq(model__comm(m, getpid()), "new", "the COMM reached the model");
	make_sample(getpid(), PERF_SAMPLE_REGS_ABI_64);
	cr_assert_eq(sample__decode(&s, &attr, &rec.h), 0);
	cr_assert(dwarf_stacks__unwind(d, &attr, &s));
	cr_assert(s.nr_callchain >= 6 && in_outer(s.callchain[4]), "unwound with the maps the model kept");
	dwarf_stacks__free(d);
	symbols__free(syms);
	model__free(m);
}

Test(dwarf_stacks, what_is_not_unwound_is_left_alone)
{
	struct model *m = model__new();
	struct symbols *syms = symbols__new();
	struct dwarf_stacks *d = dwarf_stacks__new(m, syms);
	struct perf_event_attr fp = attr;
	struct sample s;

	cr_assert(own_maps(getpid(), note_one, d) > 0);
	outer();
	/* a kernel thread: no user registers, the kernel's chain as it is */
	make_sample(getpid(), 0);
	cr_assert_eq(sample__decode(&s, &attr, &rec.h), 0);
	cr_assert_not(dwarf_stacks__unwind(d, &attr, &s));
	cr_assert_eq(s.nr_callchain, 2);
	/* an event without prof's registers */
	fp.sample_regs_user = 0xff;
	cr_assert_not(dwarf_stacks__wanted(&fp));
	fp.sample_type &= ~(uint64_t)PERF_SAMPLE_STACK_USER;
	fp.sample_regs_user = PERF_REGS;
	cr_assert_not(dwarf_stacks__wanted(&fp));
	dwarf_stacks__free(d);
	symbols__free(syms);
	model__free(m);
}
