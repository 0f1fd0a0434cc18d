/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --call-graph dwarf: samples' user stacks unwound while recording, with libdwfl's
 * frame unwinder fed from the sample (registers, stack copy) and the files of the
 * process's mappings.  See include/prof/unwind.h.
 */
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#include <perf/event.h>

#include "prof/perfdata/build_id_table.h"
#include "prof/perfdata/sample.h"
#include "prof/analyze/unwinder.h"
#include "prof/base/util.h"

#define NR_BUCKETS 1024
/*
 * libdwfl keeps each reported file open (and mapped) for the life of its Dwfl: the
 * Dwfls of all processes together keep at most this many (and at most half the
 * soft RLIMIT_NOFILE), the least recently used process's Dwfl is dropped (and
 * rebuilt if it has samples again) beyond.
 */
#define MAX_OPEN_FILES 1024

/* An executable file mapping of a process. */
struct umap {
	uint64_t start, end, pgoff;
	uint32_t maj, min;
	uint64_t ino;
	char *path;
};

/* The current sample, while it is unwound. */
struct usample {
	pid_t tid;
	const uint64_t *regs;           /* in the order of unwinder__regs_mask() bits */
	const uint8_t *stack;
	uint64_t sp, stack_len;
	uint64_t *ips;
	unsigned int nr_ips;
};

/*
 * A Dwfl and what it holds.  A forked child shares its parent's until one of them
 * maps something new (it then builds its own): fork-heavy workloads (shells, build
 * systems, pre-fork servers) build one per program, not one per process.
 */
struct udwfl {
	Dwfl *dwfl;
	unsigned int refs;
	unsigned int nr_files;          /* files it keeps open */
	struct usample *cur;            /* the sample being unwound */
};

struct uproc {
	struct uproc *next;             /* hash chain */
	int32_t pid;
	struct umap *maps;
	size_t nr_maps, cap_maps;
	struct udwfl *d;                /* NULL until needed, or after the maps changed */
	size_t nr_reported;             /* maps[0 .. nr_reported) are in d */
	uint64_t last_used;             /* the unwinder's clock when it last unwound */
	bool attach_failed;             /* with these maps: nothing to unwind with */
};

struct unwinder {
	uint64_t sample_type;
	struct sample_layout layout;
	unsigned int nr_regs;
	size_t tail_size;               /* bytes of the fields after STACK_USER */
	struct uproc *procs[NR_BUCKETS];
	unsigned int open_files;        /* by all Dwfls */
	unsigned int max_open_files;
	uint64_t clock;
	struct unwinder_stats st;
};



bool unwinder__supported(void)
{
#if defined(__x86_64__)
	return true;
#else
	return false;
#endif
}

#if defined(__x86_64__)
/* perf's x86 register numbers (arch/x86/include/uapi/asm/perf_regs.h) */
enum { R_AX, R_BX, R_CX, R_DX, R_SI, R_DI, R_BP, R_SP, R_IP, R_R8 = 16, R_R15 = 23 };
#define REGS_MASK (0x1ffull | (0xffull << R_R8))
/* Index in the sample's register block (mask bit order) of each DWARF register
 * 0..15 (rax rdx rcx rbx rsi rdi rbp rsp r8..r15); rip (16) is index 8. */
static const unsigned char dwarf_to_sample[16] = { 0, 3, 2, 1, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15, 16 };
#define SAMPLE_IP 8
#define SAMPLE_SP 7
#else
#define REGS_MASK 0ull
#endif

uint64_t unwinder__regs_mask(void)
{
	return REGS_MASK;
}

uint64_t unwinder__written_sample_type(uint64_t st)
{
	return (st | PERF_SAMPLE_CALLCHAIN) & ~(uint64_t)(PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER);
}

struct unwinder *unwinder__new(uint64_t kernel_sample_type)
{
	struct unwinder *u = calloc(1, sizeof(*u));
	struct rlimit rl;

	if (!u)
		return NULL;
	u->sample_type = kernel_sample_type;
	sample_layout__init(&u->layout, kernel_sample_type);
	u->nr_regs = (unsigned int)__builtin_popcountll(REGS_MASK);
	u->tail_size = 8u * (unsigned int)__builtin_popcountll(kernel_sample_type &
		(PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION |
		 PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP | PERF_SAMPLE_DATA_PAGE_SIZE |
		 PERF_SAMPLE_CODE_PAGE_SIZE));
	u->max_open_files = MAX_OPEN_FILES;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		/* room for the Dwfls' files, as perf lifts its own limit for its fds */
		if (rl.rlim_cur < 2 * MAX_OPEN_FILES + 1024 && rl.rlim_max > rl.rlim_cur) {
			rl.rlim_cur = MIN(rl.rlim_max, (rlim_t)(2 * MAX_OPEN_FILES + 1024));
			setrlimit(RLIMIT_NOFILE, &rl);
			getrlimit(RLIMIT_NOFILE, &rl);
		}
		if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur / 2 < u->max_open_files)
			u->max_open_files = (unsigned int)(rl.rlim_cur / 2);
	}
	return u;
}

static void udwfl_put(struct unwinder *u, struct udwfl *d)
{
	if (!d || --d->refs)
		return;
	if (d->dwfl)
		dwfl_end(d->dwfl);
	u->open_files -= d->nr_files;
	free(d);
}

static void uproc_reset(struct unwinder *u, struct uproc *p)
{
	udwfl_put(u, p->d);
	p->d = NULL;
	p->nr_reported = 0;
	p->attach_failed = false;
}

static void uproc_free(struct unwinder *u, struct uproc *p)
{
	uproc_reset(u, p);
	for (size_t i = 0; i < p->nr_maps; i++)
		free(p->maps[i].path);
	free(p->maps);
	free(p);
}

struct unwinder *unwinder__free(struct unwinder *u)
{
	if (!u)
		return NULL;
	for (size_t b = 0; b < NR_BUCKETS; b++) {
		struct uproc *p = u->procs[b], *next;
		for (; p; p = next) {
			next = p->next;
			uproc_free(u, p);
		}
	}
	free(u);
	return NULL;
}

const struct unwinder_stats *unwinder__stats(const struct unwinder *u)
{
	return &u->st;
}

static struct uproc **uproc_slot(struct unwinder *u, int32_t pid)
{
	struct uproc **pp = &u->procs[(uint32_t)pid % NR_BUCKETS];

	while (*pp && (*pp)->pid != pid)
		pp = &(*pp)->next;
	return pp;
}

static struct uproc *uproc_get(struct unwinder *u, int32_t pid, bool create)
{
	struct uproc **pp = uproc_slot(u, pid);

	if (*pp || !create)
		return *pp;
	*pp = calloc(1, sizeof(**pp));
	if (*pp)
		(*pp)->pid = pid;
	return *pp;
}

static void uproc_forget(struct unwinder *u, int32_t pid)
{
	struct uproc **pp = uproc_slot(u, pid), *p = *pp;

	if (!p)
		return;
	*pp = p->next;
	uproc_free(u, p);
}

static void maps_changed(struct unwinder *u, struct uproc *p)
{
	uproc_reset(u, p);
}

static void umap_remove(struct uproc *p, size_t i)
{
	free(p->maps[i].path);
	memmove(&p->maps[i], &p->maps[i + 1], (p->nr_maps - i - 1) * sizeof(*p->maps));
	p->nr_maps--;
}

static int umap_push(struct uproc *p, const struct umap *m)
{
	if (p->nr_maps == p->cap_maps) {
		size_t ncap = MAX(p->cap_maps * 2, 16);
		struct umap *n = realloc(p->maps, ncap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		p->maps = n;
		p->cap_maps = ncap;
	}
	p->maps[p->nr_maps++] = *m;
	return 0;
}

/* A new mapping [start, end) hides whatever it overlaps; only executable files are kept. */
static int uproc_mmap(struct unwinder *u, struct uproc *p, const struct perf_record_mmap2 *m)
{
	uint64_t start = m->start, end = m->start + m->len;
	bool changed = false;
	struct umap n;

	for (size_t i = 0; i < p->nr_maps;) {
		struct umap *o = &p->maps[i];

		if (o->end <= start || o->start >= end) {
			i++;
			continue;
		}
		changed = true;
		if (o->start >= start && o->end <= end) {
			umap_remove(p, i);
			continue;
		}
		if (o->start < start && o->end > end) {
			/* split: the part above the new mapping becomes its own */
			struct umap hi = *o;
			hi.path = strdup(o->path);
			if (!hi.path)
				return -ENOMEM;
			hi.pgoff += end - o->start;
			hi.start = end;
			o->end = start;
			if (umap_push(p, &hi) < 0) {
				free(hi.path);
				return -ENOMEM;
			}
		} else if (o->start < start) {
			o->end = start;
		} else {
			o->pgoff += end - o->start;
			o->start = end;
		}
		i++;
	}
	if ((m->prot & PROT_EXEC) && m->filename[0] == '/' && m->len &&
	    !(m->header.misc & PERF_RECORD_MISC_MMAP_BUILD_ID)) {
		size_t room = m->header.size - offsetof(struct perf_record_mmap2, filename);

		n = (struct umap){ .start = start, .end = end, .pgoff = m->pgoff,
				   .maj = m->maj, .min = m->min, .ino = m->ino,
				   .path = strndup(m->filename, MIN(room, (size_t)PATH_MAX)) };
		if (!n.path || umap_push(p, &n) < 0) {
			free(n.path);
			return -ENOMEM;
		}
		/* a mapping added (a library loaded): the Dwfl is told at its next use */
		p->attach_failed = false;
	}
	if (changed)
		maps_changed(u, p);
	return 0;
}

static int uproc_fork(struct unwinder *u, int32_t pid, int32_t ppid)
{
	struct uproc *parent = uproc_get(u, ppid, false), *child;

	uproc_forget(u, pid);           /* a reused pid */
	if (!parent)
		return 0;
	child = uproc_get(u, pid, true);
	if (!child)
		return -ENOMEM;
	for (size_t i = 0; i < parent->nr_maps; i++) {
		struct umap m = parent->maps[i];
		m.path = strdup(m.path);
		if (!m.path || umap_push(child, &m) < 0) {
			free(m.path);
			return -ENOMEM;
		}
	}
	/* the same maps: the same Dwfl, until one of them maps something new */
	if (parent->d) {
		child->d = parent->d;
		child->d->refs++;
		child->nr_reported = parent->nr_reported;
		child->last_used = parent->last_used;
	}
	child->attach_failed = parent->attach_failed;
	return 0;
}

int unwinder__note(struct unwinder *u, const struct perf_event_header *ev)
{
	switch (ev->type) {
	case PERF_RECORD_MMAP2: {
		const struct perf_record_mmap2 *m = (const void *)ev;
		struct uproc *p;

		if (ev->size < offsetof(struct perf_record_mmap2, filename) + 1 || (int32_t)m->pid <= 0)
			return 0;
		p = uproc_get(u, (int32_t)m->pid, true);
		return p ? uproc_mmap(u, p, m) : -ENOMEM;
	}
	case PERF_RECORD_FORK: {
		const struct perf_record_fork *f = (const void *)ev;

		if (ev->size < sizeof(*f) || f->pid == f->ppid)
			return 0;       /* a thread: same maps */
		return uproc_fork(u, (int32_t)f->pid, (int32_t)f->ppid);
	}
	case PERF_RECORD_COMM: {
		const struct perf_record_comm *c = (const void *)ev;
		struct uproc *p;

		/* exec: the new program's mappings follow */
		if (!(ev->misc & PERF_RECORD_MISC_COMM_EXEC) || ev->size < sizeof(*c))
			return 0;
		p = uproc_get(u, (int32_t)c->pid, false);
		if (p) {
			for (size_t i = p->nr_maps; i > 0; i--)
				umap_remove(p, i - 1);
			maps_changed(u, p);
		}
		return 0;
	}
	case PERF_RECORD_EXIT: {
		const struct perf_record_fork *f = (const void *)ev;

		if (ev->size >= sizeof(*f) && f->pid == f->tid)
			uproc_forget(u, (int32_t)f->pid);
		return 0;
	}
	default:
		return 0;
	}
}

#if defined(__x86_64__)
static int no_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		  char **file_name, Elf **elfp)
{
	return -1;
}

/* Only what is in the mapped files (.eh_frame, and .debug_frame if not stripped):
 * no debuginfo is looked for in other paths. */
static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			char **debuginfo_file_name)
{
	return -1;
}

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = no_elf,
	.find_debuginfo = no_debuginfo,
};

static pid_t cb_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct udwfl *d = arg;

	if (*thread_argp)
		return 0;
	*thread_argp = d;
	return d->cur->tid;
}

static bool cb_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	*thread_argp = arg;
	return true;
}

/* Read the word at addr of a mapped file's image (what is not on the stack copy). */
static bool read_from_file(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, addr);
	Dwarf_Addr bias;
	Elf *elf;
	size_t n;
	char *raw;

	if (!mod || !(elf = dwfl_module_getelf(mod, &bias)) || elf_getphdrnum(elf, &n) < 0)
		return false;
	raw = elf_rawfile(elf, NULL);
	for (size_t i = 0; raw && i < n; i++) {
		GElf_Phdr ph;
		uint64_t a = addr - bias;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (a >= ph.p_vaddr && a + 8 <= ph.p_vaddr + ph.p_filesz) {
			size_t size;
			elf_rawfile(elf, &size);
			if (ph.p_offset + (a - ph.p_vaddr) + 8 > size)
				return false;
			memcpy(result, raw + ph.p_offset + (a - ph.p_vaddr), 8);
			return true;
		}
	}
	return false;
}

static bool cb_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct udwfl *d = arg;
	const struct usample *s = d->cur;

	if (addr >= s->sp && addr - s->sp <= s->stack_len && s->stack_len - (addr - s->sp) >= 8) {
		memcpy(result, s->stack + (addr - s->sp), 8);
		return true;
	}
	return read_from_file(dwfl, addr, result);
}

static bool cb_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct udwfl *d = arg;
	const struct usample *s = d->cur;
	Dwarf_Word regs[16];

	for (unsigned int i = 0; i < 16; i++)
		regs[i] = s->regs[dwarf_to_sample[i]];
	if (!dwfl_thread_state_registers(thread, 0, 16, regs))
		return false;
	dwfl_thread_state_register_pc(thread, s->regs[SAMPLE_IP]);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = cb_next_thread,
	.get_thread = cb_get_thread,
	.memory_read = cb_memory_read,
	.set_initial_registers = cb_set_initial_registers,
};

/*
 * The load bias of the file mapped by m: its PT_LOAD holding file offset m->pgoff
 * is at m->start.  The base dwfl_report_elf() wants is where its first PT_LOAD
 * (page-aligned) then lies.  False when the file is not such an ELF.
 */
static bool elf_base(int fd, const struct umap *m, uint64_t *ret_base)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	bool found = false, first_seen = false;
	uint64_t bias = 0, first = 0;
	size_t n;

	if (!elf)
		return false;
	if (elf_kind(elf) == ELF_K_ELF && elf_getphdrnum(elf, &n) == 0) {
		for (size_t i = 0; i < n; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			if (!first_seen) {
				first = ph.p_vaddr & -(ph.p_align ? ph.p_align : 1);
				first_seen = true;
			}
			if (!found && m->pgoff >= (ph.p_offset & -(uint64_t)4096) &&
			    m->pgoff < ph.p_offset + ph.p_filesz) {
				bias = m->start - (ph.p_vaddr - ph.p_offset + m->pgoff);
				found = true;
			}
		}
	}
	elf_end(elf);
	*ret_base = bias + first;
	return found;
}

/* Drop the least recently used Dwfls until n more files may be opened. */
static void make_room(struct unwinder *u, const struct uproc *keep, unsigned int n)
{
	while (u->open_files + n > u->max_open_files) {
		struct uproc *lru = NULL;

		for (size_t b = 0; b < NR_BUCKETS; b++)
			for (struct uproc *p = u->procs[b]; p; p = p->next)
				if (p->d && p->d != keep->d && (!lru || p->last_used < lru->last_used))
					lru = p;
		if (!lru)
			return;
		uproc_reset(u, lru);
		u->st.dwfl_evictions++;
	}
}

/* Report maps[nr_reported ..) to the Dwfl (in a reporting session). */
static bool report_new_maps(struct unwinder *u, struct uproc *p)
{
	bool any = false;

	for (size_t i = p->nr_reported; i < p->nr_maps; i++) {
		const struct umap *m = &p->maps[i];
		char proc[64];
		uint64_t base;
		int fd;

		if (dwfl_addrmodule(p->d->dwfl, m->start))
			continue;       /* another segment of a file already reported */
		fd = mapped_file__open(m->path, m->maj, m->min, m->ino);
		if (fd < 0)
			continue;
		/* libdwfl opens its own descriptor of the very file checked here */
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		if (elf_base(fd, m, &base) && dwfl_report_elf(p->d->dwfl, m->path, proc, -1, base, false)) {
			any = true;
			p->d->nr_files++;
			u->open_files++;
		}
		close(fd);
	}
	p->nr_reported = p->nr_maps;
	return any;
}

/*
 * The process's Dwfl: every executable file mapping reported, state attached.
 * Mappings added since it was built (libraries loaded) are reported to it now;
 * one replaced or an exec dropped it (maps_changed).
 */
static struct udwfl *uproc_dwfl(struct unwinder *u, struct uproc *p)
{
	struct udwfl *d;

	p->last_used = ++u->clock;
	if (p->attach_failed)
		return NULL;
	if (p->d && p->nr_reported < p->nr_maps && p->d->refs > 1)
		uproc_reset(u, p);      /* shared, and this process mapped more: its own */
	if (p->d) {
		if (p->nr_reported < p->nr_maps) {
			make_room(u, p, (unsigned int)MIN(p->nr_maps - p->nr_reported, (size_t)MAX_OPEN_FILES));
			dwfl_report_begin_add(p->d->dwfl);
			report_new_maps(u, p);
			dwfl_report_end(p->d->dwfl, NULL, NULL);
		}
		return p->d;
	}
	make_room(u, p, (unsigned int)MIN(p->nr_maps, (size_t)MAX_OPEN_FILES));
	u->st.dwfl_builds++;
	d = p->d = calloc(1, sizeof(*d));
	if (!d)
		goto fail;
	d->refs = 1;
	d->dwfl = dwfl_begin(&dwfl_callbacks);
	if (!d->dwfl)
		goto fail;
	dwfl_report_begin(d->dwfl);
	if (report_new_maps(u, p)) {
		dwfl_report_end(d->dwfl, NULL, NULL);
		if (dwfl_attach_state(d->dwfl, NULL, p->pid, &thread_callbacks, d))
			return d;
	} else {
		dwfl_report_end(d->dwfl, NULL, NULL);
	}
fail:
	uproc_reset(u, p);
	p->attach_failed = true;
	return NULL;
}

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct usample *s = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, &activation) || pc == 0)
		return DWARF_CB_ABORT;
	/* the ip of the sample, then return addresses, as the kernel's callchains */
	s->ips[s->nr_ips++] = pc;
	return s->nr_ips >= UNWIND_MAX_FRAMES ? DWARF_CB_ABORT : DWARF_CB_OK;
}

/* Unwind into s->ips.  Returns true when the walk reached an outermost frame. */
static bool unwind(struct unwinder *u, int32_t pid, struct usample *s)
{
	struct uproc *p = uproc_get(u, pid, false);
	struct udwfl *d;
	int r;

	if (!p || !p->nr_maps) {
		u->st.no_maps++;
		s->ips[s->nr_ips++] = s->regs[SAMPLE_IP];
		return false;
	}
	d = uproc_dwfl(u, p);
	if (!d) {
		s->ips[s->nr_ips++] = s->regs[SAMPLE_IP];
		return false;
	}
	d->cur = s;
	r = dwfl_getthread_frames(d->dwfl, s->tid, frame_cb, s);
	d->cur = NULL;
	if (!s->nr_ips)
		s->ips[s->nr_ips++] = s->regs[SAMPLE_IP];
	return r == 0;
}
#else
static bool unwind(struct unwinder *u, int32_t pid, struct usample *s)
{
	s->ips[s->nr_ips++] = s->regs[0];
	return false;
}
#endif

int unwinder__rewrite(struct unwinder *u, const struct perf_event_header *ev, void *out, size_t outlen)
{
	const uint8_t *in = (const void *)ev, *end = in + ev->size, *pos;
	uint64_t ips[UNWIND_MAX_FRAMES];
	struct usample s = { .ips = ips };
	const uint64_t *kchain = NULL;
	uint64_t nr_k = 0, abi = 0, size;
	uint8_t *o = out;
	int32_t pid = 0, tid = 0;
	size_t fixed = u->layout.fixed_size, len;

	if (ev->size < fixed)
		return -EINVAL;
	sample_layout__tid(&u->layout, ev, &pid, &tid);
	pos = in + fixed;
	if (u->sample_type & PERF_SAMPLE_CALLCHAIN) {
		if (end - pos < 8)
			return -EINVAL;
		memcpy(&nr_k, pos, 8);
		if (nr_k > (uint64_t)(end - pos - 8) / 8)
			return -EINVAL;
		kchain = (const uint64_t *)(const void *)(pos + 8);
		pos += 8 + 8 * nr_k;
		/* the kernel part only (user callchains are excluded, but be sure) */
		for (uint64_t i = 0; i < nr_k; i++)
			if (kchain[i] == PERF_CONTEXT_USER) {
				nr_k = i;
				break;
			}
	}
	if (u->sample_type & PERF_SAMPLE_REGS_USER) {
		if (end - pos < 8)
			return -EINVAL;
		memcpy(&abi, pos, 8);
		pos += 8;
		if (abi) {
			if ((size_t)(end - pos) < 8u * u->nr_regs)
				return -EINVAL;
			s.regs = (const uint64_t *)(const void *)pos;
			pos += 8u * u->nr_regs;
		}
	}
	if (u->sample_type & PERF_SAMPLE_STACK_USER) {
		if (end - pos < 8)
			return -EINVAL;
		memcpy(&size, pos, 8);
		pos += 8;
		if (size) {
			uint64_t dyn;
			if (size > (uint64_t)(end - pos) || (uint64_t)(end - pos) - size < 8)
				return -EINVAL;
			s.stack = pos;
			memcpy(&dyn, pos + size, 8);
			s.stack_len = MIN(dyn, size);
			pos += size + 8;
		}
	}
	/* what follows the stack: fixed-size fields only (prof asks for CGROUP) */
	if ((size_t)(end - pos) != u->tail_size)
		return -EINVAL;
	len = fixed + 8 + 8 * (size_t)nr_k + (size_t)(end - pos);
	if (s.regs)
		len += 8 * (1 + UNWIND_MAX_FRAMES);
	if (outlen < len)
		return -EINVAL;

	if (s.regs) {
		s.tid = tid;
		u->st.samples++;
#if defined(__x86_64__)
		s.sp = s.regs[SAMPLE_SP];
		if (abi != PERF_SAMPLE_REGS_ABI_64) {
			u->st.foreign_abi++;
			s.ips[s.nr_ips++] = s.regs[SAMPLE_IP];
		} else if (!unwind(u, pid, &s)) {
			u->st.truncated++;
		}
#else
		unwind(u, pid, &s);
#endif
		u->st.frames += s.nr_ips;
	}

	memcpy(o, in, fixed);
	o += fixed;
	{
		uint64_t nr = nr_k + (s.nr_ips ? 1 + s.nr_ips : 0), ctx = PERF_CONTEXT_USER;
		memcpy(o, &nr, 8);
		o += 8;
		if (nr_k)
			memcpy(o, kchain, 8 * nr_k);
		o += 8 * nr_k;
		if (s.nr_ips) {
			memcpy(o, &ctx, 8);
			memcpy(o + 8, s.ips, 8 * s.nr_ips);
			o += 8 * (1 + s.nr_ips);
		}
	}
	memcpy(o, pos, (size_t)(end - pos));       /* what follows (CGROUP) */
	o += end - pos;
	len = (size_t)(o - (uint8_t *)out);
	if (len > UINT16_MAX)
		return -EINVAL;
	((struct perf_event_header *)out)->size = (uint16_t)len;
	return (int)len;
}
