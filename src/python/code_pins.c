/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An eval function's pins from its machine code, by build id: see
 * include/prof/python/code_pins.h.
 */
#include <errno.h>
#include <string.h>

#include "prof/base/util.h"
#include "prof/python/code_pins.h"

/* From the function's start: over [lo, hi) rbp is `frame`, and r15 the running
 * instruction + k bytes (k -1: r15 is not known there, the frame only). */
struct code_pin_range {
	uint16_t lo, hi;
	int8_t k;
};

/* x86-64 DWARF register numbers */
#define REG_RBP 6
#define REG_R15 15

#include "code_pins_313.inc"

int python_code_pins__add(struct python_pins *p, const char *hex, uint64_t eval, uint64_t size)
{
	int err;

	if (strcmp(hex, EVAL_PINS_BUILD_ID) != 0 || eval != EVAL_PINS_EVAL || size != EVAL_PINS_EVAL_SIZE)
		return -ENOENT;
	for (size_t i = 0; i < ARRAY_SIZE(eval_pins); i++) {
		const struct code_pin_range *r = &eval_pins[i];
		struct pin_loc frame = { .op = PIN_REG, .reg = REG_RBP };
		struct pin_loc instr = { .op = PIN_REG, .reg = REG_R15, .off = -(int64_t)r->k };

		err = python_pins__add(p, PIN_FRAME, eval + r->lo, eval + r->hi, &frame);
		if (err == 0 && r->k >= 0)
			err = python_pins__add(p, PIN_THIS_INSTR, eval + r->lo, eval + r->hi, &instr);
		if (err < 0)
			return err;
	}
	return 0;
}
