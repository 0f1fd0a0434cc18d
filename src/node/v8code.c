/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A function's code and its instructions' range: see include/prof/node/v8code.h.
 */
#include <errno.h>
#include <stdbool.h>

#include "prof/base/util.h"
#include "prof/node/v8code.h"
#include "prof/node/v8heap.h"

/*
 * The instructions [*lo, *hi) of the code of JSFunction fn, as the metadata
 * describes them: V8 10 (node 18) gives JSFunction::code, Code::instruction_start
 * (its instructions inline, at that offset) and Code::instruction_size.  V8 11
 * (node 20) gives neither: the code slot is the one word between the JSFunction's
 * feedback cell and its prototype, and the Code keeps its InstructionStream (an
 * object of that type whose second word points back at this Code) and, next,
 * the address of its instructions (InstructionStream::instruction_start past it):
 * both proven by their values.  The size is the int after the flags word that
 * follows (V8 11's Code layout: the one fact here the metadata does not give; the
 * proven fields around it must sit where that layout puts them).
 */
static int code_range(const struct node_v8 *v, uint64_t code, uint64_t *lo, uint64_t *hi, const char **why)
{
	const int64_t *m = v->m.v;
	const bool *f = v->m.found;
	uint64_t w[12];
	uint16_t type;
	int32_t size;
	int err;

	if (!f[VT_CODE])
		return *why = "no Code type in this V8's metadata", -ENOTSUP;
	if ((err = v8__type(v, code, &type, why)) < 0)
		return err;
	if (type != m[VT_CODE])
		return *why = "a function whose code is no Code", -EINVAL;
	if (f[VO_CODE_INSTRUCTION_START] && f[VO_CODE_INSTRUCTION_SIZE]) {
		if ((err = v->read(v->ctx, code - 1 + (uint64_t)m[VO_CODE_INSTRUCTION_SIZE], &size, 4)) < 0)
			return err;
		*lo = code - 1 + (uint64_t)m[VO_CODE_INSTRUCTION_START];
	} else if (f[VT_INSTRUCTION_STREAM] && f[VO_IS_INSTRUCTION_START]) {
		size_t i;
		uint64_t is = 0, back;

		if ((err = v->read(v->ctx, code - 1, w, sizeof(w))) < 0)
			return err;
		for (i = 1; i + 3 < ARRAY_SIZE(w); i++) {
			if (!v8__is_object(w[i]) || v8__type(v, w[i], &type, why) < 0 ||
			    type != m[VT_INSTRUCTION_STREAM])
				continue;
			if ((err = v8__word(v, w[i], 8, &back)) < 0)
				return err;
			if (back == code && w[i + 1] == w[i] - 1 + (uint64_t)m[VO_IS_INSTRUCTION_START]) {
				is = w[i];
				break;
			}
		}
		if (!is)
			return *why = "a Code without its InstructionStream", -EINVAL;
		*lo = w[i + 1];
		size = (int32_t)(uint32_t)w[i + 3];
	} else {
		return *why = "no Code instruction fields in this V8's metadata", -ENOTSUP;
	}
	if (size <= 0 || (uint32_t)size > V8_CODE_SIZE_MAX)
		return *why = "a Code of impossible size", -EINVAL;
	*hi = *lo + (uint64_t)size;
	return 0;
}

int v8_function__code(const struct node_v8 *v, uint64_t fn, uint64_t *ret, const char **why)
{
	const int64_t *m = v->m.v;
	const bool *f = v->m.found;

	if (f[VO_JSFUNCTION_CODE])
		return v8__word(v, fn, m[VO_JSFUNCTION_CODE], ret);
	if (f[VO_JSFUNCTION_FEEDBACK_CELL] && f[VO_JSFUNCTION_PROTO] &&
	    m[VO_JSFUNCTION_PROTO] - m[VO_JSFUNCTION_FEEDBACK_CELL] == 16)
		return v8__word(v, fn, m[VO_JSFUNCTION_FEEDBACK_CELL] + 8, ret);
	return *why = "no JSFunction code slot in this V8's metadata", -ENOTSUP;
}

int v8_code__holds(const struct node_v8 *v, uint64_t code, uint64_t at, const char **why)
{
	uint64_t lo, hi;
	int err = code_range(v, code, &lo, &hi, why);

	return err < 0 ? err : at >= lo && at < hi ? 0 : 1;
}
