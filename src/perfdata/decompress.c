/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "prof/perfdata/decompress.h"
#include "prof/base/util.h"

#define IN_CAP 65536u                   /* a record's header.size is 16 bits */
#define OUT_CAP (1u << 20)              /* decompressed bytes held at once: > 2 records */
#define WINDOW_LOG_MAX 27               /* zstd's default limit, level 22's window */

struct decompress {
	ZSTD_DStream *ds;
	uint64_t record_cap;
	uint64_t rec_out;               /* what the current payload gave so far */
	uint64_t total_in, total_out;
	uint64_t position;              /* stream offset of out[out_pos] */
	uint64_t last;                  /* ... of the record last returned */
	size_t in_len, in_pos;
	size_t out_len, out_pos;
	bool maybe_more;                /* the last call filled the output: zstd may hold more */
	const char *why;
	uint64_t scratch[65536 / 8];    /* a record after an odd-sized one, aligned */
	uint64_t in[IN_CAP / 8];
	uint64_t out[OUT_CAP / 8];
};

struct decompress *decompress__new(uint64_t record_cap)
{
	struct decompress *z = calloc(1, sizeof(*z));

	if (!z)
		return NULL;
	z->ds = ZSTD_createDStream();
	if (!z->ds || ZSTD_isError(ZSTD_initDStream(z->ds)) ||
	    ZSTD_isError(ZSTD_DCtx_setParameter(z->ds, ZSTD_d_windowLogMax, WINDOW_LOG_MAX)))
		return decompress__free(z);
	z->record_cap = record_cap;
	return z;
}

struct decompress *decompress__free(struct decompress *z)
{
	if (z) {
		ZSTD_freeDStream(z->ds);
		free(z);
	}
	return NULL;
}

int decompress__feed(struct decompress *z, const void *src, size_t len)
{
	if (len > IN_CAP)
		return -E2BIG;
	if (z->in_pos < z->in_len || z->maybe_more)
		return -EBUSY;
	memcpy(z->in, src, len);
	z->in_len = len;
	z->in_pos = 0;
	z->rec_out = 0;
	z->total_in += len;
	return 0;
}

/*
 * Decompress more of the current payload after what is left of a record begun:
 * 1 when it made progress, 0 when the payload is used up, -errno on the bounds.
 */
static int refill(struct decompress *z)
{
	size_t rem = z->out_len - z->out_pos, produced, taken;
	uint8_t *out = (uint8_t *)z->out;
	ZSTD_inBuffer in = { z->in, z->in_len, z->in_pos };
	ZSTD_outBuffer o = { out, OUT_CAP, rem };
	size_t ret;

	if (z->in_pos == z->in_len && !z->maybe_more)
		return 0;
	memmove(out, out + z->out_pos, rem);
	z->out_pos = 0;
	ret = ZSTD_decompressStream(z->ds, &o, &in);
	if (ZSTD_isError(ret)) {
		z->why = ZSTD_getErrorName(ret);
		return -EBADMSG;
	}
	produced = o.pos - rem;
	taken = in.pos - z->in_pos;
	z->in_pos = in.pos;
	z->out_len = o.pos;
	z->maybe_more = o.pos == o.size;
	z->rec_out += produced;
	z->total_out += produced;
	if (z->record_cap && z->rec_out > z->record_cap)
		return -E2BIG;
	if (z->total_out > z->total_in * DECOMPRESS_MAX_RATIO + DECOMPRESS_SLACK)
		return -EOVERFLOW;
	if (produced || taken)
		return 1;
	/* no progress with room on both sides: zstd wants the next payload */
	z->maybe_more = false;
	if (z->in_pos < z->in_len) {
		z->why = "the decoder made no progress";
		return -EBADMSG;
	}
	return 0;
}

int decompress__next(struct decompress *z, const struct perf_event_header **ret)
{
	for (;;) {
		size_t avail = z->out_len - z->out_pos;
		struct perf_event_header h;
		const uint8_t *p = (const uint8_t *)z->out + z->out_pos;
		int n;

		if (avail >= sizeof(h)) {
			memcpy(&h, p, sizeof(h));
			if (h.size < sizeof(h) || h.size <= avail) {
				size_t take = MAX(h.size, sizeof(h));

				if ((uintptr_t)p % 8) {
					memcpy(z->scratch, p, take);
					p = (const uint8_t *)z->scratch;
				}
				*ret = (const void *)p;
				z->last = z->position;
				z->position += take;
				z->out_pos += take;
				return 1;
			}
		}
		n = refill(z);
		if (n <= 0)
			return n;
	}
}

size_t decompress__pending(const struct decompress *z)
{
	return z->out_len - z->out_pos;
}

uint64_t decompress__position(const struct decompress *z)
{
	return z->last;
}

void decompress__totals(const struct decompress *z, uint64_t *ret_in, uint64_t *ret_out)
{
	*ret_in = z->total_in;
	*ret_out = z->total_out;
}

const char *decompress__why(const struct decompress *z)
{
	return z->why ? z->why : "";
}
