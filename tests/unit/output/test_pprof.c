/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pprof from the engine's profile, decoded back with protobuf-c: ids dense from 1;
 * a location per distinct frame address with its ELF address, a Line when prof
 * named it and none when it did not; one function per name; one mapping per
 * object with the range and file offset its locations' file offsets give (so that
 * readers compute a base of 0), the fake mapping 0/0/0 when they give none or
 * disagree; has_functions only when every location of it is named; the labels.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>
#include <criterion/criterion.h>

#include "prof/base/strset.h"
#include "prof/output/pprof.h"
#include "profile.pb-c.h"

typedef Perftools__Profiles__Profile PbProfile;

static struct strset names;

static const char *in(const char *s)
{
	const char *p = strset__intern(&names, s);

	cr_assert_not_null(p);
	return p;
}

static struct profile_frame at(const char *dso, const char *sym, uint64_t addr, uint64_t off)
{
	return (struct profile_frame){ .dso = in(dso), .sym = in(sym), .has_addr = addr != 0, .addr = addr, .off = off };
}

/* Several engines (one per event of m) as pprof, gunzipped and decoded. */
static PbProfile *roundtrip_events(const struct profile *const *ps, const struct pprof_meta *m)
{
	int fd = memfd_create("pprof", 0);
	size_t cap = 1 << 20;
	uint8_t *buf = malloc(cap);
	gzFile gz;
	int n;
	PbProfile *pb;

	cr_assert(fd >= 0 && buf);
	cr_assert_eq(pprof__write_events(ps, m, fd), 0);
	cr_assert_eq(lseek(fd, 0, SEEK_SET), 0);
	gz = gzdopen(fd, "rb");
	cr_assert_not_null(gz);
	n = gzread(gz, buf, (unsigned)cap);
	cr_assert(n > 0);
	gzclose(gz);
	pb = perftools__profiles__profile__unpack(NULL, (size_t)n, buf);
	free(buf);
	cr_assert_not_null(pb, "not a profile.proto");
	return pb;
}

/* p as pprof, gunzipped and decoded. */
static PbProfile *roundtrip(const struct profile *p)
{
	struct pprof_meta m = { .event = "cpu-clock", .time_period = true, .period = 1000000 };

	return roundtrip_events(&p, &m);
}

static const char *str(const PbProfile *pb, int64_t i)
{
	cr_assert(i >= 0 && (size_t)i < pb->n_string_table);
	return pb->string_table[i];
}

static const Perftools__Profiles__Mapping *mapping_named(const PbProfile *pb, const char *file)
{
	for (size_t i = 0; i < pb->n_mapping; i++)
		if (!strcmp(str(pb, pb->mapping[i]->filename), file))
			return pb->mapping[i];
	cr_assert_fail("no mapping of %s", file);
	return NULL;
}

Test(pprof, addresses_lines_mappings)
{
	struct profile *p = profile__new(0);
	struct profile_task t = { .uid = 1001, .uid_known = true, .pid = 7, .comm = in("work") };
	/* hot at two addresses of one function, main; a frame prof could not name; libc
	 * whose two frames disagree on offset - address (two segments); a kernel frame */
	struct profile_frame s1[] = { at("/bin/w", "hot", 0x1214, 0x214), at("/bin/w", "main", 0x1100, 0x100),
				      at("/lib/libc.so", "start", 0x29d90, 0x29d90) };
	struct profile_frame s2[] = { at("/bin/w", "hot", 0x1230, 0x230), at("/bin/w", "main", 0x1100, 0x100),
				      at("/lib/libc.so", "other", 0x40010, 0x3f010) };
	struct profile_frame s3[] = { at("/bin/x", "[unknown] (x)", 0x5010, 0x4010), at("/bin/x", "f", 0x5000, 0x4000) };
	struct profile_frame s4[] = { { .dso = in("[kernel.kallsyms]"), .sym = in("do_syscall_64"), .kernel = true } };
	PbProfile *pb;
	const Perftools__Profiles__Mapping *w, *x, *libc;
	size_t funcs_hot = 0;

	cr_assert_not_null(p);
	cr_assert_eq(profile__add(p, &t, s1, 3, 1000), 0);
	cr_assert_eq(profile__add(p, &t, s1, 3, 1000), 0);
	cr_assert_eq(profile__add(p, &t, s2, 3, 1000), 0);
	cr_assert_eq(profile__add(p, &t, s3, 2, 1000), 0);
	cr_assert_eq(profile__add(p, &t, s4, 1, 1000), 0);
	pb = roundtrip(p);

	/* ids dense from 1, in order */
	for (size_t i = 0; i < pb->n_location; i++)
		cr_expect_eq(pb->location[i]->id, i + 1);
	for (size_t i = 0; i < pb->n_mapping; i++)
		cr_expect_eq(pb->mapping[i]->id, i + 1);
	for (size_t i = 0; i < pb->n_function; i++)
		cr_expect_eq(pb->function[i]->id, i + 1);
	/* two addresses of hot: two locations, one function */
	cr_expect_eq(pb->n_location, 8, "locations: %zu", pb->n_location);
	for (size_t i = 0; i < pb->n_function; i++)
		funcs_hot += !strcmp(str(pb, pb->function[i]->name), "hot");
	cr_expect_eq(funcs_hot, 1);
	cr_expect_eq(pb->n_sample, 4);
	/* mapping 1 is the main binary: the object of the hottest user leaf */
	cr_expect_str_eq(str(pb, pb->mapping[0]->filename), "/bin/w");

	w = mapping_named(pb, "/bin/w");
	cr_expect_eq(w->memory_start, 0x1000);
	cr_expect_eq(w->memory_limit, 0x2000);
	cr_expect_eq(w->file_offset, 0x0, "start - file offset is the code's address - offset (0x1000)");
	cr_expect(w->has_functions);
	x = mapping_named(pb, "/bin/x");
	cr_expect_eq(x->memory_start, 0x5000);
	cr_expect_eq(x->file_offset, 0x4000);
	cr_expect_not(x->has_functions, "one of its locations is not named");
	libc = mapping_named(pb, "/lib/libc.so");
	cr_expect(libc->memory_start == 0 && libc->memory_limit == 0 && libc->file_offset == 0,
		  "two segments: the fake mapping");

	for (size_t i = 0; i < pb->n_location; i++) {
		const Perftools__Profiles__Location *l = pb->location[i];
		const Perftools__Profiles__Mapping *m = pb->mapping[l->mapping_id - 1];
		const char *file = str(pb, m->filename);

		if (!strcmp(file, "/bin/x") && l->address == 0x5010)
			cr_expect_eq(l->n_line, 0, "prof did not name it: no Line, the backend may");
		else
			cr_expect_eq(l->n_line, 1, "%s %#lx", file, (unsigned long)l->address);
		if (!strcmp(file, "[kernel.kallsyms]"))
			cr_expect_eq(l->address, 0);
		else
			cr_expect_neq(l->address, 0);
	}
	/* labels: uid as a number with a unit, comm and pid */
	for (size_t i = 0; i < pb->n_sample; i++) {
		bool uid = false, comm = false;

		for (size_t k = 0; k < pb->sample[i]->n_label; k++) {
			const Perftools__Profiles__Label *l = pb->sample[i]->label[k];

			uid |= !strcmp(str(pb, l->key), "uid") && l->num == 1001 && l->num_unit;
			comm |= !strcmp(str(pb, l->key), "comm") && !strcmp(str(pb, l->str), "work");
		}
		cr_expect(uid && comm);
	}
	perftools__profiles__profile__free_unpacked(pb, NULL);
	profile__free(p);
}

Test(pprof, no_addresses_as_before)
{
	struct profile *p = profile__new(0);
	struct profile_task t = { .comm = in("w") };
	struct profile_frame s[] = { at("/bin/w", "[unknown] (w)", 0, 0), at("/bin/w", "main", 0, 0) };
	PbProfile *pb;

	cr_assert_eq(profile__add(p, &t, s, 2, 5), 0);
	pb = roundtrip(p);
	/* without addresses every frame keeps its Line, [unknown] included */
	cr_expect_eq(pb->n_location, 2);
	for (size_t i = 0; i < pb->n_location; i++) {
		cr_expect_eq(pb->location[i]->n_line, 1);
		cr_expect_eq(pb->location[i]->address, 0);
	}
	cr_expect(pb->mapping[0]->has_functions);
	cr_expect_eq(pb->mapping[0]->memory_limit, 0);
	perftools__profiles__profile__free_unpacked(pb, NULL);
	profile__free(p);
}

/*
 * Two events: a pair of sample types each, named by event, the first the default;
 * every sample's values zero but its own event's; a frame of both engines is in each
 * sample's own locations.
 */
Test(pprof, several_events)
{
	struct profile *cpu = profile__new(0), *pf = profile__new(0);
	const struct profile *ps[] = { cpu, pf };
	const struct pprof_event evs[] = { { .name = "cpu-clock", .time_period = true, .period = 250000 },
					   { .name = "page-faults", .period = 1 } };
	struct pprof_meta m = { .event = "cpu-clock", .time_period = true, .period = 250000, .events = evs,
				.nr_events = 2 };
	struct profile_task t = { .pid = 7, .comm = in("work") };
	struct profile_frame a[] = { at("/bin/w", "hot", 0x1214, 0x214), at("/bin/w", "main", 0x1100, 0x100) };
	struct profile_frame b[] = { at("/bin/w", "touch", 0x1300, 0x300), at("/bin/w", "main", 0x1100, 0x100) };
	static const char *const want[] = { "cpu-clock_samples", "count", "cpu-clock", "nanoseconds",
					    "page-faults_samples", "count", "page-faults", "count" };
	int64_t sums[4] = { 0 };
	PbProfile *pb;

	cr_assert(cpu && pf);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(profile__add(cpu, &t, a, 2, 250000), 0);
	cr_assert_eq(profile__add(pf, &t, b, 2, 5), 0);
	cr_assert_eq(profile__add(pf, &t, b, 2, 2), 0);
	pb = roundtrip_events(ps, &m);

	cr_assert_eq(pb->n_sample_type, 4);
	for (size_t i = 0; i < 4; i++) {
		cr_expect_str_eq(str(pb, pb->sample_type[i]->type), want[2 * i]);
		cr_expect_str_eq(str(pb, pb->sample_type[i]->unit), want[2 * i + 1]);
	}
	cr_expect_str_eq(str(pb, pb->default_sample_type), "cpu-clock");
	cr_assert_eq(pb->n_sample, 2);
	for (size_t i = 0; i < pb->n_sample; i++) {
		const Perftools__Profiles__Sample *s = pb->sample[i];
		const Perftools__Profiles__Location *leaf;
		const char *fn;

		cr_assert_eq(s->n_value, 4);
		cr_expect((s->value[0] == 0) != (s->value[2] == 0), "a sample of one event");
		for (size_t k = 0; k < 4; k++)
			sums[k] += s->value[k];
		cr_assert(s->n_location_id == 2 && s->location_id[0] >= 1 && s->location_id[0] <= pb->n_location);
		leaf = pb->location[s->location_id[0] - 1];
		cr_assert_eq(leaf->n_line, 1);
		fn = str(pb, pb->function[leaf->line[0]->function_id - 1]->name);
		cr_expect_str_eq(fn, s->value[0] ? "hot" : "touch", "each sample's own event's stack");
	}
	cr_expect(sums[0] == 3 && sums[1] == 750000 && sums[2] == 2 && sums[3] == 7,
		  "sums %ld %ld %ld %ld", (long)sums[0], (long)sums[1], (long)sums[2], (long)sums[3]);
	perftools__profiles__profile__free_unpacked(pb, NULL);
	profile__free(cpu);
	profile__free(pf);
}

static const Perftools__Profiles__Function *function_of_loc(const PbProfile *pb, uint64_t addr, int64_t *line)
{
	for (size_t i = 0; i < pb->n_location; i++) {
		const Perftools__Profiles__Location *l = pb->location[i];

		if (l->address != addr)
			continue;
		cr_assert_eq(l->n_line, 1);
		*line = l->line[0]->line;
		cr_assert(l->line[0]->function_id >= 1 && l->line[0]->function_id <= pb->n_function);
		return pb->function[l->line[0]->function_id - 1];
	}
	cr_assert_fail("no location at %#lx", (unsigned long)addr);
	return NULL;
}

/* A Python frame's symbol (an address of /prof/python-frames) in pprof's own fields:
 * "q (file:def N)" a function with start_line N (no line: not known); "q (file:N)",
 * the line it ran, one function "q (file)" with a line per location.  The same text
 * in another object is a name like any. */
Test(pprof, python_frames_in_pprofs_own_fields)
{
	struct profile *p = profile__new(0);
	struct profile_task t = { .uid = 1001, .uid_known = true, .pid = 7, .comm = in("python3.11") };
	struct profile_frame s[] = { at("/prof/python-frames", "Cls.spin (/app/x y.py:def 3)", 0x1002, 0x2),
				     at("/prof/python-frames", "Cls.spin (/app/x y.py:12)", 0x1003, 0x3),
				     at("/prof/python-frames", "Cls.spin (/app/x y.py:14)", 0x1004, 0x4),
				     at("/bin/w", "odd (name:def 1)", 0x1100, 0x100) };
	const Perftools__Profiles__Function *f, *g, *h, *o;
	int64_t line;
	PbProfile *pb;

	cr_assert_not_null(p);
	cr_assert_eq(profile__add(p, &t, s, 4, 1000), 0);
	pb = roundtrip(p);
	f = function_of_loc(pb, 0x1002, &line);
	cr_expect_str_eq(str(pb, f->name), "Cls.spin");
	cr_expect_str_eq(str(pb, f->filename), "/app/x y.py");
	cr_expect_eq(f->start_line, 3);
	cr_expect_str_eq(str(pb, f->system_name), "Cls.spin (/app/x y.py:def 3)");
	cr_expect_eq(line, 0, "the line it ran is not known");
	g = function_of_loc(pb, 0x1003, &line);
	cr_expect_eq(line, 12);
	h = function_of_loc(pb, 0x1004, &line);
	cr_expect_eq(line, 14);
	cr_expect_eq(g, h, "one function for the lines of one");
	cr_expect_str_eq(str(pb, g->name), "Cls.spin");
	cr_expect_str_eq(str(pb, g->filename), "/app/x y.py");
	cr_expect_eq(g->start_line, 0);
	cr_expect_str_eq(str(pb, g->system_name), "Cls.spin (/app/x y.py)");
	o = function_of_loc(pb, 0x1100, &line);
	cr_expect_str_eq(str(pb, o->name), "odd (name:def 1)");
	cr_expect_eq(o->start_line, 0);
	perftools__profiles__profile__free_unpacked(pb, NULL);
	profile__free(p);
}
