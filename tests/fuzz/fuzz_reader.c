/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: the perf.data reader and what prof report does with what it
 * reads: prof's section, the sample decoder, the thread/map model, the engine
 * with stacks of the model's objects, its rows, folded stacks and the SVG.
 * Built with clang -fsanitize=fuzzer,address,undefined by tests/fuzz/run; seeds
 * in tests/fuzz/corpus.  (Symbols are left out: they open the files the input
 * names.)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <perf/event.h>

#include "prof/analyze/model.h"
#include "prof/analyze/profile.h"
#include "prof/output/folded.h"
#include "prof/perfdata/perf_reader.h"
#include "prof/perfdata/prof_section.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void load_section(const struct perf_reader *r, struct model *m)
{
	struct prof_section ps;
	size_t len;
	const char *text = perf_reader__prof_section(r, &len);
	char scope[128];

	if (!text || prof_section__parse(text, len, &ps) < 0)
		return;
	for (size_t i = 0; i < ps.nr_tasks; i++)
		if (ps.tasks[i].uid_known)
			model__set_uid(m, ps.tasks[i].tid, ps.tasks[i].uid);
	prof_section__describe_scope(&ps, scope, sizeof(scope));
	prof_section__release(&ps);
}

/* The sample's stack as the model's objects, leaf first, into the engine. */
static void count(struct model *m, struct profile *p, const struct sample *s)
{
	struct profile_frame f[64];
	struct profile_task t = { .pid = (int32_t)s->pid, .cgroup = s->cgroup, .comm = model__comm(m, (int32_t)s->tid) };
	struct model_location loc;
	bool kernel = (s->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
	size_t n = 0;

	t.uid_known = model__uid(m, (int32_t)s->tid, &t.uid);
	for (uint64_t i = 0; i <= s->nr_callchain && n < 64; i++) {
		uint64_t a = i ? s->callchain[i - 1] : s->ip;
		const struct model_dso *d;

		if (a >= (uint64_t)PERF_CONTEXT_MAX) {
			kernel = a == (uint64_t)PERF_CONTEXT_KERNEL;
			continue;
		}
		d = model__resolve(m, t.pid, kernel, a, &loc) ? model__dso(m, loc.dso) : NULL;
		f[n++] = (struct profile_frame){ .dso = d ? d->name : "?", .sym = d ? d->name : "?", .kernel = kernel };
	}
	(void)model__cgroup(m, s->cgroup);
	profile__add(p, &t, f, n, s->period);
}

static void outputs(const struct profile *p)
{
	static const bool keys[PROFILE_KEY__MAX] = { true, true, true, true, true, true };
	struct profile_row *rows;
	struct folded *f;
	size_t nr;
	FILE *out = fopen("/dev/null", "w");

	if (profile__rows(p, keys, true, &rows, &nr) == 0)
		free(rows);
	if (out && folded__new(p, &f) == 0) {
		folded__write(f, out);
		folded__write_svg(f, out, "fuzz");
		folded__free(f);
	}
	if (out)
		fclose(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz.data", 0);
	char path[64];
	struct perf_reader *r = NULL;
	struct reader_error err;
	const struct perf_event_header *ev;
	uint64_t off;

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (perf_reader__open(path, &r, &err) == 0) {
		struct model *m = model__new();
		struct profile *p = profile__new(1000);

		if (m)
			load_section(r, m);
		while (m && p && perf_reader__next(r, &ev, &off, &err) > 0) {
			struct sample s;

			(void)perf_reader__time(r, ev);
			if (ev->type != PERF_RECORD_SAMPLE)
				model__process(m, ev);
			else if (perf_reader__parse_sample(r, ev, off, &s, NULL, &err) == 0)
				count(m, p, &s);
			else
				break;
		}
		if (p)
			outputs(p);
		profile__free(p);
		model__free(m);
		perf_reader__free(r);
	}
	close(fd);
	return 0;
}
