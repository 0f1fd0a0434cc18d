/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <string.h>

#include "prof/scope/creds.h"

bool creds__argument(const struct sample_layout *l, int uid_off, const struct perf_event_header *ev,
		     uint32_t *ret_uid)
{
	const uint8_t *raw = (const uint8_t *)ev + l->fixed_size + 4;
	uint32_t size;
	uint64_t v;

	/* PERF_SAMPLE_RAW follows the fixed fields: a u32 size, then the data */
	if (ev->size < l->fixed_size + 4)
		return false;
	memcpy(&size, (const char *)ev + l->fixed_size, 4);
	if (l->fixed_size + 4 + (size_t)size > ev->size)
		return false;
	/* the tracepoint's fields are 8 bytes wide (syscall arguments are longs) */
	if (uid_off < 0 || (size_t)uid_off + 8 > size)
		return false;
	memcpy(&v, raw + uid_off, 8);
	*ret_uid = (uint32_t)v;
	return true;
}

enum creds_outcome creds__outcome(enum creds_call call, uint32_t arg, bool uid_known, uint32_t uid,
				  uint32_t *ret_uid)
{
	if (call != CREDS_SETUID) {
		if (arg == CREDS_UNCHANGED)
			return CREDS_UID_KEPT;
		*ret_uid = arg;
		return CREDS_UID_SET;
	}
	if (uid_known && uid == 0) {
		*ret_uid = arg;
		return CREDS_UID_SET;
	}
	return CREDS_UID_UNKNOWN;
}
