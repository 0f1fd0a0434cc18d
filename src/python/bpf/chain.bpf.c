// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Run by the kernel at each sample of prof's sampling events (PERF_EVENT_IOC_SET_BPF),
 * in the sampled thread's context, before the sample is written: for a thread of a
 * Python process prof attached (procs, by tgid), the chain of its Python frames as it
 * is at that instant (thread state -> current frame -> previous ...), written as a
 * record of prof's bpf-output event on this CPU, whose ring is the sample's: the
 * record lands right before its sample.  Every sample is kept (returns 1): scope is
 * still prof's to judge.  See include/prof/python/chain.h.
 */
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <bpf/bpf_helpers.h>

#include "prof/python/chain_abi.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct python_chain_proc);
} procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} out SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct python_chain_rec);
} scratch SEC(".maps");

static __always_inline int word(__u64 addr, __u64 *ret)
{
	return bpf_probe_read_user(ret, sizeof(*ret), (const void *)addr);
}

/* The thread state whose native_thread_id is tid, 0 when none. */
static __always_inline __u64 thread_state(const struct python_chain_proc *p, __u32 tid)
{
	__u64 interp = 0, ts = 0, v;

	if (word(p->runtime + p->interp_head, &interp))
		return 0;
	for (int i = 0; i < PYTHON_CHAIN_INTERPS && interp; i++) {
		if (word(interp + p->threads_head, &ts))
			return 0;
		for (int j = 0; j < PYTHON_CHAIN_THREADS && ts; j++) {
			if (word(ts + p->ts_native_tid, &v))
				return 0;
			if (v == tid)
				return ts;
			if (word(ts + p->ts_next, &ts))
				return 0;
		}
		if (word(interp + p->interp_next, &interp))
			return 0;
	}
	return 0;
}

SEC("perf_event")
int python_chain(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), ts, cframe, frame = 0, size;
	__u32 tgid = id >> 32, zero = 0;
	const struct python_chain_proc *p = bpf_map_lookup_elem(&procs, &tgid);
	struct python_chain_rec *r;
	__u32 n = 0;

	if (!p)
		return 1;
	r = bpf_map_lookup_elem(&scratch, &zero);
	if (!r)
		return 1;
	r->magic = PYTHON_CHAIN_MAGIC;
	r->tid = (__u32)id;
	r->status = PYTHON_CHAIN_COMPLETE;
	ts = thread_state(p, (__u32)id);
	if (!ts)
		r->status = PYTHON_CHAIN_NO_THREAD;
	else if (word(ts + p->ts_cframe, &cframe))
		r->status = PYTHON_CHAIN_FAULT;
	else if (p->cframe_current == PYTHON_CHAIN_DIRECT)
		frame = cframe;
	else if (word(cframe + p->cframe_current, &frame))
		r->status = PYTHON_CHAIN_FAULT;
	for (__u32 i = 0; i < PYTHON_CHAIN_FRAMES; i++) {
		struct python_chain_frame *f;
		__u8 entry = 0;

		if (!frame)
			break;
		f = &r->f[i];
		if (word(frame + p->f_code, &f->code) || word(frame + p->f_instr, &f->instr) ||
		    bpf_probe_read_user(&entry, 1, (const void *)(frame + p->f_entry))) {
			r->status = PYTHON_CHAIN_FAULT;
			break;
		}
		f->frame = frame;
		if (p->entry_kind == PYTHON_CHAIN_IS_ENTRY ? entry != 0 : entry == PYTHON_CHAIN_OWNED_BY_CSTACK)
			f->frame |= 1;
		n = i + 1;
		if (word(frame + p->f_previous, &frame)) {
			r->status = PYTHON_CHAIN_FAULT;
			break;
		}
		if (i + 1 == PYTHON_CHAIN_FRAMES && frame)
			r->status = PYTHON_CHAIN_CUT;
	}
	r->nr = (__u16)n;
	size = PYTHON_CHAIN_HEAD + (__u64)n * sizeof(struct python_chain_frame);
	if (size > sizeof(*r))
		size = sizeof(*r);
	bpf_perf_event_output(ctx, &out, BPF_F_CURRENT_CPU, r, size);
	return 1;
}
