/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Go's .gopclntab: see include/prof/analyze/gopclntab.h.  The layout follows Go's
 * debug/gosym (pclntab.go) and runtime/symtab.go: a header, the function name
 * table, the compilation units' file indexes, the file names, the pc-value tables,
 * and the function table, pairs (entry, offset of its _func) then the end pc.
 * Little-endian only (amd64, arm64, 386, arm): a big-endian table's magic does not
 * match and it is not used.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prof/analyze/gopclntab.h"

struct gopclntab {
	const uint8_t *b;
	size_t len;
	uint32_t magic;
	uint8_t quantum, ptrsize;
	uint8_t field;                  /* bytes of a function table field: 4 from 1.18 */
	uint64_t nfunc;
	uint64_t text_start;            /* 1.18+: function entries are offsets from it */
	size_t funcname, funcname_end;  /* the name table (1.2: the whole table) */
	size_t cu, filetab, filetab_end, pctab, functab;
	size_t funcdata;                /* what a _func offset is relative to */
	uint32_t nfiletab;              /* 1.2: the file table's entries */
	/* the read-only segment holding the inline trees (ro NULL: not known); 1.18+:
	 * go:func.*, which their offsets (FUNCDATA_InlTree) are relative to; 1.16-1.17:
	 * 0, their funcdata being addresses */
	const uint8_t *ro;
	size_t ro_len;
	uint64_t ro_vaddr, gofunc;
	uint64_t va;                    /* the table's address, where ro is known */
};

/* The _func of Go 1.18-1.19 and 1.20+ (startLine added): its fixed fields' size,
 * its last byte nfuncdata, then pcdata and funcdata (u32 each). */
#define FUNC118_SIZE 40
#define FUNC120_SIZE 44
/* 1.16-1.17: the entry is a pointer (8 bytes here), cuOffset follows npcdata; its
 * funcdata are pointers, 8-aligned */
#define FUNC116_SIZE 44
#define PCDATA_INLTREEINDEX 2
#define FUNCDATA_INLTREE 3
/* runtime.inlinedCall: 1.18-1.19 {parent int16, funcID, _, file, line, func_ (the
 * name), parentPc}; 1.20+ {funcID, _[3], nameOff, parentPc, startLine}: the parent
 * is the inline tree index at the function's entry + parentPc */
#define INLINED_CALL118_SIZE 20
#define INLINED_CALL120_SIZE 16
/* moduledata's words (pointer-sized): 1.20 added covctrs and ecovctrs before end */
#define MD_RODATA118 37
#define MD_GOFUNC118 38
#define MD_RODATA120 39
#define MD_GOFUNC120 40

static bool rd32(const struct gopclntab *t, size_t off, uint32_t *ret)
{
	if (off > t->len || t->len - off < 4)
		return false;
	*ret = (uint32_t)t->b[off] | (uint32_t)t->b[off + 1] << 8 | (uint32_t)t->b[off + 2] << 16 |
	       (uint32_t)t->b[off + 3] << 24;
	return true;
}

static bool rdword(const struct gopclntab *t, size_t off, unsigned size, uint64_t *ret)
{
	uint32_t lo, hi = 0;

	if (!rd32(t, off, &lo) || (size == 8 && !rd32(t, off + 4, &hi)))
		return false;
	*ret = (uint64_t)hi << 32 | lo;
	return true;
}

/* A NUL-terminated string at off inside [off, end). */
static const char *str_at(const struct gopclntab *t, size_t off, size_t end)
{
	end = end < t->len ? end : t->len;
	if (off >= end || !memchr(t->b + off, 0, end - off))
		return NULL;
	return (const char *)t->b + off;
}

/* Function i's entry pc (i == nfunc: the end of the last one). */
static bool entry_of(const struct gopclntab *t, uint64_t i, uint64_t *ret)
{
	uint64_t v;

	if (!rdword(t, t->functab + i * 2 * t->field, t->field, &v))
		return false;
	*ret = t->field == 4 ? t->text_start + v : v;
	return true;
}

/* The offset in the bytes of function i's _func. */
static bool func_of(const struct gopclntab *t, uint64_t i, size_t *ret)
{
	uint64_t v;

	if (i >= t->nfunc || !rdword(t, t->functab + i * 2 * t->field + t->field, t->field, &v) ||
	    v > t->len - t->funcdata)
		return false;
	*ret = t->funcdata + v;
	return true;
}

/* Field n (1: nameoff, 5: pcfile, 6: pcln, 8: cuOffset) of the _func at f. */
static bool field_of(const struct gopclntab *t, size_t f, unsigned n, uint32_t *ret)
{
	unsigned first = t->magic == GOPCLNTAB_MAGIC_118 || t->magic == GOPCLNTAB_MAGIC_120 ? 4 : t->ptrsize;

	return rd32(t, f + first + (n - 1) * 4, ret);
}

static const char *name_of(const struct gopclntab *t, size_t f)
{
	uint32_t off;

	if (!field_of(t, f, 1, &off) || (int32_t)off < 0)
		return NULL;
	return str_at(t, t->funcname + off, t->funcname_end);
}

/* The header's words after magic, pad, quantum and pointer size. */
static int parse_header(struct gopclntab *t, uint64_t text_start_hint)
{
	unsigned p = t->ptrsize;
	uint64_t w[8] = { 0 };
	int nw = t->magic == GOPCLNTAB_MAGIC_12 ? 1 : t->magic == GOPCLNTAB_MAGIC_116 ? 7 : 8;
	uint32_t fileoff;

	for (int i = 0; i < nw; i++)
		if (!rdword(t, 8 + (size_t)i * p, p, &w[i]))
			return -EINVAL;
	t->nfunc = w[0];
	t->field = nw == 8 ? 4 : p;
	if (nw == 1) {
		/* 1.2: offsets from the start of the table; the file table's follows the
		 * function table's end pc */
		t->functab = 8 + p;
		if (t->nfunc > t->len / (2 * p) || !rd32(t, t->functab + (2 * t->nfunc + 1) * p, &fileoff))
			return -EINVAL;
		t->funcname_end = t->filetab_end = t->len;
		t->filetab = fileoff;
		if (!rd32(t, t->filetab, &t->nfiletab))
			return -EINVAL;
		return 0;
	}
	if (nw == 8) {
		t->text_start = w[2] ? w[2] : text_start_hint;
		if (!t->text_start)
			return -EINVAL;
	}
	t->funcname = w[nw - 5];
	t->cu = w[nw - 4];
	t->filetab = w[nw - 3];
	t->pctab = w[nw - 2];
	t->functab = t->funcdata = w[nw - 1];
	/* the sub-tables in the order Go's linker writes them, inside the bytes */
	if (t->funcname < 8 + (size_t)nw * p || t->cu < t->funcname || t->filetab < t->cu ||
	    t->pctab < t->filetab || t->functab < t->pctab || t->functab >= t->len)
		return -EINVAL;
	t->funcname_end = t->cu;
	t->filetab_end = t->pctab;
	return 0;
}

/* Every function checks out: ascending entries inside the text, each _func inside
 * the bytes with its slot's entry and a name. */
static int check_funcs(const struct gopclntab *t, uint64_t text_lo, uint64_t text_hi)
{
	uint64_t prev = text_lo, e, fe;
	uint32_t fe32;
	size_t f;

	if (!t->nfunc || t->nfunc > (t->len - t->functab) / (2 * t->field))
		return -EINVAL;
	/* 1.16+: the first _func follows the function table, pointer-aligned: a count
	 * that is off (more or fewer) does not fit it */
	if (t->magic != GOPCLNTAB_MAGIC_12) {
		uint64_t size = (2 * t->nfunc + 1) * t->field, first;

		if (!rdword(t, t->functab + t->field, t->field, &first) || first < size ||
		    first > (size + t->ptrsize - 1) / t->ptrsize * t->ptrsize)
			return -EINVAL;
	}
	for (uint64_t i = 0; i <= t->nfunc; i++) {
		if (!entry_of(t, i, &e) || e < prev || e > text_hi || (i < t->nfunc && e == text_hi))
			return -EINVAL;
		prev = e;
		if (i == t->nfunc)
			break;
		if (!func_of(t, i, &f) || !name_of(t, f))
			return -EINVAL;
		if (t->field == 4) {
			if (!rd32(t, f, &fe32) || t->text_start + fe32 != e)
				return -EINVAL;
		} else if (!rdword(t, f, t->ptrsize, &fe) || fe != e) {
			return -EINVAL;
		}
	}
	return 0;
}

int gopclntab__parse(const uint8_t *buf, size_t len, uint64_t text_lo, uint64_t text_hi, uint64_t text_start_hint,
		     struct gopclntab **ret)
{
	struct gopclntab t = { .b = buf, .len = len };
	struct gopclntab *n;

	if (len < 16 || !rd32(&t, 0, &t.magic) || buf[4] || buf[5] || text_lo >= text_hi)
		return -EINVAL;
	if (t.magic != GOPCLNTAB_MAGIC_12 && t.magic != GOPCLNTAB_MAGIC_116 && t.magic != GOPCLNTAB_MAGIC_118 &&
	    t.magic != GOPCLNTAB_MAGIC_120)
		return -EINVAL;
	t.quantum = buf[6];
	t.ptrsize = buf[7];
	if ((t.quantum != 1 && t.quantum != 2 && t.quantum != 4) || (t.ptrsize != 4 && t.ptrsize != 8))
		return -EINVAL;
	if (parse_header(&t, text_start_hint) < 0)
		return -EINVAL;
	if (t.field == 4 && (t.text_start < text_lo || t.text_start >= text_hi))
		return -EINVAL;
	if (check_funcs(&t, text_lo, text_hi) < 0)
		return -EINVAL;
	n = malloc(sizeof(*n));
	if (!n)
		return -ENOMEM;
	*n = t;
	*ret = n;
	return 0;
}

struct gopclntab *gopclntab__free(struct gopclntab *t)
{
	free(t);
	return NULL;
}

uint32_t gopclntab__magic(const struct gopclntab *t)
{
	return t->magic;
}

size_t gopclntab__count(const struct gopclntab *t)
{
	return (size_t)t->nfunc;
}

bool gopclntab__func(const struct gopclntab *t, size_t i, uint64_t *ret_start, uint64_t *ret_end,
		     const char **ret_name)
{
	uint64_t s, e;
	const char *name;
	size_t f;

	if (i >= t->nfunc || !entry_of(t, i, &s) || !entry_of(t, i + 1, &e) || !func_of(t, i, &f) ||
	    !(name = name_of(t, f)))
		return false;
	*ret_start = s;
	*ret_end = e;
	*ret_name = name;
	return true;
}

size_t gopclntab__find(const struct gopclntab *t, uint64_t pc)
{
	uint64_t lo = 0, hi = t->nfunc, e;

	if (!entry_of(t, 0, &e) || pc < e || !entry_of(t, t->nfunc, &e) || pc >= e)
		return SIZE_MAX;
	/* the last function whose entry is <= pc (entries were checked ascending) */
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (!entry_of(t, mid, &e))
			return SIZE_MAX;
		if (e <= pc)
			lo = mid;
		else
			hi = mid;
	}
	return (size_t)lo;
}

static bool varint(const struct gopclntab *t, size_t *p, uint32_t *ret)
{
	uint32_t v = 0;

	for (unsigned shift = 0; shift < 35; shift += 7) {
		uint8_t b;

		if (*p >= t->len)
			return false;
		b = t->b[(*p)++];
		v |= (uint32_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*ret = v;
			return true;
		}
	}
	return false;
}

/* The value of the pc-value table at off for pc, in the function [entry, end). */
static bool pcvalue(const struct gopclntab *t, uint32_t off, uint64_t entry, uint64_t end, uint64_t pc,
		    int32_t *ret)
{
	size_t p = t->pctab + off;
	uint64_t at = entry;
	int32_t val = -1;
	bool first = true;

	if (off == 0 || p < t->pctab || p >= t->len)
		return false;
	/* each step reads two bytes at least: bounded by the table's length */
	while (at < end) {
		uint32_t uv, pcd;

		if (!varint(t, &p, &uv) || (uv == 0 && !first) || !varint(t, &p, &pcd))
			return false;
		first = false;
		/* wrapping, as Go's int32 does: hostile deltas are no undefined behaviour */
		val = (int32_t)((uint32_t)val + (uv & 1 ? ~(uv >> 1) : uv >> 1));
		at += (uint64_t)pcd * t->quantum;
		if (pc < at)
			break;
	}
	if (pc >= at)
		return false;
	*ret = val;
	return true;
}

static const char *file_of(const struct gopclntab *t, size_t f, int32_t fno)
{
	uint32_t off, cuoff;

	if (fno < 0)
		return NULL;
	if (t->magic == GOPCLNTAB_MAGIC_12) {
		if (fno == 0 || (uint32_t)fno >= t->nfiletab || !rd32(t, t->filetab + 4 * (size_t)fno, &off))
			return NULL;
		return str_at(t, off, t->len);
	}
	if (!field_of(t, f, 8, &cuoff) || !rd32(t, t->cu + 4 * ((size_t)cuoff + (size_t)fno), &off) ||
	    t->cu + 4 * ((size_t)cuoff + (size_t)fno) >= t->filetab || off == UINT32_MAX)
		return NULL;
	return str_at(t, t->filetab + off, t->filetab_end);
}

bool gopclntab__line(const struct gopclntab *t, uint64_t pc, const char **ret_file, int32_t *ret_line)
{
	size_t i = gopclntab__find(t, pc), f;
	uint32_t pcfile, pcln;
	uint64_t s, e;
	int32_t fno, line;
	const char *file;

	if (i == SIZE_MAX || !entry_of(t, i, &s) || !entry_of(t, i + 1, &e) || !func_of(t, i, &f) ||
	    !field_of(t, f, 5, &pcfile) || !field_of(t, f, 6, &pcln) || !pcvalue(t, pcln, s, e, pc, &line) ||
	    line < 0 || !pcvalue(t, pcfile, s, e, pc, &fno) || !(file = file_of(t, f, fno)))
		return false;
	*ret_file = file;
	*ret_line = line;
	return true;
}

/* The hull of the executable PT_LOAD segments, and the rest of the loads. */
static bool text_bounds(Elf *elf, uint64_t *ret_lo, uint64_t *ret_hi)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	size_t phnum;

	if (elf_getphdrnum(elf, &phnum) < 0)
		return false;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		lo = ph.p_vaddr < lo ? ph.p_vaddr : lo;
		hi = ph.p_vaddr + ph.p_memsz > hi ? ph.p_vaddr + ph.p_memsz : hi;
	}
	*ret_lo = lo;
	*ret_hi = hi;
	return lo < hi;
}

/* The .gopclntab section's file bytes, and the .text address. */
static bool by_section(Elf *elf, size_t size, uint64_t *ret_off, uint64_t *ret_len, uint64_t *ret_text)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	bool found = false;

	*ret_text = 0;
	if (elf_getshdrstrndx(elf, &shstrndx) < 0)
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (!strcmp(name, ".text"))
			*ret_text = sh.sh_addr;
		/* a position-independent build's is in its RELRO data */
		if ((!strcmp(name, ".gopclntab") || !strcmp(name, ".data.rel.ro.gopclntab")) &&
		    sh.sh_type != SHT_NOBITS && sh.sh_offset <= size &&
		    sh.sh_size <= size - sh.sh_offset) {
			*ret_off = sh.sh_offset;
			*ret_len = sh.sh_size;
			found = true;
		}
	}
	return found;
}

/* The first offset in a load that is not code (read-only data; a position-
 * independent build's RELRO data) whose bytes are a table that checks out. */
static int by_scan(Elf *elf, const uint8_t *img, size_t size, uint64_t lo, uint64_t hi, struct gopclntab **ret)
{
	size_t phnum;

	if (elf_getphdrnum(elf, &phnum) < 0)
		return -ENOENT;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || (ph.p_flags & PF_X) ||
		    ph.p_offset > size || ph.p_filesz > size - ph.p_offset)
			continue;
		/* Go's linker aligns the table (to 32 bytes): a magic at 4-byte steps */
		for (uint64_t off = ph.p_offset; off + 16 <= ph.p_offset + ph.p_filesz; off += 4) {
			const uint8_t *p = img + off;
			int err;

			if (p[3] != 0xff || p[2] != 0xff || p[1] != 0xff || (p[0] & 0xf0) != 0xf0 || p[4] || p[5])
				continue;
			err = gopclntab__parse(p, (size_t)(ph.p_offset + ph.p_filesz - off), lo, hi, 0, ret);
			if (err != -EINVAL)
				return err;
		}
	}
	return -ENOENT;
}

static void find_gofunc(Elf *elf, const uint8_t *img, size_t size, struct gopclntab *t);

int gopclntab__from_elf(Elf *elf, struct gopclntab **ret)
{
	uint64_t lo, hi, off, len, text;
	size_t size, shnum;
	const uint8_t *img = (const uint8_t *)elf_rawfile(elf, &size);
	int err;

	if (!img || elf_kind(elf) != ELF_K_ELF || !text_bounds(elf, &lo, &hi))
		return -ENOENT;
	if (by_section(elf, size, &off, &len, &text)) {
		err = gopclntab__parse(img + off, (size_t)len, lo, hi, text, ret);
		err = err == -EINVAL ? -ENOENT : err;
	} else if (elf_getshdrnum(elf, &shnum) < 0 || shnum > 0) {
		/* an object with section headers names its table, if it has one: only one
		 * stripped of them is scanned (not every stripped library's read-only data) */
		return -ENOENT;
	} else {
		err = by_scan(elf, img, size, lo, hi, ret);
	}
	if (err == 0)
		find_gofunc(elf, img, size, *ret);
	return err;
}

/* The u32 at virtual address va of the read-only segment given. */
static bool ro32(const struct gopclntab *t, uint64_t va, uint32_t *ret)
{
	const uint8_t *p;

	if (va < t->ro_vaddr || va - t->ro_vaddr > t->ro_len || t->ro_len - (va - t->ro_vaddr) < 4)
		return false;
	p = t->ro + (va - t->ro_vaddr);
	*ret = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	return true;
}

/* Function f's inline tree: the pc-value table of its tree indexes and the tree's
 * offset from go:func.*; false when it has none. */
static bool inl_tree(const struct gopclntab *t, size_t f, uint32_t *ret_inl_pc, uint64_t *ret_tree)
{
	bool v116 = t->magic == GOPCLNTAB_MAGIC_116;
	size_t fsize = v116 ? FUNC116_SIZE : t->magic == GOPCLNTAB_MAGIC_120 ? FUNC120_SIZE : FUNC118_SIZE, fd;
	uint32_t npcdata, tree;

	if (!field_of(t, f, 7, &npcdata) || npcdata <= PCDATA_INLTREEINDEX || f + fsize > t->len ||
	    t->b[f + fsize - 1] <= FUNCDATA_INLTREE || !rd32(t, f + fsize + 4 * PCDATA_INLTREEINDEX, ret_inl_pc))
		return false;
	fd = f + fsize + 4 * (size_t)npcdata;
	if (v116) {
		/* the runtime aligns the pointers by their address: the table's start
		 * is (Go's linker aligns it to 32 bytes) */
		fd += (t->va + fd) & 4;
		return rdword(t, fd + 8 * FUNCDATA_INLTREE, 8, ret_tree) && *ret_tree;
	}
	if (!rd32(t, fd + 4 * FUNCDATA_INLTREE, &tree) || tree == UINT32_MAX)
		return false;
	*ret_tree = tree;
	return true;
}

size_t gopclntab__inlined(const struct gopclntab *t, uint64_t pc, const char **ret, size_t max)
{
	bool v120 = t->magic == GOPCLNTAB_MAGIC_120;
	size_t i = gopclntab__find(t, pc), f, n = 0;
	uint32_t inl_pc;
	uint64_t s, e, tree;
	int32_t idx;

	if (!t->ro || i == SIZE_MAX || !entry_of(t, i, &s) || !entry_of(t, i + 1, &e) || !func_of(t, i, &f) ||
	    !inl_tree(t, f, &inl_pc, &tree) || !pcvalue(t, inl_pc, s, e, pc, &idx))
		return 0;
	/* innermost first: the call at idx, then its parents, while inside the tree's
	 * segment (a loop in hostile bytes ends at max or after 64 steps) */
	for (int step = 0; idx >= 0 && n < max && step < 64; step++) {
		uint64_t at = t->gofunc + tree + (uint64_t)(uint32_t)idx * (v120 ? INLINED_CALL120_SIZE : INLINED_CALL118_SIZE);
		uint32_t head, name_off, parent_pc;
		const char *name;

		if (!ro32(t, at, &head) || !ro32(t, at + (v120 ? 4 : 12), &name_off) || (int32_t)name_off < 0 ||
		    !(name = str_at(t, t->funcname + name_off, t->funcname_end)))
			return 0;       /* a chain cut short would name the wrong caller */
		ret[n++] = name;
		if (!v120) {
			idx = (int16_t)(head & 0xffff);
			continue;
		}
		/* 1.20+: the parent is whatever the tree says at the call's pc, which
		 * must lie inside the function (as the runtime's inlineUnwinder reads it) */
		if (!ro32(t, at + 8, &parent_pc) || (int32_t)parent_pc < 0 || s + parent_pc >= e ||
		    !pcvalue(t, inl_pc, s, e, s + parent_pc, &idx))
			return 0;
	}
	return idx < 0 ? n : 0;
}

/* The bytes and address of the PT_LOAD holding file offset off, or of address va. */
static bool load_of(Elf *elf, const uint8_t *img, size_t size, uint64_t off, uint64_t va, bool by_va, GElf_Phdr *ret)
{
	size_t phnum;

	if (elf_getphdrnum(elf, &phnum) < 0)
		return false;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || ph.p_offset > size ||
		    ph.p_filesz > size - ph.p_offset)
			continue;
		if (by_va ? va >= ph.p_vaddr && va - ph.p_vaddr < ph.p_filesz
			  : off >= ph.p_offset && off - ph.p_offset < ph.p_filesz) {
			*ret = ph;
			return img != NULL;
		}
	}
	return false;
}

/*
 * Go 1.18+: the runtime's moduledata (in a writable segment), found by its first
 * word, the table's address, and checked by more of its words (the name and
 * function tables' addresses, the text start, the first entry), gives go:func.*
 * (its word 38; from 1.20, 40), which must lie in a read-only segment at or after
 * the start of read-only data (the word before it).
 */
static void find_gofunc(Elf *elf, const uint8_t *img, size_t size, struct gopclntab *t)
{
	GElf_Phdr tab, ph, ro;
	uint64_t va, first;
	size_t phnum;

	bool v120 = t->magic == GOPCLNTAB_MAGIC_120;
	unsigned w_rodata = v120 ? MD_RODATA120 : MD_RODATA118, w_gofunc = v120 ? MD_GOFUNC120 : MD_GOFUNC118;

	if (t->ptrsize != 8 || !entry_of(t, 0, &first) ||
	    !load_of(elf, img, size, (uint64_t)(t->b - img), 0, false, &tab) || elf_getphdrnum(elf, &phnum) < 0)
		return;
	va = tab.p_vaddr + ((uint64_t)(t->b - img) - tab.p_offset);
	if (t->magic == GOPCLNTAB_MAGIC_116 && !(tab.p_flags & PF_W)) {
		/* 1.16-1.17: the trees are addresses, in the table's read-only segment */
		t->ro = img + tab.p_offset;
		t->ro_len = (size_t)tab.p_filesz;
		t->ro_vaddr = tab.p_vaddr;
		t->va = va;
		return;
	}
	if (t->magic != GOPCLNTAB_MAGIC_118 && !v120)
		return;
	for (size_t i = 0; i < phnum; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_W) ||
		    ph.p_offset > size || ph.p_filesz > size - ph.p_offset)
			continue;
		for (uint64_t o = ph.p_offset; o + 8 * (MD_GOFUNC120 + 1) <= ph.p_offset + ph.p_filesz; o += 8) {
			uint64_t md[MD_GOFUNC120 + 1];

			if (memcmp(img + o, &va, 8))
				continue;
			memcpy(md, img + o, sizeof(md));
			if (md[1] != va + t->funcname || md[16] != va + t->functab || md[22] != t->text_start ||
			    md[20] != first || !load_of(elf, img, size, 0, md[w_gofunc], true, &ro) ||
			    (ro.p_flags & PF_W) || md[w_rodata] > md[w_gofunc] || md[w_rodata] < ro.p_vaddr)
				continue;
			t->ro = img + ro.p_offset;
			t->ro_len = (size_t)ro.p_filesz;
			t->ro_vaddr = ro.p_vaddr;
			t->gofunc = md[w_gofunc];
			return;
		}
	}
}
