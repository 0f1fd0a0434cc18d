/* SPDX-License-Identifier: GPL-2.0-or-later */
/* prof report's tables: an event's rows as text, the events' rows as JSON. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "prof/base/escape.h"
#include "prof/base/util.h"
#include "prof/cli/report.h"
#include "prof/output/keys.h"
#include "prof/output/javaframe.h"
#include "prof/output/pyframe.h"
#include "prof/jvm/frames.h"
#include "prof/python/python.h"

const char *report__event_name(const struct report_event *e)
{
	return e->a->name[0] ? e->a->name : "?";
}

static size_t term_width(void)
{
	struct winsize ws;

	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20)
		return ws.ws_col;
	return 0;       /* not a terminal: no limit */
}

/* The recording's Python frames, as its summary said them (prof's section). */
static void print_python(const struct prof_section_stats *rec)
{
	struct python_stats py = { .samples = rec->py_samples, .processes = rec->py_processes,
				   .with_python = rec->py_with, .verified = rec->py_verified };
	char line[1024];

	if (!rec->py_samples)
		return;
	for (int v = PYTHON_READ_FAILED; v < PYTHON_VERDICTS; v++)
		py.unverified[v] = rec->py_unverified[v - PYTHON_READ_FAILED];
	python_stats__describe(&py, line, sizeof(line));
	printf("# python: %s", line);
	if (rec->py_chained)
		printf("; %" PRIu64 " with every Python frame read at the sample instant", rec->py_chained);
	printf("\n");
}

/* The recording's Java frames, as its summary said them (prof's section). */
static void print_java(const struct prof_section_stats *rec)
{
	struct jvm_frames_stats j = { .samples = rec->java_samples, .processes = rec->java_processes,
				      .with_java = rec->java_with, .verified = rec->java_verified,
				      .frames = rec->java_frames, .cut = rec->java_cut,
				      .vm_threads = rec->java_vm_threads };
	char line[1024];

	if (!rec->java_samples)
		return;
	memcpy(j.unverified, rec->java_unverified, sizeof(j.unverified));
	jvm_frames_stats__describe(&j, line, sizeof(line));
	printf("# java: %s\n", line);
}

static void print_header(const struct report *r, const struct report_event *e)
{
	const char *host = perf_reader__feature_string(r->reader, HEADER_HOSTNAME);
	const struct profile_stats *st = profile__stats(e->prof);
	char buf[4096];

	/* everything from the file is shown through escape__text(): no raw control bytes */
	escape__text(buf, sizeof(buf), r->o.input);
	printf("# prof report: %s\n", buf);
	escape__text(buf, sizeof(buf), report__event_name(e));
	printf("# event: %s, %" PRIu64 " samples, %" PRIu64 " lost, %.2f s", buf, st->samples, r->lost,
	       e->last_time > e->first_time ? (double)(e->last_time - e->first_time) / 1e9 : 0.0);
	if (host) {
		escape__text(buf, sizeof(buf), host);
		printf(", host %s", buf);
	}
	printf("\n");
	if (r->scope[0]) {
		escape__text(buf, sizeof(buf), r->scope);
		printf("# scope: %s\n", buf);
	}
	if (r->section.has_stats) {
		const struct prof_section_stats *rec = &r->section.stats;

		/* prof record counts the recording's samples, not each event's */
		printf("# recorded: %" PRIu64 " samples written, %" PRIu64 " out of scope, %" PRIu64
		       " unattributed, %" PRIu64 " lost", rec->samples_written, rec->samples_out_of_scope,
		       rec->unattributed_gone + rec->unattributed_creds, rec->lost + rec->lost_samples);
		if (r->nr_sampling > 1)
			printf(" (the %zu events together)", r->nr_sampling);
		printf("\n");
		print_python(rec);
		print_java(rec);
	}
	for (size_t i = 0; i < r->section.nr_pressure; i++) {
		const struct prof_section_pressure *p = &r->section.pressure[i];
		char line[1024];

		escape__text(buf, sizeof(buf), p->cgroup);
		pressure__describe(&p->d, p->wall_ns, line, sizeof(line));
		printf("# cgroup %s over %.2f s: %s\n", buf, (double)p->wall_ns / 1e9, line);
	}
	if (e->filtered)
		printf("# filtered out: %" PRIu64 " samples\n", e->filtered);
	if (e->guest)
		printf("# guest: %" PRIu64 " samples of virtual machines' guests left out (not this host's code; "
		       "perf report leaves them out too, without --guest)\n", e->guest);
	if (st->cut_samples)
		printf("# cut: %" PRIu64 " samples beyond %s, shown as [cut]\n", st->cut_samples,
		       st->cut_by_budget ? "the report's memory budget" : "--max-stacks");
	printf("#\n");
}

/* Is row i past what --percent-limit and --top show? */
static bool row_hidden(const struct report *r, const struct report_event *e, const struct profile_row *row,
		       size_t shown)
{
	uint64_t total = profile__stats(e->prof)->period;
	double pct = total ? 100.0 * (double)row->period / (double)total : 0;

	return pct < r->o.percent_limit || (r->o.top && shown >= r->o.top);
}

void report_print__text(const struct report *r, const struct report_event *e, const struct profile_row *rows,
			size_t nr)
{
	const struct view_opts *v = &r->o.view;
	uint64_t total = profile__stats(e->prof)->period;
	size_t width = term_width(), w[PROFILE_KEY__MAX] = { 0 };
	bool tty = width > 0;
	char buf[4096], line[4096];

	print_header(r, e);
	for (size_t k = 0; k < v->nr_keys; k++)
		w[k] = strlen(keys__title(v->keys[k]));
	for (size_t i = 0; i < nr; i++)
		for (size_t k = 0; k < v->nr_keys; k++)
			w[k] = MAX(w[k], MIN(keys__text(&rows[i], v->keys[k], r->an.model, e->prof, buf, sizeof(buf)),
					     (size_t)48));
	printf("# %8s  %8s", "Overhead", "Samples");
	for (size_t k = 0; k < v->nr_keys; k++)
		printf("  %-*s", k + 1 < v->nr_keys ? (int)w[k] : 0, keys__title(v->keys[k]));
	printf("\n#\n");
	for (size_t i = 0; i < nr && !row_hidden(r, e, &rows[i], i); i++) {
		double pct = total ? 100.0 * (double)rows[i].period / (double)total : 0;
		bool red = tty && pct >= 5;
		size_t off = (size_t)snprintf(line, sizeof(line), "%s%9.2f%%%s  %8" PRIu64, red ? "\033[31m" : "", pct,
					      red ? "\033[m" : "", rows[i].samples);

		for (size_t k = 0; k < v->nr_keys && off < sizeof(line); k++) {
			keys__text(&rows[i], v->keys[k], r->an.model, e->prof, buf, sizeof(buf));
			off += (size_t)snprintf(line + off, sizeof(line) - off, "  %-*s",
						k + 1 < v->nr_keys ? (int)w[k] : 0, buf);
		}
		/* fit the terminal (escape sequences take no columns) */
		if (width && off > width + (red ? 6 : 0))
			line[width + (red ? 6 : 0)] = '\0';
		printf("%s\n", line);
	}
}

static void json_str(const char *s)
{
	escape__json(stdout, s, strlen(s));
}

/* "container_name" beside a container's id: its runtime's name, null when the file
 * has none (a host task, ids only, a recording without the rights to read it). */
static void json_container_name(const struct report *r, const char *member, const char *id)
{
	const char *name = id && id[0] ? model__container_name(r->an.model, id) : NULL;

	printf(",\"%s\":", member);
	if (name)
		json_str(name);
	else
		printf("null");
}

static void json_strn(const char *s, size_t len)
{
	escape__json(stdout, s, len);
}

/*
 * A frame of prof's Python object (its sym of object dso) says so, and a Python
 * function's frame gives its parts as members of their own, as pprof's fields do:
 * "python":true, "function" (the qualname), "file", and "line" (the line it ran)
 * or "def_line" (the function's first line, where the line is not known).  A
 * marker ("[python: unverified]") has "python" only.
 */
static void json_python(const char *dso, const char *sym)
{
	struct pyframe pf;

	if (!pyframe__is_python(dso))
		return;
	printf(",\"python\":true");
	if (!pyframe__parse(dso, sym, &pf))
		return;
	printf(",\"function\":");
	json_strn(sym, pf.name_len);
	printf(",\"file\":");
	json_strn(sym + pf.file_off, pf.file_len);
	printf(",\"%s\":%ld", pf.def ? "def_line" : "line", pf.line);
}

/*
 * A frame of prof's Java object says so ("java":true), and a method's frame gives its
 * parts as members of their own: "class" (pkg.Class), "method", "file" and "line"
 * where the symbol has them.  A marker ("[java: unverified]") has "java" only.
 */
static void json_java(const char *dso, const char *sym)
{
	struct javaframe jf;

	if (!javaframe__is_java(dso))
		return;
	printf(",\"java\":true");
	if (!javaframe__parse(dso, sym, &jf))
		return;
	printf(",\"class\":");
	json_strn(sym, jf.class_len);
	printf(",\"method\":");
	json_strn(sym + jf.class_len + 1, jf.name_len - jf.class_len - 1);
	if (jf.file_len) {
		printf(",\"file\":");
		json_strn(sym + jf.file_off, jf.file_len);
	}
	if (jf.line > 0)
		printf(",\"line\":%ld", jf.line);
}

/* One row's keys as JSON members (with_sym: sym and dso too, when keys). */
static void print_json_keys(const struct report *r, const struct report_event *e, const struct profile_row *row,
			    bool with_sym)
{
	char buf[1024];
	bool dso_key = false, container_key = false;
	const char *c;

	for (size_t k = 0; k < r->o.view.nr_keys; k++) {
		dso_key |= r->o.view.keys[k] == PROFILE_KEY_DSO;
		container_key |= r->o.view.keys[k] == PROFILE_KEY_CONTAINER;
	}
	for (size_t k = 0; k < r->o.view.nr_keys; k++) {
		enum profile_key key = r->o.view.keys[k];

		if (key == PROFILE_KEY_PID) {
			printf(",\"pid\":%d", row->task.pid);
			continue;
		}
		if (key == PROFILE_KEY_UID && row->task.uid_known)
			printf(",\"uid\":%u", row->task.uid);
		if ((key == PROFILE_KEY_SYM || key == PROFILE_KEY_DSO) && !with_sym)
			continue;       /* a stack's frames say them */
		if (key == PROFILE_KEY_SYM) {
			printf(",\"sym\":");
			json_str(row->sym ? row->sym : "");
			printf(",\"kernel\":%s", row->kernel ? "true" : "false");
			/* a symbol row is that symbol of that object: which, when --sort
			 * does not name dso (it does: its own member) */
			if (!dso_key) {
				printf(",\"dso\":");
				json_str(row->dso ? row->dso : "");
			}
			json_python(row->dso, row->sym);
			json_java(row->dso, row->sym);
			continue;
		}
		keys__raw_text(row, key, r->an.model, e->prof, buf, sizeof(buf));
		printf(",\"%s\":", keys__json_name(key));
		json_str(key == PROFILE_KEY_DSO ? (row->dso ? row->dso : "") : buf);
		if (key == PROFILE_KEY_CONTAINER)
			json_container_name(r, "container_name", row->task.container);
		if (key == PROFILE_KEY_HOLDER_CONTAINER)
			json_container_name(r, "holder_container_name", row->task.holder_container);
		/* a cgroup's row names its container too ("" for the host's) */
		if (key == PROFILE_KEY_CGROUP && !container_key) {
			c = model__container(r->an.model, row->task.cgroup);
			printf(",\"container\":");
			json_str(c ? c : RESOLVE_UNKNOWN);
			json_container_name(r, "container_name", c);
		}
	}
}

/* A stack's frames, leaf first: each its sym, dso, kernel, inlined when it is, and
 * a Python frame's parts. */
static void print_json_frames(const struct report_event *e, uint32_t stack)
{
	size_t nr;
	const uint32_t *ids = profile__stack(e->prof, stack, &nr);
	const struct profile_frame *f = profile__frames(e->prof, &(size_t){ 0 });

	printf(",\"frames\":[");
	for (size_t i = 0; i < nr; i++) {
		const struct profile_frame *fr = &f[ids[i]];

		printf("%s{\"sym\":", i ? "," : "");
		json_str(fr->sym ? fr->sym : "");
		printf(",\"dso\":");
		json_str(fr->dso ? fr->dso : "");
		printf(",\"kernel\":%s", fr->kernel ? "true" : "false");
		if (fr->inlined)
			printf(",\"inlined\":true");
		json_python(fr->dso, fr->sym);
		json_java(fr->dso, fr->sym);
		printf("}");
	}
	printf("]");
}

/* With -g: an event's "stacks", each with its totals, its task keys and frames. */
static void print_json_stacks(const struct report *r, const struct report_event *e, const struct profile_row *stacks,
			      size_t nr)
{
	const struct profile_stats *st = profile__stats(e->prof);

	printf(",\"stacks\":[");
	for (size_t i = 0; i < nr && !row_hidden(r, e, &stacks[i], i); i++) {
		printf("%s{\"overhead\":%.4f,\"samples\":%" PRIu64 ",\"period\":%" PRIu64, i ? "," : "",
		       st->period ? 100.0 * (double)stacks[i].period / (double)st->period : 0, stacks[i].samples,
		       stacks[i].period);
		print_json_keys(r, e, &stacks[i], false);
		if (stacks[i].stack != UINT32_MAX)
			print_json_frames(e, stacks[i].stack);
		printf("}");
	}
	printf("]");
}

/* An event's part: "event", its totals, its "rows" (and with -g its "stacks"). */
static void print_json_event(const struct report *r, const struct report_event *e, const struct profile_row *rows,
			     size_t nr, const struct profile_row *stacks, size_t nr_stacks)
{
	const struct profile_stats *st = profile__stats(e->prof);

	printf("\"event\":");
	json_str(e->a->name);
	printf(",\"samples\":%" PRIu64 ",\"period\":%" PRIu64, st->samples, st->period);
	if (e->filtered)
		printf(",\"filtered\":%" PRIu64, e->filtered);
	if (e->guest)
		printf(",\"guest\":%" PRIu64, e->guest);
	printf(",\"cut\":%" PRIu64 ",\"rows\":[", st->cut_samples);
	for (size_t i = 0; i < nr && !row_hidden(r, e, &rows[i], i); i++) {
		printf("%s{\"overhead\":%.4f,\"samples\":%" PRIu64 ",\"period\":%" PRIu64, i ? "," : "",
		       st->period ? 100.0 * (double)rows[i].period / (double)st->period : 0, rows[i].samples,
		       rows[i].period);
		print_json_keys(r, e, &rows[i], true);
		printf("}");
	}
	printf("]");
	if (stacks)
		print_json_stacks(r, e, stacks, nr_stacks);
}

/* The scope's cgroups' pressure over the recording: the fields known, in
 * microseconds (nr_*: counts), as prof's section has them. */
static void print_json_pressure(const struct report *r)
{
	if (!r->section.nr_pressure)
		return;
	printf(",\"pressure\":[");
	for (size_t i = 0; i < r->section.nr_pressure; i++) {
		const struct prof_section_pressure *p = &r->section.pressure[i];

		printf("%s{\"cgroup\":", i ? "," : "");
		json_str(p->cgroup);
		printf(",\"wall_ns\":%" PRIu64, p->wall_ns);
		for (int f = 0; f < PRESSURE__MAX; f++)
			if (p->d.have & (1u << f))
				printf(",\"%s\":%" PRIu64, pressure__name(f), p->d.v[f]);
		if (p->d.throttling_v1)
			printf(",\"throttling\":\"cgroup v1\"");
		printf("}");
	}
	printf("]");
}

void report_print__json(const struct report *r, const struct report_event *const *evs,
			struct profile_row *const *rows, const size_t *nr, struct profile_row *const *stacks,
			const size_t *nr_stacks, size_t n)
{
	printf("{\"schema\":\"prof-report/%d\",\"file\":", n == 1 ? 1 : 2);
	json_str(r->o.input);
	printf(",\"lost\":%" PRIu64 ",\"scope\":", r->lost);
	json_str(r->scope);
	/* profd's off-CPU windows: the off-CPU rows' time is of these seconds, unscaled */
	if (r->offcpu_windowed)
		printf(",\"off_cpu_measured_s\":%.3f,\"off_cpu_span_s\":%.3f", (double)r->offcpu_measured_ns / 1e9,
		       (double)r->offcpu_span_ns / 1e9);
	print_json_pressure(r);
	if (n == 1) {
		printf(",");
		print_json_event(r, evs[0], rows[0], nr[0], stacks ? stacks[0] : NULL, stacks ? nr_stacks[0] : 0);
	} else {
		printf(",\"events\":[");
		for (size_t i = 0; i < n; i++) {
			printf("%s{", i ? "," : "");
			print_json_event(r, evs[i], rows[i], nr[i], stacks ? stacks[i] : NULL, stacks ? nr_stacks[i] : 0);
			printf("}");
		}
		printf("]");
	}
	printf("}\n");
}
