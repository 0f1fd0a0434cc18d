/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The row keys of prof report and prof top (--sort uid,cgroup,container,pid,comm,dso,sym):
 * their names, column titles and widths, and the text of a row's key.
 */
#ifndef PROF_OUTPUT_KEYS_H
#define PROF_OUTPUT_KEYS_H

#include <stddef.h>

#include "prof/analyze/model.h"
#include "prof/analyze/profile.h"

/* "uid,comm,sym": the keys in order.  0, or -EINVAL with a message in err. */
int keys__parse(const char *arg, enum profile_key keys[PROFILE_KEY__MAX], size_t *ret_nr, char *err,
		size_t errlen);

/* The key's name in --sort ("uid") and in JSON ("user"), its column title ("User"),
 * and the width prof top gives its column. */
const char *keys__name(enum profile_key k);
const char *keys__json_name(enum profile_key k);
const char *keys__title(enum profile_key k);
unsigned int keys__width(enum profile_key k);

/*
 * The text of row's key k, raw (as the recorded tasks named things: for JSON): the
 * user's name (else the uid, "[unknown]"), the cgroup's path (m; "-" for none), the
 * container's id ("" for a host task, "[unknown]" when its cgroup is), the pid, the comm, the object's base name, "[k] sym" or "[.] sym" (followed by
 * " (/path/of/object)" when another row has that name in another object), and for a row of
 * a whole stack (profile__rows' by_stack) its chain "leaf <- caller <- ..." (p).
 */
void keys__raw_text(const struct profile_row *row, enum profile_key k, const struct model *m,
		    const struct profile *p, char *buf, size_t len);

/* The same through escape__text(), for a terminal (a container's id shortened to
 * CONTAINER_PREFIX_MIN digits, "-" for a host task).  Returns its length. */
size_t keys__text(const struct profile_row *row, enum profile_key k, const struct model *m,
		  const struct profile *p, char *buf, size_t len);

#endif
