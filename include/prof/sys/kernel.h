/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The running kernel's release against the oldest prof works on.  prof needs Linux
 * 5.7: its sampling events carry attr.cgroup and PERF_SAMPLE_CGROUP (both 5.7), and an
 * older kernel refuses them with EINVAL, which says nothing of why.  A release string
 * (uname -r: "6.1.0-28-amd64", "5.14.0-427.el9.x86_64") is parsed by a pure function
 * so the unit tests feed it any release; a distribution kernel that backported the
 * features still reports its base version and is refused all the same: prof says so
 * rather than guess.
 */
#ifndef PROF_SYS_KERNEL_H
#define PROF_SYS_KERNEL_H

#include <stddef.h>

#define KERNEL_MIN_MAJOR 5
#define KERNEL_MIN_MINOR 7
#define KERNEL_MIN_STRING "5.7"

/*
 * The major and minor numbers at the start of release.  0, or -EINVAL when it does not
 * start with "N.N" (*ret_major and *ret_minor are then left alone).
 */
int kernel__parse_release(const char *release, unsigned *ret_major, unsigned *ret_minor);

/*
 * Whether release is at least major.minor: 1 if it is, 0 if it is older, -EINVAL when
 * it cannot be parsed (the caller goes on: the kernel will say).
 */
int kernel__at_least(const char *release, unsigned major, unsigned minor);

/*
 * The running kernel's release (uname -r) into buf.  0, or a negative errno (buf is
 * then "unknown").
 */
int kernel__release(char *buf, size_t size);

#endif
