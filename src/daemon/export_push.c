/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <curl/curl.h>
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "prof/base/util.h"
#include "prof/daemon/export_pprof.h"
#include "prof/daemon/export_push.h"
#include "prof/sys/users.h"
#include "prof/daemon/sampler.h"
#include "prof/daemon/view.h"

#define SCAN_MS 500                     /* how often history is looked at for new buckets */
#define RETRY_AFTER_MAX 300
#define RETRIES_422 2                   /* may be Pyroscope 1.x's rate limit */

struct window {
	uint64_t start, end, samples;
};

struct export_push {
	struct history *h;
	pthread_t thread;
	bool running, stop;
	pthread_mutex_t lock;           /* everything below */
	pthread_cond_t cond;
	struct export_push_settings s;
	struct export_push_stats st;
	struct window *q;               /* a ring: q[head], ... */
	size_t cap, head, nr;
	uint64_t cursor;                /* the end of the newest bucket queued */
	/* the thread's own */
	CURL *curl;
	unsigned int seed;
	char curl_err[CURL_ERROR_SIZE];
	long retry_after;               /* seconds, from the last answer; -1 none */
};

/* What one POST came to. */
enum outcome { PUSH_OK, PUSH_RETRY, PUSH_REJECT };

/* ---- the queue (under the lock) ------------------------------------------------------------ */

static void queue_put(struct export_push *p, const struct window *w)
{
	if (p->nr == p->cap) {
		/* full: the oldest waiting bucket is let go, said so */
		p->st.dropped++;
		p->st.dropped_samples += p->q[p->head].samples;
		p->head = (p->head + 1) % p->cap;
		p->nr--;
	}
	p->q[(p->head + p->nr) % p->cap] = *w;
	p->nr++;
	p->st.queue = p->nr;
	p->st.queue_max = MAX(p->st.queue_max, p->nr);
}

static void queue_pop(struct export_push *p)
{
	if (!p->nr)
		return;
	p->head = (p->head + 1) % p->cap;
	p->st.queue = --p->nr;
}

/* A new queue size keeps the newest buckets waiting. */
static int queue_resize(struct export_push *p, size_t cap)
{
	struct window *q = calloc(cap, sizeof(*q));
	size_t keep = MIN(p->nr, cap);

	if (!q)
		return -ENOMEM;
	for (size_t i = 0; i < keep; i++)
		q[i] = p->q[(p->head + p->nr - keep + i) % p->cap];
	p->st.dropped += p->nr - keep;
	free(p->q);
	p->q = q;
	p->cap = cap;
	p->head = 0;
	p->nr = keep;
	p->st.queue = keep;
	p->st.queue_cap = cap;
	return 0;
}

/* Coarse buckets closed since the last look go to the queue (under the lock; history's
 * readers' lock is taken inside ours, never the other way). */
static void scan(struct export_push *p)
{
	size_t n, first;

	history__rlock(p->h);
	n = first = history__nr(p->h, false);
	while (first > 0 && history__at(p->h, false, first - 1)->h.end_ns > p->cursor)
		first--;
	for (size_t i = first; i < n; i++) {
		const struct bucket *b = history__at(p->h, false, i);

		queue_put(p, &(struct window){ b->h.start_ns, b->h.end_ns, b->h.c.samples });
		p->cursor = b->h.end_ns;
	}
	history__runlock(p->h);
}

/* ---- one POST ---------------------------------------------------------------------------- */

static size_t on_header(char *buf, size_t size, size_t n, void *ctx)
{
	struct export_push *p = ctx;
	size_t len = size * n;

	if (len > 12 && !strncasecmp(buf, "Retry-After:", 12)) {
		long v = strtol(buf + 12, NULL, 10);

		p->retry_after = v > 0 ? MIN(v, (long)RETRY_AFTER_MAX) : -1;
	}
	return len;
}

static size_t on_body(char *buf, size_t size, size_t n, void *ctx)
{
	char *msg = ctx;
	size_t len = size * n, have = strlen(msg), room = 200 - have;

	memcpy(msg + have, buf, MIN(len, room));
	msg[have + MIN(len, room)] = '\0';
	return len;
}

/* body POSTed to url: the HTTP status, or -1 with p->curl_err set. */
static long post(struct export_push *p, const struct export_push_settings *s, const char *url, const char *org,
		 const uint8_t *body, size_t len, char *answer)
{
	struct curl_slist *hdrs = NULL;
	char org_hdr[EXPORT_MAX_ORG + 32];
	long status = -1;
	CURLcode rc;

	hdrs = curl_slist_append(hdrs, "Content-Type: application/octet-stream");
	hdrs = curl_slist_append(hdrs, "Expect:");
	if (org[0]) {
		snprintf(org_hdr, sizeof(org_hdr), "X-Scope-OrgID: %s", org);
		hdrs = curl_slist_append(hdrs, org_hdr);
	}
	curl_easy_reset(p->curl);
	p->curl_err[0] = answer[0] = '\0';
	p->retry_after = -1;
	curl_easy_setopt(p->curl, CURLOPT_URL, url);
	curl_easy_setopt(p->curl, CURLOPT_POST, 1L);
	curl_easy_setopt(p->curl, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(p->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	curl_easy_setopt(p->curl, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(p->curl, CURLOPT_TIMEOUT_MS, (long)(s->c.push_timeout * 1000));
	curl_easy_setopt(p->curl, CURLOPT_CONNECTTIMEOUT_MS, (long)(s->c.push_connect_timeout * 1000));
	curl_easy_setopt(p->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(p->curl, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(p->curl, CURLOPT_USERAGENT, "profd");
	curl_easy_setopt(p->curl, CURLOPT_ERRORBUFFER, p->curl_err);
	curl_easy_setopt(p->curl, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(p->curl, CURLOPT_HEADERDATA, p);
	curl_easy_setopt(p->curl, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(p->curl, CURLOPT_WRITEDATA, answer);
	rc = curl_easy_perform(p->curl);
	if (rc == CURLE_OK)
		curl_easy_getinfo(p->curl, CURLINFO_RESPONSE_CODE, &status);
	else if (!p->curl_err[0])
		snprintf(p->curl_err, sizeof(p->curl_err), "%s", curl_easy_strerror(rc));
	curl_slist_free_all(hdrs);
	return status;
}

/* ---- a series' name and tenant --------------------------------------------------------------- */

/* v into the name, without what would end it (',' '}'): counted. */
static void put_label(struct export_push *p, char *buf, size_t len, size_t *off, const char *key, const char *v)
{
	bool changed = false;
	int n;

	if (!v[0] || *off >= len)
		return;
	n = snprintf(buf + *off, len - *off, "%s%s=", buf[*off - 1] == '{' ? "" : ",", key);
	if (n < 0 || (size_t)n >= len - *off)
		return;
	*off += (size_t)n;
	for (; *v && *off + 2 < len; v++) {
		char c = *v == ',' || *v == '}' || *v == '{' || *v == '=' ? '_' : *v;

		changed |= c != *v;
		buf[(*off)++] = c;
	}
	buf[*off] = '\0';
	if (changed)
		p->st.sanitized++;
}

static void series_name(struct export_push *p, const struct export_push_settings *s, const struct export_series *se,
			const char *user, char *buf, size_t len)
{
	char uid[16], unit[256];
	size_t off;

	snprintf(buf, len, "%s{", s->c.push_app);
	off = strlen(buf);
	snprintf(uid, sizeof(uid), "%" PRIu32, se->uid);
	export_pprof__unit(se->cgroup, unit, sizeof(unit));
	pthread_mutex_lock(&p->lock);
	put_label(p, buf, len, &off, "user", user);
	put_label(p, buf, len, &off, "uid", uid);
	put_label(p, buf, len, &off, "cgroup", se->cgroup);
	put_label(p, buf, len, &off, "unit", unit);
	put_label(p, buf, len, &off, "container", se->container);
	pthread_mutex_unlock(&p->lock);
	if (off + 1 < len) {
		buf[off++] = '}';
		buf[off] = '\0';
	}
}

static bool in_group(const char *group, const char *user, gid_t gid)
{
	struct group gr, *res = NULL;
	char buf[16384];

	if (getgrnam_r(group, &gr, buf, sizeof(buf), &res) != 0 || !res)
		return false;
	if (res->gr_gid == gid)
		return true;
	for (char **m = res->gr_mem; m && *m; m++)
		if (!strcmp(*m, user))
			return true;
	return false;
}

/* The org of a known uid: true with org ("" when no push_tenant is set), false when
 * none maps it. */
static bool org_of(const struct export_config *c, uint32_t uid, const char *user, bool has_user, gid_t gid,
		   char *org, size_t len)
{
	const struct export_tenant *hit = NULL;
	char num[16];

	org[0] = '\0';
	if (!c->nr_tenants)
		return true;
	snprintf(num, sizeof(num), "#%" PRIu32, uid);
	for (int pass = 0; pass < 4 && !hit; pass++)
		for (size_t i = 0; i < c->nr_tenants && !hit; i++) {
			const char *k = c->tenants[i].key;

			if ((pass == 0 && has_user && k[0] != '@' && k[0] != '#' && strcmp(k, "*") && !strcmp(k, user)) ||
			    (pass == 1 && has_user && k[0] == '@' && in_group(k + 1, user, gid)) ||
			    (pass == 2 && !strcmp(k, num)) || (pass == 3 && !strcmp(k, "*")))
				hit = &c->tenants[i];
		}
	if (!hit)
		return false;
	for (const char *t = hit->org; *t; t++) {
		size_t o = strlen(org);

		if (t[0] == '%' && t[1] == 'u' && !has_user)
			return false;   /* no name to put there */
		if (t[0] == '%' && (t[1] == 'u' || t[1] == 'i')) {
			snprintf(org + o, len - o, "%s", t[1] == 'u' ? user : num + 1);
			t++;
		} else if (o + 1 < len) {
			org[o] = *t;
			org[o + 1] = '\0';
		}
	}
	return export_config__org_valid(org);
}

/* ---- a bucket --------------------------------------------------------------------------------- */

static void failed(struct export_push *p, long status, const char *what, const char *answer, bool rejected)
{
	pthread_mutex_lock(&p->lock);
	if (rejected) {
		static const long kinds[] = { 400, 401, 403, 404, 413, 422 };

		p->st.rejected++;
		for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
			if (kinds[i] == status)
				p->st.rejected_by_status[i]++;
	} else {
		p->st.failures++;
	}
	p->st.last_error_ns = sampler__realtime_ns();
	if (status > 0)
		snprintf(p->st.last_error, sizeof(p->st.last_error), "HTTP %ld%s%.200s", status, answer[0] ? ": " : "",
			 answer);
	else
		snprintf(p->st.last_error, sizeof(p->st.last_error), "%s", what);
	for (char *c = p->st.last_error; *c; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	pthread_mutex_unlock(&p->lock);
}

/* One series of a bucket: what its POST came to. */
static enum outcome push_series(struct export_push *p, const struct export_push_settings *s, const struct window *w,
				const struct view_answer *a, const struct export_series *se, int *tries_422)
{
	struct users users = { 0 };
	const struct user_entry *ue = users__get(&users, se->uid);
	char org[EXPORT_MAX_ORG + 64], name[1024], url[sizeof(s->c.push_url) + 1600], answer[208];
	struct export_pprof_opts o = { .event = s->event, .time_period = s->time_period, .period = s->period,
				       .from = w->start, .until = w->end, .series = se };
	const char *user = ue->found ? ue->name : "";
	_cleanup_free_ uint8_t *body = NULL;
	char *esc;
	size_t len;
	long status;

	if (!se->uid_known || !org_of(&s->c, se->uid, user, ue->found, ue->found ? (gid_t)ue->gid : (gid_t)-1, org,
				      sizeof(org))) {
		pthread_mutex_lock(&p->lock);
		p->st.skipped++;
		pthread_mutex_unlock(&p->lock);
		return PUSH_OK;
	}
	if (export_pprof__build(a, &o, &body, &len) < 0) {
		failed(p, -1, "out of memory building a profile", "", false);
		return PUSH_RETRY;
	}
	series_name(p, s, se, user, name, sizeof(name));
	esc = curl_easy_escape(p->curl, name, 0);
	if (!esc)
		return PUSH_RETRY;
	snprintf(url, sizeof(url), "%s/ingest?name=%s&from=%" PRIu64 "&until=%" PRIu64 "&format=pprof&sampleRate=%"
		 PRIu64 "&spyName=prof", s->c.push_url, esc, w->start / UINT64_C(1000000000),
		 (w->end + UINT64_C(999999999)) / UINT64_C(1000000000), s->freq);
	curl_free(esc);
	status = post(p, s, url, org, body, len, answer);
	if (status >= 200 && status < 300) {
		pthread_mutex_lock(&p->lock);
		p->st.pushed++;
		p->st.bytes += len;
		p->st.last_ok_ns = sampler__realtime_ns();
		pthread_mutex_unlock(&p->lock);
		return PUSH_OK;
	}
	if (status < 0 || status == 408 || status == 429 || status >= 500 || (status == 422 && ++*tries_422 <= RETRIES_422)) {
		failed(p, status, p->curl_err, answer, false);
		return PUSH_RETRY;
	}
	failed(p, status, "", answer, true);
	return PUSH_REJECT;
}

/* The bucket's series from *next on.  PUSH_OK when all are done (pushed, rejected or
 * skipped), PUSH_RETRY with *next at the one to try again. */
static enum outcome push_bucket(struct export_push *p, const struct export_push_settings *s, const struct window *w,
				size_t *next, int *tries_422)
{
	struct view_identity op = { .admin = true, .kernel = true };
	struct view_query q = { .from = w->start, .until = w->end };
	struct view_answer a;
	struct export_series *series = NULL;
	enum outcome r = PUSH_OK;
	char err[300];
	size_t nr = 0;

	if (view__build(p->h, &op, &q, &a, err, sizeof(err)) < 0 || export_pprof__series(&a, &series, &nr) < 0) {
		view__release(&a);
		failed(p, -1, "out of memory reading history", "", false);
		return PUSH_RETRY;
	}
	if (!a.coarse && !a.fine && w->samples) {
		/* evicted (memory_max) before its turn came: said, not pushed as empty */
		pthread_mutex_lock(&p->lock);
		p->st.dropped++;
		p->st.dropped_samples += w->samples;
		pthread_mutex_unlock(&p->lock);
	}
	for (; *next < nr; ++*next) {
		r = push_series(p, s, w, &a, &series[*next], tries_422);
		if (r == PUSH_RETRY)
			break;
		*tries_422 = 0;
		r = PUSH_OK;
	}
	free(series);
	view__release(&a);
	return r;
}

/* ---- the thread ------------------------------------------------------------------------------- */

static void wait_ms(struct export_push *p, uint64_t ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += (time_t)(ms / 1000);
	ts.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(&p->cond, &p->lock, &ts);
}

/* The next delay after a failure: Retry-After, else 1 s doubling to the cap, the
 * upper half of it at random (so many hosts do not retry in step). */
static uint64_t backoff_ms(struct export_push *p, unsigned int failures, uint64_t max_s)
{
	uint64_t cap = MIN(max_s * 1000, 1000ull << MIN(failures, 20u));

	if (p->retry_after > 0)
		return (uint64_t)p->retry_after * 1000;
	return cap / 2 + (uint64_t)rand_r(&p->seed) % (cap / 2 + 1);
}

static void *push_main(void *arg)
{
	struct export_push *p = arg;
	struct export_push_settings s;
	struct window w = { 0 };
	size_t next = 0;
	unsigned int fails = 0;
	int tries_422 = 0;
	enum outcome r;

	setpriority(PRIO_PROCESS, (id_t)gettid(), 10);
	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		scan(p);
		if (!p->nr) {
			wait_ms(p, SCAN_MS);
			continue;
		}
		if (p->q[p->head].start != w.start || p->q[p->head].end != w.end) {
			w = p->q[p->head];      /* a new head (the old one done, or dropped) */
			next = 0;
			tries_422 = 0;
		}
		s = p->s;
		pthread_mutex_unlock(&p->lock);
		r = push_bucket(p, &s, &w, &next, &tries_422);
		pthread_mutex_lock(&p->lock);
		if (r == PUSH_OK) {
			if (p->nr && p->q[p->head].start == w.start && p->q[p->head].end == w.end)
				queue_pop(p);
			p->st.buckets_done++;
			w = (struct window){ 0 };
			fails = 0;
			continue;
		}
		p->st.retries++;
		wait_ms(p, backoff_ms(p, fails++, s.c.push_backoff_max));
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int export_push__start(struct history *h, const struct export_push_settings *s, struct export_push **ret,
		       char *err, size_t errlen)
{
	struct export_push *p = calloc(1, sizeof(*p));
	pthread_condattr_t ca;
	size_t n;
	int e;

	*ret = NULL;
	if (!p || queue_resize(p, s->c.push_queue) < 0 || !(p->curl = curl_easy_init())) {
		if (p)
			free(p->q);
		free(p);
		errorf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	p->h = h;
	p->s = *s;
	p->seed = (unsigned int)(sampler__realtime_ns() ^ (uint64_t)getpid());
	pthread_mutex_init(&p->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->cond, &ca);
	pthread_condattr_destroy(&ca);
	/* what history holds already is not pushed again (a restart would push twice) */
	history__rlock(h);
	n = history__nr(h, false);
	p->cursor = n ? history__at(h, false, n - 1)->h.end_ns : 0;
	history__runlock(h);
	e = pthread_create(&p->thread, NULL, push_main, p);
	if (e) {
		export_push__free(p);
		errorf(err, errlen, "cannot start the push thread: %s", strerror(e));
		return -e;
	}
	p->running = true;
	*ret = p;
	return 0;
}

struct export_push *export_push__free(struct export_push *p)
{
	if (!p)
		return NULL;
	if (p->running) {
		pthread_mutex_lock(&p->lock);
		p->stop = true;
		pthread_cond_signal(&p->cond);
		pthread_mutex_unlock(&p->lock);
		pthread_join(p->thread, NULL);
	}
	curl_easy_cleanup(p->curl);
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
	free(p->q);
	free(p);
	return NULL;
}

void export_push__configure(struct export_push *p, const struct export_push_settings *s)
{
	pthread_mutex_lock(&p->lock);
	if (s->c.push_queue != p->cap)
		queue_resize(p, s->c.push_queue);       /* on ENOMEM the old queue stays */
	p->s = *s;
	pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

void export_push__stats(struct export_push *p, struct export_push_stats *ret)
{
	pthread_mutex_lock(&p->lock);
	*ret = p->st;
	pthread_mutex_unlock(&p->lock);
}

void export_push__status(struct export_push *p, struct snap_out *o, bool admin)
{
	struct export_push_stats st = { 0 };
	const uint64_t *r = st.rejected_by_status;
	char line[1200];
	int n;

	if (p)
		export_push__stats(p, &st);
	if (!admin)
		return;
	n = snprintf(line, sizeof(line),
		     "push %s\npush_pushed %" PRIu64 "\npush_bytes %" PRIu64 "\npush_failures %" PRIu64
		     "\npush_retries %" PRIu64 "\npush_rejected %" PRIu64 "\npush_rejected_by_status 400=%" PRIu64
		     " 401=%" PRIu64 " 403=%" PRIu64 " 404=%" PRIu64 " 413=%" PRIu64 " 422=%" PRIu64
		     "\npush_dropped %" PRIu64 "\npush_dropped_samples %" PRIu64 "\npush_skipped %" PRIu64
		     "\npush_sanitized %" PRIu64 "\npush_buckets_done %" PRIu64 "\npush_queue %zu\npush_queue_max %zu"
		     "\npush_queue_cap %zu\npush_last_ok %" PRIu64 "\npush_last_error_time %" PRIu64 "\n",
		     p ? "on" : "off", st.pushed, st.bytes, st.failures, st.retries, st.rejected, r[0], r[1], r[2], r[3],
		     r[4], r[5], st.dropped, st.dropped_samples, st.skipped, st.sanitized, st.buckets_done, st.queue,
		     st.queue_max, st.queue_cap, st.last_ok_ns, st.last_error_ns);
	if (n > 0)
		snapshot__put_raw(o, line, MIN((size_t)n, sizeof(line) - 1));
	if (st.last_error[0]) {
		n = snprintf(line, sizeof(line), "push_last_error %s\n", st.last_error);
		if (n > 0)
			snapshot__put_raw(o, line, MIN((size_t)n, sizeof(line) - 1));
	}
}
