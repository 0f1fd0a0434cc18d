/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A Java frame's symbol split into class, method, file and line, only for prof's object. */
#include <string.h>
#include <criterion/criterion.h>

#include "prof/jvm/frames.h"
#include "prof/output/javaframe.h"

static void parts(const char *sym, const char *cls, const char *method, const char *file, long line)
{
	struct javaframe jf;

	cr_assert(javaframe__parse(JAVA_OBJECT_PATH, sym, &jf), "%s", sym);
	cr_assert_eq(jf.class_len, strlen(cls), "%s", sym);
	cr_assert(!strncmp(sym, cls, jf.class_len), "%s", sym);
	cr_assert_eq(jf.name_len - jf.class_len - 1, strlen(method), "%s", sym);
	cr_assert(!strncmp(sym + jf.class_len + 1, method, strlen(method)), "%s", sym);
	cr_assert_eq(jf.file_len, strlen(file), "%s", sym);
	cr_assert(!strncmp(sym + jf.file_off, file, jf.file_len), "%s", sym);
	cr_assert_eq(jf.line, line, "%s", sym);
}

Test(javaframe, method_file_line)
{
	parts("Hot.alpha (Hot.java:2)", "Hot", "alpha", "Hot.java", 2);
	parts("java.util.HashMap.putVal (HashMap.java)", "java.util.HashMap", "putVal", "HashMap.java", 0);
	parts("a.b.Outer$Inner.<init> (Outer.java:41)", "a.b.Outer$Inner", "<init>", "Outer.java", 41);
	parts("Gen.lambda$main$0", "Gen", "lambda$main$0", "", 0);
	/* a line but no source file in the class: "?" as the frames name it */
	parts("X.y (?:3)", "X", "y", "?", 3);
}

Test(javaframe, not_a_method)
{
	struct javaframe jf;

	cr_assert(javaframe__is_java(JAVA_OBJECT_PATH));
	cr_assert(javaframe__is_java(JAVA_OBJECT_LIVE), "profd's history names them so");
	cr_assert(!javaframe__is_java("/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so"));
	cr_assert(!javaframe__is_java(NULL));
	/* the markers are Java frames with no method */
	cr_assert(!javaframe__parse(JAVA_OBJECT_PATH, "[java: unverified]", &jf));
	cr_assert(!javaframe__parse(JAVA_OBJECT_PATH, "[java stub: StubRoutines (2)]", &jf));
	/* another object's symbol of the same shape is not a Java frame */
	cr_assert(!javaframe__parse("/usr/bin/python3.11", "Hot.alpha (Hot.java:2)", &jf));
	cr_assert(!javaframe__parse(JAVA_OBJECT_PATH, "noclass (X.java:1)", &jf));
	cr_assert(!javaframe__parse(JAVA_OBJECT_PATH, "A.b (X.java:0)", &jf));
	cr_assert(!javaframe__parse(JAVA_OBJECT_PATH, "A.b (X.java:1x)", &jf));
}
