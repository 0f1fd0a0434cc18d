// SPDX-License-Identifier: GPL-2.0-or-later
/* The history records: a round trip, and every cut or flipped byte refused cleanly. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "prof/daemon/snapshot.h"
#include "hist.h"

/* A dictionary of two tasks and two stacks, and a bucket over them, as records. */
static void build(struct snap_out *o)
{
	struct dict *d = dict__new();
	struct snap_cursor c = { 0 };
	uint32_t f[2] = { frame_of(d, "/bin/a", "hot", 0755, 0), frame_of(d, NULL, "do_syscall_64", 0, 0) };
	struct bucket_entry e[2] = { { task_of(d, 1000, "a", "/u"), stack_of(d, f, 2), 3, 30 },
				     { task_of(d, 1001, "b", NULL), stack_of(d, f, 1), 4, 40 } };
	struct bucket_hdr h = { .start_ns = 10 * SEC, .end_ns = 20 * SEC, .flags = BUCKET_PARTIAL,
				.c = { .samples = 7, .period = 70, .lost = 2 } };

	snapshot__put_text(o, SNAP_META, "window 1 2\nevent cpu-clock\n", 27);
	snapshot__put_items(o, d, &c);
	snapshot__put_bucket(o, &h, e, 2);
	snapshot__put_end(o);
	cr_assert_eq(o->err, 0);
	dict__free(d);
}

/* Read everything: the number of records, or the error. */
static int read_all(const uint8_t *p, size_t len, struct dict *d, struct snap_record *last_bucket)
{
	struct snap_reader r;
	struct snap_record rec;
	int n = 0, err;

	snap_reader__init(&r, p, len, d);
	while ((err = snapshot__next(&r, &rec)) > 0) {
		n++;
		if (rec.type == SNAP_BUCKET && last_bucket)
			*last_bucket = rec;
	}
	snap_reader__release(&r);
	return err < 0 ? err : n;
}

Test(snapshot, round_trip)
{
	struct snap_out o = { 0 };
	struct dict *d = dict__new();
	struct snap_reader r;
	struct snap_record rec;
	char v[64];

	build(&o);
	str_of(d, "already here");      /* ids in the reader's dictionary differ from the file's */
	snap_reader__init(&r, o.p, o.len, d);
	cr_assert_eq(snapshot__next(&r, &rec), 1);
	cr_assert_eq(rec.type, SNAP_META);
	cr_assert(snapshot__text_value(rec.text, rec.len, "event", v, sizeof(v)));
	cr_assert_str_eq(v, "cpu-clock");
	cr_assert_not(snapshot__text_value(rec.text, rec.len, "even", v, sizeof(v)));
	while (snapshot__next(&r, &rec) == 1 && rec.type != SNAP_BUCKET)
		;
	cr_assert_eq(rec.type, SNAP_BUCKET);
	cr_assert_eq(rec.bucket.start_ns, 10 * SEC);
	cr_assert_eq(rec.bucket.flags, BUCKET_PARTIAL);
	cr_assert_eq(rec.bucket.c.lost, 2);
	cr_assert_eq(r.nr_entries, 2);
	const struct dict_task *t = dict__task_get(d, r.entries[1].task);
	cr_assert_eq(t->uid, 1001);
	cr_assert_str_eq(dict__text(d, t->comm), "b");
	cr_assert_eq(t->cgroup, DICT_NONE);
	size_t nr;
	const uint32_t *ids = dict__stack_get(d, r.entries[0].stack, &nr);
	cr_assert_eq(nr, 2);
	cr_assert_str_eq(dict__text(d, dict__frame_get(d, ids[0])->sym), "hot");
	cr_assert_eq(r.entries[0].period, 30);
	cr_assert_eq(snapshot__next(&r, &rec), 1);
	cr_assert_eq(rec.type, SNAP_END);
	cr_assert_eq(snapshot__next(&r, &rec), 0);
	snap_reader__release(&r);
	snap_out__release(&o);
	dict__free(d);
}

Test(snapshot, every_cut_is_refused_not_misread)
{
	struct snap_out o = { 0 };
	int whole;

	build(&o);
	struct dict *d = dict__new();
	whole = read_all(o.p, o.len, d, NULL);
	dict__free(d);
	cr_assert_gt(whole, 3);
	for (size_t len = 0; len < o.len; len++) {
		uint8_t *copy = malloc(len + 1);

		memcpy(copy, o.p, len);
		d = dict__new();
		int r = read_all(copy, len, d, NULL);
		/* a cut at a record boundary reads fewer records, anywhere else it is refused */
		cr_assert(r == -EBADMSG || (r >= 0 && r < whole), "cut at %zu: %d", len, r);
		dict__free(d);
		free(copy);
	}
	snap_out__release(&o);
}

Test(snapshot, every_flipped_byte_is_caught)
{
	struct snap_out o = { 0 };

	build(&o);
	for (size_t i = 0; i < o.len; i++) {
		struct dict *d = dict__new();

		o.p[i] ^= 0x5a;
		cr_assert_eq(read_all(o.p, o.len, d, NULL), -EBADMSG, "flip at %zu", i);
		o.p[i] ^= 0x5a;
		dict__free(d);
	}
	snap_out__release(&o);
}

/* Well-formed records that lie (ids out of order, undefined references) are refused. */
Test(snapshot, lies_are_refused)
{
	struct dict *d = dict__new(), *r = dict__new();
	struct snap_out o = { 0 };
	struct snap_cursor c = { .next = { [DICT_STR] = 1 } };  /* the first string is skipped */

	task_of(d, 1, "x", NULL);
	snapshot__put_items(&o, d, &c);
	cr_assert_eq(read_all(o.p, o.len, r, NULL), -EBADMSG);
	snap_out__release(&o);
	dict__free(d);
	dict__free(r);
}

/* Off-CPU time: its task records carry kind and holder (36 bytes), on-CPU ones keep
 * the 32 bytes history and answers had before, and a record whose length and flags
 * disagree is refused. */
Test(snapshot, off_cpu_tasks_round_trip_beside_old_ones)
{
	struct dict *d = dict__new(), *back = dict__new();
	struct snap_cursor c = { 0 };
	struct snap_out o = { 0 };
	uint32_t f = frame_of(d, "/bin/a", "hot", 0755, 0), s = stack_of(d, &f, 1), on = task_of(d, 1000, "a", "/u");
	struct dict_task rt = *dict__task_get(d, on), bt = rt;
	struct snap_record rec = { 0 };
	int64_t runq, blocked;

	rt.flags |= DICT_TASK_RUNQ;
	rt.holder = 16 + 1001;          /* OFFCPU_HOLDER_UID + bob */
	bt.flags |= DICT_TASK_BLOCKED;
	bt.holder = 99;                 /* not kept: only a runq task has a holder */
	runq = dict__task(d, &rt);
	blocked = dict__task(d, &bt);
	cr_assert(runq >= 0 && blocked >= 0 && runq != on && blocked != runq);
	cr_assert_eq(dict__task_get(d, (uint32_t)blocked)->holder, 0);
	rt.holder++;
	cr_assert_neq(dict__task(d, &rt), runq, "the holder is part of the task");
	struct bucket_entry e[3] = { { on, s, 1, 10 }, { (uint32_t)runq, s, 1, 2000 }, { (uint32_t)blocked, s, 1, 3000 } };
	snapshot__put_items(&o, d, &c);
	snapshot__put_bucket(&o, &(struct bucket_hdr){ .start_ns = 0, .end_ns = SEC }, e, 3);
	cr_assert_eq(o.err, 0);
	cr_assert_gt(read_all(o.p, o.len, back, &rec), 0);
	cr_assert_eq(dict__nr(back, DICT_TASK), 4);
	for (uint32_t i = 0; i < 4; i++) {
		const struct dict_task *a = dict__task_get(d, i), *b = dict__task_get(back, i);

		cr_assert_eq(a->flags, b->flags);
		cr_assert_eq(a->holder, b->holder);
	}
	/* an on-CPU task record is 32 bytes (what older readers take): 8 of header + 32 + 4 */
	{
		struct snap_out one = { 0 };
		struct dict *only = dict__new();
		struct snap_cursor cc = { 0 };

		task_of(only, 1, "x", NULL);
		snapshot__put_items(&one, only, &cc);
		cr_assert_eq(one.len, (8 + 4 + 1 + 4) + (8 + 4 + 0 + 4) + (8 + 32 + 4), "%zu", one.len);
		snap_out__release(&one);
		dict__free(only);
	}
	snap_out__release(&o);
	dict__free(d);
	dict__free(back);
}

/* off_cpu_window: a bucket says how long its windows were, 8 bytes after the counts
 * only with BUCKET_OFFCPU (a bucket without is the bytes of before). */
Test(snapshot, a_bucket_keeps_its_off_cpu_windows_only_with_the_flag)
{
	struct dict *d = dict__new(), *back = dict__new();
	struct snap_out with = { 0 }, without = { 0 };
	struct snap_record rec = { 0 };
	uint32_t f = frame_of(d, "/bin/a", "hot", 0755, 0);
	struct bucket_entry e = { task_of(d, 1000, "a", "/u"), stack_of(d, &f, 1), 1, 10 };
	struct bucket_hdr h = { .start_ns = 0, .end_ns = 10 * SEC, .flags = BUCKET_OFFCPU,
				.c = { .samples = 1, .period = 10, .offcpu_window_ns = 2 * SEC } };
	struct snap_cursor c = { 0 }, c2 = { 0 };

	snapshot__put_items(&with, d, &c);
	snapshot__put_bucket(&with, &h, &e, 1);
	snapshot__put_items(&without, d, &c2);
	h.flags = 0;
	snapshot__put_bucket(&without, &h, &e, 1);
	cr_assert_eq(with.err, 0);
	cr_assert_eq(with.len, without.len + 8);
	cr_assert_gt(read_all(with.p, with.len, back, &rec), 0);
	cr_assert_eq(rec.bucket.flags, BUCKET_OFFCPU);
	cr_assert_eq(rec.bucket.c.offcpu_window_ns, 2 * SEC);
	cr_assert_eq(rec.bucket.c.samples, 1);
	dict__free(back);
	back = dict__new();
	cr_assert_gt(read_all(without.p, without.len, back, &rec), 0);
	cr_assert_eq(rec.bucket.c.offcpu_window_ns, 0, "not written without the flag");
	snap_out__release(&with);
	snap_out__release(&without);
	dict__free(d);
	dict__free(back);
}

/* A runq task with its holder's cgroup: 48 bytes, read back whole; without, 36. */
Test(snapshot, a_holders_cgroup_round_trips)
{
	struct dict *d = dict__new(), *back = dict__new();
	struct snap_cursor c = { 0 };
	struct snap_out o = { 0 };
	struct dict_task t = *dict__task_get(d, task_of(d, 1000, "a", "/u"));
	int64_t id;

	t.flags |= DICT_TASK_RUNQ;
	t.holder = 16 + 1001;
	t.holder_cgroup_id = 77;
	t.holder_cgroup = str_of(d, "/user.slice/b.scope");
	id = dict__task(d, &t);
	cr_assert_geq(id, 0);
	snapshot__put_items(&o, d, &c);
	cr_assert_eq(o.err, 0);
	cr_assert_gt(read_all(o.p, o.len, back, NULL), 0);
	cr_assert_eq(dict__nr(back, DICT_TASK), 2);
	const struct dict_task *b = dict__task_get(back, (uint32_t)id);
	cr_assert_eq(b->holder_cgroup_id, 77);
	cr_assert_str_eq(dict__text(back, b->holder_cgroup), "/user.slice/b.scope");
	cr_assert_eq(b->holder, 16 + 1001);
	snap_out__release(&o);
	dict__free(d);
	dict__free(back);
}
