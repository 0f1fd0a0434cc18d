/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof/base/util.h"
#include "prof/daemon/answer.h"

static size_t meta_text(const struct answer_meta *m, char *buf, size_t len)
{
	int n = snprintf(buf, len,
			 "version 1\nasked_from %" PRIu64 "\nasked_until %" PRIu64 "\nevent %s\nfreq %" PRIu64
			 "\nperiod %" PRIu64 "\nevent_type %u\nevent_config %" PRIu64 "\ncallchain %d\nhost %s\n"
			 "osrelease %s\nuid %u\nadmin %d\nkernel %d\nbucket_ns %" PRIu64 "\nfine_ns %" PRIu64
			 "\nhistory_from %" PRIu64 "\nevicted_before %" PRIu64 "\ncoarse %" PRIu64 "\nfine %" PRIu64 "\n"
			 "off_cpu %d\n",
			 m->asked_from, m->asked_until, m->event, m->freq, m->period, m->event_type, m->event_config,
			 m->callchain, m->host, m->osrelease, m->uid, m->admin, m->kernel, m->bucket_ns, m->fine_ns,
			 m->history_from, m->evicted_before, m->coarse, m->fine, m->off_cpu);

	return n < 0 ? 0 : MIN((size_t)n, len - 1);
}

void answer__put(struct snap_out *o, const struct answer_meta *m, const struct view_answer *a)
{
	struct snap_cursor c = { 0 };
	struct bucket_hdr h = { .start_ns = a->from, .end_ns = a->until, .flags = a->flags, .c = a->c };
	char text[2048];

	snapshot__put_text(o, SNAP_META, text, meta_text(m, text, sizeof(text)));
	snapshot__put_items(o, a->dict, &c);
	snapshot__put_bucket(o, &h, a->entries.e, a->entries.nr);
	snapshot__put_end(o);
}

static uint64_t num(const char *text, size_t len, const char *key)
{
	char v[32];

	return snapshot__text_value(text, len, key, v, sizeof(v)) ? strtoull(v, NULL, 10) : 0;
}

static void read_meta(const char *t, size_t len, struct answer_meta *m)
{
	snapshot__text_value(t, len, "event", m->event, sizeof(m->event));
	snapshot__text_value(t, len, "host", m->host, sizeof(m->host));
	snapshot__text_value(t, len, "osrelease", m->osrelease, sizeof(m->osrelease));
	m->asked_from = num(t, len, "asked_from");
	m->asked_until = num(t, len, "asked_until");
	m->freq = num(t, len, "freq");
	m->period = num(t, len, "period");
	m->event_type = (uint32_t)num(t, len, "event_type");
	m->event_config = num(t, len, "event_config");
	m->callchain = num(t, len, "callchain");
	m->uid = (uint32_t)num(t, len, "uid");
	m->admin = num(t, len, "admin");
	m->kernel = num(t, len, "kernel");
	m->bucket_ns = num(t, len, "bucket_ns");
	m->fine_ns = num(t, len, "fine_ns");
	m->history_from = num(t, len, "history_from");
	m->evicted_before = num(t, len, "evicted_before");
	m->coarse = num(t, len, "coarse");
	m->fine = num(t, len, "fine");
	m->off_cpu = num(t, len, "off_cpu");
}

int answer__read(const uint8_t *body, size_t len, struct answer *ret, char *err, size_t errlen)
{
	struct snap_reader r;
	struct snap_record rec;
	bool meta = false, bucket = false, done = false;
	int n;

	*ret = (struct answer){ .dict = dict__new() };
	if (!ret->dict) {
		errorf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	snap_reader__init(&r, body, len, ret->dict);
	while (!done && (n = snapshot__next(&r, &rec)) > 0) {
		if (rec.type == SNAP_META && !meta) {
			read_meta(rec.text, rec.len, &ret->m);
			meta = true;
		} else if (rec.type == SNAP_BUCKET && meta && !bucket) {
			ret->window = rec.bucket;
			ret->e = r.entries;             /* taken over from the reader */
			ret->nr = r.nr_entries;
			r.entries = NULL;
			r.cap_entries = 0;
			bucket = true;
		} else if (rec.type == SNAP_END && bucket) {
			done = true;
		} else if (rec.type < SNAP_STR || rec.type > SNAP_TASK) {
			n = -EBADMSG;
			snprintf(r.msg, sizeof(r.msg), "record of type %d out of place", (int)rec.type);
			break;
		}
	}
	if (n >= 0 && !done) {
		n = -EBADMSG;
		snprintf(r.msg, sizeof(r.msg), "the answer ends early (no END record)");
	}
	if (n < 0)
		errorf(err, errlen, "%s at offset %zu of the answer", n == -ENOMEM ? "out of memory" : r.msg, r.off);
	snap_reader__release(&r);
	return n < 0 ? n : 0;
}

void answer__release(struct answer *a)
{
	a->dict = dict__free(a->dict);
	free(a->e);
	a->e = NULL;
	a->nr = 0;
}
