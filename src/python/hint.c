/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Samples of Python processes recorded without --call-graph dwarf: see
 * include/prof/python/hint.h.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "prof/base/hash.h"
#include "prof/base/hashtable.h"
#include "prof/python/hint.h"

struct python_hint {
	const struct sample_layout *layout;
	struct hashtable pids;          /* int32_t: processes that map an interpreter */
	struct python_hint_stats st;
};

static bool pid_eq(const void *e, const void *key, const void *ctx)
{
	return *(const int32_t *)e == *(const int32_t *)key;
}

struct python_hint *python_hint__new(const struct sample_layout *layout)
{
	struct python_hint *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->layout = layout;
	hashtable__init(&h->pids, sizeof(int32_t), pid_eq, NULL);
	return h;
}

struct python_hint *python_hint__free(struct python_hint *h)
{
	if (h) {
		hashtable__release(&h->pids);
		free(h);
	}
	return NULL;
}

/* Is base (a file name without its directory) CPython's: python3.N[suffix] or
 * libpython3.N[suffix].so[.V]? */
static bool interpreter_name(const char *base, size_t len)
{
	size_t at = 0;

	if (len > 3 && !strncmp(base, "lib", 3))
		at = 3;
	if (len < at + 8 || strncmp(base + at, "python3.", 8) != 0)
		return false;
	at += 8;
	if (at >= len || base[at] < '0' || base[at] > '9')
		return false;
	while (at < len && base[at] >= '0' && base[at] <= '9')
		at++;
	/* python3.11, python3.11d, libpython3.11.so.1.0, libpython3.11d.so */
	return at == len || strchr("dmt.", base[at]) != NULL;
}

void python_hint__note(struct python_hint *h, const struct perf_event_header *ev)
{
	int32_t pid, tid;
	bool created;

	if (ev->type == PERF_RECORD_SAMPLE) {
		if (hashtable__size(&h->pids) && sample_layout__tid(h->layout, ev, &pid, &tid) &&
		    hashtable__find(&h->pids, hash__u64((uint32_t)pid), &pid))
			h->st.samples++;
		return;
	}
	if (ev->type == PERF_RECORD_COMM && (ev->misc & PERF_RECORD_MISC_COMM_EXEC) &&
	    ev->size >= sizeof(struct perf_record_comm)) {
		pid = (int32_t)((const struct perf_record_comm *)(const void *)ev)->pid;
		hashtable__remove(&h->pids, hash__u64((uint32_t)pid), &pid);
		return;
	}
	if (ev->type == PERF_RECORD_MMAP2 && ev->size > offsetof(struct perf_record_mmap2, filename)) {
		const struct perf_record_mmap2 *m = (const void *)ev;
		size_t max = ev->size - offsetof(struct perf_record_mmap2, filename);
		size_t len = strnlen(m->filename, max);
		const char *base = memrchr(m->filename, '/', len);

		int32_t *e;

		base = base ? base + 1 : m->filename;
		len -= (size_t)(base - m->filename);
		if (!(m->prot & PROT_EXEC) || !interpreter_name(base, len))
			return;
		pid = (int32_t)m->pid;
		e = hashtable__insert(&h->pids, hash__u64((uint32_t)pid), &pid, &created);
		if (!e || !created)
			return;
		*e = pid;
		h->st.processes++;
		if (!h->st.name[0])
			snprintf(h->st.name, sizeof(h->st.name), "%.*s", (int)len, base);
	}
}

const struct python_hint_stats *python_hint__stats(const struct python_hint *h)
{
	return &h->st;
}
