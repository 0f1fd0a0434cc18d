/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What src/jvm reads of a running JVM, for tests/integration/jvm: it attaches to
 * process PID (reading its memory with process_vm_readv, as the user running it) and
 *
 *   describe PID        prints the JVM's version, libjvm.so, load bias, code heaps
 *                       and a few of the offsets it read, or the one line refusing it
 *   codelist PID        reads `jcmd PID Compiler.codelist` lines on stdin and checks
 *                       each nmethod listed against what it reads at the listed
 *                       code's first and middle byte: the same compile id must have
 *                       the same blob, code range and method name; another compile
 *                       id (or none) there is "stale", refused and counted, never a
 *                       mismatch.  Prints one line per nmethod and a summary; exit 1
 *                       when any was named wrong.
 *   pcs PID             reads pcs (hex) on stdin and prints, for each, what holds it
 *                       (kind, compile id, method, its frames with file:line,
 *                       innermost first), read twice around the naming: a blob that
 *                       changed in between is "unverified", never named.
 *
 * Exit 0, 1 (a wrong name), 2 (usage, or the JVM refused: the reason on stderr),
 * 77 (no JVM in PID).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "prof/jvm/jvm.h"
#include "prof/jvm/method.h"

static int read_mem(void *ctx, uint64_t addr, void *buf, size_t len)
{
	pid_t pid = *(pid_t *)ctx;
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };
	ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EFAULT;
}

static void describe(const struct jvm *j)
{
	const struct jvm_layout *l = &j->l;

	printf("version %u.%u.%u+%u\nrelease %s\nlibjvm %s\nbias %#" PRIx64 "\nentries %u\n", l->version >> 24,
	       (l->version >> 16) & 0xff, (l->version >> 8) & 0xff, l->version & 0xff, l->release, j->path, j->bias,
	       l->entries);
	printf("layout %s%s%s unsigned5_x %u\n", l->blob_offsets ? "blob-offsets" : "blob-pointers",
	       l->immutable ? " immutable-data" : "", l->mutable_md ? " mutable-data" : "", l->u5_x);
	for (unsigned i = 0; i < j->n_heaps; i++)
		printf("heap %u [%#" PRIx64 ", %#" PRIx64 ") segmap %#" PRIx64 "\n", i, j->heaps[i].lo, j->heaps[i].hi,
		       j->heaps[i].segmap);
	printf("segment 2^%u\n", j->log2_segment);
	for (int i = 0; i < JVM_ITEMS; i++)
		if (l->v[i] == JVM_NONE)
			printf("item %s none\n", jvm_layout__item_name(i));
		else
			printf("item %s %" PRId64 "\n", jvm_layout__item_name(i), (int64_t)l->v[i]);
}

/* The method's name as the JVM prints it, or -errno. */
static int name_of(const struct jvm *j, uint64_t method, char *buf, size_t len)
{
	struct jvm_method m;
	int err = jvm_method__read(j, method, &m);

	if (err == 0)
		jvm_method__format(&m, buf, len);
	return err;
}

struct tally {
	unsigned listed, agreed, stale, wrong, frames_wrong;
};

/* One codelist line: "ID LEVEL STATE NAME [START, BEGIN - END]". */
static void check_line(const struct jvm *j, const char *line, struct tally *t)
{
	int id, level, state;
	char name[1024], want[1024];
	uint64_t start, begin, end;
	struct jvm_blob b, again;
	struct jvm_frame f[64];
	int n;

	if (sscanf(line, "%d %d %d %1023s [%" SCNx64 ", %" SCNx64 " - %" SCNx64 "]", &id, &level, &state, want, &start,
		   &begin, &end) != 7)
		return;
	t->listed++;
	if ((n = jvm__find_blob(j, begin, &b)) < 0 || b.kind != JVM_BLOB_NMETHOD || b.compile_id != id) {
		if (n < 0)
			printf("stale %d %s: %s\n", id, want, n == -ENOENT ? "no blob there now" : strerror(-n));
		else if (b.kind != JVM_BLOB_NMETHOD)
			printf("stale %d %s: a %s there now\n", id, want, b.name);
		else
			printf("stale %d %s: compile %d there now\n", id, want, b.compile_id);
		t->stale++;
		return;
	}
	if ((n = name_of(j, b.method, name, sizeof(name))) < 0) {
		printf("stale %d %s: its method not read (%s)\n", id, want, strerror(-n));
		t->stale++;
		return;
	}
	if (jvm__find_blob(j, begin, &again) < 0 || !jvm_blob__same(&b, &again)) {
		printf("stale %d %s: changed while read\n", id, want);
		t->stale++;
		return;
	}
	if (b.start != start || b.code_begin != begin || b.code_end != end || strcmp(name, want) != 0) {
		printf("WRONG %d listed %s [%#" PRIx64 ", %#" PRIx64 " - %#" PRIx64 "] read %s [%#" PRIx64 ", %#" PRIx64
		       " - %#" PRIx64 "]\n", id, want, start, begin, end, name, b.start, b.code_begin, b.code_end);
		t->wrong++;
		return;
	}
	/* the middle of its code: the same blob, its outermost frame the nmethod's method */
	n = jvm__find_blob(j, begin + (end - begin) / 2, &again) == 0 && jvm_blob__same(&b, &again) ?
		    jvm_nmethod__frames(j, &b, begin + (end - begin) / 2, f, 64) : -ESTALE;
	if (n > 0 && f[n - 1].method != b.method) {
		printf("WRONG %d %s: its scopes' outermost frame is another method\n", id, want);
		t->frames_wrong++;
	}
	printf("ok %d %s%s\n", id, want, n > 0 ? "" : " (scopes not read)");
	t->agreed++;
}

static int codelist(const struct jvm *j)
{
	struct tally t = { 0 };
	char *line = NULL;
	size_t cap = 0;

	while (getline(&line, &cap, stdin) > 0)
		check_line(j, line, &t);
	free(line);
	printf("summary listed %u agreed %u stale %u wrong %u frames_wrong %u\n", t.listed, t.agreed, t.stale, t.wrong,
	       t.frames_wrong);
	return t.wrong || t.frames_wrong ? 1 : 0;
}

/* Print the frames of pc in blob b, innermost first: "method (file:line)". */
static int print_frames(const struct jvm *j, const struct jvm_blob *b, uint64_t pc)
{
	struct jvm_frame f[64];
	int n = jvm_nmethod__frames(j, b, pc, f, 64);

	if (n < 0)
		return n;
	for (int i = 0; i < n; i++) {
		struct jvm_method m;
		char name[1024];
		int line;

		if (jvm_method__read(j, f[i].method, &m) < 0)
			return -ESTALE;
		jvm_method__format(&m, name, sizeof(name));
		line = jvm_method__line(j, &m, f[i].bci);
		printf(" %s%s (%s:%d bci %d)", i ? "<- " : "", name, m.file[0] ? m.file : "?", line > 0 ? line : 0,
		       f[i].bci);
	}
	return 0;
}

static int pcs(const struct jvm *j)
{
	char line[64];

	while (fgets(line, sizeof(line), stdin)) {
		uint64_t pc = strtoull(line, NULL, 16);
		struct jvm_blob b, again;
		char name[1024] = "";
		int err = jvm__find_blob(j, pc, &b);

		if (err == -ENOENT) {
			printf("%#" PRIx64 " none\n", pc);
			continue;
		}
		if (err < 0) {
			printf("%#" PRIx64 " unverified (%s)\n", pc, strerror(-err));
			continue;
		}
		if (b.kind != JVM_BLOB_NMETHOD) {
			printf("%#" PRIx64 " %s %s\n", pc, b.kind == JVM_BLOB_INTERPRETER ? "interpreter" : "stub", b.name);
			continue;
		}
		err = name_of(j, b.method, name, sizeof(name));
		printf("%#" PRIx64 " nmethod %d", pc, b.compile_id);
		if (err == 0) {
			printf(" %s frames", name);
			err = print_frames(j, &b, pc);
		}
		/* the reading after: the same compile of the same method, else nothing claimed */
		if (err < 0 || jvm__find_blob(j, pc, &again) < 0 || !jvm_blob__same(&b, &again))
			printf(" | unverified");
		printf("\n");
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct jvm j;
	char why[512];
	pid_t pid;
	int err;

	if (argc != 3) {
		fprintf(stderr, "usage: %s describe|codelist|pcs PID\n", argv[0]);
		return 2;
	}
	pid = atoi(argv[2]);
	err = jvm__find(pid, read_mem, &pid, &j, why, sizeof(why));
	if (err == 0 && (err = jvm__read_heaps(&j, why, sizeof(why))) == -ENOTSUP)
		fprintf(stderr, "%s: a HotSpot prof cannot check: %s\n", j.path, why);
	else if (err == -ENOTSUP)
		fprintf(stderr, "%s\n", why);
	else if (err == -ENOENT)
		fprintf(stderr, "process %d maps no JVM\n", pid);
	else if (err < 0)
		fprintf(stderr, "process %d: its JVM could not be read: %s%s%s\n", pid, strerror(-err), why[0] ? ": " : "",
			why);
	if (err == -ENOENT)
		return 77;
	if (err < 0)
		return 2;
	if (strcmp(argv[1], "describe") == 0) {
		describe(&j);
		return 0;
	}
	if (strcmp(argv[1], "codelist") == 0)
		return codelist(&j);
	if (strcmp(argv[1], "pcs") == 0)
		return pcs(&j);
	fprintf(stderr, "%s: unknown mode %s\n", argv[0], argv[1]);
	return 2;
}
