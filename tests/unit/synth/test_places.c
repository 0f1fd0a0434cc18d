/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Places as the records' order across CPUs gives them: each CPU's ring is looked up
 * in turn, so a child's FORK may come after its parent's EXIT.  Real /proc: prof's
 * own place is the test's, and pids far above any live one are gone.
 */
#include <criterion/criterion.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
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

/* A child in a mount namespace of its own (as root, or in a user namespace of its
 * own), paused: its pid, or -1 where neither can be made. */
static pid_t child_elsewhere(void)
{
	int fds[2];
	char ok = 0;
	pid_t pid;

	if (pipe(fds) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		ok = unshare(CLONE_NEWNS) == 0 || unshare(CLONE_NEWUSER | CLONE_NEWNS) == 0;
		if (write(fds[1], &ok, 1) != 1 || !ok)
			_exit(1);
		for (;;)
			pause();
	}
	close(fds[1]);
	if (pid < 0 || read(fds[0], &ok, 1) != 1 || !ok) {
		if (pid > 0)
			waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(fds[0]);
	return pid;
}

Test(places, fork_after_child_read)
{
	struct places *pl = NULL;
	int32_t self = (int32_t)getpid();
	pid_t child = child_elsewhere();
	uint32_t place;

	if (child < 0)
		cr_skip_test("no mount namespace can be made here (not root, no user namespaces)");
	cr_assert_eq(places__new(&pl), 0);
	cr_assert_eq(places__of(pl, self), 0);
	/* the child's records drained first: its place read from its /proc */
	place = places__of(pl, child);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	cr_assert(place != 0 && place != PLACE_NONE, "the child's own mount namespace is another place");
	/* then its FORK, from its parent's ring: the place it had before its unshare */
	cr_assert_eq(places__fork(pl, self, (int32_t)child), 0);
	cr_expect_eq(places__of(pl, (int32_t)child), place, "a late FORK took the child back to its parent's place");
	/* a pid's new holder, long after: its FORK gives it its parent's place */
	places__forget(pl, (int32_t)child, false);
	for (unsigned int i = 0; i <= PLACES_EXITED_ROUNDS; i++)
		places__round(pl);
	cr_assert_eq(places__fork(pl, self, (int32_t)child), 0);
	cr_expect_eq(places__of(pl, (int32_t)child), 0);
	places__free(pl);
}
