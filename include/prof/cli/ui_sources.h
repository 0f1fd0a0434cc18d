/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * prof ui's sources: perf.data files (and profd's history), each read by prof
 * report's own steps: once whole for its timeline (each event's: cpu-clock,
 * offcpu-runq, offcpu-blocked, ...), then once per window the page asks for (the
 * last two kept: a diff's).  A source that cannot be read is kept with its
 * error, which the page shows; the terminal has been told already.
 */
#ifndef PROF_CLI_UI_SOURCES_H
#define PROF_CLI_UI_SOURCES_H

#include <stddef.h>
#include <stdint.h>

#include "prof/analyze/profile.h"
#include "prof/ui/ui.h"

struct ui_sources;

/* 0 or -ENOMEM. */
int ui_sources__new(struct ui_sources **ret);
struct ui_sources *ui_sources__free(struct ui_sources *s);

/* Read path with the user's rights (messages on stderr).  0, or -ENOMEM: a file that
 * cannot be read is a source with its error. */
int ui_sources__add_file(struct ui_sources *s, const char *path);
/* The user's own history in profd over the last since (NULL: 1h), asked through
 * socket (NULL: the default) as prof report --daemon asks.  0 or -ENOMEM, as above. */
int ui_sources__add_daemon(struct ui_sources *s, const char *socket, const char *since);

size_t ui_sources__count(const struct ui_sources *s);
const struct ui_source_info *ui_sources__info(struct ui_sources *s, size_t i);
/* ui_provider's window: the profile of event ev's samples in [from, until) ns after
 * the source's start, and the model naming its tasks. */
int ui_sources__window(struct ui_sources *s, size_t i, size_t ev, uint64_t from, uint64_t until,
		       const struct profile **ret, const struct model **ret_model, char *err, size_t errlen);

/* ui_provider's pprof: p (a window of event ev of source i) as -F pprof writes it, to fd. */
int ui_sources__pprof(struct ui_sources *s, size_t i, size_t ev, const struct profile *p, uint64_t from,
		      uint64_t until, int fd, char *err, size_t errlen);

#endif
