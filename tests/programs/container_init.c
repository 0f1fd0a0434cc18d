/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The last step of a container runtime's start, for the container tests
 * (tests/integration/container.sh).  unshare(1) runs it as pid 1 of new mount, pid
 * and uts (and user) namespaces; it waits until the harness has put it in the
 * container's cgroup (one byte on fd -w, as runc's init waits for its parent), then
 * makes ROOT the root as runc does: ROOT bind-mounted on itself (or an overlay
 * mounted there), proc mounted inside, pivot_root(".", ".") and the old root
 * detached; then it execs the command, found inside ROOT.  After pivot_root,
 * /proc/PID/maps read from the host shows the container's paths, as with real
 * runtimes; after a chroot it would show host paths.
 *
 *   container-init [-w FD] [-n HOSTNAME] [-O OVERLAY_OPTIONS] ROOT CMD [ARGS...]
 *
 * -O mounts an overlay at ROOT ("lowerdir=...,upperdir=...,workdir=...") inside
 * the new mount namespace, as rootless podman does in its own namespace.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

static int die(const char *what, const char *arg)
{
	fprintf(stderr, "container-init: %s %s: %s\n", what, arg ? arg : "", strerror(errno));
	exit(126);
}

static void wait_go(int fd)
{
	char c;

	if (read(fd, &c, 1) != 1) {
		fprintf(stderr, "container-init: the harness closed fd %d without a go\n", fd);
		exit(126);
	}
	close(fd);
}

/* runc's pivotRoot: no directory for the old root is needed inside ROOT. */
static void enter_root(const char *root)
{
	int oldroot = open("/", O_DIRECTORY | O_RDONLY | O_CLOEXEC);

	if (oldroot < 0)
		die("open", "/");
	if (chdir(root) < 0)
		die("chdir", root);
	if (syscall(SYS_pivot_root, ".", ".") < 0)
		die("pivot_root", root);
	if (fchdir(oldroot) < 0)
		die("fchdir", "old root");
	if (mount(NULL, ".", NULL, MS_SLAVE | MS_REC, NULL) < 0)
		die("mount --make-rslave", "old root");
	if (umount2(".", MNT_DETACH) < 0)
		die("umount", "old root");
	close(oldroot);
	if (chdir("/") < 0)
		die("chdir", "/");
}

int main(int argc, char **argv)
{
	const char *host = NULL, *overlay = NULL;
	char proc[4096];
	int go = -1, c;

	while ((c = getopt(argc, argv, "+w:n:O:")) != -1) {
		switch (c) {
		case 'w': go = atoi(optarg); break;
		case 'n': host = optarg; break;
		case 'O': overlay = optarg; break;
		default: return 2;
		}
	}
	if (argc - optind < 2) {
		fprintf(stderr, "usage: container-init [-w FD] [-n HOSTNAME] [-O OVERLAY_OPTIONS] ROOT CMD [ARGS...]\n");
		return 2;
	}
	const char *root = argv[optind];

	if (go >= 0)
		wait_go(go);
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		die("mount --make-rprivate", "/");
	if (overlay ? mount("overlay", root, "overlay", 0, overlay) : mount(root, root, NULL, MS_BIND | MS_REC, NULL))
		die(overlay ? "mount overlay" : "mount --bind", root);
	snprintf(proc, sizeof(proc), "%s/proc", root);
	if (mount("proc", proc, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		die("mount proc", proc);
	if (host && sethostname(host, strlen(host)) < 0)
		die("sethostname", host);
	enter_root(root);
	execv(argv[optind + 1], argv + optind + 1);
	die("exec", argv[optind + 1]);
}
