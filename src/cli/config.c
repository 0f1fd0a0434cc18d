/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <fcntl.h>
#include <ini.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "prof/cli/config.h"
#include "prof/record/event_spec.h"
#include "prof/cli/record_opts.h"
#include "prof/base/util.h"
#include "prof/perfdata/build_id_cache.h"

/* ---- [daemon] -------------------------------------------------------------------- */

/* profd's defaults: the rate and spans measured for the closing note (docs/DESIGN.md). */
static void daemon_defaults(struct prof_daemon_config *d)
{
	*d = (struct prof_daemon_config){ .freq = 19, .callchain = true, .python_frames = true,
					  .off_cpu_sample = 1, .off_cpu_window = 2, .off_cpu_period = 20,
					  .mmap_pages = 64, .bucket = 10, .fine_span = 300, .history = 3600, .memory_max = 32 << 20, .symbols_max = 16 << 20,
					  .disk_max = 256 << 20, .answers_memory_max = 64 << 20,
					  .bucket_max_stacks = 20000, .fsync = true, .max_clients = 256,
					  .max_clients_per_uid = 16, .client_timeout = 5 };
	strcpy(d->event, "cpu-clock");
	strcpy(d->state_dir, "/var/lib/prof");
	strcpy(d->socket, "/run/prof/profd.sock");
	strcpy(d->user, "prof");
	export_config__defaults(&d->export);
}

void config__defaults(struct prof_config *c)
{
	*c = (struct prof_config){ .freq = 4000, .mmap_pages = 0 /* sized to the rate */,
				   .user_max_frequency = CONFIG_USER_MAX_FREQUENCY, .keep_objects = true,
				   .user_off_cpu_max_rate = CONFIG_USER_OFF_CPU_MAX_RATE,
				   .keep_object_max = BUILD_ID_CACHE_OBJECT_MAX,
				   .keep_recording_max = BUILD_ID_CACHE_RECORDING_MAX,
				   .keep_cache_max = BUILD_ID_CACHE_MAX };
	strcpy(c->output, "perf.data");
	runtime_dirs__defaults(&c->containers);
	daemon_defaults(&c->daemon);
}

struct parse_ctx {
	struct prof_config *c;
	bool allow_policy;
	char msg[256];          /* the first error, for the line inih reports */
};

__attribute__((format(printf, 2, 3)))
static int bad(struct parse_ctx *x, const char *fmt, ...)
{
	va_list ap;

	if (!x->msg[0]) {
		va_start(ap, fmt);
		vsnprintf(x->msg, sizeof(x->msg), fmt, ap);
		va_end(ap);
	}
	return 0;       /* inih: error on this line */
}

static int parse_bool(const char *v, bool *ret)
{
	if (!strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcmp(v, "1") || !strcasecmp(v, "on"))
		*ret = true;
	else if (!strcasecmp(v, "no") || !strcasecmp(v, "false") || !strcmp(v, "0") || !strcasecmp(v, "off"))
		*ret = false;
	else
		return -EINVAL;
	return 0;
}

static int parse_uint(const char *v, uint64_t min, uint64_t max, uint64_t *ret)
{
	uint64_t x;

	if (parse_u64(v, 10, &x) < 0 || x < min || x > max)
		return -EINVAL;
	*ret = x;
	return 0;
}

int config__parse_size(const char *v, uint64_t *ret)
{
	static const char units[] = "KMGT";
	char digits[32];
	size_t n = strspn(v, "0123456789");
	const char *u = v[n] ? strchr(units, v[n] & ~0x20) : NULL;
	uint64_t x;

	if (!n || n >= sizeof(digits) || (v[n] && (!u || !*u || v[n + 1])))
		return -EINVAL;
	memcpy(digits, v, n);
	digits[n] = '\0';
	if (parse_u64(digits, 10, &x) < 0)
		return -EINVAL;
	for (int shift = u ? 10 * (int)(u - units + 1) : 0; shift > 0; shift -= 10) {
		if (x > (1ull << 50) >> 10)
			return -EINVAL;
		x <<= 10;
	}
	if (x > 1ull << 50)
		return -EINVAL;
	*ret = x;
	return 0;
}

static int copy(char *dst, size_t len, const char *v)
{
	if (strlen(v) >= len)
		return -ENAMETOOLONG;
	strcpy(dst, v);
	return 0;
}

/* An event name prof record -e accepts (record's and the daemon's). */
static int set_event(struct parse_ctx *x, char *dst, size_t len, const char *value)
{
	struct event_spec e;

	if (event_spec__parse(value, &e) < 0)
		return bad(x, "unknown event '%s'", value);
	return copy(dst, len, value) < 0 ? bad(x, "event name too long") : 1;
}

static int set_pages(struct parse_ctx *x, unsigned int *dst, const char *value)
{
	uint64_t u;

	if (parse_uint(value, 1, record_opts__max_mmap_pages(), &u) < 0 || (u & (u - 1)))
		return bad(x, "bad mmap_pages '%s' (a power of two from 1 to %" PRIu64 ")", value,
			   record_opts__max_mmap_pages());
	*dst = (unsigned int)u;
	return 1;
}

/* A size (config__parse_size) within [min, max]. */
static int parse_size(const char *v, uint64_t min, uint64_t max, uint64_t *ret)
{
	uint64_t x;

	if (config__parse_size(v, &x) < 0 || x < min || x > max)
		return -EINVAL;
	*ret = x;
	return 0;
}

enum daemon_key_kind { DK_UINT, DK_SIZE, DK_BOOL, DK_STR };

/* The [daemon] keys: where each goes, its bounds and what a bad value is told. */
static const struct daemon_key {
	const char *name;
	enum daemon_key_kind kind;
	size_t off, size;               /* in struct prof_daemon_config; size of a string */
	uint64_t min, max;
	const char *what;
} daemon_keys[] = {
#define DK(n, k, f, lo, hi, w) { #n, k, offsetof(struct prof_daemon_config, f), \
				 sizeof(((struct prof_daemon_config *)0)->f), lo, hi, w }
	DK(frequency, DK_UINT, freq, 1, 100000, "samples per second per CPU, 1 to 100000"),
	DK(bucket, DK_UINT, bucket, 1, 3600, "seconds, 1 to 3600, dividing 3600"),
	DK(fine_span, DK_UINT, fine_span, 2, 86400, "seconds of 1 s buckets, at least two buckets"),
	DK(history, DK_UINT, history, 60, 31 * 86400, "seconds of history, 60 to 2678400"),
	DK(memory_max, DK_SIZE, memory_max, 1 << 20, UINT64_C(1) << 40, "bytes (K, M, G), at least 1M"),
	DK(symbols_max, DK_SIZE, symbols_max, 1 << 20, UINT64_C(1) << 40, "bytes (K, M, G), at least 1M"),
	DK(disk_max, DK_SIZE, disk_max, 1 << 16, UINT64_C(1) << 42, "bytes (K, M, G), at least 64K"),
	DK(answers_memory_max, DK_SIZE, answers_memory_max, 1 << 20, UINT64_C(1) << 40, "bytes (K, M, G), at least 1M"),
	DK(bucket_max_stacks, DK_UINT, bucket_max_stacks, 1, 100000000, "distinct (task, stack) keys, 1 to 100000000"),
	DK(max_clients, DK_UINT, max_clients, 1, 65536, "connections, 1 to 65536"),
	DK(max_clients_per_uid, DK_UINT, max_clients_per_uid, 1, 65536, "connections, 1 to 65536"),
	DK(client_timeout, DK_UINT, client_timeout, 1, 3600, "seconds, 1 to 3600"),
	DK(callchain, DK_BOOL, callchain, 0, 1, "yes or no"),
	DK(python_frames, DK_BOOL, python_frames, 0, 1, "yes or no"),
	DK(java_frames, DK_BOOL, java_frames, 0, 1, "yes or no"),
	DK(off_cpu, DK_BOOL, off_cpu, 0, 1, "yes or no"),
	DK(off_cpu_stacks, DK_BOOL, off_cpu_stacks, 0, 1, "yes or no"),
	DK(off_cpu_sample, DK_UINT, off_cpu_sample, 1, 1000000, "1 in N switches, 1 to 1000000"),
	DK(off_cpu_window, DK_UINT, off_cpu_window, 0, 86400, "seconds, 0 (always) to 86400"),
	DK(off_cpu_period, DK_UINT, off_cpu_period, 1, 86400, "seconds, 1 to 86400"),
	DK(fsync, DK_BOOL, fsync, 0, 1, "yes or no"),
	DK(state_dir, DK_STR, state_dir, 0, 0, "an absolute path"),
	DK(socket, DK_STR, socket, 0, 0, "an absolute path of at most 107 bytes"),
	DK(user, DK_STR, user, 0, 0, "a user name"),
#undef DK
};

static int daemon_key(struct parse_ctx *x, const char *name, const char *value)
{
	struct prof_daemon_config *d = &x->c->daemon;
	char msg[256];
	uint64_t u;
	bool b;
	int e;

	if (!x->allow_policy)
		return bad(x, "[daemon] may only be set in the system configuration");
	e = export_config__set(&d->export, name, value, msg, sizeof(msg));
	if (e)
		return e > 0 ? 1 : bad(x, "%s", msg);
	if (!strcmp(name, "event"))
		return set_event(x, d->event, sizeof(d->event), value);
	if (!strcmp(name, "mmap_pages"))
		return set_pages(x, &d->mmap_pages, value);
	for (size_t i = 0; i < sizeof(daemon_keys) / sizeof(daemon_keys[0]); i++) {
		const struct daemon_key *k = &daemon_keys[i];
		char *at = (char *)d + k->off;

		if (strcmp(name, k->name))
			continue;
		if ((k->kind == DK_UINT && parse_uint(value, k->min, k->max, &u) < 0) ||
		    (k->kind == DK_SIZE && parse_size(value, k->min, k->max, &u) < 0) ||
		    (k->kind == DK_BOOL && parse_bool(value, &b) < 0) ||
		    (k->kind == DK_STR && ((value[0] != '/' && strcmp(name, "user")) || !value[0] ||
					   copy(at, k->size, value) < 0)))
			return bad(x, "bad %s '%s' (%s)", name, value, k->what);
		if (k->kind == DK_UINT || k->kind == DK_SIZE)
			memcpy(at, &u, sizeof(u));
		else if (k->kind == DK_BOOL)
			memcpy(at, &b, sizeof(b));
		return 1;
	}
	return bad(x, "unknown key '%s' in [daemon]", name);
}

/* How the [daemon] keys must fit together; 0 or -EINVAL with err set. */
static int daemon_check(const struct prof_daemon_config *d, const char *filename, char *err, size_t errlen)
{
	const char *why = 3600 % d->bucket ? "bucket must divide 3600 (buckets start on the hour)"
			  : d->fine_span < 2 * d->bucket ? "fine_span must be at least two buckets"
			  : d->fine_span > d->history ? "fine_span must not be longer than history"
			  : d->history < d->bucket ? "history must be at least one bucket" : NULL;
	char msg[256];

	if (!why && export_config__check(&d->export, msg, sizeof(msg)) < 0) {
		snprintf(err, errlen, "%s: [daemon]: %s", filename, msg);
		return -EINVAL;
	}
	if (!why)
		return 0;
	snprintf(err, errlen, "%s: [daemon]: %s (bucket %" PRIu64 ", fine_span %" PRIu64 ", history %" PRIu64 ")",
		 filename, why, d->bucket, d->fine_span, d->history);
	return -EINVAL;
}

/* [record] keep_objects and its limits; the other [record] keys are record_key's. */
static int record_keep_key(struct parse_ctx *x, const char *name, const char *value)
{
	static const struct {
		const char *name;
		size_t off;
	} sizes[] = {
		{ "keep_object_max", offsetof(struct prof_config, keep_object_max) },
		{ "keep_recording_max", offsetof(struct prof_config, keep_recording_max) },
		{ "keep_cache_max", offsetof(struct prof_config, keep_cache_max) },
	};
	uint64_t u;
	bool b;

	if (!strcmp(name, "keep_objects")) {
		if (parse_bool(value, &b) < 0)
			return bad(x, "bad keep_objects '%s' (yes or no)", value);
		x->c->keep_objects = b;
		return 1;
	}
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		if (strcmp(name, sizes[i].name))
			continue;
		if (config__parse_size(value, &u) < 0 || u == 0)
			return bad(x, "bad %s '%s' (bytes, with K, M, G or T for powers of 1024; 1 to 1024T)",
				   name, value);
		*(uint64_t *)(void *)((char *)x->c + sizes[i].off) = u;
		return 1;
	}
	return bad(x, "unknown key '%s' in [record]", name);
}

/* [containers]: the runtimes' state directories, for --container NAME and reports' names. */
static int containers_key(struct parse_ctx *x, const char *name, const char *value)
{
	static const struct {
		const char *name;
		enum runtime_kind kind;
	} lists[] = {
		{ "docker_data_root", RUNTIME_DOCKER },
		{ "podman_storage", RUNTIME_PODMAN },
		{ "kubelet_log_dir", RUNTIME_KUBERNETES },
	};
	char err[160];
	bool b;

	if (!strcmp(name, "rootless_podman")) {
		if (parse_bool(value, &b) < 0)
			return bad(x, "bad rootless_podman '%s' (yes or no)", value);
		x->c->containers.rootless_podman = b;
		return 1;
	}
	for (size_t i = 0; i < ARRAY_SIZE(lists); i++)
		if (!strcmp(name, lists[i].name)) {
			if (runtime_dirs__set(&x->c->containers, lists[i].kind, value, err, sizeof(err)) < 0)
				return bad(x, "%s: %s", name, err);
			return 1;
		}
	return bad(x, "unknown key '%s' in [containers]", name);
}

/* [record]: the recording's defaults.  1, or bad()'s 0 (inih: this line is wrong). */
static int record_key(struct parse_ctx *x, const char *name, const char *value)
{
	struct prof_config *c = x->c;
	uint64_t u;
	bool b;

	if (!strcmp(name, "event"))
		return set_event(x, c->event, sizeof(c->event), value);
	if (!strcmp(name, "frequency")) {
		if (parse_uint(value, 1, 1000000, &u) < 0)
			return bad(x, "bad frequency '%s' (samples per second, 1 to 1000000)", value);
		c->freq = u;
		return 1;
	}
	if (!strcmp(name, "callchain")) {
		if (parse_bool(value, &b) < 0)
			return bad(x, "bad callchain '%s' (yes or no)", value);
		c->callchain = b;
		return 1;
	}
	if (!strcmp(name, "mmap_pages"))
		return set_pages(x, &c->mmap_pages, value);
	if (!strcmp(name, "off_cpu_max_rate")) {
		if (parse_uint(value, 0, 100000000, &u) < 0)
			return bad(x, "bad off_cpu_max_rate '%s' (stack samples per CPU per second, "
				   "0 for a stack at every switch)", value);
		c->off_cpu_max_rate = u ? (uint32_t)u : UINT32_MAX;
		return 1;
	}
	if (!strcmp(name, "output")) {
		if (!value[0] || copy(c->output, sizeof(c->output), value) < 0)
			return bad(x, "bad output '%s'", value);
		return 1;
	}
	return record_keep_key(x, name, value);
}

/* [aggregate]: the engine's bound. */
static int aggregate_key(struct parse_ctx *x, const char *name, const char *value)
{
	struct prof_config *c = x->c;
	uint64_t u;

	if (!strcmp(name, "max_stacks")) {
		if (parse_uint(value, 1, 100000000, &u) < 0)
			return bad(x, "bad max_stacks '%s' (distinct (task, stack) keys, 1 to 100000000)", value);
		c->max_stacks = u;
		return 1;
	}
	return bad(x, "unknown key '%s' in [aggregate]", name);
}

/* [policy]: what users may ask for; only in the system configuration. */
static int policy_key(struct parse_ctx *x, const char *name, const char *value)
{
	struct prof_config *c = x->c;
	uint64_t u;
	bool b;

	if (!x->allow_policy)
		return bad(x, "[policy] may only be set in the system configuration");
	if (!strcmp(name, "admin_group")) {
		if (copy(c->admin_group, sizeof(c->admin_group), value) < 0)
			return bad(x, "admin_group too long");
		return 1;
	}
	if (!strcmp(name, "user_kernel")) {
		if (parse_bool(value, &b) < 0)
			return bad(x, "bad user_kernel '%s' (yes or no)", value);
		c->user_kernel = b;
		return 1;
	}
	if (!strcmp(name, "user_max_frequency")) {
		if (parse_uint(value, 1, 1000000, &u) < 0)
			return bad(x, "bad user_max_frequency '%s' (samples per second, 1 to 1000000)", value);
		c->user_max_frequency = u;
		return 1;
	}
	if (!strcmp(name, "user_off_cpu_max_rate")) {
		if (parse_uint(value, 1, 100000000, &u) < 0)
			return bad(x, "bad user_off_cpu_max_rate '%s' (stack samples per CPU per second, "
				   "1 to 100000000)", value);
		c->user_off_cpu_max_rate = (uint32_t)u;
		return 1;
	}
	return bad(x, "unknown key '%s' in [policy]", name);
}

/* ---- [symbols] ------------------------------------------------------------------- */

/* debuginfod_urls: URLs separated by spaces, each http:// or https:// and no quote
 * or control character (libdebuginfod splits them at spaces).  0 or -EINVAL. */
static int check_urls(const char *v, char *why, size_t len)
{
	const char *p = v;

	if (!v[strspn(v, " ")]) {
		snprintf(why, len, "no URL");
		return -EINVAL;
	}
	while (*(p += strspn(p, " "))) {
		size_t n = strcspn(p, " ");

		if (strncmp(p, "http://", 7) && strncmp(p, "https://", 8)) {
			snprintf(why, len, "'%.*s' is not an http:// or https:// URL", (int)MIN(n, 80), p);
			return -EINVAL;
		}
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)p[i] < 0x21 || p[i] == '"' || p[i] == '\'' || p[i] == 0x7f) {
				snprintf(why, len, "'%.*s' has a quote or control character", (int)MIN(n, 80), p);
				return -EINVAL;
			}
		p += n;
	}
	return 0;
}

/*
 * [symbols]: where names come from.  The system file's apply to everyone; a user's
 * file's only to a prof not privileged for anyone else (preflight__debuginfod),
 * so they are kept apart.
 */
static int symbols_key(struct parse_ctx *x, const char *name, const char *value)
{
	struct prof_symbols_config *y = x->allow_policy ? &x->c->symbols : &x->c->user_symbols;
	char why[160];
	uint64_t u;

	if (!strcmp(name, "debuginfod_urls")) {
		if (check_urls(value, why, sizeof(why)) < 0)
			return bad(x, "bad debuginfod_urls: %s (servers' URLs separated by spaces, "
				   "e.g. https://debuginfod.debian.net)", why);
		return copy(y->debuginfod_urls, sizeof(y->debuginfod_urls), value) < 0
			       ? bad(x, "debuginfod_urls too long")
			       : 1;
	}
	if (!strcmp(name, "debuginfod_timeout")) {
		if (parse_uint(value, 1, 600, &u) < 0)
			return bad(x, "bad debuginfod_timeout '%s' (seconds a server may take to answer, 1 to 600)",
				   value);
		y->debuginfod_timeout = (unsigned int)u;
		return 1;
	}
	return bad(x, "unknown key '%s' in [symbols]", name);
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct parse_ctx *x = user;

	if (!strcmp(section, "record"))
		return record_key(x, name, value);
	if (!strcmp(section, "containers"))
		return containers_key(x, name, value);
	if (!strcmp(section, "aggregate"))
		return aggregate_key(x, name, value);
	if (!strcmp(section, "policy"))
		return policy_key(x, name, value);
	if (!strcmp(section, "daemon"))
		return daemon_key(x, name, value);
	if (!strcmp(section, "symbols"))
		return symbols_key(x, name, value);
	return bad(x, section[0] ? "unknown section [%s]" : "key '%s' outside a section", section[0] ? section : name);
}

int config__parse(struct prof_config *c, const char *text, const char *filename, bool allow_policy,
		  char *err, size_t errlen)
{
	struct parse_ctx x = { .c = c, .allow_policy = allow_policy };
	int line = 1, r;

	/* inih cuts longer lines silently: refuse them, naming the line. */
	for (const char *p = text, *start = text; ; p++) {
		if (*p == '\n' || !*p) {
			if (p - start > CONFIG_MAX_LINE - 2) {
				snprintf(err, errlen, "%s:%d: line longer than %d characters", filename, line,
					 CONFIG_MAX_LINE - 2);
				return -EINVAL;
			}
			if (!*p)
				break;
			line++;
			start = p + 1;
		}
	}
	r = ini_parse_string(text, handler, &x);
	if (r > 0) {
		snprintf(err, errlen, "%s:%d: %s", filename, r, x.msg[0] ? x.msg : "syntax error (expected [section] or key = value)");
		return -EINVAL;
	}
	if (r < 0) {
		snprintf(err, errlen, "%s: out of memory", filename);
		return -ENOMEM;
	}
	return daemon_check(&c->daemon, filename, err, errlen);
}

int config__load(struct prof_config *c, const char *path, bool allow_policy, bool must_be_safe,
		 char *err, size_t errlen)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	if (fd < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	return config__load_fd(c, fd, path, allow_policy, must_be_safe, err, errlen);
}

int config__load_fd(struct prof_config *c, int fd, const char *path, bool allow_policy, bool must_be_safe,
		    char *err, size_t errlen)
{
	_cleanup_free_ char *text = NULL;
	struct stat st;
	ssize_t n;

	/* Checked on the open file, so what is read is what was checked. */
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file (a FIFO, device or directory): give a prof.conf file", path);
		return -EINVAL;
	}
	if (must_be_safe && (st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH)))) {
		snprintf(err, errlen, "%s: refusing a configuration that is not owned by root or is writable by "
			 "others (owner uid %u, mode %04o): prof runs privileged", path, st.st_uid,
			 st.st_mode & 07777);
		return -EPERM;
	}
	n = read_fd_full(fd, 1u << 20, &text);
	if (n < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror((int)-n));
		return (int)n;
	}
	return config__parse(c, text, path, allow_policy, err, errlen);
}

int config__expand_output(const char *pattern, char *buf, size_t len)
{
	size_t o = 0;

	for (const char *p = pattern; *p; p++) {
		char tmp[256];
		const char *add = tmp;

		if (*p != '%' || !p[1]) {
			tmp[0] = *p;
			tmp[1] = '\0';
		} else {
			p++;
			if (*p == 'u') {
				struct passwd *pw = getpwuid(getuid());
				snprintf(tmp, sizeof(tmp), "%s", pw ? pw->pw_name : "unknown");
			} else if (*p == 'h') {
				if (gethostname(tmp, sizeof(tmp)) < 0)
					strcpy(tmp, "host");
				tmp[sizeof(tmp) - 1] = '\0';
			} else if (*p == 't') {
				time_t t = time(NULL);
				struct tm tm;
				strftime(tmp, sizeof(tmp), "%Y%m%d-%H%M%S", localtime_r(&t, &tm));
			} else if (*p == 'p') {
				snprintf(tmp, sizeof(tmp), "%d", (int)getpid());
			} else if (*p == '%') {
				strcpy(tmp, "%");
			} else {
				snprintf(tmp, sizeof(tmp), "%%%c", *p);
			}
		}
		size_t l = strlen(add);
		if (o + l >= len)
			return -ENAMETOOLONG;
		memcpy(buf + o, add, l);
		o += l;
	}
	buf[o] = '\0';
	return 0;
}
