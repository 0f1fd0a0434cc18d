/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pins read from an eval function's machine code, for a build whose DWARF gives its
 * locals no location per pc: pyenv's CPython 3.13.0 here, built by GCC past its
 * variable-tracking limit, whose DWARF says `frame` is rbp and `tstate` rdi over the
 * whole function while its code reuses both (docs/DESIGN.md, "Python frames").
 * scripts/python-eval-pins derives, once per build, where rbp is `frame` and r15
 * the running instruction plus a known distance; the table is kept by build id.
 */
#ifndef PROF_PYTHON_CODE_PINS_H
#define PROF_PYTHON_CODE_PINS_H

#include <stddef.h>
#include <stdint.h>

#include "prof/python/dwarf_pins.h"

/*
 * Add to p the pins of the build of build id hex (lower-case hex) whose eval
 * function is at eval (as linked), size bytes: PIN_FRAME (rbp) and PIN_THIS_INSTR
 * (r15 less its distance).  0, -ENOENT when prof has no table for that build (or
 * its eval function is not where the table was made), -ENOMEM.
 */
int python_code_pins__add(struct python_pins *p, const char *hex, uint64_t eval, uint64_t size);

#endif
