/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CPython 3.11's stack-copy slots found in a build's own machine code: where its eval
 * function's prologue puts `cframe` (whose current_frame is the activation's
 * current frame) and `first_instr` (its code object + co_code_adaptive), as
 * distances below the function's CFA.  Debian 12's python3.11 does
 *
 *   push x6; sub $0x128,%rsp                     CFA = rsp + 0x160
 *   mov %rsi,%rbx                                frame
 *   lea 0xb0(%rsp),%rcx; mov %rcx,0x38(%rdi)     tstate->cframe = &cframe
 *   mov 0x20(%rbx),%rdx                          frame->f_code
 *   lea 0xb8(%rdx),%rcx; mov %rcx,0x20(%rsp)     first_instr = code + 0xb8
 *
 * The code is read in a straight line from the function's start (conditional jumps
 * fall through), each instruction decoded only if it is one of the few forms such a
 * prologue uses (moves, lea, test/cmp, arithmetic on registers, SSE moves, jcc) and
 * every register it may write forgotten; the values followed are rdi (tstate), rsi
 * (frame) and what is copied, loaded or computed from them.  Anything else (a call,
 * a jump, an unknown opcode) before both stores are found refuses the build.
 * A process of the build is then checked before its slots are trusted (interp.h).
 */
#ifndef PROF_PYTHON_PROLOGUE_H
#define PROF_PYTHON_PROLOGUE_H

#include <stddef.h>
#include <stdint.h>

#include "prof/python/layout.h"

struct python_slots {
	uint32_t cfa_frame;             /* cframe.current_frame, below the CFA */
	uint32_t cfa_first_instr;       /* first_instr, below the CFA */
	uint32_t stored_by;             /* bytes from the start after which both are stored */
};

/*
 * The slots of the eval function whose first len bytes are code, for layout l (its
 * ts_cframe, cframe_current, f_code and co_code_adaptive): 0 with *ret, -ENOTSUP
 * with why (a 3.12+ layout, an instruction outside the subset, a store not found).
 */
int python_prologue__slots(const uint8_t *code, size_t len, const struct python_layout *l, struct python_slots *ret,
			   char *why, size_t why_len);

#endif
