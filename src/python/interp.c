/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Finding and checking a process's CPython: see include/prof/python/interp.h.
 */
#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "prof/analyze/unwinder.h"
#include "prof/base/util.h"
#include "prof/perfdata/build_id.h"
#include "prof/python/code_pins.h"
#include "prof/python/frame_old.h"
#include "prof/python/interp.h"
#include "prof/python/prologue.h"
#include "prof/runtime/dynsym.h"

static void note_sym(void *ctx, const char *name, const GElf_Sym *sym)
{
	struct interp_syms *s = ctx;

	if (strcmp(name, "_PyEval_EvalFrameDefault") == 0 && GELF_ST_TYPE(sym->st_info) == STT_FUNC) {
		s->eval = sym->st_value;
		s->eval_size = sym->st_size;
	} else if (strcmp(name, "PyCode_Type") == 0) {
		s->code_type = sym->st_value;
	} else if (strcmp(name, "_PyRuntime") == 0) {
		s->runtime = sym->st_value;
	} else if (strcmp(name, "Py_Version") == 0) {
		s->version_addr = sym->st_value;
	} else if (strcmp(name, "PyFrame_Type") == 0) {
		s->frame_type = sym->st_value;
	}
}

static int syms_of(Elf *elf, int fd, struct interp_syms *ret)
{
	int64_t off;

	dynsym__each(elf, note_sym, ret);
	if (!ret->eval || !ret->eval_size || !ret->code_type || !ret->runtime)
		return -ENOENT;
	if (!ret->version_addr)
		return -EPROTO;         /* an interpreter from before Py_Version (3.11) */
	off = dynsym__file_offset(elf, ret->version_addr, 4);
	if (off < 0 || pread(fd, &ret->version, 4, off) != 4)
		return -ENOENT;
	return 0;
}

int interp__read_syms(int fd, struct interp_syms *ret)
{
	Elf *elf = dynsym__elf(fd);
	int err;

	memset(ret, 0, sizeof(*ret));
	if (!elf)
		return -EINVAL;
	err = syms_of(elf, fd, ret);
	elf_end(elf);
	return err;
}

bool interp__looks_like(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return strncmp(base, "python3", 7) == 0 || strncmp(base, "libpython3", 10) == 0;
}

void interp__release(struct interp *in)
{
	if (in) {
		in->pins = python_pins__free(in->pins);
		in->calls = python_callsites__free(in->calls);
	}
}

#define CHECK(name, have, want)                                                                  \
	do {                                                                                     \
		if ((int64_t)(have) != (int64_t)(want)) {                                        \
			snprintf(why, why_len, "%s is %lld where %s has %lld", name, (long long)(have), \
				 l->what, (long long)(want));                                   \
			return -ENOTSUP;                                                         \
		}                                                                                \
	} while (0)

int interp__check_dwarf(const struct python_layout *l, const struct pin_offsets *o, const uint8_t *dbg,
			uint32_t version, char *why, size_t why_len)
{
	CHECK("its DWARF's _PyInterpreterFrame.f_code", o->f_code, l->f_code);
	CHECK("its DWARF's _PyInterpreterFrame.previous", o->f_previous, l->f_previous);
	CHECK("its DWARF's _PyInterpreterFrame.owner", o->f_owner, l->f_owner);
	CHECK("its DWARF's _PyInterpreterFrame.localsplus", o->f_localsplus, l->frame_specials);
	if (l->has_is_entry)
		CHECK("its DWARF's _PyInterpreterFrame.is_entry", o->f_is_entry, l->f_is_entry);
	CHECK("its DWARF's PyCodeObject.co_qualname", o->co_qualname, l->co_qualname);
	CHECK("its DWARF's PyCodeObject.co_filename", o->co_filename, l->co_filename);
	CHECK("its DWARF's PyCodeObject.co_firstlineno", o->co_firstlineno, l->co_firstlineno);
	CHECK("its DWARF's PyCodeObject.co_linetable", o->co_linetable, l->co_linetable);
	CHECK("its DWARF's PyCodeObject.co_code_adaptive", o->co_code_adaptive, l->co_code_adaptive);
	CHECK("its DWARF's PyCodeObject.co_stacksize", o->co_stacksize, l->co_stacksize);
	CHECK("its DWARF's PyCodeObject.co_nlocalsplus", o->co_nlocalsplus, l->co_nlocalsplus);
	return interp__check_debug_offsets(l, dbg, version, why, why_len);
}

int interp__check_debug_offsets(const struct python_layout *l, const uint8_t *dbg, uint32_t version, char *why,
				size_t why_len)
{
	if (l->debug_offsets) {
		uint64_t v[PYTHON_DEBUG_OFFSETS_LEN / 8];

		memcpy(v, dbg, sizeof(v));
		if (memcmp(dbg, "xdebugpy", 8) != 0) {
			snprintf(why, why_len, "its _PyRuntime does not start with _Py_DebugOffsets' cookie");
			return -ENOTSUP;
		}
		/* _Py_DebugOffsets of 3.13: interpreter_frame at 224, code_object at 272 */
		CHECK("its _Py_DebugOffsets.version", v[1], version);
		CHECK("its _Py_DebugOffsets.interpreter_frame.previous", v[29], l->f_previous);
		CHECK("its _Py_DebugOffsets.interpreter_frame.executable", v[30], l->f_code);
		CHECK("its _Py_DebugOffsets.interpreter_frame.instr_ptr", v[31], l->f_prev_instr);
		CHECK("its _Py_DebugOffsets.interpreter_frame.localsplus", v[32], l->frame_specials);
		CHECK("its _Py_DebugOffsets.interpreter_frame.owner", v[33], l->f_owner);
		CHECK("its _Py_DebugOffsets.code_object.filename", v[35], l->co_filename);
		CHECK("its _Py_DebugOffsets.code_object.qualname", v[37], l->co_qualname);
		CHECK("its _Py_DebugOffsets.code_object.linetable", v[38], l->co_linetable);
		CHECK("its _Py_DebugOffsets.code_object.firstlineno", v[39], l->co_firstlineno);
		CHECK("its _Py_DebugOffsets.code_object.co_code_adaptive", v[43], l->co_code_adaptive);
	}
	return 0;
}

/* Where the build's debug file would be, by its build id. */
static void debug_path_of(const struct build_id *b, char *buf, size_t len)
{
	char hex[2 * BUILD_ID_MAX + 1];

	build_id__hex(b, hex, sizeof(hex));
	snprintf(buf, len, "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
}

/* A build whose stack copy nothing pins: its version's structures alone, its frames
 * from the chain read at the sample instant (INTERP_CHAIN), because of why. */
static int chain_only(struct interp *ret, const struct python_layout *l, const char *why)
{
	ret->pins = python_pins__free(ret->pins);
	ret->l = l;
	ret->how = INTERP_CHAIN;
	snprintf(ret->why_no_pins, sizeof(ret->why_no_pins), "%.159s", why);
	return 0;
}

/* A build with no DWARF (no: why): the slots its eval function's prologue stores
 * (3.11, prologue.h), else chain_only. */
static int by_prologue(Elf *elf, int fd, const struct interp_syms *s, struct interp *ret,
		       const struct python_layout *l, const char *no)
{
	uint8_t code[1024];
	size_t len = MIN(sizeof(code), s->eval_size);
	char why[160], because[160 + 64];
	struct python_slots slots;
	int64_t off = dynsym__file_offset(elf, s->eval, len);

	if (!l->has_is_entry || off < 0 || pread(fd, code, len, off) != (ssize_t)len)
		return chain_only(ret, l, no);          /* 3.12+ keep no first_instr */
	if (python_prologue__slots(code, len, l, &slots, why, sizeof(why)) < 0) {
		snprintf(because, sizeof(because), "%s; its code: %s", no, why);
		return chain_only(ret, l, because);
	}
	ret->l = l;
	ret->how = INTERP_PROLOGUE;
	ret->cfa_frame = slots.cfa_frame;
	ret->cfa_first_instr = slots.cfa_first_instr;
	ret->stored_by = slots.stored_by;
	snprintf(ret->why_no_pins, sizeof(ret->why_no_pins), "%s", no);
	return 0;
}

/* Does the build have a location of the running instruction (or its code) anywhere? */
static bool pins_instr(const struct python_pins *p)
{
	return python_pins__count(p, PIN_NEXT_INSTR) || python_pins__count(p, PIN_FIRST_INSTR) ||
	       python_pins__count(p, PIN_THIS_INSTR);
}

/*
 * A build with no fixed layout: its version's structures (l), checked against its
 * DWARF where it has some and its _Py_DebugOffsets (3.13); its stack copy pinned by
 * its DWARF, else by its machine code, else by nothing (chain_only), into ret.
 */
static int judge_dwarf(Elf *elf, int fd, const struct interp_syms *s, const struct build_id *b, struct interp *ret,
		       char *why, size_t why_len)
{
	const struct python_layout *l = python_layout__find_dwarf(s->version);
	uint8_t dbg[PYTHON_DEBUG_OFFSETS_LEN] = { 0 };
	char debug_path[128], hex[2 * BUILD_ID_MAX + 1];
	int64_t off;
	int err;

	if (!l)
		return -ENOTSUP;
	if (l->debug_offsets && ((off = dynsym__file_offset(elf, s->runtime, sizeof(dbg))) < 0 ||
				 pread(fd, dbg, sizeof(dbg), off) != (ssize_t)sizeof(dbg)))
		memset(dbg, 0, sizeof(dbg));
	if (b->size)
		debug_path_of(b, debug_path, sizeof(debug_path));
	err = python_pins__read(elf, b->size ? debug_path : NULL, s->eval, &ret->pins);
	if (err == -ENOENT || err == -E2BIG) {
		const char *no = err == -ENOENT ? "no debug info" : "its DWARF has more locations than prof keeps";

		err = interp__check_debug_offsets(l, dbg, s->version, why + strlen(why), why_len - strlen(why));
		return err < 0 ? err : by_prologue(elf, fd, s, ret, l, no);
	}
	if (err < 0)
		return err;
	err = interp__check_dwarf(l, python_pins__offsets(ret->pins), dbg, s->version, why + strlen(why),
				  why_len - strlen(why));
	if (err < 0) {
		ret->pins = python_pins__free(ret->pins);
		return err;
	}
	ret->l = l;
	ret->how = INTERP_DWARF;
	if (pins_instr(ret->pins))
		return 0;
	/* without an instruction nothing names a frame's code object at the sample;
	 * a build whose DWARF has no locations by pc may have them from its code */
	build_id__hex(b, hex, sizeof(hex));
	err = b->size ? python_code_pins__add(ret->pins, hex, s->eval, s->eval_size) : -ENOENT;
	if (err == -ENOENT)
		return chain_only(ret, l, "its DWARF gives the instruction no location by pc; no pins from its code");
	if (err < 0) {
		ret->pins = python_pins__free(ret->pins);
		return err;
	}
	ret->how = INTERP_CODE;
	return 0;
}

void interp_cache__release(struct interp_cache *c)
{
	for (size_t i = 0; c && i < INTERP_CACHE_N; i++)
		c->v[i].pins = python_pins__free(c->v[i].pins);
}

/* Build b's entry, the least recently used one given to it when it has none; NULL
 * without a cache or a build id. */
static struct interp_cached *cached(struct interp_cache *c, const struct build_id *b)
{
	struct interp_cached *e, *lru;

	if (!c || !b->size)
		return NULL;
	lru = &c->v[0];
	for (size_t i = 0; i < INTERP_CACHE_N; i++) {
		e = &c->v[i];
		if (e->b.size == b->size && !memcmp(e->b.data, b->data, b->size)) {
			e->used = ++c->tick;
			return e;
		}
		if (e->used < lru->used)
			lru = e;
	}
	python_pins__free(lru->pins);
	*lru = (struct interp_cached){ .b = *b, .used = ++c->tick };
	return lru;
}

/* judge_dwarf, once per build: what it appends to why and its verdict are the build's,
 * the same for every process of it. */
static int judge_dwarf_cached(struct interp_cache *c, Elf *elf, int fd, const struct interp_syms *s,
			      const struct build_id *b, struct interp *ret, char *why, size_t why_len)
{
	struct interp_cached *e = cached(c, b);
	size_t at = strlen(why);
	int err;

	if (e && e->has_dwarf) {
		snprintf(why + at, why_len - at, "%s", e->why);
		if (e->err == 0) {
			ret->l = e->l;
			ret->how = e->how;
			ret->cfa_frame = e->cfa_frame;
			ret->cfa_first_instr = e->cfa_first_instr;
			ret->stored_by = e->stored_by;
			ret->pins = python_pins__ref(e->pins);
			snprintf(ret->why_no_pins, sizeof(ret->why_no_pins), "%s", e->why_no_pins);
		}
		return e->err;
	}
	err = judge_dwarf(elf, fd, s, b, ret, why, why_len);
#ifdef __GLIBC__
	/* libdw's copy of the debug sections (~16 MB for CPython's) is freed by now:
	 * given back, not kept as the resident heap of a daemon */
	malloc_trim(0);
#endif
	/* the build's own verdicts only, not a failure of this reading (-ENOMEM, -EIO) */
	if (!e || (err != 0 && err != -ENOTSUP && err != -E2BIG && err != -ENOENT))
		return err;
	e->has_dwarf = true;
	e->err = err;
	e->l = err == 0 ? ret->l : NULL;
	e->how = ret->how;
	e->cfa_frame = ret->cfa_frame;
	e->cfa_first_instr = ret->cfa_first_instr;
	e->stored_by = ret->stored_by;
	snprintf(e->why_no_pins, sizeof(e->why_no_pins), "%s", ret->why_no_pins);
	e->pins = err == 0 ? python_pins__ref(ret->pins) : NULL;
	snprintf(e->why, sizeof(e->why), "%s", why + at);
	return err;
}

/* syms_of, once per build (none without a build id: every time). */
static int syms_cached(struct interp_cache *c, Elf *elf, int fd, const struct build_id *b, struct interp_syms *ret)
{
	struct interp_cached *e = cached(c, b);
	int err;

	if (e && e->has_syms) {
		*ret = e->s;
		return e->syms_err;
	}
	err = syms_of(elf, fd, ret);
	if (e && (err == 0 || err == -EPROTO || err == -ENOENT)) {
		e->has_syms = true;
		e->s = *ret;
		e->syms_err = err;
	}
	return err;
}

/* Judge one candidate mapping (open on fd): 0, -ENOENT (no interpreter), -ENOTSUP. */
static int judge(int fd, const struct map *m, const char *path, struct interp_cache *cache, struct interp *ret,
		 char *why, size_t why_len)
{
	struct interp_syms s;
	struct build_id b = { 0 };
	uint64_t bias;
	char hex[2 * BUILD_ID_MAX + 1];
	Elf *elf = dynsym__elf(fd);
	bool found;
	int err;

	/* one reading of the file for its symbols and where it is loaded */
	memset(&s, 0, sizeof(s));
	if (!elf)
		return -ENOENT;
	if (build_id__read_elf(fd, &b) < 0)
		b.size = 0;
	err = syms_cached(cache, elf, fd, &b, &s);
	found = (err == 0 || err == -EPROTO) && unwinder__map_bias(elf, m, &bias);
	elf_end(elf);
	if (!found)
		return -ENOENT;
	elf = dynsym__elf(fd);
	if (!elf)
		return -ENOENT;
	if (err == -EPROTO) {
		/* 3.8-3.10: the version by name, checked against the build (frame_old.h) */
		*ret = (struct interp){ .eval_lo = bias + s.eval, .eval_hi = bias + s.eval + s.eval_size,
					.code_type = bias + s.code_type, .runtime = bias + s.runtime,
					.frame_type = s.frame_type ? bias + s.frame_type : 0, .bias = bias,
					.text_lo = m->start, .text_hi = m->end, .how = INTERP_DWARF };
		snprintf(ret->path, sizeof(ret->path), "%s", path);
		err = interp_old__judge(elf, path, &s, &b, ret, why, why_len);
		elf_end(elf);
		return err;
	}
	*ret = (struct interp){ .eval_lo = bias + s.eval, .eval_hi = bias + s.eval + s.eval_size,
				.code_type = bias + s.code_type, .runtime = bias + s.runtime, .version = s.version,
				.bias = bias };
	snprintf(ret->path, sizeof(ret->path), "%s", path);
	ret->l = python_layout__find(s.version, b.data, b.size);
	if (ret->l) {
		/* the prologue's own stores come before its first 0xc0 bytes end (layout.c) */
		ret->cfa_frame = ret->l->cfa_frame;
		ret->cfa_first_instr = ret->l->cfa_first_instr;
		ret->stored_by = 0xc0;
		elf_end(elf);
		return 0;
	}
	snprintf(why, why_len, "%s: CPython %u.%u.%u: ", path, s.version >> 24, (s.version >> 16) & 0xff,
		 (s.version >> 8) & 0xff);
	err = judge_dwarf_cached(cache, elf, fd, &s, &b, ret, why, why_len);
	elf_end(elf);
	/* an error of its own: said after the version, not left half written */
	if (err < 0 && err != -ENOTSUP && why[strlen(why) - 1] == ' ')
		snprintf(why + strlen(why), why_len - strlen(why), "its debug info could not be read (%s)",
			 strerror(-err));
	if (err != -ENOTSUP || why[strlen(why) - 1] != ' ')
		return err;
	why[0] = '\0';
	build_id__hex(&b, hex, sizeof(hex));
	if (python_layout__knows_version(s.version))
		snprintf(why, why_len, "%s: CPython %u.%u.%u of build id %s is not a build prof knows", path,
			 s.version >> 24, (s.version >> 16) & 0xff, (s.version >> 8) & 0xff, b.size ? hex : "(none)");
	else
		snprintf(why, why_len, "%s: CPython %u.%u.%u (Py_Version %#x) is not a version prof knows", path,
			 s.version >> 24, (s.version >> 16) & 0xff, (s.version >> 8) & 0xff, s.version);
	return -ENOTSUP;
}

int interp__find(const struct model *m, int32_t pid, unwinder_open_fn open, void *ctx, struct interp_cache *cache,
		 struct interp *ret, char *why, size_t why_len)
{
	const struct maps *ms = model__maps(m, pid);

	for (size_t i = 0; ms && i < ms->nr; i++) {
		const struct map *mp = &ms->v[i];
		const struct model_dso *d = model__dso(m, mp->dso);
		int fd, err;

		if (!(mp->prot & PROT_EXEC) || !d->name || !interp__looks_like(d->name))
			continue;
		fd = open(ctx, &(struct task_file){ .pid = pid, .start = mp->start, .end = mp->end, .path = d->name,
						    .maj = d->maj, .min = d->min, .ino = d->ino });
		if (fd < 0)
			continue;
		err = judge(fd, mp, d->name, cache, ret, why, why_len);
		close(fd);
		if (err != -ENOENT)
			return err;
	}
	return -ENOENT;
}

int interp__check(const struct interp *in, python_read_fn read, void *ctx, char *why, size_t why_len)
{
	const struct python_layout *l = in->l;
	uint8_t head[64];
	char name[8] = { 0 };
	uint64_t basic, item, name_at;
	int err = read(ctx, in->code_type, head, sizeof(head));

	if (err < 0)
		return err;
	memcpy(&name_at, head + l->tp_name, 8);
	memcpy(&basic, head + l->tp_basicsize, 8);
	memcpy(&item, head + l->tp_itemsize, 8);
	err = read(ctx, name_at, name, 5);
	if (err < 0)
		return err;
	if (strcmp(name, "code") != 0 || basic != l->code_basicsize || item != l->code_itemsize) {
		snprintf(why, why_len, "%s: its PyCode_Type (%.5s, %lu + %lu bytes) is not what %s has", in->path, name,
			 (unsigned long)basic, (unsigned long)item, l->what);
		return -ENOTSUP;
	}
	/* 3.8-3.10: the frame objects the activations pin, as the process sizes them */
	if (l->old && (err = read(ctx, in->frame_type, head, sizeof(head))) < 0)
		return err;
	if (l->old) {
		memcpy(&name_at, head + l->tp_name, 8);
		memcpy(&basic, head + l->tp_basicsize, 8);
		memset(name, 0, sizeof(name));
		if ((err = read(ctx, name_at, name, 6)) < 0)
			return err;
		if (strcmp(name, "frame") != 0 || basic != l->frame_basicsize) {
			snprintf(why, why_len, "%s: its PyFrame_Type (%.6s, %lu bytes) is not what %s has", in->path,
				 name, (unsigned long)basic, l->what);
			return -ENOTSUP;
		}
	}
	return 0;
}

int interp__check_slots(const struct interp *in, python_read_fn read, void *ctx, char *why, size_t why_len)
{
	const struct python_layout *l = in->l;
	uint64_t interp = 0, ts = 0, cframe, frame, code, first;
	int err, n = 0;

	if ((err = read(ctx, in->runtime + l->rt_interp_head, &interp, 8)) < 0 ||
	    (err = read(ctx, interp + l->is_threads_head, &ts, 8)) < 0)
		return err;
	for (; ts && n < 64; n++) {
		/* cframe on its thread's stack: the activation's CFA is its address plus
		 * the slots' distance */
		if (read(ctx, ts + l->ts_cframe, &cframe, 8) == 0 &&
		    read(ctx, cframe + l->cframe_current, &frame, 8) == 0 && frame &&
		    read(ctx, frame + l->f_code, &code, 8) == 0 &&
		    read(ctx, cframe + l->cframe_current + in->cfa_frame - (uint64_t)in->cfa_first_instr, &first, 8) == 0 &&
		    first == code + l->co_code_adaptive)
			return 0;
		if ((err = read(ctx, ts + l->ts_next, &ts, 8)) < 0)
			return err;
	}
	snprintf(why, why_len, "its eval function's prologue stores them at CFA-%#x and CFA-%#x, which none of %d "
		 "thread states agreed with", in->cfa_frame, in->cfa_first_instr, n);
	return -ENOTSUP;
}
