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

/* A sample counted: when, its period, the entry of the source's profile it went to. */
struct sample_ref {
	uint64_t time, period;
	uint32_t entry;                 /* UINT32_MAX: cut (under [cut]) */
	uint32_t attr;
};

struct ui_source {
	struct ui_source_info info;
	char name[300], error[700], warning[700], event[256];
	int fd;                         /* the file, opened with the user's rights */
	char fdpath[64];
	struct report *r;               /* the source read whole: its model, names, profiles */
	size_t attr;                    /* the shown event's attr index */
	const struct profile *all;      /* ... its profile */
	struct sample_ref *v;           /* the shown event's samples, by time */
	size_t nr, cap;
	bool index_failed;              /* ... out of memory while noting them */
	uint64_t *counts;               /* the timeline */
	uint64_t t0;                    /* the first sample's time (the file's clock) */
	struct profile *win;            /* the last window asked, [from, until) after t0 */
	uint64_t from, until;
	uint64_t *win_ref;              /* ... each entry of all's ref in win, UINT64_MAX: none yet */
	/* profd's history: each window an answer of its own, read as prof report --daemon */
	bool daemon;
	const char *socket;
	struct daemon_query dq;         /* r's answer */
	struct report *wr;              /* the last window's, and its answer */
	struct daemon_query wdq;
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

static void source_drop_report(struct ui_source *s)
{
	report_drop(&s->r, &s->dq);
	report_drop(&s->wr, &s->wdq);
	s->all = NULL;
}

struct ui_sources *ui_sources__free(struct ui_sources *s)
{
	if (!s)
		return NULL;
	for (size_t i = 0; i < s->nr; i++) {
		source_drop_report(s->v[i]);
		if (s->v[i]->fd >= 0)
			close(s->v[i]->fd);
		profile__free(s->v[i]->win);
		free(s->v[i]->win_ref);
		free(s->v[i]->counts);
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
	r->o.format = FORMAT_FOLDED;    /* the folded stacks' keys: the comm */
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

static int by_time(const void *x, const void *y)
{
	const struct sample_ref *a = x, *b = y;

	return a->time < b->time ? -1 : a->time > b->time;
}

/* The shown event (the first with samples, as prof report -F folded shows), its
 * samples by time, and the timeline of them. */
static int source_timeline(struct ui_source *src)
{
	struct report_event *evs[READER_MAX_ATTRS];
	uint64_t span;
	size_t n, w = 0;

	if (report__events(src->r, evs, &n) < 0 || !n)
		return -ENOMEM;
	src->attr = evs[0]->attr;
	src->all = evs[0]->prof;
	escape__text(src->event, sizeof(src->event), report__event_name(evs[0]));
	src->info.event = src->event;
	src->info.samples = evs[0]->samples;
	for (size_t i = 0; i < src->nr; i++)
		if (src->v[i].attr == src->attr)
			src->v[w++] = src->v[i];
	src->nr = w;
	qsort(src->v, src->nr, sizeof(*src->v), by_time);
	src->t0 = src->nr ? src->v[0].time : 0;
	span = src->nr ? src->v[src->nr - 1].time - src->t0 + 1 : 1;
	src->info.start_ns = src->t0;
	src->info.bucket_ns = span < SHORT_SPAN_NS ? SHORT_BUCKET_NS
			      : (span / TIMELINE_BARS / 1000000000ull + 1) * 1000000000ull;
	src->info.nr_counts = (size_t)(span / src->info.bucket_ns) + 1;
	src->counts = calloc(src->info.nr_counts, sizeof(*src->counts));
	if (!src->counts)
		return -ENOMEM;
	for (size_t i = 0; i < src->nr; i++)
		src->counts[(src->v[i].time - src->t0) / src->info.bucket_ns]++;
	src->info.counts = src->counts;
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

static int daemon_window(struct ui_source *src, uint64_t from, uint64_t until, const struct profile **ret,
			 char *err, size_t errlen);

/* The first sample at or after t (after t0). */
static size_t lower_bound(const struct ui_source *src, uint64_t t)
{
	size_t lo = 0, hi = src->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (src->v[mid].time - src->t0 < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Entry i of the whole profile into w, its frames as the whole profile has them
 * (interned there: w's names and the whole's are one). */
static int add_entry(struct ui_source *src, struct profile *w, uint32_t i, uint64_t period)
{
	static const struct profile_task none;
	static const struct profile_frame cut = { .dso = PROFILE_CUT_SYM, .sym = PROFILE_CUT_SYM };
	struct profile_frame frames[ATTRIBUTION_MAX_FRAMES];
	size_t nr_entries, nr_frames, n;
	const struct profile_entry *e = profile__entries(src->all, &nr_entries);
	const struct profile_frame *all = profile__frames(src->all, &nr_frames);
	const uint32_t *ids;

	if (i == UINT32_MAX)            /* cut in the whole: [cut] in the window too */
		return profile__add(w, &none, &cut, 1, period) < 0 ? -ENOMEM : 0;
	if (src->win_ref[i] != UINT64_MAX && profile__add_again(w, src->win_ref[i], period) == 0)
		return 0;
	ids = profile__stack(src->all, e[i].stack, &n);
	n = MIN(n, ARRAY_SIZE(frames));
	for (size_t k = 0; k < n; k++)
		frames[k] = all[ids[k]];
	return profile__add_ref(w, &e[i].task, frames, n, period, &src->win_ref[i]) < 0 ? -ENOMEM : 0;
}

int ui_sources__window(struct ui_sources *s, size_t i, uint64_t from, uint64_t until, const struct profile **ret,
		       char *err, size_t errlen)
{
	struct ui_source *src = s->v[i];
	size_t nr_entries, a, b;

	if (src->info.error)
		return errorf(err, errlen, "%s", src->error);
	if (src->daemon && !(from == 0 && until == UINT64_MAX))
		return daemon_window(src, from, until, ret, err, errlen);
	if (from == 0 && until == UINT64_MAX) {
		*ret = src->all;
		return 0;
	}
	if (src->win && src->from == from && src->until == until) {
		*ret = src->win;
		return 0;
	}
	profile__free(src->win);
	profile__entries(src->all, &nr_entries);
	free(src->win_ref);
	src->win_ref = malloc((nr_entries ? nr_entries : 1) * sizeof(*src->win_ref));
	src->win = profile__new(PROFILE_UNLIMITED);
	if (!src->win || !src->win_ref)
		goto enomem;
	memset(src->win_ref, 0xff, (nr_entries ? nr_entries : 1) * sizeof(*src->win_ref));
	a = lower_bound(src, from);
	b = until > from ? lower_bound(src, until) : a;
	for (size_t k = a; k < b; k++)
		if (add_entry(src, src->win, src->v[k].entry, src->v[k].period) < 0)
			goto enomem;
	src->from = from;
	src->until = until;
	*ret = src->win;
	return 0;
enomem:
	src->win = profile__free(src->win);
	errorf(err, errlen, "out of memory");
	return -ENOMEM;
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
	r->o.format = FORMAT_FOLDED;
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

/* The first event's samples of r (0 when it has none). */
static const struct profile *first_event(struct report *r, uint64_t *ret_samples)
{
	struct report_event *evs[READER_MAX_ATTRS];
	size_t n;

	*ret_samples = 0;
	if (report__events(r, evs, &n) < 0 || !n)
		return NULL;
	*ret_samples = evs[0]->samples;
	return evs[0]->prof;
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

/* The timeline: bars of whole history buckets, each the answer's samples of its span. */
static int daemon_timeline(struct ui_source *src)
{
	const struct answer *a = &src->dq.a;
	uint64_t b = a->m.bucket_ns ? a->m.bucket_ns : 1000000000ull, start, end, bar;
	size_t nr;

	if (!a->window.start_ns || a->window.end_ns <= a->window.start_ns) {
		src->info = (struct ui_source_info){ .name = src->name, .event = src->event };
		return 0;       /* no history yet: no bars */
	}
	start = a->window.start_ns - a->window.start_ns % b;
	end = MAX(a->window.end_ns, start + 1);
	bar = ((end - start) / TIMELINE_BARS_DAEMON / b + 1) * b;
	nr = (size_t)((end - start + bar - 1) / bar);
	src->counts = calloc(nr, sizeof(*src->counts));
	if (!src->counts)
		return -ENOMEM;
	src->t0 = start;
	src->info = (struct ui_source_info){ .name = src->name, .event = src->event, .start_ns = start,
					     .bucket_ns = bar, .counts = src->counts, .nr_counts = nr };
	for (size_t i = 0; i < nr; i++) {
		struct report *r = NULL;
		struct daemon_query dq;
		int e = daemon_read(src, NULL, start + i * bar, start + (i + 1) * bar, &r, &dq);

		if (e == 0)
			first_event(r, &src->counts[i]);
		report_drop(&r, &dq);
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
	src->all = first_event(src->r, &src->info.samples);
	snprintf(src->event, sizeof(src->event), "%s", src->dq.a.m.event);
	e = daemon_timeline(src);
	src->info.samples = src->all ? profile__stats(src->all)->samples : 0;
	return e;
}

/* A window of profd's history: an answer of its own. */
static int daemon_window(struct ui_source *src, uint64_t from, uint64_t until, const struct profile **ret,
			 char *err, size_t errlen)
{
	uint64_t n;
	int e;

	if (!(src->wr && src->from == from && src->until == until)) {
		report_drop(&src->wr, &src->wdq);
		e = daemon_read(src, NULL, src->t0 + from, src->t0 + MIN(until, UINT64_MAX / 2), &src->wr, &src->wdq);
		if (e < 0) {
			report_drop(&src->wr, &src->wdq);
			errorf(err, errlen, "profd did not answer for the window (%s): see prof ui's terminal",
			       strerror(-e));
			return e;
		}
		src->from = from;
		src->until = until;
	}
	*ret = first_event(src->wr, &n);
	if (!*ret) {
		errorf(err, errlen, "profd's answer for the window has no event");
		return -ENODATA;
	}
	return 0;
}

int ui_sources__pprof(struct ui_sources *s, size_t i, const struct profile *p, uint64_t from, uint64_t until,
		      int fd, char *err, size_t errlen)
{
	struct ui_source *src = s->v[i];
	bool whole = from == 0 && until == UINT64_MAX;
	struct report *r = src->daemon && !whole ? src->wr : src->r;
	struct report_event *evs[READER_MAX_ATTRS];
	struct pprof_meta m;
	char note[400];
	size_t n;
	int e;

	if (!r || report__events(r, evs, &n) < 0 || !n)
		return errorf(err, errlen, "the window's event is not known");
	m = report__pprof_meta(r, src->daemon ? evs[0] : r->event_of[src->attr] ? r->event_of[src->attr] : evs[0]);
	if (!whole) {
		m.duration_ns = (int64_t)MIN(until - MIN(from, until), (uint64_t)m.duration_ns);
		snprintf(note, sizeof(note), "prof ui: %s, %.3f s to %.3f s after its start", src->name, from / 1e9,
			 MIN(until, UINT64_MAX / 2) / 1e9);
	} else {
		snprintf(note, sizeof(note), "prof ui: %s", src->name);
	}
	m.comments[0] = note;
	m.comments[1] = NULL;
	e = pprof__write_events(&p, &m, fd);
	if (e < 0)
		errorf(err, errlen, "pprof: %s", strerror(-e));
	return e;
}
