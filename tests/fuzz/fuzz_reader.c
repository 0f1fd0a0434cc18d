/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: the perf.data reader and everything prof report does with what
 * it reads (sample parsing, the thread/map model, aggregation, folded stacks).
 * Built with clang -fsanitize=fuzzer,address,undefined by tests/fuzz/run.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "prof/analyze/model.h"
#include "prof/perfdata/perf_reader.h"
#include "prof/perfdata/prof_section.h"
#include "prof/analyze/profile.h"
#include "prof/output/folded.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
		size_t len;
		const char *sec = perf_reader__prof_section(r, &len);

		struct prof_section ps;

		if (sec && prof_section__parse(sec, len, &ps) == 0) {
			for (size_t i = 0; m && i < ps.nr_tasks; i++)
				model__set_uid(m, ps.tasks[i].tid, ps.tasks[i].uid);
			prof_section__release(&ps);
		}
		while (m && p && perf_reader__next(r, &ev, &off, &err) > 0) {
			struct sample s;
			struct model_location loc;

			(void)perf_reader__time(r, ev);
			if (ev->type != PERF_RECORD_SAMPLE) {
				model__process(m, ev);
				continue;
			}
			if (perf_reader__parse_sample(r, ev, off, &s, NULL, &err) < 0)
				break;
			struct profile_task task = { .pid = (int32_t)s.pid, .comm = "c", .cgroup = s.cgroup };
			struct profile_frame frame = { .dso = "d", .sym = "s" };
			if (model__resolve(m, (int32_t)s.pid, false, s.ip, &loc))
				(void)model__dso(m, loc.dso);
			(void)model__comm(m, (int32_t)s.tid);
			(void)model__cgroup(m, s.cgroup);
			profile__add(p, &task, &frame, 1, s.period);
		}
		struct folded *f;
		if (p && folded__new(p, &f) == 0) {
			FILE *out = fopen("/dev/null", "w");
			if (out) {
				folded__write(f, out);
				folded__write_svg(f, out, "fuzz");
				fclose(out);
			}
			folded__free(f);
		}
		profile__free(p);
		model__free(m);
		perf_reader__free(r);
	}
	close(fd);
	return 0;
}
