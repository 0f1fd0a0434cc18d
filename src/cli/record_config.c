/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "prof/cli/commands.h"
#include "prof/base/util.h"
#include "prof/cli/record_config.h"

/*
 * as_user: a file the user names (--config, their own prof.conf) is opened with their
 * own rights, never prof's capabilities: its error messages quote its lines.
 */
static int load(struct prof_config *cfg, const char *path, bool policy, bool safe, bool optional, bool as_user)
{
	char err[512];
	int r;

	if (as_user) {
		_cleanup_close_ int fd = privs__open_as_user(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

		if (fd == -ENOENT && optional)
			return 0;
		if (fd < 0) {
			fprintf(stderr, "prof: cannot read the configuration '%s': %s (it is opened with your own "
				"rights, not prof's capabilities)\n", path, strerror(-fd));
			return EXIT_PROF_USAGE;
		}
		r = config__load_fd(cfg, fd, path, policy, safe, err, sizeof(err));
	} else {
		r = config__load(cfg, path, policy, safe, err, sizeof(err));
	}
	if (r == -ENOENT && optional)
		return 0;
	if (r < 0) {
		fprintf(stderr, "prof: %s\n", err);
		return EXIT_PROF_USAGE;
	}
	return 0;
}

int record_config__apply(struct record_opts *o, const struct privs *p, struct prof_config *cfg,
			 char *output_buf, size_t output_len)
{
	/* A privileged prof run by someone else must not take settings from files
	 * that someone else could have written. */
	bool privileged_for_other = p->uid != 0 && (p->perfmon || p->sys_admin || p->setuid);
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	char user_path[4096] = "";
	int r;

	config__defaults(cfg);
	if (o->config && p->uid == 0) {
		/* root's --config replaces the system file */
		r = load(cfg, o->config, true, false, false, false);
		if (r)
			return r;
	} else {
		r = load(cfg, PROF_SYSCONFDIR "/prof.conf", true, privileged_for_other, true, false);
		if (r)
			return r;
		if (o->config)
			snprintf(user_path, sizeof(user_path), "%s", o->config);
		else if (xdg && xdg[0] == '/')
			snprintf(user_path, sizeof(user_path), "%s/prof/prof.conf", xdg);
		else if (home && home[0] == '/')
			snprintf(user_path, sizeof(user_path), "%s/.config/prof/prof.conf", home);
		if (user_path[0]) {
			r = load(cfg, user_path, false, false, !o->config, true);
			if (r)
				return r;
		}
	}
	/* The command line wins. */
	if (!o->event_given && cfg->event[0]) {
		if (event_spec__parse(cfg->event, &o->event) < 0)
			return EXIT_PROF_USAGE;     /* checked when parsed */
	}
	if (!o->freq_given && !o->period_given)
		o->freq = cfg->freq;
	if (cfg->callchain)
		o->callchain = true;
	/* A sample with a stack copy is kilobytes: dwarf needs more room between drains. */
	if (!o->mmap_given)
		o->mmap_pages = o->dwarf ? MAX(cfg->mmap_pages, RECORD_DWARF_PAGES) : cfg->mmap_pages;
	if (!o->output_given) {
		if (config__expand_output(cfg->output, output_buf, output_len) < 0) {
			fprintf(stderr, "prof: the configured output name '%s' is too long\n", cfg->output);
			return EXIT_PROF_USAGE;
		}
		o->output = output_buf;
	}
	return 0;
}

int record_config__policy(struct record_opts *o, const struct prof_config *cfg, const struct privs *p,
			  int cgroup_fd, struct policy_verdict *v)
{
	uint64_t asked = o->freq;
	char err[1024];
	int r;

	if (policy__check(cfg, o, cgroup_fd, v, err, sizeof(err)) < 0) {
		fprintf(stderr, "prof: refused by the access %s\n", err);
		return EXIT_PROF_FAIL;
	}
	r = policy__check_rate(cfg, v, p->sys_admin, o, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "prof: refused by the access %s\n", err);
		return EXIT_PROF_FAIL;
	}
	if (r > 0 && !o->quiet)
		fprintf(stderr, "prof: the configured frequency %" PRIu64 " Hz is above the %" PRIu64
			" Hz allowed to users who are not admins ([policy] user_max_frequency); using %" PRIu64 " Hz.\n",
			asked, cfg->user_max_frequency, o->freq);
	if (!v->kernel) {
		o->no_kernel = true;
		o->event.exclude_kernel = true;
	}
	return 0;
}
