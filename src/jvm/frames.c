/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Java frames in unwound samples: see include/prof/jvm/frames.h.  The processes and
 * the symbol table here; the walk of one sample's stack in frames_walk.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "prof/base/hash.h"
#include "prof/base/util.h"
#include "prof/base/vec.h"
#include "prof/runtime/elf_writer.h"
#include "frames_internal.h"

/* ---- the symbol table ----------------------------------------------------------- */

static bool proc_eq(const void *e, const void *key, const void *ctx)
{
	(void)ctx;
	return ((const struct jproc *)e)->pid == *(const int32_t *)key;
}

static bool sym_eq(const void *e, const void *key, const void *ctx)
{
	const struct jvm_frames *jf = ctx;

	return strcmp(jf->names[*(const uint32_t *)e], key) == 0;
}

uint32_t jvm_frames__symbol(struct jvm_frames *jf, const char *name)
{
	uint64_t h = hash__bytes(name, strlen(name));
	uint32_t *e = hashtable__find(&jf->syms, h, name);
	bool created;
	char *copy;

	if (e)
		return *e;
	if (jf->nr_names >= JAVA_SYMBOLS_MAX ||
	    vec__reserve((void **)&jf->names, &jf->cap_names, jf->nr_names + 1, sizeof(char *)) < 0 ||
	    !(copy = strdup(name)))
		return JAVA_SYM_UNVERIFIED;
	jf->names[jf->nr_names] = copy;
	e = hashtable__insert(&jf->syms, h, name, &created);
	if (!e) {
		free(copy);
		return JAVA_SYM_UNVERIFIED;
	}
	*e = (uint32_t)jf->nr_names++;
	jf->st.locations = jf->nr_names;
	return *e;
}

int jvm_frames__new(const struct jvm_frames_config *cfg, struct jvm_frames **ret)
{
	struct jvm_frames *jf = calloc(1, sizeof(*jf));

	if (!jf)
		return -ENOMEM;
	jf->cfg = *cfg;
	hashtable__init(&jf->procs, sizeof(struct jproc), proc_eq, NULL);
	hashtable__init(&jf->syms, sizeof(uint32_t), sym_eq, jf);
	/* unique to this recording: the object is written at its end */
	jf->id.size = 20;
	if (getrandom(jf->id.data, 20, 0) != 20 || jvm_frames__symbol(jf, JAVA_UNVERIFIED_NAME) != 0 ||
	    jvm_frames__symbol(jf, JAVA_CALLERS_NAME) != JAVA_SYM_CALLERS ||
	    jvm_frames__symbol(jf, JAVA_ENTRY_NAME) != JAVA_SYM_ENTRY ||
	    jvm_frames__symbol(jf, JAVA_INTERPRETER_NAME) != JAVA_SYM_INTERPRETER) {
		jvm_frames__free(jf);
		return -ENOMEM;
	}
	*ret = jf;
	return 0;
}

static void proc_release(struct jproc *p)
{
	hashtable__release(&p->blobs);
	hashtable__release(&p->methods);
	hashtable__release(&p->pcs);
}

struct jvm_frames *jvm_frames__free(struct jvm_frames *jf)
{
	struct jproc *p;

	if (!jf)
		return NULL;
	for (size_t i = 0; (p = hashtable__next(&jf->procs, &i));)
		proc_release(p);
	hashtable__release(&jf->procs);
	hashtable__release(&jf->syms);
	for (size_t i = 0; i < jf->nr_names; i++)
		free(jf->names[i]);
	free(jf->names);
	free(jf->gregs);
	free(jf);
	return NULL;
}

const struct jvm_frames_stats *jvm_frames__stats(const struct jvm_frames *jf)
{
	return &jf->st;
}

void jvm_frames_stats__describe(const struct jvm_frames_stats *st, char *buf, size_t len)
{
	static const char *const why[JAVA_WHYS] = { "code not seen before the sample", "code changed",
						    "unreadable", "interpreter between frames",
						    "process gone before the sample was read" };
	uint64_t unverified = 0;
	size_t at;

	for (int i = 0; i < JAVA_WHYS; i++)
		unverified += st->unverified[i];
	at = (size_t)snprintf(buf, len,
			      "%" PRIu64 " samples of %" PRIu64 " JVM(s), %" PRIu64 " with Java frames, %" PRIu64
			      " of them all named; %" PRIu64 " frames named",
			      st->samples, st->processes, st->with_java, st->verified, st->frames);
	/* (a file's section keeps no kinds: none said rather than 0 of each) */
	if (at < len && st->interpreted + st->compiled + st->stubs)
		at += (size_t)snprintf(buf + at, len - at,
				       " (%" PRIu64 " interpreted, %" PRIu64 " compiled, %" PRIu64 " stubs)",
				       st->interpreted, st->compiled, st->stubs);
	if (at < len)
		at += (size_t)snprintf(buf + at, len - at, "; %" PRIu64 " [java: unverified]", unverified);
	for (int i = 0, first = 1; i < JAVA_WHYS && at < len; i++) {
		if (!st->unverified[i])
			continue;
		at += (size_t)snprintf(buf + at, len - at, "%s%" PRIu64 " %s", first ? " (" : ", ", st->unverified[i],
				       why[i]);
		first = 0;
	}
	if (unverified && at < len)
		at += (size_t)snprintf(buf + at, len - at, ")");
	if (at < len)
		snprintf(buf + at, len - at, "; %" PRIu64 " with callers not proven", st->cut);
}

/* ---- the processes ------------------------------------------------------------ */

int jvm_frames__read_mem(void *ctx, uint64_t addr, void *buf, size_t len)
{
	pid_t pid = (pid_t)(intptr_t)ctx;
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };
	ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EFAULT;
}

/* Does the model say pid maps a libjvm.so (of its own, prof's object aside)? */
static bool maps_jvm(const struct jvm_frames *jf, const struct maps *ms)
{
	for (size_t i = 0; ms && i < ms->nr; i++) {
		const struct model_dso *d = model__dso(jf->cfg.model, ms->v[i].dso);

		if (d && d->name && (jvm__looks_like(d->name) || jvm__other_vm(d->name)))
			return true;
	}
	return false;
}

static void reject(struct jvm_frames *jf, struct jproc *p, const char *why)
{
	p->ok = false;
	if (p->counted)
		return;
	p->counted = true;
	jf->st.rejected++;
	if (!jf->st.why_rejected[0])
		snprintf(jf->st.why_rejected, sizeof(jf->st.why_rejected), "%s", why);
}

/* Read pid's JVM: its tables and code heaps (again later while it is starting). */
static void judge(struct jvm_frames *jf, struct jproc *p, uint64_t now)
{
	char why[320] = "";
	int err;

	p->ok = false;
	/* its tables once (a fifth of a second for a JDK 25's libjvm.so), then its heaps
	 * until the JVM made them */
	err = p->has_layout ? 0 : jvm__find(p->pid, jvm_frames__read_mem, (void *)(intptr_t)p->pid, &p->j, why,
					     sizeof(why));
	p->has_layout = err == 0;
	if (err == 0)
		err = jvm__read_heaps(&p->j, why, sizeof(why));
	if (err == -EAGAIN || err == -ENOENT) {
		p->retry_ns = now + 100000000u;         /* a JVM starting: looked at again in 0.1 s */
		p->judged = err == -ENOENT;
		return;
	}
	p->judged = true;
	if (err < 0) {
		if (!why[0])
			snprintf(why, sizeof(why), "process %d's JVM could not be read: %s", p->pid, strerror(-err));
		reject(jf, p, why);
		return;
	}
	p->ok = true;
	p->interp_ok = jvm_frames__interp_ok(&p->j.l);
	if (!p->counted)
		jf->st.processes++;
	p->counted = true;
}

struct jproc *jvm_frames__proc(struct jvm_frames *jf, int32_t pid, uint64_t now)
{
	const struct maps *ms = model__maps(jf->cfg.model, pid);
	size_t nr = ms ? ms->nr : 0;
	struct jproc *p = hashtable__find(&jf->procs, hash__u64((uint32_t)pid), &pid);
	bool created;

	if (p && (p->ok || (p->judged && p->maps_nr == nr) || now < p->retry_ns))
		return p->ok ? p : NULL;
	if (!p) {
		if (!maps_jvm(jf, ms))
			return NULL;    /* judged again at its next sample (a cheap walk of its maps) */
		p = hashtable__insert(&jf->procs, hash__u64((uint32_t)pid), &pid, &created);
		if (!p)
			return NULL;
		*p = (struct jproc){ .pid = pid };
		hashtable__init(&p->blobs, sizeof(struct jblob_seen), jvm_frames__blob_eq, NULL);
		hashtable__init(&p->methods, sizeof(struct jmethod_sym), jvm_frames__method_eq, NULL);
		hashtable__init(&p->pcs, sizeof(struct jpc_syms), jvm_frames__pc_eq, NULL);
	}
	p->maps_nr = nr;
	judge(jf, p, now);
	return p->ok ? p : NULL;
}

void jvm_frames__note(struct jvm_frames *jf, const struct perf_event_header *ev)
{
	int32_t pid;
	struct jproc *p;

	if (ev->type == PERF_RECORD_EXIT && ev->size >= sizeof(struct perf_event_header) + 8) {
		const struct { uint32_t pid, ppid, tid, ptid; } *f = (const void *)(ev + 1);

		if (f->pid != f->tid)
			return;
		pid = (int32_t)f->pid;
	} else if (ev->type == PERF_RECORD_COMM && (ev->misc & PERF_RECORD_MISC_COMM_EXEC) &&
		   ev->size >= sizeof(struct perf_event_header) + 8) {
		pid = (int32_t)((const uint32_t *)(const void *)(ev + 1))[0];
	} else {
		return;
	}
	if (!jf->procs.nr || !(p = hashtable__find(&jf->procs, hash__u64((uint32_t)pid), &pid)))
		return;
	proc_release(p);
	hashtable__remove(&jf->procs, hash__u64((uint32_t)pid), &pid);
}

/* ---- the object ---------------------------------------------------------------- */

bool jvm_frames__name(const struct jvm_frames *jf, const struct model_dso *d, uint64_t off, const char **ret)
{
	if (d->build_id_len != jf->id.size || memcmp(d->build_id, jf->id.data, jf->id.size) != 0)
		return false;
	*ret = off >= RUNTIME_ELF_TEXT && off - RUNTIME_ELF_TEXT < jf->nr_names ? jf->names[off - RUNTIME_ELF_TEXT]
									     : NULL;
	return true;
}

int jvm_frames__map_object(struct jvm_frames *jf, const struct sample *s)
{
	const struct maps *ms = model__maps(jf->cfg.model, (int32_t)s->pid);

	if (ms && maps__find(ms, JAVA_BASE))
		return 0;
	return synth__mmap2_build_id(&jf->cfg.synth, (pid_t)s->pid, (pid_t)s->tid, JAVA_BASE, 1u << 24,
				     RUNTIME_ELF_TEXT, jf->id.data, jf->id.size, JAVA_OBJECT_PATH, s->time,
				     jf->cfg.sink, jf->cfg.sink_ctx);
}

void jvm_frames__finish(struct jvm_frames *jf)
{
	enum build_id_cache_result res;
	int fd, err;

	if (!jf->st.with_java || !jf->cfg.cache)
		return;
	fd = memfd_create("prof-java", MFD_CLOEXEC);
	if (fd < 0) {
		jf->st.kept = -errno;
		return;
	}
	err = runtime_elf__write(fd, &jf->id, (const char *const *)jf->names, jf->nr_names);
	if (err == 0)
		err = build_id_cache__add(jf->cfg.cache, fd, JAVA_OBJECT_PATH, &jf->id,
					  (uint64_t)lseek(fd, 0, SEEK_END), &res);
	if (err == 0 && res != BUILD_ID_CACHE_KEPT && res != BUILD_ID_CACHE_PRESENT)
		err = -ENOSPC;
	jf->st.kept = err;
	close(fd);
}
