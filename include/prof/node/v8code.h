/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The code a JSFunction runs and the instructions of a V8 Code object, read from the
 * heap (v8heap.h) as the build's metadata describes them: what proves a JavaScript
 * frame's pc lies in the code of the function it names (node/frames.h).
 */
#ifndef PROF_NODE_V8CODE_H
#define PROF_NODE_V8CODE_H

#include <stdint.h>

#include "prof/node/node.h"

#define V8_CODE_SIZE_MAX (16u << 20)    /* one function's machine code, at most */

/* The code JSFunction fn runs (JSFunction::code, else the word between its feedback
 * cell and its prototype: v8code.c): 0, -errno; -ENOTSUP (why) when this V8's
 * metadata has no such slot. */
int v8_function__code(const struct node_v8 *v, uint64_t fn, uint64_t *ret, const char **why);

/* Does the Code code hold address at: 0 it does, 1 it does not, -errno; -EINVAL (why)
 * for an object that is no Code or of impossible size, -ENOTSUP (why) where the
 * metadata does not describe a Code's instructions. */
int v8_code__holds(const struct node_v8 *v, uint64_t code, uint64_t at, const char **why);

#endif
