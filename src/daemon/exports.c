/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof/base/util.h"
#include "prof/daemon/export_http.h"
#include "prof/daemon/export_push.h"
#include "prof/daemon/exports.h"

struct exports {
	struct history *h;
	pthread_mutex_t lock;           /* the two pointers (status reads them from another thread) */
	struct export_config c;
	char event[64];
	bool time_period;
	uint64_t freq, period;
	struct export_http *pull;
	struct export_push *push;
	struct export_http_stats pull_before;   /* of listeners stopped by reloads */
};

static uint64_t mean_period(const struct exports *x)
{
	return x->freq ? 1000000000ull / x->freq : x->period;
}

static int pull_settings(const struct exports *x, const struct export_config *c, struct export_http_settings *s,
			 char *err, size_t errlen)
{
	*s = (struct export_http_settings){ .c = *c, .time_period = x->time_period, .period = mean_period(x) };
	snprintf(s->event, sizeof(s->event), "%s", x->event);
	if (!c->pull_token_file[0])
		return 0;
	return export_http__read_token(c->pull_token_file, s->token, sizeof(s->token), err, errlen);
}

static void push_settings(const struct exports *x, const struct export_config *c, struct export_push_settings *s)
{
	*s = (struct export_push_settings){ .c = *c, .time_period = x->time_period, .period = mean_period(x),
					    .freq = x->freq ? x->freq : (x->period ? 1000000000ull / x->period : 0) };
	snprintf(s->event, sizeof(s->event), "%s", x->event);
}

/* A listener stopped: its counts stay in status. */
static void retire_pull(struct exports *x, struct export_http *old)
{
	struct export_http_stats st;

	if (!old)
		return;
	export_http__stats(old, &st);
	export_http__free(old);
	pthread_mutex_lock(&x->lock);
	export_http__add_stats(&x->pull_before, &st);
	pthread_mutex_unlock(&x->lock);
}

/* The pull endpoint as c wants it (started, stopped, restarted, or told the new token). */
static int apply_pull(struct exports *x, const struct export_config *c, char *err, size_t errlen)
{
	struct export_http_settings s;
	struct export_http *fresh = NULL, *old;
	int e;

	if (!c->pull_listen[0]) {
		fresh = NULL;
	} else if ((e = pull_settings(x, c, &s, err, errlen)) < 0) {
		return e;
	} else if (x->pull && !strcmp(c->pull_listen, x->c.pull_listen) &&
		   c->pull_max_builds == x->c.pull_max_builds && c->pull_max_connections == x->c.pull_max_connections &&
		   c->pull_timeout == x->c.pull_timeout) {
		export_http__configure(x->pull, &s);
		return 0;
	} else {
		if (x->pull) {
			/* the same address may be asked again: the old listener goes first */
			pthread_mutex_lock(&x->lock);
			old = x->pull;
			x->pull = NULL;
			pthread_mutex_unlock(&x->lock);
			retire_pull(x, old);
		}
		if ((e = export_http__start(x->h, &s, &fresh, err, errlen)) < 0)
			return e;
	}
	pthread_mutex_lock(&x->lock);
	old = x->pull;
	x->pull = fresh;
	pthread_mutex_unlock(&x->lock);
	retire_pull(x, old);
	return 0;
}

static int apply_push(struct exports *x, const struct export_config *c, char *err, size_t errlen)
{
	struct export_push_settings s;
	struct export_push *fresh = NULL, *old;
	int e;

	push_settings(x, c, &s);
	if (c->push_url[0] && x->push) {
		export_push__configure(x->push, &s);
		return 0;
	}
	if (c->push_url[0] && (e = export_push__start(x->h, &s, &fresh, err, errlen)) < 0)
		return e;
	pthread_mutex_lock(&x->lock);
	old = x->push;
	x->push = fresh;
	pthread_mutex_unlock(&x->lock);
	export_push__free(old);
	return 0;
}

int exports__start(struct history *h, const struct export_config *c, const struct exports_sampling *s,
		   struct exports **ret, char *err, size_t errlen)
{
	struct exports *x = calloc(1, sizeof(*x));
	int e;

	*ret = NULL;
	if (!x) {
		errorf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	x->h = h;
	pthread_mutex_init(&x->lock, NULL);
	snprintf(x->event, sizeof(x->event), "%s", s->event);
	x->time_period = s->time_period;
	x->freq = s->freq;
	x->period = s->period;
	e = exports__reconfigure(x, c, err, errlen);
	if (e < 0) {
		exports__free(x);
		return e;
	}
	x->c = *c;
	*ret = x;
	return 0;
}

int exports__reconfigure(struct exports *x, const struct export_config *c, char *err, size_t errlen)
{
	sigset_t all, old;
	int e;

	/* the threads made here take no signal: the sampling thread waits for them */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	e = apply_pull(x, c, err, errlen);
	if (!e)
		e = apply_push(x, c, err, errlen);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!e)
		x->c = *c;
	return e;
}

struct exports *exports__free(struct exports *x)
{
	if (!x)
		return NULL;
	export_http__free(x->pull);
	export_push__free(x->push);
	pthread_mutex_destroy(&x->lock);
	free(x);
	return NULL;
}

void exports__status(void *ctx, struct snap_out *o, bool admin)
{
	struct exports *x = ctx;
	struct export_http_stats hs, now;
	struct export_push_stats ps = { 0 };
	char line[160];
	int n;

	pthread_mutex_lock(&x->lock);
	hs = x->pull_before;
	if (x->pull) {
		export_http__stats(x->pull, &now);
		export_http__add_stats(&hs, &now);
	}
	if (x->push)
		export_push__stats(x->push, &ps);
	/* every client sees how the exports fare; their details are the admins' */
	n = snprintf(line, sizeof(line), "export_successes %" PRIu64 "\nexport_failures %" PRIu64 "\n", hs.ok + ps.pushed,
		     hs.failed + ps.failures + ps.rejected + ps.dropped);
	if (n > 0)
		snapshot__put_raw(o, line, MIN((size_t)n, sizeof(line) - 1));
	export_http__status(&hs, x->pull != NULL, o, admin);
	export_push__status(x->push, o, admin);
	pthread_mutex_unlock(&x->lock);
}
