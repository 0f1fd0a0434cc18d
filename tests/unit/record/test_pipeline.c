/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The stages after the drain, without the kernel: records are pushed into a queue as
 * events__drain() pushes them (noting their copies in read order), then looked up,
 * judged, described and passed to a sink that keeps what it gets.  Tasks live in a
 * fake /proc tree: <tid>/status (the tracker's facts), <pid>/task/<tid>/comm and
 * <pid>/maps (what describes them).
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "prof/base/util.h"
#include "prof/base/vec.h"
#include "prof/perfdata/build_id.h"
#include "prof/record/pipeline.h"
#include "prof/synth/synth.h"
#include "../fixture.h"

#define MAX_OUT 64

static struct {
	char root[64];
	int proc_fd;
	struct sample_layout layout;
	struct scope scope;
	uint32_t uids[2];
	struct policy_verdict verdict;
	struct pipeline_config cfg;
	struct pipeline *p;
	struct ordered_queue *q;
	struct drained read;
	uint64_t judge_before;
	/* the sink: what it got, in order */
	struct { uint32_t type; int32_t pid, tid; char name[64]; } out[MAX_OUT];
	int nr_out, fail_at;
	struct rec recs[16];
	int nr_recs;
} fx;

static int keep(const void *rec, size_t len, void *ctx)
{
	const struct perf_event_header *h = rec;
	uint32_t ids[2] = { 0, 0 };

	if (fx.fail_at && fx.nr_out + 1 == fx.fail_at)
		return -ENOSPC;
	cr_assert_lt(fx.nr_out, MAX_OUT);
	cr_assert_eq(len, h->size);
	fx.out[fx.nr_out].type = h->type;
	if (h->type == PERF_RECORD_COMM || h->type == PERF_RECORD_MMAP2) {
		memcpy(ids, h + 1, 8);
		snprintf(fx.out[fx.nr_out].name, sizeof(fx.out[0].name), "%s",
			 (const char *)h + (h->type == PERF_RECORD_COMM ? 16 : 72));
	} else if (h->type == PERF_RECORD_SAMPLE) {
		memcpy(ids, (const char *)h + 24, 8);  /* after IDENTIFIER and IP */
	} else if (h->type == PERF_RECORD_CGROUP) {
		snprintf(fx.out[fx.nr_out].name, sizeof(fx.out[0].name), "%s", (const char *)h + 16);
	}
	fx.out[fx.nr_out].pid = (int32_t)ids[0];
	fx.out[fx.nr_out].tid = (int32_t)ids[1];
	fx.nr_out++;
	return 0;
}

static void setup(void)
{
	int root_fd;

	memset(&fx, 0, sizeof(fx));
	strcpy(fx.root, "/tmp/prof-test-pipeline-XXXXXX");
	cr_assert_not_null(mkdtemp(fx.root));
	root_fd = open(fx.root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_eq(mkdirat(root_fd, "proc", 0755), 0);
	fx.proc_fd = openat(root_fd, "proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	close(root_fd);
	cr_assert_geq(fx.proc_fd, 0);
	sample_layout__init(&fx.layout, SAMPLE_TYPE);
	fx.uids[fx.scope.nr_uids++] = 1001;
	fx.scope.uids = fx.uids;
	fx.verdict.admin = true;
	fx.cfg = (struct pipeline_config){
		.scope = &fx.scope, .verdict = &fx.verdict, .layout = &fx.layout,
		.sample_type = SAMPLE_TYPE, .proc_fd = fx.proc_fd, .cgroup_fd = -1, .sink = keep,
	};
	fx.q = ordered_queue__new();
	cr_assert_not_null(fx.q);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static void teardown(void)
{
	pipeline__free(fx.p);
	ordered_queue__free(fx.q);
	free(fx.read.recs);
	close(fx.proc_fd);
	nftw(fx.root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(pipeline, .init = setup, .fini = teardown);

static void start(void)
{
	cr_assert_eq(pipeline__new(&fx.cfg, &fx.p), 0);
}

static void mkdir_p(const char *path)
{
	if (mkdirat(fx.proc_fd, path, 0755) < 0)
		cr_assert_eq(errno, EEXIST, "mkdir %s: %s", path, strerror(errno));
}

/* A task in /proc: real uid, its comm, and the maps of its process. */
static void put_task(int32_t pid, int32_t tid, int32_t ppid, uint32_t uid, const char *comm, const char *maps)
{
	char path[64], text[256];

	snprintf(path, sizeof(path), "%d", tid);
	mkdir_p(path);
	snprintf(path, sizeof(path), "%d/status", tid);
	snprintf(text, sizeof(text), "Name:\t%s\nTgid:\t%d\nPPid:\t%d\nUid:\t%u\t%u\t%u\t%u\n",
		 comm, pid, ppid, uid, uid, uid, uid);
	put_file(fx.proc_fd, path, text);
	snprintf(path, sizeof(path), "%d", pid);
	mkdir_p(path);
	snprintf(path, sizeof(path), "%d/task", pid);
	mkdir_p(path);
	snprintf(path, sizeof(path), "%d/task/%d", pid, tid);
	mkdir_p(path);
	snprintf(path, sizeof(path), "%d/task/%d/comm", pid, tid);
	snprintf(text, sizeof(text), "%s\n", comm);
	put_file(fx.proc_fd, path, text);
	snprintf(path, sizeof(path), "%d/maps", pid);
	put_file(fx.proc_fd, path, maps);
}

static const char hot_maps[] =
	"00400000-00452000 r-xp 00001000 08:02 173521 /usr/bin/hot\n"
	"00651000-00652000 r--p 00051000 08:02 173521 /usr/bin/hot\n"
	"7f0000000000-7f0000020000 r-xp 00000000 08:02 42 /usr/lib/libc.so.6\n";

/* One drain: the records are copied into the queue in this order, then looked up. */
static int drain(const struct perf_event_header *const *evs, int n)
{
	fx.read.nr = 0;
	fx.judge_before = UINT64_MAX;
	for (int i = 0; i < n; i++) {
		cr_assert_eq(ordered_queue__push(fx.q, evs[i], sample_layout__time(&fx.layout, evs[i])), 0);
		cr_assert_eq(VEC_RESERVE(fx.read.recs, fx.read.cap, fx.read.nr + 1), 0);
		fx.read.recs[fx.read.nr++] = ordered_queue__last(fx.q);
	}
	return pipeline__look_up(fx.p, &fx.read, &fx.judge_before);
}

static struct rec *rec(void)
{
	cr_assert_lt(fx.nr_recs, 16);
	return &fx.recs[fx.nr_recs++];
}

static void expect_out(int i, uint32_t type, int32_t pid, int32_t tid, const char *name)
{
	cr_assert_lt(i, fx.nr_out, "record %d: only %d passed", i, fx.nr_out);
	cr_assert_eq(fx.out[i].type, type, "record %d: type %u, want %u", i, fx.out[i].type, type);
	if (pid)
		cr_assert_eq(fx.out[i].pid, pid, "record %d: pid %d, want %d", i, fx.out[i].pid, pid);
	if (tid)
		cr_assert_eq(fx.out[i].tid, tid, "record %d: tid %d, want %d", i, fx.out[i].tid, tid);
	if (name)
		cr_assert_str_eq(fx.out[i].name, name, "record %d", i);
}

/* A task of the scope that existed before: described from /proc just before its sample. */
Test(pipeline, pre_existing_task_described_before_its_first_sample)
{
	const struct perf_event_header *evs[3];

	put_task(100, 100, 1, 1001, "hot", hot_maps);
	start();
	evs[0] = mk_sample(rec(), 100, 100, 1000, 0);
	evs[1] = mk_sample(rec(), 100, 100, 2000, 0);
	/* the kernel announces one of the maps /proc showed: a repeat, dropped */
	evs[2] = mk_mmap2(rec(), 100, 0x7f0000000000ull, 0x20000, 0, "/usr/lib/libc.so.6", 3000);
	cr_assert_eq(drain(evs, 3), 0);
	cr_assert_eq(pipeline__scope_stats(fx.p)->lookups, 1, "looked up right after the drain");
	cr_assert_eq(pipeline__flush(fx.p, fx.q, UINT64_MAX, 0), 0);
	cr_assert_eq(fx.nr_out, 6, "COMM, 2 exec maps, 2 samples, round: %d", fx.nr_out);
	expect_out(0, PERF_RECORD_COMM, 100, 100, "hot");
	expect_out(1, PERF_RECORD_MMAP2, 100, 0, "/usr/bin/hot");
	expect_out(2, PERF_RECORD_MMAP2, 100, 0, "/usr/lib/libc.so.6");
	expect_out(3, PERF_RECORD_SAMPLE, 100, 100, NULL);
	expect_out(4, PERF_RECORD_SAMPLE, 100, 100, NULL);
	expect_out(5, PERF_RECORD_FINISHED_ROUND, 0, 0, NULL);
	cr_assert_eq(pipeline__stats(fx.p)->described, 1);
	cr_assert_eq(pipeline__stats(fx.p)->records, 6);
}

/* Out of the scope: nothing reaches the sink, not even a round's mark. */
Test(pipeline, nothing_written_no_round)
{
	const struct perf_event_header *evs[1];

	put_task(300, 300, 1, 0, "root", hot_maps);
	start();
	evs[0] = mk_sample(rec(), 300, 300, 1000, 0);
	cr_assert_eq(drain(evs, 1), 0);
	cr_assert_eq(pipeline__flush(fx.p, fx.q, UINT64_MAX, 0), 0);
	cr_assert_eq(fx.nr_out, 0);
	cr_assert_eq(pipeline__scope_stats(fx.p)->samples_out_of_scope, 1);
}

/*
 * A pre-existing task gone before its look-up: nothing from its sample on is judged
 * before the next drain, which reads its EXIT (naming its parent, of the scope).
 */
Test(pipeline, task_found_gone_waits_for_the_next_drain)
{
	const struct perf_event_header *evs[2];

	put_task(700, 700, 1, 1001, "parent", hot_maps);
	start();
	evs[0] = mk_sample(rec(), 710, 710, 5000, 0);
	evs[1] = mk_sample(rec(), 700, 700, 4000, 0);
	cr_assert_eq(drain(evs, 2), 0);
	cr_assert_eq(fx.judge_before, 5000, "judge nothing from the gone task's sample on");
	cr_assert_eq(pipeline__flush(fx.p, fx.q, fx.judge_before - 1, 0), 0);
	cr_assert_eq(ordered_queue__size(fx.q), 1, "the sample of 710 waits");
	fx.nr_out = 0;
	evs[0] = mk_fork(rec(), PERF_RECORD_EXIT, 710, 700, 710, 700, 6000);
	cr_assert_eq(drain(evs, 1), 0);
	cr_assert_eq(fx.judge_before, UINT64_MAX);
	cr_assert_eq(pipeline__flush(fx.p, fx.q, UINT64_MAX, 0), 0);
	/* the tenant's child: written, though /proc had nothing to describe it with; named
	 * as its parent was, as the kernel names a child at fork (issue 33), its maps unknown */
	expect_out(0, PERF_RECORD_COMM, 710, 710, "parent");
	expect_out(1, PERF_RECORD_SAMPLE, 710, 710, NULL);
	expect_out(2, PERF_RECORD_EXIT, 0, 0, NULL);
	cr_assert_eq(pipeline__scope_stats(fx.p)->unattributed_gone, 0);
	cr_assert_eq(pipeline__stats(fx.p)->described_gone, 1);
}

/* A cgroup's record is kept, and goes out just before the first written sample in it. */
Test(pipeline, cgroup_named_before_its_first_written_sample)
{
	const struct perf_event_header *evs[3];

	put_task(100, 100, 1, 1001, "hot", "");
	put_task(300, 300, 1, 0, "root", "");
	start();
	evs[0] = mk_cgroup(rec(), 42, "/tenant", 1000);
	evs[1] = mk_sample(rec(), 300, 300, 2000, 42);
	evs[2] = mk_sample(rec(), 100, 100, 3000, 42);
	cr_assert_eq(drain(evs, 3), 0);
	cr_assert_eq(pipeline__flush(fx.p, fx.q, UINT64_MAX, 0), 0);
	expect_out(0, PERF_RECORD_CGROUP, 0, 0, "/tenant");
	expect_out(1, PERF_RECORD_COMM, 100, 100, "hot");
	expect_out(2, PERF_RECORD_SAMPLE, 100, 100, NULL);
	expect_out(3, PERF_RECORD_FINISHED_ROUND, 0, 0, NULL);
	cr_assert_eq(fx.nr_out, 4);
}

/* The sink's first error stops everything after it. */
Test(pipeline, sink_error_stops_the_pipeline)
{
	const struct perf_event_header *evs[2];

	put_task(100, 100, 1, 1001, "hot", hot_maps);
	start();
	fx.fail_at = 2;
	evs[0] = mk_sample(rec(), 100, 100, 1000, 0);
	evs[1] = mk_sample(rec(), 100, 100, 2000, 0);
	cr_assert_eq(drain(evs, 2), 0);
	cr_assert_eq(pipeline__flush(fx.p, fx.q, UINT64_MAX, 0), -ENOSPC);
	cr_assert_eq(pipeline__sink_error(fx.p), -ENOSPC);
	cr_assert_eq(fx.nr_out, 1);
	fx.fail_at = 0;
	cr_assert_eq(pipeline__flush(fx.p, fx.q, UINT64_MAX, 0), -ENOSPC, "stays failed");
	cr_assert_eq(fx.nr_out, 1);
}

/* The kernel's map, from kallsyms (and the modules), as perf writes it; then the
 * running kernel's build id (from /sys/kernel/notes, when it has one). */
Test(pipeline, describe_kernel)
{
	_cleanup_free_ char *notes = NULL;
	ssize_t n = read_file_full(AT_FDCWD, "/sys/kernel/notes", 1 << 16, &notes);
	struct build_id b;
	bool bid = n > 0 && build_id__from_notes((const uint8_t *)notes, (size_t)n, 4, &b) == 0;

	put_file(fx.proc_fd, "kallsyms", "ffffffff81000000 T _stext\nffffffff81000000 T _text\n");
	put_file(fx.proc_fd, "modules", "nf_tables 356352 0 - Live 0xffffffffc0a00000\n");
	start();
	cr_assert_eq(pipeline__describe_kernel(fx.p), 0);
	cr_assert_eq(fx.nr_out, 2 + bid);
	expect_out(0, PERF_RECORD_MMAP, 0, 0, NULL);
	expect_out(1, PERF_RECORD_MMAP, 0, 0, NULL);
	if (bid)
		expect_out(2, PERF_RECORD_HEADER_BUILD_ID, 0, 0, NULL);
	/* hidden addresses: -EPERM, nothing written */
	fx.nr_out = 0;
	put_file(fx.proc_fd, "kallsyms", "0000000000000000 T _stext\n0000000000000000 T _text\n");
	cr_assert_eq(pipeline__describe_kernel(fx.p), -EPERM);
	cr_assert_eq(fx.nr_out, 0);
}
