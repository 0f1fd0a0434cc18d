/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "prof/base/escape.h"
#include "prof/base/util.h"
#include "prof/base/vec.h"
#include "prof/cli/daemon_client.h"
#include "prof/cli/daemon_report.h"
#include "prof/cli/report.h"
#include "prof/cli/ui_sources.h"
#include "prof/sys/privs.h"

/* The timeline has at most about this many bars; a short source 100 ms ones. */
#define TIMELINE_BARS 4000
#define SHORT_BUCKET_NS 100000000ull
#define SHORT_SPAN_NS 60000000000ull
/* profd's: each bar an answer of its own */
#define TIMELINE_BARS_DAEMON 120

/* A sample counted: when, its period, the entry of its event's profile it went to. */
struct sample_ref {
	uint64_t time, period;
	uint32_t entry;                 /* UINT32_MAX: cut (under [cut]) */
	uint32_t attr;                  /* the attr index; once sorted, the event's */
};

/* An event of the source: its profile whole, its samples by time, its timeline. */
struct ui_event {
	char name[256];
	size_t attr;                    /* a file's: the attr index */
	const struct profile *all;
	size_t off, nr;                 /* a file's samples: v[off, off + nr) */
	uint64_t *counts;
};

/* A window asked: a file's built from its samples, profd's an answer of its own. */
struct win_slot {
	bool set;
	size_t ev;
	uint64_t from, until, used;
	struct profile *win;
	uint64_t *ref;                  /* each entry of the event's whole profile's in win,
					 * UINT64_MAX: none yet */
	struct report *wr;              /* profd's answer for it */
	struct daemon_query wdq;
};

struct ui_source {
	struct ui_source_info info;
	char name[300], error[700], warning[700];
	int fd;                         /* the file, opened with the user's rights */
	char fdpath[64];
	struct report *r;               /* the source read whole: its model, names, profiles */
	struct ui_event *ev;            /* its events with samples, in the file's order */
	struct ui_event_info *evinfo;
	size_t nr_ev;
	struct sample_ref *v;           /* a file's samples, by event, then time */
	size_t nr, cap;
	bool index_failed;              /* ... out of memory while noting them */
	uint64_t t0;                    /* the first sample's time (the file's clock) */
	struct win_slot slot[2];        /* the last two windows asked */
	uint64_t clock;
	struct profile *empty;          /* a window of profd without the event */
	/* profd's history: each window an answer of its own, read as prof report --daemon */
	bool daemon;
	const char *socket;
	struct daemon_query dq;         /* r's answer */
};

struct ui_sources {
	struct ui_source **v;
	size_t nr, cap;
};

int ui_sources__new(struct ui_sources **ret)
{
	*ret = calloc(1, sizeof(**ret));
	return *ret ? 0 : -ENOMEM;
}

static void report_drop(struct report **r, struct daemon_query *dq)
{
	if (*r) {
		report__close(*r);
		free(*r);
		*r = NULL;
	}
	daemon_query__release(dq);
	memset(dq, 0, sizeof(*dq));
}

static void slot_drop(struct win_slot *w)
{
	report_drop(&w->wr, &w->wdq);
	w->win = profile__free(w->win);
	free(w->ref);
	w->ref = NULL;
	w->set = false;
}

static void source_drop_report(struct ui_source *s)
{
	for (size_t k = 0; k < ARRAY_SIZE(s->slot); k++)
		slot_drop(&s->slot[k]);
	report_drop(&s->r, &s->dq);
	for (size_t k = 0; k < s->nr_ev; k++)
		s->ev[k].all = NULL;
}

struct ui_sources *ui_sources__free(struct ui_sources *s)
{
	if (!s)
		return NULL;
	for (size_t i = 0; i < s->nr; i++) {
		source_drop_report(s->v[i]);
		if (s->v[i]->fd >= 0)
			close(s->v[i]->fd);
		for (size_t k = 0; k < s->v[i]->nr_ev; k++)
			free(s->v[i]->ev[k].counts);
		free(s->v[i]->ev);
		free(s->v[i]->evinfo);
		profile__free(s->v[i]->empty);
		free(s->v[i]->v);
		free(s->v[i]);
	}
	free(s->v);
	free(s);
	return NULL;
}

size_t ui_sources__count(const struct ui_sources *s)
{
	return s->nr;
}

const struct ui_source_info *ui_sources__info(struct ui_sources *s, size_t i)
{
	return &s->v[i]->info;
}

/* A new source named name, added to s.  NULL on ENOMEM. */
static struct ui_source *source_new(struct ui_sources *s, const char *name)
{
	struct ui_source *src = calloc(1, sizeof(*src));

	if (!src || VEC_RESERVE(s->v, s->cap, s->nr + 1) < 0) {
		free(src);
		return NULL;
	}
	src->fd = -1;
	escape__text(src->name, sizeof(src->name), name);
	src->info.name = src->name;
	s->v[s->nr++] = src;
	return src;
}

/* The page's and the terminal's message why src has nothing to show. */
static void source_fail(struct ui_source *src, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void source_fail(struct ui_source *src, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(src->error, sizeof(src->error), fmt, ap);
	va_end(ap);
	src->info.error = src->error;
	fprintf(stderr, "prof ui: %s\n", src->error);
}

/*
 * The task facts the window's samples keep apart, for grouping and filtering (the
 * JSON output's choice: each of its --sort keys kept): user, cgroup, container,
 * comm, the off-CPU holder, and the holder's cgroup and container where the source
 * may name them (profd tells them to root and its admins only).  Not the pid: one
 * entry per process would multiply a busy file's entries.  The folded stacks and the
 * flame graph merge what these keep apart, as prof report -F folded's.
 */
static void report_keys(struct report_opts *o, bool holder_places)
{
	static const enum profile_key keys[] = { PROFILE_KEY_UID, PROFILE_KEY_CGROUP, PROFILE_KEY_CONTAINER,
		PROFILE_KEY_COMM, PROFILE_KEY_HOLDER, PROFILE_KEY_HOLDER_CGROUP, PROFILE_KEY_HOLDER_CONTAINER };

	o->format = FORMAT_JSON;
	o->view.nr_keys = holder_places ? ARRAY_SIZE(keys) : ARRAY_SIZE(keys) - 2;
	memcpy(o->view.keys, keys, o->view.nr_keys * sizeof(keys[0]));
}

/* Each sample counted: the index of the source's samples by time. */
static void note_sample(void *ctx, const struct report_event *e, const struct sample *smp, uint64_t ref)
{
	struct ui_source *src = ctx;

	if (src->index_failed || (src->nr == src->cap && VEC_RESERVE(src->v, src->cap, src->nr + 1) < 0)) {
		src->index_failed = true;       /* said once read: the windows would miss samples */
		return;
	}
	src->v[src->nr++] = (struct sample_ref){ .time = smp->time, .period = smp->period ? smp->period : 1,
						 .entry = ref == UINT64_MAX ? UINT32_MAX : (uint32_t)ref,
						 .attr = (uint32_t)e->attr };
}

/* Read the file whole into src->r, noting each sample.  0, or -errno with err (the
 * terminal told by the report's steps). */
static int source_read(struct ui_source *src, char *err, size_t errlen)
{
	struct report *r = calloc(1, sizeof(*r));
	bool sorted = false;
	int e;

	if (!r)
		return -ENOMEM;
	src->r = r;
	r->only = -1;
	r->o.input = src->name;
	report_keys(&r->o, true);
	r->o.callchain = true;          /* as prof report -g */
	r->on_counted = note_sample;
	r->counted_ctx = src;
	e = report__open(r, src->fdpath, &sorted);
	if (e < 0) {
		errorf(err, errlen, "%s: %s", src->name, e == -ENOMEM ? "out of memory" : r->err.msg);
		return e;
	}
	e = report__read(r, sorted);
	if (e == 0 && src->index_failed)
		e = -ENOMEM;
	if (e == -ENOMEM)
		errorf(err, errlen, "%s: out of memory", src->name);
	else if (e == -ENODATA)
		errorf(err, errlen, "%s: %s", src->name, r->err.msg);
	else if (e < 0)
		errorf(err, errlen, "%s: bad record at offset %" PRIu64 " (type %u): %s", src->name, r->err.offset,
		       r->err.type, r->err.msg);
	return e;
}

static int by_event_time(const void *x, const void *y)
{
	const struct sample_ref *a = x, *b = y;

	if (a->attr != b->attr)
		return a->attr < b->attr ? -1 : 1;
	return a->time < b->time ? -1 : a->time > b->time;
}

/* The events of r with samples, into src->ev (names, profiles).  0 or -ENOMEM. */
static int source_events(struct ui_source *src, struct report *r)
{
	struct report_event *evs[READER_MAX_ATTRS];
	size_t n;

	if (report__events(r, evs, &n) < 0)
		return -ENOMEM;
	src->ev = calloc(n ? n : 1, sizeof(*src->ev));
	src->evinfo = calloc(n ? n : 1, sizeof(*src->evinfo));
	if (!src->ev || !src->evinfo)
		return -ENOMEM;
	for (size_t k = 0; k < n; k++) {
		struct ui_event *e = &src->ev[k];

		escape__text(e->name, sizeof(e->name), report__event_name(evs[k]));
		e->attr = evs[k]->attr;
		e->all = evs[k]->prof;
		src->evinfo[k] = (struct ui_event_info){ .name = e->name, .samples = evs[k]->samples };
	}
	src->nr_ev = n;
	return 0;
}

/* What the page is told of the events: the first's timeline is the source's. */
static void source_info_events(struct ui_source *src, size_t nr_counts)
{
	for (size_t k = 0; k < src->nr_ev; k++)
		src->evinfo[k].counts = src->ev[k].counts;
	src->info.events = src->evinfo;
	src->info.nr_events = src->nr_ev;
	src->info.nr_counts = nr_counts;
	if (src->nr_ev) {
		src->info.event = src->ev[0].name;
		src->info.samples = src->evinfo[0].samples;
		src->info.counts = src->ev[0].counts;
	}
}

/* Each event's samples by time (the first event with samples is shown first, as prof
 * report -F folded shows it), and the timeline of them. */
static int source_timeline(struct ui_source *src)
{
	uint32_t index[READER_MAX_ATTRS];
	uint64_t span, last = 0;
	size_t w = 0, nr_counts;

	if (source_events(src, src->r) < 0)
		return -ENOMEM;
	memset(index, 0xff, sizeof(index));
	for (size_t k = 0; k < src->nr_ev; k++)
		index[src->ev[k].attr] = (uint32_t)k;
	src->t0 = UINT64_MAX;
	for (size_t i = 0; i < src->nr; i++) {
		if (src->v[i].attr >= READER_MAX_ATTRS || index[src->v[i].attr] == UINT32_MAX)
			continue;
		src->v[w] = src->v[i];
		src->v[w].attr = index[src->v[i].attr];
		src->t0 = MIN(src->t0, src->v[w].time);
		last = MAX(last, src->v[w].time);
		w++;
	}
	src->nr = w;
	qsort(src->v, src->nr, sizeof(*src->v), by_event_time);
	src->t0 = src->nr ? src->t0 : 0;
	span = src->nr ? last - src->t0 + 1 : 1;
	for (size_t i = 0; i < src->nr; i++)
		src->ev[src->v[i].attr].nr++;
	for (size_t k = 1; k < src->nr_ev; k++)
		src->ev[k].off = src->ev[k - 1].off + src->ev[k - 1].nr;
	src->info.start_ns = src->t0;
	src->info.bucket_ns = span < SHORT_SPAN_NS ? SHORT_BUCKET_NS
			      : (span / TIMELINE_BARS / 1000000000ull + 1) * 1000000000ull;
	nr_counts = (size_t)(span / src->info.bucket_ns) + 1;
	for (size_t k = 0; k < src->nr_ev; k++)
		if (!(src->ev[k].counts = calloc(nr_counts, sizeof(uint64_t))))
			return -ENOMEM;
	for (size_t i = 0; i < src->nr; i++)
		src->ev[src->v[i].attr].counts[(src->v[i].time - src->t0) / src->info.bucket_ns]++;
	source_info_events(src, nr_counts);
	return 0;
}

/* The file opened with the user's own rights (prof may hold capabilities), without
 * blocking on a FIFO.  0, or a failed source. */
static int source_open(struct ui_source *src, const char *path)
{
	struct stat st;

	src->fd = privs__open_as_user(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (src->fd < 0) {
		source_fail(src, "%s: cannot open: %s%s", src->name, strerror(-src->fd),
			    src->fd == -EACCES ? " (prof ui reads files with your own rights: ask its owner to "
			    "share it, or run prof ui as its owner)" : "");
		return -1;
	}
	if (fstat(src->fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		source_fail(src, "%s: not a regular file (a FIFO, device or directory): give a perf.data file",
			    src->name);
		return -1;
	}
	snprintf(src->fdpath, sizeof(src->fdpath), "/proc/self/fd/%d", src->fd);
	return 0;
}

int ui_sources__add_file(struct ui_sources *s, const char *path)
{
	struct ui_source *src = source_new(s, path);
	char err[600];
	uint64_t end;
	int e;

	if (!src)
		return -ENOMEM;
	if (source_open(src, path) < 0)
		return 0;
	e = source_read(src, err, sizeof(err));
	if (e == -ENOMEM)
		return e;
	if (e < 0) {
		source_fail(src, "%s; nothing shown of it", err);
		source_drop_report(src);
		return 0;
	}
	if (source_timeline(src) < 0)
		return -ENOMEM;
	report__say_unfinished(src->r);
	if (perf_reader__finish_state(src->r->reader, &end) != READER_FINISHED) {
		snprintf(src->warning, sizeof(src->warning), "%s was not finished (the recording was killed, or its "
			 "disk filled?): shown up to its last whole record, at offset %" PRIu64, src->name, end);
		src->info.warning = src->warning;
	}
	return 0;
}

static int daemon_window(struct ui_source *src, struct win_slot *w, char *err, size_t errlen);

/* The first sample of event e at or after t (after t0). */
static size_t lower_bound(const struct ui_source *src, const struct ui_event *e, uint64_t t)
{
	size_t lo = e->off, hi = e->off + e->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (src->v[mid].time - src->t0 < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Entry i of the event's whole profile into the window, its frames as the whole has
 * them (interned there: the window's names and the whole's are one). */
static int add_entry(const struct profile *all, struct win_slot *w, uint32_t i, uint64_t period)
{
	static const struct profile_task none;
	static const struct profile_frame cut = { .dso = PROFILE_CUT_SYM, .sym = PROFILE_CUT_SYM };
	struct profile_frame frames[ATTRIBUTION_MAX_FRAMES];
	size_t nr_entries, nr_frames, n;
	const struct profile_entry *e = profile__entries(all, &nr_entries);
	const struct profile_frame *fr = profile__frames(all, &nr_frames);
	const uint32_t *ids;

	if (i == UINT32_MAX)            /* cut in the whole: [cut] in the window too */
		return profile__add(w->win, &none, &cut, 1, period) < 0 ? -ENOMEM : 0;
	if (w->ref[i] != UINT64_MAX && profile__add_again(w->win, w->ref[i], period) == 0)
		return 0;
	ids = profile__stack(all, e[i].stack, &n);
	n = MIN(n, ARRAY_SIZE(frames));
	for (size_t k = 0; k < n; k++)
		frames[k] = fr[ids[k]];
	return profile__add_ref(w->win, &e[i].task, frames, n, period, &w->ref[i]) < 0 ? -ENOMEM : 0;
}

/* A file's window of event w->ev, [w->from, w->until), from its samples.  0 or -ENOMEM. */
static int file_window(struct ui_source *src, struct win_slot *w)
{
	const struct ui_event *e = &src->ev[w->ev];
	size_t nr_entries, a, b;

	profile__entries(e->all, &nr_entries);
	w->ref = malloc((nr_entries ? nr_entries : 1) * sizeof(*w->ref));
	w->win = profile__new(PROFILE_UNLIMITED);
	if (!w->win || !w->ref)
		return -ENOMEM;
	memset(w->ref, 0xff, (nr_entries ? nr_entries : 1) * sizeof(*w->ref));
	a = lower_bound(src, e, w->from);
	b = w->until > w->from ? lower_bound(src, e, w->until) : a;
	for (size_t k = a; k < b; k++)
		if (add_entry(e->all, w, src->v[k].entry, src->v[k].period) < 0)
			return -ENOMEM;
	return 0;
}

/* The slot holding event ev's [from, until), NULL when none does. */
static struct win_slot *slot_find(struct ui_source *src, size_t ev, uint64_t from, uint64_t until)
{
	for (size_t k = 0; k < ARRAY_SIZE(src->slot); k++)
		if (src->slot[k].set && src->slot[k].ev == ev && src->slot[k].from == from && src->slot[k].until == until)
			return &src->slot[k];
	return NULL;
}

/* The profile of event ev of r (the one of that name), or NULL. */
static const struct profile *event_named(struct report *r, const char *name)
{
	struct report_event *evs[READER_MAX_ATTRS];
	char buf[256];
	size_t n;

	if (!r || report__events(r, evs, &n) < 0)
		return NULL;
	for (size_t k = 0; k < n; k++) {
		escape__text(buf, sizeof(buf), report__event_name(evs[k]));
		if (!strcmp(buf, name))
			return evs[k]->prof;
	}
	return NULL;
}

int ui_sources__window(struct ui_sources *s, size_t i, size_t ev, uint64_t from, uint64_t until,
		       const struct profile **ret, const struct model **ret_model, char *err, size_t errlen)
{
	struct ui_source *src = s->v[i];
	struct win_slot *w;
	int e;

	if (src->info.error)
		return errorf(err, errlen, "%s", src->error);
	if (ev >= src->nr_ev)
		return errorf(err, errlen, "no event %zu: %s has %zu with samples (/api/sources)", ev, src->name,
			      src->nr_ev);
	*ret_model = src->r->an.model;
	if (from == 0 && until == UINT64_MAX) {
		*ret = src->ev[ev].all;
		return 0;
	}
	w = slot_find(src, ev, from, until);
	if (!w) {
		/* the one used longer ago: the other may be the first of a diff */
		w = src->slot[0].used <= src->slot[1].used ? &src->slot[0] : &src->slot[1];
		slot_drop(w);
		w->ev = ev;
		w->from = from;
		w->until = until;
		e = src->daemon ? daemon_window(src, w, err, errlen) : file_window(src, w);
		if (e < 0) {
			slot_drop(w);
			if (e == -ENOMEM)
				errorf(err, errlen, "out of memory");
			return e;
		}
		w->set = true;
	}
	w->used = ++src->clock;
	if (src->daemon) {
		*ret_model = w->wr->an.model;
		*ret = event_named(w->wr, src->ev[ev].name);
		if (!*ret && !src->empty && !(src->empty = profile__new(0)))
			return errorf(err, errlen, "out of memory");
		*ret = *ret ? *ret : src->empty;   /* none of the event in the window */
		return 0;
	}
	*ret = w->win;
	return 0;
}

/* ---- profd's history ---------------------------------------------------------------------- */

/* The history's samples of [from, until) (realtime ns; from 0: the last since) as
 * prof report --daemon reads them, into *ret and dq.  0, or -errno (the terminal
 * told by the report's steps). */
static int daemon_read(struct ui_source *src, const char *since, uint64_t from, uint64_t until, struct report **ret,
		       struct daemon_query *dq)
{
	struct report *r = calloc(1, sizeof(*r));
	char fromb[40], untilb[40], path[64];
	bool sorted = false;
	int fd, e;

	if (!r)
		return -ENOMEM;
	*ret = r;
	*dq = (struct daemon_query){ .on = true, .socket = src->socket, .since = from ? NULL : since };
	if (from) {
		snprintf(fromb, sizeof(fromb), "@%" PRIu64 ".%09" PRIu64, from / 1000000000, from % 1000000000);
		snprintf(untilb, sizeof(untilb), "@%" PRIu64 ".%09" PRIu64, until / 1000000000, until % 1000000000);
		dq->from = fromb;
		dq->until = untilb;
	}
	r->only = -1;
	report_keys(&r->o, false);
	r->o.callchain = true;
	r->o.input = src->name;
	fd = daemon_query__open(dq, &r->o, path, sizeof(path));
	dq->from = dq->until = NULL;    /* fromb and untilb go out of scope */
	if (fd < 0)
		return fd;
	e = report__open(r, path, &sorted);
	if (!e)
		e = report__read(r, sorted);
	if (!e)
		e = report__fill_from_daemon(r, dq);
	close(fd);
	return e;
}

/* Whether profd's socket takes a connection: else why not, in err. */
static bool daemon_reachable(const char *path, char *err, size_t errlen)
{
	struct daemon_client c;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;
	bool ok;

	if (daemon_client__init(&c, path, err, errlen) < 0)
		return false;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", c.socket);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ok = fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
	if (!ok)
		errorf(err, errlen, "profd's socket %s: %s: is profd running? (start it: systemctl start profd; "
		       "or give prof ui -i FILE)", c.socket, strerror(errno));
	if (fd >= 0)
		close(fd);
	return ok;
}

/* Bar i: the samples of each event of profd's answer for [from, until), counted
 * without reading the answer's stacks (a window's read names them all).  0 or -errno. */
static int daemon_bar(struct ui_source *src, uint64_t from, uint64_t until, size_t i)
{
	struct daemon_query dq = { .on = true, .socket = src->socket, .off_cpu = true };
	struct report_opts o = { .callchain = true };
	uint64_t n[DAEMON_QUERY_EVENTS];
	char fromb[40], untilb[40];
	int e;

	snprintf(fromb, sizeof(fromb), "@%" PRIu64 ".%09" PRIu64, from / 1000000000, from % 1000000000);
	snprintf(untilb, sizeof(untilb), "@%" PRIu64 ".%09" PRIu64, until / 1000000000, until % 1000000000);
	dq.from = fromb;
	dq.until = untilb;
	report_keys(&o, false);
	e = daemon_query__ask(&dq, &o, "prof ui");
	if (e == 0) {
		daemon_query__event_samples(&dq, n);
		for (size_t k = 0; k < src->nr_ev; k++)
			if (src->ev[k].attr < DAEMON_QUERY_EVENTS)
				src->ev[k].counts[i] = n[src->ev[k].attr];
	}
	daemon_query__release(&dq);
	return e;
}

/* The timeline: bars of whole history buckets, each the answer's samples of its span. */
static int daemon_timeline(struct ui_source *src)
{
	const struct answer *a = &src->dq.a;
	uint64_t b = a->m.bucket_ns ? a->m.bucket_ns : 1000000000ull, start, end, bar;
	size_t nr;

	if (!a->window.start_ns || a->window.end_ns <= a->window.start_ns)
		return 0;       /* no history yet: no bars */
	start = a->window.start_ns - a->window.start_ns % b;
	end = MAX(a->window.end_ns, start + 1);
	bar = ((end - start) / TIMELINE_BARS_DAEMON / b + 1) * b;
	nr = (size_t)((end - start + bar - 1) / bar);
	for (size_t k = 0; k < src->nr_ev; k++)
		if (!(src->ev[k].counts = calloc(nr, sizeof(uint64_t))))
			return -ENOMEM;
	src->t0 = start;
	src->info.start_ns = start;
	src->info.bucket_ns = bar;
	source_info_events(src, nr);
	for (size_t i = 0; i < nr; i++) {
		int e = daemon_bar(src, start + i * bar, start + (i + 1) * bar, i);

		if (e == -ENOMEM)
			return e;
		if (e < 0)
			return 0;       /* profd went away: the bars it gave */
	}
	return 0;
}

int ui_sources__add_daemon(struct ui_sources *s, const char *socket, const char *since)
{
	struct ui_source *src = source_new(s, "profd");
	char err[600];
	int e;

	if (!src)
		return -ENOMEM;
	src->daemon = true;
	src->socket = socket;
	if (!daemon_reachable(socket, err, sizeof(err))) {
		source_fail(src, "%s", err);
		return 0;
	}
	e = daemon_read(src, since ? since : "1h", 0, 0, &src->r, &src->dq);
	if (e == -ENOMEM)
		return e;
	if (e < 0) {
		source_fail(src, "profd's history could not be read (the terminal says why); nothing shown of it");
		source_drop_report(src);
		return 0;
	}
	escape__text(src->name, sizeof(src->name), src->dq.label);
	src->info.admin = src->dq.a.m.admin;
	if (source_events(src, src->r) < 0)
		return -ENOMEM;
	for (size_t k = 0; k < src->nr_ev; k++)
		src->evinfo[k].samples = profile__stats(src->ev[k].all)->samples;
	source_info_events(src, 0);
	return daemon_timeline(src);
}

/* A window of profd's history: an answer of its own. */
static int daemon_window(struct ui_source *src, struct win_slot *w, char *err, size_t errlen)
{
	int e = daemon_read(src, NULL, src->t0 + w->from, src->t0 + MIN(w->until, UINT64_MAX / 2), &w->wr, &w->wdq);

	if (e < 0 && e != -ENOMEM)
		errorf(err, errlen, "profd did not answer for the window (%s): see prof ui's terminal", strerror(-e));
	return e;
}

int ui_sources__pprof(struct ui_sources *s, size_t i, size_t ev, const struct profile *p, uint64_t from,
		      uint64_t until, int fd, char *err, size_t errlen)
{
	struct ui_source *src = s->v[i];
	bool whole = from == 0 && until == UINT64_MAX;
	struct win_slot *w = whole ? NULL : slot_find(src, ev, from, until);
	struct report *r = src->daemon && w ? w->wr : src->r;
	struct report_event *evs[READER_MAX_ATTRS], *e = NULL;
	struct pprof_meta m;
	char note[400], buf[256];
	size_t n;
	int ret;

	if (!r || ev >= src->nr_ev || report__events(r, evs, &n) < 0)
		return errorf(err, errlen, "the window's event is not known");
	for (size_t k = 0; k < n && !e; k++) {
		escape__text(buf, sizeof(buf), report__event_name(evs[k]));
		e = !strcmp(buf, src->ev[ev].name) ? evs[k] : NULL;
	}
	if (!e && !(e = src->r->event_of[src->ev[ev].attr]))
		return errorf(err, errlen, "the window's event is not known");
	m = report__pprof_meta(e == src->r->event_of[src->ev[ev].attr] ? src->r : r, e);
	if (!whole) {
		m.duration_ns = (int64_t)MIN(until - MIN(from, until), (uint64_t)m.duration_ns);
		snprintf(note, sizeof(note), "prof ui: %s, %.3f s to %.3f s after its start", src->name, from / 1e9,
			 MIN(until, UINT64_MAX / 2) / 1e9);
	} else {
		snprintf(note, sizeof(note), "prof ui: %s", src->name);
	}
	m.comments[0] = note;
	m.comments[1] = NULL;
	ret = pprof__write_events(&p, &m, fd);
	if (ret < 0)
		errorf(err, errlen, "pprof: %s", strerror(-ret));
	return ret;
}
