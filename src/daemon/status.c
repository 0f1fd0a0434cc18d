/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "prof/daemon/status.h"

__attribute__((format(printf, 2, 3)))
static void line(struct snap_out *o, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		snapshot__put_raw(o, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

/* What anyone may know: the sampling and the history's span. */
static void write_public(struct snap_out *o, const struct status_facts *f)
{
	const struct daemon_settings *s = f->s;

	line(o, "version 1\n");
	line(o, "uid %u\nadmin %d\n", f->uid, f->admin);
	line(o, "started %" PRIu64 "\nuptime_s %.1f\n", f->sampling.started_ns,
	     f->sampling.started_ns && f->now > f->sampling.started_ns ? (double)(f->now - f->sampling.started_ns) / 1e9 : 0.0);
	line(o, "event %s\nfrequency %" PRIu64 "\nperiod %" PRIu64 "\ncallchain %d\n", s->event, s->freq, s->period,
	     s->callchain);
	line(o, "follows_setuid %d\n", s->creds);
	line(o, "python_frames %d\n", s->python_frames && !s->python_why[0]);
	line(o, "bucket_s %.3f\nfine_s %.3f\nhistory_s %.0f\nfine_span_s %.0f\n", (double)s->history.bucket_ns / 1e9,
	     (double)s->history.fine_ns / 1e9, (double)s->history.span_ns / 1e9,
	     (double)s->history.fine_span_ns / 1e9);
	line(o, "history_from %" PRIu64 "\nhistory_until %" PRIu64 "\n", f->history.oldest_ns, f->history.newest_ns);
	line(o, "evicted_before %" PRIu64 "\n", f->history.evicted_before);
	if (f->exports)
		f->exports(f->exports_ctx, o, f->admin);
	else
		line(o, "export_successes 0\nexport_failures 0\n");
}

/* [daemon] off_cpu: the switches read and the intervals' time, what was not counted as
 * waiting (a gap, no stack) and runq time whose holder is not known. */
static void write_off_cpu(struct snap_out *o, const struct status_facts *f)
{
	const struct offcpu_stats *c = &f->sampling.offcpu;
	const struct sampler_stats *ss = &f->sampling.sampler;

	line(o, "off_cpu %d\n", f->s->off_cpu);
	if (!f->s->off_cpu)
		return;
	line(o, "off_cpu_switches %" PRIu64 "\noff_cpu_intervals %" PRIu64 "\noff_cpu_runq_ns %" PRIu64
	     "\noff_cpu_blocked_ns %" PRIu64 "\n", c->switches, c->intervals, ss->runq_ns, ss->blocked_ns);
	line(o, "off_cpu_lost_ns %" PRIu64 "\noff_cpu_nostack_ns %" PRIu64 "\noff_cpu_unknown_holder_ns %" PRIu64 "\n",
	     c->lost_ns, c->nostack_ns, c->unknown_holder_ns);
	line(o, "off_cpu_nostack_intervals %" PRIu64 "\noff_cpu_max_period %" PRIu64 "\noff_cpu_degraded_cpu_ns %" PRIu64
	     "\noff_cpu_period_errors %" PRIu64 "\n", c->nostack_intervals, c->max_period, c->degraded_cpu_ns, c->period_errors);
	/* the windows (off_cpu_window; 0 0: always on) and what their edges cut */
	line(o, "off_cpu_window_ns %" PRIu64 "\noff_cpu_window_period_ns %" PRIu64 "\noff_cpu_windows %" PRIu64
	     "\noff_cpu_windowed_ns %" PRIu64 "\noff_cpu_cut_end %" PRIu64 "\noff_cpu_cut_end_ns %" PRIu64
	     "\noff_cpu_cut_start %" PRIu64 "\noff_cpu_cut_start_ns %" PRIu64 "\n", f->s->off_cpu_window_ns,
	     f->s->off_cpu_period_ns, c->windows, c->window_ns, c->window_cut, c->window_cut_ns, c->cut_start,
	     c->cut_start_ns);
}

static void write_sampling(struct snap_out *o, const struct status_facts *f)
{
	const struct bucket_counts *t = &f->history.total;
	const struct sampler_stats *ss = &f->sampling.sampler;

	line(o, "samples %" PRIu64 "\nsamples_per_s %.2f\n", t->samples,
	     f->recent_ns ? (double)f->recent_samples * 1e9 / (double)f->recent_ns : 0.0);
	line(o, "lost %" PRIu64 "\nlost_samples %" PRIu64 "\n", f->sampling.lost, f->sampling.lost_samples);
	line(o, "cut %" PRIu64 "\nunattributed %" PRIu64 "\n", t->cut_samples, f->sampling.unattributed);
	line(o, "late %" PRIu64 "\nshort %" PRIu64 "\nobjects %" PRIu64 "\n", ss->late, ss->short_samples, ss->objects);
	if (f->s->python_frames)
		line(o, "python_why %s\npython_processes %" PRIu64 "\npython_rejected %" PRIu64 "\npython_samples %" PRIu64
		     "\npython_with_frames %" PRIu64 "\npython_verified %" PRIu64 "\npython_unverified_frames %" PRIu64
		     "\npython_chained %" PRIu64 "\npython_name_windows %" PRIu64 "\n", f->s->python_why[0] ? f->s->python_why : "-",
		     f->sampling.python.processes, f->sampling.python.rejected, f->sampling.python.samples,
		     f->sampling.python.with_python, f->sampling.python.verified, f->sampling.python.unverified,
		     f->sampling.python.chained, f->sampling.python.name_windows);
	line(o, "close_wait_max_ms %.3f\nengine_bytes %zu\n", (double)ss->close_wait_max_ns / 1e6, ss->engine_bytes);
	line(o, "symbols_bytes %" PRIu64 "\nsymbols_max %zu\nsymbols_objects %" PRIu64 "\nsymbols_loaded %" PRIu64
	     "\nsymbols_evicted %" PRIu64 "\nsymbols_evicted_bytes %" PRIu64 "\nsymbols_names %" PRIu64 "\n",
	     ss->syms.bytes, f->s->symbols_max, ss->syms.objects, ss->syms.loaded, ss->syms.evicted,
	     ss->syms.evicted_bytes, ss->syms.names);
	line(o, "records %" PRIu64 "\ndescribed %" PRIu64 "\n", f->sampling.records, f->sampling.described);
	/* [symbols] debuginfod_urls: what the worker asked (all 0 without the key) */
	line(o, "debuginfod_asked %" PRIu64 "\ndebuginfod_found %" PRIu64 "\ndebuginfod_not_found %" PRIu64
	     "\ndebuginfod_failed %" PRIu64 "\ndebuginfod_refused %" PRIu64 "\ndebuginfod_dropped %" PRIu64 "\n",
	     ss->dbgd.asked, ss->dbgd.found, ss->dbgd.not_found, ss->dbgd.failed, ss->dbgd.refused, ss->dbgd.dropped);
	write_off_cpu(o, f);
}

static void write_history(struct snap_out *o, const struct status_facts *f)
{
	const struct history_stats *h = &f->history;

	line(o, "memory_bytes %zu\nmemory_max %zu\ndict_bytes %zu\n", h->bytes, f->s->history.memory_max, h->dict_bytes);
	line(o, "dict_items %zu %zu %zu %zu %zu\n", h->dict_items[DICT_STR], h->dict_items[DICT_OBJ],
	     h->dict_items[DICT_FRAME], h->dict_items[DICT_STACK], h->dict_items[DICT_TASK]);
	line(o, "buckets_fine %zu\nbuckets_coarse %zu\n", h->fine, h->coarse);
	line(o, "evicted_buckets %" PRIu64 "\nevicted_samples %" PRIu64 "\nexpired_buckets %" PRIu64
	     "\ncompactions %" PRIu64 "\n", h->evicted_buckets, h->evicted_samples, h->expired_buckets, h->compactions);
}

static void write_store(struct snap_out *o, const struct status_facts *f)
{
	const struct store_stats *st = &f->store;

	line(o, "disk_dir %s\ndisk_bytes %" PRIu64 "\ndisk_max %" PRIu64 "\ndisk_segments %zu\n", f->s->history_dir,
	     st->bytes, f->s->store.disk_max, st->segments);
	line(o, "disk_written %" PRIu64 "\ndisk_write_errors %" PRIu64 "\ndisk_last_errno %d\n", st->written,
	     st->write_errors, st->last_errno);
	line(o, "disk_loaded %" PRIu64 "\ndisk_skipped_old %" PRIu64 "\ndisk_corrupt %" PRIu64 "\ndisk_refused %" PRIu64
	     "\n", st->loaded, st->skipped_old, st->corrupt, st->refused);
	line(o, "disk_removed %" PRIu64 "\ndisk_evicted %" PRIu64 "\n", st->removed, st->disk_evicted);
	if (st->last_corrupt[0])
		line(o, "disk_last_corrupt %s\n", st->last_corrupt);
}

static void write_clients(struct snap_out *o, const struct status_facts *f)
{
	const struct server_stats *c = &f->server;

	line(o, "clients %zu\nclients_accepted %" PRIu64 "\nclients_served %" PRIu64 "\n", c->connected, c->accepted,
	     c->served);
	line(o, "clients_busy %" PRIu64 "\nclients_busy_uid %" PRIu64 "\nclients_bad_request %" PRIu64 "\n", c->busy,
	     c->busy_uid, c->bad_request);
	line(o, "clients_timeout %" PRIu64 "\nclients_stalled %" PRIu64 "\nbytes_out %" PRIu64 "\n", c->timeouts,
	     c->stalled, c->bytes_out);
	line(o, "answer_bytes %zu\nanswer_bytes_max %zu\nanswers_memory_max %zu\n", c->answer_bytes,
	     c->answer_bytes_max, f->s->server.answers_memory_max);
}

void status__write(struct snap_out *o, const struct status_facts *f)
{
	write_public(o, f);
	if (!f->admin)
		return;
	write_sampling(o, f);
	write_history(o, f);
	write_store(o, f);
	write_clients(o, f);
	line(o, "cpu_s %.3f\nrss_bytes %" PRIu64 "\n", (double)f->cpu_ns / 1e9, f->rss);
	if (f->reload[0])
		line(o, "reload %s\n", f->reload);
}
