/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "prof/base/util.h"
#include "prof/daemon/protocol.h"
#include "prof/daemon/server.h"

#define MAX_EVENTS 64
#define LISTEN_BACKLOG 4096
#define SEND_BUFFER (64 << 10)

enum conn_state { READING, WRITING };

struct conn {
	int fd;
	struct server_peer peer;
	enum conn_state state;
	uint8_t in[PROTOCOL_REQUEST_HDR + PROTOCOL_MAX_REQUEST];
	size_t in_len, want;            /* want: header + body once the header is in */
	struct snap_out out;
	size_t out_off;
	uint64_t deadline;              /* monotonic ns */
	struct conn *prev, *next;
};

struct server {
	int listen_fd, ep, stop_fd;
	struct server_limits l;
	server_handler_fn handle;
	void *ctx;
	struct conn *conns;             /* a list: at most max_clients */
	pthread_mutex_t lock;           /* limits and stats, read from other threads */
	struct server_stats st;
};

int server__listen(const char *path, char *err, size_t errlen)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd, e;

	if (strlen(path) >= sizeof(a.sun_path))
		return errorf(err, errlen, "socket path too long (at most %zu bytes): %s", sizeof(a.sun_path) - 1, path);
	strcpy(a.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	/* a daemon answering there already is not replaced; a stale file is */
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0 || errno == EAGAIN) {
		close(fd);
		errorf(err, errlen, "%s: another profd answers there (stop it first, or give another [daemon] socket)",
		       path);
		return -EADDRINUSE;
	}
	close(fd);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	unlink(path);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || chmod(path, 0666) < 0 || listen(fd, LISTEN_BACKLOG) < 0) {
		e = -errno;
		close(fd);
		errorf(err, errlen, "%s: cannot listen: %s", path, strerror(-e));
		return e;
	}
	return fd;
}

int server__new(int listen_fd, const struct server_limits *l, server_handler_fn handle, void *ctx,
		struct server **ret)
{
	struct server *s = calloc(1, sizeof(*s));
	struct epoll_event ev = { .events = EPOLLIN };

	if (!s) {
		close(listen_fd);
		return -ENOMEM;
	}
	*s = (struct server){ .listen_fd = listen_fd, .l = *l, .handle = handle, .ctx = ctx };
	pthread_mutex_init(&s->lock, NULL);
	s->ep = epoll_create1(EPOLL_CLOEXEC);
	s->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ev.data.ptr = &s->listen_fd;
	if (s->ep < 0 || s->stop_fd < 0 || epoll_ctl(s->ep, EPOLL_CTL_ADD, listen_fd, &ev) < 0 ||
	    (ev.data.ptr = &s->stop_fd, epoll_ctl(s->ep, EPOLL_CTL_ADD, s->stop_fd, &ev) < 0)) {
		int e = -errno;

		server__free(s);
		return e;
	}
	*ret = s;
	return 0;
}

static void conn_close(struct server *s, struct conn *c)
{
	close(c->fd);
	if (c->prev)
		c->prev->next = c->next;
	else
		s->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	pthread_mutex_lock(&s->lock);
	s->st.connected--;
	s->st.answer_bytes -= c->out.len - c->out_off;
	pthread_mutex_unlock(&s->lock);
	snap_out__release(&c->out);
	free(c);
}

struct server *server__free(struct server *s)
{
	if (!s)
		return NULL;
	while (s->conns)
		conn_close(s, s->conns);
	if (s->listen_fd >= 0)
		close(s->listen_fd);
	if (s->ep >= 0)
		close(s->ep);
	if (s->stop_fd >= 0)
		close(s->stop_fd);
	pthread_mutex_destroy(&s->lock);
	free(s);
	return NULL;
}

void server__stop(struct server *s)
{
	uint64_t one = 1;

	if (write(s->stop_fd, &one, sizeof(one)) < 0) {
		/* the counter is full: a stop is pending anyway */
	}
}

void server__set_limits(struct server *s, const struct server_limits *l)
{
	pthread_mutex_lock(&s->lock);
	s->l = *l;
	pthread_mutex_unlock(&s->lock);
}

void server__stats(struct server *s, struct server_stats *ret)
{
	pthread_mutex_lock(&s->lock);
	*ret = s->st;
	pthread_mutex_unlock(&s->lock);
}

/* ---- accepting -------------------------------------------------------------------- */

static void peer_of(int fd, struct server_peer *p)
{
	struct ucred cr = { .pid = 0, .uid = UINT32_MAX, .gid = UINT32_MAX };
	socklen_t len = sizeof(cr);
	gid_t groups[SERVER_MAX_GROUPS];

	getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len);
	*p = (struct server_peer){ .uid = cr.uid, .gid = cr.gid, .pid = cr.pid };
	len = sizeof(groups);
	/* more groups than that (ERANGE): the first ones are enough to find admin_group
	 * only if it is among them, so a peer with more is no admin through groups */
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) == 0)
		for (size_t i = 0; i < len / sizeof(gid_t) && i < SERVER_MAX_GROUPS; i++)
			p->groups[p->nr_groups++] = groups[i];
}

/* An answer that fits any socket buffer, sent once, and the connection closed. */
static void refuse(int fd, int status, const char *msg)
{
	struct snap_out o = { 0 };

	protocol__put_error(&o, status, msg);
	if (!o.err && send(fd, o.p, o.len, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
		/* the client is gone or does not read: nothing more to do */
	}
	snap_out__release(&o);
	close(fd);
}

static size_t conns_of(const struct server *s, uint32_t uid)
{
	size_t n = 0;

	for (const struct conn *c = s->conns; c; c = c->next)
		n += c->peer.uid == uid;
	return n;
}

static int add_conn(struct server *s, int fd, const struct server_peer *p, uint64_t now)
{
	struct conn *c = calloc(1, sizeof(*c));
	struct epoll_event ev = { .events = EPOLLIN };

	if (!c)
		return -ENOMEM;
	/* a client that does not read holds this much of the kernel's memory, no more;
	 * the rest of its answer waits here, counted in answers_memory_max */
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &(int){ SEND_BUFFER }, sizeof(int));
	c->fd = fd;
	c->peer = *p;
	c->want = PROTOCOL_REQUEST_HDR;
	c->deadline = now + s->l.timeout_ms * 1000000ull;
	ev.data.ptr = c;
	if (epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
		free(c);
		return -errno;
	}
	c->next = s->conns;
	if (s->conns)
		s->conns->prev = c;
	s->conns = c;
	pthread_mutex_lock(&s->lock);
	s->st.connected++;
	s->st.accepted++;
	pthread_mutex_unlock(&s->lock);
	return 0;
}

static void accept_all(struct server *s, uint64_t now)
{
	char msg[200];
	int fd;

	while ((fd = accept4(s->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		struct server_peer p;
		size_t mine;

		peer_of(fd, &p);
		pthread_mutex_lock(&s->lock);
		if (s->st.connected >= s->l.max_clients) {
			s->st.busy++;
			pthread_mutex_unlock(&s->lock);
			snprintf(msg, sizeof(msg), "busy: %zu clients connected (max_clients %zu); retry", s->st.connected,
				 s->l.max_clients);
			refuse(fd, -EBUSY, msg);
			continue;
		}
		pthread_mutex_unlock(&s->lock);
		mine = conns_of(s, p.uid);
		if (mine >= s->l.max_per_uid) {
			pthread_mutex_lock(&s->lock);
			s->st.busy_uid++;
			pthread_mutex_unlock(&s->lock);
			snprintf(msg, sizeof(msg), "busy: uid %u has %zu connections open (max_clients_per_uid %zu); retry",
				 p.uid, mine, s->l.max_per_uid);
			refuse(fd, -EBUSY, msg);
			continue;
		}
		if (add_conn(s, fd, &p, now) < 0)
			close(fd);
	}
}

/* ---- one connection ----------------------------------------------------------------- */

static void start_writing(struct server *s, struct conn *c, uint64_t now)
{
	struct epoll_event ev = { .events = EPOLLOUT, .data.ptr = c };

	c->state = WRITING;
	c->deadline = now + s->l.timeout_ms * 1000000ull;
	epoll_ctl(s->ep, EPOLL_CTL_MOD, c->fd, &ev);
	pthread_mutex_lock(&s->lock);
	s->st.answer_bytes += c->out.len;
	s->st.answer_bytes_max = MAX(s->st.answer_bytes_max, s->st.answer_bytes);
	pthread_mutex_unlock(&s->lock);
}

static void answer_error(struct server *s, struct conn *c, int status, const char *msg, uint64_t now)
{
	snap_out__release(&c->out);
	protocol__put_error(&c->out, status, msg);
	start_writing(s, c, now);
}

/* The request is in: the handler's answer, unless answers take too much memory. */
static void handle(struct server *s, struct conn *c, uint64_t now)
{
	size_t held, max;
	char msg[200];

	s->handle(s->ctx, &c->peer, c->in + PROTOCOL_REQUEST_HDR, c->in_len - PROTOCOL_REQUEST_HDR, &c->out);
	pthread_mutex_lock(&s->lock);
	held = s->st.answer_bytes;
	max = s->l.answers_memory_max;
	if (c->out.err || (held + c->out.len > max && c->out.len > PROTOCOL_MAX_ERROR)) {
		s->st.busy++;
		pthread_mutex_unlock(&s->lock);
		if (c->out.err)
			snprintf(msg, sizeof(msg), "the answer could not be built (%s); ask for less",
				 strerror(-c->out.err));
		else
			snprintf(msg, sizeof(msg), "busy: %zu bytes of answers are being sent (answers_memory_max %zu); "
				 "retry", held, max);
		answer_error(s, c, -EBUSY, msg, now);
		return;
	}
	s->st.served++;
	pthread_mutex_unlock(&s->lock);
	start_writing(s, c, now);
}

static void on_readable(struct server *s, struct conn *c, uint64_t now)
{
	char msg[PROTOCOL_MAX_ERROR];
	ssize_t n = recv(c->fd, c->in + c->in_len, c->want - c->in_len, MSG_DONTWAIT);
	int len;

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		conn_close(s, c);       /* gone before it asked */
		return;
	}
	if (n < 0)
		return;
	c->in_len += (size_t)n;
	if (c->in_len < c->want)
		return;
	if (c->want == PROTOCOL_REQUEST_HDR) {
		len = protocol__request_len(c->in, msg, sizeof(msg));
		if (len < 0) {
			pthread_mutex_lock(&s->lock);
			s->st.bad_request++;
			pthread_mutex_unlock(&s->lock);
			answer_error(s, c, len, msg, now);
			return;
		}
		c->want += (size_t)len;
		if (len)
			return;
	}
	handle(s, c, now);
}

static void on_writable(struct server *s, struct conn *c, uint64_t now)
{
	ssize_t n = send(c->fd, c->out.p + c->out_off, c->out.len - c->out_off, MSG_DONTWAIT | MSG_NOSIGNAL);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		conn_close(s, c);
		return;
	}
	c->out_off += (size_t)n;
	c->deadline = now + s->l.timeout_ms * 1000000ull;       /* progress */
	pthread_mutex_lock(&s->lock);
	s->st.bytes_out += (uint64_t)n;
	s->st.answer_bytes -= (size_t)n;
	pthread_mutex_unlock(&s->lock);
	if (c->out_off == c->out.len)
		conn_close(s, c);
}

/* Close what is past its deadline; the time to the next deadline, in ms. */
static int expire(struct server *s, uint64_t now)
{
	uint64_t next = now + 1000000000ull;

	for (struct conn *c = s->conns, *n; c; c = n) {
		n = c->next;
		if (c->deadline > now) {
			next = MIN(next, c->deadline);
			continue;
		}
		pthread_mutex_lock(&s->lock);
		*(c->state == READING ? &s->st.timeouts : &s->st.stalled) += 1;
		pthread_mutex_unlock(&s->lock);
		conn_close(s, c);
	}
	return (int)((next - now) / 1000000ull) + 1;
}

int server__run(struct server *s)
{
	struct epoll_event evs[MAX_EVENTS];

	for (;;) {
		int n = epoll_wait(s->ep, evs, MAX_EVENTS, expire(s, clock_mono_ns()));
		uint64_t now = clock_mono_ns();

		if (n < 0 && errno != EINTR)
			return -errno;
		for (int i = 0; i < n; i++) {
			void *p = evs[i].data.ptr;

			if (p == &s->stop_fd)
				return 0;
			if (p == &s->listen_fd) {
				accept_all(s, now);
				continue;
			}
			if (((struct conn *)p)->state == READING)
				on_readable(s, p, now);
			else
				on_writable(s, p, now);
		}
	}
}
