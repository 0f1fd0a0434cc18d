/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A 32-bit task spinning in its own vDSO's __vdso_clock_gettime (the kernel's
 * 32-bit image, also mapped as "[vdso]"), built without a C library:
 *   gcc -m32 -O2 -static -nostdlib -ffreestanding -fno-pic -fno-stack-protector
 * Its vDSO is found from the auxiliary vector (AT_SYSINFO_EHDR) and its function
 * through the image's dynamic symbol table.  Argument: seconds (default 1).
 */
#include <stdint.h>

/* The ELF32 structures it reads (no 32-bit C library headers needed). */
typedef struct {
	unsigned char e_ident[16];
	uint16_t e_type, e_machine;
	uint32_t e_version, e_entry, e_phoff, e_shoff, e_flags;
	uint16_t e_ehsize, e_phentsize, e_phnum, e_shentsize, e_shnum, e_shstrndx;
} Elf32_Ehdr;
typedef struct {
	uint32_t p_type, p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_flags, p_align;
} Elf32_Phdr;
typedef struct {
	int32_t d_tag;
	union { uint32_t d_val, d_ptr; } d_un;
} Elf32_Dyn;
typedef struct {
	uint32_t st_name, st_value, st_size;
	unsigned char st_info, st_other;
	uint16_t st_shndx;
} Elf32_Sym;
enum { PT_LOAD = 1, PT_DYNAMIC = 2, DT_NULL = 0, DT_HASH = 4, DT_STRTAB = 5, DT_SYMTAB = 6, SHN_UNDEF = 0,
       AT_NULL = 0, AT_SYSINFO_EHDR = 33 };

struct ts32 { int32_t sec, nsec; };
typedef int (*gettime_fn)(int clk, struct ts32 *ts) __attribute__((regparm(0)));

static void sys_exit(int code)
{
	__asm__ volatile("int $0x80" : : "a"(1), "b"(code));
	__builtin_unreachable();
}

static int same(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

/* The address of name in the vDSO at base, or 0. */
static uintptr_t vdso_sym(uintptr_t base, const char *name)
{
	const Elf32_Ehdr *eh = (const void *)base;
	const Elf32_Phdr *ph = (const void *)(base + eh->e_phoff);
	const Elf32_Dyn *dyn = 0;
	const Elf32_Sym *syms = 0;
	const char *strs = 0;
	const uint32_t *hash = 0;
	uintptr_t load = 0;

	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD && !load)
			load = base + ph[i].p_offset - ph[i].p_vaddr;
		if (ph[i].p_type == PT_DYNAMIC)
			dyn = (const void *)(base + ph[i].p_offset);
	}
	for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
		if (dyn->d_tag == DT_SYMTAB)
			syms = (const void *)(load + dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_STRTAB)
			strs = (const void *)(load + dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_HASH)
			hash = (const void *)(load + dyn->d_un.d_ptr);
	}
	if (!syms || !strs || !hash)
		return 0;
	for (uint32_t i = 0; i < hash[1]; i++)
		if (syms[i].st_shndx != SHN_UNDEF && same(strs + syms[i].st_name, name))
			return load + syms[i].st_value;
	return 0;
}

__attribute__((used)) static void start_c(uint32_t *sp)
{
	int argc = (int)sp[0];
	char **argv = (char **)(sp + 1);
	char **envp = argv + argc + 1;
	uint32_t *aux;
	uintptr_t base = 0;
	gettime_fn gettime;
	struct ts32 t0, t;
	int secs = argc > 1 ? argv[1][0] - '0' : 1;

	while (*envp)
		envp++;
	for (aux = (uint32_t *)(envp + 1); aux[0] != AT_NULL; aux += 2)
		if (aux[0] == AT_SYSINFO_EHDR)
			base = aux[1];
	gettime = base ? (gettime_fn)vdso_sym(base, "__vdso_clock_gettime") : 0;
	if (!gettime)
		sys_exit(77);
	gettime(1, &t0);        /* CLOCK_MONOTONIC */
	do
		gettime(1, &t);
	while (t.sec - t0.sec < secs);
	sys_exit(0);
}

__asm__(".globl _start\n_start:\n\tmov %esp, %eax\n\tand $-16, %esp\n\tsub $12, %esp\n\tpush %eax\n\tcall start_c\n");
