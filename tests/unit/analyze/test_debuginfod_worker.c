/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * debuginfod_worker: its four outcomes against a real HTTP server on the loopback (a
 * thread of this test that answers /buildid/HEX/debuginfo with this test's own
 * executable, whose build id it has, for two build ids, and 404 otherwise): found
 * (kept, opened, announced), refused (another build's file: not kept), failed (a
 * closed port, the other server's 404 notwithstanding), not found; each build id
 * asked once.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <criterion/criterion.h>

#include "prof/analyze/debuginfod_worker.h"
#include "prof/base/util.h"
#include "prof/perfdata/build_id.h"

static struct build_id self;                    /* this executable's */
static char self_hex[2 * BUILD_ID_MAX + 1];
static const char other_hex[] = "00112233445566778899aabbccddeeff00112233";  /* served: not its file */
static int lfd = -1;
static int requests;

static void answer(int c)
{
	char req[1024], path[256], head[256];
	ssize_t n = read(c, req, sizeof(req) - 1);
	bool serve;

	if (n <= 0)
		return;
	req[n] = '\0';
	requests++;
	serve = sscanf(req, "GET %255s", path) == 1 &&
		(strstr(path, self_hex) || strstr(path, other_hex)) && strstr(path, "/debuginfo");
	if (serve) {
		int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
		struct stat st;
		char buf[65536];

		fstat(fd, &st);
		snprintf(head, sizeof(head), "HTTP/1.1 200 OK\r\nContent-Length: %lld\r\nConnection: close\r\n\r\n",
			 (long long)st.st_size);
		write_full(c, head, strlen(head));
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			write_full(c, buf, (size_t)n);
		close(fd);
	} else {
		snprintf(head, sizeof(head), "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
		write_full(c, head, strlen(head));
	}
}

static void *serve(void *arg)
{
	int c;

	(void)arg;
	while ((c = accept(lfd, NULL, NULL)) >= 0) {
		answer(c);
		close(c);
	}
	return NULL;
}

static int listen_loopback(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	cr_assert_geq(fd, 0);
	cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	cr_assert_eq(listen(fd, 16), 0);
	cr_assert_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	lfd = fd;
	return ntohs(a.sin_port);
}

/* A port nothing listens on (bound, then closed). */
static int closed_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	cr_assert_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	close(fd);
	return ntohs(a.sin_port);
}

static void from_hex(const char *hex, uint8_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sscanf(hex + 2 * i, "%2hhx", &out[i]);
}

static void on_arrival(const uint8_t *bid, size_t len, void *ctx)
{
	int *n = ctx;

	cr_assert_eq(len, self.size);
	cr_assert_arr_eq(bid, self.data, len);
	(*n)++;
}

/* Wait until w has answered `asked` build ids (10 s at most). */
static void settle(struct debuginfod_worker *w, uint64_t asked, struct debuginfod_stats *st)
{
	for (int i = 0; i < 1000; i++) {
		debuginfod_worker__stats(w, st);
		if (st->asked >= asked)
			return;
		usleep(10000);
	}
	cr_assert_fail("the worker answered %" PRIu64 " of %" PRIu64, st->asked, asked);
}

Test(debuginfod_worker, outcomes)
{
	char dir[] = "/tmp/prof-dbgd-XXXXXX", urls[128], path[PATH_MAX], *name = NULL;
	uint8_t other[20], missing[20];
	struct debuginfod_worker *w = NULL;
	struct debuginfod_stats st;
	pthread_t t;
	uint64_t seq = 0;
	int fd, arrivals = 0, port;

	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	cr_assert_eq(build_id__read_elf(fd, &self), 0, "this test has no build id");
	close(fd);
	build_id__hex(&self, self_hex, sizeof(self_hex));
	from_hex(other_hex, other, sizeof(other));
	memcpy(missing, other, sizeof(missing));
	missing[0] ^= 0xff;
	port = listen_loopback();
	cr_assert_eq(pthread_create(&t, NULL, serve, NULL), 0);
	cr_assert_not_null(mkdtemp(dir));
	/* the closed port first: each server in turn, the second answers */
	snprintf(urls, sizeof(urls), "http://127.0.0.1:%d http://127.0.0.1:%d/", closed_port(), port);
	cr_assert_eq(debuginfod_worker__start(&(struct debuginfod_worker_config){ .urls = urls, .cache_dir = dir,
		     .timeout = 5, .maxtime = 30, .maxsize = 1u << 30 }, &w), 0);

	cr_assert_eq(debuginfod_worker__open(w, self.data, self.size, &name), -ENOENT);
	debuginfod_worker__ask(w, self.data, self.size);
	debuginfod_worker__ask(w, self.data, self.size);        /* once */
	debuginfod_worker__ask(w, other, sizeof(other));
	debuginfod_worker__ask(w, missing, sizeof(missing));
	settle(w, 3, &st);
	cr_assert_eq(st.asked, 3);
	cr_assert_eq(st.found, 1);
	cr_assert_eq(st.refused, 1, "another build's file was taken");
	/* a server did not answer: that it has no file is not known */
	cr_assert_eq(st.not_found, 0);
	cr_assert_eq(st.failed, 1);
	debuginfod_worker__arrived(w, &seq, on_arrival, &arrivals);
	cr_assert_eq(arrivals, 1);
	debuginfod_worker__arrived(w, &seq, on_arrival, &arrivals);
	cr_assert_eq(arrivals, 1, "an arrival announced twice");
	fd = debuginfod_worker__open(w, self.data, self.size, &name);
	cr_assert_geq(fd, 0);
	snprintf(path, sizeof(path), "%s/%s/debuginfo", dir, self_hex);
	cr_assert_str_eq(name, path);
	close(fd);
	free(name);
	snprintf(path, sizeof(path), "%s/%s", dir, other_hex);
	cr_assert_neq(access(path, F_OK), 0, "another build's file is kept");
	cr_assert_eq(debuginfod_worker__open(w, other, sizeof(other), &name), -ENOENT);
	debuginfod_worker__stop(w);

	/* the server alone: it has no file for that build id */
	snprintf(urls, sizeof(urls), "http://127.0.0.1:%d", port);
	cr_assert_eq(debuginfod_worker__start(&(struct debuginfod_worker_config){ .urls = urls, .cache_dir = dir,
		     .timeout = 5, .maxtime = 30, .maxsize = 1u << 30 }, &w), 0);
	debuginfod_worker__ask(w, missing, sizeof(missing));
	settle(w, 1, &st);
	cr_assert_eq(st.not_found, 1);
	cr_assert_eq(st.failed, 0);
	debuginfod_worker__stop(w);

	snprintf(path, sizeof(path), "%s/%s/debuginfo", dir, self_hex);
	unlink(path);
	snprintf(path, sizeof(path), "%s/%s", dir, self_hex);
	rmdir(path);
	cr_assert_eq(rmdir(dir), 0, "the worker left files behind");
	shutdown(lfd, SHUT_RDWR);
	close(lfd);
	pthread_join(t, NULL);
}

Test(debuginfod_worker, needs_a_url)
{
	struct debuginfod_worker *w = NULL;

	cr_assert_eq(debuginfod_worker__start(&(struct debuginfod_worker_config){ .urls = " ", .cache_dir = "/tmp" }, &w),
		     -EINVAL);
	cr_assert_null(w);
}
