/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * debuginfod off the reader's thread: see include/prof/analyze/debuginfod_worker.h.
 */
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prof/analyze/debuginfod_worker.h"
#include "prof/base/hash.h"
#include "prof/base/hashtable.h"
#include "prof/base/util.h"
#include "prof/perfdata/build_id.h"
#include "prof/sys/privs.h"

struct wanted {
	uint8_t len;
	uint8_t id[BUILD_ID_MAX];
};

struct debuginfod_worker {
	struct debuginfod_worker_config c;
	char *urls, *cache_dir;         /* c's, owned */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	/* under lock */
	struct wanted queue[DEBUGINFOD_WORKER_QUEUE];
	size_t head, nr;
	struct hashtable asked;         /* of struct wanted: each build id once */
	struct debuginfod_stats st;
	struct wanted arrived[DEBUGINFOD_WORKER_ARRIVED];
	bool stop;
	bool dead;                      /* could not drop its capabilities: asks nothing */
	atomic_uint_fast64_t seq;       /* arrivals so far; arrived[(seq - 1) % N] the last */
	atomic_bool stopping;           /* read by the transfer's progress callback */
};

static bool wanted_eq(const void *e, const void *key, const void *ctx)
{
	const struct wanted *a = e, *b = key;

	(void)ctx;
	return a->len == b->len && !memcmp(a->id, b->id, a->len);
}

static void hex_of(const uint8_t *bid, size_t len, char *hex, size_t size)
{
	struct build_id b = { .size = (uint8_t)MIN(len, sizeof(b.data)) };

	memcpy(b.data, bid, b.size);
	build_id__hex(&b, hex, size);
}

bool debuginfod_worker__user_cache(char *buf, size_t len)
{
	const char *p = getenv("DEBUGINFOD_CACHE_PATH"), *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
	int n;

	if (p && p[0])
		n = snprintf(buf, len, "%s", p);
	else if (x && x[0])
		n = snprintf(buf, len, "%s/debuginfod_client", x);
	else if (h && h[0])
		n = snprintf(buf, len, "%s/.cache/debuginfod_client", h);
	else
		return false;
	return n > 0 && (size_t)n < len;
}

/* ---- one file ------------------------------------------------------------------------- */

struct fetch {
	struct debuginfod_worker *w;
	const struct wanted *id;
	char hex[2 * BUILD_ID_MAX + 1];
	char dir[PATH_MAX - 64], tmp[PATH_MAX], path[PATH_MAX];     /* dir/.prof-XXXXXX fits */
	int fd;
	uint64_t bytes;
};

static size_t on_data(char *data, size_t size, size_t n, void *arg)
{
	struct fetch *f = arg;
	size_t len = size * n;

	/* a server that ignores the announced size: the bound holds anyway */
	if (f->bytes + len > f->w->c.maxsize)
		return 0;
	if (write_full(f->fd, data, len) < 0)
		return 0;
	f->bytes += len;
	return len;
}

static int on_progress(void *arg, curl_off_t a, curl_off_t b, curl_off_t c, curl_off_t d)
{
	const struct fetch *f = arg;

	(void)a;
	(void)b;
	(void)c;
	(void)d;
	return atomic_load(&f->w->stopping);   /* non-zero ends the transfer */
}

/* GET url/buildid/HEX/debuginfo into f->fd: 0, -ENOENT (404), or -EIO (anything else). */
static int get(struct fetch *f, const char *url)
{
	char where[PATH_MAX + 64];
	long code = 0;
	CURLcode r;
	CURL *h = curl_easy_init();

	if (!h)
		return -ENOMEM;
	size_t n = strlen(url);

	while (n && url[n - 1] == '/')
		n--;            /* "http://h:8002/" as "http://h:8002" */
	snprintf(where, sizeof(where), "%.*s/buildid/%s/debuginfo", (int)n, url, f->hex);
	curl_easy_setopt(h, CURLOPT_URL, where);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "prof");
	/* libdebuginfod's DEBUGINFOD_TIMEOUT: to connect, and a transfer below 100 bytes/s
	 * that long; DEBUGINFOD_MAXTIME, DEBUGINFOD_MAXSIZE */
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, (long)f->w->c.timeout);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, (long)f->w->c.timeout);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 100L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, (long)f->w->c.maxtime);
	curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)f->w->c.maxsize);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, f);
	curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(h, CURLOPT_XFERINFODATA, f);
	curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
	r = curl_easy_perform(h);
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
	curl_easy_cleanup(h);
	if (r == CURLE_OK && code == 200)
		return 0;
	return r == CURLE_OK && code == 404 ? -ENOENT : -EIO;
}

enum outcome { FOUND, NOT_FOUND, FAILED, REFUSED };

/*
 * Each server in turn until one has the file with the build id asked: kept as
 * DIR/HEX/debuginfo (a temporary file renamed, so a reader never opens half of one).
 * Runs as the user when w's cache is theirs.
 */
static int fetch_one(void *arg)
{
	struct fetch *f = arg;
	enum outcome out = NOT_FOUND;
	bool refused = false, failed = false;
	char *save = NULL, *urls = strdup(f->w->urls);

	if (!urls)
		return FAILED;
	if ((size_t)snprintf(f->dir, sizeof(f->dir), "%s/%s", f->w->cache_dir, f->hex) >= sizeof(f->dir) ||
	    (mkdir(f->dir, 0700) < 0 && errno != EEXIST)) {
		free(urls);
		return FAILED;
	}
	snprintf(f->path, sizeof(f->path), "%s/debuginfo", f->dir);
	for (char *url = strtok_r(urls, " \t", &save); url && out != FOUND; url = strtok_r(NULL, " \t", &save)) {
		int r;

		snprintf(f->tmp, sizeof(f->tmp), "%s/.prof-XXXXXX", f->dir);
		f->fd = mkostemp(f->tmp, O_CLOEXEC);
		if (f->fd < 0) {
			failed = true;
			break;
		}
		f->bytes = 0;
		r = get(f, url);
		if (r == 0 && debuginfod__matches(f->fd, f->id->id, f->id->len) && rename(f->tmp, f->path) == 0)
			out = FOUND;
		else if (r == 0)
			refused = true;         /* another build's file: never kept */
		else if (r != -ENOENT)
			failed = true;
		if (out != FOUND)
			unlink(f->tmp);
		close(f->fd);
	}
	free(urls);
	if (out != FOUND)
		rmdir(f->dir);          /* only when empty */
	return out == FOUND ? FOUND : refused ? REFUSED : failed ? FAILED : NOT_FOUND;
}

static void *run(void *arg)
{
	struct debuginfod_worker *w = arg;

	/* a reader's worker acts as the user: it keeps none of a capability install's
	 * capabilities (the reader drops its own only after this thread started) */
	if (w->c.as_user && getuid() != 0 && privs__drop_thread() < 0) {
		pthread_mutex_lock(&w->lock);
		w->dead = true;
		pthread_mutex_unlock(&w->lock);
		return NULL;
	}
	pthread_mutex_lock(&w->lock);
	for (;;) {
		struct fetch f = { .w = w, .fd = -1 };
		struct wanted id;
		int out;

		while (!w->stop && !w->nr)
			pthread_cond_wait(&w->wake, &w->lock);
		if (w->stop)
			break;
		id = w->queue[w->head];
		w->head = (w->head + 1) % DEBUGINFOD_WORKER_QUEUE;
		w->nr--;
		pthread_mutex_unlock(&w->lock);

		f.id = &id;
		hex_of(id.id, id.len, f.hex, sizeof(f.hex));
		out = w->c.as_user ? privs__as_user(fetch_one, &f) : fetch_one(&f);

		pthread_mutex_lock(&w->lock);
		w->st.asked++;
		if (out == FOUND) {
			w->st.found++;
			w->arrived[atomic_load(&w->seq) % DEBUGINFOD_WORKER_ARRIVED] = id;
			atomic_fetch_add(&w->seq, 1);
		} else if (out == REFUSED) {
			w->st.refused++;
		} else if (out == NOT_FOUND) {
			w->st.not_found++;
		} else {
			w->st.failed++;
		}
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/* The cache directory, and its parent (~/.cache) when missing.  0 or -errno. */
static int make_dir(void *arg)
{
	char parent[PATH_MAX], *slash;

	snprintf(parent, sizeof(parent), "%s", (const char *)arg);
	slash = strrchr(parent, '/');
	if (slash && slash != parent) {
		*slash = '\0';
		(void)mkdir(parent, 0700);
	}
	return mkdir(arg, 0700) < 0 && errno != EEXIST ? -errno : 0;
}

/* A bound of the environment's (debuginfod__setup put prof's there), else def. */
static uint64_t env_bound(const char *name, uint64_t def)
{
	const char *v = getenv(name);
	char *end;
	unsigned long long u;

	if (!v || !v[0])
		return def;
	u = strtoull(v, &end, 10);
	return *end || !u ? def : (uint64_t)u;
}

/* ---- the reader's side ------------------------------------------------------------- */

int debuginfod_worker__start(const struct debuginfod_worker_config *c, struct debuginfod_worker **ret)
{
	struct debuginfod_worker *w;
	int r;

	if (!c->urls || !c->urls[strspn(c->urls, " \t")] || !c->cache_dir || !c->cache_dir[0])
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->c = *c;
	w->urls = strdup(c->urls);
	w->cache_dir = strdup(c->cache_dir);
	if (!w->urls || !w->cache_dir) {
		r = -ENOMEM;
		goto err;
	}
	w->c.urls = w->urls;
	w->c.cache_dir = w->cache_dir;
	r = c->as_user ? privs__as_user(make_dir, w->cache_dir) : make_dir(w->cache_dir);
	if (r < 0)
		goto err;
	hashtable__init(&w->asked, sizeof(struct wanted), wanted_eq, NULL);
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->wake, NULL);
	r = -pthread_create(&w->thread, NULL, run, w);
	if (r < 0) {
		hashtable__release(&w->asked);
		goto err;
	}
	*ret = w;
	return 0;
err:
	free(w->urls);
	free(w->cache_dir);
	free(w);
	return r;
}

struct debuginfod_worker *debuginfod_worker__stop(struct debuginfod_worker *w)
{
	if (!w)
		return NULL;
	atomic_store(&w->stopping, true);
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
	hashtable__release(&w->asked);
	free(w->urls);
	free(w->cache_dir);
	free(w);
	return NULL;
}

int debuginfod_worker__from_env(struct debuginfod_worker **ret)
{
	struct debuginfod_worker_config c = {
		.urls = getenv("DEBUGINFOD_URLS"), .as_user = true,
		.timeout = (unsigned int)MIN(env_bound("DEBUGINFOD_TIMEOUT", DEBUGINFOD_DEFAULT_TIMEOUT), 3600u),
		.maxtime = (unsigned int)MIN(env_bound("DEBUGINFOD_MAXTIME", DEBUGINFOD_DEFAULT_MAXTIME), 86400u),
		.maxsize = env_bound("DEBUGINFOD_MAXSIZE", DEBUGINFOD_DEFAULT_MAXSIZE),
	};
	char dir[PATH_MAX];
	int r;

	*ret = NULL;
	if (!debuginfod__on())
		return 0;
	c.cache_dir = dir;
	r = debuginfod_worker__user_cache(dir, sizeof(dir)) ? debuginfod_worker__start(&c, ret) : -ENOENT;
	/* c.urls is copied: without a worker, no server at all (not on the reader's thread) */
	unsetenv("DEBUGINFOD_URLS");
	return r;
}

void debuginfod_worker__ask(struct debuginfod_worker *w, const uint8_t *bid, size_t len)
{
	struct wanted k = { .len = (uint8_t)MIN(len, sizeof(k.id)) };
	struct wanted *e = NULL;
	uint64_t h;
	bool created = false;

	if (!len)
		return;
	memcpy(k.id, bid, k.len);
	h = hash__bytes(k.id, k.len);
	pthread_mutex_lock(&w->lock);
	if (w->dead || hashtable__find(&w->asked, h, &k)) {
		pthread_mutex_unlock(&w->lock);
		return;
	}
	if (w->nr == DEBUGINFOD_WORKER_QUEUE || hashtable__size(&w->asked) >= DEBUGINFOD_WORKER_IDS ||
	    !(e = hashtable__insert(&w->asked, h, &k, &created))) {
		w->st.dropped++;
		pthread_mutex_unlock(&w->lock);
		return;
	}
	*e = k;
	w->queue[(w->head + w->nr) % DEBUGINFOD_WORKER_QUEUE] = k;
	w->nr++;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
}

int debuginfod_worker__open(struct debuginfod_worker *w, const uint8_t *bid, size_t len, char **ret_name)
{
	char hex[2 * BUILD_ID_MAX + 1], path[PATH_MAX];
	int fd;

	hex_of(bid, len, hex, sizeof(hex));
	if (snprintf(path, sizeof(path), "%s/%s/debuginfo", w->cache_dir, hex) >= (int)sizeof(path))
		return -ENOENT;
	fd = w->c.as_user ? privs__open_as_user(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
			  : open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -ENOENT;
	if (!debuginfod__matches(fd, bid, len) || !(*ret_name = strdup(path))) {
		close(fd);
		return -ENOENT;
	}
	return fd;
}

void debuginfod_worker__arrived(struct debuginfod_worker *w, uint64_t *seq,
				void (*fn)(const uint8_t *bid, size_t len, void *ctx), void *ctx)
{
	uint64_t now = atomic_load(&w->seq);
	struct wanted ids[DEBUGINFOD_WORKER_ARRIVED];
	size_t n = 0;

	if (now == *seq)
		return;
	pthread_mutex_lock(&w->lock);
	now = atomic_load(&w->seq);
	if (now - *seq <= DEBUGINFOD_WORKER_ARRIVED)
		for (uint64_t i = *seq; i < now; i++)
			ids[n++] = w->arrived[i % DEBUGINFOD_WORKER_ARRIVED];
	pthread_mutex_unlock(&w->lock);
	if (now - *seq > DEBUGINFOD_WORKER_ARRIVED)
		fn(NULL, 0, ctx);
	for (size_t i = 0; i < n; i++)
		fn(ids[i].id, ids[i].len, ctx);
	*seq = now;
}

void debuginfod_worker__stats(struct debuginfod_worker *w, struct debuginfod_stats *ret)
{
	pthread_mutex_lock(&w->lock);
	*ret = w->st;
	pthread_mutex_unlock(&w->lock);
}
