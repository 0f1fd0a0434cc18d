/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The .gopclntab reader on a real Go program, built here by Debian's go (skipped
 * without it): every function of the stripped build's table is the unstripped
 * build's symbol of that name and address; a pc's file and line are the source's,
 * and the function inlined there is named where the line is the inlined one's;
 * a table with its count or header changed, or cut short, is refused, and
 * corrupted bytes are read without a fault (the sanitizer build checks); a running
 * stripped program is named alike by a report's reader and profd's lean one.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "prof/analyze/gopclntab.h"
#include "prof/analyze/model.h"
#include "prof/analyze/resolver.h"
#include "prof/analyze/symbols.h"
#include "prof/base/strset.h"
#include "own_maps.h"

static char dir[] = "/tmp/prof-gopclntab.XXXXXX";

static const char prog[] = "package main\n\nimport \"os\"\n\n"
			   "func sq(i int) int {\n"
			   "\treturn i * i % 7\n"
			   "}\n\n"
			   "//go:noinline\n"
			   "func alphaWork(n int) int {\n"
			   "\ts := 0\n"
			   "\tfor i := 0; i < n; i++ {\n"
			   "\t\ts += sq(i)\n"
			   "\t}\n"
			   "\treturn s\n"
			   "}\n\n"
			   "func main() { println(alphaWork(10)); os.Stdin.Read(make([]byte, 1)) }\n";
/* sq's body (inlined into alphaWork), alphaWork's lines */
#define SQ_LINE 6
#define ALPHA_FIRST 10
#define ALPHA_LAST 16

/* Build the program (full or -s -w) into dir; false when go is not there. */
static bool build(void)
{
	char cmd[1024];
	FILE *f;

	if (system("command -v go >/dev/null 2>&1") != 0 || !mkdtemp(dir))
		return false;
	snprintf(cmd, sizeof(cmd), "%s/p.go", dir);
	f = fopen(cmd, "w");
	cr_assert(f);
	fputs(prog, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "cd %s && export HOME=%s GOCACHE=%s/cache GO111MODULE=off && go build -o full p.go && "
		 "go build -ldflags='-s -w' -o stripped p.go </dev/null", dir, dir, dir);
	cr_assert_eq(system(cmd), 0, "go build failed");
	return true;
}

static void cleanup(void)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (dir[strlen(dir) - 1] != 'X')
		(void)!system(cmd);
}

static Elf *open_elf(const char *name, int *ret_fd)
{
	char path[512];
	Elf *e;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	*ret_fd = open(path, O_RDONLY);
	cr_assert_geq(*ret_fd, 0);
	elf_version(EV_CURRENT);
	e = elf_begin(*ret_fd, ELF_C_READ_MMAP, NULL);
	cr_assert(e);
	return e;
}

/*
 * Go's table spells some names shorter than its symbol table: an assembly
 * function's ABI wrapper without ".abi0", an array length in a generated name as
 * "[...]" ("type..eq.[...]internal/cpu.option" for "type..eq.[5]internal/cpu.option").
 */
static bool same_go_name(const char *table, const char *sym)
{
	while (*table && *sym) {
		if (!strncmp(table, "[...]", 5) && sym[0] == '[') {
			table += 5;
			sym += 1 + strspn(sym + 1, "0123456789");
			if (*sym++ != ']')
				return false;
		} else if (*table++ != *sym++) {
			return false;
		}
	}
	return !*table && (!*sym || !strcmp(sym, ".abi0"));
}

/* Whether the unstripped build has a function symbol name at addr (aliases too:
 * runtime.text is internal/cpu.Initialize's address). */
static bool symbol_at(Elf *e, uint64_t addr, const char *name)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB) {
			Elf_Data *d = elf_getdata(scn, NULL);

			for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
				GElf_Sym s;

				if (gelf_getsym(d, (int)i, &s) && s.st_value == addr &&
				    GELF_ST_TYPE(s.st_info) == STT_FUNC && same_go_name(name, elf_strptr(e, sh.sh_link, s.st_name)))
					return true;
			}
		}
	return false;
}

static size_t count_of(Elf *e)
{
	struct gopclntab *t = NULL;
	size_t n;

	cr_assert_eq(gopclntab__from_elf(e, &t), 0);
	n = gopclntab__count(t);
	gopclntab__free(t);
	return n;
}

TestSuite(gopclntab, .fini = cleanup);

Test(gopclntab, names_as_the_symbol_table)
{
	int fd_full, fd;
	Elf *full, *e;
	struct gopclntab *t = NULL;
	size_t n, same = 0, alpha = SIZE_MAX;

	if (!build())
		cr_skip_test("needs go (Debian package golang-go)");
	full = open_elf("full", &fd_full);
	e = open_elf("stripped", &fd);
	cr_assert_eq(gopclntab__from_elf(e, &t), 0);
	cr_assert_eq(gopclntab__count(t), count_of(full), "the stripped build's table has the full one's functions");
	t = gopclntab__free(t);
	/* the full build's table against its own symbol table */
	cr_assert_eq(gopclntab__from_elf(full, &t), 0);
	cr_assert_eq(gopclntab__magic(t), GOPCLNTAB_MAGIC_118, "Go 1.18/1.19's table (magic %#x)", gopclntab__magic(t));
	n = gopclntab__count(t);
	cr_assert_gt(n, 100);
	for (size_t i = 0; i < n; i++) {
		uint64_t s, end;
		const char *name;

		cr_assert(gopclntab__func(t, i, &s, &end, &name));
		cr_assert_lt(s, end);
		cr_assert_eq(gopclntab__find(t, s), i);
		cr_assert_eq(gopclntab__find(t, end - 1), i);
		if (symbol_at(full, s, name))
			same++;
		else
			cr_log_error("%#lx %s: not the symbol table's name", (unsigned long)s, name);
		if (!strcmp(name, "main.alphaWork"))
			alpha = i;
	}
	cr_assert_eq(same, n, "%zu of %zu functions as the symbol table names them", same, n);
	cr_assert_neq(alpha, SIZE_MAX);
	{
		uint64_t s, end;
		const char *name, *file, *inl[4];
		int32_t line = 0;
		size_t in_sq = 0;

		/* the table of the stripped build: its inline tree too */
		gopclntab__free(t);
		cr_assert_eq(gopclntab__from_elf(e, &t), 0);
		gopclntab__func(t, alpha, &s, &end, &name);
		cr_assert_str_eq(name, "main.alphaWork");
		for (uint64_t pc = s; pc < end; pc++) {
			size_t k = gopclntab__inlined(t, pc, inl, 4);

			/* the padding after its code has no line */
			if (!gopclntab__line(t, pc, &file, &line)) {
				cr_assert_gt(pc, s);
				cr_assert_eq(k, 0);
				continue;
			}
			cr_assert(strstr(file, "/p.go"), "file %s", file);
			cr_assert(line == SQ_LINE || (line >= ALPHA_FIRST && line <= ALPHA_LAST), "line %d", line);
			/* sq's line is where sq is inlined, and only there */
			cr_assert_eq(k, line == SQ_LINE, "%#lx: line %d, %zu inlined", (unsigned long)pc, line, k);
			if (k) {
				cr_assert_str_eq(inl[0], "main.sq");
				in_sq++;
			}
		}
		cr_assert_gt(in_sq, 0, "no pc of alphaWork in the inlined sq");
	}
	gopclntab__free(t);
	elf_end(e);
	elf_end(full);
	close(fd);
	close(fd_full);
}

Test(gopclntab, refuses_what_does_not_check_out)
{
	int fd;
	Elf *e;
	struct gopclntab *t = NULL;
	size_t size;
	const uint8_t *img;
	uint8_t *copy;
	uint64_t off = 0, len = 0, lo = 0, hi = 0;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (!build())
		cr_skip_test("needs go (Debian package golang-go)");
	e = open_elf("stripped", &fd);
	img = (const uint8_t *)elf_rawfile(e, &size);
	elf_getshdrstrndx(e, &shstrndx);
	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &sh)) {
			const char *name = elf_strptr(e, shstrndx, sh.sh_name);

			if (!strcmp(name, ".gopclntab"))
				off = sh.sh_offset, len = sh.sh_size;
			if (!strcmp(name, ".text"))
				lo = sh.sh_addr, hi = sh.sh_addr + sh.sh_size;
		}
	cr_assert(len && hi);
	copy = malloc(len);
	memcpy(copy, img + off, len);
	cr_assert_eq(gopclntab__parse(copy, len, lo, hi, lo, &t), 0);
	t = gopclntab__free(t);
	/* the count one more or one fewer, a magic of no version, a quantum of 3 */
	for (int d = -1; d <= 1; d += 2) {
		copy[8] = (uint8_t)(img[off + 8] + d);
		cr_assert_eq(gopclntab__parse(copy, len, lo, hi, lo, &t), -EINVAL, "count %+d", d);
	}
	copy[8] = img[off + 8];
	copy[0] ^= 0x04;
	cr_assert_eq(gopclntab__parse(copy, len, lo, hi, lo, &t), -EINVAL);
	copy[0] ^= 0x04;
	copy[6] = 3;
	cr_assert_eq(gopclntab__parse(copy, len, lo, hi, lo, &t), -EINVAL);
	copy[6] = img[off + 6];
	/* text elsewhere, the table cut short */
	cr_assert_eq(gopclntab__parse(copy, len, hi, hi + 0x1000, 0, &t), -EINVAL);
	cr_assert_eq(gopclntab__parse(copy, len / 2, lo, hi, lo, &t), -EINVAL);
	/* any byte of the header's words flipped: refused, or a table that checks out
	 * whole (read by lookups without a fault) */
	for (size_t i = 8; i < 72; i++) {
		copy[i] ^= 0x55;
		if (gopclntab__parse(copy, len, lo, hi, lo, &t) == 0) {
			const char *file;
			int32_t line;

			for (uint64_t pc = lo; pc < hi; pc += 97)
				(void)gopclntab__line(t, pc, &file, &line);
			t = gopclntab__free(t);
		}
		copy[i] ^= 0x55;
	}
	free(copy);
	elf_end(e);
	close(fd);
}

static void feed(const struct perf_event_header *ev, void *ctx)
{
	cr_assert_eq(model__process(ctx, ev), 0);
}

/* MMAP2 records of pid's executable file mappings (own_maps.h's, of another task). */
static int task_maps(pid_t pid, struct model *m)
{
	char line[4608], file[4096], maps[64];
	static union record r;
	FILE *f;
	int n = 0;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	f = fopen(maps, "r");
	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi, off, ino;
		unsigned int maj, min;
		char perms[8];

		if (sscanf(line, "%lx-%lx %7s %lx %x:%x %lu %4095s", &lo, &hi, perms, &off, &maj, &min, &ino,
			   file) != 8 || perms[2] != 'x' || file[0] != '/')
			continue;
		feed(mmap2_record(&r, pid, PERF_RECORD_MISC_USER, lo, hi - lo, off, maj, min, ino,
				  PROT_READ | PROT_EXEC, file), m);
		n++;
	}
	fclose(f);
	return n;
}

/* The function at ip of task pid as a resolver over syms names it. */
static const char *name_at(struct model *m, struct symbols *syms, struct strset *names, int32_t pid, uint64_t ip)
{
	struct resolver r = { .model = m, .syms = syms, .names = names };
	struct profile_frame f;

	resolver__frame(&r, pid, false, ip, &f);
	return f.sym;
}

/* A running stripped Go program, named by a report's reader and by profd's lean one
 * alike, and its table let go within the lean reader's budget. */
Test(gopclntab, lean_and_report_alike)
{
	struct symbols *full, *lean;
	struct symbols_stats st;
	struct strset names = { 0 };
	struct model *m = model__new();
	struct gopclntab *t = NULL;
	char path[512];
	int in[2], out[2], fd;
	char said[8] = { 0 };
	uint64_t alpha = 0;
	Elf *e;
	pid_t pid;

	if (!build())
		cr_skip_test("needs go (Debian package golang-go)");
	e = open_elf("stripped", &fd);
	cr_assert_eq(gopclntab__from_elf(e, &t), 0);
	for (size_t i = 0; i < gopclntab__count(t) && !alpha; i++) {
		uint64_t s, end;
		const char *name;

		if (gopclntab__func(t, i, &s, &end, &name) && !strcmp(name, "main.alphaWork"))
			alpha = s;
	}
	cr_assert(alpha);
	cr_assert_eq(pipe(in), 0);
	cr_assert_eq(pipe(out), 0);
	snprintf(path, sizeof(path), "%s/stripped", dir);
	pid = fork();
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 2);
		close(in[1]);
		close(out[0]);
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	/* it has run main (its mappings made) once it says alphaWork(10)'s 19 */
	for (size_t got = 0; got < 3;) {
		ssize_t r = read(out[0], said + got, 3 - got);

		cr_assert_gt(r, 0, "the program said %s", said);
		got += (size_t)r;
	}
	cr_assert_str_eq(said, "19\n");
	cr_assert_gt(task_maps(pid, m), 0);
	full = symbols__new();
	lean = symbols__new();
	symbols__set_lean(lean, 1u << 20);
	/* non-PIE: the address is the ELF's */
	cr_assert_str_eq(name_at(m, full, &names, pid, alpha + 1), "main.alphaWork");
	cr_assert_str_eq(name_at(m, lean, &names, pid, alpha + 1), "main.alphaWork");
	symbols__stats(lean, &st);
	cr_assert_eq(st.loaded, 1);
	cr_assert_gt(st.bytes, 0);
	cr_assert_leq(st.bytes, 1u << 20, "lean holds %lu bytes", (unsigned long)st.bytes);
	close(in[1]);           /* it reads EOF and exits */
	waitpid(pid, NULL, 0);
	close(out[0]);
	symbols__free(full);
	symbols__free(lean);
	model__free(m);
	strset__release(&names);
	gopclntab__free(t);
	elf_end(e);
	close(fd);
}
