/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prof/base/escape.h"
#include "prof/base/util.h"
#include "prof/output/keys.h"
#include "prof/ui/ui.h"

/* The page (src/ui/page.html), embedded by the build. */
extern const unsigned char ui_page[];
extern const size_t ui_page_len;

#define COOKIE "prof_ui"
#define REQUEST_MEMORY (64u << 10)
#define FLAME_ZOOM 16                   /* /api/flame?px=: detail kept for this zoom */

/* The answers about a window's profile (/api/NAME). */
static const char *const window_apis[] = { "folded", "top", "flame", "search", "svg", "pprof", "group",
					   "sandwich", "diff" };

static void profile_freep(struct profile **p)
{
	profile__free(*p);
}

/* A window a query asks: source, event (an index of its events), [from, until) ns. */
struct window_ask {
	uint64_t src, ev, from, until;
};

struct ui_server {
	struct MHD_Daemon *mhd;
	const struct ui_provider *p;
	char token[UI_TOKEN_LEN + 1];
	char address[80];
	void (*log)(void *ctx, const char *msg);
	void *log_ctx;
};

int ui_token__new(char *buf)
{
	unsigned char raw[UI_TOKEN_LEN / 2];

	for (size_t got = 0; got < sizeof(raw);) {
		ssize_t n = getrandom(raw + got, sizeof(raw) - got, 0);

		if (n < 0 && errno != EINTR)
			return -errno;
		got += n > 0 ? (size_t)n : 0;
	}
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(buf + 2 * i, 3, "%02x", raw[i]);
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

static void logf_(struct ui_server *s, const char *fmt, ...)
{
	char msg[600];
	va_list ap;

	if (!s->log)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	s->log(s->log_ctx, msg);
}

/* ---- answers ------------------------------------------------------------------------------ */

/* An answer of body (mode: whose it is), with one more header when name is not NULL. */
static enum MHD_Result respond(struct MHD_Connection *c, unsigned status, const char *type, void *body,
			       size_t len, enum MHD_ResponseMemoryMode mode, const char *name, const char *value)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, mode);
	enum MHD_Result ret;

	if (!r) {
		if (mode == MHD_RESPMEM_MUST_FREE)
			free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	MHD_add_response_header(r, "Referrer-Policy", "no-referrer");      /* the token is in the URL */
	/* the page's own script and style only: nothing is fetched from elsewhere */
	MHD_add_response_header(r, "Content-Security-Policy", "default-src 'self'; script-src 'unsafe-inline'; "
				"style-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'");
	if (name)
		MHD_add_response_header(r, name, value);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result respond_text(struct MHD_Connection *c, unsigned status, const char *fmt, ...)
{
	char msg[700];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg) - 1, fmt, ap);
	va_end(ap);
	n = n < 0 ? 0 : MIN(n, (int)sizeof(msg) - 2);
	msg[n++] = '\n';
	return respond(c, status, "text/plain; charset=utf-8", msg, (size_t)n, MHD_RESPMEM_MUST_COPY, NULL, NULL);
}

static const char *arg(struct MHD_Connection *c, const char *name)
{
	return MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, name);
}

/* A query's number (absent: dflt).  0 or -EINVAL. */
static int arg_u64(struct MHD_Connection *c, const char *name, uint64_t dflt, uint64_t *ret)
{
	const char *v = arg(c, name);

	*ret = dflt;
	return v && *v ? parse_u64(v, 10, ret) : 0;
}

/* /api/sources: each source's name, event, samples, timeline, and why it has none. */
static int render_sources(const struct ui_provider *p, char **ret, size_t *ret_len)
{
	FILE *f = open_memstream(ret, ret_len);

	if (!f)
		return -ENOMEM;
	fputs("{\"sources\":[", f);
	for (size_t i = 0; i < p->nr_sources; i++) {
		const struct ui_source_info *s = p->info(p->ctx, i);
		const char *str[] = { s->name, s->error, s->warning, s->event };
		const char *key[] = { "name", "error", "warning", "event" };

		fputs(i ? ",{" : "{", f);
		for (size_t k = 0; k < ARRAY_SIZE(str); k++) {
			fprintf(f, "\"%s\":", key[k]);
			if (str[k])
				escape__json(f, str[k], strlen(str[k]));
			else
				fputs("null", f);
			fputc(',', f);
		}
		fprintf(f, "\"samples\":%" PRIu64 ",\"start_ns\":%" PRIu64 ",\"bucket_ns\":%" PRIu64 ",\"counts\":[", s->samples,
			s->start_ns, s->bucket_ns);
		for (size_t k = 0; k < s->nr_counts; k++)
			fprintf(f, k ? ",%" PRIu64 : "%" PRIu64, s->counts[k]);
		fprintf(f, "],\"admin\":%s,\"events\":[", s->admin ? "true" : "false");
		for (size_t e = 0; e < s->nr_events; e++) {
			fputs(e ? ",{\"name\":" : "{\"name\":", f);
			escape__json(f, s->events[e].name, strlen(s->events[e].name));
			fprintf(f, ",\"samples\":%" PRIu64 ",\"counts\":[", s->events[e].samples);
			for (size_t k = 0; k < s->nr_counts; k++)
				fprintf(f, k ? ",%" PRIu64 : "%" PRIu64, s->events[e].counts ? s->events[e].counts[k] : 0);
			fputs("]}", f);
		}
		fputs("]}", f);
	}
	fputs("]}\n", f);
	if (fclose(f)) {
		free(*ret);
		return -ENOMEM;
	}
	return 0;
}

/* The nodes a flame graph of px pixels leaves out: min samples (given), or those
 * narrower than half a pixel zoomed FLAME_ZOOM times.  0 or -EINVAL. */
static int flame_min(struct MHD_Connection *c, const struct profile *p, uint64_t *ret)
{
	uint64_t px;

	if (arg_u64(c, "min", 0, ret) < 0 || arg_u64(c, "px", 0, &px) < 0)
		return -EINVAL;
	if (!*ret && px)
		*ret = profile__stats(p)->samples / (2 * FLAME_ZOOM * MIN(px, (uint64_t)1 << 20));
	return 0;
}

/* The window as pprof, through the provider (it knows the event and objects). */
static int render_pprof(const struct ui_provider *p, const struct window_ask *w, const struct profile *prof,
			char **ret, size_t *ret_len, char *err, size_t errlen)
{
	_cleanup_close_ int fd = memfd_create("prof-ui-pprof", MFD_CLOEXEC);
	struct stat st;
	int e;

	if (fd < 0)
		return -errno;
	e = p->pprof(p->ctx, w->src, w->ev, prof, w->from, w->until, fd, err, errlen);
	if (e < 0)
		return e;
	if (fstat(fd, &st) < 0)
		return -errno;
	*ret = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!*ret)
		return -ENOMEM;
	*ret_len = (size_t)st.st_size;
	if (pread(fd, *ret, *ret_len, 0) != (ssize_t)*ret_len) {
		free(*ret);
		return -EIO;
	}
	return 0;
}

/* The filters a query gives, named as prof report's --sort keys: uid=, cgroup=,
 * container=, comm=, holder=, holder_cgroup=, holder_container=. */
static size_t filters_of(struct MHD_Connection *c, struct ui_filter *f)
{
	static const struct { const char *name; enum profile_key key; } by[] = {
		{ "uid", PROFILE_KEY_UID }, { "cgroup", PROFILE_KEY_CGROUP },
		{ "container", PROFILE_KEY_CONTAINER }, { "comm", PROFILE_KEY_COMM },
		{ "holder", PROFILE_KEY_HOLDER }, { "holder_cgroup", PROFILE_KEY_HOLDER_CGROUP },
		{ "holder_container", PROFILE_KEY_HOLDER_CONTAINER },
	};
	size_t n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(by) && n < UI_FILTERS_MAX; i++)
		if (arg(c, by[i].name))
			f[n++] = (struct ui_filter){ by[i].key, arg(c, by[i].name) };
	return n;
}

/* A window the query asks (suffix "2": a diff's second, whose src, ev, from and until
 * default to the first's, the source whole).  0, or -EINVAL. */
static int window_ask_of(struct MHD_Connection *c, const char *suffix, const struct window_ask *dflt,
			 struct window_ask *w)
{
	char name[4][16];
	const char *key[] = { "src", "ev", "from", "until" };

	for (size_t i = 0; i < ARRAY_SIZE(key); i++)
		snprintf(name[i], sizeof(name[i]), "%s%s", key[i], suffix);
	if (arg_u64(c, name[0], dflt ? dflt->src : 0, &w->src) < 0 ||
	    arg_u64(c, name[1], dflt ? dflt->ev : 0, &w->ev) < 0 ||
	    arg_u64(c, name[2], 0, &w->from) < 0 || arg_u64(c, name[3], UINT64_MAX, &w->until) < 0)
		return -EINVAL;
	return 0;
}

/* The profile of window w, filtered (*owned then holds it, the caller frees).  0, or an
 * HTTP status with a message in err. */
static unsigned view_get(const struct ui_provider *p, const struct window_ask *w, const struct ui_filter *f,
			 size_t nr_filters, const struct profile **ret, struct profile **owned, char *err,
			 size_t errlen)
{
	const struct model *m = NULL;
	int e;

	*owned = NULL;
	if (w->src >= p->nr_sources) {
		snprintf(err, errlen, "no source %" PRIu64 " (there are %zu)", w->src, p->nr_sources);
		return MHD_HTTP_NOT_FOUND;
	}
	if (p->info(p->ctx, w->src)->error) {
		snprintf(err, errlen, "%s", p->info(p->ctx, w->src)->error);
		return MHD_HTTP_CONFLICT;
	}
	if (w->ev >= p->info(p->ctx, w->src)->nr_events) {
		snprintf(err, errlen, "no event %" PRIu64 " in source %" PRIu64 " (/api/sources lists its events)",
			 w->ev, w->src);
		return MHD_HTTP_NOT_FOUND;
	}
	e = p->window(p->ctx, w->src, w->ev, w->from, w->until, ret, &m, err, errlen);
	if (e < 0)
		return e == -ENOMEM ? MHD_HTTP_SERVICE_UNAVAILABLE : MHD_HTTP_INTERNAL_SERVER_ERROR;
	if (nr_filters && ui_filter__apply(*ret, m, f, nr_filters, owned) < 0) {
		snprintf(err, errlen, "out of memory");
		return MHD_HTTP_SERVICE_UNAVAILABLE;
	}
	if (*owned)
		*ret = *owned;
	return 0;
}

/* The model of a window (for /api/group's names): asked again, cached by the provider. */
static const struct model *view_model(const struct ui_provider *p, const struct window_ask *w)
{
	const struct profile *prof;
	const struct model *m = NULL;
	char err[200];

	return p->window(p->ctx, w->src, w->ev, w->from, w->until, &prof, &m, err, sizeof(err)) < 0 ? NULL : m;
}

/* A --sort key /api/group takes: a task's, not a frame's. */
static int group_key(const char *name, enum profile_key *ret)
{
	static const enum profile_key ok[] = { PROFILE_KEY_UID, PROFILE_KEY_CGROUP, PROFILE_KEY_CONTAINER,
		PROFILE_KEY_COMM, PROFILE_KEY_HOLDER, PROFILE_KEY_HOLDER_CGROUP,
		PROFILE_KEY_HOLDER_CONTAINER };

	for (size_t i = 0; name && i < ARRAY_SIZE(ok); i++)
		if (!strcmp(name, keys__name(ok[i]))) {
			*ret = ok[i];
			return 0;
		}
	return -EINVAL;
}

/* The body of what (the window's profile prof through its writer).  0, -EINVAL for a
 * bad parameter, -errno (err may say). */
static int render_what(struct ui_server *s, struct MHD_Connection *c, const char *what, const struct window_ask *w,
		       const struct profile *prof, char **body, size_t *len, char *err, size_t errlen)
{
	const struct ui_provider *p = s->p;
	char title[300];
	uint64_t limit, min;
	enum profile_key k;

	if (!strcmp(what, "folded"))
		return ui_render__folded(prof, body, len);
	if (!strcmp(what, "top"))
		return arg_u64(c, "limit", 0, &limit) < 0 ? -EINVAL : ui_render__top(prof, (size_t)limit, body, len);
	if (!strcmp(what, "flame"))
		return flame_min(c, prof, &min) < 0 ? -EINVAL : ui_render__flame(prof, min, body, len);
	if (!strcmp(what, "search"))
		return ui_render__search(prof, arg(c, "q") ? arg(c, "q") : "", body, len);
	if (!strcmp(what, "pprof"))
		return render_pprof(p, w, prof, body, len, err, errlen);
	if (!strcmp(what, "group"))
		return group_key(arg(c, "key"), &k) < 0 ? -EINVAL
		       : ui_render__group(prof, view_model(p, w), k, body, len);
	if (!strcmp(what, "sandwich"))
		return !arg(c, "sym") || flame_min(c, prof, &min) < 0 ? -EINVAL
		       : ui_render__sandwich(prof, arg(c, "sym"), arg(c, "dso"), min, body, len);
	snprintf(title, sizeof(title), "prof ui: %s", p->info(p->ctx, w->src)->name);
	return ui_render__svg(prof, title, body, len);
}

/* /api/diff: two windows (src, ev, from, until and src2, ev2, from2, until2), each
 * filtered alike, merged into one tree. */
static enum MHD_Result respond_diff(struct ui_server *s, struct MHD_Connection *c, const struct window_ask *wa,
				    const struct ui_filter *f, size_t nf)
{
	_cleanup_(profile_freep) struct profile *own_a = NULL, *own_b = NULL;
	const struct profile *a, *b;
	struct window_ask wb;
	char err[400] = "", *body = NULL;
	size_t len = 0;
	uint64_t min, px;
	unsigned st;
	int e;

	if (window_ask_of(c, "2", wa, &wb) < 0 || arg_u64(c, "min", 0, &min) < 0 || arg_u64(c, "px", 0, &px) < 0)
		return respond_text(c, MHD_HTTP_BAD_REQUEST, "src2, ev2, from2, until2, min and px are numbers");
	if ((st = view_get(s->p, wa, f, nf, &a, &own_a, err, sizeof(err))) ||
	    (st = view_get(s->p, &wb, f, nf, &b, &own_b, err, sizeof(err))))
		return respond_text(c, st, "%s", err);
	if (!min && px)
		min = (profile__stats(a)->samples + profile__stats(b)->samples) / (2 * FLAME_ZOOM * MIN(px, (uint64_t)1 << 20));
	e = ui_render__diff(a, b, min, &body, &len);
	if (e < 0)
		return respond_text(c, MHD_HTTP_SERVICE_UNAVAILABLE, "%s", strerror(-e));
	return respond(c, MHD_HTTP_OK, "application/json", body, len, MHD_RESPMEM_MUST_FREE, NULL, NULL);
}

/* /api/folded, /api/top, /api/flame, /api/search, /api/svg, /api/pprof, /api/group,
 * /api/sandwich, /api/diff: the window's profile (filtered) through its writer. */
static enum MHD_Result respond_window(struct ui_server *s, struct MHD_Connection *c, const char *what)
{
	_cleanup_(profile_freep) struct profile *owned = NULL;
	struct ui_filter f[UI_FILTERS_MAX];
	const struct profile *prof;
	struct window_ask w;
	char err[400] = "", disp[120];
	char *body = NULL;
	size_t len = 0, nf = filters_of(c, f);
	unsigned st;
	int e;

	if (window_ask_of(c, "", NULL, &w) < 0)
		return respond_text(c, MHD_HTTP_BAD_REQUEST, "src, ev, from and until are numbers (from and until: "
				    "ns after the source's start_ns, /api/sources)");
	if (!strcmp(what, "diff"))
		return respond_diff(s, c, &w, f, nf);
	st = view_get(s->p, &w, f, nf, &prof, &owned, err, sizeof(err));
	if (st)
		return respond_text(c, st, "%s", err);
	e = render_what(s, c, what, &w, prof, &body, &len, err, sizeof(err));
	if (e == -EINVAL)
		return respond_text(c, MHD_HTTP_BAD_REQUEST, "limit, min and px are numbers; key is one of uid, "
				    "cgroup, container, comm, holder, holder_cgroup, holder_container; "
				    "sandwich needs sym");
	if (e < 0)
		return respond_text(c, !strcmp(what, "pprof") ? MHD_HTTP_INTERNAL_SERVER_ERROR
				    : MHD_HTTP_SERVICE_UNAVAILABLE, "%s", err[0] ? err : strerror(-e));
	if (!strcmp(what, "pprof")) {
		snprintf(disp, sizeof(disp), "attachment; filename=\"prof-%" PRIu64 ".pb.gz\"", w.src);
		return respond(c, MHD_HTTP_OK, "application/octet-stream", body, len, MHD_RESPMEM_MUST_FREE,
			       MHD_HTTP_HEADER_CONTENT_DISPOSITION, disp);
	}
	if (!strcmp(what, "folded"))
		return respond(c, MHD_HTTP_OK, "text/plain; charset=utf-8", body, len, MHD_RESPMEM_MUST_FREE, NULL, NULL);
	if (!strcmp(what, "svg")) {
		snprintf(disp, sizeof(disp), "attachment; filename=\"prof-%" PRIu64 ".svg\"", w.src);
		return respond(c, MHD_HTTP_OK, "image/svg+xml", body, len, MHD_RESPMEM_MUST_FREE,
			       MHD_HTTP_HEADER_CONTENT_DISPOSITION, disp);
	}
	return respond(c, MHD_HTTP_OK, "application/json", body, len, MHD_RESPMEM_MUST_FREE, NULL, NULL);
}

/* The token of the query or of the page's cookie: the run's, or refused. */
static bool admitted(struct ui_server *s, struct MHD_Connection *c, bool *ret_by_query)
{
	const char *q = arg(c, "token");
	const char *k = MHD_lookup_connection_value(c, MHD_COOKIE_KIND, COOKIE);

	*ret_by_query = q && same_secret(q, s->token);
	return *ret_by_query || (k && same_secret(k, s->token));
}

static void log_refused(struct ui_server *s, struct MHD_Connection *c, const char *url, const char *method)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	char host[INET6_ADDRSTRLEN] = "?", u[200];
	const struct sockaddr *sa = ci ? ci->client_addr : NULL;

	if (sa && sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, host, sizeof(host));
	else if (sa && sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, host, sizeof(host));
	escape__text(u, sizeof(u), url);
	logf_(s, "refused %s %s from %s: %s (403)", method, u, host,
	      arg(c, "token") || MHD_lookup_connection_value(c, MHD_COOKIE_KIND, COOKIE) ? "wrong token" : "no token");
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			      const char *version, const char *upload, size_t *upload_size, void **req_cls)
{
	struct ui_server *s = cls;
	char cookie[UI_TOKEN_LEN + 80];
	bool by_query;
	char *body;
	size_t len;

	(void)version;
	(void)upload;
	if (!*req_cls) {
		*req_cls = s;           /* the headers are in: answer on the next call */
		return MHD_YES;
	}
	if (*upload_size) {
		*upload_size = 0;       /* a body is not read */
		return MHD_YES;
	}
	if (!admitted(s, c, &by_query)) {
		log_refused(s, c, url, method);
		return respond_text(c, MHD_HTTP_FORBIDDEN, "prof ui: the address prof ui printed (with its ?token=) "
				    "is needed");
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return respond_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "prof ui answers GET only");
	if (!strcmp(url, "/")) {
		/* the page's requests carry the cookie, so its own URLs need no token */
		snprintf(cookie, sizeof(cookie), COOKIE "=%s; Path=/; HttpOnly; SameSite=Strict", s->token);
		return respond(c, MHD_HTTP_OK, "text/html; charset=utf-8", (void *)ui_page, ui_page_len,
			       MHD_RESPMEM_PERSISTENT, by_query ? MHD_HTTP_HEADER_SET_COOKIE : NULL, cookie);
	}
	if (!strcmp(url, "/api/sources")) {
		if (render_sources(s->p, &body, &len) < 0)
			return respond_text(c, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory");
		return respond(c, MHD_HTTP_OK, "application/json", body, len, MHD_RESPMEM_MUST_FREE, NULL, NULL);
	}
	for (size_t i = 0; i < ARRAY_SIZE(window_apis); i++)
		if (!strncmp(url, "/api/", 5) && !strcmp(url + 5, window_apis[i]))
			return respond_window(s, c, url + 5);
	return respond_text(c, MHD_HTTP_NOT_FOUND, "prof ui serves /, /api/sources, /api/folded, /api/top, "
			    "/api/flame, /api/search, /api/svg, /api/pprof, /api/group, /api/sandwich and /api/diff");
}

/* ---- the socket --------------------------------------------------------------------------- */

static bool is_loopback(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)(const void *)ss)->sin_addr.s_addr) >> 24) == 127;
	return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)(const void *)ss)->sin6_addr);
}

/* "ADDR:PORT" or "[ADDR6]:PORT" into ss.  0 or -EINVAL with err. */
static int parse_listen(const char *listen, struct sockaddr_storage *ss, char *err, size_t errlen)
{
	char host[INET6_ADDRSTRLEN + 2];
	const char *colon = strrchr(listen, ':');
	size_t hl = colon ? (size_t)(colon - listen) : 0;
	uint64_t port;

	memset(ss, 0, sizeof(*ss));
	if (!colon || hl >= sizeof(host) || parse_u64(colon + 1, 10, &port) < 0 || port > 65535)
		return errorf(err, errlen, "--listen %s: give ADDR:PORT (127.0.0.1:8080, [::1]:0)", listen);
	memcpy(host, listen, hl);
	host[hl] = '\0';
	if (hl > 2 && host[0] == '[' && host[hl - 1] == ']') {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)(void *)ss;

		host[hl - 1] = '\0';
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		if (inet_pton(AF_INET6, host + 1, &a->sin6_addr) == 1)
			return 0;
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)(void *)ss;

		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		if (inet_pton(AF_INET, host, &a->sin_addr) == 1)
			return 0;
	}
	return errorf(err, errlen, "--listen %s: '%s' is not an IP address", listen, host);
}

static void quiet(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	(void)fmt;
	(void)ap;
}

/* The bound address as a URL's host:port. */
static void name_address(struct ui_server *s)
{
	const union MHD_DaemonInfo *di = MHD_get_daemon_info(s->mhd, MHD_DAEMON_INFO_LISTEN_FD);
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char host[INET6_ADDRSTRLEN];

	if (!di || getsockname(di->listen_fd, (struct sockaddr *)&ss, &sl) < 0) {
		snprintf(s->address, sizeof(s->address), "?");
		return;
	}
	if (ss.ss_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const void *)&ss;

		inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof(host));
		snprintf(s->address, sizeof(s->address), "[%s]:%u", host, ntohs(a->sin6_port));
	} else {
		const struct sockaddr_in *a = (const void *)&ss;

		inet_ntop(AF_INET, &a->sin_addr, host, sizeof(host));
		snprintf(s->address, sizeof(s->address), "%s:%u", host, ntohs(a->sin_port));
	}
}

int ui_server__start(const struct ui_server_opts *o, const struct ui_provider *p, struct ui_server **ret,
		     char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	struct ui_server *s;
	int e = parse_listen(o->listen ? o->listen : "127.0.0.1:0", &ss, err, errlen);

	if (e < 0)
		return e;
	if (!is_loopback(&ss) && !o->allow_remote)
		return errorf(err, errlen, "--listen %s is not a loopback address: anyone who reaches it and learns "
			      "the token sees your profiles; give --allow-remote to mean it (or reach 127.0.0.1 "
			      "with ssh -L)", o->listen);
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	memcpy(s->token, o->token, sizeof(s->token));
	s->p = p;
	s->log = o->log;
	s->log_ctx = o->log_ctx;
	/* one thread: the provider answers one window at a time */
	s->mhd = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG |
				  (ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0), 0, NULL, NULL, handle, s,
				  MHD_OPTION_EXTERNAL_LOGGER, quiet, NULL,
				  MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				  MHD_OPTION_CONNECTION_LIMIT, 64u,
				  MHD_OPTION_CONNECTION_TIMEOUT, 60u,
				  MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)REQUEST_MEMORY, MHD_OPTION_END);
	if (!s->mhd) {
		e = errno ? -errno : -EADDRINUSE;
		free(s);
		errorf(err, errlen, "cannot listen on %s: %s", o->listen ? o->listen : "127.0.0.1:0", strerror(-e));
		return e;
	}
	name_address(s);
	*ret = s;
	return 0;
}

const char *ui_server__address(const struct ui_server *s)
{
	return s->address;
}

struct ui_server *ui_server__stop(struct ui_server *s)
{
	if (!s)
		return NULL;
	MHD_stop_daemon(s->mhd);
	free(s);
	return NULL;
}
