/* SPDX-License-Identifier: GPL-2.0-or-later */
/* prof.conf: every key, every error class with file:line. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prof/cli/config.h"

static struct prof_config c;
static char err[512];

static int parse(const char *text, bool policy)
{
	config__defaults(&c);
	err[0] = '\0';
	return config__parse(&c, text, "test.conf", policy, err, sizeof(err));
}

Test(config, defaults)
{
	config__defaults(&c);
	cr_assert_eq(c.freq, 4000);
	cr_assert_eq(c.mmap_pages, 0);  /* unset: sized to the rate (record_opts__auto_pages) */
	cr_assert_str_eq(c.output, "perf.data");
	cr_assert_not(c.callchain);
	cr_assert_not(c.user_kernel);
	cr_assert_str_eq(c.admin_group, "");
	cr_assert_str_eq(c.event, "");
	cr_assert_eq(c.user_max_frequency, 10000);
}

Test(config, every_key)
{
	cr_assert_eq(parse("; comment\n# comment\n[record]\nevent = cpu-clock\nfrequency = 999\n"
			   "callchain = yes\nmmap_pages = 256\noutput = %u-%t.data\n\n"
			   "[aggregate]\nmax_stacks = 5000\n\n"
			   "[policy]\nadmin_group = wheel\nuser_kernel = true\nuser_max_frequency = 2000\n", true),
		     0, "%s", err);
	cr_assert_str_eq(c.event, "cpu-clock");
	cr_assert_eq(c.freq, 999);
	cr_assert(c.callchain);
	cr_assert_eq(c.mmap_pages, 256);
	cr_assert_str_eq(c.output, "%u-%t.data");
	cr_assert_eq(c.max_stacks, 5000);
	cr_assert_str_eq(c.admin_group, "wheel");
	cr_assert(c.user_kernel);
	cr_assert_eq(c.user_max_frequency, 2000);
}

static void expect_error(const char *text, bool policy, const char *where, const char *what)
{
	cr_assert_eq(parse(text, policy), -EINVAL, "accepted: %s", text);
	cr_assert(strstr(err, where), "'%s' lacks '%s'", err, where);
	cr_assert(strstr(err, what), "'%s' lacks '%s'", err, what);
}

Test(config, errors_name_file_and_line)
{
	expect_error("[record]\nfrequency = 10\nnosuch = 1\n", true, "test.conf:3:", "unknown key 'nosuch'");
	expect_error("[record]\nfrequency = fast\n", true, "test.conf:2:", "bad frequency 'fast'");
	expect_error("[record]\nfrequency = -5\n", true, "test.conf:2:", "bad frequency");
	expect_error("[record]\nfrequency = 0\n", true, "test.conf:2:", "bad frequency");
	expect_error("[record]\nmmap_pages = 3\n", true, "test.conf:2:", "power of two");
	expect_error("[record]\ncallchain = maybe\n", true, "test.conf:2:", "bad callchain");
	expect_error("[record]\nevent = nosuch\n", true, "test.conf:2:", "unknown event 'nosuch'");
	expect_error("[aggregate]\nmax_stacks = 0\n", true, "test.conf:2:", "bad max_stacks");
	expect_error("\n\n[weird]\nx = 1\n", true, "test.conf:4:", "unknown section [weird]");
	expect_error("x = 1\n", true, "test.conf:1:", "outside a section");
	expect_error("[record]\nthis is not a key value line\n", true, "test.conf:2:", "syntax");
	expect_error("[policy]\nuser_kernel = perhaps\n", true, "test.conf:2:", "bad user_kernel");
	expect_error("[policy]\nadmins = x\n", true, "test.conf:2:", "unknown key 'admins'");
	expect_error("[policy]\nuser_max_frequency = 0\n", true, "test.conf:2:", "bad user_max_frequency");
	expect_error("[record]\nmmap_pages = 1048576\n", true, "test.conf:2:", "power of two");
}

Test(config, policy_keys_only_in_the_system_file)
{
	expect_error("[policy]\nuser_max_frequency = 100000\n", false, "test.conf:2:", "[policy] may only");
}

Test(config, the_first_error_is_reported)
{
	expect_error("[record]\nfrequency = 1\nbad1 = 1\nbad2 = 2\n", true, "test.conf:3:", "bad1");
}

Test(config, over_long_line)
{
	char text[600];

	snprintf(text, sizeof(text), "[record]\noutput = %0400d\n", 1);
	expect_error(text, true, "test.conf:2:", "longer than");
}

Test(config, policy_only_where_allowed)
{
	expect_error("[policy]\nadmin_group = users\n", false, "test.conf:2:", "system configuration");
	cr_assert_eq(parse("[record]\nfrequency = 10\n", false), 0);
}

Test(config, unsafe_file_refused)
{
	char path[] = "/tmp/prof-test-conf-XXXXXX";
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "[record]\nfrequency = 10\n", 24), 24);
	close(fd);
	config__defaults(&c);
	if (geteuid() == 0) {
		/* root-owned but writable by others */
		chmod(path, 0666);
		cr_assert_eq(config__load(&c, path, true, true, err, sizeof(err)), -EPERM);
		cr_assert(strstr(err, "writable by others"), "%s", err);
		chmod(path, 0644);
		cr_assert_eq(config__load(&c, path, true, true, err, sizeof(err)), 0, "%s", err);
		cr_assert_eq(c.freq, 10);
		/* owned by someone else */
		cr_assert_eq(chown(path, 65534, 0), 0);
		cr_assert_eq(config__load(&c, path, true, true, err, sizeof(err)), -EPERM);
		cr_assert(strstr(err, "not owned by root"), "%s", err);
	} else {
		/* not root: the file is ours, so not root's */
		cr_assert_eq(config__load(&c, path, true, true, err, sizeof(err)), -EPERM);
	}
	/* without the safety rule, the same file is fine */
	cr_assert_eq(config__load(&c, path, true, false, err, sizeof(err)), 0, "%s", err);
	unlink(path);
	cr_assert_eq(config__load(&c, path, true, false, err, sizeof(err)), -ENOENT);
}

Test(config, output_pattern)
{
	char buf[256], host[128];

	cr_assert_eq(config__expand_output("plain.data", buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "plain.data");
	cr_assert_eq(config__expand_output("%h.data", buf, sizeof(buf)), 0);
	gethostname(host, sizeof(host));
	cr_assert(strstr(buf, host) == buf, "%s", buf);
	cr_assert_eq(config__expand_output("a-%t", buf, sizeof(buf)), 0);
	cr_assert_eq(strlen(buf), strlen("a-") + 15, "%s", buf);
	cr_assert_eq(config__expand_output("%q%%", buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "%q%", "unknown escapes stay, %% is a percent sign");
	cr_assert_eq(config__expand_output("%h%h%h%h", buf, 8), -ENAMETOOLONG);
}

/* [containers]: the runtimes' state directories, defaults and lists. */
Test(config, containers_dirs)
{
	config__defaults(&c);
	cr_assert_str_eq(c.containers.docker[0], "/var/lib/docker");
	cr_assert_str_eq(c.containers.podman[0], "/var/lib/containers/storage");
	cr_assert_str_eq(c.containers.kubelet[0], "/var/log");
	cr_assert(c.containers.rootless_podman);
	cr_assert_eq(parse("[containers]\ndocker_data_root = /srv/docker:/var/lib/docker\n"
			   "podman_storage = /srv/podman\nkubelet_log_dir = /srv/log\nrootless_podman = no\n", false),
		     0, "%s", err);
	cr_assert_str_eq(c.containers.docker[0], "/srv/docker");
	cr_assert_str_eq(c.containers.docker[1], "/var/lib/docker");
	cr_assert_str_eq(c.containers.docker[2], "");
	cr_assert_str_eq(c.containers.podman[0], "/srv/podman");
	cr_assert_str_eq(c.containers.kubelet[0], "/srv/log");
	cr_assert_not(c.containers.rootless_podman);
	cr_assert_eq(parse("[containers]\ndocker_data_root = srv/docker\n", false), -EINVAL);
	cr_assert(strstr(err, "test.conf:2") && strstr(err, "absolute"), "%s", err);
	cr_assert_eq(parse("[containers]\ndocker = /srv\n", false), -EINVAL);
	cr_assert(strstr(err, "unknown key 'docker' in [containers]"), "%s", err);
}

Test(config, off_cpu_max_rate)
{
	cr_assert_eq(parse("[record]\n", false), 0, "%s", err);
	cr_assert_eq(c.off_cpu_max_rate, 0, "the built-in default");
	cr_assert_eq(parse("[record]\noff_cpu_max_rate = 2500\n", false), 0, "%s", err);
	cr_assert_eq(c.off_cpu_max_rate, 2500);
	cr_assert_eq(parse("[record]\noff_cpu_max_rate = 0\n", false), 0, "%s", err);
	cr_assert_eq(c.off_cpu_max_rate, UINT32_MAX, "0: a stack at every switch");
	cr_assert_neq(parse("[record]\noff_cpu_max_rate = fast\n", false), 0);
	cr_assert(strstr(err, "test.conf:2:") && strstr(err, "off_cpu_max_rate"), "%s", err);
}

Test(config, off_cpu_window)
{
	cr_assert_eq(parse("[daemon]\n", true), 0, "%s", err);
	cr_assert_eq(c.daemon.off_cpu_window, 2, "the built-in default: 2 s ...");
	cr_assert_eq(c.daemon.off_cpu_period, 20, "... in every 20");
	cr_assert_eq(parse("[daemon]\noff_cpu_window = 0\noff_cpu_period = 5\n", true), 0, "%s", err);
	cr_assert_eq(c.daemon.off_cpu_window, 0, "0: always");
	cr_assert_eq(c.daemon.off_cpu_period, 5);
	cr_assert_neq(parse("[daemon]\noff_cpu_period = 0\n", true), 0);
	cr_assert(strstr(err, "test.conf:2:") && strstr(err, "off_cpu_period"), "%s", err);
}

Test(config, symbols_system_and_user_apart)
{
	cr_assert_eq(parse("[symbols]\ndebuginfod_urls = http://a:8002  https://b.example/x\ndebuginfod_timeout = 7\n",
			   true), 0, "%s", err);
	cr_assert_str_eq(c.symbols.debuginfod_urls, "http://a:8002  https://b.example/x");
	cr_assert_eq(c.symbols.debuginfod_timeout, 7);
	cr_assert_str_eq(c.user_symbols.debuginfod_urls, "");
	/* a user's file: kept apart, which a privileged prof ignores */
	cr_assert_eq(parse("[symbols]\ndebuginfod_urls = https://mine.example\n", false), 0, "%s", err);
	cr_assert_str_eq(c.user_symbols.debuginfod_urls, "https://mine.example");
	cr_assert_str_eq(c.symbols.debuginfod_urls, "");
}

Test(config, symbols_errors_name_the_line)
{
	expect_error("[symbols]\n\ndebuginfod_urls = ftp://x\n", true, "test.conf:3:",
		     "'ftp://x' is not an http:// or https:// URL");
	expect_error("[symbols]\ndebuginfod_urls = http://a http://b\"c\n", true, "test.conf:2:", "quote");
	expect_error("[symbols]\ndebuginfod_timeout = 0\n", true, "test.conf:2:", "bad debuginfod_timeout");
	expect_error("[symbols]\ndebuginfod = x\n", true, "test.conf:2:", "unknown key 'debuginfod' in [symbols]");
}
