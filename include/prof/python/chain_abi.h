/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What prof's BPF program (src/python/bpf/chain.bpf.c) and prof share: the offsets it
 * is given per Python process, and the record it writes at each sample of one of
 * that process's threads.  Kernel types only: the program is built with clang's BPF
 * target from this very header.
 */
#ifndef PROF_PYTHON_CHAIN_ABI_H
#define PROF_PYTHON_CHAIN_ABI_H

#include <linux/types.h>

/* Frames one record holds (deeper stacks are cut, and say so), thread states and
 * interpreters looked at to find the sampled thread's. */
#define PYTHON_CHAIN_FRAMES 96
#define PYTHON_CHAIN_THREADS 64
#define PYTHON_CHAIN_INTERPS 4

#define PYTHON_CHAIN_MAGIC 0x50594348u  /* "PYCH" */

/* How a frame marks its activation's edge. */
enum python_chain_entry {
	PYTHON_CHAIN_IS_ENTRY = 1,      /* 3.11: the frame's is_entry byte (its activation's first) */
	PYTHON_CHAIN_OWNER = 2,         /* 3.12: owner byte FRAME_OWNED_BY_CSTACK: the entry shim */
};
#define PYTHON_CHAIN_OWNED_BY_CSTACK 3
#define PYTHON_CHAIN_DIRECT 0xffff

/* One Python process (by its tgid): where its thread states are and what a frame is. */
struct python_chain_proc {
	__u64 runtime;                  /* &_PyRuntime */
	__u16 interp_head;              /* _PyRuntime.interpreters.head */
	__u16 interp_next;              /* PyInterpreterState.next */
	__u16 threads_head;             /* PyInterpreterState.threads.head */
	__u16 ts_next;                  /* PyThreadState.next */
	__u16 ts_native_tid;            /* PyThreadState.native_thread_id */
	__u16 ts_cframe;                /* PyThreadState.cframe (3.13: current_frame) */
	__u16 cframe_current;           /* _PyCFrame.current_frame; PYTHON_CHAIN_DIRECT:
					 * ts_cframe is the current frame itself (3.13) */
	__u16 f_code, f_previous, f_instr, f_entry;     /* _PyInterpreterFrame */
	__u8 entry_kind;                /* enum python_chain_entry */
	__u8 pad[3];
};

/* Why a chain ends. */
enum python_chain_status {
	PYTHON_CHAIN_COMPLETE = 0,      /* at a frame with no previous one */
	PYTHON_CHAIN_CUT,               /* PYTHON_CHAIN_FRAMES reached */
	PYTHON_CHAIN_FAULT,             /* a read failed (memory not resident, or gone) */
	PYTHON_CHAIN_NO_THREAD,         /* no thread state names the sampled thread */
};

/* A frame as it was at the sample: its address (bit 0: it marks its activation's
 * edge), its code object and its last instruction. */
struct python_chain_frame {
	__u64 frame, code, instr;
};

struct python_chain_rec {
	__u32 magic;
	__u32 tid;
	__u16 nr;                       /* frames */
	__u16 status;                   /* enum python_chain_status */
	__u32 pad;
	struct python_chain_frame f[PYTHON_CHAIN_FRAMES];
};

#define PYTHON_CHAIN_HEAD 16u           /* the record's bytes before f[] */

#endif
