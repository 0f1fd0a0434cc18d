/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The records of history, one codec for the history file (store.h) and for the
 * answers on the socket (protocol.h), written by the daemon and read by it and by
 * prof's clients.  Little-endian:
 *
 *   u32 type | u32 len | payload[len] | u32 crc32 (zlib's, of type, len and payload)
 *
 *   SEG     text "key value" lines: the history file's header (one per segment)
 *   META    text "key value" lines: what an answer covers (window, counts, event)
 *   STR     u32 id, bytes (no NUL, at most DICT_MAX_STR)
 *   OBJ     u32 id, u32 path, u8 kind, u8 has_stat, u8 build_id_len, u8 0,
 *           u8 build_id[20], u32 mode, u32 uid, u32 gid
 *   FRAME   u32 id, u32 obj, u32 sym, u32 flags, u64 addr
 *   STACK   u32 id, u32 nr (at most DICT_MAX_STACK), u32 frame[nr]
 *   TASK    u32 id, u32 uid, u32 flags, u32 cgroup, u32 container, u32 comm,
 *           u64 cgroup_id [, u32 holder]
 *           (the holder only, and always, with off-CPU flags DICT_TASK_RUNQ or
 *           _BLOCKED: 36 bytes; on-CPU tasks keep the 32 of history and answers
 *           from before off-CPU, which read as they did)
 *   BUCKET  u64 start, u64 end, u32 flags, u32 nr, u64 samples, period,
 *           cut_samples, cut_period, lost, unattributed,
 *           nr x (u32 task, u32 stack, u64 samples, u64 period)
 *   END     nothing: the answer is whole
 *
 * Item ids are the records' own, dense from 0 per kind, each defined before it is
 * named, so a run of records is self-contained (a segment of the file, an answer).
 * The reader trusts nothing: every length, id and count is checked, and the first
 * bad record ends the reading with its offset and what was wrong.
 */
#ifndef PROF_DAEMON_SNAPSHOT_H
#define PROF_DAEMON_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/daemon/bucket.h"
#include "prof/daemon/dict.h"

#define SNAP_MAX_RECORD (16u << 20)     /* payload bytes of one record */
#define SNAP_MAX_TEXT 16384             /* a SEG or META record */

enum snap_type {
	SNAP_SEG = 1, SNAP_META, SNAP_STR, SNAP_OBJ, SNAP_FRAME, SNAP_STACK, SNAP_TASK, SNAP_BUCKET, SNAP_END,
};

/* A growable output buffer; err is sticky (-ENOMEM, or -E2BIG past a record's cap). */
struct snap_out {
	uint8_t *p;
	size_t len, cap;
	int err;
};

/* How far a dictionary's items were written: the next id of each kind. */
struct snap_cursor {
	size_t next[DICT_KINDS];
};

void snap_out__release(struct snap_out *o);
/* Bytes as they are (not a record: the socket's headers). */
void snapshot__put_raw(struct snap_out *o, const void *p, size_t n);

/* A SEG or META record of text. */
void snapshot__put_text(struct snap_out *o, enum snap_type type, const char *text, size_t len);
/* The items of d from the cursor on (then the cursor is at d's end): STR, OBJ, FRAME,
 * STACK, TASK, in that order, so each is defined before it is named. */
void snapshot__put_items(struct snap_out *o, const struct dict *d, struct snap_cursor *c);
/* A BUCKET of entries naming d's ids as written. */
void snapshot__put_bucket(struct snap_out *o, const struct bucket_hdr *h, const struct bucket_entry *e,
			  size_t nr);
void snapshot__put_end(struct snap_out *o);

/* Reading: items go into d (interned: ids may differ from the records'). */
struct snap_reader {
	const uint8_t *p;
	size_t len, off;
	struct dict *d;                 /* borrowed */
	uint32_t *map[DICT_KINDS];      /* record id -> d id */
	size_t nr[DICT_KINDS], cap[DICT_KINDS];
	struct bucket_entry *entries;   /* the last BUCKET's, by d's ids */
	size_t nr_entries, cap_entries;
	char msg[160];                  /* why reading stopped */
};

struct snap_record {
	enum snap_type type;
	const char *text;               /* SEG, META: not NUL-terminated */
	size_t len;
	struct bucket_hdr bucket;       /* BUCKET: entries in r->entries */
};

void snap_reader__init(struct snap_reader *r, const void *p, size_t len, struct dict *d);
void snap_reader__release(struct snap_reader *r);

/*
 * The next record: 1 with *ret filled (items are already in d), 0 at the end of the
 * bytes, -EBADMSG (r->msg says what, r->off is where the bad record starts) or
 * -ENOMEM.  A record cut short at the end is -EBADMSG too (a torn tail).
 */
int snapshot__next(struct snap_reader *r, struct snap_record *ret);

/* "key value" lines: the value of key in text, copied NUL-terminated; false if absent. */
bool snapshot__text_value(const char *text, size_t len, const char *key, char *buf, size_t buflen);

#endif
