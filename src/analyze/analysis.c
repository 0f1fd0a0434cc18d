/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>

#include "prof/analyze/analysis.h"

int analysis__init(struct analysis *a, struct strset *names)
{
	*a = (struct analysis){ .model = model__new(), .syms = symbols__new(), .jit = jitmap__new("/tmp") };
	a->res = (struct resolver){ .model = a->model, .syms = a->syms, .jit = a->jit, .names = names };
	return a->model && a->syms && resolver__cache_init(&a->res) == 0 ? 0 : -ENOMEM;
}

void analysis__release(struct analysis *a)
{
	resolver__cache_release(&a->res);
	symbols__free(a->syms);
	jitmap__free(a->jit);
	model__free(a->model);
	*a = (struct analysis){ 0 };
}
