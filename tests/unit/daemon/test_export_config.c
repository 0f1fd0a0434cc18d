/* SPDX-License-Identifier: GPL-2.0-or-later */
/* profd's export keys in prof.conf's [daemon]: defaults (off), every key, each error
 * with file:line, the cross-key rule (a listener off the loopback needs a token),
 * the listener's address forms and the tenant id rules. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <criterion/criterion.h>

#include "prof/cli/config.h"

static struct prof_config c;
static char err[512];

static int parse(const char *text)
{
	config__defaults(&c);
	err[0] = '\0';
	return config__parse(&c, text, "t.conf", true, err, sizeof(err));
}

Test(export_config, off_by_default)
{
	config__defaults(&c);
	cr_assert_str_eq(c.daemon.export.pull_listen, "");
	cr_assert_str_eq(c.daemon.export.push_url, "");
	cr_assert_str_eq(c.daemon.export.push_app, "prof.cpu");
	cr_assert_eq(c.daemon.export.nr_tenants, 0);
	cr_assert_eq(c.daemon.export.push_queue, 360);
}

Test(export_config, every_key)
{
	const struct export_config *x = &c.daemon.export;

	cr_assert_eq(parse("[daemon]\npull_listen = 9099\npull_token_file = /etc/prof/token\npull_max_connections = 8\n"
			   "pull_timeout = 20\npull_max_builds = 3\npush_url = https://pyro.example:4040\n"
			   "push_app = prof.cpu/host-1\npush_timeout = 5\npush_connect_timeout = 2\npush_backoff_max = 30\n"
			   "push_queue = 10\npush_tenant = alice team-a\npush_tenant = @dev team-dev\n"
			   "push_tenant = #1005 t1005\npush_tenant = * u-%u-%i\n"), 0, "%s", err);
	cr_assert_str_eq(x->pull_listen, "9099");
	cr_assert_str_eq(x->pull_token_file, "/etc/prof/token");
	cr_assert_eq(x->pull_max_connections, 8);
	cr_assert_eq(x->pull_timeout, 20);
	cr_assert_eq(x->pull_max_builds, 3);
	cr_assert_str_eq(x->push_url, "https://pyro.example:4040");
	cr_assert_str_eq(x->push_app, "prof.cpu/host-1");
	cr_assert_eq(x->push_timeout, 5);
	cr_assert_eq(x->push_connect_timeout, 2);
	cr_assert_eq(x->push_backoff_max, 30);
	cr_assert_eq(x->push_queue, 10);
	cr_assert_eq(x->nr_tenants, 4);
	cr_assert_str_eq(x->tenants[1].key, "@dev");
	cr_assert_str_eq(x->tenants[1].org, "team-dev");
	cr_assert_str_eq(x->tenants[3].key, "*");
	cr_assert_str_eq(x->tenants[3].org, "u-%u-%i");
}

Test(export_config, errors_name_the_line)
{
	static const struct { const char *text, *msg; } bad[] = {
		{ "[daemon]\n\npull_listen = localhost:80\n", "t.conf:3: bad pull_listen 'localhost:80'" },
		{ "[daemon]\npull_listen = 127.0.0.1:70000\n", "t.conf:2: bad pull_listen" },
		{ "[daemon]\npull_token_file = token\n", "t.conf:2: bad pull_token_file 'token' (an absolute path)" },
		{ "[daemon]\npull_max_builds = 0\n", "t.conf:2: bad pull_max_builds '0' (answers built at once, 1 to 16)" },
		{ "[daemon]\npush_url = ftp://x\n", "t.conf:2: bad push_url 'ftp://x'" },
		{ "[daemon]\npush_url = http://x/?a=1\n", "t.conf:2: bad push_url" },
		{ "[daemon]\npush_app = a{b}\n", "t.conf:2: bad push_app 'a{b}'" },
		{ "[daemon]\npush_tenant = alice\n", "t.conf:2: bad push_tenant 'alice' (KEY ORG" },
		{ "[daemon]\npush_tenant = alice team/a\n", "t.conf:2: bad push_tenant 'alice team/a'" },
		{ "[daemon]\npush_tenant = alice ..\n", "t.conf:2: bad push_tenant" },
		{ "[daemon]\npush_queue = 0\n", "t.conf:2: bad push_queue '0'" },
		{ "[daemon]\npull_bogus = 1\n", "t.conf:2: unknown key 'pull_bogus' in [daemon]" },
		{ "[daemon]\npull_listen = 0.0.0.0:9099\n", "t.conf: [daemon]: pull_listen 0.0.0.0:9099 is not a loopback "
							    "address: set pull_token_file too" },
		{ "[daemon]\npush_timeout = 2\npush_connect_timeout = 3\n", "t.conf: [daemon]: push_connect_timeout (3) is "
									    "longer than push_timeout (2)" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_expect_eq(parse(bad[i].text), -EINVAL, "%s", bad[i].text);
		cr_expect(strstr(err, bad[i].msg), "%s: got '%s'", bad[i].text, err);
	}
	/* off the loopback with a token is fine; so is [::1] */
	cr_expect_eq(parse("[daemon]\npull_listen = 0.0.0.0:9099\npull_token_file = /t\n"), 0, "%s", err);
	cr_expect_eq(parse("[daemon]\npull_listen = [::1]:9099\n"), 0, "%s", err);
	/* a user's file sets no [daemon] key */
	config__defaults(&c);
	cr_expect_eq(config__parse(&c, "[daemon]\npush_url = http://x\n", "u.conf", false, err, sizeof(err)), -EINVAL);
}

Test(export_config, listen_addresses)
{
	struct sockaddr_storage ss;
	size_t len;
	bool lo;

	cr_assert_eq(export_config__listen_addr("9099", &ss, &len, &lo), 0);
	cr_expect(lo && ss.ss_family == AF_INET && ntohs(((struct sockaddr_in *)&ss)->sin_port) == 9099);
	cr_expect_eq(ntohl(((struct sockaddr_in *)&ss)->sin_addr.s_addr), 0x7f000001u, "a bare port is the loopback");
	cr_assert_eq(export_config__listen_addr("10.1.2.3:0", &ss, &len, &lo), 0);
	cr_expect_not(lo);
	cr_assert_eq(export_config__listen_addr("[::1]:80", &ss, &len, &lo), 0);
	cr_expect(lo && ss.ss_family == AF_INET6 && len == sizeof(struct sockaddr_in6));
	cr_expect_eq(export_config__listen_addr("[::]:80", &ss, &len, &lo), 0);
	cr_expect_not(lo);
	cr_expect_eq(export_config__listen_addr("host:80", &ss, &len, &lo), -EINVAL);
	cr_expect_eq(export_config__listen_addr("1.2.3.4:", &ss, &len, &lo), -EINVAL);
	cr_expect_eq(export_config__listen_addr("1.2.3.4:-1", &ss, &len, &lo), -EINVAL);
}

Test(export_config, org_ids)
{
	char long_id[200];

	memset(long_id, 'a', 151);
	long_id[151] = '\0';
	cr_expect(export_config__org_valid("team-a_1.x*'()!"));
	cr_expect_not(export_config__org_valid(""));
	cr_expect_not(export_config__org_valid("."));
	cr_expect_not(export_config__org_valid(".."));
	cr_expect_not(export_config__org_valid("a b"));
	cr_expect_not(export_config__org_valid("a/b"));
	cr_expect_not(export_config__org_valid(long_id));
	long_id[150] = '\0';
	cr_expect(export_config__org_valid(long_id));
}
