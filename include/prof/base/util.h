/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small helpers shared by every module: cleanup attributes, ownership hand-off. */
#ifndef PROF_BASE_UTIL_H
#define PROF_BASE_UTIL_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define ALIGN_UP(x, a) (((x) + ((a) - 1)) & ~((__typeof__(x))(a) - 1))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* The 8 (4) bytes at off of a buffer read from a process or a file, unaligned. */
static inline uint64_t u64_at(const void *p, uint64_t off)
{
	uint64_t v;

	__builtin_memcpy(&v, (const uint8_t *)p + off, 8);
	return v;
}

static inline int32_t i32_at(const void *p, uint64_t off)
{
	int32_t v;

	__builtin_memcpy(&v, (const uint8_t *)p + off, 4);
	return v;
}

static inline void freep(void *p)
{
	free(*(void **)p);
}

static inline void closep(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;
		close(*fd);
		errno = saved;
	}
}

static inline void fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)
#define _cleanup_fclose_ _cleanup_(fclosep)

/*
 * In an array sorted by a uint64_t member (an address), the index of the last element
 * whose member is <= key, or SIZE_MAX when key is below the first: which symbol or
 * map an address falls in.  sorted_find_le(syms, nr, start, addr).
 */
static inline size_t sorted_find_le_(const void *base, size_t n, size_t size, size_t off,
				     uint64_t key)
{
	const char *b = base;
	size_t lo = 0, hi = n;

	if (!n || key < *(const uint64_t *)(const void *)(b + off))
		return SIZE_MAX;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (*(const uint64_t *)(const void *)(b + mid * size + off) <= key)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}
#define sorted_find_le(arr, n, member, key)                                    \
	sorted_find_le_((arr), (n), sizeof(*(arr)), offsetof(__typeof__(*(arr)), member), (key))

/* Hand ownership on: returns the pointer and clears the variable that held it. */
#define steal_pointer(pp)                                                      \
	({                                                                     \
		__typeof__(*(pp)) _ptr_ = *(pp);                               \
		*(pp) = NULL;                                                  \
		_ptr_;                                                         \
	})

static inline int steal_fd(int *fd)
{
	int r = *fd;
	*fd = -1;
	return r;
}

/*
 * Read a whole (small, /proc-like) file into a NUL-terminated malloc'd buffer.
 * Returns its length, or -errno; *ret_buf is untouched on failure.
 */
ssize_t read_file_full(int dirfd, const char *path, size_t max, char **ret_buf);
/* The same from an open fd (read from its current offset). */
ssize_t read_fd_full(int fd, size_t max, char **ret_buf);

/* write(2) all of buf; -errno on failure (EINTR retried). */
int write_full(int fd, const void *buf, size_t len);
/* pwrite(2) all of buf at off; -errno on failure. */
int pwrite_full(int fd, const void *buf, size_t len, off_t off);
/* pread(2) up to len bytes at off, stopping only at the end of the file: the bytes
 * read (fewer than len when the file ends first), or -errno (EINTR retried). */
ssize_t pread_full(int fd, void *buf, size_t len, off_t off);

/*
 * A whole unsigned number in the given base (0: C rules, 0x for hex), no sign, no
 * blanks, nothing after it.  0 or -EINVAL; *ret untouched on failure.
 */
int parse_u64(const char *s, int base, uint64_t *ret);

/* Format a one-line message into err (for the option and config parsers); returns -EINVAL. */
__attribute__((format(printf, 3, 4)))
int errorf(char *err, size_t errlen, const char *fmt, ...);
/* The message for getopt_long()'s ':' (a value missing) or '?' (an unknown option)
 * return c, naming cmd's --help ("prof top").  -EINVAL. */
int getopt_error(int c, char **argv, const char *cmd, char *err, size_t errlen);

/* Monotonic clock in ns: the clock prof's perf events are stamped with. */
uint64_t clock_mono_ns(void);

#endif
