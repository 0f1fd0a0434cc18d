/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <linux/perf_event.h>
#include <perf/event.h>

#include "prof/sys/procfs.h"
#include "prof/synth/synth.h"
#include "prof/base/util.h"

#define MAX_MAPS_FILE (64u << 20)

size_t synth__id_trailer_size(const struct synth_env *env)
{
	static const uint64_t bits[] = { PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ID,
					 PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU,
					 PERF_SAMPLE_IDENTIFIER };
	size_t n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(bits); i++)
		if (env->sample_type & bits[i])
			n += 8;
	return n;
}

/* sample_id_all trailer, in the kernel's order. */
static void put_trailer(const struct synth_env *env, uint8_t *p, pid_t pid, pid_t tid, uint64_t time)
{
	uint64_t st = env->sample_type;

	if (st & PERF_SAMPLE_TID) {
		uint32_t v[2] = { (uint32_t)pid, (uint32_t)tid };
		memcpy(p, v, 8), p += 8;
	}
	if (st & PERF_SAMPLE_TIME)
		memcpy(p, &time, 8), p += 8;
	if (st & PERF_SAMPLE_ID)
		memcpy(p, &env->id, 8), p += 8;
	if (st & PERF_SAMPLE_STREAM_ID)
		memcpy(p, &env->id, 8), p += 8;
	if (st & PERF_SAMPLE_CPU)
		memset(p, 0, 8), p += 8;
	if (st & PERF_SAMPLE_IDENTIFIER)
		memcpy(p, &env->id, 8);
}

int synth__comm(const struct synth_env *env, pid_t pid, pid_t tid, const char comm[16],
		uint64_t time, synth_sink_fn sink, void *ctx)
{
	uint8_t buf[sizeof(struct perf_event_header) + 8 + 16 + 64] = { 0 };
	struct perf_event_header *h = (void *)buf;
	uint32_t ids[2] = { (uint32_t)pid, (uint32_t)tid };
	size_t clen = strnlen(comm, 15) + 1, body = ALIGN_UP(clen, 8);
	size_t size = sizeof(*h) + 8 + body;

	memcpy(buf + sizeof(*h), ids, 8);
	memcpy(buf + sizeof(*h) + 8, comm, clen - 1);
	put_trailer(env, buf + size, pid, tid, time);
	size += synth__id_trailer_size(env);
	*h = (struct perf_event_header){ .type = PERF_RECORD_COMM, .misc = 0, .size = (uint16_t)size };
	return sink(buf, size, ctx);
}

int synth__cgroup(const struct synth_env *env, uint64_t id, const char *path, uint64_t time,
		  synth_sink_fn sink, void *ctx)
{
	uint8_t buf[sizeof(struct perf_event_header) + 8 + 4096 + 64] = { 0 };
	struct perf_event_header *h = (void *)buf;
	size_t plen = strnlen(path, 4095), size;

	memcpy(buf + sizeof(*h), &id, 8);
	memcpy(buf + sizeof(*h) + 8, path, plen);
	size = sizeof(*h) + 8 + ALIGN_UP(plen + 1, 8);
	/* perf puts no task in a cgroup record's sample id */
	put_trailer(env, buf + size, -1, -1, time);
	size += synth__id_trailer_size(env);
	*h = (struct perf_event_header){ .type = PERF_RECORD_CGROUP, .size = (uint16_t)size };
	return sink(buf, size, ctx);
}

/* An MMAP2 (user maps) or MMAP (kernel maps, as perf writes them) record. */
static int mmap_record(const struct synth_env *env, uint32_t type, uint16_t misc, pid_t pid, pid_t tid,
		     uint64_t start, uint64_t len, uint64_t pgoff, const struct proc_map *m,
		     const char *name, size_t name_len, uint64_t time, synth_sink_fn sink, void *ctx)
{
	uint8_t buf[sizeof(struct perf_event_header) + 80 + 4096 + 64] = { 0 };
	struct perf_event_header *h = (void *)buf;
	uint8_t *p = buf + sizeof(*h);
	uint32_t ids[2] = { (uint32_t)pid, (uint32_t)tid };
	size_t size;

	if (name_len > 4095)
		name_len = 4095;
	memcpy(p, ids, 8), p += 8;
	memcpy(p, &start, 8), p += 8;
	memcpy(p, &len, 8), p += 8;
	memcpy(p, &pgoff, 8), p += 8;
	if (type == PERF_RECORD_MMAP2) {
		uint64_t ino_gen = 0, ino = m ? m->ino : 0;
		uint32_t v[2] = { m ? m->maj : 0, m ? m->min : 0 };
		uint32_t pf[2] = { m ? m->prot : PROT_READ | PROT_EXEC, m ? m->flags : MAP_PRIVATE };

		memcpy(p, v, 8), p += 8;
		memcpy(p, &ino, 8), p += 8;
		memcpy(p, &ino_gen, 8), p += 8;
		memcpy(p, pf, 8), p += 8;
	}
	memcpy(p, name, name_len);
	p += ALIGN_UP(name_len + 1, 8);
	size = (size_t)(p - buf);
	put_trailer(env, p, pid, tid, time);
	size += synth__id_trailer_size(env);
	*h = (struct perf_event_header){ .type = type, .misc = misc, .size = (uint16_t)size };
	return sink(buf, size, ctx);
}

int synth__mmap2_build_id(const struct synth_env *env, pid_t pid, pid_t tid, uint64_t start, uint64_t len,
			  uint64_t pgoff, const uint8_t *id, size_t id_len, const char *name, uint64_t time,
			  synth_sink_fn sink, void *ctx)
{
	uint8_t buf[sizeof(struct perf_record_mmap2) + 256 + 64] = { 0 };
	struct perf_record_mmap2 *m = (void *)buf;
	size_t nlen = strnlen(name, 255), size;

	if (id_len > sizeof(m->build_id))
		return -EINVAL;
	*m = (struct perf_record_mmap2){ .pid = (uint32_t)pid, .tid = (uint32_t)tid, .start = start, .len = len,
					 .pgoff = pgoff, .build_id_size = (uint8_t)id_len,
					 .prot = PROT_READ | PROT_EXEC, .flags = MAP_PRIVATE };
	memcpy(m->build_id, id, id_len);
	memcpy(m->filename, name, nlen);
	size = offsetof(struct perf_record_mmap2, filename) + ALIGN_UP(nlen + 1, 8);
	put_trailer(env, buf + size, pid, tid, time);
	size += synth__id_trailer_size(env);
	m->header = (struct perf_event_header){ .type = PERF_RECORD_MMAP2, .size = (uint16_t)size,
						.misc = PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID };
	return sink(buf, size, ctx);
}

static int synth_maps(const struct synth_env *env, const char *maps, pid_t pid, uint64_t time,
		      synth_sink_fn sink, void *ctx)
{
	for (const char *line = maps; *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		struct proc_map m;
		const char *name;
		size_t nlen;
		int r;

		if (procfs__parse_maps_line(line, len, &m) == 0 &&
		    ((m.prot & PROT_EXEC) || env->data_maps)) {
			if (m.path_len == 0) {
				name = "//anon";        /* perf's name for anonymous (JIT) code */
				nlen = 6;
			} else {
				name = m.path;
				nlen = m.path_len;
				/* "(deleted)" files keep their name for perf's lookup */
			}
			r = mmap_record(env, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, pid, pid,
				      m.start, m.end - m.start, m.pgoff, &m, name, nlen, time, sink, ctx);
			if (r < 0)
				return r;
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	return 0;
}

static int gone(int r)
{
	/* A task that exited while we looked is a normal outcome. */
	return (r == -ENOENT || r == -ESRCH) ? -ESRCH : r;
}

int synth__read_task(const struct synth_env *env, pid_t pid, pid_t tid, unsigned int what,
		     struct synth_task *ret)
{
	_cleanup_free_ char *commbuf = NULL, *maps = NULL;
	char path[64];
	ssize_t r;

	*ret = (struct synth_task){ .pid = pid, .tid = tid };
	if (pid <= 0 || tid <= 0)
		return -ESRCH;
	if (what & SYNTH_COMM) {
		snprintf(path, sizeof(path), "%d/task/%d/comm", pid, tid);
		r = read_file_full(env->proc_fd, path, 4096, &commbuf);
		if (r < 0)
			return gone((int)r);
	}
	if (what & SYNTH_MAPS) {
		snprintf(path, sizeof(path), "%d/maps", pid);
		r = read_file_full(env->proc_fd, path, MAX_MAPS_FILE, &maps);
		if (r < 0)
			return gone((int)r);
	}
	ret->read_done = clock_mono_ns();
	if (commbuf)
		procfs__comm(commbuf, ret->comm);
	ret->maps = steal_pointer(&maps);
	ret->what = what;
	return 0;
}

void synth_task__release(struct synth_task *t)
{
	free(t->maps);
	t->maps = NULL;
}

int synth__task(const struct synth_env *env, const struct synth_task *task, uint64_t time,
		synth_sink_fn sink, void *ctx)
{
	int r;

	if (task->what & SYNTH_COMM) {
		r = synth__comm(env, task->pid, task->tid, task->comm, time, sink, ctx);
		if (r < 0)
			return r;
	}
	if (task->maps)
		return synth_maps(env, task->maps, task->pid, time, sink, ctx);
	return 0;
}

/*
 * The address of _text (else _stext) in /proc/kallsyms.  Read in chunks and stopped
 * at the first match: _text is near the top, and reading the whole file (100k+
 * lines) is most of a recording's start-up cost.
 */
static int kernel_ref(int proc_fd, const char **ret_ref, uint64_t *ret_addr)
{
	_cleanup_close_ int fd = openat(proc_fd, "kallsyms", O_RDONLY | O_CLOEXEC);
	char buf[1 << 16];
	size_t have = 0;
	uint64_t stext = 0;
	bool eof = false;

	if (fd < 0)
		return -errno;
	while (!eof) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - 1 - have);
		char *end, saved;
		int r;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		have += (size_t)n;
		eof = n == 0;
		buf[have] = '\0';
		end = eof ? buf + have : memrchr(buf, '\n', have);
		if (!end) {
			if (have == sizeof(buf) - 1)
				return -EINVAL;        /* a 64 KiB line is not kallsyms */
			continue;
		}
		saved = *end;
		*end = '\0';
		r = procfs__kallsyms_find(buf, "_text", ret_addr);
		if (r == 0 || r == -EPERM) {
			*ret_ref = "_text";
			return r;
		}
		if (!stext && procfs__kallsyms_find(buf, "_stext", &stext) == -EPERM)
			return -EPERM;
		*end = saved;
		if (!eof) {
			size_t used = (size_t)(end - buf) + 1;
			memmove(buf, buf + used, have - used);
			have -= used;
		}
	}
	if (!stext)
		return -ENOENT;
	*ret_ref = "_stext";
	*ret_addr = stext;
	return 0;
}

int synth__kernel_maps(const struct synth_env *env, synth_sink_fn sink, void *ctx)
{
	_cleanup_free_ char *modules = NULL;
	const char *ref = NULL;
	uint64_t text;
	char name[64 + 32];
	ssize_t r;

	r = kernel_ref(env->proc_fd, &ref, &text);
	if (r < 0)
		return (int)r;
	/* perf's convention: the map starts at the reference symbol, spans the rest of
	 * the address space, and pgoff carries the symbol's address for relocation. */
	snprintf(name, sizeof(name), "[kernel.kallsyms]%s", ref);
	r = mmap_record(env, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL, -1, 0, text, ~0ull - text,
		      text, NULL, name, strlen(name), 0, sink, ctx);
	if (r < 0)
		return (int)r;

	/* No /proc/modules (a kernel without modules) is fine. */
	if (read_file_full(env->proc_fd, "modules", MAX_MAPS_FILE, &modules) < 0)
		return 0;
	for (const char *line = modules; *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char mod[64];
		uint64_t addr, size;

		if (procfs__parse_module_line(line, len, mod, sizeof(mod), &addr, &size) == 0 && addr) {
			snprintf(name, sizeof(name), "[%s]", mod);
			r = mmap_record(env, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL, -1, 0, addr, size,
				      0, NULL, name, strlen(name), 0, sink, ctx);
			if (r < 0)
				return (int)r;
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	return 0;
}
