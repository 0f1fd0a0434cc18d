/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "prof/base/util.h"
#include "prof/daemon/answer.h"
#include "prof/daemon/daemon.h"
#include "prof/daemon/protocol.h"
#include "prof/daemon/status.h"
#include "prof/daemon/view.h"

struct daemon {
	struct daemon_settings s;
	pthread_mutex_t lock;           /* s (the live parts), sampling, reload */
	struct daemon_sampling sampling;
	char reload[512];
	void (*exports)(void *ctx, struct snap_out *o, bool admin);
	void *exports_ctx;
	struct history *history;
	struct store *store;
	pthread_mutex_t store_lock;     /* the store, its stats, and the work flag */
	pthread_cond_t store_cond;
	bool store_work, store_stop;
	struct store_stats store_st;
	pthread_t store_thread;
	bool store_running;
	struct server *server;
	pthread_t server_thread;
	bool server_running;
};

int daemon__new(const struct daemon_settings *s, struct daemon **ret, char *err, size_t errlen)
{
	struct daemon *d = calloc(1, sizeof(*d));
	int e;

	if (!d) {
		errorf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	d->s = *s;
	d->s.store.dir = d->s.history_dir;
	pthread_mutex_init(&d->lock, NULL);
	pthread_mutex_init(&d->store_lock, NULL);
	pthread_cond_init(&d->store_cond, NULL);
	e = history__new(&d->s.history, &d->history);
	if (e < 0) {
		errorf(err, errlen, "bad history settings (bucket, fine span, memory_max)");
		goto fail;
	}
	e = store__open(&d->s.store, &d->store, err, errlen);
	if (e < 0)
		goto fail;
	e = store__load(d->store, d->history, sampler__realtime_ns());
	if (e < 0) {
		errorf(err, errlen, "out of memory reading history back from %s", d->s.history_dir);
		goto fail;
	}
	store__stats(d->store, &d->store_st);
	*ret = d;
	return 0;
fail:
	daemon__free(d);
	return e;
}

struct history *daemon__history(struct daemon *d)
{
	return d->history;
}

void daemon__store_stats(struct daemon *d, struct store_stats *ret)
{
	pthread_mutex_lock(&d->store_lock);
	*ret = d->store_st;
	pthread_mutex_unlock(&d->store_lock);
}

/* ---- the store's thread ------------------------------------------------------------- */

static void *store_main(void *arg)
{
	struct daemon *d = arg;

	pthread_mutex_lock(&d->store_lock);
	for (;;) {
		while (!d->store_work && !d->store_stop)
			pthread_cond_wait(&d->store_cond, &d->store_lock);
		d->store_work = false;
		/* the lock is held while writing: configure() waits, the sampler never does */
		store__write(d->store, d->history, sampler__realtime_ns());
		store__stats(d->store, &d->store_st);
		if (d->store_stop)
			break;
	}
	pthread_mutex_unlock(&d->store_lock);
	return NULL;
}

void daemon__coarse_made(struct daemon *d)
{
	pthread_mutex_lock(&d->store_lock);
	d->store_work = true;
	pthread_cond_signal(&d->store_cond);
	pthread_mutex_unlock(&d->store_lock);
}

void daemon__publish(struct daemon *d, const struct daemon_sampling *s)
{
	pthread_mutex_lock(&d->lock);
	d->sampling = *s;
	pthread_mutex_unlock(&d->lock);
}

/* ---- answering ---------------------------------------------------------------------- */

static bool in_admin_group(const struct daemon_settings *s, const struct server_peer *p)
{
	if (!s->has_admin_gid)
		return false;
	if (p->gid == s->admin_gid)
		return true;
	for (size_t i = 0; i < p->nr_groups; i++)
		if (p->groups[i] == s->admin_gid)
			return true;
	return false;
}

static void identity_of(const struct daemon_settings *s, const struct server_peer *p, struct view_identity *id)
{
	*id = (struct view_identity){ .uid = p->uid };
	id->admin = p->uid == 0 || in_admin_group(s, p);
	id->kernel = id->admin || s->user_kernel;
	id->gids[id->nr_gids++] = p->gid;
	for (size_t i = 0; i < p->nr_groups && id->nr_gids < VIEW_MAX_SELECTORS; i++)
		id->gids[id->nr_gids++] = p->groups[i];
}

static void meta_of(const struct daemon_settings *s, const struct view_identity *id,
		    const struct view_query *q, const struct view_answer *a, struct answer_meta *m)
{
	*m = (struct answer_meta){ .asked_from = q->from, .asked_until = q->until, .event_type = s->event_type,
				   .event_config = s->event_config, .freq = s->freq, .period = s->period,
				   .callchain = s->callchain, .off_cpu = s->off_cpu, .uid = id->uid, .admin = id->admin, .kernel = id->kernel,
				   .bucket_ns = s->history.bucket_ns, .fine_ns = s->history.fine_ns,
				   .evicted_before = a->evicted_before, .coarse = a->coarse, .fine = a->fine };
	snprintf(m->event, sizeof(m->event), "%s", s->event);
	snprintf(m->host, sizeof(m->host), "%s", s->host);
	snprintf(m->osrelease, sizeof(m->osrelease), "%s", s->osrelease);
}

/* The end of the newest fine bucket, or now when there is none, or it is in the future,
 * or more than 10 s old (the sampling stalled: the window is not moved back to it). */
static uint64_t newest_fine_end(struct history *h, uint64_t now)
{
	uint64_t end = now, last;
	size_t n;

	history__rlock(h);
	n = history__nr(h, true);
	last = n ? history__at(h, true, n - 1)->h.end_ns : now;
	if (last < now && now - last <= 10000000000ull)
		end = last;
	history__runlock(h);
	return end;
}

static void answer_query(struct daemon *d, const struct daemon_settings *s, const struct view_identity *id,
			 struct protocol_request *r, struct snap_out *out)
{
	uint64_t now = sampler__realtime_ns();
	struct view_answer a;
	struct answer_meta m;
	char err[PROTOCOL_MAX_ERROR];
	size_t at;
	uint64_t len;
	int e;

	if (r->has_since) {
		/* the last `since` of what was sampled: back from the newest closed second,
		 * which lags now by the close's slack (more on a loaded host), so that
		 * `since=1s` is never a window with no bucket closed in it yet */
		uint64_t end = newest_fine_end(d->history, now);

		r->q.from = r->since < end ? end - r->since : 0;
	}
	if (!r->has_until)
		r->q.until = now;
	e = view__build(d->history, id, &r->q, &a, err, sizeof(err));
	if (e < 0) {
		view__release(&a);
		protocol__put_error(out, e, err);
		return;
	}
	meta_of(s, id, &r->q, &a, &m);
	history__rlock(d->history);
	m.history_from = history__nr(d->history, false) ? history__at(d->history, false, 0)->h.start_ns : 0;
	history__runlock(d->history);
	protocol__put_response_hdr(out, 0, 0);
	at = out->len;
	answer__put(out, &m, &a);
	view__release(&a);
	len = out->len - at;
	if (!out->err)
		memcpy(out->p + at - 8, &len, 8);
}

/* Samples of the last minute of fine buckets (under the readers' lock). */
static void recent(struct history *h, uint64_t *ret_samples, uint64_t *ret_ns)
{
	size_t n = history__nr(h, true);
	uint64_t end = n ? history__at(h, true, n - 1)->h.end_ns : 0, start = end;

	*ret_samples = 0;
	for (size_t i = n; i-- > 0;) {
		const struct bucket *b = history__at(h, true, i);

		if (b->h.start_ns + 60000000000ull < end)
			break;
		*ret_samples += b->h.c.samples;
		start = b->h.start_ns;
	}
	*ret_ns = end - start;
}

static uint64_t own_rss(void)
{
	_cleanup_free_ char *statm = NULL;
	unsigned long long pages = 0, rss = 0;

	if (read_file_full(AT_FDCWD, "/proc/self/statm", 4096, &statm) > 0 &&
	    sscanf(statm, "%llu %llu", &pages, &rss) == 2)
		return rss * (uint64_t)sysconf(_SC_PAGESIZE);
	return 0;
}

static void status_answer(struct daemon *d, const struct view_identity *id, struct snap_out *out)
{
	struct daemon_settings s;
	struct status_facts f = { .s = &s, .admin = id->admin, .uid = id->uid, .now = sampler__realtime_ns() };
	char reload[sizeof(d->reload)];
	struct rusage ru;
	size_t at;
	uint64_t len;

	pthread_mutex_lock(&d->lock);
	s = d->s;
	f.sampling = d->sampling;
	f.exports = d->exports;
	f.exports_ctx = d->exports_ctx;
	memcpy(reload, d->reload, sizeof(reload));
	pthread_mutex_unlock(&d->lock);
	f.reload = reload;
	history__rlock(d->history);
	history__stats(d->history, &f.history);
	recent(d->history, &f.recent_samples, &f.recent_ns);
	history__runlock(d->history);
	daemon__store_stats(d, &f.store);
	server__stats(d->server, &f.server);
	if (getrusage(RUSAGE_SELF, &ru) == 0)
		f.cpu_ns = ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000ull +
			   ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000ull;
	f.rss = own_rss();
	protocol__put_response_hdr(out, 0, 0);
	at = out->len;
	status__write(out, &f);
	len = out->len - at;
	if (!out->err)
		memcpy(out->p + at - 8, &len, 8);
}

static void handle(void *ctx, const struct server_peer *peer, const uint8_t *body, size_t len,
		   struct snap_out *out)
{
	struct daemon *d = ctx;
	struct protocol_request *r = malloc(sizeof(*r));
	struct daemon_settings s;
	struct view_identity id;
	char err[PROTOCOL_MAX_ERROR];
	int e;

	if (!r) {
		protocol__put_error(out, -ENOMEM, "out of memory");
		return;
	}
	pthread_mutex_lock(&d->lock);
	s = d->s;
	pthread_mutex_unlock(&d->lock);
	identity_of(&s, peer, &id);
	e = protocol__parse_request(body, len, r, err, sizeof(err));
	if (e < 0)
		protocol__put_error(out, e, err);
	else if (r->op == PROTOCOL_STATUS)
		status_answer(d, &id, out);
	else if (!id.admin && !s.creds)
		protocol__put_error(out, -EPERM, "profd cannot follow set*uid() calls (the syscalls tracepoints could "
				    "not be opened: tracefs unreadable?), so a process could become root unseen: "
				    "only root and the admin group are served");
	else
		answer_query(d, &s, &id, r, out);
	free(r);
}

/* ---- life cycle ---------------------------------------------------------------------- */

static void *server_main(void *arg)
{
	server__run(arg);
	return NULL;
}

int daemon__start(struct daemon *d, const struct daemon_settings *s, int listen_fd)
{
	int e;

	pthread_mutex_lock(&d->lock);
	d->s = *s;
	d->s.store.dir = d->s.history_dir;
	pthread_mutex_unlock(&d->lock);
	e = server__new(listen_fd, &d->s.server, handle, d, &d->server);

	if (e < 0)
		return e;
	e = -pthread_create(&d->store_thread, NULL, store_main, d);
	if (e < 0)
		return e;
	d->store_running = true;
	e = -pthread_create(&d->server_thread, NULL, server_main, d->server);
	if (e < 0)
		return e;
	d->server_running = true;
	return 0;
}

int daemon__stop(struct daemon *d)
{
	int written;

	if (d->server_running) {
		server__stop(d->server);
		pthread_join(d->server_thread, NULL);
		d->server_running = false;
	}
	if (d->store_running) {
		pthread_mutex_lock(&d->store_lock);
		d->store_stop = true;
		pthread_cond_signal(&d->store_cond);
		pthread_mutex_unlock(&d->store_lock);
		pthread_join(d->store_thread, NULL);
		d->store_running = false;
	}
	/* whatever the thread did not get to (it also wrote once on its way out) */
	written = store__write(d->store, d->history, sampler__realtime_ns());
	store__stats(d->store, &d->store_st);
	return written;
}

struct daemon *daemon__free(struct daemon *d)
{
	if (!d)
		return NULL;
	if (d->server_running || d->store_running)
		daemon__stop(d);
	server__free(d->server);
	store__free(d->store);
	history__free(d->history);
	pthread_mutex_destroy(&d->lock);
	pthread_mutex_destroy(&d->store_lock);
	pthread_cond_destroy(&d->store_cond);
	free(d);
	return NULL;
}

/* What a new configuration changes that only a restart applies. */
static void restart_keys(const struct daemon_settings *o, const struct daemon_settings *n, char *msg, size_t len)
{
	size_t off = 0;

	msg[0] = '\0';
#define CHANGED(cond, name) \
	if ((cond) && off < len) \
		off += (size_t)snprintf(msg + off, len - off, "%s%s", off ? ", " : "", name)
	CHANGED(strcmp(o->event, n->event), "event");
	CHANGED(o->freq != n->freq || o->period != n->period, "frequency");
	CHANGED(o->callchain != n->callchain, "callchain");
	CHANGED(o->python_frames != n->python_frames, "python_frames");
	CHANGED(o->off_cpu != n->off_cpu, "off_cpu");
	CHANGED(o->off_cpu_stacks != n->off_cpu_stacks, "off_cpu_stacks");
	CHANGED(o->off_cpu_sample != n->off_cpu_sample, "off_cpu_sample");
	CHANGED(o->off_cpu_window_ns != n->off_cpu_window_ns || o->off_cpu_period_ns != n->off_cpu_period_ns,
		"off_cpu_window");
	CHANGED(o->history.bucket_ns != n->history.bucket_ns, "bucket");
	CHANGED(o->symbols_max != n->symbols_max, "symbols_max");
	CHANGED(strcmp(o->history_dir, n->history_dir), "state_dir");
#undef CHANGED
}

int daemon__reconfigure(struct daemon *d, const struct daemon_settings *n, char *msg, size_t msglen)
{
	struct history_config hc = n->history;
	int e;

	restart_keys(&d->s, n, msg, msglen);
	hc.fine_ns = d->s.history.fine_ns;
	hc.bucket_ns = d->s.history.bucket_ns;
	history__lock(d->history);
	e = history__configure(d->history, &hc);
	history__unlock(d->history);
	if (e < 0)
		return errorf(msg, msglen, "the history settings do not fit together (fine span, span, memory)");
	pthread_mutex_lock(&d->store_lock);
	store__configure(d->store, n->store.disk_max, n->store.fsync);
	pthread_mutex_unlock(&d->store_lock);
	server__set_limits(d->server, &n->server);
	pthread_mutex_lock(&d->lock);
	d->s.history = hc;
	d->s.server = n->server;
	d->s.store.disk_max = n->store.disk_max;
	d->s.store.fsync = n->store.fsync;
	d->s.has_admin_gid = n->has_admin_gid;
	d->s.admin_gid = n->admin_gid;
	d->s.user_kernel = n->user_kernel;
	pthread_mutex_unlock(&d->lock);
	return 0;
}

void daemon__set_exports_status(struct daemon *d, void (*fn)(void *ctx, struct snap_out *o, bool admin), void *ctx)
{
	pthread_mutex_lock(&d->lock);
	d->exports = fn;
	d->exports_ctx = ctx;
	pthread_mutex_unlock(&d->lock);
}

void daemon__set_reload_result(struct daemon *d, const char *text)
{
	pthread_mutex_lock(&d->lock);
	snprintf(d->reload, sizeof(d->reload), "%s", text);
	pthread_mutex_unlock(&d->lock);
}
