/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What src/node reads of a running node, for tests/integration/node:
 *
 *   describe PID        finds V8 in PID (node or libnode.so), reads and checks its
 *                       metadata and prints the object, the count of v8dbg_*
 *                       symbols and the items prof uses, or the one line refusing it
 *   stacks PID N [MS [live]]
 *                       N times, every MS ms (default 20): stops the main thread
 *                       (PTRACE_SEIZE once, then PTRACE_INTERRUPT: no signal is sent
 *                       to the program), takes its registers, walks the frame
 *                       pointers from rbp naming each frame from the process's
 *                       memory (process_vm_readv), and lets it run on: one line per
 *                       sample, frames innermost first, '|'-separated:
 *                         js NAME (FILE:LINE:COL) interpreted|compiled
 *                         v8 FRAMETYPE          (V8's own frames: entry, exit, stub)
 *                         stop: WHY             (a frame refused: the walk ends)
 *                       With live, the thread runs on before its frames are read:
 *                       the registers are the stop's, the stack is read as it changes
 *                       (what a sample path that read the stack late would see: the
 *                       frames then no longer belong to the registers' instant, and
 *                       checks on each frame alone cannot tell; frames.sh counts it).
 *
 * Exit 0, 2 (usage, a failure, or V8 refused: the reason on stderr), 77 (no V8 in PID).
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "prof/node/jsframe.h"
#include "prof/node/node.h"

#define MAX_FRAMES 64

static int read_mem(void *ctx, uint64_t addr, void *buf, size_t len)
{
	pid_t pid = *(pid_t *)ctx;
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };
	ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EFAULT;
}

static void describe(const struct node_v8 *v)
{
	printf("object %s\nsymbols %u\n", v->path, v->m.n_symbols);
	for (int i = 0; i < V8_ITEMS; i++)
		if (v->m.found[i])
			printf("item %s = %lld\n", v8_meta__item_name(i), (long long)v->m.v[i]);
		else
			printf("item %s none\n", v8_meta__item_name(i));
	for (int i = 0; i < V8_FRAME_TYPES; i++)
		if (v->m.frame_type[i][0])
			printf("frametype %d %s\n", i, v->m.frame_type[i]);
}

static void print_frame(const struct js_frame *f)
{
	const struct js_function *fn = &f->fn;

	if (f->kind == JS_FRAME_V8) {
		printf("v8 %s", f->marker_name);
		return;
	}
	printf("js %s (", fn->anonymous ? "(anonymous)" : fn->name);
	if (fn->file[0])
		printf("%s", fn->file);
	else
		printf("[unknown file: %s]", fn->file_why ? fn->file_why : "?");
	if (fn->line)
		printf(":%d:%d", fn->line, fn->column);
	else
		printf(":[unknown line: %s]", fn->line_why ? fn->line_why : "?");
	printf(") %s", f->tier == JS_TIER_INTERPRETED ? "interpreted" : "compiled");
}

/* One line: the frames from rbp. */
static void walk(const struct node_v8 *v, const struct user_regs_struct *r)
{
	uint64_t fp = r->rbp, sp = r->rsp;

	for (int k = 0; k < MAX_FRAMES; k++) {
		struct js_frame f;
		const char *why = "?";
		int err = js_frame__read(v, fp, k == 0 ? sp : 0, &f, &why);

		if (k)
			printf(" | ");
		if (err < 0) {
			printf("stop: %s", err == -EINVAL || err == -E2BIG ? why : strerror(-err));
			break;
		}
		print_frame(&f);
		if (f.kind == JS_FRAME_V8 && strcmp(f.marker_name, "EntryFrame") == 0) {
			/* native code called into JavaScript here: its frames need more than rbp */
			printf(" | stop: native code above the entry frame");
			break;
		}
		if (f.caller_fp <= fp) {
			printf(" | stop: the caller's frame pointer is not above this one");
			break;
		}
		fp = f.caller_fp;
	}
	printf("\n");
}

static int stacks(pid_t pid, const struct node_v8 *v, int n, int ms, bool live)
{
	struct timespec pause = { ms / 1000, (long)(ms % 1000) * 1000000 };
	int status;

	if (ptrace(PTRACE_SEIZE, pid, 0, 0) < 0) {
		fprintf(stderr, "node-probe: PTRACE_SEIZE %d: %s\n", pid, strerror(errno));
		return 2;
	}
	for (int i = 0; i < n; i++) {
		struct user_regs_struct r;

		if (ptrace(PTRACE_INTERRUPT, pid, 0, 0) < 0 || waitpid(pid, &status, __WALL) < 0) {
			fprintf(stderr, "node-probe: could not stop %d: %s\n", pid, strerror(errno));
			return 2;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			fprintf(stderr, "node-probe: %d ended\n", pid);
			return 2;
		}
		if (ptrace(PTRACE_GETREGS, pid, 0, &r) < 0) {
			fprintf(stderr, "node-probe: PTRACE_GETREGS: %s\n", strerror(errno));
			return 2;
		}
		printf("sample %d: ", i);
		if (!live)
			walk(v, &r);
		/* a signal-delivery stop passes its signal on; a group stop or the
		 * interrupt's own stop passes none */
		ptrace(PTRACE_CONT, pid, 0, (status >> 8) == SIGTRAP || (status >> 16) ? 0 : WSTOPSIG(status));
		if (live)
			walk(v, &r);
		fflush(stdout);
		nanosleep(&pause, NULL);
	}
	ptrace(PTRACE_INTERRUPT, pid, 0, 0);
	waitpid(pid, &status, __WALL);
	ptrace(PTRACE_DETACH, pid, 0, 0);
	return 0;
}

int main(int argc, char **argv)
{
	struct node_v8 v;
	char why[512];
	pid_t pid;
	int err;

	if (argc < 3 || (strcmp(argv[1], "describe") != 0 && strcmp(argv[1], "stacks") != 0) ||
	    (strcmp(argv[1], "stacks") == 0 && argc < 4)) {
		fprintf(stderr, "usage: prof-node-probe describe PID | stacks PID N [MS [live]]\n");
		return 2;
	}
	pid = atoi(argv[2]);
	err = node__find(pid, read_mem, &pid, &v, why, sizeof(why));
	if (err == -ENOENT) {
		fprintf(stderr, "node-probe: no V8 in %d\n", pid);
		return 77;
	}
	if (err < 0) {
		fprintf(stderr, "node-probe: %s\n", why[0] ? why : strerror(-err));
		return 2;
	}
	if (strcmp(argv[1], "describe") == 0) {
		describe(&v);
		return 0;
	}
	return stacks(pid, &v, atoi(argv[3]), argc > 4 ? atoi(argv[4]) : 20, argc > 5 && strcmp(argv[5], "live") == 0);
}
