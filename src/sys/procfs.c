/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "prof/perfdata/build_id.h"
#include "prof/sys/procfs.h"
#include "prof/base/util.h"

static const char *hex(const char *p, const char *end, uint64_t *ret)
{
	uint64_t v = 0;
	const char *s = p;

	for (; p < end; p++) {
		unsigned d;
		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if (*p >= 'a' && *p <= 'f')
			d = (unsigned)(*p - 'a' + 10);
		else if (*p >= 'A' && *p <= 'F')
			d = (unsigned)(*p - 'A' + 10);
		else
			break;
		if (v >> 60)
			return NULL;
		v = v << 4 | d;
	}
	if (p == s)
		return NULL;
	*ret = v;
	return p;
}

static const char *dec(const char *p, const char *end, uint64_t *ret)
{
	uint64_t v = 0;
	const char *s = p;

	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - 9) / 10)
			return NULL;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (p == s)
		return NULL;
	*ret = v;
	return p;
}

static const char *expect(const char *p, const char *end, char c)
{
	return (p && p < end && *p == c) ? p + 1 : NULL;
}

static const char *spaces(const char *p, const char *end)
{
	if (!p)
		return NULL;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

/* "start-end perms offset maj:min inode   path" */
int procfs__parse_maps_line(const char *line, size_t len, struct proc_map *ret)
{
	const char *p = line, *end = line + len;
	struct proc_map m = { 0 };
	uint64_t maj, min;

	p = hex(p, end, &m.start);
	p = expect(p, end, '-');
	p = p ? hex(p, end, &m.end) : NULL;
	p = expect(p, end, ' ');
	if (!p || end - p < 4 || m.end < m.start)
		return -EINVAL;
	m.prot = (p[0] == 'r' ? PROT_READ : 0) | (p[1] == 'w' ? PROT_WRITE : 0) |
		 (p[2] == 'x' ? PROT_EXEC : 0);
	m.flags = p[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	p = spaces(p + 4, end);
	p = p ? hex(p, end, &m.pgoff) : NULL;
	p = spaces(p, end);
	p = p ? hex(p, end, &maj) : NULL;
	p = expect(p, end, ':');
	p = p ? hex(p, end, &min) : NULL;
	p = spaces(p, end);
	p = p ? dec(p, end, &m.ino) : NULL;
	if (!p || (p < end && *p != ' ' && *p != '\t'))
		return -EINVAL;
	m.maj = (uint32_t)maj;
	m.min = (uint32_t)min;
	p = spaces(p, end);
	m.path = p;
	m.path_len = (size_t)(end - p);
	*ret = m;
	return 0;
}

int procfs__kallsyms_find(const char *buf, const char *name, uint64_t *ret_addr)
{
	size_t nlen = strlen(name);

	for (const char *line = buf; line && *line;) {
		const char *nl = strchr(line, '\n');
		const char *end = nl ? nl : line + strlen(line);
		uint64_t addr;
		const char *p = hex(line, end, &addr);

		/* "addr type name[\t[module]]" */
		if (p && end - p > 3 && p[0] == ' ' && p[2] == ' ' &&
		    (size_t)(end - (p + 3)) >= nlen && !memcmp(p + 3, name, nlen) &&
		    (p + 3 + nlen == end || p[3 + nlen] == '\t')) {
			if (addr == 0)
				return -EPERM;
			*ret_addr = addr;
			return 0;
		}
		line = nl ? nl + 1 : NULL;
	}
	return -ENOENT;
}

/* "name size refcount deps state 0xaddr [taint]" */
int procfs__parse_module_line(const char *line, size_t len, char *name, size_t namelen,
			      uint64_t *ret_addr, uint64_t *ret_size)
{
	const char *end = line + len, *p = line, *f[6];
	uint64_t size, addr;
	size_t n = 0, nl;

	while (n < 6 && p < end) {
		p = spaces(p, end);
		if (p >= end)
			break;
		f[n++] = p;
		while (p < end && *p != ' ')
			p++;
	}
	if (n < 6)
		return -EINVAL;
	nl = (size_t)(f[1] - f[0]);
	while (nl && f[0][nl - 1] == ' ')
		nl--;
	if (nl == 0 || nl >= namelen)
		return -EINVAL;
	if (!dec(f[1], end, &size))
		return -EINVAL;
	if (end - f[5] < 3 || f[5][0] != '0' || f[5][1] != 'x' || !hex(f[5] + 2, end, &addr))
		return -EINVAL;
	memcpy(name, f[0], nl);
	name[nl] = '\0';
	*ret_addr = addr;
	*ret_size = size;
	return 0;
}

int procfs__status_u64(const char *buf, const char *key, uint64_t *ret)
{
	size_t klen = strlen(key);

	for (const char *line = buf; line && *line;) {
		const char *nl = strchr(line, '\n');
		const char *end = nl ? nl : line + strlen(line);

		if ((size_t)(end - line) > klen && !memcmp(line, key, klen)) {
			const char *p = spaces(line + klen, end);
			if (p && dec(p, end, ret))
				return 0;
			return -EINVAL;
		}
		line = nl ? nl + 1 : NULL;
	}
	return -ENOENT;
}

void procfs__comm(const char *buf, char comm[16])
{
	size_t n = 0;

	while (n < 15 && buf[n] && buf[n] != '\n')
		n++;
	memcpy(comm, buf, n);
	memset(comm + n, 0, 16 - n);
}

int procfs__cgroup2_path(const char *buf, char *ret, size_t len)
{
	for (const char *line = buf; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t l = nl ? (size_t)(nl - line) : strlen(line);

		if (l >= 3 && !memcmp(line, "0::", 3)) {
			if (l - 3 >= len)
				return -ENAMETOOLONG;
			memcpy(ret, line + 3, l - 3);
			ret[l - 3] = '\0';
			return 0;
		}
		line = nl ? nl + 1 : NULL;
	}
	return -ENOENT;
}

int procfs__kernel_build_id(const uint8_t *notes, size_t len, char *hex, size_t hexlen)
{
	struct build_id b;
	int r = build_id__from_notes(notes, len, 4, &b);

	if (r < 0)
		return r;
	if (hexlen < 2u * b.size + 1)
		return -EINVAL;
	build_id__hex(&b, hex, hexlen);
	return 0;
}

int procfs__mount_point(const char *mountinfo, const char *fstype, char *ret, size_t len)
{
	for (const char *line = mountinfo; line && *line;) {
		const char *nl = strchrnul(line, '\n');
		char buf[4200], mnt[4096], type[64];
		const char *dash;
		size_t l = (size_t)(nl - line);

		/* "id parent maj:min root mountpoint opts... - fstype source superopts";
		 * parsed on a copy of the line: sscanf would measure the whole text */
		if (l < sizeof(buf)) {
			memcpy(buf, line, l);
			buf[l] = '\0';
			dash = strstr(buf, " - ");
			if (dash && sscanf(buf, "%*s %*s %*s %*s %4095s", mnt) == 1 &&
			    sscanf(dash + 3, "%63s", type) == 1 && !strcmp(type, fstype)) {
				/* mountinfo escapes spaces as \040; these mounts have none */
				if (strlen(mnt) >= len)
					return -ENAMETOOLONG;
				strcpy(ret, mnt);
				return 0;
			}
		}
		line = *nl ? nl + 1 : NULL;
	}
	return -ENOENT;
}
