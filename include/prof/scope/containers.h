/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Containers and Kubernetes pods by their cgroups, under the runtimes' conventions
 * (cgroup v2 paths relative to its root):
 *   docker      system.slice/docker-<id>.scope (systemd driver), docker/<id> (cgroupfs)
 *   podman      machine.slice/libpod-<id>.scope, libpod_parent/libpod-<id> (cgroupfs)
 *   containerd  kubepods.slice/.../cri-containerd-<id>.scope
 *   cri-o       kubepods.slice/.../crio-<id>.scope
 *   a pod       kubepods*.slice/.../kubepods-<qos>-pod<uid, '-' written '_'>.slice
 *               (kubelet's systemd driver), kubepods/<qos>/pod<uid> (cgroupfs)
 * where <id> is the runtime's 64 hex digits.  A runtime's helper cgroups
 * (libpod-conmon-<id>.scope, crio-conmon-<id>.scope) are not the container.
 *
 * What a cgroup path names (for the report's labels) and where a --container or
 * --pod argument is (for the scopes).
 */
#ifndef PROF_SCOPE_CONTAINERS_H
#define PROF_SCOPE_CONTAINERS_H

#include <stdbool.h>
#include <stddef.h>

#define CONTAINER_ID_LEN 64             /* hex digits of a runtime's id */
#define CONTAINER_PREFIX_MIN 12         /* the least --container takes (docker ps shows 12) */
#define CONTAINER_POD_UID_MAX 64

enum containers_kind { CONTAINERS_CONTAINER, CONTAINERS_POD };

/*
 * The container cgroup path is in: the innermost component (a nested runtime's
 * container is its own) that is a container's cgroup, its id into id (NUL
 * terminated).  True when there is one; false for a host cgroup.
 */
bool containers__of_path(const char *path, char id[CONTAINER_ID_LEN + 1]);

/*
 * A --container argument into the id prefix it gives (lower case): its full id or at
 * least CONTAINER_PREFIX_MIN of its first hex digits, optionally after a runtime's
 * "scheme://" as Kubernetes writes a containerID ("containerd://<id>").  0, or
 * -EINVAL with a message in err.
 */
int containers__parse_id(const char *arg, char id[CONTAINER_ID_LEN + 1], char *err, size_t errlen);

/*
 * The cgroup of a container (kind CONTAINERS_CONTAINER: arg as containers__parse_id
 * takes it) or of a pod (CONTAINERS_POD: arg its uid, dashes or underscores) in the
 * cgroup2 hierarchy at root_fd (mounted at mount, for messages): its path relative to
 * the root with a leading '/' in *ret (malloc'd).  -EINVAL for a bad argument,
 * -ENOENT when none matches (err lists those there are), -EEXIST when the prefix
 * matches several (err lists them), each with a message in err; -ENOMEM.
 */
int containers__find(int root_fd, const char *mount, enum containers_kind kind, const char *arg, char **ret,
		     char *err, size_t errlen);

#endif
