/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * prof record: a session (record/session.h) whose sink is a perf.data file.  It runs
 * the workload, and leaves a valid perf.data whatever stops the recording.
 */
#include <fcntl.h>
#include <stddef.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>

#include "prof/base/util.h"
#include "prof/base/vec.h"
#include "prof/cli/commands.h"
#include "prof/cli/preflight.h"
#include "prof/cli/record_summary.h"
#include "prof/jvm/frames.h"
#include "prof/node/frames.h"
#include "prof/node/node.h"
#include "prof/jvm/jvm.h"
#include "prof/python/python.h"
#include "prof/cli/signals.h"
#include "prof/perfdata/build_id_cache.h"
#include "prof/analyze/go_symtab.h"
#include "prof/perfdata/build_id_table.h"
#include "prof/perfdata/vdso.h"
#include "prof/perfdata/features.h"
#include "prof/perfdata/prof_section.h"
#include "prof/sys/pressure.h"
#include "prof/record/events.h"
#include "prof/record/session.h"
#include "prof/scope/containers.h"
#include "prof/scope/runtime_names.h"
#include "prof/synth/ledger.h"
#include "prof/synth/perf_maps.h"
#include "prof/synth/places.h"
#include "prof/sys/output_file.h"
#include "prof/sys/procfs.h"
#include "prof/sys/workload.h"
#include "prof/analyze/debuginfod.h"

/* What prof record adds to a session: the file it writes, and the workload. */
struct recording {
	struct record_opts opts;
	struct preflight pf;
	struct session *session;
	struct output_file out;
	struct perf_writer *writer;
	struct build_id_table *build_ids;       /* of the mapped objects the file names */
	struct build_id_cache *cache;           /* where their copies are kept, or NULL */
	_Alignas(8) uint8_t mmap2[8192];        /* an MMAP2 rewritten with its build id */
	uint64_t st_foreign;                    /* MMAP2s written under "/[PLACE]" */
	int write_err;                          /* the file could not be written */
	struct workload_identity ident;         /* who runs the workload */
	char *exe;                              /* ... which program */
	struct workload wl;
	bool has_workload;
	struct pressure_set pressure;           /* the scope's cgroups' PSI and cpu.stat */
};

static void status_line(const struct recording *r, uint64_t now)
{
	struct session_stats st;

	session__stats(r->session, &st);
	fprintf(stderr, "\r[ prof: %.0fs, %" PRIu64 " samples, %" PRIu64 " tasks, %" PRIu64 " lost ]\033[K",
		(double)(now - session__start_time(r->session)) / 1e9, st.scope->samples_written,
		st.scope->tasks_seen, st.records->lost + st.records->lost_samples);
	fflush(stderr);
}

/* The main loop: until the workload ends, a signal, or --duration. */
static int record_loop(struct recording *r)
{
	bool tty = !r->opts.quiet && isatty(STDERR_FILENO);
	uint64_t start = session__start_time(r->session);
	uint64_t deadline = r->opts.duration > 0 ? start + (uint64_t)(r->opts.duration * 1e9) : 0;
	uint64_t next_status = start + 1000000000ull;
	int err;

	/* a ring replay (events.h) ends where its recording stopped, not by the clock */
	bool replay = session__replaying(r->session);

	if (deadline && !replay)
		session__set_deadline(r->session, deadline);
	while (!signals__stop() && !(replay && session__replay_done(r->session))) {
		uint64_t now;

		err = session__step(r->session);
		if (err < 0)
			return err;
		now = clock_mono_ns();
		if (r->has_workload && workload__poll(&r->wl))
			break;
		if (deadline && !replay && now >= deadline)
			break;
		if (tty && now >= next_status) {
			status_line(r, now);
			next_status = now + 1000000000ull;
		}
	}
	if (tty)
		fputs("\r\033[K", stderr);
	return 0;
}

/* prof's section of this recording: its scope, the tasks the file describes with
 * their uids, the accounting.  The arrays are the caller's to free. */
static void section_of(struct recording *r, const struct session_stats *st, struct prof_section *sec)
{
	const struct scope *scope = &r->opts.scope;
	size_t nr;
	const struct ledger_task *log = ledger__written_tasks(session__ledger(r->session), &nr);

	*sec = (struct prof_section){
		.mmap_build_ids = true,
		.scope_all = scope->all, .scope_uids = scope->uids, .nr_scope_uids = scope->nr_uids,
		.scope_cgroups = calloc(scope->nr_cgroups + 1, sizeof(char *)), .nr_scope_cgroups = scope->nr_cgroups,
		.scope_pids = scope->pids, .nr_scope_pids = scope->nr_pids, .scope_workload = scope->workload,
		.tasks = calloc(nr + 1, sizeof(*sec->tasks)), .nr_tasks = nr,
		.stats = { st->scope->samples_written, st->scope->samples_out_of_scope, st->scope->unattributed_gone,
			   st->scope->unattributed_creds, st->records->lost, st->records->lost_samples,
			   st->scope->tasks_seen },
	};
	if (st->python) {
		const struct python_stats *py = st->python;

		sec->stats.py_samples = py->samples;
		sec->stats.py_processes = py->processes;
		sec->stats.py_with = py->with_python;
		sec->stats.py_verified = py->verified;
		sec->stats.py_chained = py->chained;
		for (int v = PYTHON_READ_FAILED; v < PYTHON_VERDICTS; v++)
			sec->stats.py_unverified[v - PYTHON_READ_FAILED] = py->unverified[v];
	}
	if (st->jvm) {
		const struct jvm_frames_stats *j = st->jvm;

		_Static_assert(JAVA_WHYS == ARRAY_SIZE(sec->stats.java_unverified), "one count per why");
		sec->stats.java_samples = j->samples;
		sec->stats.java_processes = j->processes;
		sec->stats.java_with = j->with_java;
		sec->stats.java_verified = j->verified;
		sec->stats.java_frames = j->frames;
		sec->stats.java_cut = j->cut;
		sec->stats.java_vm_threads = j->vm_threads;
		memcpy(sec->stats.java_unverified, j->unverified, sizeof(j->unverified));
	}
	for (size_t i = 0; sec->tasks && i < nr; i++)
		sec->tasks[i] = (struct prof_section_task){ log[i].pid, log[i].tid, log[i].uid, log[i].uid_known };
	for (size_t i = 0; sec->scope_cgroups && i < scope->nr_cgroups; i++)
		sec->scope_cgroups[i] = scope->cgroups[i].path ? scope->cgroups[i].path : scope->cgroups[i].arg;
	sec->pressure = calloc(r->pressure.nr + 1, sizeof(*sec->pressure));
	for (size_t i = 0; sec->pressure && i < r->pressure.nr; i++) {
		const struct pressure_cgroup *c = &r->pressure.cg[i];

		sec->pressure[i] = (struct prof_section_pressure){ .cgroup = c->path,
								   .wall_ns = c->last_ns - c->first_ns };
		pressure__diff(&c->first, &c->last, &sec->pressure[i].d);
	}
	sec->nr_pressure = sec->pressure ? r->pressure.nr : 0;
	/* --off-cpu's holder table (root's and the admins' recordings only) */
	nr = session__nr_offcpu_holders(r->session);
	sec->holders = calloc(nr + 1, sizeof(*sec->holders));
	for (size_t i = 0; sec->holders && i < nr; i++) {
		const struct offcpu_holder_info *h = session__offcpu_holder(r->session, OFFCPU_HOLDER_TASK + (uint32_t)i);

		sec->holders[i] = (struct prof_section_holder){ .n = (uint32_t)i, .uid = h->uid, .uid_known = h->uid_known,
								 .cgroup = h->cgroup, .cgroup_path = (char *)h->cgroup_path };
	}
	sec->nr_holders = sec->holders ? nr : 0;
}

/* The perf maps copied from containers and chroots, for prof's section. */
struct perf_map_copies {
	struct prof_section_perf_map *v;
	size_t nr, cap;
	bool failed;
};

static void add_perf_map(void *ctx, int32_t pid, uint64_t from, uint64_t until, const char *text, size_t len)
{
	struct perf_map_copies *c = ctx;

	if (VEC_RESERVE(c->v, c->cap, c->nr + 1) < 0) {
		c->failed = true;
		return;
	}
	c->v[c->nr++] = (struct prof_section_perf_map){ pid, from, until, text, len };
}

/* The runtimes' names of the file's containers: the ids its cgroups are in. */
struct naming {
	struct prof_section_name *v;
	size_t nr, cap;
	bool failed;
};

static void note_container(uint64_t id, const char *path, void *ctx)
{
	struct naming *n = ctx;
	char cid[CONTAINER_ID_LEN + 1];

	if (!containers__of_path(path, cid))
		return;
	for (size_t i = 0; i < n->nr; i++)
		if (!strcmp(n->v[i].id, cid))
			return;
	if (VEC_RESERVE(n->v, n->cap, n->nr + 1) < 0) {
		n->failed = true;
		return;
	}
	n->v[n->nr] = (struct prof_section_name){ .name = NULL };
	memcpy(n->v[n->nr++].id, cid, sizeof(cid));
}

/*
 * Name the file's containers (n->v[].name borrowed from now or from the preflight's
 * names; NULL: no runtime named it) from the runtimes' state read now, so containers
 * started during the recording are named, else as the preflight read it, so one
 * removed meanwhile still is.  A user who may not read the state gets ids alone:
 * how many, in *ret_unnamed and *ret_unreadable.
 */
static void name_containers(struct recording *r, struct naming *n, struct runtime_names *now,
			    size_t *ret_unnamed, size_t *ret_unreadable)
{
	_cleanup_free_ const char **ids = NULL;

	*ret_unnamed = *ret_unreadable = 0;
	ledger__for_each_written_cgroup(session__ledger(r->session), note_container, n);
	/* and the CPU holders' (--off-cpu, root's and the admins' recordings) */
	for (size_t i = 0; i < session__nr_offcpu_holders(r->session); i++) {
		const struct offcpu_holder_info *h = session__offcpu_holder(r->session, OFFCPU_HOLDER_TASK + (uint32_t)i);

		if (h->cgroup_path)
			note_container(h->cgroup, h->cgroup_path, n);
	}
	ids = n->nr ? calloc(n->nr, sizeof(*ids)) : NULL;
	if (!ids)
		return;
	for (size_t i = 0; i < n->nr; i++)
		ids[i] = n->v[i].id;
	if (runtime_names__load_ids(&r->pf.cfg.containers, ids, n->nr, now, ret_unreadable) < 0)
		return;
	for (size_t i = 0; i < n->nr; i++) {
		const char *name = runtime_names__of(now, n->v[i].id, false);

		if (!name)
			name = runtime_names__of(&r->pf.names, n->v[i].id, false);
		n->v[i].name = (char *)name;
		*ret_unnamed += !name;
	}
}

/* The build id the session's objects have for (maj, min, ino). */
static bool build_id_of(void *ctx, uint32_t maj, uint32_t min, uint64_t ino, struct build_id *ret)
{
	return session__build_id(ctx, maj, min, ino, ret);
}

/*
 * A 64-bit task's [vdso] was mapped: prof's own image (the kernel's, the same for
 * every 64-bit task) named in the build-id table and kept in the cache, as perf
 * record does, so that a report of the file names its functions by build id.  What
 * fails leaves the vDSO's samples [unknown] where the image is not at hand (said
 * with -v).
 */
static void keep_vdso(struct recording *r)
{
	struct vdso_image v;
	enum build_id_cache_result res = BUILD_ID_CACHE_KEPT;
	int err;

	if (!build_id_table__saw_vdso(r->build_ids))
		return;
	err = vdso__own(&v);
	if (err < 0) {
		if (r->opts.verbose)
			fprintf(stderr, "prof: the vDSO image could not be read (%s): its functions are [unknown]"
				" in reports\n", strerror(-err));
		return;
	}
	build_id_table__set_vdso(r->build_ids, &v.bid);
	if (r->cache)
		err = build_id_cache__add_vdso(r->cache, v.fd, &v.bid, v.size, &res);
	close(v.fd);
	if (r->opts.verbose && r->cache && (err < 0 || (res != BUILD_ID_CACHE_KEPT && res != BUILD_ID_CACHE_PRESENT)))
		fprintf(stderr, "prof: the vDSO image was not kept in %s (%s): reports on other hosts show its"
			" functions as [unknown]\n", build_id_cache__dir(r->cache),
			err < 0 ? strerror(-err) : "a limit, or another file at its place");
}

/* The features, build ids and prof's section after the data, then the header. */
/*
 * Each kept object without symbols gets the debug file debuginfod has for it
 * (DEBUGINFOD_URLS: prof.conf(5)'s [symbols]) beside it in the build-id cache,
 * where perf report finds it; after sampling, within a time budget.
 */
static void keep_debuginfod(struct recording *r, const struct feat_buf *bids)
{
	struct debuginfod_stats st = { 0 };
	char line[256];

	if (!debuginfod__on())
		return;
	debuginfod__keep(r->cache, bids->data, bids->len, DEBUGINFOD_KEEP_BUDGET, &st);
	if ((st.asked || st.skipped) && !r->opts.quiet) {
		debuginfod__describe(&st, line, sizeof(line));
		fprintf(stderr, "prof: debuginfod (%s): %s\n", getenv("DEBUGINFOD_URLS"), line);
	}
}

static int write_trailer(struct recording *r, int argc, char **argv)
{
	struct session_stats st;
	struct features f = { .verb = "record", .argc = argc, .argv = argv, .clockid = CLOCK_MONOTONIC };
	struct prof_section sec;
	_cleanup_free_ char *notes = NULL;
	ssize_t n = read_file_full(AT_FDCWD, "/sys/kernel/notes", 1 << 16, &notes);
	struct feat_buf b = { 0 }, bids = { 0 };
	struct build_id kbid;
	struct naming naming = { 0 };
	struct perf_map_copies copies = { 0 };
	struct runtime_names names = { 0 };
	size_t unnamed, unreadable;
	int err, err2;

	session__stats(r->session, &st);
	f.first_sample_time = st.scope->first_time;
	f.last_sample_time = st.scope->last_time;
	section_of(r, &st, &sec);
	name_containers(r, &naming, &names, &unnamed, &unreadable);
	/* only the named ones: the section's lines are for names */
	for (size_t i = 0; i < naming.nr; i++)
		if (naming.v[i].name)
			naming.v[sec.nr_names++] = naming.v[i];
	sec.names = naming.v;
	if (st.perf_maps)
		perf_maps__each(st.perf_maps, add_perf_map, &copies);
	sec.perf_maps = copies.v;
	sec.nr_perf_maps = copies.nr;
	if (unnamed && unreadable && !r->opts.quiet)
		fprintf(stderr, "prof: %zu container%s recorded by id only: the runtimes' state (docker's, podman's) "
			"is not readable with your rights\n", unnamed, unnamed == 1 ? "" : "s");
	if (n > 0 && build_id__from_notes((const uint8_t *)notes, (size_t)n, 4, &kbid) == 0) {
		build_id__hex(&kbid, sec.kernel_build_id, sizeof(sec.kernel_build_id));
		if (!r->opts.no_kernel)
			build_id_table__set_kernel(r->build_ids, &kbid);
	}
	err = features__add(r->writer, &f);
	keep_vdso(r);
	build_id_table__write(r->build_ids, &bids, build_id_of, r->session);
	/* each kept object also at every path it had, where hotspot looks (best effort:
	 * perf and prof report find it by build id either way) */
	if (r->cache && !bids.err && bids.len) {
		build_id_cache__add_paths(r->cache, bids.data, bids.len, NULL);
		/* stripped Go named for perf too: a symbol table of its own, as its debug file */
		go_symtab__keep(r->cache, bids.data, bids.len);
		keep_debuginfod(r, &bids);
	}
	if (!err && bids.len)
		err = bids.err ? bids.err : perf_writer__add_feature(r->writer, HEADER_BUILD_ID, bids.data, bids.len);
	feat_buf__release(&bids);
	if (sec.tasks && sec.scope_cgroups && sec.pressure && sec.holders && !copies.failed)
		prof_section__build(&b, &sec);
	else
		b.err = -ENOMEM;
	free(sec.tasks);
	free(sec.scope_cgroups);
	free(sec.pressure);
	free(sec.holders);
	free(naming.v);
	free(copies.v);
	runtime_names__release(&names);
	if (!err)
		err = b.err ? b.err : perf_writer__set_prof_section(r->writer, b.data, b.len);
	feat_buf__release(&b);
	err2 = perf_writer__finish(r->writer);
	return err2 < 0 ? err2 : err;
}

/*
 * Who runs the workload: --run-as, else the one --uid user when prof may switch to
 * it, else the invoker.  Returns 0, or an exit code after a message.
 */
static int choose_identity(const struct recording *r, struct workload_identity *id)
{
	const struct scope *s = &r->opts.scope;
	const char *as = r->opts.run_as;
	char err[256];
	uid_t uid;

	id->as_user = false;
	if (!r->opts.argv || (as && !strcmp(as, "self")))
		return 0;
	if (as) {
		struct scope tmp = { 0 };
		if (scope__add_uids(&tmp, as, err, sizeof(err)) < 0 || tmp.nr_uids != 1) {
			scope__release(&tmp);
			fprintf(stderr, "prof record: --run-as: %s\n", tmp.nr_uids > 1 ? "give one user" : err);
			return EXIT_PROF_USAGE;
		}
		uid = tmp.uids[0];
		scope__release(&tmp);
	} else if (s->nr_uids > 1) {
		fprintf(stderr, "prof record: several --uid users: say who runs the command with --run-as USER (or --run-as self)\n");
		return EXIT_PROF_USAGE;
	} else if (s->nr_uids == 1 && privs__can_setid(&r->pf.privs)) {
		uid = s->uids[0];
	} else {
		return 0;
	}
	if (uid == getuid() && !as)
		return 0;
	if (!privs__can_setid(&r->pf.privs)) {
		fprintf(stderr, "prof: running the command as uid %u needs CAP_SETUID and CAP_SETGID, which prof does not hold; use --run-as self.\n", uid);
		return EXIT_PROF_FAIL;
	}
	if (workload_identity__from_uid(id, uid) < 0) {
		fprintf(stderr, "prof record: uid %u has no entry in the user database: it cannot run the command (use --run-as).\n", uid);
		return EXIT_PROF_USAGE;
	}
	return 0;
}

/*
 * A set-user-ID or set-group-ID program runs with someone else's rights: only root or
 * CAP_SYS_ADMIN may profile it, as with perf.  Returns 0, or an exit code after a message.
 */
static int check_setid_program(const struct recording *r, const char *exe)
{
	struct statvfs vfs;
	struct stat st;
	bool suid, sgid;

	if (getuid() == 0 || r->pf.privs.sys_admin || stat(exe, &st) < 0)
		return 0;
	suid = st.st_mode & S_ISUID;
	sgid = (st.st_mode & S_ISGID) && (st.st_mode & S_IXGRP);       /* without g+x: locking */
	if (!suid && !sgid)
		return 0;
	if (statvfs(exe, &vfs) == 0 && (vfs.f_flag & ST_NOSUID))
		return 0;               /* the bits do nothing there */
	fprintf(stderr,
		"prof: refusing to profile '%s': it is set-%s-ID (owner uid %u, group %u), so it runs with\n"
		"  another user's rights; only root or CAP_SYS_ADMIN may profile such a program (as with perf).\n"
		"  Run prof as root, or profile a copy without the set-ID bit.\n",
		exe, suid ? "user" : "group", st.st_uid, st.st_gid);
	return EXIT_PROF_FAIL;
}

static int report_exec_error(const char *cmd, int err)
{
	if (err == -ENOENT) {
		fprintf(stderr, "prof: cannot run '%s': command not found\n", cmd);
		return EXIT_PROF_NOTFOUND;
	}
	fprintf(stderr, "prof: cannot run '%s': %s\n", cmd, strerror(-err));
	return EXIT_PROF_NOEXEC;
}

/*
 * An MMAP2 of an object prof has no build id of, whose path on the host is not known
 * to be it, of a task whose paths resolve elsewhere (session__foreign): written as
 * "/[mnt:INODE]PATH", "/[chroot:ROOT]PATH" or "/[unknown]PATH", a path that names
 * the place and that no file has (only root could make a directory "/[..." at the
 * host's root), so that perf report, perf script, perf annotate and hotspot show its
 * samples unknown rather than read the host's file at PATH.  The device and inode
 * stay.  The record as is when it does not fit.
 */
static const void *unknown_place(struct recording *r, const void *rec, size_t *len)
{
	const struct perf_record_mmap2 *m = rec;
	const size_t off = offsetof(struct perf_record_mmap2, filename);
	size_t name = strlen(m->filename), trailer, pre, size;
	char place[300];
	uint8_t *out = r->mmap2;

	if (off + ALIGN_UP(name + 1, 8) > *len ||
	    !session__foreign(r->session, m->maj, m->min, m->ino, place, sizeof(place)))
		return rec;
	trailer = *len - off - ALIGN_UP(name + 1, 8);
	pre = strlen(place) + 3;        /* "/[" place "]" */
	size = off + ALIGN_UP(pre + name + 1, 8) + trailer;
	if (size > sizeof(r->mmap2) || size > UINT16_MAX)
		return rec;
	memset(out, 0, size);
	memcpy(out, rec, off);
	snprintf((char *)out + off, pre + name + 1, "/[%s]%s", place, m->filename);
	memcpy(out + size - trailer, (const uint8_t *)rec + *len - trailer, trailer);
	((struct perf_event_header *)(void *)out)->size = (uint16_t)size;
	*len = size;
	r->st_foreign++;
	return out;
}

/*
 * An executable file's MMAP2 as the file gets it: carrying its object's build id
 * (PERF_RECORD_MISC_MMAP_BUILD_ID, as perf record --buildid-mmap writes them) where
 * the session read one, so every reader knows each mapping's object exactly: a
 * container's /usr/bin/python3 and the host's are two objects, not one path with two
 * build ids.  prof's section says so (mmap-build-ids): one without is an object whose
 * build id is unknown.  One of those whose path would name another file on the host
 * (a container's, a chroot's) is written under "/[PLACE]" (unknown_place).
 */
static const void *with_build_id(struct recording *r, const void *rec, size_t *len)
{
	const struct perf_record_mmap2 *m = rec;
	struct perf_record_mmap2 *out = (void *)r->mmap2;
	struct build_id b;

	if (!build_id__mmap2_path(rec) || (m->header.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) ||
	    *len > sizeof(r->mmap2))
		return rec;
	if (!session__build_id(r->session, m->maj, m->min, m->ino, &b))
		return unknown_place(r, rec, len);
	memcpy(out, rec, *len);
	out->header.misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
	out->build_id_size = b.size;
	out->__reserved_1 = 0;
	out->__reserved_2 = 0;
	memset(out->build_id, 0, sizeof(out->build_id));
	memcpy(out->build_id, b.data, b.size);
	return out;
}

/* The session's sink: the file, and the table of the objects its MMAP2s name (their
 * build ids were read as the session passed them on). */
static int write_sink(const void *rec, size_t len, void *ctx)
{
	struct recording *r = ctx;
	int err = build_id_table__note(r->build_ids, rec);

	if (err == 0) {
		const void *out = with_build_id(r, rec, &len);

		err = perf_writer__write(r->writer, out, len);
	}
	if (err < 0)
		r->write_err = err;
	return err;
}

/* Who runs which program, and may it be profiled?  0, or an exit code after a message. */
static int check_workload(struct recording *r)
{
	int err, ret = choose_identity(r, &r->ident);

	if (ret || !r->opts.argv)
		return ret;
	err = workload__resolve(r->opts.argv[0], &r->exe);
	if (err < 0)
		return report_exec_error(r->opts.argv[0], err);
	return check_setid_program(r, r->exe);
}

/* Fork it corked, before any event is open, so that it inherits none of their fds.
 * 0, or an exit code after a message. */
static int fork_workload(struct recording *r)
{
	int err;

	if (!r->opts.argv)
		return 0;
	err = workload__prepare(&r->wl, r->exe, r->opts.argv, &r->ident);
	if (err < 0) {
		fprintf(stderr, "prof: cannot start '%s': %s\n", r->opts.argv[0], strerror(-err));
		return EXIT_PROF_FAIL;
	}
	r->has_workload = true;
	/* No other scope: the workload's process tree. */
	if (!r->opts.all && !scope__narrowed(&r->opts.scope))
		r->opts.scope.workload = r->wl.pid;
	return 0;
}

/* Uncork the workload: 0, or an exit code after a message (then it is gone). */
static int start_workload(struct recording *r)
{
	enum workload_stage stage = 0;
	int err = workload__start(&r->wl, &stage);

	if (err == 0)
		return 0;
	r->has_workload = false;
	if (stage == WORKLOAD_STAGE_IDENTITY) {
		fprintf(stderr, "prof: cannot run '%s' as %s: %s\n", r->opts.argv[0], r->ident.name, strerror(-err));
		return EXIT_PROF_NOEXEC;
	}
	return report_exec_error(r->opts.argv[0], err);
}

/*
 * The user's build-id cache, where the objects that samples hit are kept when only
 * a copy keeps them for a report ([record] keep_objects).  0, or -errno after a
 * message.
 */
static int open_cache(struct recording *r)
{
	const struct prof_config *c = &r->pf.cfg;
	struct build_id_cache_limits l = { c->keep_object_max, c->keep_recording_max, c->keep_cache_max };
	char dir[4096];
	int err;

	if (!c->keep_objects)
		return 0;
	err = build_id_cache__default_dir(dir, sizeof(dir));
	if (err == 0)
		err = build_id_cache__new(dir, &l, &r->cache);
	if (err == -ENOMEM) {
		fprintf(stderr, "prof: out of memory\n");
		return err;
	}
	if (err < 0 && !r->opts.quiet)
		fprintf(stderr, "prof: warning: no build-id cache (%s: set HOME); objects will not be kept.\n",
			err == -ENOENT ? "no home directory" : strerror(-err));
	return 0;
}

/* A ring replay's file (events.h: PROF_RING_SAVE, PROF_RING_REPLAY, for the
 * developers) that could not be read or written: said, true. */
static bool ring_explain(const struct session_error *e)
{
	const char *replay = events__ring_env("PROF_RING_REPLAY"), *save = events__ring_env("PROF_RING_SAVE");

	if (e->stage != SESSION_STAGE_EVENTS || (!replay && !save))
		return false;
	if (replay)
		fprintf(stderr, "prof: cannot replay '%s' (PROF_RING_REPLAY): %s.\n", replay,
			e->err == -EBADMSG ? "not a file PROF_RING_SAVE wrote, or cut short"
			: e->err == -EPROTO ? "it was saved by another build of prof (its structs differ): "
					      "replay it with the build that saved it"
			: strerror(-e->err));
	else if (e->events != EVENTS_STAGE_NONE)
		return false;   /* the events' own failure: said as without a file */
	else if (e->err == -EOPNOTSUPP)
		fprintf(stderr, "prof: PROF_RING_SAVE: --off-cpu and the set*uid() tracepoints of --uid are not "
				"replayed; record without them, or unset PROF_RING_SAVE.\n");
	else
		fprintf(stderr, "prof: PROF_RING_SAVE: cannot write '%s': %s.\n", save, strerror(-e->err));
	return true;
}

/*
 * The session, then the file (its attrs name the session's events), then the start:
 * the kernel described, the events enabled, the workload run, the privileges dropped.
 * 0, or an exit code after a message.
 */
static int start_recording(struct recording *r)
{
	struct session_config cfg = preflight__session(&r->pf, &r->opts, r->has_workload ? r->wl.pid : 0,
						       write_sink, r);
	struct session_error e = { 0 };
	const struct perf_data_event *evs;
	size_t nr;
	int err, ret;

	err = open_cache(r);
	if (err < 0)
		return EXIT_PROF_FAIL;
	cfg.objects = true;
	cfg.cache = r->cache;
	if (session__new(&cfg, &r->session, &e) < 0) {
		if (ring_explain(&e))
			return EXIT_PROF_FAIL;
		preflight__explain(&r->pf, &r->opts, &e, r->out.path);
		return EXIT_PROF_FAIL;
	}
	if (session__replaying(r->session) && r->has_workload) {
		fprintf(stderr, "prof: PROF_RING_REPLAY replays a saved recording: give no command to run "
				"(unset it to record one).\n");
		return EXIT_PROF_FAIL;
	}
	r->build_ids = build_id_table__new();
	if (!r->build_ids) {
		fprintf(stderr, "prof: out of memory\n");
		return EXIT_PROF_FAIL;
	}
	evs = session__attrs(r->session, &nr);
	err = perf_writer__new(r->out.fd, evs, nr, &r->writer);
	if (err < 0) {
		fprintf(stderr, "prof: cannot write '%s': %s\n", r->out.path, strerror(-err));
		return EXIT_PROF_FAIL;
	}
	if (session__start(r->session, &e) < 0) {
		preflight__explain(&r->pf, &r->opts, &e, r->out.path);
		return EXIT_PROF_FAIL;
	}
	/* the scope's cgroups' pressure from now to the end (what the events cover) */
	if (pressure_set__open(&r->pressure, r->pf.cgroup_fd, &r->opts.scope) < 0) {
		fprintf(stderr, "prof: out of memory\n");
		return EXIT_PROF_FAIL;
	}
	pressure_set__read(&r->pressure, true);
	preflight__warn(&r->opts, r->session);
	ret = r->has_workload ? start_workload(r) : 0;
	if (ret)
		return ret;
	/* Events open, workload running: keep only what the rest needs. */
	err = session__drop_privileges(r->session);
	if (err < 0 && !r->opts.quiet)
		fprintf(stderr, "prof: warning: could not drop capabilities: %s\n", strerror(-err));
	return 0;
}

/* Stop, pass on what is buffered, finish the file.  The exit code. */
static int finish_recording(struct recording *r, int err, int argc, char **argv)
{
	bool failed;

	pressure_set__read(&r->pressure, false);
	if (err == 0)
		err = session__stop(r->session);
	failed = err < 0;
	if (r->has_workload)
		workload__stop(&r->wl, 2000);
	if (err < 0 && !r->write_err)
		fprintf(stderr, "prof: recording failed: %s\n", strerror(-err));
	if (r->write_err)
		fprintf(stderr, "prof: writing '%s' failed: %s; recording stopped, the file keeps what was written before.\n",
			r->out.path, strerror(-r->write_err));
	err = write_trailer(r, argc, argv);
	if (err < 0 && !r->write_err)
		fprintf(stderr, "prof: finishing '%s' failed: %s\n", r->out.path, strerror(-err));
	failed = failed || err < 0;
	if (output_file__close(&r->out) < 0 && !r->write_err)
		fprintf(stderr, "prof: closing '%s' failed\n", r->out.path);
	if (!r->opts.quiet)
		record_summary__print(&(struct record_summary){
			.opts = &r->opts, .session = r->session, .writer = r->writer, .path = r->out.path,
			.cache = r->cache, .st_foreign = r->st_foreign, .pressure = &r->pressure });
	if (r->write_err || failed)
		return EXIT_PROF_FAIL;
	return r->has_workload ? workload__exit_code(&r->wl) : EXIT_PROF_OK;
}

/* Nothing recorded: the workload goes without running, the file as it was. */
static void abandon(struct recording *r)
{
	if (r->has_workload) {
		/* EOF on the cork: the child exits without running anything. */
		if (r->wl.cork_fd >= 0)
			close(steal_fd(&r->wl.cork_fd));
		if (r->wl.err_fd >= 0)
			close(steal_fd(&r->wl.err_fd));
		workload__stop(&r->wl, 2000);
	}
	output_file__abort(&r->out);
}

int cmd_record(int argc, char **argv)
{
	struct recording r = { .out.fd = -1 };
	char errbuf[1400];
	int err, ret;

	record_opts__init(&r.opts);
	preflight__init(&r.pf);
	err = record_opts__parse(&r.opts, argc, argv, errbuf, sizeof(errbuf));
	if (err == 1) {
		fputs(record_opts__usage, stdout);
		ret = EXIT_PROF_OK;
		goto out;
	}
	if (err < 0) {
		fprintf(stderr, "prof record: %s\n", errbuf);
		ret = EXIT_PROF_USAGE;
		goto out;
	}
	/* -g: Java frames from the leaf's registers and stack (jvm/frames.h) when a JVM
	 * is in reach, where preflight keeps it */
	if (jvm__in_reach(r.opts.argv ? r.opts.argv[0] : NULL, r.opts.scope.pids, r.opts.scope.nr_pids))
		r.opts.java_stack = JAVA_G_STACK;
	/* ... and JavaScript frames (node/frames.h): their slots lie above the native
	 * frames of a call into node, so a larger copy */
	if (node__in_reach(r.opts.argv ? r.opts.argv[0] : NULL, r.opts.scope.pids, r.opts.scope.nr_pids))
		r.opts.java_stack = MAX(r.opts.java_stack, NODE_G_STACK);
	if (getuid() != 0 && (getenv("PROF_RING_SAVE") || getenv("PROF_RING_REPLAY")))
		fprintf(stderr, "prof: PROF_RING_SAVE and PROF_RING_REPLAY are for root only (a saved file holds "
				"every task's records, before scope decides): ignored.\n");
	/* From here on a stop signal ends the recording cleanly, even during start-up. */
	signals__install();
	ret = preflight__run(&r.pf, &r.opts);
	if (!ret)
		ret = check_workload(&r);
	if (ret)
		goto out;
	err = output_file__create(&r.out, r.opts.output);
	if (err < 0) {
		fprintf(stderr, "prof: cannot create output file '%s': %s; choose another path with -o.\n",
			r.opts.output, err == -EEXIST ? "it exists and is not a regular file (a symlink, FIFO or device?)" : strerror(-err));
		ret = EXIT_PROF_FAIL;
		goto out;
	}
	ret = fork_workload(&r);
	if (ret) {
		output_file__abort(&r.out);
		goto out;
	}
	ret = start_recording(&r);
	if (ret) {
		abandon(&r);
		goto out;
	}
	ret = finish_recording(&r, record_loop(&r), argc, argv);
out:
	session__free(r.session);
	perf_writer__free(r.writer);
	build_id_table__free(r.build_ids);
	build_id_cache__free(r.cache);
	free(r.exe);
	preflight__release(&r.pf);
	record_opts__release(&r.opts);
	pressure_set__release(&r.pressure);
	return ret;
}
