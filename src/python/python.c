/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Python frames while recording: see include/prof/python/python.h.  This file is
 * the per-sample part; the interpreters are found by interp.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <perf/event.h>

#include "prof/base/hash.h"
#include "prof/base/hashtable.h"
#include "prof/base/util.h"
#include "prof/base/vec.h"
#include "prof/python/early.h"
#include "prof/python/elf_writer.h"
#include "prof/python/frame_old.h"
#include "prof/python/interp.h"
#include "prof/python/python.h"
#include "prof/sys/privs.h"

/* Python frames one activation may add: its function, and what stands for its callers. */
#define MAX_PY_FRAMES 2
/* Symbol 0: what an activation that could not be proven shows. */
#define UNVERIFIED_NAME "[python: unverified]"
/* Symbol 1: above an activation's function when it has callers (not the sample's for sure). */
#define CALLERS_NAME "[python: callers not proven]"
/* Code objects remembered (all forgotten beyond: read again as needed), and the most
 * symbols of the object (beyond: [python: unverified], counted as not readable). */
#define CODES_KEPT (1u << 16)
#define SYMBOLS_MAX (1u << 22)



struct pyproc {
	int32_t pid;
	struct interp in;               /* in.l NULL: not an attached interpreter */
	size_t maps_nr;                 /* the maps it was judged with */
	bool judged;
	bool counted;                   /* in st.processes */
	bool chained;                   /* in the chains' map (chain.h) */
	int pidfd;
};

/* What a code object's address was read to hold: its name, and since when.  A code
 * object freed and another made at its address (exec in a loop) may have its very
 * pointers and fields, so the name itself is read each time and compared. */
struct pycode {
	int32_t pid;
	uint64_t addr;
	uint64_t name_hash;             /* of the name read */
	uint64_t since_ns;              /* the first reading of that name there (CLOCK_MONOTONIC) */
	uint64_t confirmed_ns;          /* before the last reading of that same name there */
	uint64_t table_hash;            /* part of the name (code_symbol) */
	uint32_t sym;                   /* "qualname (file:def N)", 0 when it could not be kept */
};

/* A pinned instruction as named: its code object (fields as read) and symbol. */
struct pyline {
	int32_t pid;
	uint64_t instr;
	uint64_t code, qualname, filename, linetable;
	int32_t firstlineno;
	uint64_t table_hash;            /* of the co_linetable's bytes as read */
	uint32_t code_sym;              /* the code object's proven name (code_symbol) */
	uint32_t sym;                   /* "qualname (file:LINE)" */
};

struct python {
	struct python_config cfg;
	struct hashtable lines;         /* struct pyline by (pid, instr) */
	uint8_t table[1 << 16];         /* a co_linetable as read */
	struct hashtable procs;         /* struct pyproc by pid */
	struct hashtable codes;         /* struct pycode by (pid, addr) */
	struct hashtable syms;          /* uint32_t symbol index by name (names[i]) */
	char **names;                   /* symbol names, [0] UNVERIFIED_NAME, [1] CALLERS_NAME */
	size_t nr_names, cap_names;
	struct build_id id;             /* the object's: random, known before it is written */
	struct perf_event_attr attr;    /* of the kernel's samples (python__early decodes them) */
	struct python_early *early;     /* frames read when drained (early.h) */
	struct python_stats st;
};

static bool proc_eq(const void *e, const void *key, const void *ctx)
{
	return ((const struct pyproc *)e)->pid == *(const int32_t *)key;
}

struct code_key {
	int32_t pid;
	uint64_t addr;
};

static bool code_eq(const void *e, const void *key, const void *ctx)
{
	const struct pycode *c = e;
	const struct code_key *k = key;

	return c->pid == k->pid && c->addr == k->addr;
}

static bool line_eq(const void *e, const void *key, const void *ctx)
{
	const struct pyline *c = e;
	const struct code_key *k = key;

	return c->pid == k->pid && c->instr == k->addr;
}

static bool sym_eq(const void *e, const void *key, const void *ctx)
{
	const struct python *py = ctx;

	return strcmp(py->names[*(const uint32_t *)e], key) == 0;
}

/* The symbol of name: its index (added when new), or 0 on ENOMEM (unverified). */
static uint32_t symbol(struct python *py, const char *name)
{
	uint64_t h = hash__bytes(name, strlen(name));
	uint32_t *e = hashtable__find(&py->syms, h, name);
	char *copy;
	bool created;

	if (e)
		return *e;
	if (py->nr_names >= SYMBOLS_MAX)
		return 0;
	if (vec__reserve((void **)&py->names, &py->cap_names, py->nr_names + 1, sizeof(char *)) < 0 ||
	    !(copy = strdup(name)))
		return 0;
	py->names[py->nr_names] = copy;
	e = hashtable__insert(&py->syms, h, name, &created);
	if (!e) {
		free(copy);
		return 0;
	}
	*e = (uint32_t)py->nr_names++;
	py->st.locations = py->nr_names;
	return *e;
}

int python__new(const struct python_config *cfg, struct python **ret)
{
	struct python *py = calloc(1, sizeof(*py));

	if (!py)
		return -ENOMEM;
	py->cfg = *cfg;
	hashtable__init(&py->procs, sizeof(struct pyproc), proc_eq, NULL);
	hashtable__init(&py->codes, sizeof(struct pycode), code_eq, NULL);
	hashtable__init(&py->lines, sizeof(struct pyline), line_eq, NULL);
	hashtable__init(&py->syms, sizeof(uint32_t), sym_eq, py);
	py->attr = (struct perf_event_attr){ .size = sizeof(py->attr), .sample_type = cfg->kernel_sample_type,
					     .sample_regs_user = unwinder__regs_mask() };
	py->early = python_early__new();
	/* unique to this recording: the object is written at its end */
	py->id.size = 20;
	if (!py->early || getrandom(py->id.data, 20, 0) != 20 || symbol(py, UNVERIFIED_NAME) != 0 ||
	    symbol(py, CALLERS_NAME) != 1 || py->nr_names != 2) {
		python__free(py);
		return -ENOMEM;
	}
	*ret = py;
	return 0;
}

struct python *python__free(struct python *py)
{
	struct pyproc *p;

	if (!py)
		return NULL;
	for (size_t i = 0; (p = hashtable__next(&py->procs, &i));) {
		if (p->pidfd >= 0)
			close(p->pidfd);
		interp__release(&p->in);
	}
	hashtable__release(&py->lines);
	for (size_t i = 0; i < py->nr_names; i++)
		free(py->names[i]);
	free(py->names);
	hashtable__release(&py->procs);
	hashtable__release(&py->codes);
	hashtable__release(&py->syms);
	python_early__free(py->early);
	free(py);
	return NULL;
}

const struct python_stats *python__stats(const struct python *py)
{
	return &py->st;
}

void python_stats__describe(const struct python_stats *st, char *buf, size_t len)
{
	char why[512] = "";
	size_t n = 0;
	uint64_t bad = 0;

	for (int v = 1; v < PYTHON_VERDICTS; v++) {
		if (!st->unverified[v] || n >= sizeof(why))
			continue;
		n += (size_t)snprintf(why + n, sizeof(why) - n, "%s%" PRIu64 " %s", n ? ", " : "", st->unverified[v],
				      python_verdict__name(v));
		bad += st->unverified[v];
	}
	snprintf(buf, len, "%" PRIu64 " samples of %" PRIu64 " interpreter(s), %" PRIu64 " with Python frames, %"
		 PRIu64 " of them all verified; %" PRIu64 " activations [python: unverified]%s%s%s", st->samples,
		 st->processes, st->with_python, st->verified, bad, n ? " (" : "", why, n ? ")" : "");
}

bool python__name(const struct python *py, const struct model_dso *d, uint64_t off, const char **ret)
{
	if (d->build_id_len != py->id.size || memcmp(d->build_id, py->id.data, py->id.size) != 0)
		return false;
	*ret = off >= PYTHON_ELF_TEXT && off - PYTHON_ELF_TEXT < py->nr_names ? py->names[off - PYTHON_ELF_TEXT]
									       : NULL;
	return true;
}

void python__note(struct python *py, const struct perf_event_header *ev)
{
	const struct perf_record_fork *e = (const void *)ev;
	struct pyproc *p;
	int32_t pid;

	if (ev->type != PERF_RECORD_EXIT || ev->size < sizeof(*e) || e->pid != e->tid)
		return;
	pid = (int32_t)e->pid;
	p = hashtable__find(&py->procs, hash__u64((uint32_t)pid), &pid);
	if (!p)
		return;
	if (p->pidfd >= 0)
		close(p->pidfd);
	if (p->chained)
		python_chains__remove(py->cfg.chains, pid);
	interp__release(&p->in);
	hashtable__remove(&py->procs, hash__u64((uint32_t)pid), &pid);
}

/* ---- the process ------------------------------------------------------------- */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}


struct reader {
	int32_t pid;
};

static int read_mem(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct reader *r = ctx;
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };
	ssize_t n = process_vm_readv(r->pid, &local, 1, &remote, 1, 0);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EFAULT;
}

/* Does the pidfd's process still run (so its pid named it when read)? */
static bool still_there(int pidfd)
{
	struct pollfd pfd = { .fd = pidfd, .events = POLLIN };

	return pidfd >= 0 && poll(&pfd, 1, 0) == 0;
}

static void reject(struct python *py, struct pyproc *p, const char *why)
{
	if (!p->counted)
		py->st.rejected++;
	p->counted = true;
	if (!py->st.why_rejected[0])
		snprintf(py->st.why_rejected, sizeof(py->st.why_rejected), "%s", why);
}

struct check_call {
	const struct interp *in;
	struct reader *r;
	char *why;
	size_t why_len;
};

static int check_call(void *arg)
{
	struct check_call *c = arg;

	return interp__check(c->in, read_mem, c->r, c->why, c->why_len);
}

/* interp__check, with no effective capability for a user restricted to their own. */
static int check(struct python *py, const struct interp *in, struct reader *r, char *why, size_t why_len)
{
	struct check_call c = { in, r, why, why_len };

	return py->cfg.as_user ? privs__as_user(check_call, &c) : check_call(&c);
}

/* Does the process's first thread state check out (chain.h): the interpreter's
 * threads.head is a thread state whose interp is that interpreter and whose
 * native_thread_id is one of the process's threads?  0, or -ENOTSUP with why. */
static int chain_check(const struct interp *in, struct reader *r, char *why, size_t len)
{
	const struct python_layout *l = in->l;
	uint64_t interp = 0, ts = 0, back = 0, tid = 0;
	char path[64];

	if (read_mem(r, in->runtime + l->rt_interp_head, &interp, 8) < 0 || !interp ||
	    read_mem(r, interp + l->is_threads_head, &ts, 8) < 0 || !ts ||
	    read_mem(r, ts + l->ts_interp, &back, 8) < 0 || read_mem(r, ts + l->ts_native_tid, &tid, 8) < 0) {
		snprintf(why, len, "%s (pid %d): its thread states could not be read", in->path, r->pid);
		return -ENOTSUP;
	}
	snprintf(path, sizeof(path), "/proc/%d/task/%" PRIu64, r->pid, tid);
	if (back != interp || !tid || tid > INT32_MAX || access(path, F_OK) != 0) {
		snprintf(why, len, "%s (pid %d): its thread states are not where %s has them", in->path, r->pid,
			 l->what);
		return -ENOTSUP;
	}
	return 0;
}

/* The process's threads' chains read from now on, where its layout says where its
 * thread states are and they check out. */
static void chain_attach(struct python *py, struct pyproc *p)
{
	const struct python_layout *l = p->in.l;
	struct reader r = { p->pid };
	char why[512];
	struct python_chain_proc cp;

	/* a user restricted to their own processes reads them under the kernel's ptrace
	 * rules (privs__as_user): the program would read past them (a set-user-ID
	 * process of theirs), so it reads nothing for them */
	if (!py->cfg.chains || !l->chain || l->old)
		return;
	if (py->cfg.as_user) {
		if (!py->st.chain_refused++)
			snprintf(py->st.why_chain_refused, sizeof(py->st.why_chain_refused),
				 "a user who may record only their own processes reads them under the kernel's ptrace "
				 "rules, which a BPF program does not follow");
		return;
	}
	if (chain_check(&p->in, &r, why, sizeof(why)) < 0) {
		if (!py->st.chain_refused++)
			snprintf(py->st.why_chain_refused, sizeof(py->st.why_chain_refused), "%.255s", why);
		return;
	}
	cp = (struct python_chain_proc){
		.runtime = p->in.runtime, .interp_head = (__u16)l->rt_interp_head, .interp_next = (__u16)l->is_next,
		.threads_head = (__u16)l->is_threads_head, .ts_next = (__u16)l->ts_next,
		.ts_native_tid = (__u16)l->ts_native_tid, .ts_cframe = (__u16)l->ts_cframe,
		.cframe_current = (__u16)l->cframe_current, .f_code = (__u16)l->f_code,
		.f_previous = (__u16)l->f_previous, .f_instr = (__u16)l->f_prev_instr,
		.f_entry = (__u16)(l->has_is_entry ? l->f_is_entry : l->f_owner),
		.entry_kind = l->has_is_entry ? PYTHON_CHAIN_IS_ENTRY : PYTHON_CHAIN_OWNER,
	};
	if (python_chains__add(py->cfg.chains, p->pid, &cp) == 0) {
		p->chained = true;
		py->st.chain_procs++;
	}
}

/* The process's interpreter, looked at when its maps changed. */
static struct pyproc *proc_get(struct python *py, int32_t pid)
{
	const struct maps *ms = model__maps(py->cfg.model, pid);
	struct pyproc *p;
	char why[256];
	bool created;
	int err;

	p = hashtable__insert(&py->procs, hash__u64((uint32_t)pid), &pid, &created);
	if (!p)
		return NULL;
	if (created)
		*p = (struct pyproc){ .pid = pid, .pidfd = -1 };
	/* the synthetic mapping is not one of the process's own */
	if (p->judged && ms && (ms->nr == p->maps_nr || ms->nr == p->maps_nr + 1))
		return p;
	if (p->pidfd >= 0)
		close(p->pidfd);
	p->pidfd = -1;
	if (p->chained)
		python_chains__remove(py->cfg.chains, pid);
	p->chained = false;
	interp__release(&p->in);
	p->judged = true;
	p->maps_nr = ms ? ms->nr : 0;
	why[0] = '\0';
	err = interp__find(py->cfg.model, pid, py->cfg.open, py->cfg.open_ctx, &p->in, why, sizeof(why));
	if (err == -ENOENT)
		return p;               /* no interpreter */
	if (err == 0) {
		struct reader r = { pid };

		p->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
		err = p->pidfd < 0 ? -errno : check(py, &p->in, &r, why, sizeof(why));
		if (err == 0 && !still_there(p->pidfd))
			err = -ESRCH;
	}
	if (err < 0) {
		if (!why[0])
			snprintf(why, sizeof(why), "%s (pid %d): %s", p->in.path[0] ? p->in.path : "python",
				 pid, strerror(-err));
		p->in.l = NULL;
		interp__release(&p->in);
		reject(py, p, why);
		return p;
	}
	if (!p->counted)
		py->st.processes++;
	p->counted = true;
	chain_attach(py, p);
	return p;
}

/* ---- names -------------------------------------------------------------------- */

static uint64_t u64_at(const uint8_t *p, uint32_t off)
{
	uint64_t v;

	memcpy(&v, p + off, 8);
	return v;
}

/* A str of the process as UTF-8 into buf. */
static int read_str(const struct python_layout *l, struct reader *r, uint64_t addr, char *buf, size_t len)
{
	uint8_t head[128], data[1024];
	uint32_t off, bytes;
	int err = read_mem(r, addr, head, l->str_compact_data);

	if (err == 0)
		err = python_str__data(l, head, l->str_compact_data, &off, &bytes);
	if (err == 0 && bytes > sizeof(data))
		err = -ENOSPC;
	if (err == 0 && bytes)
		err = read_mem(r, addr + off, data, bytes);
	if (err == 0)
		err = python_str__utf8(l, head, data, bytes, buf, len);
	return err;
}

/* A str whose head and data were read at once into buf (len bytes) as UTF-8 into
 * out, or read again alone when its data does not fit. */
static int str_from(const struct python_layout *l, struct reader *r, uint64_t addr, const uint8_t *buf,
		    size_t len, char *out, size_t out_len)
{
	uint32_t off, bytes;

	if (python_str__data(l, buf, l->str_compact_data, &off, &bytes) == 0 && off + bytes <= len)
		return python_str__utf8(l, buf, buf + off, bytes, out, out_len);
	return read_str(l, r, addr, out, out_len);
}

/* The qualname and file name strs (at qn, fn) as UTF-8: both read in one call with
 * what follows their heads (a name's data is inline), each read alone otherwise. */
static int read_names(const struct python_layout *l, struct reader *r, uint64_t qn, uint64_t fn, char *qual,
		      size_t qual_len, char *file, size_t file_len)
{
	uint8_t a[384], b[384];
	struct iovec local[2] = { { a, sizeof(a) }, { b, sizeof(b) } };
	struct iovec remote[2] = { { (void *)(uintptr_t)qn, sizeof(a) }, { (void *)(uintptr_t)fn, sizeof(b) } };
	int err;

	if (l->str_compact_data > sizeof(a) ||
	    process_vm_readv(r->pid, local, 2, remote, 2, 0) != (ssize_t)(sizeof(a) + sizeof(b))) {
		err = read_str(l, r, qn, qual, qual_len);
		return err < 0 ? err : read_str(l, r, fn, file, file_len);
	}
	err = str_from(l, r, qn, a, sizeof(a), qual, qual_len);
	return err < 0 ? err : str_from(l, r, fn, b, sizeof(b), file, file_len);
}

/* The symbol of code object f->code, "qualname (file:def N)" (the code object's own,
 * never changed), if it is proven to be the one there at sample time t: the same
 * name was read at that address before t (a reading earlier than the sample) and now
 * (after it), with no other name read there in between; with table_hash (of its
 * co_linetable's bytes, 0 where no line is named) part of the name.  0 with *ret_v
 * saying why not.  What it cannot see: another code object made there and freed
 * again, with the first one's name made back, all between two readings of that
 * address. */
static uint32_t code_symbol(struct python *py, const struct interp *in, struct reader *r,
			    const struct python_frame *f, uint64_t table_hash, uint64_t t, enum python_verdict *ret_v)
{
	const struct python_layout *l = in->l;
	struct code_key k = { r->pid, f->code };
	uint64_t h = hash__mix(hash__u64((uint32_t)r->pid), f->code), nh;
	struct pycode *c;
	int32_t first;
	char qual[256], file[512], name[1024];
	bool created;

	uint64_t t0 = now_ns();

	memcpy(&first, f->head + l->co_firstlineno, 4);
	if (read_names(l, r, u64_at(f->head, l->co_qualname), u64_at(f->head, l->co_filename), qual, sizeof(qual),
		       file, sizeof(file)) < 0) {
		*ret_v = PYTHON_READ_FAILED;
		return 0;
	}
	snprintf(name, sizeof(name), "%s (%s:def %d)", qual, file, first);
	nh = hash__mix(hash__bytes(name, strlen(name)), table_hash);
	c = hashtable__find(&py->codes, h, &k);
	if (c && c->name_hash == nh && c->sym) {
		c->confirmed_ns = t0;
		if (c->since_ns < t)
			return c->sym;
		*ret_v = PYTHON_NOT_BEFORE;
		return 0;
	}
	/* a program that makes code without end (exec in a loop) costs reads, not memory */
	if (!c && hashtable__size(&py->codes) >= CODES_KEPT)
		hashtable__clear(&py->codes);
	c = hashtable__insert(&py->codes, h, &k, &created);
	if (c)
		*c = (struct pycode){ .pid = r->pid, .addr = f->code, .name_hash = nh, .since_ns = now_ns(),
				      .confirmed_ns = t0, .table_hash = table_hash, .sym = symbol(py, name) };
	/* first read there after the sample: which code object the sample saw is not known */
	*ret_v = c && c->sym ? PYTHON_NOT_BEFORE : PYTHON_READ_FAILED;
	return 0;
}

/* ---- samples ------------------------------------------------------------------ */

/* The synthetic object mapped into pid before its first frame there. */
static int map_object(struct python *py, const struct sample *s)
{
	const struct maps *ms = model__maps(py->cfg.model, (int32_t)s->pid);

	if (ms && maps__find(ms, PYTHON_BASE))
		return 0;
	return synth__mmap2_build_id(&py->cfg.synth, (pid_t)s->pid, (pid_t)s->tid, PYTHON_BASE,
				     1u << 24, PYTHON_ELF_TEXT, py->id.data, py->id.size,
				     PYTHON_OBJECT_PATH, s->time, py->cfg.sink, py->cfg.sink_ctx);
}

/* The word at addr of the sample's stack copy. */
static bool stack_word(const struct sample *s, uint64_t sp, uint64_t addr, uint64_t *ret)
{
	uint64_t len = MIN(s->stack_user.dyn_size, s->stack_user.size);

	if (addr < sp || addr - sp > len || len - (addr - sp) < 8)
		return false;
	memcpy(ret, (const uint8_t *)s->stack_user.data + (addr - sp), 8);
	return true;
}

struct activation {
	size_t at;                      /* its native frame's index */
	uint64_t cfa;                   /* its CFA, 0 when unknown */
	uint64_t frame, code;           /* pinned; 0 when not */
	struct python_pinned pin;       /* builds with debug info: what else is pinned */
};

/* The value of pin kind k of activation a (native frame i at pc) where the build's
 * DWARF puts it: a register the unwinder knows for that frame, or a word of the
 * stack copy (want_addr: the slot's address itself).  False when not pinned. */
static bool pinned(const struct interp *in, const struct sample *s, const uint64_t *sps,
		   const struct unwind_regs *regs, size_t i, uint64_t pc, uint64_t cfa, enum pin_kind k,
		   int64_t add, bool want_addr, uint64_t *ret)
{
	struct pin_loc loc;

	if (!python_pins__at(in->pins, k, pc - in->bias, &loc) || (loc.op != PIN_REG && loc.op != PIN_CFA_SLOT))
		return false;
	if (loc.op == PIN_REG) {
		if (want_addr || !regs || i >= UNWIND_MAX_FRAMES || !(regs->known[i] & (1u << loc.reg)))
			return false;
		*ret = regs->v[i][loc.reg] + (uint64_t)loc.off;
		return true;
	}
	if (!cfa)
		return false;
	if (want_addr) {
		*ret = cfa + (uint64_t)loc.off;
		return true;
	}
	return stack_word(s, sps[0], cfa + (uint64_t)(loc.off + add), ret);
}

/* Activation a's frame, code and instruction as the build's DWARF pins them at its
 * pc (an outer frame's: its call instruction's, before its return address). */
static void activation_dwarf(const struct interp *in, const struct sample *s, const uint64_t *ips,
			     const uint64_t *sps, const struct unwind_regs *regs, struct activation *a)
{
	const struct python_layout *l = in->l;
	const struct pin_offsets *o = python_pins__offsets(in->pins);
	size_t i = a->at;
	uint64_t pc = i ? ips[i] - 1 : ips[i], cfa = a->cfa, v;

	/* cframe.current_frame is stored with frame at each call and return */
	if (!pinned(in, s, sps, regs, i, pc, cfa, PIN_FRAME, 0, false, &a->frame) &&
	    !(o->cframe_current >= 0 &&
	      pinned(in, s, sps, regs, i, pc, cfa, PIN_CFRAME, o->cframe_current, false, &a->frame)))
		a->frame = 0;
	if (pinned(in, s, sps, regs, i, pc, cfa, PIN_FIRST_INSTR, 0, false, &v) && v >= l->co_code_adaptive)
		a->code = v - l->co_code_adaptive;
	if (pinned(in, s, sps, regs, i, pc, cfa, PIN_THIS_INSTR, 0, false, &v))
		a->pin.instr = v;
	else if (pinned(in, s, sps, regs, i, pc, cfa, PIN_NEXT_INSTR, 0, false, &v) && v >= 2)
		a->pin.instr = v - 2, a->pin.before_next = true;      /* the running instruction's unit */
	if (!pinned(in, s, sps, regs, i, pc, cfa, PIN_ENTRY_FRAME, 0, true, &a->pin.entry_frame))
		a->pin.entry_frame = 0;
	if (!a->frame)
		a->code = 0;
}

/* The value register reg had when native frame j's function was entered: what its
 * caller (frame j + 1) passed there, by the caller's call site (callsite.h), in its
 * registers as the unwinding recovered them at its call, or its stack slots; or
 * the caller's own entry value, one caller up (depth bounds the chain). */
static bool entry_value(const struct interp *in, const struct sample *s, const uint64_t *ips, const uint64_t *sps,
			const struct unwind_regs *regs, size_t nr, size_t j, uint8_t reg, int depth, uint64_t *ret)
{
	size_t k = j + 1;
	struct pin_loc loc;
	uint64_t cfa;

	if (depth > 4 || k >= nr || k >= UNWIND_MAX_FRAMES || ips[k] < in->text_lo || ips[k] >= in->text_hi ||
	    !python_callsites__find(in->calls, ips[k] - in->bias, &loc))
		return false;
	switch (loc.op) {
	case PIN_REG:
		if (!regs || !(regs->known[k] & (1u << loc.reg)))
			return false;
		*ret = regs->v[k][loc.reg] + (uint64_t)loc.off;
		return true;
	case PIN_CFA_SLOT:
		cfa = k + 1 < nr ? sps[k + 1] : 0;
		return cfa && stack_word(s, sps[0], cfa + (uint64_t)loc.off, ret);
	case PIN_ENTRY_REG:
		return loc.reg == reg && entry_value(in, s, ips, sps, regs, nr, k, reg, depth + 1, ret);
	default:
		return false;
	}
}

/* 3.8-3.10 (frame_old.h): activation a's f where the build's DWARF puts it at its
 * pc (or its caller's call site, for f's entry value), and co, first_instr and
 * next_instr where it gives them there. */
static void activation_old(const struct interp *in, const struct sample *s, const uint64_t *ips,
			   const uint64_t *sps, const struct unwind_regs *regs, size_t nr, struct activation *a)
{
	size_t i = a->at;
	uint64_t pc = i ? ips[i] - 1 : ips[i], cfa = a->cfa, v;
	struct pin_loc loc;

	if (python_pins__at(in->pins, PIN_F, pc - in->bias, &loc) && loc.op == PIN_ENTRY_REG) {
		if (loc.reg != in->f_reg || !entry_value(in, s, ips, sps, regs, nr, i, loc.reg, 0, &a->frame))
			a->frame = 0;
	} else if (!pinned(in, s, sps, regs, i, pc, cfa, PIN_F, 0, false, &a->frame)) {
		a->frame = 0;
	}
	if (pinned(in, s, sps, regs, i, pc, cfa, PIN_CODE, 0, false, &v))
		a->code = v;
	if (pinned(in, s, sps, regs, i, pc, cfa, PIN_FIRST_INSTR, 0, false, &v))
		a->pin.first_instr = v;
	if (pinned(in, s, sps, regs, i, pc, cfa, PIN_NEXT_INSTR, 0, false, &v) && v >= 2)
		a->pin.instr = v - 2, a->pin.before_next = true;
	if (!a->frame)
		a->code = 0;
}

/* The activations of a sample's native frames, innermost first (at most max). */
static size_t activations(const struct interp *in, const struct sample *s, const uint64_t *ips,
			  const uint64_t *sps, const struct unwind_regs *regs, size_t nr, struct activation *out,
			  size_t max)
{
	const struct python_layout *l = in->l;
	size_t n = 0;

	for (size_t i = 0; i < nr && n < max; i++) {
		uint64_t ip = ips[i], cfa, first_instr = 0;
		struct activation *a;

		if (ip < in->eval_lo || ip >= in->eval_hi)
			continue;
		a = &out[n++];
		*a = (struct activation){ .at = i };
		/* the slots hold this activation's only after its prologue stored them */
		if (i == 0 && ip < in->eval_lo + 0xc0)
			continue;
		cfa = a->cfa = i + 1 < nr ? sps[i + 1] : 0;
		if (l->old) {
			activation_old(in, s, ips, sps, regs, nr, a);
			continue;
		}
		if (l->dwarf) {
			activation_dwarf(in, s, ips, sps, regs, a);
			continue;
		}
		if (!cfa || !stack_word(s, sps[0], cfa - l->cfa_frame, &a->frame) ||
		    !stack_word(s, sps[0], cfa - l->cfa_first_instr, &first_instr) ||
		    first_instr < l->co_code_adaptive)
			a->frame = 0;
		else
			a->code = first_instr - l->co_code_adaptive;
	}
	return n;
}


/* A bytes object of the process (at most len bytes) into buf: its size, or -errno. */
static int read_bytes(const struct python_layout *l, struct reader *r, uint64_t addr, uint8_t *buf, size_t len)
{
	uint8_t head[64];
	int64_t size;
	int err = read_mem(r, addr, head, l->bytes_data);

	if (err < 0)
		return err;
	memcpy(&size, head + l->bytes_size, 8);
	if (size < 0 || (uint64_t)size > len)
		return -ENOSPC;
	err = size ? read_mem(r, addr + l->bytes_data, buf, (size_t)size) : 0;
	return err < 0 ? err : (int)size;
}

/* The symbol "qualname (file:LINE)" of f's pinned instruction in its code object,
 * by its co_linetable as read into py->table (n bytes, hash th: code_symbol proved
 * that very table there before the sample and after, with the names), kept by
 * (pid, instruction) for that table.  0 when unreadable or where the table gives
 * that instruction no line. */
static uint32_t line_symbol(struct python *py, const struct interp *in, struct reader *r,
			    const struct python_frame *f, int n, uint64_t th, uint32_t code_sym)
{
	const struct python_layout *l = in->l;
	struct code_key k = { r->pid, f->instr };
	uint64_t h = hash__mix(hash__u64((uint32_t)r->pid), f->instr);
	struct pyline *c = hashtable__find(&py->lines, h, &k);
	uint64_t qn = u64_at(f->head, l->co_qualname), fn = u64_at(f->head, l->co_filename);
	uint64_t lt = u64_at(f->head, l->co_linetable);
	char qual[256], file[512], name[1024];
	int32_t first;
	uint32_t off;
	int line;
	bool created;

	memcpy(&first, f->head + l->co_firstlineno, 4);
	/* the name proven, not its strings' addresses: a code object made at a freed
	 * one's address may have new names at the old ones' addresses */
	if (c && c->code == f->code && c->code_sym == code_sym && c->qualname == qn && c->filename == fn &&
	    c->linetable == lt && c->firstlineno == first && c->table_hash == th)
		return c->sym;
	off = (uint32_t)(f->instr - (f->first ? f->first : f->code + l->co_code_adaptive));
	line = python_lines__line(l, py->table, (size_t)n, first, off);
	/* the unit before next_instr ran unless a jump just set next_instr: where the
	 * two lines differ, which one runs is not known (no line, "def N" instead) */
	if (f->before_next && python_lines__line(l, py->table, (size_t)n, first, off + 2) != line)
		line = -1;
	if (line < 0 || read_str(l, r, qn, qual, sizeof(qual)) < 0 || read_str(l, r, fn, file, sizeof(file)) < 0)
		return 0;
	if (!c && hashtable__size(&py->lines) >= CODES_KEPT)
		hashtable__clear(&py->lines);
	snprintf(name, sizeof(name), "%s (%s:%d)", qual, file, line);
	c = hashtable__insert(&py->lines, h, &k, &created);
	if (!c)
		return 0;
	*c = (struct pyline){ .pid = r->pid, .instr = f->instr, .code = f->code, .qualname = qn, .filename = fn,
			      .linetable = lt, .firstlineno = first, .table_hash = th, .code_sym = code_sym,
			      .sym = symbol(py, name) };
	return c->sym;
}

/* A frame that moved on, with no code object pinned (3.12+): the code object a
 * reading named at that very instruction before, if it is still a code object with
 * the same name, file, table and first line, holding the instruction; f filled as
 * if it were read from the frame.  Its line symbol, 0 when none. */
static uint32_t known_instr(struct python *py, const struct interp *in, struct reader *r, uint64_t instr,
			    struct python_frame *f)
{
	const struct python_layout *l = in->l;
	struct code_key k = { r->pid, instr };
	const struct pyline *c = instr ? hashtable__find(&py->lines, hash__mix(hash__u64((uint32_t)r->pid), instr), &k)
				       : NULL;
	uint64_t type;
	int32_t first;

	if (!c || !c->sym || read_mem(r, c->code, f->head, l->co_code_adaptive) < 0)
		return 0;
	memcpy(&type, f->head + 8, 8);
	memcpy(&first, f->head + l->co_firstlineno, 4);
	if (type != in->code_type || u64_at(f->head, l->co_qualname) != c->qualname ||
	    u64_at(f->head, l->co_filename) != c->filename || u64_at(f->head, l->co_linetable) != c->linetable ||
	    first != c->firstlineno || !python_walk__holds(l, c->code, f->head, instr))
		return 0;
	f->code = c->code;
	f->instr = instr;
	f->before_next = true;          /* the entry was kept only where the lines agreed */
	f->callers = true;              /* moved on: not known to be the first */
	return c->sym;
}

/* The symbols of the activation that pinned (frame, code) into syms, innermost
 * first, read now: its function, and CALLERS_NAME above it when it may have callers
 * (how many, 0 with *ret_v saying why it could not be verified); t: the sample's time. */
static size_t walk_symbols_now(struct python *py, struct pyproc *p, uint64_t frame, uint64_t code,
			       const struct python_pinned *pin, uint64_t t, uint32_t *syms, enum python_verdict *ret_v)
{
	struct reader r = { p->pid };
	struct python_walk w = { .l = p->in.l, .read = read_mem, .ctx = &r, .code_type = p->in.code_type,
				 .frame_type = p->in.frame_type };
	struct python_frame f = { 0 };
	enum python_verdict v = p->in.l->old ? python_walk_old__frame(&w, frame, code, pin, &f)
			      : pin	 ? python_walk__pinned(&w, frame, code, pin, &f)
					 : python_walk__frame(&w, frame, code, &f);
	uint64_t th = 0;
	int tn = -1;

	/* a frame that moved on: its pinned code object, named if proven as any is; with
	 * no code object pinned (3.12), the one a reading found at that instruction */
	if (v == PYTHON_MOVED &&
	    (f.code || (pin && !p->in.l->old && known_instr(py, &p->in, &r, pin->instr, &f))))
		v = PYTHON_BY_CODE;
	/* the code object's line table is part of what is proven there by time, with its
	 * names: a code object made at a freed one's address with the same names and
	 * another body must not get the old lines; always, so that what is proven at an
	 * address does not change with whether the instruction was pinned (or a chain
	 * read it, chain_symbol) */
	if (v == PYTHON_VERIFIED || v == PYTHON_BY_CODE) {
		tn = read_bytes(p->in.l, &r, u64_at(f.head, p->in.l->co_linetable), py->table, sizeof(py->table));
		th = tn >= 0 ? hash__bytes(py->table, (size_t)tn) : 0;
	}
	if (v == PYTHON_VERIFIED || v == PYTHON_BY_CODE)
		syms[0] = code_symbol(py, &p->in, &r, &f, th, t, &v);
	/* 3.8-3.10 with neither co nor an instruction pinned: the code object the pinned
	 * frame holds now is the sample's only if the frame was read holding it (with
	 * that name) before the sample too, as code_symbol proves a name by time at a
	 * code object's address, here at the frame's (frame_old.h) */
	if ((v == PYTHON_VERIFIED || v == PYTHON_BY_CODE) && f.by_frame) {
		struct python_frame g = f;

		g.code = f.frame;
		if (!code_symbol(py, &p->in, &r, &g, hash__mix(th, f.code), t, &v))
			syms[0] = 0;
	}
	if ((v == PYTHON_VERIFIED || v == PYTHON_BY_CODE) && !still_there(p->pidfd))
		v = PYTHON_READ_FAILED;
	/* the line where the instruction is pinned (else the function's "def N") */
	if ((v == PYTHON_VERIFIED || v == PYTHON_BY_CODE) && f.instr && tn >= 0) {
		uint32_t ls = line_symbol(py, &p->in, &r, &f, tn, th, syms[0]);

		if (ls)
			syms[0] = ls, py->st.lines++;
	}
	*ret_v = v;
	if (v != PYTHON_VERIFIED && v != PYTHON_BY_CODE)
		return 0;
	syms[1] = 1;
	return f.callers ? 2 : 1;
}

struct walk_call {
	struct python *py;
	struct pyproc *p;
	uint64_t frame, code;
	const struct python_pinned *pin;
	uint64_t t;
	uint32_t *syms;
	size_t ret;
	enum python_verdict v;
};

static int walk_call(void *arg)
{
	struct walk_call *c = arg;

	c->ret = walk_symbols_now(c->py, c->p, c->frame, c->code, c->pin, c->t, c->syms, &c->v);
	return 0;
}

/* walk_symbols_now, for a user who may record only their own processes with no
 * effective capability: the kernel's ptrace rules, not CAP_SYS_PTRACE, decide what
 * may be read, so a process is read only while it is theirs. */
static size_t walk_symbols(struct python *py, struct pyproc *p, uint64_t frame, uint64_t code,
			   const struct python_pinned *pin, uint64_t t, uint32_t *syms, enum python_verdict *ret_v)
{
	struct walk_call c = { py, p, frame, code, pin, t, syms, 0, PYTHON_READ_FAILED };

	if (!py->cfg.as_user)
		return walk_symbols_now(py, p, frame, code, pin, t, syms, ret_v);
	if (privs__as_user(walk_call, &c) < 0)
		c.v = PYTHON_READ_FAILED, c.ret = 0;
	*ret_v = c.v;
	return c.ret;
}

/* ---- reading early: when the sample is drained (early.h) ------------------------ */

/* The sample's thread's stack shape, for the next samples drained. */
static void hint_note(struct python *py, const struct sample *s, const struct activation *acts, size_t nacts)
{
	uint64_t cfas[PYTHON_EARLY_ACTS];
	size_t n = 0;

	for (; n < nacts && n < PYTHON_EARLY_ACTS; n++)
		cfas[n] = acts[n].cfa;
	python_early__hint(py->early, (int32_t)s->tid, cfas, n);
}

/* The early reading of sample s, if it pinned the same frames as acts. */
static const struct python_early_reading *early_find(struct python *py, const struct sample *s,
						     const struct activation *acts, size_t nacts)
{
	const struct python_early_reading *e = python_early__find(py->early, (int32_t)s->tid, s->time);

	if (!e || e->nacts != nacts)
		return NULL;
	for (size_t i = 0; i < nacts; i++)
		if (!acts[i].frame || e->acts[i].frame != acts[i].frame || e->acts[i].code != acts[i].code)
			return NULL;
	return e;
}

/*
 * A chain's code objects read now, when its sample is drained (a few ms after it, not
 * ~65 ms when it is unwound), unless a reading after the sample was made already: a
 * code object is named only when a reading before the sample and one after it prove
 * it (code_symbol), so a new one is proven for the next samples that much sooner, and
 * the one after is there even when the process has exited by the time its sample is
 * unwound.  One reading per code object per drain: the rest find it (chain_symbol).
 */
static uint32_t chain_symbol(struct python *py, struct pyproc *p, struct reader *r,
			     const struct python_chain_frame *cf, uint64_t t, enum python_verdict *ret_v, bool *ret_line);

static void chain_early(struct python *py, struct pyproc *p, const struct sample *s)
{
	const struct python_chain *ch = python_chains__peek(py->cfg.chains, (int32_t)s->tid, s->time);
	struct reader r = { p->pid };

	for (uint16_t i = 0; ch && i < ch->nr; i++) {
		enum python_verdict v;
		bool line;

		chain_symbol(py, p, &r, &ch->f[i], s->time, &v, &line);
	}
}

void python__early(struct python *py, const struct perf_event_header *ev)
{
	const struct python_layout *l;
	struct python_early_reading *e;
	uint64_t cfas[PYTHON_EARLY_ACTS], sp;
	struct sample s;
	struct pyproc *p;
	int32_t pid;
	size_t n;

	if (ev->type != PERF_RECORD_SAMPLE || sample__decode(&s, &py->attr, ev) < 0 || !s.regs_user.regs ||
	    s.regs_user.nr <= 7 || !s.stack_user.data)
		return;
	pid = (int32_t)s.pid;
	/* only processes attached, and threads unwound, before: judged in scope */
	p = hashtable__find(&py->procs, hash__u64((uint32_t)pid), &pid);
	if (p && p->chained) {
		chain_early(py, p, &s);
		return;
	}
	n = python_early__hints(py->early, (int32_t)s.tid, cfas);
	/* builds pinned by DWARF need the unwinding's registers: read when unwound;
	 * processes whose chains are read need no early reading */
	if (!p || !p->in.l || p->in.l->dwarf || p->chained || !n)
		return;
	l = p->in.l;
	sp = s.regs_user.regs[7];       /* perf's x86 register 7, the 8th of the mask */
	e = python_early__start(py->early, (int32_t)s.tid, s.time);
	for (size_t i = 0; i < n; i++) {
		struct python_early_act *a = &e->acts[i];
		uint64_t first_instr = 0;

		if (!stack_word(&s, sp, cfas[i] - l->cfa_frame, &a->frame) ||
		    !stack_word(&s, sp, cfas[i] - l->cfa_first_instr, &first_instr) ||
		    first_instr < l->co_code_adaptive)
			return;
		a->code = first_instr - l->co_code_adaptive;
	}
	for (size_t i = 0; i < n; i++) {
		struct python_early_act *a = &e->acts[i];
		enum python_verdict v;

		a->n = (uint8_t)walk_symbols(py, p, a->frame, a->code, NULL, s.time, a->syms, &v);
		a->verdict = (uint8_t)v;
	}
	e->read_ns = now_ns();
	python_early__keep(py->early, e, (uint8_t)n);
}

/* The symbols of activation i of a sample (read early if it was, else now): how many. */
static size_t activation_symbols(struct python *py, struct pyproc *p, const struct python_early_reading *e, size_t i,
				 const struct activation *a, uint64_t t, uint32_t *syms)
{
	enum python_verdict v;
	size_t nr;

	if (e) {
		v = e->acts[i].verdict;
		nr = e->acts[i].n;
		memcpy(syms, e->acts[i].syms, 4 * nr);
	} else {
		nr = walk_symbols(py, p, a->frame, a->code, p->in.l->dwarf ? &a->pin : NULL, t, syms, &v);
	}
	if (v != PYTHON_VERIFIED && v != PYTHON_BY_CODE) {
		py->st.unverified[v]++;
		syms[0] = 0;
		return 1;
	}
	py->st.activations++;
	py->st.by_code += v == PYTHON_BY_CODE;
	py->st.callers += nr > 1;
	return nr;
}

/* ---- chains read at the sample instant (chain.h) --------------------------------- */

/* The chain's frames of one activation: [start, end), innermost first. */
struct segment {
	uint16_t start, end;
};

/* The chain cut into its activations, innermost first (at most max): 3.11 ends one at
 * each frame marked is_entry (its first frame), 3.12 at each entry shim (not shown).
 * *ret_whole: the last one ends where the chain's does (a frame with no previous). */
static size_t segments(const struct python_layout *l, const struct python_chain *ch, struct segment *out,
		       size_t max, bool *ret_whole)
{
	size_t n = 0;
	uint16_t start = 0;

	for (uint16_t i = 0; i < ch->nr && n < max; i++) {
		if (!(ch->f[i].frame & 1))
			continue;
		out[n++] = (struct segment){ start, l->has_is_entry ? (uint16_t)(i + 1) : i };
		start = (uint16_t)(i + 1);
	}
	*ret_whole = ch->status == PYTHON_CHAIN_COMPLETE && start == ch->nr;
	/* a cut chain's last activation, partly read */
	if (start < ch->nr && n < max && ch->status != PYTHON_CHAIN_COMPLETE)
		out[n++] = (struct segment){ start, ch->nr };
	return n;
}

/* Does the chain's cut agree with the sample's activations: each frame the stack copy
 * pins is its activation's first in the chain, and (none pinned) there are as many? */
static bool chain_agrees(const struct activation *acts, size_t nacts, const struct python_chain *ch,
			 const struct segment *seg, size_t nseg, bool whole)
{
	size_t pinned = 0;

	if (whole && nseg < nacts)
		return false;
	for (size_t k = 0; k < nacts && k < nseg; k++) {
		if (!acts[k].frame)
			continue;
		if (seg[k].start >= seg[k].end || (ch->f[seg[k].start].frame & ~1ull) != acts[k].frame)
			return false;
		pinned++;
	}
	return pinned > 0 || (whole && nseg == nacts);
}

/* The symbol of a chain frame: its code object named as a pinned one is (proven by
 * time, code_symbol), with its line where its instruction lies in that code object;
 * 0 with *ret_v saying why not.  A code object proven by a reading after t needs no
 * other. */
static uint32_t chain_symbol(struct python *py, struct pyproc *p, struct reader *r,
			     const struct python_chain_frame *cf, uint64_t t, enum python_verdict *ret_v, bool *ret_line)
{
	const struct python_layout *l = p->in.l;
	struct python_walk w = { .l = l, .read = read_mem, .ctx = r, .code_type = p->in.code_type };
	struct code_key k = { r->pid, cf->code };
	const struct pycode *c = hashtable__find(&py->codes, hash__mix(hash__u64((uint32_t)r->pid), cf->code), &k);
	struct python_frame f = { .frame = cf->frame & ~1ull, .code = cf->code };
	uint64_t th = 0;
	uint32_t sym, ls;
	int tn = -1;

	/* proven at t already (a reading before and one after it, same name), and the
	 * line named for that very table before */
	if (c && c->sym && c->since_ns < t && c->confirmed_ns > t) {
		struct code_key lk = { r->pid, cf->instr };
		const struct pyline *pl = hashtable__find(&py->lines, hash__mix(hash__u64((uint32_t)r->pid), cf->instr), &lk);

		*ret_v = PYTHON_VERIFIED;
		*ret_line = pl && pl->code == cf->code && pl->code_sym == c->sym && pl->table_hash == c->table_hash &&
			    pl->sym;
		if (*ret_line)
			return pl->sym;
	}
	*ret_line = false;
	*ret_v = python_walk__code(&w, cf->code, f.head);
	if (*ret_v != PYTHON_VERIFIED)
		return 0;
	/* the table always: part of the code object's name, whether or not this frame's
	 * instruction is named by it (else the name would flip between readings) */
	tn = read_bytes(l, r, u64_at(f.head, l->co_linetable), py->table, sizeof(py->table));
	th = tn >= 0 ? hash__bytes(py->table, (size_t)tn) : 0;
	if (python_walk__holds(l, cf->code, f.head, cf->instr))
		f.instr = cf->instr;
	sym = code_symbol(py, &p->in, r, &f, th, t, ret_v);
	ls = sym && f.instr && tn >= 0 ? line_symbol(py, &p->in, r, &f, tn, th, sym) : 0;
	/* read from the process that pid named at the sample (not one given its pid since) */
	if (sym && !still_there(p->pidfd)) {
		*ret_v = PYTHON_READ_FAILED;
		return 0;
	}
	*ret_line = ls != 0;
	return ls ? ls : sym;
}

/* Activation k's frames from the chain into syms (at most max; innermost first): how
 * many.  A frame that cannot be named stands as [python: unverified], counted. */
static size_t chain_activation(struct python *py, struct pyproc *p, const struct python_chain *ch,
			       const struct segment *seg, bool partial, uint64_t t, uint32_t *syms, size_t max,
			       bool *ret_all)
{
	struct reader r = { p->pid };
	size_t n = 0;

	for (uint16_t i = seg->start; i < seg->end && n < max; i++) {
		enum python_verdict v;
		bool line;

		syms[n] = chain_symbol(py, p, &r, &ch->f[i], t, &v, &line);
		py->st.chain_lines += syms[n] && line;
		if (!syms[n]) {
			py->st.unverified[v == PYTHON_VERIFIED ? PYTHON_READ_FAILED : v]++;
			*ret_all = false;
		} else {
			py->st.chain_frames++;
		}
		n++;
	}
	if (partial && n < max)
		syms[n++] = 1;  /* read no further: its callers are not known */
	return n;
}

/* The sample's Python frames from its chain (how many written into out, at most max),
 * or SIZE_MAX when the chain does not agree with the sample (then as without one). */
static size_t chain_frames(struct python *py, struct pyproc *p, const struct sample *s, const uint64_t *ips,
			   size_t nr, const struct activation *acts, size_t nacts, const struct python_chain *ch,
			   uint64_t *out, size_t max, bool *ret_all)
{
	struct segment seg[64];
	uint32_t syms[PYTHON_CHAIN_FRAMES + 1];
	size_t nseg, n = 0, next = 0;
	bool whole;

	nseg = segments(p->in.l, ch, seg, ARRAY_SIZE(seg), &whole);
	if (!chain_agrees(acts, nacts, ch, seg, nseg, whole)) {
		py->st.chain_disagreed++;
		return SIZE_MAX;
	}
	py->st.chained++;
	for (size_t i = 0; i < nr; i++) {
		if (next < nacts && acts[next].at == i) {
			size_t k = 0;

			if (next < nseg)
				k = chain_activation(py, p, ch, &seg[next], next + 1 == nseg && !whole, s->time, syms,
						     ARRAY_SIZE(syms), ret_all);
			else
				syms[k++] = 1;  /* past the chain read: not known */
			for (size_t j = 0; j < k && n < max; j++)
				out[n++] = PYTHON_BASE + syms[j];
			next++;
		}
		if (n < max)
			out[n++] = ips[i];
	}
	return n;
}

size_t python__frames(void *ctx, const struct sample *s, uint64_t *ips, const uint64_t *sps,
		      const struct unwind_regs *regs, size_t nr, size_t max)
{
	struct python *py = ctx;
	struct pyproc *p = proc_get(py, (int32_t)s->pid);
	struct activation acts[64];     /* 3.8-3.10: one per Python frame */
	const struct python_early_reading *early;
	uint32_t syms[MAX_PY_FRAMES];
	uint64_t out[UNWIND_MAX_OUT_FRAMES], t;
	size_t nacts, n = 0, next = 0;
	bool all = true;

	const struct python_chain *chain;

	if (!p || !p->in.l || max > UNWIND_MAX_OUT_FRAMES)
		return nr;
	/* taken for every sample of the process, used or not */
	chain = p->chained ? python_chains__take(py->cfg.chains, (int32_t)s->tid, s->time) : NULL;
	py->st.samples++;
	nacts = activations(&p->in, s, ips, sps, regs, nr, acts, ARRAY_SIZE(acts));
	early = early_find(py, s, acts, nacts);
	hint_note(py, s, acts, nacts);
	if (!nacts || map_object(py, s) < 0)
		return nr;
	py->st.with_python++;
	if (chain) {
		n = chain_frames(py, p, s, ips, nr, acts, nacts, chain, out, max, &all);
		if (n != SIZE_MAX) {
			t = now_ns();
			if (t > s->time) {
				py->st.delay_sum_ns += t - s->time;
				py->st.delay_max_ns = MAX(py->st.delay_max_ns, t - s->time);
			}
			py->st.verified += all;
			memcpy(ips, out, 8 * n);
			return n;
		}
		n = 0;
		all = true;
	} else if (p->chained) {
		py->st.unchained++;
	}
	py->st.early += early != NULL;
	for (size_t i = 0; i < nr; i++) {
		if (next < nacts && acts[next].at == i) {
			size_t k = activation_symbols(py, p, early, next, &acts[next], s->time, syms);

			all &= k != 1 || syms[0] != 0;
			for (size_t j = 0; j < k && n < max; j++)
				out[n++] = PYTHON_BASE + syms[j];
			next++;
		}
		if (n < max)
			out[n++] = ips[i];
	}
	t = early ? early->read_ns : now_ns();
	if (t > s->time) {
		py->st.delay_sum_ns += t - s->time;
		py->st.delay_max_ns = MAX(py->st.delay_max_ns, t - s->time);
	}
	py->st.verified += all;
	memcpy(ips, out, 8 * n);
	return n;
}

void python__finish(struct python *py)
{
	enum build_id_cache_result res;
	int fd, err;

	if (!py->st.with_python || !py->cfg.cache)
		return;
	fd = memfd_create("prof-python", MFD_CLOEXEC);
	if (fd < 0) {
		py->st.kept = -errno;
		return;
	}
	err = python_elf__write(fd, &py->id, (const char *const *)py->names, py->nr_names);
	if (err == 0)
		err = build_id_cache__add(py->cfg.cache, fd, PYTHON_OBJECT_PATH, &py->id,
					  (uint64_t)lseek(fd, 0, SEEK_END), &res);
	if (err == 0 && res != BUILD_ID_CACHE_KEPT && res != BUILD_ID_CACHE_PRESENT)
		err = -ENOSPC;
	py->st.kept = err;
	close(fd);
}
