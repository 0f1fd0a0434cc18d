/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * JavaScript frames in unwound samples: see include/prof/node/frames.h.  The
 * processes, names and counts are the runtime layer's (runtime/runtime.h); what is
 * Node's own is finding where a sample's frames reach V8's code, the walk by frame
 * pointer through the stack copy (jsframe.c reads each frame), and the proof that a
 * frame's pc lies in the code of the function it names.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "prof/base/hash.h"
#include "prof/base/hashtable.h"
#include "prof/base/util.h"
#include "prof/node/early.h"
#include "prof/node/frames.h"
#include "prof/node/jsframe.h"
#include "prof/node/node.h"
#include "prof/node/v8code.h"
#include "prof/node/v8heap.h"
#include "prof/runtime/runtime.h"
#include "frames_internal.h"

#define NODE_SYMBOLS_MAX (1u << 22)
#define NODE_NAMES_CACHED (1u << 16)   /* past it, the cache starts again */

static const char *const fixed_names[] = { NODE_UNVERIFIED_NAME };

static int attach(void *rt, struct runtime_proc *rp, char *why, size_t why_len);
static void detach(void *rt, struct runtime_proc *rp);
static void describe(const void *rt, char *buf, size_t len);
static bool name_of(const void *rt, const struct model_dso *d, uint64_t off, const char **ret);
static bool mapping(const char *name);
static int rewrite_g(void *rt, const struct perf_event_header *ev, void *out, size_t outlen);

static void note(void *rt, const struct perf_event_header *ev)
{
	node_frames__note(rt, ev);
}

static size_t frames_of(void *rt, const struct sample *s, uint64_t *ips, const uint64_t *sps,
			const struct unwind_regs *regs, size_t nr, size_t max, bool *ret_named)
{
	const struct node_frames *nf = rt;
	uint64_t with = nf->st.with_js;
	size_t n = node_frames__edit(rt, s, ips, sps, regs, nr, max);

	/* a sample in which prof named JavaScript: not Python's */
	*ret_named = nf->st.with_js != with;
	return n;
}

static const void *stats(const void *rt)
{
	return node_frames__stats(rt);
}

static void finish(void *rt)
{
	node_frames__finish(rt);
}

static void free_rt(void *rt)
{
	node_frames__free(rt);
}

/* V8 on the runtime layer (runtime.h): --call-graph dwarf, and -g with the stack
 * copy (frames_g.c); its samples read when drained (early.h). */
static const struct runtime_ops node_ops = {
	.what = "node",
	.proc_size = sizeof(struct nodeproc),
	/* an exec is seen as its mappings changing: attached again, counted once */
	.exec_detaches = false,
	.attach = attach,
	.detach = detach,
	.note = note,
	.drained = node_frames__drained,
	.mapping = mapping,
	.frames = frames_of,
	.rewrite_g = rewrite_g,
	.name = name_of,
	.stats = stats,
	.describe = describe,
	.finish = finish,
	.free = free_rt,
};

/* -g's model: V8's object, its compiled code's anonymous mappings (a pc in none of
 * these is native code: pc_kind), the recording's object. */
static bool mapping(const char *name)
{
	return node__looks_like(name) || !strncmp(name, "//anon", 6) || !strncmp(name, "[anon", 5) ||
	       !strncmp(name, "/tmp/perf-", 10) || !strcmp(name, NODE_OBJECT_PATH);
}

static int rewrite_g(void *rt, const struct perf_event_header *ev, void *out, size_t outlen)
{
	return node_frames__rewrite_g(rt, ev, out, outlen);
}

struct node_frames_g *node_frames__g(struct node_frames *nf)
{
	return &nf->g;
}

const struct runtime_ops *node_frames__runtime(void)
{
	return &node_ops;
}

static bool jsname_eq(const void *e, const void *key, const void *ctx)
{
	const struct jsname *a = e, *b = key;

	return a->pid == b->pid && a->gen == b->gen && a->shared == b->shared;
}

int node_frames__new(const struct node_frames_config *cfg, struct node_frames **ret)
{
	struct node_frames *nf = calloc(1, sizeof(*nf));

	if (!nf)
		return -ENOMEM;
	nf->cfg = *cfg;
	runtime_procs__init(&nf->procs, &node_ops, nf,
			    &(struct runtime_tally){ .processes = &nf->st.processes, .rejected = &nf->st.rejected,
						     .why_rejected = nf->st.why_rejected,
						     .why_len = sizeof(nf->st.why_rejected) });
	hashtable__init(&nf->cache, sizeof(struct jsname), jsname_eq, NULL);
	nf->g.attr = (struct perf_event_attr){ .size = sizeof(nf->g.attr), .sample_type = cfg->sample_type,
					       .sample_regs_user = cfg->regs_mask };
	/* a register's place among the sample's: the mask's bits below its own */
	nf->ri_bp = __builtin_popcountll(cfg->regs_mask & ((1ull << REG_BP) - 1));
	nf->ri_sp = __builtin_popcountll(cfg->regs_mask & ((1ull << REG_SP) - 1));
	nf->ri_ip = __builtin_popcountll(cfg->regs_mask & ((1ull << REG_IP) - 1));
	nf->early = node_early__new();
	if (!nf->early || runtime_symbols__init(&nf->names, fixed_names, ARRAY_SIZE(fixed_names), NODE_SYMBOLS_MAX,
						    cfg->live_names) < 0) {
		node_frames__free(nf);
		return -ENOMEM;
	}
	*ret = nf;
	return 0;
}

struct node_frames *node_frames__free(struct node_frames *nf)
{
	if (!nf)
		return NULL;
	runtime_procs__release(&nf->procs);
	runtime_symbols__release(&nf->names);
	hashtable__release(&nf->cache);
	node_early__free(nf->early);
	free(nf->g.regs);
	free(nf);
	return NULL;
}

const struct node_frames_stats *node_frames__stats(const struct node_frames *nf)
{
	return &nf->st;
}

static const char *why_name(int w)
{
	static const char *const names[NODE_WHYS] = {
		[NODE_WHY_FRAME] = "not a JavaScript frame's slots",
		[NODE_WHY_READ] = "objects unreadable",
		[NODE_WHY_PC] = "pc outside its function's code",
		[NODE_WHY_NO_RANGE] = "code range unread",
		[NODE_WHY_STACK] = "frame beyond the stack copy",
		[NODE_WHY_GONE] = "process gone before its sample was read",
	};

	return w >= 0 && w < NODE_WHYS ? names[w] : "?";
}

void node_frames_stats__describe(const struct node_frames_stats *st, char *buf, size_t len)
{
	uint64_t bad = 0;
	size_t n;

	for (int w = 0; w < NODE_WHYS; w++)
		bad += st->unverified[w];
	n = (size_t)snprintf(buf, len, "%" PRIu64 " samples of %" PRIu64 " node process(es), %" PRIu64
			     " with JavaScript frames, %" PRIu64 " of them all named; %" PRIu64 " frames named (%"
			     PRIu64 " interpreted, %" PRIu64 " compiled); %" PRIu64 " [js: unverified]",
			     st->samples, st->processes, st->with_js, st->verified, st->frames, st->interpreted,
			     st->compiled, bad);
	if (n < len)
		n += runtime__why_list(st->unverified, 0, NODE_WHYS, why_name, buf + n, len - n);
	if (n < len && st->early)
		snprintf(buf + n, len - n, "; %" PRIu64 " read when drained", st->early);
}

static void describe(const void *rt, char *buf, size_t len)
{
	node_frames_stats__describe(&((const struct node_frames *)rt)->st, buf, len);
}

bool node_frames__name(const struct node_frames *nf, const struct model_dso *d, uint64_t off, const char **ret)
{
	return runtime_symbols__name(&nf->names, d, off, ret);
}

static bool name_of(const void *rt, const struct model_dso *d, uint64_t off, const char **ret)
{
	return node_frames__name(rt, d, off, ret);
}

void node_frames__note(struct node_frames *nf, const struct perf_event_header *ev)
{
	runtime_procs__note(&nf->procs, ev);
}

void node_frames__finish(struct node_frames *nf)
{
	if (nf->st.with_js && nf->cfg.cache)
		nf->st.kept = runtime_symbols__keep(&nf->names, nf->cfg.cache, NODE_OBJECT_PATH, "prof-js");
}

/* ---- the processes ------------------------------------------------------------ */

/* The sample's stack copy where [addr, addr + len) lies in it, else the process. */
static int node_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct node_reader *r = ctx;

	if (r->stack && addr >= r->sp && addr - r->sp <= r->len && r->len - (addr - r->sp) >= len) {
		memcpy(buf, r->stack + (addr - r->sp), len);
		return 0;
	}
	if (r->from && node_early_log__read(r->from, addr, buf, len))
		return 0;
	int err = runtime__read_mem(r->pid, addr, buf, len);

	if (err == 0 && r->to)
		node_early_log__add(r->to, addr, buf, len);
	return err;
}

/* The executable mappings of V8's object (its interpreter and builtins are there). */
static void note_texts(struct nodeproc *p, const char *maps)
{
	const char *line = maps;

	p->ntext = 0;
	p->nbuiltins = 0;
	while (line && *line && p->ntext < NODE_TEXTS) {
		unsigned long long lo, hi, off;
		char perms[8];
		int at = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &lo, &hi, perms, &off, &at) == 4 && at > 0 &&
		    perms[2] == 'x') {
			const char *path = line + at, *end = strchr(path, '\n');
			size_t plen = end ? (size_t)(end - path) : strlen(path);

			if (plen == strlen(p->v.path) && memcmp(path, p->v.path, plen) == 0) {
				const struct v8_meta *m = &p->v.m;

				p->text_lo[p->ntext] = lo;
				p->text_hi[p->ntext++] = hi;
				uint64_t a = MAX(m->builtins_lo, off), b = MIN(m->builtins_hi, off + (hi - lo));

				if (m->builtins_hi && a < b) {
					p->builtins_lo[p->nbuiltins] = lo + (a - off);
					p->builtins_hi[p->nbuiltins++] = lo + (b - off);
				}
			}
		}
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
}

static int attach(void *rt, struct runtime_proc *rp, char *why, size_t why_len)
{
	struct node_frames *nf = rt;
	struct nodeproc *p = (struct nodeproc *)rp;
	char path[64];
	_cleanup_free_ char *maps = NULL;
	ssize_t n;
	int err;

	snprintf(path, sizeof(path), "/proc/%d/maps", rp->pid);
	n = read_file_full(AT_FDCWD, path, 16u << 20, &maps);
	if (n < 0)
		return n == -ENOENT ? -ENOENT : (int)n;
	err = node__find_in_maps(rp->pid, maps, node_read, &nf->rd, &p->v, why, why_len);
	if (err < 0)
		return err;
	note_texts(p, maps);
	if (!p->ntext) {
		snprintf(why, why_len, "%s: its executable mapping not found in /proc/%d/maps", p->v.path, rp->pid);
		return -ENOTSUP;
	}
	rp->pidfd = (int)syscall(SYS_pidfd_open, rp->pid, 0);
	if (rp->pidfd < 0) {
		p->ntext = 0;
		return -errno;
	}
	p->gen = ++nf->gens;
	return 0;
}

static void detach(void *rt, struct runtime_proc *rp)
{
	struct nodeproc *p = (struct nodeproc *)rp;

	p->ntext = 0;
}

/* ---- where a sample reaches V8 ------------------------------------------------ */

enum pc_kind node__pc_kind(const struct node_frames *nf, const struct nodeproc *p, uint64_t pc, bool strict)
{
	struct model_location loc;
	const struct model_dso *d;

	for (size_t i = 0; i < p->nbuiltins; i++)
		if (pc >= p->builtins_lo[i] && pc < p->builtins_hi[i])
			return PC_BUILTIN;
	for (size_t i = 0; i < p->ntext; i++)
		if (pc >= p->text_lo[i] && pc < p->text_hi[i])
			return PC_V8;
	if (!model__resolve(nf->cfg.model, p->rp.pid, false, pc, &loc) || loc.dso == MODEL_NO_DSO)
		return strict ? PC_NATIVE : PC_JIT;
	d = model__dso(nf->cfg.model, loc.dso);
	/* anonymous memory, named as perf names JIT code's (its /tmp/perf-PID.map) */
	return !d || !d->name || !strncmp(d->name, "//anon", 6) || !strncmp(d->name, "[anon", 5) ||
			       !strncmp(d->name, "/tmp/perf-", 10) ? PC_JIT : PC_NATIVE;
}

/* An unwound frame's pc: V8's code is in no file's mapping (or in one the records
 * have not told yet). */
static enum pc_kind pc_kind(const struct node_frames *nf, const struct nodeproc *p, uint64_t pc)
{
	/* -g's model keeps no native object's mappings (node_ops.mapping) */
	return node__pc_kind(nf, p, pc, nf->cfg.g);
}

/* The first unwound frame in V8's code: one in compiled code or in its builtins;
 * where the builtins are not known (a stripped object), else the last frame when in
 * V8's object (the native unwinder stops in builtins: they have no unwinding
 * tables). */
static size_t first_js(const struct node_frames *nf, const struct nodeproc *p, const uint64_t *ips, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		enum pc_kind k = pc_kind(nf, p, ips[i]);

		if (k == PC_JIT || k == PC_BUILTIN)
			return i;
	}
	return nr && !p->nbuiltins && pc_kind(nf, p, ips[nr - 1]) == PC_V8 ? nr - 1 : nr;
}

/* ---- the proof: a frame's pc in its function's code --------------------------- */

/* ---- names -------------------------------------------------------------------- */

static uint64_t node_addr(const struct node_frames *nf, uint32_t sym)
{
	return NODE_BASE + nf->names.base + sym;
}

/* "function (file:line:column)" of frame f into buf. */
static void frame_name(const struct js_frame *f, char *buf, size_t len)
{
	const struct js_function *fn = &f->fn;
	const char *name = fn->anonymous ? "(anonymous)" : fn->name;

	if (!fn->file[0])
		snprintf(buf, len, "%s ([%s])", name, fn->file_why ? fn->file_why : "no file");
	else if (!fn->line)
		snprintf(buf, len, "%s (%s)", name, fn->file);
	else
		snprintf(buf, len, "%s (%s:%d:%d)", name, fn->file, fn->line, fn->column);
}

/* The cached name of f's SharedFunctionInfo, when its words are still those it was
 * made from: its symbol, else 0 (and *e where to keep a new one). */
static uint32_t cached(struct node_frames *nf, const struct nodeproc *p, const struct js_frame *f,
		       struct jsname *key)
{
	const int64_t *m = p->v.m.v;
	struct jsname *e;

	*key = (struct jsname){ .pid = p->rp.pid, .gen = p->gen, .shared = f->shared };
	if (v8__word(&p->v, f->shared, m[VO_HEAP_OBJECT_MAP], &key->map) < 0 ||
	    v8__word(&p->v, f->shared, m[VO_SFI_NAME_OR_SCOPE_INFO], &key->nos) < 0 ||
	    v8__word(&p->v, f->shared, m[VO_SFI_SCRIPT_OR_DEBUG_INFO], &key->script) < 0)
		return 0;
	e = hashtable__find(&nf->cache, hash__mix(hash__u64(f->shared), (uint64_t)p->rp.pid << 32 | p->gen), key);
	if (e && e->map == key->map && e->nos == key->nos && e->script == key->script)
		return e->sym;
	return 0;
}

static void cache_keep(struct node_frames *nf, const struct jsname *key, uint32_t sym)
{
	struct jsname *e;
	bool created;

	if (!key->map || !sym)
		return;
	if (hashtable__size(&nf->cache) >= NODE_NAMES_CACHED)
		hashtable__clear(&nf->cache);
	e = hashtable__insert(&nf->cache, hash__mix(hash__u64(key->shared), (uint64_t)key->pid << 32 | key->gen),
			      key, &created);
	if (e) {
		*e = *key;
		e->sym = sym;
	}
}

/* ---- the walk ----------------------------------------------------------------- */

static void emit(struct walk *w, uint64_t addr)
{
	if (w->n < w->max)
		w->out[w->n++] = addr;
}

static void unverified(struct walk *w, enum node_why why)
{
	w->all = false;
	if (w->early)
		return;
	if (why == NODE_WHY_READ && !runtime_proc__still_there(&w->p->rp))
		why = NODE_WHY_GONE;
	w->nf->st.unverified[why]++;
	emit(w, node_addr(w->nf, 0));
}

/* Does frame f's code hold pc (a return address: its call's last byte)? */
static int proven(struct walk *w, const struct js_frame *f, uint64_t pc, bool leaf)
{
	const struct node_v8 *v = &w->p->v;
	const char *why = NULL;
	uint64_t at = leaf ? pc : pc - 1, code, data;
	uint16_t type;
	int err;

	/* the interpreter is one of V8's builtins (else, stripped, somewhere in its object) */
	if (f->tier == JS_TIER_INTERPRETED)
		return pc_kind(w->nf, w->p, at) == (w->p->nbuiltins ? PC_BUILTIN : PC_V8) ? 0 : -NODE_WHY_PC - 1;
	err = v8_function__code(v, f->function, &code, &why);
	if (err == 0)
		err = v8_code__holds(v, code, at, &why);
	/* a baseline frame of a function since optimized: its SharedFunctionInfo keeps
	 * the baseline code (the function's is the newer) */
	if (err == 1 && v->m.found[VO_SFI_FUNCTION_DATA] &&
	    v8__word(v, f->shared, v->m.v[VO_SFI_FUNCTION_DATA], &data) == 0 && data != code &&
	    v8__is_object(data) && v8__type(v, data, &type, &why) == 0 && type == v->m.v[VT_CODE])
		err = v8_code__holds(v, data, at, &why);
	if (err == -ENOTSUP)
		return -NODE_WHY_NO_RANGE - 1;
	if (err < 0)
		return -(err == -EINVAL ? NODE_WHY_FRAME : NODE_WHY_READ) - 1;
	return err == 0 ? 0 : -NODE_WHY_PC - 1;
}

/* The frame's symbol, named once per SharedFunctionInfo (checked each time; when
 * drained too, so that the next samples' reads are only the checks): 0 or the -errno
 * / -EINVAL (why) of describing its function. */
static int symbol(struct walk *w, struct js_frame *f, uint32_t *ret, const char **why)
{
	struct jsname key;
	char name[1024];
	uint32_t sym = cached(w->nf, w->p, f, &key);
	int err;

	if (sym) {
		w->nf->st.cached += !w->early;
		*ret = sym;
		return 0;
	}
	if ((err = js_function__describe(&w->p->v, f->shared, &f->fn, why)) < 0)
		return err;
	frame_name(f, name, sizeof(name));
	sym = runtime_symbols__symbol(&w->nf->names, name);
	cache_keep(w->nf, &key, sym);
	*ret = sym;
	return 0;
}

/* Is the frame at fp's fixed part [fp + lowest slot, fp + 16) in the stack copy? */
static bool in_copy(const struct node_reader *r, const struct node_v8 *v, uint64_t fp)
{
	const int64_t *m = v->m.v;
	int64_t lo = MIN(MIN(m[VF_CONTEXT_OR_TYPE], m[VF_FUNCTION]), MIN(m[VF_BYTECODE_ARRAY], m[VF_BYTECODE_OFFSET]));
	uint64_t a = fp + (uint64_t)lo;

	return a >= r->sp && a - r->sp <= r->len && r->len - (a - r->sp) >= (uint64_t)(16 - lo);
}

/* The word at addr of the stack copy. */
bool node__copy_word(const struct node_reader *r, uint64_t addr, uint64_t *ret)
{
	if (addr < r->sp || addr - r->sp > r->len || r->len - (addr - r->sp) < 8)
		return false;
	memcpy(ret, r->stack + (addr - r->sp), 8);
	return true;
}

/*
 * The frames from fp, the frame pointer where the sample's pc (kind k) ran with stack
 * pointer sp.  In compiled code (PC_JIT) the frame at fp is that code's function's:
 * its slots pushed (below sp: in its prologue, refused) and pc in its code.  In a
 * builtin (PC_BUILTIN: V8's own code, which keeps rbp a frame pointer), the frame at
 * fp is the builtin's (a frame type marker: passed), an interpreted function's (the
 * interpreter is a builtin), or, the builtin having made no frame, its caller's,
 * proven by the return address at sp lying in that caller's code.  Where the builtins
 * are not known (PC_V8), only a JavaScript frame at fp counts.  False when the first
 * frame is none of these (native code of V8's object, not JavaScript): no edit.
 */
bool node__walk_from(struct walk *w, uint64_t pc, uint64_t sp, uint64_t fp, enum pc_kind k)
{
	const struct node_v8 *v = &w->p->v;
	const struct node_reader *r = &w->nf->rd;
	struct js_frame f;
	bool first = true, leaf = true, quiet = k == PC_V8;
	uint32_t sym;
	int err;

	for (int depth = 0; depth < NODE_MAX_DEPTH && w->n < w->max; depth++) {
		const char *why = NULL;

		if (!in_copy(r, v, fp)) {
			if (quiet)
				return false;
			if (first)
				unverified(w, NODE_WHY_STACK);
			break;
		}
		err = js_frame__read_slots(v, fp, first && k != PC_BUILTIN ? sp : 0, &f, &why);
		if (err < 0) {
			if (quiet)
				return false;
			unverified(w, err == -EINVAL ? NODE_WHY_FRAME : NODE_WHY_READ);
			break;
		}
		if (f.kind == JS_FRAME_V8) {
			/* V8's frames between JavaScript ones are passed; at its entry from
			 * native code the walk ends (the native callers are above it) */
			if (first && k != PC_BUILTIN)
				return false;
			if (!strcmp(f.marker_name, "EntryFrame") || !strcmp(f.marker_name, "ConstructEntryFrame")) {
				w->nf->st.native_entry += !w->early;
				break;
			}
			leaf = false;
		} else {
			int rr;

			if (first && k != PC_JIT && f.tier != JS_TIER_INTERPRETED) {
				/* a builtin without a frame of its own, called from fp's code */
				if (!node__copy_word(r, sp, &pc)) {
					unverified(w, NODE_WHY_STACK);
					break;
				}
				leaf = false;
			}
			rr = proven(w, &f, pc, leaf);
			if (rr < 0) {
				if (quiet)
					return false;
				unverified(w, (enum node_why)(-rr - 1));
				break;
			}
			if ((err = symbol(w, &f, &sym, &why)) < 0) {
				if (quiet)
					return false;
				unverified(w, err == -EINVAL ? NODE_WHY_FRAME : NODE_WHY_READ);
				break;
			}
			emit(w, node_addr(w->nf, sym));
			w->proven++;
			if (!w->early) {
				w->nf->st.frames++;
				if (f.tier == JS_TIER_INTERPRETED)
					w->nf->st.interpreted++;
				else
					w->nf->st.compiled++;
			}
			leaf = false;
		}
		quiet = false;
		if (f.caller_fp <= fp)
			break;
		pc = f.return_address;
		fp = f.caller_fp;
		first = false;
	}
	return true;
}

/* How many of pid's mappings are of files: V8 maps its heap and code anonymous, and
 * often, so only a file's mapping coming or going (node's object, libnode.so
 * loaded later, an exec) has its V8 looked for again (runtime_procs__get). */
static size_t file_maps(const struct node_frames *nf, int32_t pid)
{
	const struct maps *ms = model__maps(nf->cfg.model, pid);
	size_t n = 0;

	for (size_t i = 0; ms && i < ms->nr; i++) {
		const struct model_dso *d = model__dso(nf->cfg.model, ms->v[i].dso);

		n += d && d->name && d->name[0] == '/' && strncmp(d->name, "/tmp/perf-", 10) != 0 &&
		     strcmp(d->name, NODE_OBJECT_PATH) != 0;
	}
	return n;
}

/* Does the sample's process map V8's object as the records say (not a sample taken
 * before its exec of node, judged by the maps read after)? */
static bool v8_mapped(const struct node_frames *nf, const struct nodeproc *p)
{
	struct model_location loc;
	const struct model_dso *d;
	const char *b = strrchr(p->v.path, '/'), *db;

	if (!model__resolve(nf->cfg.model, p->rp.pid, false, p->text_lo[0], &loc) || loc.dso == MODEL_NO_DSO ||
	    !(d = model__dso(nf->cfg.model, loc.dso)) || !d->name)
		return false;
	db = strrchr(d->name, '/');
	return !strcmp(db ? db : d->name, b ? b : p->v.path);
}

static size_t edit_now(void *ctx, const struct sample *s, uint64_t *ips, const uint64_t *sps,
		       const struct unwind_regs *regs, size_t nr, size_t max)
{
	struct node_frames *nf = ctx;
	struct nodeproc *p = (struct nodeproc *)runtime_procs__get(&nf->procs, (int32_t)s->pid,
								   file_maps(nf, (int32_t)s->pid), 0);
	uint64_t out[UNWIND_MAX_OUT_FRAMES];
	struct walk w = { .nf = nf, .p = p, .out = out, .max = MIN(max, ARRAY_SIZE(out)), .all = true };
	enum pc_kind k;
	uint64_t fp, sp;
	size_t i;

	if (!nr || !p || !p->ntext || !v8_mapped(nf, p))
		return nr;
	nf->st.samples++;
	if (!(regs->known[0] & (1u << REG_SP)) || !s->stack_user.data ||
	    (i = first_js(nf, p, ips, nr)) == nr || !(regs->known[i] & (1u << REG_BP)))
		return nr;
	fp = regs->v[i][REG_BP];
	sp = i ? sps[i] : regs->v[0][REG_SP];
	if (!sp)
		return nr;
	nf->rd.pid = p->rp.pid;
	nf->rd.stack = s->stack_user.data;
	nf->rd.sp = regs->v[0][REG_SP];
	nf->rd.len = MIN(s->stack_user.dyn_size, s->stack_user.size);
	k = pc_kind(nf, p, ips[i]);
	/* a builtin's frame stays, named as native code is (its object's symbols) */
	w.n = k == PC_BUILTIN ? i + 1 : i;
	memcpy(out, ips, 8 * w.n);
	if (!node__walk_from(&w, ips[i], sp, fp, k) || w.n == (k == PC_BUILTIN ? i + 1 : i))
		return nr;
	nf->st.early += nf->rd.from != NULL;
	if (runtime_symbols__map(&nf->names, nf->cfg.model, &nf->cfg.synth, s, NODE_BASE,
				 nf->cfg.live_names ? 1ull << 40 : 1u << 24,
				 NODE_OBJECT_PATH, nf->cfg.sink, nf->cfg.sink_ctx) < 0)
		return nr;
	nf->st.with_js++;
	nf->st.verified += w.all;
	memcpy(ips, out, 8 * w.n);
	return w.n;
}

size_t node_frames__edit(void *ctx, const struct sample *s, uint64_t *ips, const uint64_t *sps,
			 const struct unwind_regs *regs, size_t nr, size_t max)
{
	struct node_frames *nf = ctx;
	struct node_early_log *log = node_early__kept(nf->early) ?
					     node_early__take(nf->early, (int32_t)s->tid, s->time) : NULL;
	size_t n;

	/* a live reader's window of names full: a new one, and the cached names, which
	 * are the old window's symbols, forgotten with it */
	if (runtime_symbols__turn(&nf->names))
		hashtable__clear(&nf->cache);
	nf->rd = (struct node_reader){ .from = log };
	n = runtime__edit_as_user(edit_now, nf, nf->cfg.as_user, s, ips, sps, regs, nr, max);
	nf->rd = (struct node_reader){ 0 };
	node_early__release(nf->early, log);
	return n;
}
