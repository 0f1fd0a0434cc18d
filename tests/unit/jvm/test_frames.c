/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/jvm/frames.c's parts that need no JVM: the interpreter frame's layout checked
 * against what a JVM exports, and the summary's line.  The walk itself runs on real
 * JVMs: tests/integration/jvm/frames.sh.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "prof/jvm/frames.h"
#include "prof/jvm/vmstructs.h"

static void layout_none(struct jvm_layout *l)
{
	memset(l, 0, sizeof(*l));
	for (int i = 0; i < JVM_ITEMS; i++)
		l->v[i] = JVM_NONE;
}

Test(frames, interpreter_layout_checked_against_the_exported_constants)
{
	struct jvm_layout l;

	layout_none(&l);
	cr_expect_not(jvm_frames__interp_ok(&l), "nothing exported: nothing to check the slots against");
	/* JDK 17 exports the last sp's alone, as signed ints widened */
	l.v[JC_FRAME_LAST_SP] = (uint64_t)(int64_t)-2;
	cr_expect(jvm_frames__interp_ok(&l));
	l.v[JC_FRAME_METHOD] = (uint64_t)(int64_t)-3;
	l.v[JC_FRAME_BCP] = (uint64_t)(int64_t)-8;
	cr_expect(jvm_frames__interp_ok(&l));
	/* another layout (a port whose method slot moved): refused */
	l.v[JC_FRAME_METHOD] = (uint64_t)(int64_t)-4;
	cr_expect_not(jvm_frames__interp_ok(&l));
}

Test(frames, summary_says_counts_and_why)
{
	struct jvm_frames_stats st = { .processes = 1, .samples = 100, .with_java = 95, .verified = 90, .frames = 180,
				       .interpreted = 10, .compiled = 170, .cut = 7 };
	char buf[512];

	st.unverified[JAVA_NOT_SEEN] = 4;
	st.unverified[JAVA_UNREADABLE] = 1;
	jvm_frames_stats__describe(&st, buf, sizeof(buf));
	cr_expect_str_eq(buf, "100 samples of 1 JVM(s), 95 with Java frames, 90 of them all named; 180 frames named "
			      "(10 interpreted, 170 compiled, 0 stubs); 5 [java: unverified] (4 code not seen before "
			      "the sample, 1 unreadable); 7 with callers not proven");
	memset(&st, 0, sizeof(st));
	jvm_frames_stats__describe(&st, buf, 40);
	cr_expect_eq(strlen(buf), 39, "cut to the buffer");
}

Test(frames, the_vms_own_threads_named_by_role)
{
	cr_expect_str_eq(jvm_frames__thread_role("VM Thread"), "[jvm: VM thread]");
	cr_expect_str_eq(jvm_frames__thread_role("C2 CompilerThre"), "[jvm: JIT compiler (C2)]");
	cr_expect_str_eq(jvm_frames__thread_role("C1 CompilerThre"), "[jvm: JIT compiler (C1)]");
	cr_expect_str_eq(jvm_frames__thread_role("GC Thread#3"), "[jvm: GC]");
	cr_expect_str_eq(jvm_frames__thread_role("G1 Refine#0"), "[jvm: GC]");
	cr_expect_str_eq(jvm_frames__thread_role("ZWorker#1"), "[jvm: GC]");
	cr_expect_str_eq(jvm_frames__thread_role("VM Periodic Tas"), "[jvm: periodic tasks]");
	/* the program's threads, and the launcher's main thread: none */
	cr_expect_null(jvm_frames__thread_role("java"));
	cr_expect_null(jvm_frames__thread_role("main"));
	cr_expect_null(jvm_frames__thread_role("Finalizer"));
	cr_expect_null(jvm_frames__thread_role("VM"));
	cr_expect_null(jvm_frames__thread_role(""));
	cr_expect_null(jvm_frames__thread_role(NULL));
}

Test(frames, summary_says_the_vms_threads_only_when_there_were_some)
{
	struct jvm_frames_stats st = { .processes = 1, .samples = 10, .with_java = 5, .verified = 5, .frames = 5,
				       .vm_threads = 4 };
	char buf[512];

	jvm_frames_stats__describe(&st, buf, sizeof(buf));
	cr_expect_str_eq(buf, "10 samples of 1 JVM(s), 5 with Java frames, 5 of them all named; 5 frames named; "
			      "0 [java: unverified]; 0 with callers not proven; 4 samples of the VM's own threads "
			      "(GC, JIT compiler, VM thread) named by role");
}
