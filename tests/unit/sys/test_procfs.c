/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The pure /proc parsers, fed fixture text. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <criterion/criterion.h>

#include "prof/sys/procfs.h"

static int parse_map(const char *line, struct proc_map *m)
{
	return procfs__parse_maps_line(line, strlen(line), m);
}

static void assert_path(const struct proc_map *m, const char *want)
{
	cr_assert_eq(m->path_len, strlen(want), "path '%.*s', want '%s'", (int)m->path_len,
		     m->path ? m->path : "", want);
	if (m->path_len)
		cr_assert_eq(memcmp(m->path, want, m->path_len), 0, "path '%.*s', want '%s'",
			     (int)m->path_len, m->path, want);
}

/* --- /proc/PID/maps --- */

Test(procfs_maps, file_backed)
{
	const char *line = "00400000-00452000 r-xp 00001000 08:02 173521      /usr/bin/dbus-daemon";
	struct proc_map m;

	cr_assert_eq(parse_map(line, &m), 0);
	cr_assert_eq(m.start, 0x400000);
	cr_assert_eq(m.end, 0x452000);
	cr_assert_eq(m.pgoff, 0x1000);
	cr_assert_eq(m.prot, PROT_READ | PROT_EXEC);
	cr_assert_eq(m.flags, MAP_PRIVATE);
	cr_assert_eq(m.maj, 8);
	cr_assert_eq(m.min, 2);
	cr_assert_eq(m.ino, 173521);
	assert_path(&m, "/usr/bin/dbus-daemon");
	cr_assert_eq(m.path, line + strlen(line) - strlen("/usr/bin/dbus-daemon"),
		     "path should point into the line");
}

Test(procfs_maps, high_addresses)
{
	const char *line = "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]";
	struct proc_map m;

	cr_assert_eq(parse_map(line, &m), 0);
	cr_assert_eq(m.start, 0xffffffffff600000ull);
	cr_assert_eq(m.end, 0xffffffffff601000ull);
	cr_assert_eq(m.prot, PROT_EXEC);
	assert_path(&m, "[vsyscall]");
}

Test(procfs_maps, path_with_spaces)
{
	const char *line = "7f1234560000-7f1234580000 r-xp 00010000 fd:01 42    /opt/my app/lib x.so (deleted)";
	struct proc_map m;

	cr_assert_eq(parse_map(line, &m), 0);
	cr_assert_eq(m.start, 0x7f1234560000ull);
	cr_assert_eq(m.end, 0x7f1234580000ull);
	cr_assert_eq(m.pgoff, 0x10000);
	assert_path(&m, "/opt/my app/lib x.so (deleted)");
}

Test(procfs_maps, anonymous)
{
	struct proc_map m;

	/* The kernel ends an unnamed mapping's line with a blank after the inode. */
	cr_assert_eq(parse_map("7f0000000000-7f0000021000 rw-p 00000000 00:00 0 ", &m), 0);
	cr_assert_eq(m.start, 0x7f0000000000ull);
	cr_assert_eq(m.end, 0x7f0000021000ull);
	cr_assert_eq(m.prot, PROT_READ | PROT_WRITE);
	cr_assert_eq(m.flags, MAP_PRIVATE);
	cr_assert_eq(m.ino, 0);
	cr_assert_eq(m.path_len, 0);

	/* And without it. */
	memset(&m, 0xff, sizeof(m));
	cr_assert_eq(parse_map("7f0000000000-7f0000021000 rw-p 00000000 00:00 0", &m), 0);
	cr_assert_eq(m.path_len, 0);
	cr_assert_eq(m.ino, 0);
}

Test(procfs_maps, vdso_and_stack)
{
	struct proc_map m;

	cr_assert_eq(parse_map("7ffd1234a000-7ffd1234c000 r-xp 00000000 00:00 0                          [vdso]", &m), 0);
	cr_assert_eq(m.prot, PROT_READ | PROT_EXEC);
	assert_path(&m, "[vdso]");

	cr_assert_eq(parse_map("7ffd12300000-7ffd12321000 rw-p 00000000 00:00 0                          [stack]", &m), 0);
	cr_assert_eq(m.prot, PROT_READ | PROT_WRITE);
	assert_path(&m, "[stack]");
}

Test(procfs_maps, shared_flag)
{
	struct proc_map m;

	cr_assert_eq(parse_map("7f0000000000-7f0000001000 rw-s 00000000 00:05 1234 /dev/zero (deleted)", &m), 0);
	cr_assert_eq(m.flags, MAP_SHARED);
	cr_assert_eq(m.prot, PROT_READ | PROT_WRITE);
	cr_assert_eq(m.maj, 0);
	cr_assert_eq(m.min, 5);
	cr_assert_eq(m.ino, 1234);

	cr_assert_eq(parse_map("7f0000000000-7f0000001000 rw-p 00000000 00:05 1234 /dev/zero", &m), 0);
	cr_assert_eq(m.flags, MAP_PRIVATE);
}

Test(procfs_maps, prot_bits)
{
	static const struct {
		const char *perms;
		uint32_t prot;
	} cases[] = {
		{ "---p", 0 },
		{ "r--p", PROT_READ },
		{ "-w-p", PROT_WRITE },
		{ "--xp", PROT_EXEC },
		{ "rw-p", PROT_READ | PROT_WRITE },
		{ "r-xp", PROT_READ | PROT_EXEC },
		{ "rwxp", PROT_READ | PROT_WRITE | PROT_EXEC },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char line[128];
		struct proc_map m;

		snprintf(line, sizeof(line), "1000-2000 %s 00000000 00:00 0 ", cases[i].perms);
		cr_assert_eq(parse_map(line, &m), 0, "%s", line);
		cr_assert_eq(m.prot, cases[i].prot, "%s: prot %#x, want %#x", cases[i].perms, m.prot,
			     cases[i].prot);
	}
}

Test(procfs_maps, dev_numbers_are_hex)
{
	struct proc_map m;

	cr_assert_eq(parse_map("1000-2000 r--p 0000abcd fd:1a 99 /x", &m), 0);
	cr_assert_eq(m.maj, 0xfd);
	cr_assert_eq(m.min, 0x1a);
	cr_assert_eq(m.pgoff, 0xabcd);
	cr_assert_eq(m.ino, 99, "the inode is decimal");

	cr_assert_eq(parse_map("1000-2000 r--p 00000000 103:10 5 /y", &m), 0);
	cr_assert_eq(m.maj, 0x103);
	cr_assert_eq(m.min, 0x10);
}

Test(procfs_maps, len_bounds_the_line)
{
	/* Parse only the first line of a buffer: the path stops at len. */
	const char *buf = "1000-2000 r-xp 00000000 08:01 7 /bin/a\n3000-4000 r-xp 00000000 08:01 8 /bin/b\n";
	size_t len = (size_t)(strchr(buf, '\n') - buf);
	struct proc_map m;

	cr_assert_eq(procfs__parse_maps_line(buf, len, &m), 0);
	assert_path(&m, "/bin/a");
	cr_assert_eq(m.ino, 7);
}

Test(procfs_maps, malformed)
{
	static const char *const bad[] = {
		"",
		"garbage",
		"00400000 r-xp 00000000 08:02 1 /x",                    /* no end */
		"00400000-00452000",                                    /* nothing after */
		"00400000-00452000 r-x",                                /* short perms */
		"00400000-00452000 r-xp",                               /* no offset */
		"00400000-00452000 r-xp 00000000",                      /* no device */
		"00400000-00452000 r-xp 00000000 0802 1 /x",            /* no colon */
		"00400000-00452000 r-xp 00000000 08: 1 /x",             /* no minor */
		"00400000-00452000 r-xp 00000000 08:02",                /* no inode */
		"00400000-00452000 r-xp 00000000 08:02 12ab /x",        /* inode not decimal */
		"0040000g-00452000 r-xp 00000000 08:02 1 /x",           /* not hex */
		"-00452000 r-xp 00000000 08:02 1 /x",                   /* no start */
		"00400000-00452000r-xp 00000000 08:02 1 /x",            /* no blank */
		"10000000000000000-20000000000000000 r-xp 0 00:00 0",   /* 65-bit addresses */
	};
	struct proc_map m, ref;

	memset(&ref, 0x77, sizeof(ref));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r;

		m = ref;
		r = parse_map(bad[i], &m);
		cr_assert_eq(r, -EINVAL, "'%s' -> %d, want -EINVAL", bad[i], r);
		cr_assert_arr_eq(&m, &ref, sizeof(m), "'%s': *ret changed on failure", bad[i]);
	}
}

Test(procfs_maps, end_before_start)
{
	struct proc_map m;

	cr_assert_eq(parse_map("00452000-00400000 r-xp 00000000 08:02 1 /x", &m), -EINVAL);
	/* An empty range is odd but not malformed. */
	cr_assert_eq(parse_map("00400000-00400000 r-xp 00000000 08:02 1 /x", &m), 0);
}

/* --- /proc/kallsyms --- */

static const char kallsyms[] =
	"0000000000000000 A fixed_percpu_data\n"
	"ffffffff81000000 T startup_64\n"
	"ffffffff81e00000 T _text_end\n"
	"ffffffff81000010 t _texts\n"
	"ffffffff81000000 T _text\n"
	"ffffffff81001000 T _stext\n"
	"ffffffff82000000 D _etext\n"
	"ffffffffc0a01000 t ext4_fill_super\t[ext4]\n"
	"ffffffffc0b00000 T nvidia_open\t[nvidia]";    /* no final newline */

Test(procfs_kallsyms, find_text)
{
	uint64_t addr = 0;

	cr_assert_eq(procfs__kallsyms_find(kallsyms, "_text", &addr), 0);
	cr_assert_eq(addr, 0xffffffff81000000ull);
}

Test(procfs_kallsyms, prefix_of_another_name)
{
	uint64_t addr = 0;

	/* "_text_end" and "_texts" come before "_text" and must not match it. */
	cr_assert_eq(procfs__kallsyms_find(kallsyms, "_text", &addr), 0);
	cr_assert_eq(addr, 0xffffffff81000000ull, "got %#llx", (unsigned long long)addr);
	cr_assert_eq(procfs__kallsyms_find(kallsyms, "_text_end", &addr), 0);
	cr_assert_eq(addr, 0xffffffff81e00000ull);
	cr_assert_eq(procfs__kallsyms_find(kallsyms, "_stext", &addr), 0);
	cr_assert_eq(addr, 0xffffffff81001000ull);
	/* A name that is a prefix of a symbol but no symbol itself. */
	addr = 42;
	cr_assert_eq(procfs__kallsyms_find(kallsyms, "_tex", &addr), -ENOENT);
	cr_assert_eq(procfs__kallsyms_find(kallsyms, "startup", &addr), -ENOENT);
	/* Nor a suffix. */
	cr_assert_eq(procfs__kallsyms_find(kallsyms, "text", &addr), -ENOENT);
	cr_assert_eq(addr, 42, "*ret_addr changed on failure");
}

Test(procfs_kallsyms, module_suffix)
{
	uint64_t addr = 0;

	cr_assert_eq(procfs__kallsyms_find(kallsyms, "ext4_fill_super", &addr), 0);
	cr_assert_eq(addr, 0xffffffffc0a01000ull);
	cr_assert_eq(procfs__kallsyms_find(kallsyms, "nvidia_open", &addr), 0, "last line, no newline");
	cr_assert_eq(addr, 0xffffffffc0b00000ull);
}

Test(procfs_kallsyms, hidden_addresses)
{
	static const char hidden[] =
		"0000000000000000 T startup_64\n"
		"0000000000000000 T _text\n"
		"0000000000000000 T _stext\n";
	uint64_t addr = 42;

	cr_assert_eq(procfs__kallsyms_find(hidden, "_text", &addr), -EPERM);
	cr_assert_eq(procfs__kallsyms_find(hidden, "_stext", &addr), -EPERM);
	cr_assert_eq(procfs__kallsyms_find(hidden, "missing", &addr), -ENOENT);
	cr_assert_eq(addr, 42);
}

Test(procfs_kallsyms, missing)
{
	uint64_t addr = 42;

	cr_assert_eq(procfs__kallsyms_find(kallsyms, "no_such_symbol", &addr), -ENOENT);
	cr_assert_eq(procfs__kallsyms_find("", "_text", &addr), -ENOENT);
	cr_assert_eq(procfs__kallsyms_find("garbage line\n\n", "_text", &addr), -ENOENT);
	cr_assert_eq(addr, 42);
}

/* --- /proc/modules --- */

static int parse_module(const char *line, char *name, size_t namelen, uint64_t *addr, uint64_t *size)
{
	return procfs__parse_module_line(line, strlen(line), name, namelen, addr, size);
}

Test(procfs_modules, lines)
{
	char name[64];
	uint64_t addr = 0, size = 0;

	cr_assert_eq(parse_module("ext4 1036288 1 - Live 0xffffffffc0a00000", name, sizeof(name),
				  &addr, &size), 0);
	cr_assert_str_eq(name, "ext4");
	cr_assert_eq(addr, 0xffffffffc0a00000ull);
	cr_assert_eq(size, 1036288);

	cr_assert_eq(parse_module("nvidia 56823808 10 nvidia_modeset,nvidia_uvm, Live 0xffffffffc1000000 (POE)",
				  name, sizeof(name), &addr, &size), 0);
	cr_assert_str_eq(name, "nvidia");
	cr_assert_eq(addr, 0xffffffffc1000000ull);
	cr_assert_eq(size, 56823808);
}

Test(procfs_modules, hidden_address_parses_as_zero)
{
	char name[64];
	uint64_t addr = 42, size = 0;

	cr_assert_eq(parse_module("snd 94208 0 - Live 0x0000000000000000", name, sizeof(name), &addr, &size), 0);
	cr_assert_str_eq(name, "snd");
	cr_assert_eq(addr, 0);
	cr_assert_eq(size, 94208);
}

Test(procfs_modules, malformed)
{
	static const char *const bad[] = {
		"",
		"ext4",
		"ext4 1036288 1 - Live",                        /* no address */
		"ext4 1036288 1 - Live ffffffffc0a00000",       /* no 0x */
		"ext4 1036288 1 - Live 0x",                     /* no digits */
		"ext4 big 1 - Live 0xffffffffc0a00000",         /* size not a number */
	};
	char name[64] = "untouched";
	uint64_t addr = 42, size = 43;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = parse_module(bad[i], name, sizeof(name), &addr, &size);

		cr_assert_eq(r, -EINVAL, "'%s' -> %d, want -EINVAL", bad[i], r);
		cr_assert_str_eq(name, "untouched");
		cr_assert_eq(addr, 42);
		cr_assert_eq(size, 43);
	}
}

Test(procfs_modules, name_too_long_for_buffer)
{
	char name[8];
	uint64_t addr = 0, size = 0;

	cr_assert_eq(parse_module("averylongmodulename 4096 0 - Live 0xffffffffc0000000", name,
				  sizeof(name), &addr, &size), -EINVAL);
	/* Seven characters and the NUL fit exactly. */
	cr_assert_eq(parse_module("sevench 4096 0 - Live 0xffffffffc0000000", name, sizeof(name),
				  &addr, &size), 0);
	cr_assert_str_eq(name, "sevench");
}

/* --- /proc/PID/status --- */

static const char status[] =
	"Name:\tbash\n"
	"Umask:\t0022\n"
	"State:\tS (sleeping)\n"
	"Tgid:\t4242\n"
	"Ngid:\t0\n"
	"Pid:\t4242\n"
	"PPid:\t4100\n"
	"TracerPid:\t0\n"
	"Uid:\t1000\t1001\t1002\t1003\n"
	"Gid:\t100\t100\t100\t100\n"
	"VmRSS:\t    5120 kB\n"
	"Threads:\t1";                  /* no final newline */

Test(procfs_status, fields)
{
	uint64_t v = 0;

	cr_assert_eq(procfs__status_u64(status, "Uid:", &v), 0);
	cr_assert_eq(v, 1000, "the first (real) uid");
	cr_assert_eq(procfs__status_u64(status, "PPid:", &v), 0);
	cr_assert_eq(v, 4100);
	cr_assert_eq(procfs__status_u64(status, "Pid:", &v), 0);
	cr_assert_eq(v, 4242, "'Pid:' must not match 'PPid:' or 'TracerPid:'");
	cr_assert_eq(procfs__status_u64(status, "Gid:", &v), 0);
	cr_assert_eq(v, 100);
	cr_assert_eq(procfs__status_u64(status, "VmRSS:", &v), 0);
	cr_assert_eq(v, 5120);
	cr_assert_eq(procfs__status_u64(status, "Threads:", &v), 0, "last line, no newline");
	cr_assert_eq(v, 1);
}

Test(procfs_status, missing_key)
{
	uint64_t v = 42;

	cr_assert_eq(procfs__status_u64(status, "NSpid:", &v), -ENOENT);
	cr_assert_eq(procfs__status_u64("", "Uid:", &v), -ENOENT);
	cr_assert_eq(procfs__status_u64("Uid:", "Uid:", &v), -ENOENT);
	cr_assert_eq(v, 42);
}

Test(procfs_status, not_a_number)
{
	uint64_t v = 42;

	cr_assert_lt(procfs__status_u64(status, "Name:", &v), 0);
	cr_assert_eq(v, 42);
}

/* --- /proc/PID/comm --- */

Test(procfs_comm, newline_stripped)
{
	char comm[16];

	memset(comm, '#', sizeof(comm));
	procfs__comm("bash\n", comm);
	cr_assert_str_eq(comm, "bash");
	for (size_t i = 4; i < 16; i++)
		cr_assert_eq(comm[i], '\0', "byte %zu not cleared", i);

	procfs__comm("no newline", comm);
	cr_assert_str_eq(comm, "no newline");
	procfs__comm("\n", comm);
	cr_assert_str_eq(comm, "");
	procfs__comm("with space\n", comm);
	cr_assert_str_eq(comm, "with space");
}

Test(procfs_comm, truncated_to_15)
{
	char comm[16];

	memset(comm, '#', sizeof(comm));
	procfs__comm("0123456789abcdefghij\n", comm);
	cr_assert_eq(comm[15], '\0');
	cr_assert_str_eq(comm, "0123456789abcde");

	procfs__comm("0123456789abcde\n", comm);
	cr_assert_str_eq(comm, "0123456789abcde");
	procfs__comm("0123456789abcd\n", comm);
	cr_assert_str_eq(comm, "0123456789abcd");
}
