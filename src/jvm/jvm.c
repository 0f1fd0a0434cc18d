/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Finding a process's HotSpot and reading its code cache: see include/prof/jvm/jvm.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "prof/analyze/unwinder.h"
#include "prof/base/util.h"
#include "prof/jvm/jvm.h"
#include "prof/runtime/runtime.h"
#include "prof/runtime/dynsym.h"
#include "prof/sys/procfs.h"

static const char *base_of(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

bool jvm__looks_like(const char *path)
{
	return strcmp(base_of(path), "libjvm.so") == 0;
}

bool jvm__in_reach(const char *argv0, const int *pids, size_t n)
{
	if (argv0 && strcmp(base_of(argv0), "java") == 0)
		return true;
	return runtime__pids_map(pids, n, jvm__looks_like);
}

const char *jvm__other_vm(const char *path)
{
	const char *b = base_of(path);

	if (strncmp(b, "libj9vm", 7) == 0 || strncmp(b, "libj9jit", 8) == 0)
		return "an Eclipse OpenJ9 JVM (prof reads HotSpot's self-description, which OpenJ9 does not have)";
	return NULL;
}

/* The symbol's place in the tables' symbols, noted. */
struct noted {
	struct jvm_syms *s;
	int found;
};

static void note_sym(void *ctx, const char *name, const GElf_Sym *sym)
{
	struct noted *n = ctx;

	if (strncmp(name, "gHotSpotVM", 10) != 0)
		return;
	for (int t = 0; t < JVM_TABLES; t++)
		for (int i = 0; i < JVM_SYMS; i++) {
			const char *want = jvm_syms__name(t, i);

			if (want && strcmp(want, name) == 0) {
				n->s->a[t][i] = sym->st_value;
				n->found++;
				return;
			}
		}
}

int jvm__read_syms(int fd, struct jvm_syms *ret, char *why, size_t why_len)
{
	struct noted n = { .s = ret };
	const char *missing;
	Elf *elf;

	memset(ret, 0, sizeof(*ret));
	if (!(elf = dynsym__elf(fd)))
		return -EINVAL;
	dynsym__each(elf, note_sym, &n);
	elf_end(elf);
	if (!n.found)
		return -ENOENT;
	if ((missing = jvm_syms__missing(ret))) {
		snprintf(why, why_len, "its libjvm.so exports no %s", missing);
		return -ENOTSUP;
	}
	return 0;
}

/* The load bias of the ELF file on fd mapped at start from file offset pgoff. */
static int bias_of(int fd, uint64_t start, uint64_t pgoff, uint64_t *ret)
{
	Elf *elf = dynsym__elf(fd);
	bool ok = elf && unwinder__map_bias(elf, &(struct map){ .start = start, .pgoff = pgoff }, ret);

	if (elf)
		elf_end(elf);
	return !elf ? -EINVAL : ok ? 0 : -ENOENT;
}

/* Judge the libjvm.so of mapping m (its path NUL-terminated in path). */
static int judge(int32_t pid, const struct proc_map *m, const char *path, bool same_ns, jvm_read_fn read, void *ctx,
		 struct jvm *ret, char *why, size_t why_len)
{
	int fd = dynsym__open_map(pid, m, path, same_ns), err;
	struct jvm_syms syms;

	if (fd < 0) {
		snprintf(why, why_len, "%s: its libjvm.so could not be opened (%s)", path, strerror(-fd));
		return fd;
	}
	err = jvm__read_syms(fd, &syms, why, why_len);
	if (err == 0)
		err = bias_of(fd, m->start, m->pgoff, &ret->bias);
	close(fd);
	if (err == -ENOENT) {
		snprintf(why, why_len, "%s: a libjvm.so with no HotSpot self-description (gHotSpotVMStructs)", path);
		return -ENOTSUP;
	}
	if (err < 0)
		return err;
	snprintf(ret->path, sizeof(ret->path), "%s", path);
	ret->read = read;
	ret->ctx = ctx;
	err = jvm_layout__read(&ret->l, &syms, ret->bias, read, ctx, why, why_len);
	if (err == -ENOTSUP) {
		char tail[192];

		snprintf(tail, sizeof(tail), "%s", why);
		snprintf(why, why_len, "%s: a HotSpot prof cannot check: %s", path, tail);
	}
	return err;
}

struct jvm_walk {
	int32_t pid;
	jvm_read_fn read;
	void *ctx;
	struct jvm *ret;
	char *why;
	size_t why_len;
	int err;        /* the first libjvm.so's judgement */
};

static int jvm_map(void *ctx, const struct proc_map *m, const char *path, bool same_ns)
{
	struct jvm_walk *w = ctx;
	const char *other = jvm__other_vm(path);

	if (other) {
		snprintf(w->why, w->why_len, "%s: %s", path, other);
		return -ENOTSUP;
	}
	if (!jvm__looks_like(path))
		return -ENOENT;
	/* the first libjvm.so decides: its answer, -ENOENT included, is the process's */
	w->err = judge(w->pid, m, path, same_ns, w->read, w->ctx, w->ret, w->why, w->why_len);
	return 1;
}

int jvm__find_in_maps(int32_t pid, const char *maps, jvm_read_fn read, void *ctx, struct jvm *ret, char *why,
		      size_t why_len)
{
	struct jvm_walk w = { pid, read, ctx, ret, why, why_len, 0 };
	int err;

	why[0] = '\0';
	err = dynsym__each_exec_map(pid, maps, jvm_map, &w);
	return err == 1 ? w.err : err;
}

int jvm__find(int32_t pid, jvm_read_fn read, void *ctx, struct jvm *ret, char *why, size_t why_len)
{
	char path[64];
	_cleanup_free_ char *maps = NULL;
	size_t len = 0;
	FILE *f;
	int err;

	why[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	if (!(f = fopen(path, "re")))
		return errno == ENOENT ? -ESRCH : -errno;
	err = getdelim(&maps, &len, '\0', f) < 0 ? (feof(f) ? -ESRCH : -errno) : 0;
	fclose(f);
	if (err < 0)
		return err;
	return jvm__find_in_maps(pid, maps, read, ctx, ret, why, why_len);
}

int jvm__read_heaps(struct jvm *j, char *why, size_t why_len)
{
	const struct jvm_layout *l = &j->l;
	uint8_t ga[256], heap[1024];
	uint64_t at, data;
	int32_t n;
	int err;

	if (l->v[JT_GROWABLE] > sizeof(ga) || l->v[JT_CODEHEAP] > sizeof(heap)) {
		snprintf(why, why_len, "its GrowableArray or CodeHeap is larger than a JVM's");
		return -ENOTSUP;
	}
	if ((err = j->read(j->ctx, l->v[JS_CODE_HEAPS] + j->bias, &at, 8)) < 0)
		return err;
	if (!at)
		return -EAGAIN;
	if ((err = j->read(j->ctx, at, ga, l->v[JT_GROWABLE])) < 0)
		return err;
	n = i32_at(ga, l->v[JF_GA_LEN]);
	data = u64_at(ga, l->v[JF_GA_DATA]);
	if (n == 0 || !data)
		return -EAGAIN;
	if (n < 0 || n > JVM_HEAPS_MAX) {
		snprintf(why, why_len, "its CodeCache has %d heaps (at most %d expected)", n, JVM_HEAPS_MAX);
		return -ENOTSUP;
	}
	j->n_heaps = 0;
	for (int32_t i = 0; i < n; i++) {
		struct jvm_heap *h = &j->heaps[i];
		uint64_t p;

		if ((err = j->read(j->ctx, data + 8 * (uint64_t)i, &p, 8)) < 0 ||
		    (err = j->read(j->ctx, p, heap, l->v[JT_CODEHEAP])) < 0)
			return err;
		h->lo = u64_at(heap, l->v[JF_HEAP_MEMORY] + l->v[JF_VS_LOW_BOUNDARY]);
		h->hi = u64_at(heap, l->v[JF_HEAP_MEMORY] + l->v[JF_VS_HIGH_BOUNDARY]);
		h->segmap = u64_at(heap, l->v[JF_HEAP_SEGMAP] + l->v[JF_VS_LOW_BOUNDARY]);
		j->log2_segment = (uint32_t)i32_at(heap, l->v[JF_HEAP_LOG2_SEGMENT]);
		if (!h->lo || h->hi <= h->lo || !h->segmap || j->log2_segment < 4 || j->log2_segment > 16) {
			snprintf(why, why_len, "its code heap %d is not one a JVM makes ([%#llx, %#llx), segments of "
				 "2^%u bytes)", i, (unsigned long long)h->lo, (unsigned long long)h->hi, j->log2_segment);
			return -ENOTSUP;
		}
	}
	j->n_heaps = (unsigned)n;
	return 0;
}

static const struct jvm_heap *heap_of(const struct jvm *j, uint64_t pc)
{
	for (unsigned i = 0; i < j->n_heaps; i++)
		if (pc >= j->heaps[i].lo && pc < j->heaps[i].hi)
			return &j->heaps[i];
	return NULL;
}

bool jvm__in_code(const struct jvm *j, uint64_t pc)
{
	return heap_of(j, pc) != NULL;
}

/*
 * The block holding pc, as CodeHeap::find_start: the segment map has, for each
 * segment of a used block, its distance (at most 0xfe) back towards the block's
 * first, which has 0; a free segment has 0xff.  Read in one piece: a block is
 * rarely longer than a page of the map.
 */
static int block_of(const struct jvm *j, const struct jvm_heap *h, uint64_t pc, uint64_t *ret)
{
	uint64_t seg = (pc - h->lo) >> j->log2_segment;
	uint8_t map[512];
	uint64_t lo;
	int err;

	for (int hops = 0; hops < 4096;) {
		lo = seg >= sizeof(map) - 1 ? seg - (sizeof(map) - 1) : 0;
		if ((err = j->read(j->ctx, h->segmap + lo, map, seg - lo + 1)) < 0)
			return err;
		while (seg >= lo && hops++ < 4096) {
			uint8_t tag = map[seg - lo];

			if (tag == 0xff)
				return -ENOENT;
			if (tag == 0) {
				*ret = h->lo + (seg << j->log2_segment);
				return 0;
			}
			if (tag > seg)
				return -ESTALE;
			seg -= tag;
		}
	}
	return -ESTALE;
}

static void kind_of(struct jvm_blob *b)
{
	/* a native method's wrapper is an nmethod too (a compile id, a Method*) */
	if (strcmp(b->name, "nmethod") == 0 || strcmp(b->name, "native nmethod") == 0)
		b->kind = JVM_BLOB_NMETHOD;
	else if (strcmp(b->name, "Interpreter") == 0)
		b->kind = JVM_BLOB_INTERPRETER;
	else
		b->kind = JVM_BLOB_STUB;
}

int jvm__find_blob(const struct jvm *j, uint64_t pc, struct jvm_blob *ret)
{
	const struct jvm_layout *l = &j->l;
	const struct jvm_heap *h = heap_of(j, pc);
	uint8_t blob[2048];
	uint64_t block, name;
	size_t len;
	int err;

	memset(ret, 0, sizeof(*ret));
	if (!h)
		return -ENOENT;
	if ((err = block_of(j, h, pc, &block)) < 0)
		return err;
	ret->start = block + l->v[JT_HEAPBLOCK];
	len = l->v[JT_NMETHOD] > l->v[JT_CODEBLOB] ? l->v[JT_NMETHOD] : l->v[JT_CODEBLOB];
	if (len > sizeof(blob))
		return -ENOTSUP;
	/* an nmethod's head: a smaller blob is followed by its code, bytes that are mapped */
	if ((err = j->read(j->ctx, ret->start, blob, len)) < 0)
		return err;
	ret->size = (uint32_t)i32_at(blob, l->v[JF_BLOB_SIZE]);
	ret->frame_size = i32_at(blob, l->v[JF_BLOB_FRAME_SIZE]);
	/* an int up to JDK 22, an int16_t since: the low half of either (little-endian) */
	ret->frame_complete = l->v[JF_BLOB_FRAME_COMPLETE] != JVM_NONE ?
				      (int16_t)(i32_at(blob, l->v[JF_BLOB_FRAME_COMPLETE]) & 0xffff) : -1;
	if (l->blob_offsets) {
		ret->code_begin = ret->start + (uint32_t)i32_at(blob, l->v[JF_BLOB_CODE_BEGIN]);
		ret->code_end = ret->start + (uint32_t)i32_at(blob, l->v[JF_BLOB_CODE_END]);
	} else {
		ret->code_begin = u64_at(blob, l->v[JF_BLOB_CODE_BEGIN]);
		ret->code_end = u64_at(blob, l->v[JF_BLOB_CODE_END]);
	}
	if (ret->size < l->v[JT_CODEBLOB] || ret->code_begin < ret->start || ret->code_end < ret->code_begin ||
	    ret->code_end > ret->start + ret->size)
		return -ESTALE;
	if (pc < ret->start || pc >= ret->start + ret->size)
		return -ENOENT;
	name = u64_at(blob, l->v[JF_BLOB_NAME]);
	if (!name || (err = j->read(j->ctx, name, ret->name, sizeof(ret->name) - 1)) < 0) {
		/* a name near the end of a mapping: shorter reads */
		memset(ret->name, 0, sizeof(ret->name));
		if (!name || j->read(j->ctx, name, ret->name, 8) < 0)
			return -ESTALE;
	}
	ret->name[sizeof(ret->name) - 1] = '\0';
	kind_of(ret);
	if (ret->kind != JVM_BLOB_NMETHOD)
		return 0;
	if (ret->size < l->v[JT_NMETHOD])
		return -ESTALE;
	ret->compile_id = i32_at(blob, l->v[JF_NM_COMPILE_ID]);
	ret->method = u64_at(blob, l->v[JF_NM_METHOD]);
	ret->entry_bci = l->v[JF_NM_ENTRY_BCI] != JVM_NONE ? i32_at(blob, l->v[JF_NM_ENTRY_BCI]) : -1;
	ret->comp_level = l->v[JF_NM_COMP_LEVEL] != JVM_NONE ? i32_at(blob, l->v[JF_NM_COMP_LEVEL]) : -1;
	return 0;
}

bool jvm_blob__same(const struct jvm_blob *a, const struct jvm_blob *b)
{
	return a->start == b->start && a->kind == b->kind && a->size == b->size && a->code_begin == b->code_begin &&
	       a->code_end == b->code_end && a->compile_id == b->compile_id && a->method == b->method &&
	       strcmp(a->name, b->name) == 0;
}
