/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Containers by their cgroups: the paths runtimes make (as Docker, podman,
 * containerd and CRI-O under the kubelet write them on real hosts), the arguments,
 * and finding a container or pod in a hierarchy of plain directories laid out the
 * same way.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <criterion/criterion.h>

#include "prof/scope/containers.h"
#include "../fixture.h"

#define ID1 "0f1e2d3c4b5a69788796a5b4c3d2e1f00112233445566778899aabbccddeeff0"
#define ID2 "0f1e2d3c4b5a6978ffffffffffffffffffffffffffffffffffffffffffffffff"
#define ID3 "a1b2c3d4e5f6a1b2c3d4e5f6a1b2c3d4e5f6a1b2c3d4e5f6a1b2c3d4e5f6a1b2"
#define ID4 "b0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0c1c2c3c4c5c6c7c8c9cacbcccdcecf"
#define POD "4c2bd8f9-1a3e-4f56-9b7c-0d1e2f3a4b5c"
#define POD_ "4c2bd8f9_1a3e_4f56_9b7c_0d1e2f3a4b5c"

static void of_path(const char *path, const char *want)
{
	char id[CONTAINER_ID_LEN + 1] = "";
	bool found = containers__of_path(path, id);

	if (!want)
		cr_assert(!found, "%s: named container %s", path, id);
	else
		cr_assert(found && !strcmp(id, want), "%s: %s, not %s", path, found ? id : "none", want);
}

Test(containers, runtimes_paths)
{
	of_path("/system.slice/docker-" ID1 ".scope", ID1);
	of_path("/docker/" ID1, ID1);
	of_path("/machine.slice/libpod-" ID1 ".scope", ID1);
	of_path("/machine.slice/libpod-" ID1 ".scope/container", ID1);
	of_path("/libpod_parent/libpod-" ID1, ID1);
	of_path("/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" ID1 ".scope", ID1);
	of_path("/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" POD_ ".slice/cri-containerd-" ID1
		".scope", ID1);
	of_path("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" POD_ ".slice/crio-" ID1 ".scope",
		ID1);
	/* the kubelet's cgroupfs driver: kubepods/<qos>/pod<uid>/<id> */
	of_path("/kubepods/besteffort/pod" POD "/" ID1, ID1);
	of_path("/kubepods/pod" POD "/" ID1, ID1);
	/* a process of the container in a cgroup it made (systemd inside, cgroupns) */
	of_path("/system.slice/docker-" ID1 ".scope/init.scope", ID1);
	/* nested runtimes: the innermost container is the task's */
	of_path("/docker/" ID1 "/docker/" ID3, ID3);
	of_path("/docker/" ID1 "/kubepods/besteffort/pod" POD "/x", ID1);
}

Test(containers, host_and_helpers_are_not_containers)
{
	of_path("/", NULL);
	of_path("", NULL);
	of_path("/system.slice/docker.service", NULL);
	of_path("/system.slice/containerd.service", NULL);
	of_path("/user.slice/user-1000.slice/session-3.scope", NULL);
	/* the runtime's monitor is not the container */
	of_path("/machine.slice/libpod-conmon-" ID1 ".scope", NULL);
	of_path("/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" POD_ ".slice/crio-conmon-" ID1
		".scope", NULL);
	/* the pod itself is no container */
	of_path("/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" POD_ ".slice", NULL);
	/* not the runtime's form: short, upper case, not hex, wrong parent, no suffix */
	of_path("/system.slice/docker-0f1e2d3c4b5a.scope", NULL);
	of_path("/system.slice/docker-0F1E2D3C4B5A69788796A5B4C3D2E1F00112233445566778899AABBCCDDEEFF0.scope", NULL);
	of_path("/system.slice/docker-g f1e2d3c4b5a69788796a5b4c3d2e1f00112233445566778899aabbccddeeff.scope", NULL);
	of_path("/other/" ID1, NULL);
	of_path("/kubepods/besteffort/pod" POD, NULL);
	of_path("/kubepods/besteffort/podx" POD "/" ID1, NULL);
	of_path("/kubepods/besteffort/pod1234/" ID1, NULL);
	of_path("/system.slice/docker-" ID1, NULL);
	of_path("/libpod-" ID1, NULL);
	of_path("/system.slice/docker-" ID1 ".scopex", NULL);
}

Test(containers, parse_id)
{
	char id[CONTAINER_ID_LEN + 1], err[256];

	cr_assert_eq(containers__parse_id(ID1, id, err, sizeof(err)), 0);
	cr_assert_str_eq(id, ID1);
	cr_assert_eq(containers__parse_id("0F1E2D3C4B5A", id, err, sizeof(err)), 0);
	cr_assert_str_eq(id, "0f1e2d3c4b5a");
	cr_assert_eq(containers__parse_id("containerd://" ID1, id, err, sizeof(err)), 0);
	cr_assert_str_eq(id, ID1);
	cr_assert_eq(containers__parse_id("0f1e2d3c4b5", id, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "at least its first 12 hex digits"), "%s", err);
	cr_assert_eq(containers__parse_id(ID1 "0", id, err, sizeof(err)), -EINVAL);
	cr_assert_eq(containers__parse_id("0f1e2d3c4b5z", id, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "hex digits only"), "%s", err);
	cr_assert_eq(containers__parse_id("", id, err, sizeof(err)), -EINVAL);
}

static struct {
	char root[64];
	int fd;
} fx;

static void setup(void)
{
	fx.fd = tmpdir_open(fx.root, "containers");
}

static void teardown(void)
{
	close(fx.fd);
	tmpdir_remove(fx.root);
}

/* mkdir -p path under the fake root */
static void mk(const char *path)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1;; p++) {
		if (*p == '/' || !*p) {
			char c = *p;
			*p = '\0';
			cr_assert(mkdirat(fx.fd, buf + 1, 0755) == 0 || errno == EEXIST, "mkdir %s", buf);
			*p = c;
			if (!c)
				break;
		}
	}
}

#define PODDIR "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" POD_ ".slice"

static void host(void)
{
	mk("/system.slice/docker.service");
	mk("/system.slice/docker-" ID1 ".scope");
	mk("/docker/" ID2);
	mk("/machine.slice/libpod-conmon-" ID3 ".scope");
	mk(PODDIR "/cri-containerd-" ID3 ".scope");
	mk("/kubepods/burstable/pod11111111-2222-3333-4444-555555555555/" ID4);
	/* a Guaranteed pod has no QoS slice */
	mk("/kubepods.slice/kubepods-pod99999999_aaaa_bbbb_cccc_dddddddddddd.slice");
}

static int find(enum containers_kind kind, const char *arg, char **path, char *err, size_t len)
{
	*path = NULL;
	return containers__find(fx.fd, "/sys/fs/cgroup", kind, arg, path, err, len);
}

Test(containers, find, .init = setup, .fini = teardown)
{
	char err[2048], *path;

	host();
	cr_assert_eq(find(CONTAINERS_CONTAINER, ID1, &path, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(path, "/system.slice/docker-" ID1 ".scope");
	free(path);
	/* a unique prefix */
	cr_assert_eq(find(CONTAINERS_CONTAINER, "0f1e2d3c4b5a6978ff", &path, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(path, "/docker/" ID2);
	free(path);
	/* the container, not the conmon cgroup of the same id */
	cr_assert_eq(find(CONTAINERS_CONTAINER, "a1b2c3d4e5f6", &path, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(path, PODDIR "/cri-containerd-" ID3 ".scope");
	free(path);
	/* the kubelet's cgroupfs driver: the bare id under its pod */
	cr_assert_eq(find(CONTAINERS_CONTAINER, "b0b1b2b3b4b5", &path, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(path, "/kubepods/burstable/pod11111111-2222-3333-4444-555555555555/" ID4);
	free(path);
	cr_assert_eq(find(CONTAINERS_POD, POD, &path, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(path, PODDIR);
	free(path);
	cr_assert_eq(find(CONTAINERS_POD, POD_, &path, err, sizeof(err)), 0, "%s", err);
	free(path);
	cr_assert_eq(find(CONTAINERS_POD, "11111111-2222-3333-4444-555555555555", &path, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_str_eq(path, "/kubepods/burstable/pod11111111-2222-3333-4444-555555555555");
	free(path);
	cr_assert_eq(find(CONTAINERS_POD, "99999999-AAAA-bbbb-cccc-dddddddddddd", &path, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_str_eq(path, "/kubepods.slice/kubepods-pod99999999_aaaa_bbbb_cccc_dddddddddddd.slice");
	free(path);
}

Test(containers, find_errors, .init = setup, .fini = teardown)
{
	char err[2048], *path;

	host();
	/* ambiguous: both ids start so; each is named in full with its cgroup */
	cr_assert_eq(find(CONTAINERS_CONTAINER, "0f1e2d3c4b5a", &path, err, sizeof(err)), -EEXIST);
	cr_assert_null(path);
	cr_assert(strstr(err, "ambiguous") && strstr(err, ID1 " (/system.slice/docker-" ID1 ".scope)") &&
		  strstr(err, ID2 " (/docker/" ID2 ")"), "%s", err);
	/* missing: the containers there are listed */
	cr_assert_eq(find(CONTAINERS_CONTAINER, "ffffffffffff", &path, err, sizeof(err)), -ENOENT);
	cr_assert(strstr(err, "no container 'ffffffffffff' under /sys/fs/cgroup") &&
		  strstr(err, "0f1e2d3c4b5a (/system.slice/docker-" ID1 ".scope)") &&
		  strstr(err, "a1b2c3d4e5f6 (" PODDIR "/cri-containerd-" ID3 ".scope)"), "%s", err);
	cr_assert_eq(find(CONTAINERS_CONTAINER, "0f1e", &path, err, sizeof(err)), -EINVAL);
	cr_assert_eq(find(CONTAINERS_POD, "99999999-2222-3333-4444-555555555555", &path, err, sizeof(err)), -ENOENT);
	cr_assert(strstr(err, "pods here") && strstr(err, POD " (" PODDIR ")"), "%s", err);
	cr_assert_eq(find(CONTAINERS_POD, "pod-x", &path, err, sizeof(err)), -EINVAL);
}

/* A tenant names the cgroups delegated to it: the message escapes what it lists. */
Test(containers, hostile_names_escaped, .init = setup, .fini = teardown)
{
	char err[2048], *path;

	mk("/user.slice/t\x1b[2J/docker-" ID1 ".scope");
	cr_assert_eq(find(CONTAINERS_CONTAINER, "ffffffffffff", &path, err, sizeof(err)), -ENOENT);
	cr_assert_null(strchr(err, '\x1b'), "%s", err);
	cr_assert(strstr(err, "0f1e2d3c4b5a (/user.slice/t\\x1b[2J/docker-" ID1 ".scope)"), "%s", err);
}

Test(containers, none_there, .init = setup, .fini = teardown)
{
	char err[2048], *path;

	mk("/system.slice/sshd.service");
	cr_assert_eq(find(CONTAINERS_CONTAINER, ID1, &path, err, sizeof(err)), -ENOENT);
	cr_assert(strstr(err, "there are no containers here"), "%s", err);
}
