/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <microhttpd.h>
#include <pthread.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prof/base/util.h"
#include "prof/daemon/export_http.h"
#include "prof/daemon/export_pprof.h"
#include "prof/daemon/sampler.h"
#include "prof/daemon/view.h"

#define PROFILE_PATH "/debug/pprof/profile"
#define SYMBOL_PATH "/debug/pprof/symbol"
#define DEFAULT_SECONDS 30              /* as Go's net/http/pprof */
#define MAX_SECONDS (31ull * 86400)
#define REQUEST_MEMORY (32u << 10)

struct export_http {
	struct history *h;
	struct MHD_Daemon *mhd;
	pthread_mutex_t lock;           /* s and st */
	struct export_http_settings s;
	struct export_http_stats st;
};

/* What a request asks, its arguments checked. */
struct req {
	struct view_query q;
	const char *seconds, *from, *until;
	char err[300];
	uid_t users[VIEW_MAX_SELECTORS];
};

/* ---- the token ---------------------------------------------------------------------------- */

int export_http__read_token(const char *path, char *buf, size_t len, char *err, size_t errlen)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	struct stat st;
	ssize_t n;

	if (fd < 0) {
		int e = errno;

		errorf(err, errlen, "pull_token_file %s: %s", path, strerror(e));
		return -e;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return errorf(err, errlen, "pull_token_file %s is not a regular file", path);
	if ((st.st_mode & 077) || (st.st_uid != 0 && st.st_uid != geteuid()))
		return errorf(err, errlen, "pull_token_file %s must be readable by its owner only (chmod 600) and "
			      "owned by root or profd's user", path);
	n = read(fd, buf, len - 1);
	if (n < 0)
		return errorf(err, errlen, "pull_token_file %s: %s", path, strerror(errno));
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	if (!n || (size_t)n >= len - 1 || strpbrk(buf, "\n\r"))
		return errorf(err, errlen, "pull_token_file %s must hold one line of at most %zu bytes", path, len - 2);
	return 0;
}

/* Compared in time that does not depend on where they differ. */
static bool same_secret(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned char d = la != lb;

	for (size_t i = 0; i < la; i++)
		d |= (unsigned char)(a[i] ^ b[i % (lb ? lb : 1)]);
	return d == 0;
}

/* ---- answers ------------------------------------------------------------------------------ */

static enum MHD_Result respond_text(struct export_http *x, struct MHD_Connection *c, unsigned status,
				    const char *fmt, ...)
{
	char msg[512];
	struct MHD_Response *r;
	enum MHD_Result ret;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg) - 1, fmt, ap);
	va_end(ap);
	n = n < 0 ? 0 : MIN(n, (int)sizeof(msg) - 2);
	msg[n++] = '\n';
	r = MHD_create_response_from_buffer((size_t)n, msg, MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "X-Go-Pprof", "1");     /* go tool pprof prints the message */
	if (status == MHD_HTTP_UNAUTHORIZED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer realm=\"profd\"");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	pthread_mutex_lock(&x->lock);
	if (status == MHD_HTTP_BAD_REQUEST)
		x->st.bad_request++;
	else if (status == MHD_HTTP_UNAUTHORIZED)
		x->st.unauthorized++;
	else if (status == MHD_HTTP_NOT_FOUND || status == MHD_HTTP_METHOD_NOT_ALLOWED)
		x->st.not_found++;
	else
		x->st.failed++;
	snprintf(x->st.last_error, sizeof(x->st.last_error), "%u %.*s", status, n - 1, msg);
	pthread_mutex_unlock(&x->lock);
	return ret;
}

/*
 * Go's symbol service, which go tool pprof asks for the addresses profd did not
 * name: profd names every frame it can in the profile already, so it knows none
 * more (an empty answer: they stay addresses, for a backend with debug files).
 * Without it go tool pprof fails on the 405.
 */
static enum MHD_Result respond_symbol(struct MHD_Connection *c, const char *method)
{
	static const char none[] = "num_symbols: 0\n";
	bool get = !strcmp(method, MHD_HTTP_METHOD_GET);
	struct MHD_Response *r = MHD_create_response_from_buffer(get ? sizeof(none) - 1 : 0, (void *)none,
								 MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	ret = MHD_queue_response(c, get || !strcmp(method, MHD_HTTP_METHOD_POST) ? MHD_HTTP_OK
				 : MHD_HTTP_METHOD_NOT_ALLOWED, r);
	MHD_destroy_response(r);
	return ret;
}

static bool arg_u64(const char *v, uint64_t lo, uint64_t hi, uint64_t *ret)
{
	return v && parse_u64(v, 10, ret) == 0 && *ret >= lo && *ret <= hi;
}

static bool add_sel(const char **v, size_t *nr, const char *value)
{
	if (*nr >= VIEW_MAX_SELECTORS)
		return false;
	v[(*nr)++] = value;
	return true;
}

static enum MHD_Result take_arg(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	struct req *r = cls;
	struct passwd pw, *res = NULL;
	char buf[4096];
	uint64_t u;
	bool ok = true;

	(void)kind;
	if (r->err[0])
		return MHD_NO;
	if (!value)
		value = "";
	if (!strcmp(key, "seconds"))
		r->seconds = value;
	else if (!strcmp(key, "from"))
		r->from = value;
	else if (!strcmp(key, "until"))
		r->until = value;
	else if (!strcmp(key, "uid"))
		ok = arg_u64(value, 0, UINT32_MAX - 1, &u) && r->q.nr_uids < VIEW_MAX_SELECTORS &&
		     (r->q.uids[r->q.nr_uids++] = (uint32_t)u, true);
	else if (!strcmp(key, "user")) {
		if (getpwnam_r(value, &pw, buf, sizeof(buf), &res) != 0 || !res) {
			snprintf(r->err, sizeof(r->err), "no user '%s' on this host", value);
			return MHD_NO;
		}
		ok = r->q.nr_uids < VIEW_MAX_SELECTORS && (r->q.uids[r->q.nr_uids++] = res->pw_uid, true);
	} else if (!strcmp(key, "cgroup"))
		ok = value[0] == '/' && add_sel(r->q.cgroups, &r->q.nr_cgroups, value);
	else if (!strcmp(key, "comm"))
		ok = add_sel(r->q.comms, &r->q.nr_comms, value);
	else if (!strcmp(key, "container"))
		ok = add_sel(r->q.containers, &r->q.nr_containers, value);
	else {
		snprintf(r->err, sizeof(r->err), "unknown parameter '%s' (seconds, from, until, uid, user, cgroup, comm, "
			 "container)", key);
		return MHD_NO;
	}
	if (!ok)
		snprintf(r->err, sizeof(r->err), "bad %s '%s'%s", key, value,
			 !strcmp(key, "cgroup") ? " (a cgroup2 path, /...)" : "");
	return ok ? MHD_YES : MHD_NO;
}

/* The end of the newest closed fine bucket: the window's end for seconds=N. */
static uint64_t newest_end(struct history *h)
{
	size_t n;
	uint64_t end;

	history__rlock(h);
	n = history__nr(h, true);
	end = n ? history__at(h, true, n - 1)->h.end_ns : 0;
	history__runlock(h);
	return end ? end : sampler__realtime_ns();
}

/* The window asked: 0, or -EINVAL with r->err. */
static int window(struct export_http *x, struct req *r)
{
	uint64_t n = DEFAULT_SECONDS, from, until, end;

	if (r->from || r->until) {
		if (r->seconds || !arg_u64(r->from, 1, UINT32_MAX, &from) || !arg_u64(r->until, 1, UINT32_MAX, &until) ||
		    until <= from)
			return errorf(r->err, sizeof(r->err), "from= and until= go together (Unix seconds, until after "
				      "from), without seconds=");
		r->q.from = from * 1000000000ull;
		r->q.until = until * 1000000000ull;
		return 0;
	}
	if (r->seconds && !arg_u64(r->seconds, 1, MAX_SECONDS, &n))
		return errorf(r->err, sizeof(r->err), "bad seconds '%s' (1 to %llu)", r->seconds, MAX_SECONDS);
	end = newest_end(x->h);
	r->q.until = end;
	r->q.from = end > n * 1000000000ull ? end - n * 1000000000ull : 0;
	return 0;
}

static enum MHD_Result send_profile(struct export_http *x, struct MHD_Connection *c, uint8_t *buf, size_t len)
{
	struct MHD_Response *r = MHD_create_response_from_buffer_with_free_callback(len, buf, free);
	enum MHD_Result ret;

	if (!r) {
		free(buf);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/octet-stream");
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_DISPOSITION, "attachment; filename=\"profile\"");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	pthread_mutex_lock(&x->lock);
	x->st.ok++;
	x->st.bytes_out += len;
	pthread_mutex_unlock(&x->lock);
	return ret;
}

/* The profile of a checked request. */
static enum MHD_Result answer(struct export_http *x, struct MHD_Connection *c, struct req *r)
{
	struct export_http_settings s;
	struct view_identity op = { .uid = 0, .admin = true, .kernel = true };
	struct view_answer a;
	struct export_pprof_opts o;
	char err[300], comment[300];
	uint8_t *buf = NULL;
	size_t len = 0;
	int e;

	pthread_mutex_lock(&x->lock);
	s = x->s;
	pthread_mutex_unlock(&x->lock);
	e = view__build(x->h, &op, &r->q, &a, err, sizeof(err));
	if (e < 0) {
		view__release(&a);
		return respond_text(x, c, e == -ENOMEM ? MHD_HTTP_SERVICE_UNAVAILABLE : MHD_HTTP_BAD_REQUEST, "%s",
				    e == -ENOMEM ? "out of memory, retry" : err);
	}
	snprintf(comment, sizeof(comment), "profd: %" PRIu64 " samples from %.3f to %.3f (Unix s), %" PRIu64 " cut, "
		 "%" PRIu64 " records lost%s", a.c.samples, (double)a.from / 1e9, (double)a.until / 1e9, a.c.cut_samples,
		 a.c.lost, a.evicted_before > r->q.from ? ", history before the window's end was dropped for memory" : "");
	o = (struct export_pprof_opts){ .event = s.event, .time_period = s.time_period, .period = s.period,
					.from = a.from, .until = a.until, .labels = true, .comment = comment };
	e = export_pprof__build(&a, &o, &buf, &len);
	view__release(&a);
	if (e < 0)
		return respond_text(x, c, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory, retry");
	return send_profile(x, c, buf, len);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			      const char *version, const char *upload, size_t *upload_size, void **req_cls)
{
	struct export_http *x = cls;
	struct req *r;
	const char *auth;
	char token[EXPORT_TOKEN_MAX + 8];
	enum MHD_Result ret;

	(void)version;
	(void)upload;
	if (!*req_cls) {
		*req_cls = x;           /* the headers are in: answer on the next call */
		return MHD_YES;
	}
	if (*upload_size) {
		*upload_size = 0;       /* a body is not read: GET only */
		return MHD_YES;
	}
	/* the answers' threads yield to the sampling */
	setpriority(PRIO_PROCESS, (id_t)gettid(), 10);
	pthread_mutex_lock(&x->lock);
	x->st.requests++;
	snprintf(token, sizeof(token), "Bearer %s", x->s.token);
	pthread_mutex_unlock(&x->lock);
	if (!strcmp(url, SYMBOL_PATH))
		return respond_symbol(c, method);
	if (strcmp(method, MHD_HTTP_METHOD_GET))
		return respond_text(x, c, MHD_HTTP_METHOD_NOT_ALLOWED, "profd answers GET %s only", PROFILE_PATH);
	auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	if (token[7] && (!auth || !same_secret(auth, token)))
		return respond_text(x, c, MHD_HTTP_UNAUTHORIZED, "%s", auth ? "wrong bearer token" :
				    "an Authorization: Bearer token is needed (the scraper's bearer_token_file)");
	if (strcmp(url, PROFILE_PATH))
		return respond_text(x, c, MHD_HTTP_NOT_FOUND, "profd serves CPU profiles only, at %s", PROFILE_PATH);
	r = calloc(1, sizeof(*r));
	if (!r)
		return respond_text(x, c, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory, retry");
	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, take_arg, r);
	if (r->err[0] || window(x, r) < 0)
		ret = respond_text(x, c, MHD_HTTP_BAD_REQUEST, "%s", r->err);
	else
		ret = answer(x, c, r);
	free(r);
	return ret;
}

static void quiet(void *cls, const char *fmt, va_list ap)
{
	/* modules do not print: what goes wrong is in the status */
	(void)cls;
	(void)fmt;
	(void)ap;
}

/* ---- life cycle ---------------------------------------------------------------------------- */

int export_http__start(struct history *h, const struct export_http_settings *s, struct export_http **ret,
		       char *err, size_t errlen)
{
	struct export_http *x = calloc(1, sizeof(*x));
	struct sockaddr_storage ss;
	const union MHD_DaemonInfo *info;
	size_t len;
	bool loopback;

	*ret = NULL;
	if (!x) {
		errorf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (export_config__listen_addr(s->c.pull_listen, &ss, &len, &loopback) < 0) {
		free(x);
		return errorf(err, errlen, "bad pull_listen '%s'", s->c.pull_listen);
	}
	x->h = h;
	x->s = *s;
	pthread_mutex_init(&x->lock, NULL);
	errno = 0;
	x->mhd = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG |
				  (ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0), 0, NULL, NULL, handle, x,
				  MHD_OPTION_EXTERNAL_LOGGER, quiet, NULL,
				  MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				  MHD_OPTION_THREAD_POOL_SIZE, (unsigned)s->c.pull_max_builds,
				  MHD_OPTION_CONNECTION_LIMIT, (unsigned)s->c.pull_max_connections,
				  MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)MAX(1, s->c.pull_max_connections / 2),
				  MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)s->c.pull_timeout,
				  MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)REQUEST_MEMORY, MHD_OPTION_END);
	if (!x->mhd) {
		int e = errno ? errno : EADDRINUSE;

		pthread_mutex_destroy(&x->lock);
		free(x);
		errorf(err, errlen, "cannot serve pull_listen %s: %s", s->c.pull_listen, strerror(e));
		return -e;
	}
	info = MHD_get_daemon_info(x->mhd, MHD_DAEMON_INFO_BIND_PORT);
	x->st.port = info ? info->port : 0;
	*ret = x;
	return 0;
}

struct export_http *export_http__free(struct export_http *x)
{
	if (!x)
		return NULL;
	MHD_stop_daemon(x->mhd);
	pthread_mutex_destroy(&x->lock);
	free(x);
	return NULL;
}

void export_http__configure(struct export_http *x, const struct export_http_settings *s)
{
	pthread_mutex_lock(&x->lock);
	x->s = *s;
	pthread_mutex_unlock(&x->lock);
}

void export_http__stats(struct export_http *x, struct export_http_stats *ret)
{
	pthread_mutex_lock(&x->lock);
	*ret = x->st;
	pthread_mutex_unlock(&x->lock);
}

void export_http__add_stats(struct export_http_stats *sum, const struct export_http_stats *a)
{
	sum->requests += a->requests;
	sum->ok += a->ok;
	sum->bad_request += a->bad_request;
	sum->unauthorized += a->unauthorized;
	sum->not_found += a->not_found;
	sum->failed += a->failed;
	sum->bytes_out += a->bytes_out;
	sum->port = a->port;
	if (a->last_error[0])
		memcpy(sum->last_error, a->last_error, sizeof(sum->last_error));
}

void export_http__status(const struct export_http_stats *st, bool on, struct snap_out *o, bool admin)
{
	char line[600];
	int n;

	if (!admin)
		return;
	n = snprintf(line, sizeof(line),
		     "pull %s\npull_port %u\npull_requests %" PRIu64 "\npull_ok %" PRIu64 "\npull_bad_request %" PRIu64
		     "\npull_unauthorized %" PRIu64 "\npull_not_found %" PRIu64 "\npull_failed %" PRIu64
		     "\npull_bytes %" PRIu64 "\n", on ? "on" : "off", on ? st->port : 0, st->requests, st->ok,
		     st->bad_request, st->unauthorized, st->not_found, st->failed, st->bytes_out);
	if (n > 0)
		snapshot__put_raw(o, line, MIN((size_t)n, sizeof(line) - 1));
	if (st->last_error[0]) {
		n = snprintf(line, sizeof(line), "pull_last_error %s\n", st->last_error);
		if (n > 0)
			snapshot__put_raw(o, line, MIN((size_t)n, sizeof(line) - 1));
	}
}
