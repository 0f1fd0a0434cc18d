/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>
#include <ctype.h>
#include <string.h>
#include <linux/perf_event.h>

#include "prof/record/event_spec.h"
#include "prof/base/util.h"

static const struct {
	const char *name;
	uint32_t type;
	uint64_t config;
} events[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
};

void event_spec__known_names(char *buf, size_t size)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(events) && off < size; i++)
		off += (size_t)snprintf(buf + off, size - off, "%s%s", i ? ", " : "", events[i].name);
	if (off < size)
		snprintf(buf + off, size - off, ", rNNNN (raw)");
}

void event_spec__cpu_clock(struct event_spec *ret)
{
	*ret = (struct event_spec){ .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK };
	strcpy(ret->name, "cpu-clock");
}

bool event_spec__is_hardware(const struct event_spec *e)
{
	return e->type == PERF_TYPE_HARDWARE || e->type == PERF_TYPE_RAW;
}

int event_spec__parse(const char *str, struct event_spec *ret)
{
	struct event_spec e = { 0 };
	const char *colon = strchr(str, ':');
	size_t len = colon ? (size_t)(colon - str) : strlen(str);
	bool found = false;

	if (len == 0 || len >= 48)
		return -ENOENT;
	for (size_t i = 0; i < ARRAY_SIZE(events); i++) {
		if (strlen(events[i].name) == len && !strncmp(events[i].name, str, len)) {
			e.type = events[i].type;
			e.config = events[i].config;
			found = true;
			break;
		}
	}
	if (!found && str[0] == 'r' && len > 1 && isxdigit((unsigned char)str[1])) {
		char *end;
		errno = 0;
		e.config = strtoull(str + 1, &end, 16);
		if (errno || end != str + len)
			return -ENOENT;
		e.type = PERF_TYPE_RAW;
		found = true;
	}
	if (!found)
		return -ENOENT;
	memcpy(e.name, str, len);
	if (colon) {
		bool u = false, k = false;
		for (const char *m = colon + 1; *m; m++) {
			if (*m == 'u')
				u = true;
			else if (*m == 'k')
				k = true;
			else
				return -EINVAL;
		}
		if (!u && !k)
			return -EINVAL;
		/* perf's rule: naming only some privilege levels excludes the others. */
		e.exclude_kernel = !k;
		e.exclude_user = !u;
		snprintf(e.name + len, sizeof(e.name) - len, ":%s%s", u ? "u" : "", k ? "k" : "");
	}
	*ret = e;
	return 0;
}
