/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * python's names (python_internal.h): the symbol table of the recording's object, a
 * code object's name and a pinned instruction's line as proven by time, and an
 * activation's symbols read now.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "prof/base/hash.h"
#include "prof/base/hashtable.h"
#include "prof/python/frame_old.h"
#include "prof/python/interp.h"
#include "prof/sys/privs.h"
#include "python_internal.h"

/* ---- the symbol table ----------------------------------------------------------- */

/* The symbol of name: its index (added when new), or 0 on ENOMEM (unverified). */
uint32_t python__symbol(struct python *py, const char *name)
{
	uint32_t sym = runtime_symbols__symbol(&py->names, name);

	py->st.locations = py->names.nr;
	return sym;
}

static const char *const fixed_names[] = { UNVERIFIED_NAME, CALLERS_NAME };

int python__names_init(struct python *py)
{
	int err = runtime_symbols__init(&py->names, fixed_names, ARRAY_SIZE(fixed_names), SYMBOLS_MAX,
				      py->cfg.live_names);

	py->st.locations = py->names.nr;
	return err;
}

void python__names_turn(struct python *py)
{
	if (!runtime_symbols__turn(&py->names))
		return;
	/* what holds a symbol of the window gone: the code objects' and lines' names and
	 * the early readings; forgotten with the names */
	hashtable__clear(&py->codes);
	hashtable__clear(&py->lines);
	python_early__forget(py->early);
	py->st.name_windows = py->names.windows;
	py->st.locations = py->names.nr;
}

/* ---- names proven by time ------------------------------------------------------ */

/* A str of the process as UTF-8 into buf. */
static int read_str(const struct python_layout *l, struct reader *r, uint64_t addr, char *buf, size_t len)
{
	uint8_t head[128], data[1024];
	uint32_t off, bytes;
	int err = python__read_mem(r, addr, head, l->str_compact_data);

	if (err == 0)
		err = python_str__data(l, head, l->str_compact_data, &off, &bytes);
	if (err == 0 && bytes > sizeof(data))
		err = -ENOSPC;
	if (err == 0 && bytes)
		err = python__read_mem(r, addr + off, data, bytes);
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
bool python__code_late(struct python *py, int32_t pid, uint64_t addr, uint64_t t)
{
	struct code_key k = { pid, addr };
	const struct pycode *c = hashtable__find(&py->codes, hash__mix(hash__u64((uint32_t)pid), addr), &k);

	return c && c->sym && c->since_ns >= t;
}

uint32_t python__code_symbol(struct python *py, const struct interp *in, struct reader *r,
			     const struct python_frame *f, uint64_t table_hash, uint64_t t, enum python_verdict *ret_v)
{
	const struct python_layout *l = in->l;
	struct code_key k = { r->pid, f->code };
	uint64_t h = hash__mix(hash__u64((uint32_t)r->pid), f->code), nh;
	struct pycode *c;
	int32_t first;
	char qual[256], file[512], name[1024];
	bool created;

	uint64_t t0 = python__now_ns();

	/* a backlog's sample older than the first reading at that address: a reading now
	 * would end in PYTHON_NOT_BEFORE too (below), at the cost of its names' reads */
	if (python__code_late(py, r->pid, f->code, t)) {
		*ret_v = PYTHON_NOT_BEFORE;
		return 0;
	}
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
		*c = (struct pycode){ .pid = r->pid, .addr = f->code, .name_hash = nh, .since_ns = python__now_ns(),
				      .confirmed_ns = t0, .table_hash = table_hash, .sym = python__symbol(py, name) };
	/* first read there after the sample: which code object the sample saw is not known */
	*ret_v = c && c->sym ? PYTHON_NOT_BEFORE : PYTHON_READ_FAILED;
	return 0;
}

/* A bytes object of the process (at most len bytes) into buf: its size, or -errno. */
int python__read_bytes(const struct python_layout *l, struct reader *r, uint64_t addr, uint8_t *buf, size_t len)
{
	uint8_t head[64];
	int64_t size;
	int err = python__read_mem(r, addr, head, l->bytes_data);

	if (err < 0)
		return err;
	memcpy(&size, head + l->bytes_size, 8);
	if (size < 0 || (uint64_t)size > len)
		return -ENOSPC;
	err = size ? python__read_mem(r, addr + l->bytes_data, buf, (size_t)size) : 0;
	return err < 0 ? err : (int)size;
}

/* The symbol "qualname (file:LINE)" of f's pinned instruction in its code object,
 * by its co_linetable as read into py->table (n bytes, hash th: python__code_symbol
 * proved that very table there before the sample and after, with the names), kept by
 * (pid, instruction) for that table.  0 when unreadable or where the table gives
 * that instruction no line. */
uint32_t python__line_symbol(struct python *py, const struct interp *in, struct reader *r,
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
			      .sym = python__symbol(py, name) };
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

	if (!c || !c->sym || python__read_mem(r, c->code, f->head, l->co_code_adaptive) < 0)
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

/* ---- an activation's symbols, read now ------------------------------------------ */

/* The symbols of the activation that pinned (frame, code) into syms, innermost
 * first, read now: its function, and CALLERS_NAME above it when it may have callers
 * (how many, 0 with *ret_v saying why it could not be verified); t: the sample's time. */
static size_t walk_symbols_now(struct python *py, struct pyproc *p, uint64_t frame, uint64_t code,
			       const struct python_pinned *pin, uint64_t t, uint32_t *syms, enum python_verdict *ret_v)
{
	struct reader r = { p->rp.pid };
	struct python_walk w = { .l = p->in.l, .read = python__read_mem, .ctx = &r, .code_type = p->in.code_type,
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
		tn = python__read_bytes(p->in.l, &r, u64_at(f.head, p->in.l->co_linetable), py->table,
					sizeof(py->table));
		th = tn >= 0 ? hash__bytes(py->table, (size_t)tn) : 0;
	}
	if (v == PYTHON_VERIFIED || v == PYTHON_BY_CODE)
		syms[0] = python__code_symbol(py, &p->in, &r, &f, th, t, &v);
	/* 3.8-3.10 with neither co nor an instruction pinned: the code object the pinned
	 * frame holds now is the sample's only if the frame was read holding it (with
	 * that name) before the sample too, as python__code_symbol proves a name by time
	 * at a code object's address, here at the frame's (frame_old.h) */
	if ((v == PYTHON_VERIFIED || v == PYTHON_BY_CODE) && f.by_frame) {
		struct python_frame g = f;

		g.code = f.frame;
		if (!python__code_symbol(py, &p->in, &r, &g, hash__mix(th, f.code), t, &v))
			syms[0] = 0;
	}
	if ((v == PYTHON_VERIFIED || v == PYTHON_BY_CODE) && !runtime_proc__still_there(&p->rp))
		v = PYTHON_READ_FAILED;
	/* the line where the instruction is pinned (else the function's "def N") */
	if ((v == PYTHON_VERIFIED || v == PYTHON_BY_CODE) && f.instr && tn >= 0) {
		uint32_t ls = python__line_symbol(py, &p->in, &r, &f, tn, th, syms[0]);

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
size_t python__walk_symbols(struct python *py, struct pyproc *p, uint64_t frame, uint64_t code,
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
