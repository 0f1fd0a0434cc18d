/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A process's CPython interpreter: the object it maps that holds the eval function
 * (the executable, or libpython3.X.so), found by its .dynsym, and checked against
 * what prof knows (layout.h) and what the process itself holds.
 */
#ifndef PROF_PYTHON_INTERP_H
#define PROF_PYTHON_INTERP_H

#include <stddef.h>
#include <stdint.h>

#include "prof/analyze/model.h"
#include "prof/analyze/unwinder.h"
#include "prof/python/layout.h"
#include "prof/python/walk.h"

struct interp {
	const struct python_layout *l;
	uint64_t eval_lo, eval_hi;      /* _PyEval_EvalFrameDefault, in the process */
	uint64_t code_type;             /* &PyCode_Type */
	uint64_t runtime;               /* &_PyRuntime */
	uint32_t version;               /* Py_Version */
	char path[128];
};

/* What an object's .dynsym says (addresses as linked, not loaded). */
struct interp_syms {
	uint64_t eval, eval_size, code_type, runtime, version_addr;
	uint32_t version;               /* Py_Version's value in the file */
};

/*
 * The interpreter symbols of the ELF file open on fd: 0, -ENOENT when it has no
 * eval function, -EINVAL when it is no ELF.
 */
int interp__read_syms(int fd, struct interp_syms *ret);

/*
 * The interpreter of process pid (its maps in m, its files opened with open): 0 with
 * *ret filled, -ENOENT when it maps none, -ENOTSUP when prof has no layout for it
 * (why says so, for the summary), or -errno.
 */
int interp__find(const struct model *m, int32_t pid, unwinder_open_fn open, void *ctx, struct interp *ret,
		 char *why, size_t why_len);

/*
 * Does the process agree with the layout: PyCode_Type read from it (with read) named
 * "code", of the layout's basic and item sizes?  0, -EPERM/-ESRCH when it cannot be
 * read, -ENOTSUP when it does not agree (why says how).
 */
int interp__check(const struct interp *in, python_read_fn read, void *ctx, char *why, size_t why_len);

#endif
