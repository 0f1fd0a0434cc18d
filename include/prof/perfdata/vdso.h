/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The vDSO as perf names it.  The kernel maps one image into every 64-bit task
 * ("[vdso]" in MMAP2 records); perf record copies its own (the same image: one
 * kernel) into the build-id cache as DIR/[vdso]/<build id>/vdso and names it
 * "[vdso]" in HEADER_BUILD_ID, and perf report finds it there by build id
 * (tools/perf/util/vdso.c, build-id.c).  prof does the same.
 *
 * 32-bit and x32 tasks have other images ([vdso32], [vdsox32] to perf), also named
 * "[vdso]" by the kernel.  A task's vDSO mapped wholly below 4 GiB may be one of
 * those (a 32-bit task has no address above): it is never named with the 64-bit
 * image's symbols.  Above 4 GiB it can only be a 64-bit task's.
 */
#ifndef PROF_PERFDATA_VDSO_H
#define PROF_PERFDATA_VDSO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/perfdata/build_id.h"

#define VDSO_NAME "[vdso]"

/* Whether an object's name is the vDSO's. */
bool vdso__is_name(const char *name);

/* Whether a [vdso] mapping [start, end) is a 64-bit task's (the image prof has). */
bool vdso__native_map(uint64_t start, uint64_t end);

/*
 * The size of the "[vdso]" mapping at base in maps, the text of /proc/self/maps.
 * 0 when there is none.
 */
uint64_t vdso__maps_size(const char *maps, uint64_t base);

/* This process's vDSO image, copied out. */
struct vdso_image {
	int fd;                         /* a sealed memfd with the image; the caller's */
	uint64_t size;
	struct build_id bid;
};

/*
 * The running kernel's 64-bit vDSO image, as this process has it mapped.  0, or
 * -ENOENT (no vDSO, or one without a build id), -errno of memfd_create/write.
 */
int vdso__own(struct vdso_image *ret);

#endif
