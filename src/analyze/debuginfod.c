/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * debuginfod as a source of names: see include/prof/analyze/debuginfod.h.
 */
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prof/analyze/debuginfod.h"
#include "prof/base/util.h"
#include "prof/perfdata/build_id.h"
#include "prof/sys/privs.h"

bool debuginfod__on(void)
{
	const char *urls = getenv("DEBUGINFOD_URLS");

	return urls && urls[strspn(urls, " \t")];
}

/* name=value unless the environment has one (or always, when it is not trusted). */
static void set_default(const char *name, uint64_t value, bool trust_env)
{
	char buf[32];

	if (trust_env && getenv(name))
		return;
	snprintf(buf, sizeof(buf), "%" PRIu64, value);
	setenv(name, buf, 1);
}

bool debuginfod__setup(const char *urls, unsigned int timeout, bool trust_env)
{
	if (!trust_env || !debuginfod__on()) {
		if (urls && urls[0])
			setenv("DEBUGINFOD_URLS", urls, 1);
		else
			unsetenv("DEBUGINFOD_URLS");
	}
	/* the configured timeout wins over the environment's: the operator chose it */
	if (timeout)
		set_default("DEBUGINFOD_TIMEOUT", timeout, false);
	else
		set_default("DEBUGINFOD_TIMEOUT", DEBUGINFOD_DEFAULT_TIMEOUT, trust_env);
	set_default("DEBUGINFOD_MAXTIME", DEBUGINFOD_DEFAULT_MAXTIME, trust_env);
	/* libdebuginfod tries a server 3 times by default: 3 timeouts for a hung one */
	set_default("DEBUGINFOD_RETRY_LIMIT", DEBUGINFOD_DEFAULT_RETRY_LIMIT, trust_env);
	set_default("DEBUGINFOD_MAXSIZE", DEBUGINFOD_DEFAULT_MAXSIZE, trust_env);
	return debuginfod__on();
}

bool debuginfod__matches(int fd, const uint8_t *bid, size_t len)
{
	struct build_id got;

	return fd >= 0 && len && build_id__read_elf(fd, &got) == 0 && got.size == len &&
	       !memcmp(got.data, bid, len);
}

struct forget {
	char path[PATH_MAX];
};

static int unlink_as_user(void *arg)
{
	return unlink(((struct forget *)arg)->path) < 0 ? -errno : 0;
}

void debuginfod__forget(int fd, const uint8_t *bid, size_t len)
{
	struct build_id b = { .size = MIN(len, sizeof(b.data)) };
	char hex[2 * BUILD_ID_MAX + 1], self[64], tail[2 * BUILD_ID_MAX + 16];
	struct forget f;
	ssize_t n;
	size_t t;

	memcpy(b.data, bid, b.size);
	build_id__hex(&b, hex, sizeof(hex));
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	n = readlink(self, f.path, sizeof(f.path) - 1);
	if (n <= 0)
		return;
	f.path[n] = '\0';
	t = (size_t)snprintf(tail, sizeof(tail), "/%s/debuginfo", hex);
	/* only libdebuginfod's own entry of that build id */
	if ((size_t)n > t && !strcmp(f.path + n - t, tail))
		privs__as_user(unlink_as_user, &f);
}

void debuginfod__count(struct debuginfod_stats *st, int r)
{
	if (r == -ENOSYS)
		return;         /* no server configured: nothing was asked */
	st->asked++;
	if (r >= 0)
		st->found++;
	else if (r == -ENOENT)
		st->not_found++;
	else
		st->failed++;
}

void debuginfod__describe(const struct debuginfod_stats *st, char *buf, size_t len)
{
	int n = snprintf(buf, len, "asked %" PRIu64 ": found %" PRIu64 ", not found %" PRIu64 ", failed %" PRIu64,
			 st->asked, st->found, st->not_found, st->failed);

	if (n >= 0 && (size_t)n < len && st->refused)
		n += snprintf(buf + n, len - (size_t)n, ", %" PRIu64 " answered another build's file (not used)",
			      st->refused);
	if (n >= 0 && (size_t)n < len && st->kept)
		n += snprintf(buf + n, len - (size_t)n, "; kept %" PRIu64 " in the build-id cache", st->kept);
	if (n >= 0 && (size_t)n < len && st->skipped)
		n += snprintf(buf + n, len - (size_t)n, "; %" PRIu64 " not asked (past %d s)", st->skipped,
			      DEBUGINFOD_KEEP_BUDGET);
	if (n >= 0 && (size_t)n < len && st->dropped)
		snprintf(buf + n, len - (size_t)n, "; %" PRIu64 " not asked (too many at once)", st->dropped);
}

/* ---- prof record's end ------------------------------------------------------------ */

struct keep {
	struct build_id_cache *c;
	struct debuginfod_stats *st;
	debuginfod_client *dc;
	uint64_t deadline;              /* clock_mono_ns() */
};

/* libdebuginfod's progress callback: non-zero ends the transfer (-EINTR). */
static int past_budget(debuginfod_client *dc, long a, long b)
{
	const struct keep *k = debuginfod_get_user_data(dc);

	(void)a;
	(void)b;
	return clock_mono_ns() > k->deadline;
}

/* Whether the object open on fd has a symbol table of its own (perf reads it). */
static bool has_symtab(int fd)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t shnum;
	bool has = false;

	for (Elf_Scn *scn = NULL; elf && elf_getshdrnum(elf, &shnum) == 0 && (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB && sh.sh_size) {
			has = true;
			break;
		}
	}
	if (elf)
		elf_end(elf);
	return has;
}

/* An installed debug file perf finds itself (a -dbg or -dbgsym package's). */
static bool installed_debug(const struct build_id *b)
{
	char hex[2 * BUILD_ID_MAX + 1], path[PATH_MAX];

	build_id__hex(b, hex, sizeof(hex));
	snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
	return access(path, R_OK) == 0;
}

struct fetch {
	debuginfod_client *dc;
	const struct build_id *b;
};

static int fetch_as_user(void *arg)
{
	struct fetch *f = arg;

	/* as the user: libdebuginfod writes its cache (under their $HOME or
	 * $XDG_CACHE_HOME) with their rights */
	return debuginfod_find_debuginfo(f->dc, f->b->data, (int)f->b->size, NULL);
}

static void keep_one(const char *path, const struct build_id *b, void *ctx)
{
	struct keep *k = ctx;
	enum build_id_cache_result res;
	struct stat st;
	int fd, dfd;

	if (build_id_cache__has_debug(k->c, b) || installed_debug(b))
		return;
	fd = build_id_cache__open_object(k->c, path, b);
	if (fd < 0)
		return;
	if (has_symtab(fd)) {
		close(fd);
		return;
	}
	close(fd);
	if (clock_mono_ns() > k->deadline) {
		k->st->skipped++;
		return;
	}
	dfd = privs__as_user(fetch_as_user, &(struct fetch){ k->dc, b });
	if (dfd >= 0 && !debuginfod__matches(dfd, b->data, b->size)) {
		k->st->asked++;
		k->st->refused++;
		debuginfod__forget(dfd, b->data, b->size);
		close(dfd);
		return;
	}
	debuginfod__count(k->st, dfd);
	if (dfd < 0)
		return;
	if (fstat(dfd, &st) == 0 && S_ISREG(st.st_mode) &&
	    build_id_cache__add_debug(k->c, dfd, path, b, (uint64_t)st.st_size, &res) == 0 &&
	    (res == BUILD_ID_CACHE_KEPT || res == BUILD_ID_CACHE_PRESENT))
		k->st->kept++;
	close(dfd);
}

void debuginfod__keep(struct build_id_cache *c, const void *build_ids, size_t len, unsigned int budget,
		      struct debuginfod_stats *st)
{
	struct keep k = { .c = c, .st = st, .deadline = clock_mono_ns() + (uint64_t)budget * 1000000000u };

	if (!debuginfod__on())
		return;
	k.dc = debuginfod_begin();
	if (!k.dc)
		return;
	debuginfod_set_user_data(k.dc, &k);
	debuginfod_set_progressfn(k.dc, past_budget);
	elf_version(EV_CURRENT);
	build_id_cache__each_object(build_ids, len, keep_one, &k);
	debuginfod_end(k.dc);
}
