/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: the history codec's reader (src/daemon/snapshot.c), what profd
 * reads back from its state directory and prof's clients from its answers.  The
 * input is cut into records (u8 type, u16 length, payload) that are framed with a
 * valid crc32, so the fuzzer reaches the records' parsers instead of stopping at the
 * checksum; the raw input is read as it is too.  Built and run by tests/fuzz/run.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "prof/daemon/dict.h"
#include "prof/daemon/snapshot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void read_all(const uint8_t *p, size_t len)
{
	struct dict *d = dict__new();
	struct snap_reader r;
	struct snap_record rec;
	char value[64];

	if (!d)
		abort();
	snap_reader__init(&r, p, len, d);
	while (snapshot__next(&r, &rec) > 0)
		if (rec.type == SNAP_SEG || rec.type == SNAP_META)
			(void)snapshot__text_value(rec.text, rec.len, "window", value, sizeof(value));
	snap_reader__release(&r);
	dict__free(d);
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *out = malloc(size / 3 * 12 + size + 16), *o = out;
	size_t at = 0;

	if (!out)
		abort();
	while (at + 3 <= size) {
		uint32_t type = data[at] % 12, len = (uint32_t)data[at + 1] | (uint32_t)data[at + 2] << 8;

		at += 3;
		if (len > size - at)
			len = (uint32_t)(size - at);
		put32(o, type);
		put32(o + 4, len);
		memcpy(o + 8, data + at, len);
		put32(o + 8 + len, (uint32_t)crc32(0, o, len + 8));
		o += len + 12;
		at += len;
	}
	read_all(out, (size_t)(o - out));
	read_all(data, size);
	free(out);
	return 0;
}
