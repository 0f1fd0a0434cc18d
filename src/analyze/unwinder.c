/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --call-graph dwarf: samples' user stacks unwound while recording, with libdwfl's
 * frame unwinder fed from the sample (registers, stack copy) and the files of the
 * process's mappings.  See include/prof/analyze/unwinder.h.
 */
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#include <perf/event.h>

#include "prof/analyze/model.h"
#include "prof/analyze/unwinder.h"
#include "prof/base/hash.h"
#include "prof/base/hashtable.h"
#include "prof/base/util.h"
#include "prof/perfdata/sample.h"
#include "prof/perfdata/vdso.h"

/*
 * libdwfl keeps each reported file open (and mapped) for the life of its Dwfl: the
 * Dwfls of all processes together keep at most this many (and at most half the
 * soft RLIMIT_NOFILE), the least recently used process's Dwfl is dropped (and
 * rebuilt if it has samples again) beyond.
 */
#define MAX_OPEN_FILES 1024

/* The current sample, while it is unwound. */
struct usample {
	pid_t tid;
	const uint64_t *regs;           /* in the order of unwinder__regs_mask() bits */
	const uint8_t *stack;
	uint64_t sp, stack_len;
	uint64_t *ips;
	uint64_t *sps;                  /* NULL, or each frame's stack pointer */
	struct unwind_regs *fregs;      /* NULL, or each frame's known registers */
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

/* What the unwinder keeps for a process beside its maps (the model's). */
struct uproc {
	int32_t pid;
	struct udwfl *d;                /* NULL until needed, or after the maps changed */
	bool unreported;                /* file mappings added since d was told */
	bool attach_failed;             /* with these maps: nothing to unwind with */
	uint64_t last_used;             /* the unwinder's clock when it last unwound */
};

struct unwinder {
	struct perf_event_attr attr;    /* what the kernel's samples hold */
	size_t head_size;               /* bytes of the header and fixed fields, kept as they are */
	struct model *model;            /* the processes' maps, as the file describes them */
	bool reading;                   /* model is a reader's (unwinder__new_reading), not ours */
	unwinder_open_fn open;          /* the mapped files */
	void *open_ctx;
	struct hashtable procs;         /* of struct uproc, by pid */
	unsigned int open_files;        /* by all Dwfls */
	unsigned int max_open_files;
	uint64_t clock;
	unwinder_edit_fn edit;          /* ... of a rewritten sample's user frames */
	void *edit_ctx;
	struct unwind_regs fregs;       /* the frames' registers, for edit */
	struct vdso_image vdso;         /* recording: prof's own [vdso] image (fd -1: none) */
	bool vdso_read;
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

static bool uproc_eq(const void *e, const void *key, const void *ctx)
{
	return ((const struct uproc *)e)->pid == *(const int32_t *)key;
}

static uint64_t pid_hash(int32_t pid)
{
	return hash__u64((uint32_t)pid);
}

/* Without an opener: the file from prof's root, else through the task. */
static int open_default(void *ctx, const struct task_file *f)
{
	enum task_file_way way;

	return task_file__open(f, TASK_FILE_TRY_HOST, &way, NULL);
}

/* An unwinder over model m (NULL: a model of its own). */
static struct unwinder *unwinder_new(struct model *m, unwinder_open_fn open, void *ctx)
{
	struct unwinder *u = calloc(1, sizeof(*u));
	struct rlimit rl;

	if (!u)
		return NULL;
	u->reading = m != NULL;
	u->model = m ? m : model__new();
	if (!u->model) {
		free(u);
		return NULL;
	}
	hashtable__init(&u->procs, sizeof(struct uproc), uproc_eq, NULL);
	u->vdso.fd = -1;
	u->open = open ? open : open_default;
	u->open_ctx = ctx;
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

struct unwinder *unwinder__new(uint64_t kernel_sample_type, unwinder_open_fn open, void *ctx)
{
	struct unwinder *u = unwinder_new(NULL, open, ctx);
	struct sample_layout l;

	if (!u)
		return NULL;
	u->attr = (struct perf_event_attr){ .size = sizeof(u->attr), .sample_type = kernel_sample_type,
					    .sample_regs_user = REGS_MASK };
	sample_layout__init(&l, kernel_sample_type);
	u->head_size = l.fixed_size;
	return u;
}

struct unwinder *unwinder__new_reading(struct model *m, unwinder_open_fn open, void *ctx)
{
	return unwinder_new(m, open, ctx);
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

/* The maps changed: the Dwfl is rebuilt at the next sample. */
static void uproc_reset(struct unwinder *u, struct uproc *p)
{
	udwfl_put(u, p->d);
	p->d = NULL;
	p->unreported = false;
	p->attach_failed = false;
}

struct unwinder *unwinder__free(struct unwinder *u)
{
	struct uproc *p;

	if (!u)
		return NULL;
	for (size_t i = 0; (p = hashtable__next(&u->procs, &i));)
		udwfl_put(u, p->d);
	hashtable__release(&u->procs);
	if (!u->reading)
		model__free(u->model);
	if (u->vdso.fd >= 0)
		close(u->vdso.fd);
	free(u);
	return NULL;
}

struct model *unwinder__model(struct unwinder *u)
{
	return u->model;
}

const struct unwinder_stats *unwinder__stats(const struct unwinder *u)
{
	return &u->st;
}

static struct uproc *uproc_find(struct unwinder *u, int32_t pid)
{
	return hashtable__find(&u->procs, pid_hash(pid), &pid);
}

static struct uproc *uproc_get(struct unwinder *u, int32_t pid)
{
	bool created;
	struct uproc *p = hashtable__insert(&u->procs, pid_hash(pid), &pid, &created);

	if (p && created)
		p->pid = pid;
	return p;
}

static void uproc_forget(struct unwinder *u, int32_t pid)
{
	struct uproc *p = uproc_find(u, pid);

	if (p) {
		udwfl_put(u, p->d);
		hashtable__remove(&u->procs, pid_hash(pid), &pid);
	}
}

/* A mapping the unwinder uses: an executable file it can open as the one mapped
 * (its device and inode, or its build id, say which), or a 64-bit task's vDSO
 * (its .eh_frame: the frames of __vdso_clock_gettime and the like unwind). */
static bool unwindable(const struct unwinder *u, const struct map *m)
{
	const struct model_dso *d = model__dso(u->model, m->dso);

	return (m->prot & PROT_EXEC) &&
	       (((d->has_inode || d->build_id_len) && d->name[0] == '/') || d->vdso == MODEL_VDSO_NATIVE);
}

/*
 * The [vdso] image, opened: while recording, prof's own (the kernel's, the same in
 * every 64-bit task); a reader's opener finds the file's by its build id.
 */
static int open_vdso(struct unwinder *u, const struct task_file *f)
{
	char path[64];
	int fd;

	if (u->reading)
		return u->open(u->open_ctx, f);
	if (!u->vdso_read) {
		u->vdso_read = true;
		if (vdso__own(&u->vdso) < 0)
			u->vdso.fd = -1;
	}
	if (u->vdso.fd < 0)
		return -ENOENT;
	/* a file description of its own: libdwfl closes it */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", u->vdso.fd);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* A new mapping hides whatever it overlaps: a Dwfl with such a file is rebuilt. */
static int note_mmap(struct unwinder *u, const struct perf_record_mmap2 *m)
{
	const struct maps *ms = model__maps(u->model, (int32_t)m->pid);
	uint64_t end = m->start + m->len < m->start ? UINT64_MAX : m->start + m->len;
	size_t nr = 0;
	const struct map *o = ms ? maps__overlapping(ms, m->start, end, &nr) : NULL, *added;
	bool changed = false;
	struct uproc *p;
	int err;

	for (size_t i = 0; i < nr && !changed; i++)
		changed = unwindable(u, &o[i]);
	err = model__process(u->model, &m->header);
	if (err < 0)
		return err;
	ms = model__maps(u->model, (int32_t)m->pid);
	added = ms ? maps__find(ms, m->start) : NULL;
	if (!changed && !(added && m->len && unwindable(u, added)))
		return 0;
	p = uproc_get(u, (int32_t)m->pid);
	if (!p)
		return -ENOMEM;
	if (changed)
		uproc_reset(u, p);
	if (added && m->len && unwindable(u, added)) {
		/* a mapping added (a library loaded): the Dwfl is told at its next use */
		p->unreported = true;
		p->attach_failed = false;
	}
	return 0;
}

/* A new process: the parent's maps (the model copies them) and, until one of them
 * maps something new, its Dwfl. */
static int note_fork(struct unwinder *u, const struct perf_event_header *ev)
{
	const struct perf_record_fork *f = (const void *)ev;
	const struct uproc *parent;
	struct uproc copy, *child;
	int err;

	uproc_forget(u, (int32_t)f->pid);       /* a reused pid */
	err = model__process(u->model, ev);
	if (err < 0)
		return err;
	parent = uproc_find(u, (int32_t)f->ppid);
	if (!parent)
		return 0;
	copy = *parent;                 /* inserting the child may move the parent */
	child = uproc_get(u, (int32_t)f->pid);
	if (!child)
		return -ENOMEM;
	*child = (struct uproc){ .pid = (int32_t)f->pid, .d = copy.d, .unreported = copy.unreported,
				 .attach_failed = copy.attach_failed, .last_used = copy.last_used };
	if (child->d)
		child->d->refs++;
	return 0;
}

/*
 * A reader's record: every one reaches its model, as the reader's other records
 * do; the Dwfls follow.  An exec keeps the old image's maps (the reader's model
 * does, as perf's): its Dwfl is rebuilt at the next sample, with the new image's.
 */
static int note_reading(struct unwinder *u, const struct perf_event_header *ev)
{
	const struct perf_record_fork *f = (const void *)ev;
	const struct perf_record_comm *c = (const void *)ev;
	const struct perf_record_mmap2 *m = (const void *)ev;

	switch (ev->type) {
	case PERF_RECORD_MMAP:          /* pid, start and len where MMAP2 has them */
	case PERF_RECORD_MMAP2:
		if ((int32_t)m->pid > 0)
			return note_mmap(u, m);
		break;
	case PERF_RECORD_FORK:
		if (f->pid != f->ppid)
			return note_fork(u, ev);
		break;
	case PERF_RECORD_COMM:
		if (ev->misc & PERF_RECORD_MISC_COMM_EXEC)
			uproc_forget(u, (int32_t)c->pid);
		break;
	case PERF_RECORD_EXIT:
		/* its last samples may follow: the model keeps its maps for them */
		if (f->pid == f->tid)
			uproc_forget(u, (int32_t)f->pid);
		break;
	default:
		break;
	}
	return model__process(u->model, ev);
}

int unwinder__note(struct unwinder *u, const struct perf_event_header *ev)
{
	const struct perf_record_fork *f = (const void *)ev;
	const struct perf_record_comm *c = (const void *)ev;

	if (u->reading)
		return note_reading(u, ev);
	switch (ev->type) {
	case PERF_RECORD_MMAP2:
		if (ev->size < offsetof(struct perf_record_mmap2, filename) + 1 ||
		    (int32_t)((const struct perf_record_mmap2 *)(const void *)ev)->pid <= 0)
			return 0;
		return note_mmap(u, (const void *)ev);
	case PERF_RECORD_FORK:
		if (ev->size < sizeof(*f) || f->pid == f->ppid)
			return 0;       /* a thread: same maps */
		return note_fork(u, ev);
	case PERF_RECORD_COMM:
		/* exec: the new program's mappings follow */
		if (!(ev->misc & PERF_RECORD_MISC_COMM_EXEC) || ev->size < sizeof(*c))
			return 0;
		model__clear_maps(u->model, (int32_t)c->pid);
		uproc_forget(u, (int32_t)c->pid);
		return 0;
	case PERF_RECORD_EXIT:
		if (ev->size >= sizeof(*f) && f->pid == f->tid) {
			model__forget(u->model, (int32_t)f->pid, (int32_t)f->tid);
			uproc_forget(u, (int32_t)f->pid);
		}
		return 0;
	default:
		return 0;
	}
}

#if defined(__x86_64__)
/*
 * The Elf of a module, handed over by report_file() (its userdata).  Read with
 * ELF_C_READ, never mapped: a mapping in prof's own process would be named by the
 * kernel after the task's path (inside a container, a path that means another file
 * on the host), so a profiler watching prof (perf record -a) would take the host
 * file for it.  libdwfl owns the fd and the Elf from here.
 */
struct elf_handoff {
	int fd;
	Elf *elf;
};

static int given_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		     char **file_name, Elf **elfp)
{
	struct elf_handoff *h = *userdata;
	int fd;

	if (!h || !h->elf)
		return -1;
	*elfp = h->elf;
	fd = h->fd;
	h->elf = NULL;
	h->fd = -1;
	*userdata = NULL;
	return fd;
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
	.find_elf = given_elf,
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

bool unwinder__map_bias(Elf *elf, const struct map *m, uint64_t *ret_bias)
{
	size_t n;

	if (elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &n) != 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    m->pgoff >= (ph.p_offset & -(uint64_t)4096) && m->pgoff < ph.p_offset + ph.p_filesz) {
			*ret_bias = m->start - (ph.p_vaddr - ph.p_offset + m->pgoff);
			return true;
		}
	}
	return false;
}

/*
 * The module of the file mapped by m spans from where its first PT_LOAD
 * (page-aligned) lies, at the load bias, to the end of its last: [*ret_low,
 * *ret_high).  False when the file is not such an ELF.
 */
static bool elf_range(Elf *elf, const struct map *m, uint64_t *ret_low, uint64_t *ret_high)
{
	bool first_seen = false;
	uint64_t bias, first = 0, last = 0;
	size_t n;

	if (!unwinder__map_bias(elf, m, &bias) || elf_getphdrnum(elf, &n) != 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (!first_seen) {
			first = ph.p_vaddr & -(ph.p_align ? ph.p_align : 1);
			first_seen = true;
		}
		last = MAX(last, ph.p_vaddr + ph.p_memsz);
	}
	*ret_low = bias + first;
	*ret_high = bias + last;
	return last > first;
}

/* Report the file fd mapped by m to d as module name; libdwfl owns fd from here. */
static bool report_file(struct udwfl *d, const char *name, int fd, const struct map *m)
{
	struct elf_handoff h = { .fd = fd, .elf = elf_begin(fd, ELF_C_READ, NULL) };
	Dwfl_Module *mod = NULL;
	Elf *got = NULL;
	uint64_t low, high;
	GElf_Addr bias;
	void **ud;

	if (h.elf && elf_range(h.elf, m, &low, &high))
		mod = dwfl_report_module(d->dwfl, name, low, high);
	if (mod) {
		dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
		*ud = &h;
		/* now, while h lives: given_elf() hands the Elf over */
		got = dwfl_module_getelf(mod, &bias);
		if (*ud == &h)
			*ud = NULL;
	}
	if (h.elf)
		elf_end(h.elf);
	if (h.fd >= 0)
		close(h.fd);
	return got != NULL;
}

/* Drop the least recently used Dwfls until n more files may be opened. */
static void make_room(struct unwinder *u, const struct uproc *keep, unsigned int n)
{
	while (u->open_files + n > u->max_open_files) {
		struct uproc *lru = NULL, *p;

		for (size_t i = 0; (p = hashtable__next(&u->procs, &i));)
			if (p->d && p->d != keep->d && (!lru || p->last_used < lru->last_used))
				lru = p;
		if (!lru)
			return;
		uproc_reset(u, lru);
		u->st.dwfl_evictions++;
	}
}

/* The process's file mappings the unwinder uses, and how many files they are at most. */
static size_t unwindable_maps(const struct unwinder *u, int32_t pid, const struct maps **ret)
{
	const struct maps *ms = model__maps(u->model, pid);
	size_t n = 0;

	for (size_t i = 0; ms && i < ms->nr; i++)
		n += unwindable(u, &ms->v[i]);
	*ret = ms;
	return n;
}

/* The file mappings not in d yet. */
static size_t unreported_maps(const struct unwinder *u, const struct udwfl *d, const struct maps *ms)
{
	size_t n = 0;

	for (size_t i = 0; i < ms->nr; i++)
		n += unwindable(u, &ms->v[i]) && !dwfl_addrmodule(d->dwfl, ms->v[i].start);
	return n;
}

/* Report the file mappings not in the Dwfl yet (in a reporting session). */
static bool report_new_maps(struct unwinder *u, struct uproc *p, const struct maps *ms)
{
	const struct model_dso *d;
	bool any = false;

	for (size_t i = 0; i < ms->nr; i++) {
		const struct map *m = &ms->v[i];
		struct task_file f;
		int fd;

		if (!unwindable(u, m) || dwfl_addrmodule(p->d->dwfl, m->start))
			continue;       /* another segment of a file already reported */
		d = model__dso(u->model, m->dso);
		f = (struct task_file){ .pid = p->pid, .start = m->start, .end = m->end, .path = d->name,
					.maj = d->maj, .min = d->min, .ino = d->ino };
		fd = d->vdso == MODEL_VDSO_NATIVE ? open_vdso(u, &f) : u->open(u->open_ctx, &f);
		if (fd < 0)
			continue;
		if (report_file(p->d, d->name, fd, m)) {
			any = true;
			p->d->nr_files++;
			u->open_files++;
		}
	}
	p->unreported = false;
	return any;
}

/* A new Dwfl for p: every file mapping reported, state attached.  NULL when none. */
static struct udwfl *udwfl_build(struct unwinder *u, struct uproc *p, const struct maps *ms, size_t nr)
{
	struct udwfl *d;

	make_room(u, p, (unsigned int)MIN(nr, (size_t)MAX_OPEN_FILES));
	u->st.dwfl_builds++;
	d = p->d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->refs = 1;
	d->dwfl = dwfl_begin(&dwfl_callbacks);
	if (!d->dwfl)
		return NULL;
	dwfl_report_begin(d->dwfl);
	if (!report_new_maps(u, p, ms)) {
		dwfl_report_end(d->dwfl, NULL, NULL);
		return NULL;
	}
	dwfl_report_end(d->dwfl, NULL, NULL);
	return dwfl_attach_state(d->dwfl, NULL, p->pid, &thread_callbacks, d) ? d : NULL;
}

/*
 * The process's Dwfl.  Mappings added since it was built (libraries loaded) are
 * reported to it now; one replaced or an exec dropped it (uproc_reset).  NULL when
 * the process has no file mapping to unwind with.
 */
static struct udwfl *uproc_dwfl(struct unwinder *u, int32_t pid)
{
	struct uproc *p = uproc_find(u, pid);
	const struct maps *ms;
	struct udwfl *d;
	size_t nr;

	if (p && p->d && !p->unreported) {
		p->last_used = ++u->clock;
		return p->d;    /* the steady state: nothing changed since it was built */
	}
	nr = unwindable_maps(u, pid, &ms);
	if (!nr) {
		u->st.no_maps++;
		return NULL;
	}
	p = uproc_get(u, pid);
	if (!p)
		return NULL;
	p->last_used = ++u->clock;
	if (p->attach_failed)
		return NULL;
	if (p->d && p->d->refs > 1)
		uproc_reset(u, p);      /* shared, and this process mapped more: its own */
	if (p->d) {
		make_room(u, p, (unsigned int)MIN(unreported_maps(u, p->d, ms), (size_t)MAX_OPEN_FILES));
		dwfl_report_begin_add(p->d->dwfl);
		report_new_maps(u, p, ms);
		dwfl_report_end(p->d->dwfl, NULL, NULL);
		return p->d;
	}
	d = udwfl_build(u, p, ms, nr);
	if (d)
		return d;
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
	/* a frame's sp is its callee's CFA (what the edit hook finds slots by) */
	if (s->sps) {
		Dwarf_Word sp;

		s->sps[s->nr_ips] = dwfl_frame_reg(state, 7, &sp) == 0 ? sp : 0;
	}
	if (s->fregs) {
		/* an outer frame's caller-saved registers are not its own at its call */
		unsigned int mask = s->nr_ips ? UNWIND_CALLEE_SAVED : (1u << UNWIND_REGS) - 1;
		uint16_t known = 0;

		for (unsigned int r = 0; r < UNWIND_REGS; r++) {
			Dwarf_Word v;

			if ((mask & (1u << r)) && dwfl_frame_reg(state, r, &v) == 0) {
				s->fregs->v[s->nr_ips][r] = v;
				known |= (uint16_t)(1u << r);
			}
		}
		s->fregs->known[s->nr_ips] = known;
	}
	/* the ip of the sample, then return addresses, as the kernel's callchains */
	s->ips[s->nr_ips++] = pc;
	return s->nr_ips >= UNWIND_MAX_FRAMES ? DWARF_CB_ABORT : DWARF_CB_OK;
}

/* Unwind into s->ips.  Returns true when the walk reached an outermost frame. */
static bool unwind(struct unwinder *u, int32_t pid, struct usample *s)
{
	struct udwfl *d = uproc_dwfl(u, pid);
	int r;

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

/* Unwind the user stack of sample s into us (the sampled ip at least), counted. */
static void unwind_sample(struct unwinder *u, const struct sample *s, struct usample *us)
{
	us->tid = (pid_t)s->tid;
	us->regs = s->regs_user.regs;
	us->stack = s->stack_user.data;
	us->stack_len = MIN(s->stack_user.dyn_size, s->stack_user.size);
	u->st.samples++;
#if defined(__x86_64__)
	us->sp = us->regs[SAMPLE_SP];
	if (s->regs_user.abi != PERF_SAMPLE_REGS_ABI_64) {
		u->st.foreign_abi++;
		us->ips[us->nr_ips++] = us->regs[SAMPLE_IP];
	} else if (!unwind(u, (int32_t)s->pid, us)) {
		u->st.truncated++;
	}
#else
	unwind(u, (int32_t)s->pid, us);
#endif
	u->st.frames += us->nr_ips;
}

size_t unwinder__unwind(struct unwinder *u, const struct sample *s, uint64_t *ips)
{
	struct usample us = { .ips = ips };

	if (!s->regs_user.regs || s->regs_user.nr < (unsigned int)__builtin_popcountll(REGS_MASK) ||
	    !REGS_MASK)
		return 0;
	unwind_sample(u, s, &us);
	return us.nr_ips;
}

/* The kernel's part of a call chain: up to its PERF_CONTEXT_USER, if any. */
static uint64_t kernel_part(const struct sample *s)
{
	for (uint64_t i = 0; i < s->nr_callchain; i++) {
		uint64_t a;

		memcpy(&a, &s->callchain[i], 8);
		if (a == PERF_CONTEXT_USER)
			return i;
	}
	return s->nr_callchain;
}

void unwinder__set_edit(struct unwinder *u, unwinder_edit_fn fn, void *ctx)
{
	u->edit = fn;
	u->edit_ctx = ctx;
}

int unwinder__rewrite(struct unwinder *u, const struct perf_event_header *ev, void *out, size_t outlen)
{
	uint64_t ips[UNWIND_MAX_OUT_FRAMES], sps[UNWIND_MAX_FRAMES], nr_k, nr, ctx = PERF_CONTEXT_USER, leaf = 0;
	struct usample us = { .ips = ips, .sps = u->edit ? sps : NULL, .fregs = u->edit ? &u->fregs : NULL };
	const uint8_t *in = (const void *)ev;
	size_t tail, len;
	struct sample s;
	uint8_t *o = out;

	/* what follows the stack is copied as it is (prof asks for CGROUP there) */
	if (ev->size < u->head_size || sample__decode(&s, &u->attr, ev) < 0 || s.size != ev->size)
		return -EINVAL;
	nr_k = kernel_part(&s);         /* user callchains are excluded, but be sure */
	tail = ev->size - s.after_stack_user;
	len = u->head_size + 8 + 8 * (size_t)nr_k + tail + (s.regs_user.regs ? 8 * (1 + UNWIND_MAX_OUT_FRAMES) : 0);
	if (outlen < len)
		return -EINVAL;
	if (s.regs_user.regs) {
		unwind_sample(u, &s, &us);
		leaf = us.nr_ips ? ips[0] : 0;
		if (u->edit && us.nr_ips)
			us.nr_ips = (unsigned int)u->edit(u->edit_ctx, &s, ips, sps, &u->fregs, us.nr_ips, UNWIND_MAX_OUT_FRAMES);
	}
	nr = nr_k + (us.nr_ips ? 1 + us.nr_ips : 0);
	memcpy(o, in, u->head_size);
	/* an edit that named the user leaf itself (a JIT's pc, jvm/frames.h): the sample's
	 * IP too, which perf report's symbol column reads */
	if (us.nr_ips && leaf && ips[0] != leaf && s.ip == leaf && (u->attr.sample_type & PERF_SAMPLE_IP))
		memcpy(o + sizeof(struct perf_event_header) + ((u->attr.sample_type & PERF_SAMPLE_IDENTIFIER) ? 8 : 0),
		       &ips[0], 8);
	o += u->head_size;
	memcpy(o, &nr, 8);
	o += 8;
	if (nr_k)
		memcpy(o, s.callchain, 8 * nr_k);
	o += 8 * nr_k;
	if (us.nr_ips) {
		memcpy(o, &ctx, 8);
		memcpy(o + 8, us.ips, 8 * us.nr_ips);
		o += 8 * (1 + us.nr_ips);
	}
	memcpy(o, in + s.after_stack_user, tail);
	o += tail;
	len = (size_t)(o - (uint8_t *)out);
	if (len > UINT16_MAX)
		return -EINVAL;
	((struct perf_event_header *)out)->size = (uint16_t)len;
	return (int)len;
}
