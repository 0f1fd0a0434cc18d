/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Python callers read at the sample instant, in the kernel.
 *
 * From 3.11 one activation of the eval function runs many Python frames; the
 * sample's stack copy pins only its current one (python.h).  Its callers live in the
 * heap, and read afterwards they are a later state of the thread: the same function
 * may run again by then at the same frame address under another caller
 * (docs/DESIGN.md, "Python frames").  So prof reads them at the sample instant: a BPF
 * program (bpf/chain.bpf.c) attached to every sampling event runs in the sampled
 * thread before its sample is written, and for a thread of a process prof attached
 * walks thread state -> current frame -> previous ..., each frame's address, code
 * object and last instruction (chain_abi.h), into a record of a bpf-output event of
 * prof's on that CPU, whose ring is the sample's: the record lands right before its
 * sample (events.c pairs them: same ring, next record, same thread) and never reaches
 * the file.  chain_frames.c then names each frame's code object as a pinned one is
 * (proven by time), its line by the instruction, and shows the chain only when its
 * activations' first frames are the ones the stack copy pins.
 *
 * It takes CAP_BPF and CAP_PERFMON (or root); without them, or without a BPF build,
 * prof loads nothing and says once why callers stay unproven.
 */
#ifndef PROF_PYTHON_CHAIN_H
#define PROF_PYTHON_CHAIN_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "prof/python/chain_abi.h"

struct python_chains;

/* A chain as kept, until its sample is unwound. */
struct python_chain {
	int32_t tid;
	uint64_t time;                  /* its sample's */
	uint16_t nr, status;            /* frames; enum python_chain_status */
	const struct python_chain_frame *f;
};

struct python_chain_stats {
	uint64_t records;               /* read from the rings */
	uint64_t unpaired;              /* not followed by their thread's sample: dropped */
	uint64_t evicted;               /* kept but never taken (their samples were not unwound) */
	uint64_t status[4];             /* of the records, by enum python_chain_status */
};

/* Load the program: 0, or -errno with why saying what is
 * missing (-EPERM: CAP_BPF; -ENOTSUP: a prof built without BPF). */
int python_chains__new(struct python_chains **ret, char *why, size_t why_len);
/* The pairing store alone, no program (the unit tests): 0 or -ENOMEM. */
int python_chains__new_store(struct python_chains **ret);
struct python_chains *python_chains__free(struct python_chains *c);

/* The bpf-output event's attr (the sampling events' clock). */
void python_chains__attr(const struct perf_event_attr *sampling, struct perf_event_attr *ret);

/* cpu's bpf-output event (fd), where the program writes on that CPU: 0 or -errno. */
int python_chains__set_output(struct python_chains *c, int cpu, int fd);

/* Run the program at each sample of the sampling event fd: 0 or -errno. */
int python_chains__attach(struct python_chains *c, int fd);

/* Chains of process pid's threads from now on (p: where its frames are): 0 or -errno. */
int python_chains__add(struct python_chains *c, int32_t pid, const struct python_chain_proc *p);
void python_chains__remove(struct python_chains *c, int32_t pid);

/*
 * A bpf-output record (h) of the chains' event, followed in its ring by the sample of
 * thread tid at time: kept for python_chains__find.  0, or -errno (the record is not
 * a chain, or not that thread's: dropped and counted).
 */
int python_chains__keep(struct python_chains *c, const struct perf_event_header *h, int32_t tid, uint64_t time);
/* ... not followed by its sample: counted. */
void python_chains__unpaired(struct python_chains *c);

/* The chain kept for the sample of tid at time, NULL when none; taken (valid until
 * the next python_chains__keep). */
/* ... not taken. */
const struct python_chain *python_chains__peek(const struct python_chains *c, int32_t tid, uint64_t time);
const struct python_chain *python_chains__take(struct python_chains *c, int32_t tid, uint64_t time);

const struct python_chain_stats *python_chains__stats(const struct python_chains *c);

#endif
