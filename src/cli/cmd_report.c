/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * prof report: read a perf.data file (prof's or perf's), rebuild the threads and
 * maps from its records in time order, symbolize, and break the samples down by
 * uid, cgroup, process, command, object and symbol.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <perf/event.h>

#include "prof/analyze/attribution.h"
#include "prof/analyze/dwarf_stacks.h"
#include "prof/analyze/jitmap.h"
#include "prof/analyze/model.h"
#include "prof/analyze/profile.h"
#include "prof/analyze/resolver.h"
#include "prof/analyze/symbols.h"
#include "prof/base/escape.h"
#include "prof/base/strset.h"
#include "prof/base/util.h"
#include "prof/cli/commands.h"
#include "prof/cli/report_opts.h"
#include "prof/output/folded.h"
#include "prof/output/keys.h"
#include "prof/output/pprof.h"
#include "prof/perfdata/build_id.h"
#include "prof/perfdata/perf_reader.h"
#include "prof/perfdata/prof_section.h"
#include "prof/record/ordered_queue.h"
#include "prof/sys/privs.h"

struct report {
	struct report_opts o;
	struct perf_reader *reader;
	struct model *model;
	struct symbols *syms;
	struct jitmap *jit;
	struct dwarf_stacks *dwarf;     /* perf's --call-graph dwarf samples, unwound; NULL: none */
	struct profile *prof;           /* every sample, by (task, stack) */
	struct resolver res;
	struct attribution attr;        /* samples to the engine's entries */
	struct strset comms;
	struct prof_section section;    /* prof's section, empty in perf's files */
	uint64_t samples, filtered, lost, first_time, last_time;
	char scope[512];
	struct reader_error err;
};

/* Kernel symbols come from this host's kallsyms, only if the file was recorded here,
 * by this kernel (prof's files name its build id). */
static bool kernel_here(struct report *r)
{
	const char *host = perf_reader__feature_string(r->reader, HEADER_HOSTNAME);
	const char *rel = perf_reader__feature_string(r->reader, HEADER_OSRELEASE);
	struct utsname u;

	if (uname(&u) < 0 || !host || !rel || strcmp(host, u.nodename) || strcmp(rel, u.release))
		return false;
	return resolver__kernel_is(r->section.kernel_build_id);
}

static bool cgroup_matches(const char *path, const char *want)
{
	size_t l = strlen(want);

	while (l > 1 && want[l - 1] == '/')
		l--;
	if (!path)
		return false;
	if (l == 1 && want[0] == '/')
		return true;
	return !strncmp(path, want, l) && (path[l] == '\0' || path[l] == '/');
}

/* The filters (--pid, --comm, --uid, --cgroup). */
static bool admits(void *ctx, const struct profile_task *t)
{
	const struct report *r = ctx;

	return !(r->o.has_pid && t->pid != r->o.pid) && !(r->o.comm && strcmp(t->comm, r->o.comm)) &&
	       !(r->o.has_uid && (!t->uid_known || t->uid != r->o.uid)) &&
	       !(r->o.cgroup && !cgroup_matches(model__cgroup(r->model, t->cgroup), r->o.cgroup));
}

static int on_sample(struct report *r, const struct perf_event_header *ev, uint64_t off)
{
	const struct reader_attr *a;
	struct sample s;
	int err = perf_reader__parse_sample(r->reader, ev, off, &s, &a, &r->err);

	if (err < 0)
		return err;
	if (!a->attr.sample_period && !a->attr.freq)
		return 0;       /* a counting-only event */
	if (r->dwarf)           /* with -g only */
		dwarf_stacks__unwind(r->dwarf, &a->attr, &s);
	err = attribution__add(&r->attr, &s);
	if (err <= 0) {
		r->filtered += err == 0;
		return err;
	}
	r->samples++;
	if (!r->first_time || s.time < r->first_time)
		r->first_time = s.time;
	if (s.time > r->last_time)
		r->last_time = s.time;
	return 0;
}

static int on_record(const struct perf_event_header *ev, uint64_t off, struct report *r)
{
	if (ev->type == PERF_RECORD_SAMPLE)
		return on_sample(r, ev, off);
	if (ev->type == PERF_RECORD_LOST && ev->size >= sizeof(struct perf_record_lost))
		r->lost += ((const struct perf_record_lost *)(const void *)ev)->lost;
	return r->dwarf ? dwarf_stacks__note(r->dwarf, ev) : model__process(r->model, ev);
}

static int on_queued_record(const struct perf_event_header *ev, uint64_t time, void *ctx)
{
	/* the record's offset is lost once queued: report errors at offset 0 of a copy */
	return on_record(ev, 0, ctx);
}

/*
 * Files from prof are in time order already.  perf record writes each ring buffer's
 * chunk as it comes, marking rounds: sort within them the way perf does (everything
 * older than the previous round's newest record is final).
 */
static int read_all(struct report *r, bool sorted)
{
	struct ordered_queue *q = sorted ? NULL : ordered_queue__new();
	uint64_t prev_max = 0, max = 0, off;
	const struct perf_event_header *ev;
	int n, err = 0;

	if (!sorted && !q)
		return -ENOMEM;
	while ((n = perf_reader__next(r->reader, &ev, &off, &r->err)) > 0) {
		if (sorted) {
			err = on_record(ev, off, r);
		} else if (ev->type == PERF_RECORD_FINISHED_ROUND) {
			err = ordered_queue__flush(q, prev_max, on_queued_record, r);
			prev_max = max;
		} else {
			uint64_t t = perf_reader__time(r->reader, ev);
			if (t > max)
				max = t;
			err = ordered_queue__push(q, ev, t);
		}
		if (err < 0)
			break;
	}
	if (n < 0)
		err = n;
	if (!err && q)
		err = ordered_queue__flush(q, UINT64_MAX, on_queued_record, r);
	ordered_queue__free(q);
	return err;
}

/* What prof's section says (perf's files have none): the tasks' uids, the scope. */
static int read_prof_section(struct report *r, bool *ret_found)
{
	size_t len;
	const char *text = perf_reader__prof_section(r->reader, &len);
	int err;

	*ret_found = text != NULL;
	if (!text)
		return 0;
	err = prof_section__parse(text, len, &r->section);
	for (size_t i = 0; !err && i < r->section.nr_tasks; i++)
		if (r->section.tasks[i].uid_known)
			err = model__set_uid(r->model, r->section.tasks[i].tid, r->section.tasks[i].uid);
	prof_section__describe_scope(&r->section, r->scope, sizeof(r->scope));
	symbols__set_unread_unknown(r->syms, r->section.mmap_build_ids);
	return err;
}

static size_t term_width(void)
{
	struct winsize ws;

	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20)
		return ws.ws_col;
	return 0;       /* not a terminal: no limit */
}

static void print_header(const struct report *r)
{
	const struct reader_attr *a = perf_reader__attr(r->reader, 0);
	const char *host = perf_reader__feature_string(r->reader, HEADER_HOSTNAME);
	const struct profile_stats *st = profile__stats(r->prof);
	char buf[4096];

	/* everything from the file is shown through escape__text(): no raw control bytes */
	escape__text(buf, sizeof(buf), r->o.input);
	printf("# prof report: %s\n", buf);
	escape__text(buf, sizeof(buf), a && a->name[0] ? a->name : "?");
	printf("# event: %s, %" PRIu64 " samples, %" PRIu64 " lost, %.2f s", buf, st->samples, r->lost,
	       r->last_time > r->first_time ? (double)(r->last_time - r->first_time) / 1e9 : 0.0);
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

		printf("# recorded: %" PRIu64 " samples written, %" PRIu64 " out of scope, %" PRIu64
		       " unattributed, %" PRIu64 " lost\n", rec->samples_written, rec->samples_out_of_scope,
		       rec->unattributed_gone + rec->unattributed_creds, rec->lost + rec->lost_samples);
	}
	if (r->filtered)
		printf("# filtered out: %" PRIu64 " samples\n", r->filtered);
	if (st->cut_samples)
		printf("# cut: %" PRIu64 " samples beyond --max-stacks, shown as [cut]\n", st->cut_samples);
	printf("#\n");
}

/* Is row i past what --percent-limit and --top show? */
static bool row_hidden(const struct report *r, const struct profile_row *row, size_t shown)
{
	uint64_t total = profile__stats(r->prof)->period;
	double pct = total ? 100.0 * (double)row->period / (double)total : 0;

	return pct < r->o.percent_limit || (r->o.top && shown >= r->o.top);
}

static void print_text(const struct report *r, const struct profile_row *rows, size_t nr)
{
	const struct view_opts *v = &r->o.view;
	uint64_t total = profile__stats(r->prof)->period;
	size_t width = term_width(), w[PROFILE_KEY__MAX] = { 0 };
	bool tty = width > 0;
	char buf[4096], line[4096];

	print_header(r);
	for (size_t k = 0; k < v->nr_keys; k++)
		w[k] = strlen(keys__title(v->keys[k]));
	for (size_t i = 0; i < nr; i++)
		for (size_t k = 0; k < v->nr_keys; k++)
			w[k] = MAX(w[k], MIN(keys__text(&rows[i], v->keys[k], r->model, r->prof, buf, sizeof(buf)),
					     (size_t)48));
	printf("# %8s  %8s", "Overhead", "Samples");
	for (size_t k = 0; k < v->nr_keys; k++)
		printf("  %-*s", k + 1 < v->nr_keys ? (int)w[k] : 0, keys__title(v->keys[k]));
	printf("\n#\n");
	for (size_t i = 0; i < nr && !row_hidden(r, &rows[i], i); i++) {
		double pct = total ? 100.0 * (double)rows[i].period / (double)total : 0;
		bool red = tty && pct >= 5;
		size_t off = (size_t)snprintf(line, sizeof(line), "%s%9.2f%%%s  %8" PRIu64, red ? "\033[31m" : "", pct,
					      red ? "\033[m" : "", rows[i].samples);

		for (size_t k = 0; k < v->nr_keys && off < sizeof(line); k++) {
			keys__text(&rows[i], v->keys[k], r->model, r->prof, buf, sizeof(buf));
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

/* One row's keys as JSON members. */
static void print_json_keys(const struct report *r, const struct profile_row *row)
{
	char buf[1024];

	for (size_t k = 0; k < r->o.view.nr_keys; k++) {
		enum profile_key key = r->o.view.keys[k];

		if (key == PROFILE_KEY_PID) {
			printf(",\"pid\":%d", row->task.pid);
			continue;
		}
		if (key == PROFILE_KEY_UID && row->task.uid_known)
			printf(",\"uid\":%u", row->task.uid);
		if (key == PROFILE_KEY_SYM) {
			printf(",\"sym\":");
			json_str(row->sym ? row->sym : "");
			printf(",\"kernel\":%s", row->kernel ? "true" : "false");
			continue;
		}
		keys__raw_text(row, key, r->model, r->prof, buf, sizeof(buf));
		printf(",\"%s\":", keys__json_name(key));
		json_str(key == PROFILE_KEY_DSO ? (row->dso ? row->dso : "") : buf);
	}
}

static void print_json(const struct report *r, const struct profile_row *rows, size_t nr)
{
	const struct reader_attr *a = perf_reader__attr(r->reader, 0);
	const struct profile_stats *st = profile__stats(r->prof);

	printf("{\"schema\":\"prof-report/1\",\"file\":");
	json_str(r->o.input);
	printf(",\"event\":");
	json_str(a && a->name[0] ? a->name : "");
	printf(",\"samples\":%" PRIu64 ",\"period\":%" PRIu64 ",\"lost\":%" PRIu64 ",\"cut\":%" PRIu64
	       ",\"scope\":", st->samples, st->period, r->lost, st->cut_samples);
	json_str(r->scope);
	printf(",\"rows\":[");
	for (size_t i = 0; i < nr && !row_hidden(r, &rows[i], i); i++) {
		printf("%s{\"overhead\":%.4f,\"samples\":%" PRIu64 ",\"period\":%" PRIu64, i ? "," : "",
		       st->period ? 100.0 * (double)rows[i].period / (double)st->period : 0, rows[i].samples,
		       rows[i].period);
		print_json_keys(r, &rows[i]);
		printf("}");
	}
	printf("]}\n");
}

static const char *record_type_name(uint32_t t)
{
	static const char *const names[] = {
		[PERF_RECORD_MMAP] = "MMAP", [PERF_RECORD_LOST] = "LOST", [PERF_RECORD_COMM] = "COMM",
		[PERF_RECORD_EXIT] = "EXIT", [PERF_RECORD_THROTTLE] = "THROTTLE",
		[PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE", [PERF_RECORD_FORK] = "FORK",
		[PERF_RECORD_READ] = "READ", [PERF_RECORD_SAMPLE] = "SAMPLE", [PERF_RECORD_MMAP2] = "MMAP2",
		[PERF_RECORD_LOST_SAMPLES] = "LOST_SAMPLES", [PERF_RECORD_CGROUP] = "CGROUP",
	};
	if (t < ARRAY_SIZE(names) && names[t])
		return names[t];
	return t == PERF_RECORD_FINISHED_ROUND ? "FINISHED_ROUND" : "unknown";
}

/*
 * Open the input with the user's own rights (prof may hold capabilities) and without
 * blocking (a FIFO is refused, not waited on).  The reader then reads that very file
 * through fdpath.  The fd, or -errno after a message.
 */
static int open_input(const char *path, char *fdpath, size_t len)
{
	_cleanup_close_ int fd = privs__open_as_user(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;

	if (fd < 0) {
		fprintf(stderr, "prof report: %s: cannot open: %s\n", path, strerror(-fd));
		return fd;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "prof report: %s: not a regular file (a FIFO, device or directory): give a perf.data file\n",
			path);
		return -EINVAL;
	}
	snprintf(fdpath, len, "/proc/self/fd/%d", fd);
	return steal_fd(&fd);
}

/* The recording's build ids of user-space files, which their files must still have. */
static int expect_build_id(const struct reader_build_id *b, void *ctx)
{
	if ((b->misc & PERF_RECORD_MISC_CPUMODE_MASK) != PERF_RECORD_MISC_USER || b->filename[0] != '/')
		return 0;
	return symbols__expect_build_id(ctx, b->filename, b->data, b->size);
}

static void say_refused(const struct symbols_refused *o, void *ctx)
{
	struct build_id want = { .size = (uint8_t)MIN(o->expected_len, BUILD_ID_MAX) };
	char hex[2 * BUILD_ID_MAX + 1], path[1024];

	memcpy(want.data, o->expected, want.size);
	build_id__hex(&want, hex, sizeof(hex));
	escape__text(path, sizeof(path), o->path);      /* a path a tenant chose */
	if (o->why == SYMBOLS_REFUSED_NOT_MAPPED)
		fprintf(stderr, "prof report: %s: not the file that was mapped (another device and inode, and the "
			"recording has no build id of it): its samples are shown as [unknown]\n", path);
	else if (o->why == SYMBOLS_REFUSED_CONFLICT)
		fprintf(stderr, "prof report: %s: the recording names two different files at this path (replaced "
			"while recording): its samples are shown as [unknown]\n", path);
	else
		fprintf(stderr, "prof report: %s: not the file that was recorded (build id %s expected, %s): rebuilt "
			"or replaced since? its samples are shown as [unknown]\n", path, hex,
			o->found_len ? "it has another" : "it has none");
}

/* -F pprof's description of the recording: the event, its period, the duration. */
static struct pprof_meta pprof_meta_of(const struct report *r)
{
	const struct reader_attr *a = perf_reader__attr(r->reader, 0);
	const struct profile_stats *st = profile__stats(r->prof);
	const char *ev = a && a->name[0] ? a->name : "events";

	return (struct pprof_meta){
		.event = ev,
		.time_period = !strcmp(ev, "cpu-clock") || !strcmp(ev, "task-clock") ||
			       (a && a->attr.type == PERF_TYPE_SOFTWARE &&
				(a->attr.config == PERF_COUNT_SW_CPU_CLOCK || a->attr.config == PERF_COUNT_SW_TASK_CLOCK)),
		.period = a && !a->attr.freq && a->attr.sample_period ? (int64_t)a->attr.sample_period
			  : st->samples ? (int64_t)(st->period / st->samples) : 0,
		.duration_ns = r->last_time > r->first_time ? (int64_t)(r->last_time - r->first_time) : 0,
		.model = r->model,
		.reader = r->reader,
	};
}

static int write_pprof(struct report *r)
{
	const struct profile_stats *st = profile__stats(r->prof);
	struct pprof_meta m = pprof_meta_of(r);
	char scope[600], cut[200];
	size_t nc = 0;
	int fd = STDOUT_FILENO, err;

	snprintf(scope, sizeof(scope), "prof: %s%s%s", r->o.input, r->scope[0] ? ", scope " : "", r->scope);
	m.comments[nc++] = scope;
	if (st->cut_samples) {
		snprintf(cut, sizeof(cut), "prof: %" PRIu64 " samples cut by --max-stacks (under [cut])",
			 st->cut_samples);
		m.comments[nc++] = cut;
	}
	if (r->o.output) {
		/* created as the invoking user, whatever rights prof runs with (as record's
		 * output): file system checks and the owner are theirs */
		fd = privs__create_as_user(r->o.output, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
		err = fd < 0 ? fd : 0;
		if (fd < 0) {
			fprintf(stderr, "prof report: cannot create '%s': %s\n", r->o.output, strerror(-err));
			return err;
		}
	} else if (isatty(STDOUT_FILENO)) {
		fprintf(stderr, "prof report: -F pprof writes a binary file: give -o FILE (e.g. -o profile.pb.gz)\n");
		return -EINVAL;
	}
	err = pprof__write(r->prof, &m, fd);
	if (fd != STDOUT_FILENO && close(fd) < 0 && !err)
		err = -errno;
	if (err < 0)
		fprintf(stderr, "prof report: writing '%s' failed: %s\n", r->o.output ? r->o.output : "stdout",
			strerror(-err));
	return err;
}

/* -F folded and -F svg: the engine's stacks. */
static int write_stacks(struct report *r)
{
	struct folded *f;
	char title[600];
	int err = folded__new(r->prof, &f);

	if (err < 0)
		return err;
	snprintf(title, sizeof(title), "prof: %s%s%s", r->o.input, r->scope[0] ? " — " : "", r->scope);
	err = r->o.format == FORMAT_SVG ? folded__write_svg(f, stdout, title) : folded__write(f, stdout);
	folded__free(f);
	return err;
}

/* The text and JSON outputs: rows grouped by the --sort keys. */
static int write_rows(struct report *r)
{
	_cleanup_free_ struct profile_row *rows = NULL;
	bool key_on[PROFILE_KEY__MAX] = { false };
	size_t nr;
	int err;

	for (size_t k = 0; k < r->o.view.nr_keys; k++)
		key_on[r->o.view.keys[k]] = true;
	err = profile__rows(r->prof, key_on, false, &rows, &nr);
	if (err < 0)
		return err;
	if (r->o.format == FORMAT_JSON)
		print_json(r, rows, nr);
	else
		print_text(r, rows, nr);
	return 0;
}

/* With -g, perf's --call-graph dwarf samples are unwound (the user stack copies). */
static int report_open_dwarf(struct report *r)
{
	bool any = false;

	for (size_t i = 0; i < perf_reader__nr_attrs(r->reader); i++)
		any |= dwarf_stacks__wanted(&perf_reader__attr(r->reader, i)->attr);
	if (!any || !r->o.callchain)
		return 0;
	r->dwarf = dwarf_stacks__new(r->model, r->syms);
	if (!r->dwarf) {
		fprintf(stderr, "prof report: out of memory\n");
		return -ENOMEM;
	}
	return 0;
}

/* The input open and its header read: model, symbols, engine ready for its records. */
static int report_open(struct report *r, const char *in_path, bool *ret_sorted)
{
	int err = perf_reader__open(in_path, &r->reader, &r->err);

	if (err < 0) {
		fprintf(stderr, "prof report: %s: %s\n", r->o.input, err == -ENOMEM ? "out of memory" : r->err.msg);
		return err;
	}
	r->model = model__new();
	r->syms = symbols__new();
	r->jit = jitmap__new("/tmp");
	r->prof = profile__new(r->o.view.max_stacks);
	/* files from prof are in time order: only they have prof's section */
	if (!r->model || !r->syms || !r->prof || read_prof_section(r, ret_sorted) < 0 ||
	    perf_reader__for_each_build_id(r->reader, expect_build_id, r->syms) < 0) {
		fprintf(stderr, "prof report: out of memory\n");
		return -ENOMEM;
	}
	r->res = (struct resolver){ .model = r->model, .syms = r->syms, .jit = r->jit, .names = &r->comms,
				    .kernel_here = kernel_here(r), .inlines = !r->o.no_inline };
	r->attr = (struct attribution){ .res = &r->res, .prof = r->prof, .callchain = r->o.callchain,
					.admit = admits, .admit_ctx = r };
	for (size_t k = 0; k < PROFILE_KEY__MAX; k++)
		r->attr.keep[k] = true;
	return report_open_dwarf(r);
}

static void report_close(struct report *r)
{
	if (r->syms)
		symbols__for_each_refused(r->syms, say_refused, NULL);
	profile__free(r->prof);
	dwarf_stacks__free(r->dwarf);
	symbols__free(r->syms);
	jitmap__free(r->jit);
	model__free(r->model);
	perf_reader__free(r->reader);
	strset__release(&r->comms);
	prof_section__release(&r->section);
}

/* What is worth saying once the file is read: JIT maps ignored, samples cut. */
static void warn_after_reading(const struct report *r)
{
	char buf[512];
	const char *why;
	size_t nr;

	if (r->jit && (nr = jitmap__untrusted(r->jit, &why))) {
		escape__text(buf, sizeof(buf), why);
		fprintf(stderr, "prof report: warning: ignored %zu untrusted JIT map file%s: %s%s\n", nr,
			nr > 1 ? "s" : "", buf, nr > 1 ? ", ..." : "");
	}
	if (profile__stats(r->prof)->cut_samples)
		fprintf(stderr, "prof report: %" PRIu64 " of %" PRIu64 " samples cut: more than --max-stacks %zu "
			"distinct (task, stack) keys; they are counted under [cut]\n",
			profile__stats(r->prof)->cut_samples, profile__stats(r->prof)->samples,
			r->o.view.max_stacks ? r->o.view.max_stacks : (size_t)PROFILE_DEFAULT_MAX_ENTRIES);
}

/* Write the output the format asks for.  An exit code. */
static int write_output(struct report *r)
{
	int err;

	if (r->o.format == FORMAT_PPROF)
		return write_pprof(r) < 0 ? EXIT_PROF_FAIL : EXIT_PROF_OK;
	err = r->o.format == FORMAT_FOLDED || r->o.format == FORMAT_SVG ? write_stacks(r) : write_rows(r);
	if (err == -ENOMEM) {
		fprintf(stderr, "prof report: out of memory\n");
		return EXIT_PROF_FAIL;
	}
	if ((r->o.format == FORMAT_TEXT || r->o.format == FORMAT_JSON) && perf_reader__unknown_records(r->reader))
		fprintf(stderr, "prof report: skipped %" PRIu64 " records of types it does not know\n",
			perf_reader__unknown_records(r->reader));
	return err < 0 || fflush(stdout) ? EXIT_PROF_FAIL : EXIT_PROF_OK;
}

int cmd_report(int argc, char **argv)
{
	struct report r = { 0 };
	_cleanup_close_ int in_fd = -1;
	char errbuf[512], in_path[64];
	bool sorted = false;
	int err, ret = EXIT_PROF_FAIL;

	err = report_opts__parse(&r.o, argc, argv, errbuf, sizeof(errbuf));
	if (err == 1) {
		fputs(report_opts__usage, stdout);
		return EXIT_PROF_OK;
	}
	if (err < 0) {
		fprintf(stderr, "prof report: %s\n", errbuf);
		return EXIT_PROF_USAGE;
	}
	in_fd = open_input(r.o.input, in_path, sizeof(in_path));
	if (in_fd < 0 || report_open(&r, in_path, &sorted) < 0)
		goto out;
	err = read_all(&r, sorted);
	if (err < 0) {
		if (err == -ENOMEM)
			fprintf(stderr, "prof report: %s: out of memory\n", r.o.input);
		else
			fprintf(stderr, "prof report: %s: bad record at offset %" PRIu64 " (type %u, %s): %s\n",
				r.o.input, r.err.offset, r.err.type, record_type_name(r.err.type), r.err.msg);
		goto out;
	}
	warn_after_reading(&r);
	ret = write_output(&r);
out:
	report_close(&r);
	return ret;
}
