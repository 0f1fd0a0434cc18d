/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "prof/perfdata/prof_section.h"
#include "prof/base/util.h"

__attribute__((format(printf, 2, 3)))
static void line(struct feat_buf *b, const char *fmt, ...)
{
	char buf[4200];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	feat_buf__put(b, buf, MIN((size_t)n, sizeof(buf) - 1));
}

static void cgroup_line(uint64_t id, const char *path, void *ctx)
{
	/* paths never hold a newline that matters: cut at one */
	line(ctx, "cgroup %" PRIu64 " %.*s\n", id, (int)strcspn(path, "\n"), path);
}

void prof_section__build(struct feat_buf *b, const struct scope *s, const struct tracker_stats *st,
			 const struct ledger *l, const struct prof_section_stats *extra)
{
	const struct ledger_task *log;
	size_t nr;

	line(b, "prof-scope 1\n");
	if (extra->kernel_build_id[0])
		line(b, "kernel-build-id %s\n", extra->kernel_build_id);
	if (s->all)
		line(b, "scope all\n");
	for (size_t i = 0; i < s->nr_uids; i++)
		line(b, "scope uid %u\n", s->uids[i]);
	for (size_t i = 0; i < s->nr_cgroups; i++)
		line(b, "scope cgroup %s\n", s->cgroups[i].path ? s->cgroups[i].path : s->cgroups[i].arg);
	for (size_t i = 0; i < s->nr_pids; i++)
		line(b, "scope pid %d\n", s->pids[i]);
	if (s->workload)
		line(b, "scope workload %d\n", s->workload);
	log = ledger__written_tasks(l, &nr);
	for (size_t i = 0; i < nr; i++) {
		if (log[i].uid_known)
			line(b, "task %d %d %u\n", log[i].pid, log[i].tid, log[i].uid);
		else
			line(b, "task %d %d -\n", log[i].pid, log[i].tid);
	}
	ledger__for_each_written_cgroup(l, cgroup_line, b);
	line(b, "stat samples_written %" PRIu64 "\n", st->samples_written);
	line(b, "stat samples_out_of_scope %" PRIu64 "\n", st->samples_out_of_scope);
	line(b, "stat unattributed_gone %" PRIu64 "\n", st->unattributed_gone);
	line(b, "stat unattributed_creds %" PRIu64 "\n", st->unattributed_creds);
	line(b, "stat lost %" PRIu64 "\n", extra->lost);
	line(b, "stat lost_samples %" PRIu64 "\n", extra->lost_samples);
	line(b, "stat tasks_seen %" PRIu64 "\n", st->tasks_seen);
	feat_buf__put(b, NULL, ALIGN_UP(b->len + 1, 8) - b->len);
}
