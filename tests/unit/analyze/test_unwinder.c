/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The --call-graph dwarf unwinder on a real stack: this process's own registers and
 * stack, captured as the kernel would give them in a sample, with its executable
 * mappings told as MMAP2 records.  And what it writes: the sample rewritten with a
 * callchain, without the registers and the stack copy; exec, fork and exit of the
 * process as the file describes them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <perf/event.h>
#include <criterion/criterion.h>

#include "prof/analyze/unwinder.h"
#include "own_maps.h"
#include "own_stack.h"

#define KERNEL_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
		     PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN |                 \
		     PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_CGROUP)
#define STACK_LEN 4096
#define NR_REGS 17
#define CGROUP_ID 0xc6c6c6c6ull

struct capture {
	uint64_t regs[NR_REGS];         /* perf's order: ax bx cx dx si di bp sp ip r8..r15 */
	uint8_t stack[STACK_LEN];
	uint64_t stack_len;
};

static volatile int sink;

/* The registers and stack here, as a sample taken at the lea would carry them. */
__attribute__((noinline)) static void capture_here(struct capture *c)
{
	uint64_t ip, sp, bp;

	__asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
			 : "=r"(ip), "=r"(sp), "=r"(bp));
	memset(c, 0, sizeof(*c));
	c->regs[6] = bp;
	c->regs[7] = sp;
	c->regs[8] = ip;
	c->stack_len = own_stack(c->stack, sp, STACK_LEN);
}

/* A caller whose frame must appear: it does work after the call (no tail call). */
__attribute__((noinline)) static void outer(struct capture *c)
{
	capture_here(c);
	sink++;
}

struct buf {
	union {
		struct perf_event_header h;
		uint64_t align;
		uint8_t bytes[65536];
	};
	size_t len;
};

static void put(struct buf *b, const void *p, size_t n)
{
	cr_assert_leq(b->len + n, sizeof(b->bytes));
	memcpy(b->bytes + b->len, p, n);
	b->len += n;
}

static void put64(struct buf *b, uint64_t v)
{
	put(b, &v, 8);
}

/* A kernel sample of pid/tid with this capture (abi 0: a kernel thread, no user regs). */
static void make_sample(struct buf *b, int32_t pid, const struct capture *c, uint64_t abi)
{
	uint32_t ids[2] = { (uint32_t)pid, (uint32_t)pid };
	uint64_t kchain[2] = { PERF_CONTEXT_KERNEL, 0xffffffff81000000ull };

	memset(b, 0, sizeof(b->h));
	b->len = sizeof(b->h);
	b->h.type = PERF_RECORD_SAMPLE;
	put64(b, 77);                   /* IDENTIFIER */
	put64(b, c->regs[8]);           /* IP */
	put(b, ids, 8);                 /* TID */
	put64(b, 1000);                 /* TIME */
	put64(b, 0);                    /* CPU */
	put64(b, 1);                    /* PERIOD */
	put64(b, 2);                    /* CALLCHAIN: the kernel part */
	put(b, kchain, sizeof(kchain));
	put64(b, abi);                  /* REGS_USER */
	if (abi)
		put(b, c->regs, sizeof(c->regs));
	put64(b, STACK_LEN);            /* STACK_USER */
	put(b, c->stack, STACK_LEN);
	put64(b, c->stack_len);
	put64(b, CGROUP_ID);            /* CGROUP */
	b->h.size = (uint16_t)b->len;
}

static void note_one(const struct perf_event_header *ev, void *u)
{
	cr_assert_eq(unwinder__note(u, ev), 0);
}

/* This process's executable file mappings, as MMAP2 records of pid. */
static void note_maps(struct unwinder *u, int32_t pid)
{
	cr_assert(own_maps(pid, note_one, u) > 0, "no executable mapping found");
}

/* The rewritten sample's callchain, and checks that the rest is in place. */
static uint64_t chain(const struct buf *out, int len, const uint64_t **ips)
{
	const uint64_t *w = (const uint64_t *)(const void *)(out->bytes + sizeof(out->h));
	uint64_t nr = w[6], cg;

	cr_assert_eq(len, out->h.size);
	cr_assert_eq(out->h.type, PERF_RECORD_SAMPLE);
	cr_assert_eq(w[0], 77, "IDENTIFIER kept");
	cr_assert_eq((size_t)len, sizeof(out->h) + 8 * (7 + nr + 1), "fields + callchain + CGROUP, nothing else");
	memcpy(&cg, out->bytes + len - 8, 8);
	cr_assert_eq(cg, CGROUP_ID, "CGROUP kept, last");
	*ips = w + 7;
	return nr;
}

static bool in_outer(uint64_t a)
{
	return a > (uint64_t)(uintptr_t)outer && a < (uint64_t)(uintptr_t)outer + 256;
}

static struct buf in, out;
static struct capture cap;

Test(unwind, own_stack)
{
	struct unwinder *u = unwinder__new(KERNEL_TYPE, NULL, NULL);
	const uint64_t *ips;
	uint64_t nr;
	int len;

	cr_assert(u);
	cr_assert_eq(unwinder__written_sample_type(KERNEL_TYPE),
		     KERNEL_TYPE & ~(uint64_t)(PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER));
	note_maps(u, getpid());
	outer(&cap);
	make_sample(&in, getpid(), &cap, PERF_SAMPLE_REGS_ABI_64);
	len = unwinder__rewrite(u, &in.h, out.bytes, sizeof(out.bytes));
	cr_assert_gt(len, 0);
	nr = chain(&out, len, &ips);
	cr_assert_geq(nr, 2 + 1 + 3, "kernel part, PERF_CONTEXT_USER, >= 3 user frames: got %lu", (unsigned long)nr);
	cr_assert_eq(ips[0], PERF_CONTEXT_KERNEL);
	cr_assert_eq(ips[1], 0xffffffff81000000ull);
	cr_assert_eq(ips[2], PERF_CONTEXT_USER);
	cr_assert_eq(ips[3], cap.regs[8], "the sampled ip first");
	cr_assert(in_outer(ips[4]), "then the return address in outer(): %#lx, outer at %p",
		  (unsigned long)ips[4], (void *)outer);
	cr_assert_eq(unwinder__stats(u)->samples, 1);
	cr_assert_eq(unwinder__stats(u)->no_maps, 0);
	unwinder__free(u);
}

Test(unwind, fork_exec_exit)
{
	struct unwinder *u = unwinder__new(KERNEL_TYPE, NULL, NULL);
	struct perf_record_fork f = { .header = { .type = PERF_RECORD_FORK, .size = sizeof(f) } };
	struct { struct perf_record_comm c; char pad[16]; } comm = { 0 };
	const uint64_t *ips;
	int32_t parent = getpid(), child = 4000000;     /* above pid_max: no real task */
	int len;

	note_maps(u, parent);
	outer(&cap);

	/* a forked child has its parent's maps, though no MMAP2 names it */
	f.pid = f.tid = (uint32_t)child;
	f.ppid = f.ptid = (uint32_t)parent;
	cr_assert_eq(unwinder__note(u, &f.header), 0);
	make_sample(&in, child, &cap, PERF_SAMPLE_REGS_ABI_64);
	len = unwinder__rewrite(u, &in.h, out.bytes, sizeof(out.bytes));
	cr_assert(chain(&out, len, &ips) >= 6 && in_outer(ips[4]), "the child unwinds with the parent's maps");

	/* the parent exits: the child keeps its maps; its own exit forgets them */
	f.pid = f.tid = (uint32_t)parent;
	f.header.type = PERF_RECORD_EXIT;
	cr_assert_eq(unwinder__note(u, &f.header), 0);
	len = unwinder__rewrite(u, &in.h, out.bytes, sizeof(out.bytes));
	cr_assert(chain(&out, len, &ips) >= 6 && in_outer(ips[4]));

	/* exec: the old maps are gone until the new program's MMAP2s come */
	comm.c.header.type = PERF_RECORD_COMM;
	comm.c.header.misc = PERF_RECORD_MISC_COMM_EXEC;
	comm.c.header.size = sizeof(comm);
	comm.c.pid = comm.c.tid = (uint32_t)child;
	strcpy(comm.c.comm, "new");
	cr_assert_eq(unwinder__note(u, &comm.c.header), 0);
	len = unwinder__rewrite(u, &in.h, out.bytes, sizeof(out.bytes));
	cr_assert_eq(chain(&out, len, &ips), 2 + 1 + 1, "the sampled ip only, no error");
	cr_assert_eq(ips[3], cap.regs[8]);
	cr_assert_eq(unwinder__stats(u)->no_maps, 1);

	f.pid = f.tid = (uint32_t)child;
	cr_assert_eq(unwinder__note(u, &f.header), 0);
	len = unwinder__rewrite(u, &in.h, out.bytes, sizeof(out.bytes));
	cr_assert_eq(chain(&out, len, &ips), 4, "an exited process: the sampled ip only");
	cr_assert_eq(unwinder__stats(u)->no_maps, 2);
	unwinder__free(u);
}

Test(unwind, no_user_regs_and_malformed)
{
	struct unwinder *u = unwinder__new(KERNEL_TYPE, NULL, NULL);
	const uint64_t *ips;
	int len;

	note_maps(u, getpid());
	outer(&cap);
	/* a kernel thread: no user registers, the kernel part only */
	make_sample(&in, getpid(), &cap, 0);
	len = unwinder__rewrite(u, &in.h, out.bytes, sizeof(out.bytes));
	cr_assert_eq(chain(&out, len, &ips), 2);
	cr_assert_eq(unwinder__stats(u)->samples, 0);

	/* cut short anywhere: refused, never read past the record */
	make_sample(&in, getpid(), &cap, PERF_SAMPLE_REGS_ABI_64);
	for (size_t cut = 8; cut < in.len; cut += 8) {
		in.h.size = (uint16_t)(in.len - cut);
		cr_assert_lt(unwinder__rewrite(u, &in.h, out.bytes, sizeof(out.bytes)), 0, "cut by %zu", cut);
	}
	/* an output buffer too small */
	in.h.size = (uint16_t)in.len;
	cr_assert_lt(unwinder__rewrite(u, &in.h, out.bytes, 64), 0);
	unwinder__free(u);
}
