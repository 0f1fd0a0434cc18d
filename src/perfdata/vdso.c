/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "prof/base/util.h"
#include "prof/perfdata/vdso.h"

#define VDSO_MAX_SIZE (1u << 20)        /* a real one is a few pages */

bool vdso__is_name(const char *name)
{
	return !strcmp(name, VDSO_NAME);
}

bool vdso__native_map(uint64_t start, uint64_t end)
{
	return end > start && end - 1 >= (1ull << 32);
}

uint64_t vdso__maps_size(const char *maps, uint64_t base)
{
	for (const char *l = maps; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *eol = strchrnul(l, '\n');
		uint64_t start, end;
		int n = 0;

		if (sscanf(l, "%" SCNx64 "-%" SCNx64 "%n", &start, &end, &n) != 2 || !n || start != base ||
		    end <= start)
			continue;
		/* the name is the line's last field */
		if ((size_t)(eol - l) >= sizeof(VDSO_NAME) - 1 &&
		    !memcmp(eol - (sizeof(VDSO_NAME) - 1), VDSO_NAME, sizeof(VDSO_NAME) - 1))
			return end - start;
	}
	return 0;
}

int vdso__own(struct vdso_image *ret)
{
	uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	_cleanup_free_ char *maps = NULL;
	uint64_t size;
	ssize_t n;
	int fd, err;

	if (!base)
		return -ENOENT;
	n = read_file_full(AT_FDCWD, "/proc/self/maps", 1u << 20, &maps);
	if (n < 0)
		return (int)n;
	size = vdso__maps_size(maps, base);
	if (!size || size > VDSO_MAX_SIZE)
		return -ENOENT;
	fd = memfd_create("prof-vdso", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	err = pwrite(fd, (const void *)base, size, 0) == (ssize_t)size ? 0 : -EIO;
	if (!err && fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0)
		err = -errno;
	if (!err && (err = build_id__check_elf(fd, size)) == 0)
		err = build_id__read_elf(fd, &ret->bid);
	if (err < 0) {
		close(fd);
		return err == -EINVAL || err == -ENOEXEC ? -ENOENT : err;
	}
	ret->fd = fd;
	ret->size = size;
	return 0;
}
