/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * GNU build ids (NT_GNU_BUILD_ID notes): from a notes blob (/sys/kernel/notes, a
 * PT_NOTE segment) and from an open ELF file.  The file reader trusts nothing in
 * it: it reads the ELF header, at most BUILD_ID_MAX_PHDRS program headers and at
 * most BUILD_ID_MAX_NOTES bytes of each note segment, with pread, so a hostile or
 * huge file costs a few small reads.
 */
#ifndef PROF_PERFDATA_BUILD_ID_H
#define PROF_PERFDATA_BUILD_ID_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#define BUILD_ID_MAX 20                 /* what perf.data's build id records hold */
#define BUILD_ID_MAX_PHDRS 256
#define BUILD_ID_MAX_NOTES 16384

struct build_id {
	uint8_t data[BUILD_ID_MAX];
	uint8_t size;                   /* 0: none */
};

/*
 * The first GNU build id note in notes[0..len), whose entries are padded to align
 * (4, or 8 for 8-aligned note segments).  0, -ENOENT when there is none, -EINVAL
 * for a malformed blob or a build id longer than BUILD_ID_MAX.  *ret untouched on
 * failure.
 */
int build_id__from_notes(const uint8_t *notes, size_t len, size_t align, struct build_id *ret);

/*
 * The build id of the ELF file open on fd (any offset; pread is used), from its
 * note segments.  0, -ENOENT (no build id), -EINVAL (not an ELF file of this
 * machine's byte order, or malformed), or -errno from pread.
 */
int build_id__read_elf(int fd, struct build_id *ret);

/*
 * Check the ELF file open on fd, size bytes long, before anything else reads it
 * (libelf, a copy into the build-id cache): its header, program headers (at most
 * BUILD_ID_MAX_PHDRS) and section header table inside the file and of this machine's
 * byte order, and the bytes of its loadable and note segments too.  0, -ENOEXEC (no
 * ELF file), -EINVAL (malformed: truncated, absurd counts, segments past its end),
 * or -errno from pread.
 */
int build_id__check_elf(int fd, uint64_t size);

/*
 * The path's length of an MMAP2 of an executable file (a deleted file's " (deleted)"
 * path included), else 0: data, [vdso], //anon, memfd, an unterminated path.
 */
size_t build_id__mmap2_path(const struct perf_event_header *ev);

/*
 * A PERF_RECORD_HEADER_BUILD_ID naming b the host kernel's ([kernel.kallsyms], pid
 * -1), as perf writes them into a pipe.  Written into the data right after the
 * kernel's map, it names the kernel in a file whose features were never written (a
 * recording killed before its end); perf report and prof report read it there.
 * buf holds BUILD_ID_KERNEL_RECORD_SIZE bytes; the record's size is returned.
 */
#define BUILD_ID_KERNEL_RECORD_SIZE 104 /* 36, the name padded to 64, to a multiple of 8 */
size_t build_id__kernel_record(const struct build_id *b, void *buf);

/* Lower-case hex, NUL-terminated; hexlen must hold 2 * size + 1 (else ""). */
void build_id__hex(const struct build_id *b, char *hex, size_t hexlen);

#endif
