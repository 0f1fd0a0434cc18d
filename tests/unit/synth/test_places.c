/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Places as the records' order across CPUs gives them: each CPU's ring is looked up
 * in turn, so a child's FORK may come after its parent's EXIT.  Real /proc: prof's
 * own place is the test's, and pids far above any live one are gone.
 */
#include <criterion/criterion.h>
#include <unistd.h>

#include "prof/synth/places.h"

/* Pids no task has (above the default pid_max of 4194304 is impossible; these are
 * below it, and far above what a test machine reaches). */
#define CHILD 4190001
#define CHILD2 4190002

Test(places, fork_after_parent_exit)
{
	struct places *pl = NULL;
	int32_t self = (int32_t)getpid();

	cr_assert_eq(places__new(&pl), 0);
	cr_assert_eq(places__of(pl, self), 0, "the test's own place is prof's own");
	places__forget(pl, self, false);                /* its EXIT, looked up first */
	cr_assert_eq(places__fork(pl, self, CHILD), 0); /* then its child's FORK */
	cr_expect_eq(places__of(pl, CHILD), 0, "the child of an exited parent has the parent's place");
	places__forget(pl, CHILD, false);
	cr_expect_eq(places__of(pl, CHILD), 0, "an exited task's place is kept a few rounds");
	for (unsigned int i = 0; i <= PLACES_EXITED_ROUNDS; i++)
		places__round(pl);
	cr_expect_eq(places__of(pl, CHILD), PLACE_NONE, "an exited task is forgotten after the rounds");
	/* the parent is forgotten too: a FORK from it now gives nothing */
	cr_assert_eq(places__fork(pl, CHILD, CHILD2), 0);
	cr_expect_eq(places__of(pl, CHILD2), PLACE_NONE);
	places__free(pl);
}

Test(places, pid_taken_again)
{
	struct places *pl = NULL;
	int32_t self = (int32_t)getpid();

	cr_assert_eq(places__new(&pl), 0);
	cr_assert_eq(places__of(pl, self), 0);
	cr_assert_eq(places__fork(pl, self, CHILD), 0);
	places__forget(pl, CHILD, false);
	/* a new task takes the pid (its FORK) before the old one is forgotten */
	cr_assert_eq(places__fork(pl, self, CHILD), 0);
	for (unsigned int i = 0; i <= PLACES_EXITED_ROUNDS; i++)
		places__round(pl);
	cr_expect_eq(places__of(pl, CHILD), 0, "the new task's place was dropped with the old one's");
	places__free(pl);
}
