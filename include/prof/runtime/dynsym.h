/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The exported symbols of a mapped object, as a runtime finds itself by them: CPython
 * by _PyEval_EvalFrameDefault, _PyRuntime, PyCode_Type and Py_Version, HotSpot by its
 * gHotSpotVM* self-description, V8 by its v8dbg_* metadata.  The object is opened by
 * the caller the way its task reaches it (its root, map_files: task_file.h), so that a
 * process in a container is read as its own files; this reads the open file only.
 */
#ifndef PROF_RUNTIME_DYNSYM_H
#define PROF_RUNTIME_DYNSYM_H

#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdint.h>

#include "prof/sys/procfs.h"

/* elf_begin on fd for an ELF file (elf_end it), or NULL. */
Elf *dynsym__elf(int fd);

/* Called for each symbol that elf's .dynsym defines (undefined ones passed over). */
typedef void (*dynsym_fn)(void *ctx, const char *name, const GElf_Sym *sym);
void dynsym__each(Elf *elf, dynsym_fn fn, void *ctx);

/* The file offset of [a, a + len) of elf (inside a PT_LOAD's file bytes), or -1:
 * where a constant the object exports (a version word) is read from the file. */
int64_t dynsym__file_offset(Elf *elf, uint64_t a, size_t len);

/*
 * Called for each executable mapping with a path in a process's maps text: the
 * mapping, its path (NUL-terminated), and whether the process shares prof's mount
 * namespace (its objects then opened from prof's root first: task_file.h).  -ENOENT
 * goes on to the next mapping; anything else ends the walk with it.
 */
typedef int (*dynsym_map_fn)(void *ctx, const struct proc_map *m, const char *path, bool same_ns);
/* The object of mapping m of pid (path NUL-terminated), opened as its task reaches
 * it (from prof's root first when same_ns, else map_files or the task's root): an fd
 * or -errno. */
int dynsym__open_map(int32_t pid, const struct proc_map *m, const char *path, bool same_ns);

/* The walk of pid's maps text (what a runtime finds itself by): fn's first answer
 * other than -ENOENT, else -ENOENT. */
int dynsym__each_exec_map(int32_t pid, const char *maps, dynsym_map_fn fn, void *ctx);

#endif
