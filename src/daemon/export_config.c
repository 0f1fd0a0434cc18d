/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof/base/util.h"
#include "prof/daemon/export_config.h"

void export_config__defaults(struct export_config *c)
{
	*c = (struct export_config){ .pull_max_connections = 16, .pull_timeout = 30, .pull_max_builds = 2,
				     .push_timeout = 10, .push_connect_timeout = 3, .push_backoff_max = 60,
				     .push_queue = 360 };
	strcpy(c->push_app, "prof.cpu");
}

static int copy_to(char *dst, size_t size, const char *v)
{
	size_t n = strlen(v);

	if (n >= size)
		return -EINVAL;
	memcpy(dst, v, n + 1);
	return 0;
}

static int uint_in(const char *v, uint64_t lo, uint64_t hi, uint64_t *ret)
{
	return parse_u64(v, 10, ret) < 0 || *ret < lo || *ret > hi ? -EINVAL : 0;
}

int export_config__listen_addr(const char *listen, struct sockaddr_storage *ret, size_t *ret_len,
			       bool *ret_loopback)
{
	char host[64];
	const char *colon = strrchr(listen, ':');
	uint64_t port;
	struct sockaddr_in *in4 = (struct sockaddr_in *)ret;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ret;
	size_t n;

	memset(ret, 0, sizeof(*ret));
	if (!colon) {
		snprintf(host, sizeof(host), "127.0.0.1");
		colon = listen - 1;
	} else {
		n = (size_t)(colon - listen);
		if (n >= sizeof(host))
			return -EINVAL;
		memcpy(host, listen, n);
		host[n] = '\0';
	}
	if (uint_in(colon + 1, 0, 65535, &port) < 0)
		return -EINVAL;
	n = strlen(host);
	if (n >= 2 && host[0] == '[' && host[n - 1] == ']') {
		host[n - 1] = '\0';
		if (inet_pton(AF_INET6, host + 1, &in6->sin6_addr) != 1)
			return -EINVAL;
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		*ret_len = sizeof(*in6);
		*ret_loopback = IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr);
		return 0;
	}
	if (inet_pton(AF_INET, host, &in4->sin_addr) != 1)
		return -EINVAL;
	in4->sin_family = AF_INET;
	in4->sin_port = htons((uint16_t)port);
	*ret_len = sizeof(*in4);
	*ret_loopback = (ntohl(in4->sin_addr.s_addr) >> 24) == 127;
	return 0;
}

bool export_config__org_valid(const char *org)
{
	size_t n = strlen(org);

	if (!n || n > EXPORT_MAX_ORG || !strcmp(org, ".") || !strcmp(org, ".."))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((org[i] >= 'a' && org[i] <= 'z') || (org[i] >= 'A' && org[i] <= 'Z') ||
		      (org[i] >= '0' && org[i] <= '9') || strchr("!-_.*'()", org[i])))
			return false;
	return true;
}

/* An org template: valid with %u and %i standing for a valid name. */
static bool org_template_valid(const char *org)
{
	char t[EXPORT_MAX_ORG + 1];
	size_t o = 0;

	for (const char *p = org; *p; p++) {
		if (o >= sizeof(t) - 1)
			return false;
		if (p[0] == '%' && (p[1] == 'u' || p[1] == 'i')) {
			t[o++] = 'x';
			p++;
		} else {
			t[o++] = *p;
		}
	}
	t[o] = '\0';
	return export_config__org_valid(t);
}

static int set_tenant(struct export_config *c, const char *value, char *msg, size_t msglen)
{
	const char *sp = strpbrk(value, " \t");
	struct export_tenant t = { 0 };
	size_t n;

	if (!sp)
		return errorf(msg, msglen, "bad push_tenant '%s' (KEY ORG: KEY a user, @group, #uid or *)", value);
	n = (size_t)(sp - value);
	while (*sp == ' ' || *sp == '\t')
		sp++;
	if (!n || n >= sizeof(t.key) || copy_to(t.org, sizeof(t.org), sp) < 0 || !org_template_valid(t.org))
		return errorf(msg, msglen, "bad push_tenant '%s' (KEY ORG: ORG at most %d bytes of A-Z a-z 0-9 "
			      "!-_.*'(), with %%u for the user's name and %%i for the uid)", value, EXPORT_MAX_ORG);
	memcpy(t.key, value, n);
	if (c->nr_tenants >= EXPORT_MAX_TENANTS)
		return errorf(msg, msglen, "too many push_tenant lines (at most %d)", EXPORT_MAX_TENANTS);
	c->tenants[c->nr_tenants++] = t;
	return 1;
}

static bool app_valid(const char *app)
{
	if (!app[0])
		return false;
	for (const char *p = app; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      strchr("_.-/", *p)))
			return false;
	return true;
}

/* The numeric keys: where each goes, its bounds, what a bad value is told. */
static const struct num_key {
	const char *name;
	size_t off;
	uint64_t min, max;
	const char *what;
} num_keys[] = {
#define NK(n, lo, hi, w) { #n, offsetof(struct export_config, n), lo, hi, w }
	NK(pull_max_connections, 1, 1024, "connections, 1 to 1024"),
	NK(pull_timeout, 1, 3600, "seconds, 1 to 3600"),
	NK(pull_max_builds, 1, 16, "answers built at once, 1 to 16"),
	NK(push_timeout, 1, 600, "seconds, 1 to 600"),
	NK(push_connect_timeout, 1, 600, "seconds, 1 to 600"),
	NK(push_backoff_max, 1, 3600, "seconds, 1 to 3600"),
	NK(push_queue, 1, 100000, "buckets, 1 to 100000"),
#undef NK
};

int export_config__set(struct export_config *c, const char *name, const char *value, char *msg, size_t msglen)
{
	struct sockaddr_storage ss;
	size_t len;
	bool lo;
	uint64_t u;

	if (strncmp(name, "pull_", 5) && strncmp(name, "push_", 5))
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(num_keys); i++) {
		if (strcmp(name, num_keys[i].name))
			continue;
		if (uint_in(value, num_keys[i].min, num_keys[i].max, &u) < 0)
			return errorf(msg, msglen, "bad %s '%s' (%s)", name, value, num_keys[i].what);
		memcpy((char *)c + num_keys[i].off, &u, sizeof(u));
		return 1;
	}
	if (!strcmp(name, "pull_listen")) {
		if (value[0] && (copy_to(c->pull_listen, sizeof(c->pull_listen), value) < 0 ||
				 export_config__listen_addr(value, &ss, &len, &lo) < 0))
			return errorf(msg, msglen, "bad pull_listen '%s' (PORT for 127.0.0.1:PORT, or ADDR:PORT, "
				      "[ADDR6]:PORT; empty: off)", value);
		c->pull_listen[0] = value[0] ? c->pull_listen[0] : '\0';
		return 1;
	}
	if (!strcmp(name, "pull_token_file")) {
		if (value[0] && (value[0] != '/' || copy_to(c->pull_token_file, sizeof(c->pull_token_file), value) < 0))
			return errorf(msg, msglen, "bad pull_token_file '%s' (an absolute path)", value);
		c->pull_token_file[0] = value[0] ? c->pull_token_file[0] : '\0';
		return 1;
	}
	if (!strcmp(name, "push_url")) {
		if (value[0] && ((strncmp(value, "http://", 7) && strncmp(value, "https://", 8)) ||
				 strpbrk(value, "?# \t") || copy_to(c->push_url, sizeof(c->push_url), value) < 0))
			return errorf(msg, msglen, "bad push_url '%s' (http://HOST[:PORT][/PATH] or https://...: the "
				      "server's root, /ingest is added)", value);
		c->push_url[0] = value[0] ? c->push_url[0] : '\0';
		return 1;
	}
	if (!strcmp(name, "push_app")) {
		if (!app_valid(value) || copy_to(c->push_app, sizeof(c->push_app), value) < 0)
			return errorf(msg, msglen, "bad push_app '%s' (A-Z a-z 0-9 _ . - /, at most %zu bytes)", value,
				      sizeof(c->push_app) - 1);
		return 1;
	}
	if (!strcmp(name, "push_tenant"))
		return set_tenant(c, value, msg, msglen);
	return errorf(msg, msglen, "unknown key '%s' in [daemon]", name);
}

int export_config__check(const struct export_config *c, char *msg, size_t msglen)
{
	struct sockaddr_storage ss;
	size_t len;
	bool lo = true;

	if (c->pull_listen[0] && export_config__listen_addr(c->pull_listen, &ss, &len, &lo) == 0 && !lo &&
	    !c->pull_token_file[0])
		return errorf(msg, msglen, "pull_listen %s is not a loopback address: set pull_token_file too (every "
			      "tenant's profiles would be open to the network)", c->pull_listen);
	if (c->push_connect_timeout > c->push_timeout)
		return errorf(msg, msglen, "push_connect_timeout (%" PRIu64 ") is longer than push_timeout (%" PRIu64 ")",
			      c->push_connect_timeout, c->push_timeout);
	return 0;
}
