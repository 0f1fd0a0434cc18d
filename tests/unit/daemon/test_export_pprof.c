/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An answer of history as the exports' pprof, decoded back: pull's string labels
 * (user, uid, cgroup, unit, comm); push's one series with no labels and nothing of
 * another series (no location, function, mapping or string of theirs); frames'
 * addresses, build ids, no Line for what prof did not name; the series of an
 * answer; a cgroup's unit.
 */
#include <string.h>
#include <zlib.h>
#include <criterion/criterion.h>

#include "prof/daemon/export_pprof.h"
#include "profile.pb-c.h"

typedef Perftools__Profiles__Profile PbProfile;

struct world {
	struct view_answer a;
	uint32_t task_a, task_b;
};

static uint32_t s(struct dict *d, const char *t)
{
	int64_t id = dict__str(d, t, strlen(t));

	cr_assert(id >= 0);
	return (uint32_t)id;
}

static uint32_t frame(struct dict *d, const char *obj, const char *sym, uint64_t addr, uint8_t bid)
{
	struct dict_obj o = { .path = s(d, obj), .kind = DICT_OBJ_FILE, .build_id_len = 2, .build_id = { bid, 0xcd } };
	int64_t oid = dict__obj(d, &o), fid;

	cr_assert(oid >= 0);
	fid = dict__frame(d, &(struct dict_frame){ .obj = (uint32_t)oid, .sym = s(d, sym), .addr = addr,
						  .flags = addr ? DICT_FRAME_HAS_ADDR : 0 });
	cr_assert(fid >= 0);
	return (uint32_t)fid;
}

static void make(struct world *w)
{
	struct dict *d = dict__new();
	uint32_t fa[2], fb[1];
	int64_t sa, sb, ta, tb;

	cr_assert_not_null(d);
	w->a = (struct view_answer){ .dict = d, .from = 10000000000ull, .until = 12000000000ull };
	merge__init(&w->a.entries, 100, NULL, NULL);
	fa[0] = frame(d, "/bin/alpha", "[unknown] (alpha)", 0x1214, 0xaa);
	fa[1] = frame(d, "/bin/alpha", "main", 0x1100, 0xaa);
	fb[0] = frame(d, "/bin/beta", "beta_secret", 0x2000, 0xbb);
	ta = dict__task(d, &(struct dict_task){ .uid = 0, .flags = DICT_TASK_UID_KNOWN, .cgroup_id = 5,
					       .cgroup = s(d, "/user.slice/job-a.scope/x"), .container = s(d, ""),
					       .comm = s(d, "alpha") });
	tb = dict__task(d, &(struct dict_task){ .uid = 4242, .flags = DICT_TASK_UID_KNOWN, .cgroup = DICT_NONE,
					       .container = s(d, ""), .comm = s(d, "beta") });
	sa = dict__stack(d, fa, 2);
	sb = dict__stack(d, fb, 1);
	cr_assert(ta >= 0 && tb >= 0 && sa >= 0 && sb >= 0);
	cr_assert_eq(merge__add(&w->a.entries, (uint32_t)ta, (uint32_t)sa, 3, 3000), 0);
	cr_assert_eq(merge__add(&w->a.entries, (uint32_t)tb, (uint32_t)sb, 2, 2000), 0);
}

static PbProfile *decode(const uint8_t *gz, size_t len)
{
	static uint8_t out[1 << 16];
	uLongf n = sizeof(out);
	z_stream z = { .next_in = (uint8_t *)gz, .avail_in = (uInt)len, .next_out = out, .avail_out = (uInt)n };
	PbProfile *pb;

	cr_assert_eq(inflateInit2(&z, 15 + 16), Z_OK);
	cr_assert_eq(inflate(&z, Z_FINISH), Z_STREAM_END, "not gzip");
	n = z.total_out;
	inflateEnd(&z);
	pb = perftools__profiles__profile__unpack(NULL, n, out);
	cr_assert_not_null(pb);
	return pb;
}

static bool has_string(const PbProfile *pb, const char *t)
{
	for (size_t i = 0; i < pb->n_string_table; i++)
		if (strstr(pb->string_table[i], t))
			return true;
	return false;
}

static const char *label(const PbProfile *pb, const Perftools__Profiles__Sample *smp, const char *key)
{
	for (size_t k = 0; k < smp->n_label; k++)
		if (!strcmp(pb->string_table[smp->label[k]->key], key))
			return pb->string_table[smp->label[k]->str];
	return NULL;
}

Test(export_pprof, pull_labels_and_addresses)
{
	struct world w;
	struct export_pprof_opts o = { .event = "cpu-clock", .time_period = true, .period = 52631578,
				       .from = 10000000000ull, .until = 12000000000ull, .labels = true };
	uint8_t *buf;
	size_t len;
	PbProfile *pb;

	make(&w);
	cr_assert_eq(export_pprof__build(&w.a, &o, &buf, &len), 0);
	pb = decode(buf, len);
	cr_expect_eq(pb->n_sample, 2);
	cr_expect_eq(pb->time_nanos, 10000000000);
	cr_expect_eq(pb->duration_nanos, 2000000000);
	cr_expect_eq(pb->period, 52631578);
	for (size_t i = 0; i < pb->n_sample; i++) {
		const char *comm = label(pb, pb->sample[i], "comm");

		cr_assert_not_null(comm);
		if (!strcmp(comm, "alpha")) {
			cr_expect_str_eq(label(pb, pb->sample[i], "uid"), "0");
			cr_expect_str_eq(label(pb, pb->sample[i], "user"), "root");
			cr_expect_str_eq(label(pb, pb->sample[i], "cgroup"), "/user.slice/job-a.scope/x");
			cr_expect_str_eq(label(pb, pb->sample[i], "unit"), "job-a.scope");
		} else {
			cr_expect_str_eq(label(pb, pb->sample[i], "uid"), "4242");
			cr_expect_null(label(pb, pb->sample[i], "cgroup"));
		}
	}
	cr_expect_eq(pb->n_location, 3);
	for (size_t i = 0; i < pb->n_location; i++) {
		const Perftools__Profiles__Location *l = pb->location[i];
		const Perftools__Profiles__Mapping *m = pb->mapping[l->mapping_id - 1];

		cr_expect_eq(l->id, i + 1);
		cr_expect_neq(l->address, 0);
		cr_expect_eq(l->n_line, l->address == 0x1214 ? 0 : 1, "[unknown] has no Line, the others one");
		cr_expect(m->memory_start == 0 && m->memory_limit == 0 && m->file_offset == 0, "the fake mapping");
		cr_expect_str_eq(pb->string_table[m->build_id], strstr(pb->string_table[m->filename], "alpha") ? "aacd" : "bbcd");
		cr_expect_eq(m->has_functions, !strstr(pb->string_table[m->filename], "alpha"));
	}
	perftools__profiles__profile__free_unpacked(pb, NULL);
	free(buf);
	view__release(&w.a);
}

Test(export_pprof, push_one_series_nothing_else)
{
	struct world w;
	struct export_series *se;
	size_t nr, len;
	uint8_t *buf;
	PbProfile *pb;

	make(&w);
	cr_assert_eq(export_pprof__series(&w.a, &se, &nr), 0);
	cr_assert_eq(nr, 2);
	cr_expect(se[0].uid_known && se[0].uid == 0 && !strcmp(se[0].cgroup, "/user.slice/job-a.scope/x") &&
		  se[0].samples == 3);
	cr_expect(se[1].uid == 4242 && !strcmp(se[1].cgroup, "") && se[1].samples == 2);
	cr_assert_eq(export_pprof__build(&w.a, &(struct export_pprof_opts){ .event = "cpu-clock", .time_period = true,
									  .series = &se[0] }, &buf, &len), 0);
	pb = decode(buf, len);
	cr_expect_eq(pb->n_sample, 1);
	cr_expect_eq(pb->sample[0]->n_label, 0, "no sample labels: they would split the series");
	cr_expect_eq(pb->sample[0]->value[0], 3);
	cr_expect_eq(pb->n_mapping, 1);
	cr_expect_eq(pb->n_location, 2);
	cr_expect_not(has_string(pb, "beta"), "another series' names are in it");
	perftools__profiles__profile__free_unpacked(pb, NULL);
	free(buf);
	free(se);
	view__release(&w.a);
}

Test(export_pprof, unit_of_cgroup)
{
	char u[64];

	export_pprof__unit("/system.slice/nginx.service", u, sizeof(u));
	cr_expect_str_eq(u, "nginx.service");
	export_pprof__unit("/user.slice/user-1000.slice/session-3.scope/x", u, sizeof(u));
	cr_expect_str_eq(u, "session-3.scope");
	export_pprof__unit("/a/b", u, sizeof(u));
	cr_expect_str_eq(u, "");
	export_pprof__unit("", u, sizeof(u));
	cr_expect_str_eq(u, "");
}
