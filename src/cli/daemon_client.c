/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <poll.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "prof/base/util.h"
#include "prof/cli/daemon_client.h"

int daemon_client__init(struct daemon_client *c, const char *path, char *err, size_t errlen)
{
	struct prof_config cfg;
	int r;

	config__defaults(&cfg);
	/* the system file names the socket and the daemon's user; it may be missing */
	r = config__load(&cfg, PROF_SYSCONFDIR "/prof.conf", true, false, err, errlen);
	if (r < 0 && r != -ENOENT)
		return r;
	if (path && strlen(path) >= sizeof(c->socket))
		return errorf(err, errlen, "socket path too long: %s", path);
	snprintf(c->socket, sizeof(c->socket), "%s", path ? path : cfg.daemon.socket);
	snprintf(c->user, sizeof(c->user), "%s", cfg.daemon.user);
	return 0;
}

/* Is the peer of fd the daemon: root, or the [daemon] user? */
static int check_server(const struct daemon_client *c, int fd, char *err, size_t errlen)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);
	struct passwd pw, *res = NULL;
	char buf[4096];

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0)
		return errorf(err, errlen, "%s: cannot tell who answers: %s", c->socket, strerror(errno));
	if (cr.uid == 0 || (getpwnam_r(c->user, &pw, buf, sizeof(buf), &res) == 0 && res && res->pw_uid == cr.uid))
		return 0;
	errorf(err, errlen, "%s: the process answering there runs as uid %u, neither root nor the daemon's user "
	       "'%s' ([daemon] user): not trusting it", c->socket, cr.uid, c->user);
	return -EPERM;
}

static int connect_to(const struct daemon_client *c, char *err, size_t errlen)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = DAEMON_CLIENT_TIMEOUT_MS / 1000 };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), e;

	if (fd < 0)
		return -errno;
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", c->socket);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		e = -errno;
		close(fd);
		errorf(err, errlen, "cannot reach profd at %s: %s%s", c->socket, strerror(-e),
		       e == -ENOENT || e == -ECONNREFUSED ? " (is profd running? systemctl status profd)" : "");
		return e;
	}
	e = check_server(c, fd, err, errlen);
	if (e < 0) {
		close(fd);
		return e;
	}
	return fd;
}

static int read_exact(int fd, void *p, size_t n, const char *path, char *err, size_t errlen)
{
	for (size_t off = 0; off < n;) {
		ssize_t r = read(fd, (char *)p + off, n - off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			int e = r < 0 ? -errno : -EPIPE;

			errorf(err, errlen, "profd at %s: %s", path,
			       e == -EAGAIN ? "no answer in time" : r == 0 ? "the answer ends early" : strerror(-e));
			return e == -EAGAIN ? -ETIMEDOUT : e;
		}
		off += (size_t)r;
	}
	return 0;
}

int daemon_client__ask(const struct daemon_client *c, const struct protocol_request *r, int *ret_status,
		       uint8_t **ret_body, size_t *ret_len, char *err, size_t errlen)
{
	_cleanup_close_ int fd = -1;
	struct snap_out o = { 0 };
	uint8_t hdr[PROTOCOL_RESPONSE_HDR];
	uint8_t *body;
	uint64_t len;
	int e;

	protocol__put_request(&o, r);
	if (o.err) {
		snap_out__release(&o);
		return errorf(err, errlen, "the request is too large");
	}
	fd = connect_to(c, err, errlen);
	e = fd < 0 ? fd : write_full(fd, o.p, o.len);
	snap_out__release(&o);
	if (e < 0 && fd >= 0)
		errorf(err, errlen, "profd at %s: cannot send the request: %s", c->socket, strerror(-e));
	if (e < 0)
		return e;
	e = read_exact(fd, hdr, sizeof(hdr), c->socket, err, errlen);
	if (e < 0)
		return e;
	if (protocol__response_hdr(hdr, ret_status, &len) < 0 || len > PROTOCOL_MAX_RESPONSE ||
	    (*ret_status && len > PROTOCOL_MAX_ERROR))
		return errorf(err, errlen, "profd at %s: not an answer of this protocol", c->socket);
	body = malloc(len + 1);
	if (!body)
		return errorf(err, errlen, "out of memory for an answer of %llu bytes", (unsigned long long)len);
	e = read_exact(fd, body, len, c->socket, err, errlen);
	if (e < 0) {
		free(body);
		return e;
	}
	body[len] = '\0';
	*ret_body = body;
	*ret_len = len;
	return 0;
}

/* ---- times ------------------------------------------------------------------------- */

int daemon_client__parse_duration(const char *s, uint64_t *ret)
{
	uint64_t total = 0;

	if (!*s)
		return -EINVAL;
	while (*s) {
		char *end;
		double v = strtod(s, &end);
		uint64_t unit = 1000000000ull;

		if (end == s || !(v >= 0) || v > 1e9)
			return -EINVAL;
		switch (*end) {
		case 'd':
			unit *= 24;
			/* fall through */
		case 'h':
			unit *= 60;
			/* fall through */
		case 'm':
			unit *= 60;
			/* fall through */
		case 's':
			end++;
			break;
		case '\0':
			break;
		default:
			return -EINVAL;
		}
		total += (uint64_t)(v * (double)unit);
		s = end;
	}
	*ret = total;
	return 0;
}

/* "YYYY-mm-dd HH:MM[:SS]", its T form with an optional Z, or "HH:MM[:SS]" today. */
static int parse_clock(const char *s, uint64_t now, uint64_t *ret)
{
	struct tm tm = { 0 };
	time_t t = (time_t)(now / 1000000000ull);
	const char *end;
	bool utc = false;

	localtime_r(&t, &tm);
	tm.tm_sec = 0;
	if ((end = strptime(s, "%Y-%m-%d %H:%M", &tm)) || (end = strptime(s, "%Y-%m-%dT%H:%M", &tm)) ||
	    (end = strptime(s, "%H:%M", &tm))) {
		if (*end == ':' && !(end = strptime(end, ":%S", &tm)))
			return -EINVAL;
		if (*end == 'Z')
			utc = true, end++;
		if (*end)
			return -EINVAL;
		tm.tm_isdst = -1;
		t = utc ? timegm(&tm) : mktime(&tm);
		if (t < 0)
			return -EINVAL;
		*ret = (uint64_t)t * 1000000000ull;
		return 0;
	}
	return -EINVAL;
}

int daemon_client__parse_time(const char *s, uint64_t now, uint64_t *ret)
{
	uint64_t d;
	char *end;
	double v;

	if (s[0] == '-') {
		if (daemon_client__parse_duration(s + 1, &d) < 0)
			return -EINVAL;
		*ret = d < now ? now - d : 0;
		return 0;
	}
	if (s[0] == '@' || !strchr(s, ':')) {
		v = strtod(s + (s[0] == '@'), &end);
		if (*end || end == s + (s[0] == '@') || !(v >= 0) || v > 1e11)
			return -EINVAL;
		*ret = (uint64_t)(v * 1e9);
		return 0;
	}
	return parse_clock(s, now, ret);
}

void daemon_client__format_time(uint64_t ns, char *buf, size_t len)
{
	time_t t = (time_t)(ns / 1000000000ull);
	struct tm tm;

	if (!ns || !localtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, len, "-");
}
