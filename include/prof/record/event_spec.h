/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Event names as the user types them (-e), and the perf_event_attr they stand for. */
#ifndef PROF_RECORD_EVENT_SPEC_H
#define PROF_RECORD_EVENT_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct event_spec {
	uint32_t type;
	uint64_t config;
	bool exclude_user;
	bool exclude_kernel;
	char name[64];          /* canonical name, with modifiers, as perf prints it */
};

/*
 * Parse "cpu-clock", "cycles:u", "r01c2", ...  Returns 0, or -ENOENT for an unknown
 * name (a bad raw code included), -EINVAL for a bad modifier; *ret is untouched on
 * failure.
 */
int event_spec__parse(const char *str, struct event_spec *ret);

/* The software event perf falls back to when a hardware one cannot be opened. */
void event_spec__cpu_clock(struct event_spec *ret);

/* True for the generic hardware events (those that need a PMU). */
bool event_spec__is_hardware(const struct event_spec *e);

/* Comma-separated list of known names into buf, for error messages and --help. */
void event_spec__known_names(char *buf, size_t size);

#endif
