/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The cgroup registry over a fake hierarchy of plain directories, whose ids are what
 * cgroup_tree__id() says (their inode numbers, as cgroup2 ids are).
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <criterion/criterion.h>

#include "prof/scope/cgroup_tree.h"
#include "prof/scope/cgroups.h"
#include "../fixture.h"

static struct {
	char root[64];
	int fd;
	struct scope scope;
	struct scope_cgroup scoped[2];
	struct cgroups *c;
} fx;

static void setup(void)
{
	memset(&fx, 0, sizeof(fx));
	fx.fd = tmpdir_open(fx.root, "cgroups");
}

static void teardown(void)
{
	cgroups__free(fx.c);
	close(fx.fd);
	tmpdir_remove(fx.root);
}

TestSuite(cgroups, .init = setup, .fini = teardown);

static uint64_t mk(const char *path)
{
	uint64_t id = 0;

	cr_assert_eq(mkdirat(fx.fd, path + 1, 0755), 0, "mkdir %s: %s", path, strerror(errno));
	cr_assert_eq(cgroup_tree__id(fx.fd, path, &id), 0);
	return id;
}

static void scope_cgroup(const char *path)
{
	struct scope_cgroup *c = &fx.scoped[fx.scope.nr_cgroups++];

	c->arg = c->path = (char *)path;
	fx.scope.cgroups = fx.scoped;
}

/* The scoped subtrees are known from the start; a prefix is not a parent. */
Test(cgroups, scoped_subtrees_walked_at_start)
{
	uint64_t a = mk("/a"), ax = mk("/a/x"), axy = mk("/a/x/y"), ab = mk("/ab"), b = mk("/b");

	scope_cgroup("/a");
	cr_assert_eq(cgroups__new(&fx.scope, fx.fd, &fx.c), 0);
	cr_assert(cgroups__in_scope(fx.c, a));
	cr_assert(cgroups__in_scope(fx.c, ax));
	cr_assert(cgroups__in_scope(fx.c, axy));
	cr_assert_not(cgroups__in_scope(fx.c, ab), "/ab is beside /a, not under it");
	cr_assert_not(cgroups__in_scope(fx.c, b));
}

/* Cgroups made during the recording arrive as records. */
Test(cgroups, records_add_cgroups)
{
	scope_cgroup("/a");
	mk("/a");
	cr_assert_eq(cgroups__new(&fx.scope, fx.fd, &fx.c), 0);
	cr_assert_not(cgroups__in_scope(fx.c, 9001), "not heard of yet");
	cr_assert_eq(cgroups__add(fx.c, 9001, "/a/new"), 0);
	cr_assert_eq(cgroups__add(fx.c, 9002, "/abc"), 0);
	cr_assert_eq(cgroups__add(fx.c, 9003, "/b/new"), 0);
	cr_assert(cgroups__in_scope(fx.c, 9001));
	cr_assert_not(cgroups__in_scope(fx.c, 9002));
	cr_assert_not(cgroups__in_scope(fx.c, 9003));
	/* a second announcement changes nothing */
	cr_assert_eq(cgroups__add(fx.c, 9001, "/elsewhere"), 0);
	cr_assert_str_eq(cgroups__mark_written(fx.c, 9001), "/a/new");
}

/* Named once by the file; one walk of the hierarchy finds older cgroups elsewhere. */
Test(cgroups, mark_written_once_and_walk_once)
{
	struct seen_cgroups seen = { 0 };
	uint64_t a, other;
	const char *p;

	a = mk("/a");
	other = mk("/other");
	scope_cgroup("/a");
	cr_assert_eq(cgroups__new(&fx.scope, fx.fd, &fx.c), 0);
	cr_assert_eq(cgroups__add(fx.c, 9001, "/a/new"), 0);

	p = cgroups__mark_written(fx.c, 9001);
	cr_assert_not_null(p);
	cr_assert_str_eq(p, "/a/new");
	cr_assert_null(cgroups__mark_written(fx.c, 9001), "named once");
	/* made before the recording, outside the scope: found by the walk */
	p = cgroups__mark_written(fx.c, other);
	cr_assert_not_null(p);
	cr_assert_str_eq(p, "/other");
	cr_assert_not(cgroups__in_scope(fx.c, other));
	/* made after the walk, never announced: unknown, the walk is not repeated */
	cr_assert_null(cgroups__mark_written(fx.c, mk("/late")));
	cr_assert_null(cgroups__mark_written(fx.c, 12345));
	cr_assert_str_eq(cgroups__mark_written(fx.c, a), "/a");

	cgroups__for_each_written(fx.c, seen_cgroup, &seen);
	cr_assert_eq(seen.nr, 3);
	/* in the order learnt: the scoped walk, the record, the hierarchy's walk */
	cr_assert_eq(seen.ids[0], a);
	cr_assert_str_eq(seen.paths[0], "/a");
	cr_assert_eq(seen.ids[1], 9001);
	cr_assert_eq(seen.ids[2], other);
	cr_assert_str_eq(seen.paths[2], "/other");
}

Test(cgroups, root_scope_holds_everything)
{
	uint64_t x = mk("/x");

	scope_cgroup("/");
	cr_assert_eq(cgroups__new(&fx.scope, fx.fd, &fx.c), 0);
	cr_assert(cgroups__in_scope(fx.c, x));
	cr_assert_eq(cgroups__add(fx.c, 77, "/any/thing"), 0);
	cr_assert(cgroups__in_scope(fx.c, 77));
}

/* Without a cgroup2 mount: records still work, no walk is tried. */
Test(cgroups, no_hierarchy)
{
	cr_assert_eq(cgroups__new(&fx.scope, -1, &fx.c), 0);
	cr_assert_null(cgroups__mark_written(fx.c, 1));
	cr_assert_eq(cgroups__add(fx.c, 1, "/a"), 0);
	cr_assert_not(cgroups__in_scope(fx.c, 1), "no cgroup scope");
	cr_assert_str_eq(cgroups__mark_written(fx.c, 1), "/a");
}
