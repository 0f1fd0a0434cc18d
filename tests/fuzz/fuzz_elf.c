/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: the ELF checks prof applies to an object a task mapped before
 * anything else reads it (a container's file is its tenant's, so hostile by
 * assumption): build_id__check_elf, then build_id__read_elf as prof calls them,
 * and the note parser on the raw bytes.  The input is the file, in a memfd.
 * Built and run by tests/fuzz/run; seeded with /bin/true and its truncations.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "prof/perfdata/build_id.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	struct build_id b;

	if (fd < 0 && (fd = memfd_create("fuzz-elf", MFD_CLOEXEC)) < 0)
		abort();
	if (ftruncate(fd, 0) < 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		abort();
	/* what prof does with a mapped object: check, and only then read */
	if (build_id__check_elf(fd, size) == 0)
		(void)build_id__read_elf(fd, &b);
	/* and what it must survive regardless */
	(void)build_id__read_elf(fd, &b);
	(void)build_id__from_notes(data, size, 4, &b);
	(void)build_id__from_notes(data, size, 8, &b);
	return 0;
}
