/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <elf.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/mman.h>
#include <perf/event.h>
#include <string.h>

#include "prof/perfdata/build_id.h"
#include "prof/base/util.h"

int build_id__from_notes(const uint8_t *notes, size_t len, size_t align, struct build_id *ret)
{
	size_t off = 0;

	while (len - off >= 12) {
		uint32_t namesz, descsz, type;
		size_t name_off = off + 12, desc_off;

		memcpy(&namesz, notes + off, 4);
		memcpy(&descsz, notes + off + 4, 4);
		memcpy(&type, notes + off + 8, 4);
		/* sizes are checked before they are added: no overflow */
		if (namesz > len - name_off || ALIGN_UP((size_t)namesz, align) > len - name_off)
			return -EINVAL;
		desc_off = name_off + ALIGN_UP((size_t)namesz, align);
		if (descsz > len - desc_off)
			return -EINVAL;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(notes + name_off, "GNU", 4)) {
			if (descsz == 0 || descsz > BUILD_ID_MAX)
				return -EINVAL;
			memset(ret, 0, sizeof(*ret));
			memcpy(ret->data, notes + desc_off, descsz);
			ret->size = (uint8_t)descsz;
			return 0;
		}
		if (ALIGN_UP((size_t)descsz, align) > len - desc_off)
			return -ENOENT;         /* the last note, unpadded */
		off = desc_off + ALIGN_UP((size_t)descsz, align);
	}
	return -ENOENT;
}

static int pread_exact(int fd, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (uint8_t *)buf + done, len - done, (off_t)(off + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EINVAL;         /* shorter than its headers say */
		done += (size_t)n;
	}
	return 0;
}

/* One note segment (offset, size, alignment as the program header gives them). */
static int segment_build_id(int fd, uint64_t off, uint64_t size, uint64_t align, struct build_id *ret)
{
	uint8_t buf[BUILD_ID_MAX_NOTES];
	size_t len = (size_t)MIN(size, (uint64_t)sizeof(buf));
	int r;

	if (off > INT64_MAX || len == 0)
		return -ENOENT;
	r = pread_exact(fd, buf, len, off);
	if (r < 0)
		return r;
	r = build_id__from_notes(buf, len, align == 8 ? 8 : 4, ret);
	return r == -EINVAL ? -ENOENT : r;      /* a bad segment: try the next */
}

/*
 * The SHT_NOTE sections' build id, as perf finds it (elf_read_build_id): Go's own
 * linker (-ldflags=-B) writes .note.gnu.build-id outside any PT_NOTE segment.  At
 * most BUILD_ID_MAX_SHDRS section headers are read.
 */
#define BUILD_ID_MAX_SHDRS 256
static int sections_build_id(int fd, uint64_t shoff, unsigned shnum, unsigned shentsize, bool is64,
			     struct build_id *ret)
{
	if (!shoff || shnum > BUILD_ID_MAX_SHDRS || shentsize != (is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr)))
		return -ENOENT;
	for (unsigned i = 1; i < shnum; i++) {
		union {
			Elf32_Shdr s32;
			Elf64_Shdr s64;
		} sh;
		int r = pread_exact(fd, &sh, shentsize, shoff + (uint64_t)i * shentsize);

		if (r < 0)
			return -ENOENT;
		if ((is64 ? sh.s64.sh_type : sh.s32.sh_type) != SHT_NOTE)
			continue;
		r = is64 ? segment_build_id(fd, sh.s64.sh_offset, sh.s64.sh_size, sh.s64.sh_addralign, ret)
			 : segment_build_id(fd, sh.s32.sh_offset, sh.s32.sh_size, sh.s32.sh_addralign, ret);
		if (r != -ENOENT)
			return r;
	}
	return -ENOENT;
}

#define READ_PHDRS(Ehdr, Phdr)                                                             \
	do {                                                                               \
		const Ehdr *eh = (const void *)&hdr;                                      \
		Phdr ph[BUILD_ID_MAX_PHDRS];                                               \
		if (eh->e_phentsize != sizeof(Phdr) || eh->e_phnum == 0 ||                 \
		    eh->e_phnum > BUILD_ID_MAX_PHDRS)                                      \
			return -EINVAL;                                                    \
		r = pread_exact(fd, ph, eh->e_phnum * sizeof(Phdr), eh->e_phoff);          \
		if (r < 0)                                                                 \
			return r;                                                          \
		for (size_t i = 0; i < eh->e_phnum; i++) {                                 \
			if (ph[i].p_type != PT_NOTE)                                       \
				continue;                                                  \
			r = segment_build_id(fd, ph[i].p_offset, ph[i].p_filesz, ph[i].p_align, ret); \
			if (r != -ENOENT)                                                  \
				return r;                                                  \
		}                                                                          \
		return sections_build_id(fd, eh->e_shoff, eh->e_shnum, eh->e_shentsize,    \
					 sizeof(Phdr) == sizeof(Elf64_Phdr), ret);         \
	} while (0)

int build_id__read_elf(int fd, struct build_id *ret)
{
	union {
		Elf32_Ehdr e32;
		Elf64_Ehdr e64;
	} hdr;
	const uint8_t *ident = hdr.e64.e_ident;
	int r = pread_exact(fd, &hdr, sizeof(Elf32_Ehdr), 0);
	const uint8_t native = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;

	if (r < 0)
		return r;
	if (memcmp(ident, ELFMAG, SELFMAG) || ident[EI_DATA] != native)
		return -EINVAL;
	if (ident[EI_CLASS] == ELFCLASS32)
		READ_PHDRS(Elf32_Ehdr, Elf32_Phdr);
	if (ident[EI_CLASS] != ELFCLASS64)
		return -EINVAL;
	r = pread_exact(fd, &hdr, sizeof(Elf64_Ehdr), 0);
	if (r < 0)
		return r;
	READ_PHDRS(Elf64_Ehdr, Elf64_Phdr);
}

/* Does [off, off + len) lie within a file of size bytes? */
static bool within(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

/*
 * The headers of an ELF file of size bytes, checked against it: program and section
 * header tables of the class's entry size inside the file, and every PT_LOAD and
 * PT_NOTE segment's bytes too (a truncated file, or notes pointing past its end).
 */
#define CHECK_ELF(Ehdr, Phdr, Shdr)                                                         \
	do {                                                                                \
		const Ehdr *eh = (const void *)&hdr;                                       \
		Phdr ph[BUILD_ID_MAX_PHDRS];                                                \
		if (eh->e_ehsize != sizeof(Ehdr) || eh->e_phentsize != sizeof(Phdr) ||      \
		    eh->e_phnum == 0 || eh->e_phnum > BUILD_ID_MAX_PHDRS ||                 \
		    !within(eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Phdr), size))      \
			return -EINVAL;                                                     \
		if (eh->e_shoff && (eh->e_shentsize != sizeof(Shdr) || eh->e_shnum == 0 ||  \
				    eh->e_shnum >= SHN_LORESERVE ||                         \
				    !within(eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Shdr), size))) \
			return -EINVAL;                                                     \
		r = pread_exact(fd, ph, eh->e_phnum * sizeof(Phdr), eh->e_phoff);           \
		if (r < 0)                                                                  \
			return r;                                                           \
		for (size_t i = 0; i < eh->e_phnum; i++)                                    \
			if ((ph[i].p_type == PT_LOAD || ph[i].p_type == PT_NOTE) &&        \
			    !within(ph[i].p_offset, ph[i].p_filesz, size))                  \
				return -EINVAL;                                             \
		return 0;                                                                   \
	} while (0)

int build_id__check_elf(int fd, uint64_t size)
{
	union {
		Elf32_Ehdr e32;
		Elf64_Ehdr e64;
	} hdr;
	const uint8_t *ident = hdr.e64.e_ident;
	const uint8_t native = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;
	int r = size < sizeof(Elf64_Ehdr) ? -ENOEXEC : pread_exact(fd, &hdr, sizeof(hdr), 0);

	if (r < 0)
		return r == -EINVAL ? -ENOEXEC : r;
	if (memcmp(ident, ELFMAG, SELFMAG))
		return -ENOEXEC;
	if (ident[EI_DATA] != native || ident[EI_VERSION] != EV_CURRENT)
		return -EINVAL;
	if (ident[EI_CLASS] == ELFCLASS32)
		CHECK_ELF(Elf32_Ehdr, Elf32_Phdr, Elf32_Shdr);
	if (ident[EI_CLASS] != ELFCLASS64)
		return -EINVAL;
	CHECK_ELF(Elf64_Ehdr, Elf64_Phdr, Elf64_Shdr);
}

void build_id__hex(const struct build_id *b, char *hex, size_t hexlen)
{
	if (hexlen < 2u * b->size + 1) {
		if (hexlen)
			hex[0] = '\0';
		return;
	}
	for (size_t i = 0; i < b->size; i++)
		snprintf(hex + 2 * i, 3, "%02x", b->data[i]);
	hex[2 * b->size] = '\0';
}

size_t build_id__mmap2_path(const struct perf_event_header *ev)
{
	const struct perf_record_mmap2 *m = (const void *)ev;
	size_t max, len;

	if (ev->type != PERF_RECORD_MMAP2 || ev->size <= offsetof(struct perf_record_mmap2, filename))
		return 0;
	/* "//anon" (and perf's other "//" names): anonymous memory, no file */
	if (!(m->prot & PROT_EXEC) || m->filename[0] != '/' || m->filename[1] == '/')
		return 0;
	max = ev->size - offsetof(struct perf_record_mmap2, filename);
	len = strnlen(m->filename, max);
	if (len == max || !strncmp(m->filename, "/memfd:", 7))
		return 0;       /* unterminated, or no file of a path */
	return len;
}

size_t build_id__kernel_record(const struct build_id *b, void *buf)
{
	struct perf_record_header_build_id e = { 0 };
	static const char name[] = "[kernel.kallsyms]";

	_Static_assert(sizeof(e) + 64 + 4 == BUILD_ID_KERNEL_RECORD_SIZE, "the record's layout");
	memcpy(e.data, b->data, b->size);
	e.size = b->size;
	e.pid = -1;                     /* perf's HOST_KERNEL_ID */
	e.header.type = PERF_RECORD_HEADER_BUILD_ID;
	e.header.misc = PERF_RECORD_MISC_KERNEL | PERF_RECORD_MISC_BUILD_ID_SIZE;
	/* the name padded as perf pads it (PERF_NAME_ALIGN), then to 8 bytes so that the
	 * kernel's records after it stay aligned */
	e.header.size = BUILD_ID_KERNEL_RECORD_SIZE;
	memset(buf, 0, BUILD_ID_KERNEL_RECORD_SIZE);
	memcpy(buf, &e, sizeof(e));
	memcpy((char *)buf + sizeof(e), name, sizeof(name));
	return BUILD_ID_KERNEL_RECORD_SIZE;
}
