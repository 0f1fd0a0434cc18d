/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * prof daemon status: what profd is doing, as it tells whoever asks (admins get the
 * host-wide counts too).  --raw prints its "key value" lines as they come, for scripts.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof/base/escape.h"
#include "prof/base/util.h"
#include "prof/cli/commands.h"
#include "prof/cli/daemon_client.h"

static const char usage[] =
	"usage: prof daemon status [--raw] [--socket PATH]\n"
	"\n"
	"What profd does: its sampling, the history it holds, losses, clients, disk.\n"
	"Admins (root, [policy] admin_group) also get the host-wide counts.\n"
	"\n"
	"      --raw          the daemon's key value lines, as they come\n"
	"      --socket PATH  profd's socket (default: prof.conf's [daemon] socket)\n"
	"  -h, --help         this text\n"
	"\n"
	"See profd(8).\n";

struct status {
	const char *text;
	size_t len;
};

static const char *get(const struct status *s, const char *key, char *buf, size_t len)
{
	return snapshot__text_value(s->text, s->len, key, buf, len) ? buf : "?";
}

static uint64_t num(const struct status *s, const char *key)
{
	char v[64];

	return snapshot__text_value(s->text, s->len, key, v, sizeof(v)) ? strtoull(v, NULL, 10) : 0;
}

static double real(const struct status *s, const char *key)
{
	char v[64];

	return snapshot__text_value(s->text, s->len, key, v, sizeof(v)) ? strtod(v, NULL) : 0;
}

static void print_public(const struct status *s, const char *socket)
{
	char a[128], b[128], from[32], until[32];
	double up = real(s, "uptime_s");

	daemon_client__format_time(num(s, "history_from"), from, sizeof(from));
	daemon_client__format_time(num(s, "history_until"), until, sizeof(until));
	printf("profd at %s: up %.0f s, %s at %" PRIu64 " Hz per CPU%s%s, %s set*uid()\n", socket, up,
	       get(s, "event", a, sizeof(a)), num(s, "frequency"), num(s, "callchain") ? ", call chains" : "",
	       num(s, "python_frames") ? ", Python frames" : "", num(s, "follows_setuid") ? "follows" : "does NOT follow");
	printf("history: %s to %s, %.0f s buckets (%.0f s ones for the last %.0f s), %.0f s kept\n", from, until,
	       real(s, "bucket_s"), real(s, "fine_s"), real(s, "fine_span_s"), real(s, "history_s"));
	if (num(s, "evicted_before")) {
		daemon_client__format_time(num(s, "evicted_before"), b, sizeof(b));
		printf("  history before %s was dropped to stay within memory_max\n", b);
	}
	printf("export: %" PRIu64 " successes, %" PRIu64 " failures\n", num(s, "export_successes"),
	       num(s, "export_failures"));
}

/* "; last error: ..." of key, "" when there is none. */
static const char *last_error(const struct status *s, const char *key, char *buf, size_t len)
{
	char v[300];

	if (!snapshot__text_value(s->text, s->len, key, v, sizeof(v)))
		return "";
	snprintf(buf, len, "; last error: %s", v);
	return buf;
}

/* The exports' lines (src/daemon/export_http.c, export_push.c). */
static void print_exports(const struct status *s)
{
	char v[300], w[320];

	if (!strcmp(get(s, "pull", v, sizeof(v)), "on"))
		printf("pull: port %" PRIu64 ", %" PRIu64 " requests, %" PRIu64 " answered, %" PRIu64 " bad, %" PRIu64
		       " unauthorized, %" PRIu64 " failed%s\n", num(s, "pull_port"), num(s, "pull_requests"),
		       num(s, "pull_ok"), num(s, "pull_bad_request"), num(s, "pull_unauthorized"), num(s, "pull_failed"),
		       last_error(s, "pull_last_error", w, sizeof(w)));
	if (!strcmp(get(s, "push", v, sizeof(v)), "on"))
		printf("push: %" PRIu64 " profiles pushed (%.2f MiB), %" PRIu64 " failures, %" PRIu64 " retries, %" PRIu64
		       " rejected, %" PRIu64 " buckets dropped, %" PRIu64 " series skipped; queue %" PRIu64 " of %" PRIu64
		       "%s\n", num(s, "push_pushed"), (double)num(s, "push_bytes") / 1048576, num(s, "push_failures"),
		       num(s, "push_retries"), num(s, "push_rejected"), num(s, "push_dropped"), num(s, "push_skipped"),
		       num(s, "push_queue"), num(s, "push_queue_cap"), last_error(s, "push_last_error", w, sizeof(w)));
}

static void print_admin(const struct status *s)
{
	char v[300];

	printf("samples: %" PRIu64 " (%.1f/s over the last minute), lost %" PRIu64 " records (%" PRIu64
	       " samples), cut %" PRIu64 ", unattributed %" PRIu64 ", late %" PRIu64 "\n", num(s, "samples"),
	       real(s, "samples_per_s"), num(s, "lost"), num(s, "lost_samples"), num(s, "cut"), num(s, "unattributed"),
	       num(s, "late"));
	printf("memory: %.2f MiB of %.0f MiB (dictionary %.2f MiB), %" PRIu64 " coarse and %" PRIu64
	       " fine buckets; evicted %" PRIu64 " buckets (%" PRIu64 " samples), %" PRIu64 " compactions\n",
	       (double)num(s, "memory_bytes") / 1048576, (double)num(s, "memory_max") / 1048576,
	       (double)num(s, "dict_bytes") / 1048576, num(s, "buckets_coarse"), num(s, "buckets_fine"),
	       num(s, "evicted_buckets"), num(s, "evicted_samples"), num(s, "compactions"));
	printf("symbols: %.2f MiB of %.0f MiB for %" PRIu64 " objects (read %" PRIu64 " times); let go %" PRIu64
	       " times (%.2f MiB), read again when sampled; %" PRIu64 " function names kept\n",
	       (double)num(s, "symbols_bytes") / 1048576, (double)num(s, "symbols_max") / 1048576,
	       num(s, "symbols_objects"), num(s, "symbols_loaded"), num(s, "symbols_evicted"),
	       (double)num(s, "symbols_evicted_bytes") / 1048576, num(s, "symbols_names"));
	if (num(s, "debuginfod_asked") || num(s, "debuginfod_dropped"))
		printf("debuginfod: asked %" PRIu64 ": found %" PRIu64 ", not found %" PRIu64 ", failed %" PRIu64
		       ", %" PRIu64 " answered another build's file (not used); %" PRIu64 " not asked (too many at once)\n",
		       num(s, "debuginfod_asked"), num(s, "debuginfod_found"), num(s, "debuginfod_not_found"),
		       num(s, "debuginfod_failed"), num(s, "debuginfod_refused"), num(s, "debuginfod_dropped"));
	printf("disk: %.2f MiB of %.0f MiB in %" PRIu64 " segments under %s; %" PRIu64 " buckets written, %" PRIu64
	       " write errors (last errno %" PRIu64 "); read back %" PRIu64 ", %" PRIu64 " corrupt, %" PRIu64 " refused\n",
	       (double)num(s, "disk_bytes") / 1048576, (double)num(s, "disk_max") / 1048576, num(s, "disk_segments"),
	       get(s, "disk_dir", v, sizeof(v)), num(s, "disk_written"), num(s, "disk_write_errors"),
	       num(s, "disk_last_errno"), num(s, "disk_loaded"), num(s, "disk_corrupt"), num(s, "disk_refused"));
	printf("clients: %" PRIu64 " connected, %" PRIu64 " served; busy %" PRIu64 " (per uid %" PRIu64
	       "), bad requests %" PRIu64 ", timeouts %" PRIu64 ", stalled %" PRIu64 "\n", num(s, "clients"),
	       num(s, "clients_served"), num(s, "clients_busy"), num(s, "clients_busy_uid"),
	       num(s, "clients_bad_request"), num(s, "clients_timeout"), num(s, "clients_stalled"));
	if (snapshot__text_value(s->text, s->len, "python_why", v, sizeof(v)))
		printf("python: %" PRIu64 " samples of %" PRIu64 " interpreter(s) (%" PRIu64 " refused), %" PRIu64
		       " with Python frames, %" PRIu64 " of them all verified, %" PRIu64 " read at the sample instant; %"
		       PRIu64 " [python: unverified] frames; names let go %" PRIu64 " times%s%s\n", num(s, "python_samples"),
		       num(s, "python_processes"), num(s, "python_rejected"), num(s, "python_with_frames"),
		       num(s, "python_verified"), num(s, "python_chained"), num(s, "python_unverified_frames"),
		       num(s, "python_name_windows"), strcmp(v, "-") ? "; not shown: " : "", strcmp(v, "-") ? v : "");
	print_exports(s);
	printf("profd itself: %.2f s of CPU, %.1f MiB resident\n", real(s, "cpu_s"),
	       (double)num(s, "rss_bytes") / 1048576);
	if (snapshot__text_value(s->text, s->len, "reload", v, sizeof(v)))
		printf("last reload: %s\n", v);
}

static int status(const char *socket, bool raw)
{
	struct protocol_request r = { .op = PROTOCOL_STATUS };
	struct daemon_client c;
	_cleanup_free_ uint8_t *body = NULL;
	char err[1200], buf[4096];
	size_t len;
	int st;

	if (daemon_client__init(&c, socket, err, sizeof(err)) < 0 ||
	    daemon_client__ask(&c, &r, &st, &body, &len, err, sizeof(err)) < 0) {
		fprintf(stderr, "prof daemon: %s\n", err);
		return EXIT_PROF_FAIL;
	}
	if (st < 0) {
		escape__text(buf, sizeof(buf), (const char *)body);
		fprintf(stderr, "prof daemon: profd refused: %s\n", buf);
		return EXIT_PROF_FAIL;
	}
	if (raw) {
		/* what the daemon says is shown through escape__text: no raw control bytes */
		for (char *line = (char *)body, *nl; *line; line = nl + !!*nl) {
			nl = strchrnul(line, '\n');
			escape__text(buf, sizeof(buf), strndupa(line, MIN((size_t)(nl - line), sizeof(buf) - 1)));
			printf("%s\n", buf);
		}
		return EXIT_PROF_OK;
	}
	print_public(&(struct status){ (const char *)body, len }, c.socket);
	if (num(&(struct status){ (const char *)body, len }, "admin"))
		print_admin(&(struct status){ (const char *)body, len });
	return EXIT_PROF_OK;
}

int cmd_daemon(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "raw", no_argument, NULL, 'r' },
		{ "socket", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *socket = NULL;
	bool raw = false;
	int c;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_PROF_USAGE : EXIT_PROF_OK;
	}
	if (strcmp(argv[1], "status")) {
		fprintf(stderr, "prof daemon: unknown command '%s' (status; see prof daemon --help)\n", argv[1]);
		return EXIT_PROF_USAGE;
	}
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc - 1, argv + 1, "h", longopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage, stdout);
			return EXIT_PROF_OK;
		}
		if (c == 'r')
			raw = true;
		else if (c == 'S')
			socket = optarg;
		else {
			fprintf(stderr, "prof daemon status: unknown option '%s'\n", argv[optind]);
			return EXIT_PROF_USAGE;
		}
	}
	return status(socket, raw);
}
