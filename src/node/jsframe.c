/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * JavaScript frames named from their frame pointer: see include/prof/node/jsframe.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof/base/util.h"
#include "prof/node/jsframe.h"
#include "prof/node/v8heap.h"

#define REFUSE(w) ({ *why = (w); -EINVAL; })

/* Bounds: a function with more context locals, a script longer, is refused. */
#define MAX_CONTEXT_LOCALS 1024
#define MAX_LINES          (1 << 22)
#define MAX_SOURCE         (16u << 20)

static int string_at(const uint64_t *slots, size_t n, size_t i, v8_is_string_fn is_string, void *ctx,
		     const char **why)
{
	(void)n;
	if (!v8__is_object(slots[i]))
		return 0;
	return is_string(ctx, slots[i], why);
}

#define NEED(k)                                                                                                     \
	do {                                                                                                        \
		if ((k) > n) {                                                                                      \
			*ret_need = (k);                                                                            \
			return -ENOSPC;                                                                             \
		}                                                                                                   \
	} while (0)

int v8_scope_info__parse(const uint64_t *slots, size_t n, int64_t ncl, int64_t first_vars, v8_is_string_fn is_string,
			 void *ctx, struct v8_scope_info *ret, size_t *ret_need, const char **why)
{
	size_t i = (size_t)first_vars;
	int64_t locals;
	int s;

	memset(ret, 0, sizeof(*ret));
	ret->start = ret->end = -1;
	*ret_need = 0;
	NEED(i + 1);
	if (!v8__is_smi64(slots[0]) || !v8__is_smi64(slots[ncl]))
		return REFUSE("a ScopeInfo whose header is not Smis");
	locals = v8__smi(slots[ncl]);
	if (locals < 0 || locals > MAX_CONTEXT_LOCALS)
		return REFUSE("a ScopeInfo with more context locals than prof reads");
	/* at most: the locals' names and infos, a saved class variable, the function
	 * variable, the inferred name, the positions */
	NEED(i + 2 * (size_t)locals + 7);
	if (locals) {
		/* their names inline (Strings), or one hash table (no String) */
		if ((s = string_at(slots, n, i, is_string, ctx, why)) < 0)
			return s;
		if (s) {
			NEED(i + (size_t)locals);
			for (int64_t k = 0; k < locals; k++)
				if (!v8__is_object(slots[i + k]))
					return REFUSE("a ScopeInfo whose local names are not objects");
			i += (size_t)locals;
		} else if (v8__is_object(slots[i])) {
			i += 1;
		} else {
			return REFUSE("a ScopeInfo whose local names are neither inline nor a table");
		}
		NEED(i + (size_t)locals);
		for (int64_t k = 0; k < locals; k++)
			if (!v8__is_smi64(slots[i + k]))
				return REFUSE("a ScopeInfo whose local infos are not Smis");
		i += (size_t)locals;
	}
	/* [saved class variable: Smi] function variable {name: String|0, slot: Smi} */
	NEED(i + 3);
	if ((s = string_at(slots, n, i, is_string, ctx, why)) < 0)
		return s;
	if (s) {
		ret->name = slots[i];
	} else if (v8__is_smi64(slots[i]) && slots[i] == 0 && v8__is_smi64(slots[i + 1])) {
		/* no shared name (the sentinel 0), then the slot */
	} else if (v8__is_smi64(slots[i])) {
		/* a saved class variable (a context slot index: never 0), then the name */
		i++;
		if ((s = string_at(slots, n, i, is_string, ctx, why)) < 0)
			return s;
		if (s)
			ret->name = slots[i];
		else if (slots[i] != 0)
			return REFUSE("a ScopeInfo whose function name is neither a String nor absent");
	} else {
		return REFUSE("a ScopeInfo whose function name is neither a String nor absent");
	}
	if (!v8__is_smi64(slots[i + 1]))
		return REFUSE("a ScopeInfo whose function variable slot is no Smi");
	i += 2;
	/* [inferred name: String|undefined] position {start: Smi, end: Smi} */
	NEED(i + 3);
	if (v8__is_object(slots[i])) {
		if ((s = string_at(slots, n, i, is_string, ctx, why)) < 0)
			return s;
		if (s)
			ret->inferred = slots[i];
		i++;
	}
	if (!v8__is_smi64(slots[i]) || !v8__is_smi64(slots[i + 1]))
		return REFUSE("a ScopeInfo without its function's positions");
	if (v8__smi(slots[i]) < 0 || v8__smi(slots[i]) > v8__smi(slots[i + 1]) || v8__smi(slots[i + 1]) > INT32_MAX)
		return REFUSE("a ScopeInfo whose positions are out of order");
	ret->start = (int32_t)v8__smi(slots[i]);
	ret->end = (int32_t)v8__smi(slots[i + 1]);
	return 0;
}

bool v8_line_of(const int32_t *ends, size_t n, int32_t pos, int32_t *ret_line, int32_t *ret_col)
{
	size_t lo = 0, hi = n;

	/* the first line whose break is at or after pos */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ends[mid] < pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == n || pos < 0)
		return false;
	*ret_line = (int32_t)lo + 1;
	*ret_col = pos - (lo ? ends[lo - 1] + 1 : 0) + 1;
	return true;
}

static int is_string_in(void *ctx, uint64_t tagged, const char **why)
{
	const struct node_v8 *v = ctx;
	uint16_t type;
	int err = v8__type(v, tagged, &type, why);

	return err < 0 ? err : v8__is_string_type(v, type);
}

/* The ScopeInfo at tagged, parsed: its slots read in one piece, again if it has more. */
static int scope_info(const struct node_v8 *v, uint64_t tagged, struct v8_scope_info *ret, const char **why)
{
	const int64_t *m = v->m.v;
	_cleanup_free_ uint64_t *slots = NULL;
	size_t n = 16, need = 0;
	int err;

	for (int tries = 0; tries < 2; tries++) {
		/* the second read is sized by what the first said it needs */
		free(slots);
		if (!(slots = malloc(n * 8)))
			return -ENOMEM;
		/* the slots follow the map word */
		if ((err = v->read(v->ctx, tagged - 1 + (uint64_t)m[VO_HEAP_OBJECT_MAP] + 8, slots, n * 8)) < 0)
			return err;
		err = v8_scope_info__parse(slots, n, m[VC_SCOPEINFO_NCONTEXTLOCALS], m[VC_SCOPEINFO_FIRST_VARS],
					   is_string_in, (void *)v, ret, &need, why);
		if (err != -ENOSPC)
			return err;
		n = need + 4;
	}
	return REFUSE("a ScopeInfo that grew as it was read");
}

/* The line ends of a Script, when V8 made them: a FixedArray of Smis.  The line of
 * pos by a binary search, reading log(lines) words. */
static int line_by_ends(const struct node_v8 *v, uint64_t ends, int32_t pos, int32_t *line, int32_t *col,
			const char **why)
{
	const int64_t *m = v->m.v;
	uint64_t w, data = ends - 1 + (uint64_t)m[VO_FIXED_ARRAY_DATA];
	int64_t n, lo = 0, hi;
	uint16_t type;
	int err;

	if ((err = v8__type(v, ends, &type, why)) < 0)
		return err;
	if (type != m[VT_FIXED_ARRAY])
		return REFUSE("line ends that are no FixedArray");
	if ((err = v8__word(v, ends, m[VO_FIXED_ARRAY_LENGTH], &w)) < 0)
		return err;
	n = v8__smi(w);
	if (!v8__is_smi64(w) || n < 0 || n > MAX_LINES)
		return REFUSE("line ends of impossible length");
	hi = n;
	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;

		if ((err = v->read(v->ctx, data + (uint64_t)mid * 8, &w, 8)) < 0)
			return err;
		if (!v8__is_smi64(w))
			return REFUSE("line ends that are not Smis");
		if (v8__smi(w) < pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == n)
		return REFUSE("a position past the script's last line");
	*line = (int32_t)lo + 1;
	*col = pos + 1;
	if (lo) {
		if ((err = v->read(v->ctx, data + (uint64_t)(lo - 1) * 8, &w, 8)) < 0)
			return err;
		if (!v8__is_smi64(w) || v8__smi(w) >= pos)
			return REFUSE("line ends out of order");
		*col = pos - (int32_t)v8__smi(w);
	}
	return 0;
}

struct breaks {
	int32_t lines, last;            /* breaks seen; the unit after the last */
	uint32_t at;
};

static int count_breaks(void *ctx, const void *units, size_t n, unsigned width)
{
	struct breaks *b = ctx;

	for (size_t i = 0; i < n; i++, b->at++)
		if ((width == 1 ? ((const uint8_t *)units)[i] : ((const uint16_t *)units)[i]) == '\n') {
			b->lines++;
			b->last = (int32_t)b->at + 1;
		}
	return 0;
}

/* Without line ends: count the source's line breaks before pos (V8's own rule, '\n'). */
static int line_by_source(const struct node_v8 *v, uint64_t source, int32_t pos, int32_t *line, int32_t *col,
			  const char **why)
{
	struct breaks b = { 0 };
	uint32_t len;
	int err;

	if ((err = v8_string__length(v, source, &len, why)) < 0)
		return err;
	if ((uint32_t)pos > len)
		return REFUSE("a position past the script's source");
	if ((uint32_t)pos > MAX_SOURCE)
		return REFUSE("a position further into its source than prof reads");
	if ((err = v8_string__walk(v, source, 0, (uint32_t)pos, count_breaks, &b, why)) < 0)
		return err;
	*line = b.lines + 1;
	*col = pos - b.last + 1;
	return 0;
}

/* The Script's name and the line of fn->start. */
static void describe_script(const struct node_v8 *v, uint64_t script, struct js_function *fn)
{
	const int64_t *m = v->m.v;
	const char *why = NULL;
	uint64_t name, ends, source;
	int err;

	if ((err = v8__word(v, script, m[VO_SCRIPT_NAME], &name)) < 0 ||
	    (err = v8__word(v, script, m[VO_SCRIPT_LINE_ENDS], &ends)) < 0 ||
	    (err = v8__word(v, script, m[VO_SCRIPT_SOURCE], &source)) < 0) {
		fn->file_why = fn->line_why = "its Script could not be read";
		return;
	}
	if (v8_string__utf8(v, name, fn->file, sizeof(fn->file), &why) < 0)
		fn->file_why = why ? why : "its Script's name could not be read";
	if (fn->start < 0) {
		fn->line_why = "no start position";
		return;
	}
	why = NULL;
	if (v8__is_object(ends) && line_by_ends(v, ends, fn->start, &fn->line, &fn->column, &why) == 0)
		return;
	if (line_by_source(v, source, fn->start, &fn->line, &fn->column, &why) < 0) {
		fn->line = fn->column = 0;
		fn->line_why = why ? why : "its source could not be read";
	}
}

int js_function__describe(const struct node_v8 *v, uint64_t shared, struct js_function *ret, const char **why)
{
	const int64_t *m = v->m.v;
	struct v8_scope_info si = { .start = -1, .end = -1 };
	uint64_t nos, script;
	uint16_t type;
	int err;

	memset(ret, 0, sizeof(*ret));
	ret->start = -1;
	if ((err = v8__type(v, shared, &type, why)) < 0)
		return err;
	if (type != m[VT_SHARED_FUNCTION_INFO])
		return REFUSE("a function whose shared info is no SharedFunctionInfo");
	if ((err = v8__word(v, shared, m[VO_SFI_NAME_OR_SCOPE_INFO], &nos)) < 0 ||
	    (err = v8__word(v, shared, m[VO_SFI_SCRIPT_OR_DEBUG_INFO], &script)) < 0)
		return err;
	if (v8__is_object(nos)) {
		if ((err = v8__type(v, nos, &type, why)) < 0)
			return err;
		if (type == m[VT_SCOPE_INFO]) {
			if ((err = scope_info(v, nos, &si, why)) < 0)
				return err;
		} else if (v8__is_string_type(v, type)) {
			si.name = nos;
		} else {
			return REFUSE("a function whose name is neither a String nor a ScopeInfo");
		}
	} else if (nos != 0) {
		return REFUSE("a function whose name is neither a String nor a ScopeInfo");
	}
	if (si.name && (err = v8_string__utf8(v, si.name, ret->name, sizeof(ret->name), why)) < 0)
		return err;
	if (!ret->name[0] && si.inferred &&
	    (err = v8_string__utf8(v, si.inferred, ret->name, sizeof(ret->name), why)) < 0)
		return err;
	ret->anonymous = !ret->name[0];
	ret->start = si.start;
	if (!v8__is_object(script) || v8__type(v, script, &type, why) < 0 || type != m[VT_SCRIPT]) {
		ret->file_why = ret->line_why = "no Script (a builtin, or code under a debugger)";
		return 0;
	}
	describe_script(v, script, ret);
	return 0;
}

/* Is bc the bytecode of the function whose SharedFunctionInfo's function data is fd:
 * fd itself, or, once the function has baseline code, that Code's bytecode? */
static bool own_bytecode(const struct node_v8 *v, uint64_t fd, uint64_t bc)
{
	const char *why = NULL;
	uint64_t w;
	uint16_t type;

	if (fd == bc)
		return true;
	return v->m.found[VT_CODE] && v->m.found[VO_CODE_BYTECODE] && v8__is_object(fd) &&
	       v8__type(v, fd, &type, &why) == 0 && type == v->m.v[VT_CODE] &&
	       v8__word(v, fd, v->m.v[VO_CODE_BYTECODE], &w) == 0 && w == bc;
}

/* The slot at offset off from fp, out of the words read from lo. */
static uint64_t slot(const uint64_t *w, int64_t lo, int64_t off)
{
	return w[(off - lo) / 8];
}

int js_frame__read_slots(const struct node_v8 *v, uint64_t fp, uint64_t sp, struct js_frame *ret, const char **why)
{
	const int64_t *m = v->m.v;
	int64_t lo = m[VF_BYTECODE_OFFSET];
	uint64_t w[(256 + 16) / 8], ctx, bc, off, fd = 0;
	uint16_t type;
	int err;

	memset(ret, 0, sizeof(*ret));
	ret->bytecode_offset = -1;
	ret->fp = fp;
	for (int i = VF_CONTEXT_OR_TYPE; i <= VF_BYTECODE_OFFSET; i++)
		lo = m[i] < lo ? m[i] : lo;
	if (!fp || fp & 7)
		return REFUSE("a frame pointer that is not aligned");
	if ((err = v->read(v->ctx, fp + (uint64_t)lo, w, (size_t)(16 - lo))) < 0)
		return err;
	ret->caller_fp = slot(w, lo, 0);
	ret->return_address = slot(w, lo, 8);
	ctx = slot(w, lo, m[VF_CONTEXT_OR_TYPE]);
	if (sp && sp > fp + (uint64_t)m[VF_CONTEXT_OR_TYPE])
		return REFUSE("a frame whose fixed slots are not pushed yet (its prologue)");
	if (!(ctx & 1)) {
		/* V8's frame type marker: the type shifted past the Smi tag.  Native code's
		 * frame may hold the same small even word there, so a marker is believed
		 * only in a frame a JavaScript frame's saved frame pointer led to (V8's
		 * code made it), never at the top of a stack. */
		if (sp)
			return REFUSE("a V8 frame type at the top of the stack (native code's frame could hold it)");
		if (ctx >> 1 >= V8_FRAME_TYPES || !v->m.frame_type[ctx >> 1][0])
			return REFUSE("a frame whose type slot is neither a Context nor a frame type this V8 names");
		ret->kind = JS_FRAME_V8;
		ret->marker = (int)(ctx >> 1);
		ret->marker_name = v->m.frame_type[ret->marker];
		return 0;
	}
	ret->kind = JS_FRAME_JS;
	if (sp && sp > fp + (uint64_t)m[VF_FUNCTION])
		return REFUSE("a frame whose fixed slots are not pushed yet (its prologue)");
	if ((err = v8__type(v, ctx, &type, why)) < 0)
		return err;
	if (type < m[VC_FIRST_CONTEXT_TYPE] || type > m[VC_LAST_CONTEXT_TYPE])
		return REFUSE("a frame whose context slot holds no Context");
	ret->function = slot(w, lo, m[VF_FUNCTION]);
	if ((err = v8__type(v, ret->function, &type, why)) < 0)
		return err;
	if (v->m.found[VC_FIRST_JS_FUNCTION_TYPE] ?
		    (type < m[VC_FIRST_JS_FUNCTION_TYPE] || type > m[VC_LAST_JS_FUNCTION_TYPE]) :
		    type != m[VT_JS_FUNCTION])
		return REFUSE("a frame whose function slot holds no JSFunction");
	if ((err = v8__word(v, ret->function, m[VO_JSFUNCTION_SHARED], &ret->shared)) < 0)
		return err;
	/* interpreted: the frame holds its function's own BytecodeArray and a Smi offset
	 * (a baseline frame keeps its feedback vector in the offset's slot) */
	ret->tier = JS_TIER_COMPILED;
	bc = slot(w, lo, m[VF_BYTECODE_ARRAY]);
	off = slot(w, lo, m[VF_BYTECODE_OFFSET]);
	if ((!sp || sp <= fp + (uint64_t)m[VF_BYTECODE_OFFSET]) && v8__is_object(bc) && v8__is_smi64(off) &&
	    v->m.found[VO_SFI_FUNCTION_DATA] && v8__word(v, ret->shared, m[VO_SFI_FUNCTION_DATA], &fd) == 0 &&
	    own_bytecode(v, fd, bc) && v8__type(v, bc, &type, why) == 0 && type == m[VT_BYTECODE_ARRAY]) {
		ret->tier = JS_TIER_INTERPRETED;
		ret->bytecode_offset = v8__smi(off);
	}
	return 0;
}

int js_frame__read(const struct node_v8 *v, uint64_t fp, uint64_t sp, struct js_frame *ret, const char **why)
{
	int err = js_frame__read_slots(v, fp, sp, ret, why);

	if (err < 0 || ret->kind != JS_FRAME_JS)
		return err;
	return js_function__describe(v, ret->shared, &ret->fn, why);
}
