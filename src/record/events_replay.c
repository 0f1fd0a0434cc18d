/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A ring replay (issue 42): what a recording drained from its rings saved to a file
 * (PROF_RING_SAVE=FILE, made as the invoking user, 0600), and a later `prof record` driven from that file
 * (PROF_RING_REPLAY=FILE) through the same drain (take: events_drain.c), queue,
 * pipeline and writer, with no kernel event opened.  For the developers: the
 * per-record work measured under callgrind independent of the host's load
 * (bench/record-instr --replay), and a change's output compared byte for byte
 * before and after (bench/ring-replay).  Not in --help.
 *
 * What is saved: the events as the file states them (attrs, ids, names), the
 * recording's facts (events_info), the Python chains' event ids; then one block per
 * drain, in drain order: the moment the session took before it (its "now": what it
 * judges up to), each ring's records as the kernel wrote them (the foreign, chain and
 * held records too: the drain's own decisions are replayed, not their outcome), and
 * whether the events were off by then (session__stop's drains).  Native byte order,
 * sizes of this build's structs: a file is for the build that wrote it or one with
 * the same structs (checked: "was saved by another build").
 *
 * What a replay cannot reproduce: anything read from live processes and the host at
 * replay time rather than from the rings: /proc (a pre-existing task's facts and
 * maps, read when it first matters: gone by then, or changed), the objects' build ids
 * (read from the files now), and above all the Python, JVM and V8 readings of a
 * process's memory, which are proven by time against the sample (a replay's
 * readings are all late).  A replay's output equals the recording's where none of
 * those enter; two replays of a file under the same conditions equal each other.
 * Not replayed: --off-cpu, the set*uid() tracepoints of a non-admin's --uid (refused
 * when saving).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prof/base/idmap.h"
#include "prof/base/util.h"
#include "prof/base/vec.h"
#include "prof/python/chain.h"
#include "prof/sys/privs.h"
#include "events_internal.h"

#define MAGIC "PROFRNG1"
#define DRAIN_MAGIC 0x314e5244u        /* "DRN1" */
#define DRAIN_FINAL 1u                  /* drained after events__disable */

struct file_head {
	char magic[8];
	uint32_t info_size, attr_size, nr_events, nr_chain_ids;
};

struct drain_head {
	uint32_t magic, flags;
	uint64_t now, len;
};

struct chunk_head {
	uint32_t ring, len;
};

struct events_replay {
	/* saving */
	FILE *out;
	uint8_t *buf;                   /* this drain's chunks */
	size_t len, cap, chunk;         /* chunk: where the current ring's chunk head is */
	uint32_t ring;
	uint64_t now;                   /* the session's, before this drain */
	bool final;
	/* replaying: the whole file, read */
	uint8_t *data;
	size_t size, at;
	char names[RECORD_MAX_EVENTS + 3][64];
	uint64_t *ids[RECORD_MAX_EVENTS + 3];
};

/* ---- saving -------------------------------------------------------------------- */

int events_replay__save(struct events *e, const char *path)
{
	size_t nr;
	const struct perf_data_event *evs = events__attrs(e, &nr);
	struct file_head h = { .info_size = sizeof(e->info), .attr_size = sizeof(e->attrs[0]),
			       .nr_events = (uint32_t)nr, .nr_chain_ids = e->chain_ids ? (uint32_t)e->info.nr_cpus : 0 };
	struct events_info info = e->info;
	struct events_replay *r;
	int fd;

	if (e->offcpu || e->nr_creds || e->info.wakeups.nr_wake_ids)
		return -EOPNOTSUPP;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	/* as the invoking user: prof writes nowhere they could not */
	fd = privs__create_as_user(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	r->out = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!r->out) {
		int err = fd < 0 ? fd : -errno;

		if (fd >= 0)
			close(fd);
		free(r);
		return err;
	}
	e->replay = r;
	memcpy(h.magic, MAGIC, sizeof(h.magic));
	info.switch_ids = NULL;
	info.wakeups.wake_ids = info.wakeups.migrate_ids = NULL;
	fwrite(&h, sizeof(h), 1, r->out);
	fwrite(&info, sizeof(info), 1, r->out);
	fwrite(e->attrs, sizeof(e->attrs), 1, r->out);
	for (size_t i = 0; i < nr; i++) {
		char name[64] = "";

		snprintf(name, sizeof(name), "%s", evs[i].name ? evs[i].name : "");
		fwrite(&evs[i].attr, sizeof(evs[i].attr), 1, r->out);
		fwrite(name, sizeof(name), 1, r->out);
		fwrite(&evs[i].nr_ids, sizeof(evs[i].nr_ids), 1, r->out);
		fwrite(evs[i].ids, sizeof(*evs[i].ids), evs[i].nr_ids, r->out);
	}
	if (h.nr_chain_ids)
		fwrite(e->chain_ids, sizeof(*e->chain_ids), h.nr_chain_ids, r->out);
	/* the drains' records at 8-byte multiples, as in a ring */
	fwrite((const uint8_t[8]){ 0 }, 1, ALIGN_UP((size_t)ftell(r->out), 8) - (size_t)ftell(r->out), r->out);
	return ferror(r->out) ? -EIO : 0;
}

static int put(struct events_replay *r, const void *p, size_t n)
{
	int err = VEC_RESERVE(r->buf, r->cap, r->len + n);

	if (!err) {
		memcpy(r->buf + r->len, p, n);
		r->len += n;
	}
	return err;
}

void events_replay__record(struct events *e, const struct perf_event_header *h)
{
	struct events_replay *r = e->replay;
	static const uint8_t pad[8];

	if (r->chunk == SIZE_MAX) {
		struct chunk_head c = { .ring = r->ring };

		r->chunk = r->len;
		put(r, &c, sizeof(c));
	}
	put(r, h, h->size);
	put(r, pad, ALIGN_UP((size_t)h->size, 8) - h->size);
}

void events_replay__ring_end(struct events *e)
{
	struct events_replay *r = e->replay;

	if (r->chunk != SIZE_MAX) {
		struct chunk_head c = { .ring = r->ring, .len = (uint32_t)(r->len - r->chunk - sizeof(c)) };

		memcpy(r->buf + r->chunk, &c, sizeof(c));
	}
	r->chunk = SIZE_MAX;
	r->ring++;
}

void events_replay__drain_begin(struct events *e)
{
	struct events_replay *r = e->replay;

	r->len = 0;
	r->ring = 0;
	r->chunk = SIZE_MAX;
}

int events_replay__drain_end(struct events *e)
{
	struct events_replay *r = e->replay;
	struct drain_head d = { .magic = DRAIN_MAGIC, .flags = r->final ? DRAIN_FINAL : 0, .now = r->now,
				.len = r->len };

	if (r->chunk != SIZE_MAX)
		events_replay__ring_end(e);
	if (!r->len && !r->final)
		return 0;       /* an empty drain changes nothing */
	fwrite(&d, sizeof(d), 1, r->out);
	fwrite(r->buf, 1, r->len, r->out);
	return ferror(r->out) ? -EIO : 0;
}

/* ---- replaying ----------------------------------------------------------------- */

static const void *take_bytes(struct events_replay *r, size_t n)
{
	const void *p = r->at + n <= r->size ? r->data + r->at : NULL;

	if (p)
		r->at += n;
	return p;
}

static int read_head(struct events *e, struct events_replay *r)
{
	const struct file_head *h = take_bytes(r, sizeof(*h));
	const void *p;

	if (!h || memcmp(h->magic, MAGIC, sizeof(h->magic)))
		return -EBADMSG;
	if (h->info_size != sizeof(e->info) || h->attr_size != sizeof(e->attrs[0]) ||
	    h->nr_events < 2 || h->nr_events > ARRAY_SIZE(e->events))
		return -EPROTO;         /* another build's structs */
	p = take_bytes(r, sizeof(e->info));
	if (!p || !(memcpy(&e->info, p, sizeof(e->info)), p = take_bytes(r, sizeof(e->attrs))))
		return -EBADMSG;
	memcpy(e->attrs, p, sizeof(e->attrs));
	e->info.chains_why[sizeof(e->info.chains_why) - 1] = 0;
	if (e->info.nr_events + 1 != h->nr_events || e->info.nr_cpus <= 0)
		return -EBADMSG;
	for (size_t i = 0; i < h->nr_events; i++) {
		const struct perf_event_attr *a = take_bytes(r, sizeof(*a));
		const char *name = take_bytes(r, sizeof(r->names[i]));
		const uint32_t *nr = take_bytes(r, sizeof(*nr));
		const void *ids = nr && *nr <= 4096 ? take_bytes(r, *nr * sizeof(uint64_t)) : NULL;

		if (!a || !name || !ids)
			return -EBADMSG;
		memcpy(r->names[i], name, sizeof(r->names[i]) - 1);
		r->ids[i] = malloc(*nr * sizeof(uint64_t) + 1);
		if (!r->ids[i])
			return -ENOMEM;
		memcpy(r->ids[i], ids, *nr * sizeof(uint64_t));
		e->events[i] = (struct perf_data_event){ .attr = *a, .name = r->names[i], .ids = r->ids[i],
							 .nr_ids = *nr };
	}
	if (h->nr_chain_ids) {
		const void *ids = h->nr_chain_ids == (uint32_t)e->info.nr_cpus ?
				  take_bytes(r, h->nr_chain_ids * sizeof(uint64_t)) : NULL;

		e->chain_ids = ids ? malloc(h->nr_chain_ids * sizeof(uint64_t)) : NULL;
		if (!e->chain_ids)
			return ids ? -ENOMEM : -EBADMSG;
		memcpy(e->chain_ids, ids, h->nr_chain_ids * sizeof(uint64_t));
	}
	r->at = ALIGN_UP(r->at, 8);
	return 0;
}

int events_replay__open(const char *path, struct events **ret)
{
	struct events *e = calloc(1, sizeof(*e));
	struct events_replay *r = calloc(1, sizeof(*r));
	ssize_t n;
	int err, fd;

	if (!e || !r) {
		free(e);
		free(r);
		return -ENOMEM;
	}
	e->replay = r;
	e->release_fd = -1;
	fd = privs__open_as_user(path, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? fd : read_fd_full(fd, (size_t)64 << 30, (char **)&r->data);
	if (fd >= 0)
		close(fd);
	r->size = n < 0 ? 0 : (size_t)n;
	err = n < 0 ? (int)n : read_head(e, r);
	if (!err && e->info.chains)
		err = python_chains__new_store(&e->chains);
	e->info.switch_ids = NULL;
	e->info.nr_switch_ids = 0;
	e->info.wakeups = (struct offcpu_wakeups){ 0 };
	e->info.creds = false;
	if (!err) {
		sample_layout__init(&e->layout, e->attrs[0].sample_type);
		err = events__collect_own_ids(e);
	}
	if (err < 0) {
		events__free(e);
		return err;
	}
	*ret = e;
	return 0;
}

/* The next drain's head, not taken (NULL past the last). */
static const struct drain_head *next_drain(const struct events_replay *r)
{
	const struct drain_head *d = r->at + sizeof(*d) <= r->size ? (const void *)(r->data + r->at) : NULL;

	return d && d->magic == DRAIN_MAGIC && d->len <= r->size - r->at - sizeof(*d) ? d : NULL;
}

bool events_replay__done(const struct events *e)
{
	const struct drain_head *d = next_drain(e->replay);

	return !d || (d->flags & DRAIN_FINAL);
}

uint64_t events__now(struct events *e)
{
	const struct drain_head *d;

	if (!e->replay)
		return clock_mono_ns();
	if (e->replay->out)
		return e->replay->now = clock_mono_ns();
	d = next_drain(e->replay);
	return d ? d->now : UINT64_MAX;
}

bool events__replaying(const struct events *e)
{
	return e->replay && !e->replay->out;
}

void events_replay__disable(struct events *e)
{
	if (e->replay)
		e->replay->final = true;
}

/* One drain's records: the next block; after events__disable, every block left (the
 * recording's last drains, however many the replay's session asks for). */
int events_replay__drain(struct events *e, events_chunk_fn fn, void *ctx)
{
	struct events_replay *r = e->replay;
	const struct drain_head *d;
	int err = 0;

	while (!err && (d = next_drain(r)) != NULL) {
		size_t end = r->at + sizeof(*d) + d->len;

		r->at += sizeof(*d);
		while (!err && r->at + sizeof(struct chunk_head) <= end) {
			const struct chunk_head *c = take_bytes(r, sizeof(*c));
			const uint8_t *buf = c && c->len <= end - r->at ? take_bytes(r, c->len) : NULL;

			err = buf ? fn(ctx, buf, c->len) : -EBADMSG;
		}
		r->at = end;
		if (!r->final)
			break;
	}
	return err;
}

void events_replay__free(struct events *e)
{
	struct events_replay *r = e->replay;

	if (!r)
		return;
	if (r->out)
		fclose(r->out);
	free(r->buf);
	free(r->data);
	for (size_t i = 0; i < ARRAY_SIZE(r->ids); i++)
		free(r->ids[i]);
	free(r);
	e->replay = NULL;
}
