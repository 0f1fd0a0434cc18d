/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where pyenv's builds (their libpython's own DWARF) keep the eval function's frame
 * and instruction: 3.12.1's location lists pin them; 3.13.0's DWARF (no variable
 * tracking: one register for the whole function) pins no register, its entry frame's
 * slot still, and its machine code's table (code_pins.h) the frame and instruction.
 * Each skipped where that build is not installed.
 */
#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <unistd.h>
#include <criterion/criterion.h>

#include "prof/perfdata/build_id.h"
#include "prof/python/code_pins.h"
#include "prof/python/dwarf_pins.h"
#include "prof/python/interp.h"

#define PYENV "/root/.pyenv/versions/"

/* The pins of the libpython at path (its DWARF only), with its symbols and build id. */
static struct python_pins *pins_of(const char *path, struct interp_syms *s, char *hex)
{
	struct python_pins *p = NULL;
	struct build_id b = { 0 };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;

	if (fd < 0)
		return NULL;
	cr_assert_eq(interp__read_syms(fd, s), 0);
	cr_assert_eq(build_id__read_elf(fd, &b), 0);
	build_id__hex(&b, hex, 2 * BUILD_ID_MAX + 1);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	cr_assert_not_null(elf);
	cr_assert_eq(python_pins__read(elf, NULL, s->eval, &p), 0);
	elf_end(elf);
	close(fd);
	return p;
}

Test(pins, dwarf_lists_3_12)
{
	struct interp_syms s;
	char hex[2 * BUILD_ID_MAX + 1];
	struct python_pins *p = pins_of(PYENV "3.12.1/lib/libpython3.12.so.1.0", &s, hex);

	if (!p)
		cr_skip_test("no pyenv 3.12.1");
	cr_expect_gt(python_pins__count(p, PIN_FRAME), 10);
	cr_expect_gt(python_pins__count(p, PIN_NEXT_INSTR), 100);
	cr_expect_geq(python_pins__count(p, PIN_ENTRY_FRAME), 1);
	cr_expect_eq(python_pins__add(p, PIN_FRAME, 0, 1, &(struct pin_loc){ .op = PIN_REG }), 0);
	cr_expect_eq(python_code_pins__add(p, hex, s.eval, s.eval_size), -ENOENT, "no table for 3.12.1");
	python_pins__free(p);
}

Test(pins, no_variable_tracking_3_13)
{
	struct interp_syms s;
	struct pin_loc l;
	char hex[2 * BUILD_ID_MAX + 1];
	struct python_pins *p = pins_of(PYENV "3.13.0/lib/libpython3.13.so.1.0", &s, hex);

	if (!p)
		cr_skip_test("no pyenv 3.13.0");
	/* "frame in rbp" for the whole function: the code reuses rbp, nothing pinned */
	cr_expect_eq(python_pins__count(p, PIN_FRAME), 0);
	cr_expect_eq(python_pins__count(p, PIN_THIS_INSTR), 0);
	cr_expect_eq(python_pins__count(p, PIN_NEXT_INSTR), 0);
	/* entry_frame: an addressed local, its stack slot (CFA - 144) for the whole function */
	cr_assert(python_pins__at(p, PIN_ENTRY_FRAME, s.eval + 0x1000, &l));
	cr_expect(l.op == PIN_CFA_SLOT && l.off == -144);
	if (python_code_pins__add(p, hex, s.eval, s.eval_size) == -ENOENT)
		cr_skip_test("pyenv 3.13.0 of another build (%s)", hex);
	cr_expect_gt(python_pins__count(p, PIN_FRAME), 50);
	cr_expect_gt(python_pins__count(p, PIN_THIS_INSTR), 300);
	/* in NOP (TARGET_NOP, +0x5c0c): after `add $0x2,%r15` r15 is the instruction + 2 */
	cr_assert(python_pins__at(p, PIN_THIS_INSTR, s.eval + 0x5c19, &l));
	cr_expect(l.op == PIN_REG && l.reg == 15 && l.off == -2);
	cr_assert(python_pins__at(p, PIN_FRAME, s.eval + 0x5c19, &l));
	cr_expect(l.op == PIN_REG && l.reg == 6);
	/* 0x92e1c, a deallocation's call while rbp holds the value stack: nothing */
	cr_expect_not(python_pins__at(p, PIN_FRAME, s.eval + 0x753c, &l));
	cr_expect_not(python_pins__at(p, PIN_THIS_INSTR, s.eval + 0x753c, &l));
	python_pins__free(p);
}
