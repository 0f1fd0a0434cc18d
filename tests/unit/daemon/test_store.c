// SPDX-License-Identifier: GPL-2.0-or-later
/* History on disk: what was written is read back, a torn tail costs only itself, files
 * that are not the daemon's are refused, and the directory stays within disk_max. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prof/daemon/store.h"
#include "hist.h"

static char dir[64];

static void make_dir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/prof-store.XXXXXX");
	cr_assert(mkdtemp(dir));
	chmod(dir, 0700);
}

static void remove_dir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

static struct store_config store_config(void)
{
	return (struct store_config){ .dir = dir, .disk_max = 1 << 30, .segment_bytes = 4 << 20,
				      .segment_ns = 600 * SEC, .fsync = true, .host = "test" };
}

/* n seconds of one tenant's samples from t0, written as they close. */
static void fill(struct history *h, struct store *s, uint64_t t0, uint64_t n)
{
	for (uint64_t t = t0; t < t0 + n; t++) {
		struct bucket_entry e[2];
		uint32_t f[2];

		history__lock(h);
		f[0] = frame_of(history__dict(h), "/bin/job", "hot", 0755, 0);
		f[1] = frame_of(history__dict(h), "/bin/job", "main", 0755, 0);
		e[0] = (struct bucket_entry){ task_of(history__dict(h), 1000, "job", "/u"),
					      stack_of(history__dict(h), f, 2), 1, 10 };
		e[1] = (struct bucket_entry){ task_of(history__dict(h), 1001, "other", "/v"),
					      stack_of(history__dict(h), f, 1), 2, 20 };
		history__unlock(h);
		if (add_fine(h, t * SEC, e, 2) > 0)
			cr_assert_geq(store__write(s, h, (t + 1) * SEC), 1);
	}
}

static uint64_t coarse_samples(struct history *h)
{
	uint64_t n = 0;

	for (size_t i = 0; i < history__nr(h, false); i++)
		n += history__at(h, false, i)->h.c.samples;
	return n;
}

Test(store, written_history_is_read_back)
{
	struct history_config hc = hist_config();
	struct store_config sc;
	struct history *h, *h2;
	struct store *s;
	struct store_stats st;
	char err[256];

	make_dir();
	sc = store_config();
	cr_assert_eq(history__new(&hc, &h), 0);
	cr_assert_eq(store__open(&sc, &s, err, sizeof(err)), 0, "%s", err);
	fill(h, s, 1000, 95);           /* 9 coarse buckets */
	uint64_t written = coarse_samples(h);
	cr_assert_eq(history__nr(h, false), 9);
	store__free(s);

	cr_assert_eq(history__new(&hc, &h2), 0);
	cr_assert_eq(store__open(&sc, &s, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(store__load(s, h2, 1100 * SEC), 0);
	store__stats(s, &st);
	cr_assert_eq(st.loaded, 9);
	cr_assert_eq(st.corrupt, 0);
	cr_assert_eq(coarse_samples(h2), written);
	struct bucket *b = history__at(h2, false, 3);
	const struct dict *d = history__dict(h2);
	cr_assert_eq(b->nr, 2);
	cr_assert_str_eq(dict__text(d, dict__task_get(d, b->e[0].task)->comm), "job");
	cr_assert(b->persisted);
	/* loaded buckets are not written again; new ones go to a new segment */
	cr_assert_eq(store__write(s, h2, 1100 * SEC), 0);
	store__free(s);
	history__free(h);
	history__free(h2);
	remove_dir();
}

Test(store, torn_tail_costs_only_the_last_bucket)
{
	struct history_config hc = hist_config();
	struct store_config sc;
	struct history *h;
	struct store *s;
	struct store_stats st;
	char err[256], path[128];
	struct stat sb;

	make_dir();
	sc = store_config();
	cr_assert_eq(history__new(&hc, &h), 0);
	cr_assert_eq(store__open(&sc, &s, err, sizeof(err)), 0);
	fill(h, s, 1000, 55);           /* 5 coarse buckets, one segment */
	store__free(s);
	history__free(h);
	snprintf(path, sizeof(path), "%s/%016x.seg", dir, 0);
	cr_assert_eq(stat(path, &sb), 0);
	/* a crash in the middle of the last write */
	cr_assert_eq(truncate(path, sb.st_size - 30), 0);
	cr_assert_eq(history__new(&hc, &h), 0);
	cr_assert_eq(store__open(&sc, &s, err, sizeof(err)), 0);
	cr_assert_eq(store__load(s, h, 1060 * SEC), 0);
	store__stats(s, &st);
	cr_assert_eq(st.loaded, 4);
	cr_assert_eq(st.corrupt, 1);
	cr_assert(strstr(st.last_corrupt, ".seg: offset"), "%s", st.last_corrupt);
	store__free(s);
	history__free(h);
	remove_dir();
}

Test(store, refuses_what_is_not_its_own)
{
	struct history_config hc = hist_config();
	struct store_config sc;
	struct history *h;
	struct store *s;
	struct store_stats st;
	char err[256], path[128];

	make_dir();
	sc = store_config();
	cr_assert_eq(history__new(&hc, &h), 0);
	cr_assert_eq(store__open(&sc, &s, err, sizeof(err)), 0);
	fill(h, s, 1000, 25);
	store__free(s);
	history__free(h);
	snprintf(path, sizeof(path), "%s/%016x.seg", dir, 0);
	cr_assert_eq(chmod(path, 0666), 0);     /* anyone could have written into it */
	cr_assert_eq(history__new(&hc, &h), 0);
	cr_assert_eq(store__open(&sc, &s, err, sizeof(err)), 0);
	cr_assert_eq(store__load(s, h, 1030 * SEC), 0);
	store__stats(s, &st);
	cr_assert_eq(st.loaded, 0);
	cr_assert_eq(st.refused, 1);
	store__free(s);
	chmod(dir, 0777);
	cr_assert_neq(store__open(&sc, &s, err, sizeof(err)), 0);
	cr_assert(strstr(err, "not writable by group or others"), "%s", err);
	history__free(h);
	remove_dir();
}

Test(store, stays_within_disk_max)
{
	struct history_config hc = hist_config();
	struct store_config sc;
	struct history *h;
	struct store *s;
	struct store_stats st;
	char err[256];

	make_dir();
	sc = store_config();
	sc.disk_max = 16 << 10;
	cr_assert_eq(history__new(&hc, &h), 0);
	cr_assert_eq(store__open(&sc, &s, err, sizeof(err)), 0);
	fill(h, s, 1000, 3000);
	store__stats(s, &st);
	cr_assert_leq(st.bytes, sc.disk_max + (8 << 10), "%llu bytes", (unsigned long long)st.bytes);
	cr_assert_gt(st.disk_evicted, 0);
	store__free(s);
	history__free(h);
	remove_dir();
}
