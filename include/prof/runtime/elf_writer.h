/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The object that names a recording's frames of one runtime (Python's, the JVM's) for
 * every reader, as a JIT's does: an ELF shared object whose .text holds one byte per
 * location (a function, or a fixed marker), with a symbol of that name over it, and a
 * GNU build id.
 * Samples point into it at RUNTIME_ELF_TEXT + index; an MMAP2 maps it (offset
 * RUNTIME_ELF_TEXT) at a range no real mapping can use (python.h, jvm/frames.h), and it is kept in
 * perf's build-id cache, where perf report, perf script, prof report and hotspot
 * find it.  Its first PT_LOAD is its headers at 0, as a linker lays a shared object
 * out: hotspot's libdwfl places a module by its first PT_LOAD (elf_writer.c).
 */
#ifndef PROF_RUNTIME_ELF_WRITER_H
#define PROF_RUNTIME_ELF_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "prof/perfdata/build_id.h"

/* The file offset and address of the first symbol's byte. */
#define RUNTIME_ELF_TEXT 0x1000u

/*
 * Write the object to fd (at offset 0, an empty file): nr symbols, names[i] at
 * RUNTIME_ELF_TEXT + i, build id b.  0 or -errno (-EFBIG when too many).
 */
int runtime_elf__write(int fd, const struct build_id *b, const char *const *names, size_t nr);

#endif
