/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The runtimes' names of containers and pods: Docker's config.v2.json, podman's
 * containers.json and the kubelet's log directories, in the shapes those programs
 * write them (trimmed of members prof does not read), then hostile ones; and the
 * loader over a directory tree laid out as the runtimes lay theirs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <criterion/criterion.h>

#include "prof/scope/runtime_names.h"
#include "../fixture.h"

#define ID1 "3f2a9c81d0e4b5a69788796a5b4c3d2e1f00112233445566778899aabbccddee"
#define ID2 "b0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0c1c2c3c4c5c6c7c8c9cacbcccdcecf"
#define POD "4c2bd8f9-1a3e-4f56-9b7c-0d1e2f3a4b5c"

/* As dockerd 20.10 writes it (docker.io on Debian 12), most members cut. */
static const char docker_config[] =
	"{\"StreamConfig\":{},\"State\":{\"Running\":true,\"Paused\":false,\"Restarting\":false,"
	"\"OOMKilled\":false,\"RemovalInProgress\":false,\"Dead\":false,\"Pid\":4242,\"ExitCode\":0,"
	"\"Error\":\"\",\"StartedAt\":\"2026-12-02T02:30:00.1Z\",\"FinishedAt\":\"0001-01-01T00:00:00Z\","
	"\"Health\":null},\"ID\":\"" ID1 "\",\"Created\":\"2026-12-02T02:29:59.9Z\",\"Managed\":false,"
	"\"Path\":\"/opt/app/hot\",\"Args\":[],\"Config\":{\"Hostname\":\"3f2a9c81d0e4\",\"Domainname\":\"\","
	"\"User\":\"\",\"Env\":[\"PATH=/usr/bin\"],\"Cmd\":[\"/opt/app/hot\"],\"Image\":\"prof-test\","
	"\"Labels\":{\"Name\":\"not this one\"}},\"Image\":\"sha256:" ID2 "\",\"NetworkSettings\":{},"
	"\"LogPath\":\"\",\"Name\":\"/web\",\"Driver\":\"overlay2\",\"OS\":\"linux\",\"RestartCount\":0,"
	"\"HasBeenStartedBefore\":true,\"MountLabel\":\"\",\"ProcessLabel\":\"\",\"AppArmorProfile\":\"\"}\n";

/* config.v2.json of `docker run -d --name prof-i21n-web` on dockerd 20.10.24 (Debian 12's
 * docker.io) with its own --data-root, verbatim. */
static const char docker_config_real[] =
	"{\"StreamConfig\":{},\"State\":{\"Running\":true,\"Paused\":false,\"Restarting\":false,\"OOMKilled\""
	":false,\"RemovalInProgress\":false,\"Dead\":false,\"Pid\":9954,\"ExitCode\":0,\"Error\":\"\",\"Start"
	"edAt\":\"2026-12-02T03:22:11.646614644Z\",\"FinishedAt\":\"0001-01-01T00:00:00Z\",\"Health\":null},\""
	"ID\":\"d13d838a9660f224b1a4ea2cbf8c2d71e91e085c500d4b6a474cb52148bb9391\",\"Created\":\"2026-12-02T0"
	"3:22:11.210249143Z\",\"Managed\":false,\"Path\":\"/loop\",\"Args\":[],\"Config\":{\"Hostname\":\"d13"
	"d838a9660\",\"Domainname\":\"\",\"User\":\"\",\"AttachStdin\":false,\"AttachStdout\":false,\"AttachS"
	"tderr\":false,\"Tty\":false,\"OpenStdin\":false,\"StdinOnce\":false,\"Env\":null,\"Cmd\":[\"/loop\"]"
	",\"Image\":\"i21n-img\",\"Volumes\":null,\"WorkingDir\":\"\",\"Entrypoint\":null,\"NetworkDisabled\""
	":true,\"OnBuild\":null,\"Labels\":{}},\"Image\":\"sha256:3bbc1092e46da04c39c41564cbd2416cc70d154540a"
	"3bed789cf248cfa0ad2c5\",\"NetworkSettings\":{\"Bridge\":\"\",\"SandboxID\":\"3af87a3cb358942acbca0b8"
	"26aadcf8cb82d9970bf9b78d7321c93c6c59131a5\",\"HairpinMode\":false,\"LinkLocalIPv6Address\":\"\",\"Li"
	"nkLocalIPv6PrefixLen\":0,\"Networks\":{\"bridge\":{\"IPAMConfig\":null,\"Links\":null,\"Aliases\":nu"
	"ll,\"NetworkID\":\"\",\"EndpointID\":\"\",\"Gateway\":\"\",\"IPAddress\":\"\",\"IPPrefixLen\":0,\"IP"
	"v6Gateway\":\"\",\"GlobalIPv6Address\":\"\",\"GlobalIPv6PrefixLen\":0,\"MacAddress\":\"\",\"DriverOp"
	"ts\":null,\"IPAMOperational\":false}},\"Service\":null,\"Ports\":null,\"SandboxKey\":\"/tmp/i21n-doc"
	"kerd/er/netns/3af87a3cb358\",\"SecondaryIPAddresses\":null,\"SecondaryIPv6Addresses\":null,\"IsAnony"
	"mousEndpoint\":false,\"HasSwarmEndpoint\":false},\"LogPath\":\"/tmp/i21n-dockerd/dr/containers/d13d8"
	"38a9660f224b1a4ea2cbf8c2d71e91e085c500d4b6a474cb52148bb9391/d13d838a9660f224b1a4ea2cbf8c2d71e91e085c"
	"500d4b6a474cb52148bb9391-json.log\",\"Name\":\"/prof-i21n-web\",\"Driver\":\"overlay2\",\"OS\":\"lin"
	"ux\",\"MountLabel\":\"\",\"ProcessLabel\":\"\",\"RestartCount\":0,\"HasBeenStartedBefore\":true,\"Ha"
	"sBeenManuallyStopped\":false,\"MountPoints\":{},\"SecretReferences\":null,\"ConfigReferences\":null,"
	"\"AppArmorProfile\":\"\",\"HostnamePath\":\"/tmp/i21n-dockerd/dr/containers/d13d838a9660f224b1a4ea2c"
	"bf8c2d71e91e085c500d4b6a474cb52148bb9391/hostname\",\"HostsPath\":\"/tmp/i21n-dockerd/dr/containers/"
	"d13d838a9660f224b1a4ea2cbf8c2d71e91e085c500d4b6a474cb52148bb9391/hosts\",\"ShmPath\":\"\",\"ResolvCo"
	"nfPath\":\"/tmp/i21n-dockerd/dr/containers/d13d838a9660f224b1a4ea2cbf8c2d71e91e085c500d4b6a474cb5214"
	"8bb9391/resolv.conf\",\"SeccompProfile\":\"\",\"NoNewPrivileges\":false,\"LocalLogCacheMeta\":{\"Hav"
	"eNotifyEnabled\":false}}\n";

/* As podman 4.3 (containers/storage) writes it on Debian 12: the members and their
 * order of a real entry (podman create, Debian 12), the values made up. */
static const char podman_containers[] =
	"[{\"id\":\"" ID1 "\",\"names\":[\"web\"],\"image\":\"" ID2 "\",\"layer\":\"" ID2 "\","
	"\"metadata\":\"{\\\"image-name\\\":\\\"localhost/prof-test:latest\\\",\\\"image-id\\\":\\\"" ID2
	"\\\",\\\"name\\\":\\\"web\\\",\\\"created-at\\\":1764642600}\",\"created\":\"2026-12-02T02:30:00Z\","
	"\"flags\":{\"MountLabel\":\"\",\"ProcessLabel\":\"\"}},"
	"{\"id\":\"" ID2 "\",\"names\":[\"db\",\"db-alias\"],\"image\":\"" ID1 "\",\"layer\":\"" ID1 "\","
	"\"metadata\":\"{}\",\"created\":\"2026-12-02T02:31:00Z\"}]";

static char *docker_name(const char *text, size_t len, int want)
{
	char id[CONTAINER_ID_LEN + 1] = "";
	char *name = NULL;
	int r = runtime_names__parse_docker(text, len, id, &name);

	cr_assert_eq(r, want, "parse_docker: %d, not %d", r, want);
	if (r == 0)
		cr_assert_str_eq(id, ID1);
	return name;
}

Test(runtime_names, docker_config)
{
	char *name = docker_name(docker_config, strlen(docker_config), 0);

	/* "Name" at the top, not the label of the same name; without docker's '/' */
	cr_assert_str_eq(name, "web");
	free(name);
}

Test(runtime_names, docker_hostile)
{
	static const char *bad[] = {
		"",
		"{",
		"{\"ID\":\"" ID1 "\",\"Name\":\"/web\"",                    /* truncated */
		"{\"ID\":\"" ID1 "\",\"Name\":\"/web\"} {}",                /* two values */
		"{\"ID\":\"" ID1 "\"}",                                       /* no name */
		"{\"ID\":\"" ID1 "\",\"Name\":\"/\"}",                        /* empty name */
		"{\"ID\":\"" ID1 "\",\"Name\":7}",
		"{\"ID\":\"3f2a9c81d0e4\",\"Name\":\"/web\"}",                /* a short id */
		"{\"ID\":\"3F2A9C81D0E4B5A69788796A5B4C3D2E1F00112233445566778899AABBCCDDEE\",\"Name\":\"/w\"}",
		"{\"ID\":\"" ID1 "\",\"Name\":\"/we\\u0000b\"}",              /* a NUL inside */
		"[{\"ID\":\"" ID1 "\",\"Name\":\"/web\"}]",
	};
	char deep[4096];
	size_t n = 0;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char id[CONTAINER_ID_LEN + 1];
		char *name = NULL;
		int r = runtime_names__parse_docker(bad[i], strlen(bad[i]), id, &name);

		cr_assert_eq(r, -EINVAL, "'%s': %d (%s)", bad[i], r, r == 0 ? name : "");
	}
	/* truncated at every length: never a name */
	for (size_t len = 0; len + 2 < strlen(docker_config); len++)
		cr_assert_null(docker_name(docker_config, len, -EINVAL), "cut at %zu", len);
	/* nesting deeper than any runtime writes */
	n += (size_t)snprintf(deep, sizeof(deep), "{\"ID\":\"" ID1 "\",\"Name\":\"/web\",\"x\":");
	while (n < 3000)
		deep[n++] = '[';
	deep[n] = '\0';
	docker_name(deep, n, -EINVAL);
}

Test(runtime_names, docker_huge_and_control_names)
{
	size_t len = RUNTIME_NAME_MAX + 64;
	char *text = malloc(len + 200), *name;
	size_t off = (size_t)sprintf(text, "{\"ID\":\"" ID1 "\",\"Name\":\"/");

	memset(text + off, 'a', RUNTIME_NAME_MAX + 1);
	strcpy(text + off + RUNTIME_NAME_MAX + 1, "\"}");
	docker_name(text, strlen(text), -EINVAL);
	/* the longest kept */
	strcpy(text + off + RUNTIME_NAME_MAX, "\"}");
	name = docker_name(text, strlen(text), 0);
	cr_assert_eq(strlen(name), RUNTIME_NAME_MAX);
	free(name);
	free(text);
	/* control characters are kept as they are: the outputs escape them */
	static const char esc[] = "{\"ID\":\"" ID1 "\",\"Name\":\"/a\\u001b[31mb\\nc\"}";
	name = docker_name(esc, strlen(esc), 0);
	cr_assert_str_eq(name, "a\033[31mb\nc");
	free(name);
}

Test(runtime_names, podman_containers)
{
	struct runtime_names n = { 0 };
	size_t skipped = 0;

	cr_assert_eq(runtime_names__parse_podman(podman_containers, strlen(podman_containers), &n, &skipped), 0);
	cr_assert_eq(n.nr, 2);
	cr_assert_eq(skipped, 0);
	cr_assert_str_eq(runtime_names__of(&n, ID1, false), "web");
	cr_assert_str_eq(runtime_names__of(&n, ID2, false), "db");
	cr_assert_null(runtime_names__of(&n, ID2, true));
	cr_assert_null(runtime_names__of(&n, "3f2a9c81d0e4", false), "a prefix is not the id");
	runtime_names__release(&n);
}

Test(runtime_names, podman_hostile)
{
	static const char *bad[] = { "", "[", "{}", "[{\"id\":\"" ID1 "\",\"names\":[\"web\"]}", "null" };
	static const char mixed[] =
		"[{\"id\":\"" ID1 "\",\"names\":[]},{\"id\":\"" ID1 "\"},{\"names\":[\"x\"]},7,"
		"{\"id\":\"zz\",\"names\":[\"x\"]},{\"id\":\"" ID1 "\",\"names\":[3]},"
		"{\"id\":\"" ID2 "\",\"names\":[\"ok\"]}]";
	struct runtime_names n = { 0 };
	size_t skipped = 0;

	/* the fourth is cut before its closing ']' */
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(runtime_names__parse_podman(bad[i], i == 3 ? strlen(bad[i]) - 1 : strlen(bad[i]), &n,
							 NULL), i == 3 ? -EINVAL : -EINVAL, "'%s'", bad[i]);
	cr_assert_eq(n.nr, 0);
	cr_assert_eq(runtime_names__parse_podman(mixed, strlen(mixed), &n, &skipped), 0);
	cr_assert_eq(n.nr, 1);
	cr_assert_eq(skipped, 6);
	cr_assert_str_eq(runtime_names__of(&n, ID2, false), "ok");
	runtime_names__release(&n);
}

Test(runtime_names, kubelet_pod_dirs)
{
	char uid[CONTAINER_POD_UID_MAX + 1];
	char *name = NULL;

	cr_assert_eq(runtime_names__parse_pod_dir("shop_web-7d4b9c-x2x7q_" POD, uid, &name), 0);
	cr_assert_str_eq(uid, POD);
	cr_assert_str_eq(name, "shop/web-7d4b9c-x2x7q");
	free(name);
	/* a static pod's uid is a hash without dashes */
	cr_assert_eq(runtime_names__parse_pod_dir("kube-system_etcd-node1_0123456789abcdef0123456789abcdef", uid,
						   &name), 0);
	cr_assert_str_eq(name, "kube-system/etcd-node1");
	free(name);
	static const char *bad[] = { ".", "..", "shop_web", "shop_web_", "_web_" POD, "shop__" POD,
				     "shop_web_" POD "_x", "shop_web_zz" POD, "shop_web_1234" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(runtime_names__parse_pod_dir(bad[i], uid, &name), -EINVAL, "'%s'", bad[i]);
}

Test(runtime_names, kubelet_container_links)
{
	char id[CONTAINER_ID_LEN + 1];
	char *name = NULL;

	cr_assert_eq(runtime_names__parse_container_link("web-7d4b9c-x2x7q_shop_nginx-" ID1 ".log",
							 "/var/log/pods/shop_web-7d4b9c-x2x7q_" POD "/nginx/0.log",
							 id, &name), 0);
	cr_assert_str_eq(id, ID1);
	cr_assert_str_eq(name, "shop/web-7d4b9c-x2x7q/nginx");
	free(name);
	/* a link whose target names another pod, namespace or container is no name */
	static const char *targets[] = {
		"/var/log/pods/shop_other_" POD "/nginx/0.log",
		"/var/log/pods/prod_web-7d4b9c-x2x7q_" POD "/nginx/0.log",
		"/var/log/pods/shop_web-7d4b9c-x2x7q_" POD "/sidecar/0.log",
		"/var/log/pods/shop_web-7d4b9c-x2x7q_notauid/nginx/0.log",
		"nginx/0.log",
		"",
	};
	for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++)
		cr_assert_eq(runtime_names__parse_container_link("web-7d4b9c-x2x7q_shop_nginx-" ID1 ".log",
								 targets[i], id, &name), -EINVAL, "%s", targets[i]);
	static const char *links[] = {
		"web-7d4b9c-x2x7q_shop_nginx-" ID1,                     /* no .log */
		"web-7d4b9c-x2x7q_shop_nginx_" ID1 ".log",
		"web-7d4b9c-x2x7q_shop_nginx-3f2a9c81d0e4.log",
		"shop_nginx-" ID1 ".log",
	};
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++)
		cr_assert_eq(runtime_names__parse_container_link(links[i], "/var/log/pods/shop_web-7d4b9c-x2x7q_" POD
								 "/nginx/0.log", id, &name), -EINVAL, "%s", links[i]);
}

static void put(const char *dir, const char *rel, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	fputs(text, f);
	fclose(f);
}

static void dir(const char *base, const char *rel)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", base, rel);
	cr_assert(mkdir(path, 0755) == 0 || errno == EEXIST, "%s", path);
}

/* Docker's, podman's and the kubelet's trees, and the names the loader takes from them. */
Test(runtime_names, load_trees)
{
	char base[] = "/tmp/prof-runtime-names-XXXXXX", path[4096], target[4096], err[256], where[2048];
	struct runtime_dirs d;
	struct runtime_names n = { 0 };
	size_t unreadable = 0;
	const struct runtime_name *m[4];

	cr_assert_not_null(mkdtemp(base));
	dir(base, "docker"), dir(base, "docker/containers");
	dir(base, "docker/containers/" ID1);
	put(base, "docker/containers/" ID1 "/config.v2.json", docker_config);
	/* a directory named after one id whose config states another: no name */
	dir(base, "docker/containers/" ID2);
	put(base, "docker/containers/" ID2 "/config.v2.json", docker_config);
	dir(base, "podman"), dir(base, "podman/vfs-containers");
	put(base, "podman/vfs-containers/containers.json", podman_containers);
	dir(base, "log"), dir(base, "log/pods"), dir(base, "log/containers");
	dir(base, "log/pods/shop_web-0_" POD);
	dir(base, "log/pods/shop_web-0_" POD "/nginx");
	snprintf(target, sizeof(target), "%s/log/pods/shop_web-0_" POD "/nginx/0.log", base);
	snprintf(path, sizeof(path), "%s/log/containers/web-0_shop_nginx-" ID2 ".log", base);
	cr_assert_eq(symlink(target, path), 0);
	/* a link out of the pods directory is not the kubelet's */
	snprintf(path, sizeof(path), "%s/log/containers/evil_shop_nginx-" ID1 ".log", base);
	cr_assert_eq(symlink("/tmp/shop_evil_" POD "/nginx/0.log", path), 0);

	runtime_dirs__defaults(&d);
	d.rootless_podman = false;
	snprintf(path, sizeof(path), "%s/docker:%s/nowhere", base, base);
	cr_assert_eq(runtime_dirs__set(&d, RUNTIME_DOCKER, path, err, sizeof(err)), 0, "%s", err);
	snprintf(path, sizeof(path), "%s/podman", base);
	cr_assert_eq(runtime_dirs__set(&d, RUNTIME_PODMAN, path, err, sizeof(err)), 0, "%s", err);
	snprintf(path, sizeof(path), "%s/log", base);
	cr_assert_eq(runtime_dirs__set(&d, RUNTIME_KUBERNETES, path, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(runtime_dirs__set(&d, RUNTIME_DOCKER, "relative/path", err, sizeof(err)), -EINVAL);
	cr_assert_eq(runtime_dirs__set(&d, RUNTIME_DOCKER, "/a:/b:/c:/d:/e", err, sizeof(err)), -EINVAL);
	snprintf(path, sizeof(path), "%s/docker:%s/nowhere", base, base);
	cr_assert_eq(runtime_dirs__set(&d, RUNTIME_DOCKER, path, err, sizeof(err)), 0, "%s", err);
	runtime_dirs__describe(&d, where, sizeof(where));
	cr_assert(strstr(where, "/docker/containers/*/config.v2.json") && strstr(where, "/log/pods"), "%s", where);

	cr_assert_eq(runtime_names__load(&d, &n, &unreadable), 0);
	/* docker's ID1 "web", podman's ID1 "web" and ID2 "db", the pod, the kubelet's ID2 */
	cr_assert_eq(n.nr, 5);
	cr_assert_eq(unreadable, 0);
	cr_assert_str_eq(runtime_names__of(&n, POD, true), "shop/web-0");
	/* one id named by docker and podman both (as two data roots of one daemon would):
	 * one candidate */
	cr_assert_eq(runtime_names__match(&n, "web", false, m, 4), 1);
	cr_assert_str_eq(m[0]->id, ID1);
	cr_assert_eq(runtime_names__match(&n, "shop/web-0/nginx", false, m, 4), 1);
	cr_assert_str_eq(m[0]->id, ID2);
	cr_assert_eq(runtime_names__match(&n, "shop/web-0", true, m, 4), 1);
	cr_assert_str_eq(m[0]->id, POD);
	cr_assert_eq(runtime_names__match(&n, "nope", false, m, 4), 0);
	runtime_names__release(&n);

	/* a tree the caller may not read counts as unreadable, not as empty (root reads all) */
	if (geteuid() != 0) {
		snprintf(path, sizeof(path), "%s/docker/containers", base);
		chmod(path, 0);
		cr_assert_eq(runtime_names__load(&d, &n, &unreadable), 0);
		cr_assert_gt(unreadable, 0);
		runtime_names__release(&n);
		chmod(path, 0755);
	}
	tmpdir_remove(base);
}

static bool only_id2_runs(const char *id, bool pod, void *ctx)
{
	(void)pod, (void)ctx;
	return !strcmp(id, ID2);
}

/* An argument's id: by name, refused when ambiguous or unknown, an id prefix left to
 * the hierarchy unless it is another container's name. */
Test(runtime_names, resolve)
{
	struct runtime_names n = { 0 };
	char id[CONTAINER_POD_UID_MAX + 1], err[1024];

	cr_assert_eq(runtime_names__add(&n, RUNTIME_DOCKER, ID1, "web"), 0);
	cr_assert_eq(runtime_names__add(&n, RUNTIME_PODMAN, ID2, "db"), 0);
	cr_assert_eq(runtime_names__add(&n, RUNTIME_POD, POD, "shop/web-0"), 0);
	cr_assert_eq(runtime_names__resolve(&n, "web", false, "here", 0, NULL, NULL, id, err, sizeof(err)), 0);
	cr_assert_str_eq(id, ID1);
	cr_assert_eq(runtime_names__resolve(&n, "shop/web-0", true, "here", 0, NULL, NULL, id, err, sizeof(err)), 0);
	cr_assert_str_eq(id, POD);
	/* ids and uids are the hierarchy's to find */
	cr_assert_eq(runtime_names__resolve(&n, ID1, false, "here", 0, NULL, NULL, id, err, sizeof(err)), -EAGAIN);
	cr_assert_eq(runtime_names__resolve(&n, POD, true, "here", 0, NULL, NULL, id, err, sizeof(err)), -EAGAIN);
	/* unknown: where prof looked, and why it may not have seen it */
	cr_assert_eq(runtime_names__resolve(&n, "nope", false, "/var/lib/docker", 1, NULL, NULL, id, err, sizeof(err)),
		     -ENOENT);
	cr_assert(strstr(err, "no container named 'nope' (looked in /var/lib/docker)") &&
		  strstr(err, "not readable with your rights"), "%s", err);
	/* a pod's name is no container's */
	cr_assert_eq(runtime_names__resolve(&n, "shop/web-0", false, "here", 0, NULL, NULL, id, err, sizeof(err)),
		     -ENOENT);
	/* an id prefix that is another's name */
	cr_assert_eq(runtime_names__add(&n, RUNTIME_DOCKER, ID2, "3f2a9c81d0e4"), 0);
	cr_assert_eq(runtime_names__resolve(&n, "3f2a9c81d0e4", false, "here", 0, NULL, NULL, id, err, sizeof(err)),
		     -EEXIST);
	cr_assert(strstr(err, "is the name of docker container b0b1b2b3b4b5"), "%s", err);
	/* ...but not when it is the start of its own id */
	cr_assert_eq(runtime_names__add(&n, RUNTIME_DOCKER, ID2, "b0b1b2b3b4b5"), 0);
	cr_assert_eq(runtime_names__resolve(&n, "b0b1b2b3b4b5", false, "here", 0, NULL, NULL, id, err, sizeof(err)),
		     -EAGAIN);
	/* two of one name: refused with both, unless one only runs; escaped */
	cr_assert_eq(runtime_names__add(&n, RUNTIME_PODMAN, ID2, "web"), 0);
	cr_assert_eq(runtime_names__resolve(&n, "web", false, "here", 0, NULL, NULL, id, err, sizeof(err)), -EEXIST);
	cr_assert_str_eq(err, "container name 'web' is ambiguous: 2 match: web 3f2a9c81d0e4 (docker), web b0b1b2b3b4b5 "
			      "(podman); give its id");
	cr_assert_eq(runtime_names__resolve(&n, "web", false, "here", 0, only_id2_runs, NULL, id, err, sizeof(err)), 0);
	cr_assert_str_eq(id, ID2);
	cr_assert_eq(runtime_names__add(&n, RUNTIME_DOCKER, ID1, "x\033[2J"), 0);
	cr_assert_eq(runtime_names__add(&n, RUNTIME_PODMAN, ID2, "x\033[2J"), 0);
	cr_assert_eq(runtime_names__resolve(&n, "x\033[2J", false, "here", 0, NULL, NULL, id, err, sizeof(err)), -EEXIST);
	cr_assert_null(strchr(err, '\033'), "%s", err);
	runtime_names__release(&n);
}

/* Naming a file's few containers reads their directories, not the whole data root. */
Test(runtime_names, load_ids)
{
	char base[] = "/tmp/prof-runtime-names-XXXXXX", path[4096], err[256];
	const char *ids[] = { ID1 };
	struct runtime_dirs d;
	struct runtime_names n = { 0 };

	cr_assert_not_null(mkdtemp(base));
	dir(base, "docker"), dir(base, "docker/containers");
	dir(base, "docker/containers/" ID1);
	put(base, "docker/containers/" ID1 "/config.v2.json", docker_config);
	dir(base, "podman"), dir(base, "podman/overlay-containers");
	put(base, "podman/overlay-containers/containers.json", podman_containers);
	runtime_dirs__defaults(&d);
	d.rootless_podman = false;
	snprintf(path, sizeof(path), "%s/docker", base);
	cr_assert_eq(runtime_dirs__set(&d, RUNTIME_DOCKER, path, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/podman", base);
	cr_assert_eq(runtime_dirs__set(&d, RUNTIME_PODMAN, path, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/nolog", base);
	cr_assert_eq(runtime_dirs__set(&d, RUNTIME_KUBERNETES, path, err, sizeof(err)), 0);
	cr_assert_eq(runtime_names__load_ids(&d, ids, 1, &n, NULL), 0);
	/* docker's and podman's ID1, not podman's ID2 */
	cr_assert_eq(n.nr, 2);
	cr_assert_str_eq(runtime_names__of(&n, ID1, false), "web");
	cr_assert_null(runtime_names__of(&n, ID2, false));
	runtime_names__release(&n);
	cr_assert(runtime_names__whole_id(ID1) && runtime_names__whole_id("containerd://" ID1));
	cr_assert(!runtime_names__whole_id("3f2a9c81d0e4") && !runtime_names__whole_id("web"));
	tmpdir_remove(base);
}

/* A file a real dockerd wrote. */
Test(runtime_names, docker_config_real)
{
	char id[CONTAINER_ID_LEN + 1];
	char *name = NULL;

	cr_assert_eq(runtime_names__parse_docker(docker_config_real, strlen(docker_config_real), id, &name), 0);
	cr_assert_str_eq(id, "d13d838a9660f224b1a4ea2cbf8c2d71e91e085c500d4b6a474cb52148bb9391");
	cr_assert_str_eq(name, "prof-i21n-web");
	free(name);
}
