/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Copying items from one dictionary into another, with what they name: a stack
 * brings its frames, a frame its object and symbol, an object its path, a task its
 * strings.  Each item is copied once; later asks return the id it got.  Used to drop
 * what history no longer uses (copy what it does into a fresh dictionary), to write
 * a segment of the history file (copy into the segment's own, whose ids are the
 * file's), and to build an answer (copy what the asker may see).
 */
#ifndef PROF_DAEMON_DICT_IMPORT_H
#define PROF_DAEMON_DICT_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "prof/daemon/dict.h"

struct dict_import {
	const struct dict *src;         /* borrowed */
	struct dict *dst;               /* borrowed */
	uint32_t *map[DICT_KINDS];      /* src id -> dst id + 1 (0: not copied yet) */
	size_t cap[DICT_KINDS];
};

/* Start copying from src into dst (no memory until the first copy). */
void dict_import__init(struct dict_import *im, const struct dict *src, struct dict *dst);
/* Forget what was copied (dst changed, or src did). */
void dict_import__release(struct dict_import *im);

/* The dst id of src's item, copied now if it was not yet: the id, -ENOMEM, -EINVAL
 * for an id src lacks. */
int64_t dict_import__str(struct dict_import *im, uint32_t id);
int64_t dict_import__obj(struct dict_import *im, uint32_t id);
int64_t dict_import__frame(struct dict_import *im, uint32_t id);
int64_t dict_import__stack(struct dict_import *im, uint32_t id);
int64_t dict_import__task(struct dict_import *im, uint32_t id);

#endif
