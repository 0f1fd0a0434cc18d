/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof/analyze/elf_funcs.h"
#include "prof/analyze/gopclntab.h"
#include "prof/base/strset.h"
#include "prof/base/util.h"

/* The end of section shndx of elf, as a module address; 0 when not known. */
static uint64_t section_end(Elf *elf, GElf_Word shndx, Dwarf_Addr bias)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elf && shndx != SHN_UNDEF && shndx < SHN_LORESERVE ? elf_getscn(elf, shndx) : NULL;

	if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC))
		return 0;
	return sh.sh_addr + sh.sh_size + bias;
}


static size_t underscores(const char *n)
{
	size_t k = 0;

	while (n[k] == '_')
		k++;
	return k;
}

/* perf's choose_best_symbol: of two functions at one address, which name to show. */
static bool better(const struct elf_func *a, const struct elf_func *b)
{
	if ((a->end > a->start) != (b->end > b->start))
		return a->end > a->start;
	if ((a->bind == STB_WEAK) != (b->bind == STB_WEAK))
		return b->bind == STB_WEAK;
	if ((a->bind == STB_GLOBAL) != (b->bind == STB_GLOBAL))
		return a->bind == STB_GLOBAL;
	if (underscores(a->name) != underscores(b->name))
		return underscores(a->name) < underscores(b->name);
	return strlen(a->name) >= strlen(b->name);
}

static int cmp_sym(const void *x, const void *y)
{
	const struct elf_func *a = x, *b = y;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return better(a, b) ? -1 : better(b, a) ? 1 : 0;
}

/* The C++ ABI's demangler (libstdc++), as perf shows C++ names. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* name demangled as perf shows it (a copy to free), or NULL when it is not a C++ name. */
static char *demangle_dup(const char *name)
{
	char *d;
	int status = 0;

	if (name[0] != '_' || name[1] != 'Z')
		return NULL;
	d = __cxa_demangle(name, NULL, NULL, &status);
	if (status == 0 && d) {
		/* perf shows the name without its parameter list: "ns::f", not "ns::f(int) const" */
		size_t n = strlen(d);
		int depth = 0;

		while (n && d[n - 1] != ')' && d[n - 1] != '>')
			n--;            /* " const", " &&"... after the parameters */
		for (size_t i = n; i-- > 0;) {
			if (d[i] == ')')
				depth++;
			else if (d[i] == '(' && --depth == 0) {
				if (i)
					d[i] = '\0';
				break;
			}
		}
	}
	if (status) {
		free(d);
		d = NULL;
	}
	return d;
}

const char *elf_funcs__demangle(struct strset *names, const char *name)
{
	char *d = demangle_dup(name);
	const char *r = strset__intern(names, d ? d : name);

	free(d);
	return r;
}

/*
 * Lean: of the aliases v[i..w) at one address (sorted by better() on the file's
 * names), the one better() picks by their demangled names, as a report would, into
 * *ret: only C++ names can rank otherwise.
 */
static void lean_alias(const struct elf_func *v, size_t i, size_t w, struct elf_func *ret)
{
	char *best_dm = NULL;
	bool mangled = false;

	for (size_t j = i; j < w && v[j].start == v[i].start; j++)
		mangled |= !v[j].named && v[j].name[0] == '_' && v[j].name[1] == 'Z';
	if (!mangled)
		return;
	for (size_t j = i; j < w && v[j].start == v[i].start; j++) {
		char *dm = v[j].named ? NULL : demangle_dup(v[j].name);
		struct elf_func a = v[j], b = *ret;

		a.name = dm ? dm : v[j].name;
		b.name = best_dm ? best_dm : ret->name;
		if (j == i || better(&a, &b)) {
			*ret = v[j];
			free(best_dm);
			best_dm = dm;
		} else {
			free(dm);
		}
	}
	free(best_dm);
}

/* The section called name of elf, or NULL. */
static Elf_Scn *section_named(Elf *elf, const char *name, GElf_Shdr *ret)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx) < 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (gelf_getshdr(scn, ret) && (n = elf_strptr(elf, shstrndx, ret->sh_name)) && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

#define PLT_ENTRY 16    /* x86-64: every stub, and .plt's header (PLT0) */

struct plt_rel {
	uint64_t got;           /* the GOT slot the stub jumps through */
	uint32_t sym;           /* its .dynsym index */
};

static int cmp_plt_rel(const void *a, const void *b)
{
	const struct plt_rel *x = a, *y = b;

	return x->got < y->got ? -1 : x->got > y->got;
}

/* The GOT slot a 16-byte x86-64 stub at addr jumps through: jmp *disp32(%rip), after
 * an endbr64 and a bnd prefix or not.  0 when the bytes are no such stub. */
static uint64_t stub_slot(const uint8_t *b, uint64_t addr)
{
	static const uint8_t endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	size_t at = 0;
	int32_t disp;

	if (!memcmp(b, endbr64, 4))
		at = 4;
	if (b[at] == 0xf2)              /* bnd */
		at++;
	if (b[at] != 0xff || b[at + 1] != 0x25)
		return 0;
	memcpy(&disp, b + at + 2, 4);
	return addr + at + 6 + (uint64_t)(int64_t)disp;
}

/*
 * The PLT stubs of the object as functions "name@plt", as perf names them: each
 * 16-byte stub of .plt.sec (IBT) or .plt (after its header) whose jmp goes through
 * a GOT slot of a .rela.plt relocation is named after that relocation's symbol; a
 * stub that is not decoded so stays unnamed.  From the object itself (a debug
 * file's .plt is NOBITS); x86-64 only.  Appended to funcs[w..cap): how many.
 */
static size_t plt_syms(Dwfl_Module *mod, struct strset *names, struct elf_func *funcs, size_t w, size_t cap)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	GElf_Shdr rel, plt, dynsym;
	Elf_Scn *rel_scn, *plt_scn, *dyn_scn;
	Elf_Data *rels, *syms, *code;
	_cleanup_free_ struct plt_rel *v = NULL;
	GElf_Ehdr eh;
	size_t n, nv = 0, added = 0, first;
	char name[512];

	if (!elf || !gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64 ||
	    !(rel_scn = section_named(elf, ".rela.plt", &rel)) || rel.sh_type != SHT_RELA || !rel.sh_entsize ||
	    !(dyn_scn = elf_getscn(elf, rel.sh_link)) || !gelf_getshdr(dyn_scn, &dynsym) ||
	    dynsym.sh_type != SHT_DYNSYM)
		return 0;
	if ((plt_scn = section_named(elf, ".plt.sec", &plt)) && plt.sh_type == SHT_PROGBITS)
		first = 0;
	else if ((plt_scn = section_named(elf, ".plt", &plt)) && plt.sh_type == SHT_PROGBITS)
		first = PLT_ENTRY;
	else
		return 0;
	rels = elf_getdata(rel_scn, NULL);
	syms = elf_getdata(dyn_scn, NULL);
	code = elf_getdata(plt_scn, NULL);
	n = rel.sh_size / rel.sh_entsize;
	if (!rels || !syms || !code || !code->d_buf || code->d_size < plt.sh_size || !n ||
	    !(v = calloc(n, sizeof(*v))))
		return 0;
	for (size_t i = 0; i < n; i++) {
		GElf_Rela r;

		if (gelf_getrela(rels, (int)i, &r))
			v[nv++] = (struct plt_rel){ .got = r.r_offset, .sym = (uint32_t)GELF_R_SYM(r.r_info) };
	}
	qsort(v, nv, sizeof(*v), cmp_plt_rel);
	for (size_t off = first; off + PLT_ENTRY <= plt.sh_size && w + added < cap; off += PLT_ENTRY) {
		uint64_t at = plt.sh_addr + off;
		struct plt_rel key = { .got = stub_slot((const uint8_t *)code->d_buf + off, at) };
		const struct plt_rel *r = key.got ? bsearch(&key, v, nv, sizeof(*v), cmp_plt_rel) : NULL;
		GElf_Sym sym;
		const char *sn;

		if (!r || !gelf_getsym(syms, (int)r->sym, &sym) ||
		    !(sn = elf_strptr(elf, dynsym.sh_link, sym.st_name)) || !sn[0])
			continue;
		snprintf(name, sizeof(name), "%s@plt", sn);
		sn = strset__intern(names, name);
		if (!sn)
			break;
		funcs[w + added++] = (struct elf_func){ .start = at + bias, .end = at + bias + PLT_ENTRY, .name = sn,
						       .bind = STB_GLOBAL, .named = true };
	}
	return added;
}

/* The number of .rela.plt entries of the object (room for plt_syms()). */
static size_t plt_relocs(Dwfl_Module *mod)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	GElf_Shdr rel;

	if (!elf || !section_named(elf, ".rela.plt", &rel) || rel.sh_type != SHT_RELA || !rel.sh_entsize)
		return 0;
	return rel.sh_size / rel.sh_entsize;
}

size_t elf_funcs__read(Dwfl_Module *mod, struct strset *names, bool lean, struct elf_func **ret)
{
	int n = dwfl_module_getsymtab(mod);
	size_t w = 0, nplt = plt_relocs(mod);
	struct elf_func *f;

	if (n <= 0 && !nplt)
		return 0;
	n = MAX(n, 0);
	f = calloc((size_t)n + nplt + 1, sizeof(*f));
	if (!f)
		return 0;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx = SHN_UNDEF;
		Elf *elf = NULL;
		Dwarf_Addr bias = 0;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx, &elf, &bias);
		int type = GELF_ST_TYPE(sym.st_info);

		if (!name || !name[0] || (type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF)
			continue;
		name = lean ? name : elf_funcs__demangle(names, name);     /* lean: the file's, copied by the caller */
		if (!name)
			break;
		f[w++] = (struct elf_func){ .start = addr, .end = addr + sym.st_size, .name = name, .named = !lean,
					   .bind = (uint8_t)GELF_ST_BIND(sym.st_info),
					   .sec_end = sym.st_size ? 0 : section_end(elf, shndx, bias) };
	}
	w += plt_syms(mod, names, f, w, (size_t)n + nplt);
	qsort(f, w, sizeof(*f), cmp_sym);
	/* keep one symbol per address (the best, sorted first); size 0 runs to the next,
	 * but not past its section: _init (size 0 in crti.o) is not the .plt after it */
	size_t k = 0;
	for (size_t i = 0; i < w; i++) {
		if (k && f[k - 1].start == f[i].start)
			continue;
		f[k] = f[i];
		if (lean)
			lean_alias(f, i, w, &f[k]);
		k++;
	}
	for (size_t i = 0; i < k; i++)
		if (f[i].end == f[i].start) {
			f[i].end = i + 1 < k ? f[i + 1].start : f[i].start + 1;
			if (f[i].sec_end > f[i].start && f[i].sec_end < f[i].end)
				f[i].end = f[i].sec_end;
		}
	*ret = f;
	return k;
}

/* Whether [start, end) overlaps a function of f[0, n) (sorted by start). */
static bool covered(const struct elf_func *f, size_t n, uint64_t start, uint64_t end)
{
	size_t lo = 0, hi = n;

	/* the first function starting at or past end; the one before it may reach in */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f[mid].start < end)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && f[lo - 1].end > start;
}

size_t elf_funcs__add_go(Dwfl_Module *mod, struct strset *names, bool lean, struct elf_func **funcs, size_t n,
			 struct gopclntab **ret_table)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	struct gopclntab *t = NULL;
	struct elf_func *f;
	GElf_Shdr sh;
	size_t w = n, nr;

	if (!elf || (!ret_table && section_named(elf, ".symtab", &sh)) || gopclntab__from_elf(elf, &t) < 0)
		return n;
	if (section_named(elf, ".symtab", &sh)) {
		/* a symbol table names them already (perf's names, its aliases): the
		 * table for inline chains and lines only */
		*ret_table = t;
		return n;
	}
	nr = gopclntab__count(t);
	f = realloc(n ? *funcs : NULL, (n + nr + 1) * sizeof(*f));
	if (!f) {
		gopclntab__free(t);
		return n;
	}
	*funcs = f;
	for (size_t i = 0; i < nr; i++) {
		uint64_t s, e;
		const char *name;

		if (!gopclntab__func(t, i, &s, &e, &name) || !name[0] || covered(f, n, s + bias, e + bias))
			continue;
		name = lean ? name : strset__intern(names, name);       /* lean: the caller copies */
		if (!name)
			break;
		f[w++] = (struct elf_func){ .start = s + bias, .end = e + bias, .name = name, .named = !lean,
					   .bind = STB_GLOBAL };
	}
	if (ret_table && w > n)
		*ret_table = t;
	else
		gopclntab__free(t);
	if (w > n)
		qsort(f, w, sizeof(*f), cmp_sym);
	if (!w) {
		free(f);
		*funcs = NULL;
	}
	return w;
}
