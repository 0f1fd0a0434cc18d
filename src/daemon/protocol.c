/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof/base/util.h"
#include "prof/daemon/protocol.h"

/* ---- requests ------------------------------------------------------------------------ */

int protocol__request_len(const uint8_t hdr[PROTOCOL_REQUEST_HDR], char *err, size_t errlen)
{
	uint32_t len;

	if (memcmp(hdr, "PRQ", 3)) {
		errorf(err, errlen, "not a profd request (it starts with \"PRQ1\" and a length)");
		return -EINVAL;
	}
	if (hdr[3] != '0' + PROTOCOL_VERSION) {
		errorf(err, errlen, "protocol version %c is not spoken here: this profd speaks version %d", hdr[3],
		       PROTOCOL_VERSION);
		return -EPROTONOSUPPORT;
	}
	memcpy(&len, hdr + 4, 4);
	if (len > PROTOCOL_MAX_REQUEST) {
		errorf(err, errlen, "request too large (%u > %d bytes)", len, PROTOCOL_MAX_REQUEST);
		return -E2BIG;
	}
	return (int)len;
}

static int parse_num(const char *key, const char *v, uint64_t min, uint64_t max, uint64_t *ret, char *err,
		     size_t errlen)
{
	if (parse_u64(v, 10, ret) < 0 || *ret < min || *ret > max) {
		errorf(err, errlen, "bad %s '%.64s' (a number from %" PRIu64 " to %" PRIu64 ")", key, v, min, max);
		return -EINVAL;
	}
	return 0;
}

/* A selector of kind name: appended to v (at most VIEW_MAX_SELECTORS). */
static int add_selector(const char **v, size_t *nr, const char *name, const char *value, char *err, size_t errlen)
{
	if (*nr >= VIEW_MAX_SELECTORS) {
		errorf(err, errlen, "more than %d %s selectors", VIEW_MAX_SELECTORS, name);
		return -EINVAL;
	}
	if (!value[0] || (!strcmp(name, "cgroup") && value[0] != '/')) {
		errorf(err, errlen, "bad %s '%.64s'%s", name, value, value[0] ? " (a path from the cgroup2 root, /...)" : "");
		return -EINVAL;
	}
	v[(*nr)++] = value;
	return 0;
}

static int scalar(struct protocol_request *r, const char *key, const char *v, unsigned int *seen, char *err,
		  size_t errlen)
{
	static const char *const keys[] = { "op", "from", "until", "since", "max_stacks", "off_cpu" };
	uint64_t x;
	unsigned int bit = 0;
	int e = 0;

	while (bit < ARRAY_SIZE(keys) && strcmp(keys[bit], key))
		bit++;
	if (bit == ARRAY_SIZE(keys))
		return errorf(err, errlen, "unknown request key '%.64s'", key);
	if (*seen & (1u << bit))
		return errorf(err, errlen, "request key '%s' given twice", key);
	*seen |= 1u << bit;
	if (bit == 0) {
		r->op = !strcmp(v, "query") ? PROTOCOL_QUERY : !strcmp(v, "status") ? PROTOCOL_STATUS : 0;
		return r->op ? 0 : errorf(err, errlen, "unknown op '%.64s' (query or status)", v);
	}
	if (bit == 4) {
		e = parse_num(key, v, 1, 10000000, &x, err, errlen);
		r->q.max_stacks = (size_t)x;
		return e;
	}
	if (bit == 5) {
		e = parse_num(key, v, 0, 1, &x, err, errlen);
		r->q.off_cpu = x;
		return e;
	}
	e = parse_num(key, v, 0, UINT64_MAX - 1, &x, err, errlen);
	if (bit == 1)
		r->q.from = x;
	else if (bit == 2)
		r->q.until = x, r->has_until = true;
	else
		r->since = x, r->has_since = true;
	return e;
}

static int parse_line(struct protocol_request *r, char *line, unsigned int *seen, char *err, size_t errlen)
{
	char *eq = strchr(line, '=');
	const char *v;
	uint64_t u;

	if (!eq)
		return errorf(err, errlen, "request line without '=': '%.64s'", line);
	*eq = '\0';
	v = eq + 1;
	if (!strcmp(line, "uid")) {
		if (r->q.nr_uids >= VIEW_MAX_SELECTORS)
			return errorf(err, errlen, "more than %d uid selectors", VIEW_MAX_SELECTORS);
		if (parse_num("uid", v, 0, UINT32_MAX - 1, &u, err, errlen) < 0)
			return -EINVAL;
		r->q.uids[r->q.nr_uids++] = (uint32_t)u;
		return 0;
	}
	if (!strcmp(line, "cgroup"))
		return add_selector(r->q.cgroups, &r->q.nr_cgroups, "cgroup", v, err, errlen);
	if (!strcmp(line, "comm"))
		return add_selector(r->q.comms, &r->q.nr_comms, "comm", v, err, errlen);
	if (!strcmp(line, "container"))
		return add_selector(r->q.containers, &r->q.nr_containers, "container", v, err, errlen);
	return scalar(r, line, v, seen, err, errlen);
}

int protocol__parse_request(const uint8_t *body, size_t len, struct protocol_request *ret, char *err,
			    size_t errlen)
{
	unsigned int seen = 0;
	char *p;
	int e;

	memset(ret, 0, offsetof(struct protocol_request, text));
	if (len > PROTOCOL_MAX_REQUEST)
		return errorf(err, errlen, "request too large (%zu > %d bytes)", len, PROTOCOL_MAX_REQUEST);
	if (memchr(body, '\0', len))
		return errorf(err, errlen, "request holds a NUL byte");
	memcpy(ret->text, body, len);
	ret->text[len] = '\0';
	for (p = ret->text; *p;) {
		char *nl = strchrnul(p, '\n'), *next = *nl ? nl + 1 : nl;

		*nl = '\0';
		if (*p) {
			e = parse_line(ret, p, &seen, err, errlen);
			if (e < 0)
				return e;
		}
		p = next;
	}
	if (!ret->op)
		return errorf(err, errlen, "request without op (op=query or op=status)");
	if (ret->has_since && (seen & 2))
		return errorf(err, errlen, "request with both since and from");
	return 0;
}

static void put_line(struct snap_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put_line(struct snap_out *o, const char *fmt, ...)
{
	char line[PROTOCOL_MAX_REQUEST];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(line)) {
		o->err = o->err ? o->err : -E2BIG;
		return;
	}
	snapshot__put_raw(o, line, (size_t)n);
}

void protocol__put_request(struct snap_out *o, const struct protocol_request *r)
{
	size_t at = o->len;
	uint32_t len;
	const struct view_query *q = &r->q;

	snapshot__put_raw(o, PROTOCOL_REQUEST_MAGIC "\0\0\0\0", PROTOCOL_REQUEST_HDR);
	put_line(o, "op=%s\n", r->op == PROTOCOL_STATUS ? "status" : "query");
	if (r->has_since)
		put_line(o, "since=%" PRIu64 "\n", r->since);
	else if (q->from)
		put_line(o, "from=%" PRIu64 "\n", q->from);
	if (r->has_until)
		put_line(o, "until=%" PRIu64 "\n", q->until);
	for (size_t i = 0; i < q->nr_uids; i++)
		put_line(o, "uid=%u\n", q->uids[i]);
	for (size_t i = 0; i < q->nr_cgroups; i++)
		put_line(o, "cgroup=%s\n", q->cgroups[i]);
	for (size_t i = 0; i < q->nr_comms; i++)
		put_line(o, "comm=%s\n", q->comms[i]);
	for (size_t i = 0; i < q->nr_containers; i++)
		put_line(o, "container=%s\n", q->containers[i]);
	if (q->max_stacks)
		put_line(o, "max_stacks=%zu\n", q->max_stacks);
	if (q->off_cpu)
		put_line(o, "off_cpu=1\n");
	if (o->err)
		return;
	len = (uint32_t)(o->len - at - PROTOCOL_REQUEST_HDR);
	if (len > PROTOCOL_MAX_REQUEST)
		o->err = -E2BIG;
	memcpy(o->p + at + 4, &len, 4);
}

/* ---- responses ----------------------------------------------------------------------- */

void protocol__put_response_hdr(struct snap_out *o, int status, uint64_t len)
{
	int32_t st = status;

	snapshot__put_raw(o, PROTOCOL_RESPONSE_MAGIC, 4);
	snapshot__put_raw(o, &st, 4);
	snapshot__put_raw(o, &len, 8);
}

void protocol__put_error(struct snap_out *o, int status, const char *msg)
{
	size_t n = strnlen(msg, PROTOCOL_MAX_ERROR);

	protocol__put_response_hdr(o, status, n);
	snapshot__put_raw(o, msg, n);
}

int protocol__response_hdr(const uint8_t hdr[PROTOCOL_RESPONSE_HDR], int *ret_status, uint64_t *ret_len)
{
	int32_t st;

	if (memcmp(hdr, PROTOCOL_RESPONSE_MAGIC, 4))
		return -EINVAL;
	memcpy(&st, hdr + 4, 4);
	memcpy(ret_len, hdr + 8, 8);
	*ret_status = st;
	return 0;
}
