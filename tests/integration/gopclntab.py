#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""An independent reader of a Go program's .gopclntab, written from Go's own
debug/gosym (pclntab.go) and runtime/symtab.go, not from prof's C: the oracle that
tests/integration/report/go_versions.sh checks prof's names against.

  gopclntab.py info BIN            magic, Go version string, function count
  gopclntab.py pprof BIN PROF.pb.gz OBJ
      every location of object OBJ (a mapping's base name) in prof's pprof export:
      its outermost function (the last Line, into which the others were inlined)
      must be the table's function at the address (or at address - 1, a return
      address looked up in its call); prints the leaf samples' named share
  gopclntab.py perf BIN SCRIPT OBJ
      perf script -G -F ip,sym,dso lines of object OBJ: each named ip must be the
      table's function there
Exit 1 on any wrong name."""
import bisect, gzip, re, struct, sys

MAGICS = {0xfffffffb: "1.2-1.15", 0xfffffffa: "1.16-1.17", 0xfffffff0: "1.18-1.19", 0xfffffff1: "1.20+"}


class Table:
    def __init__(self, path):
        self.raw = open(path, "rb").read()
        b = self.raw
        assert b[:4] == b"\x7fELF" and b[4] == 2 and b[5] == 1, "a 64-bit little-endian ELF"
        shoff, = struct.unpack_from("<Q", b, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", b, 0x3a)
        secs = {}
        stroff = struct.unpack_from("<Q", b, shoff + shentsize * shstrndx + 24)[0]
        for i in range(shnum):
            name, typ, flags, addr, off, size = struct.unpack_from("<IIQQQQ", b, shoff + shentsize * i)
            secs[b[stroff + name:b.index(b"\0", stroff + name)].decode()] = (addr, off, size)
        self.symtab = ".symtab" in secs
        _, off, size = secs[".gopclntab"]
        self.t = t = b[off:off + size]
        self.magic, = struct.unpack_from("<I", t, 0)
        assert self.magic in MAGICS and t[4:6] == b"\0\0", hex(self.magic)
        self.ptr = p = t[7]
        assert t[6] in (1, 2, 4) and p in (4, 8)
        word = lambda o: struct.unpack_from("<Q" if p == 8 else "<I", t, o)[0]
        u32 = lambda o: struct.unpack_from("<I", t, o)[0]
        i32 = lambda o: struct.unpack_from("<i", t, o)[0]
        cstr = lambda o: t[o:t.index(b"\0", o)].decode("utf-8", "replace")
        nfunc = word(8)
        entries, names = [], []
        self.funcs, self.gofunc = [], None
        if self.magic == 0xfffffffb:
            # go12: (entry, funcoff) words after the header; offsets from the table
            ft = 8 + p
            for i in range(nfunc + 1):
                entries.append(word(ft + 2 * i * p))
                if i < nfunc:
                    fo = word(ft + (2 * i + 1) * p)
                    assert word(fo) == entries[i], "_func.entry"
                    names.append(cstr(i32(fo + p)))
        elif self.magic == 0xfffffffa:
            # go116: nfunc, nfiles, funcnametab, cutab, filetab, pctab, functab offsets
            funcname, ft = word(8 + 2 * p), word(8 + 6 * p)
            for i in range(nfunc + 1):
                entries.append(word(ft + 2 * i * p))
                if i < nfunc:
                    fo = ft + word(ft + (2 * i + 1) * p)
                    assert word(fo) == entries[i], "_func.entry"
                    names.append(cstr(funcname + i32(fo + p)))
                    self.funcs.append(fo)
            self.funcname, self.pctab, self.text = funcname, word(8 + 5 * p), None
        else:
            # go118/go120: nfunc, nfiles, textStart, funcnametab, cutab, filetab,
            # pctab, functab; functab entries are uint32 offsets from textStart
            text = word(8 + 2 * p) or secs[".text"][0]
            funcname, ft = word(8 + 3 * p), word(8 + 7 * p)
            for i in range(nfunc + 1):
                entries.append(text + u32(ft + 8 * i))
                if i < nfunc:
                    fo = ft + u32(ft + 8 * i + 4)
                    assert text + u32(fo) == entries[i], "_func.entryoff"
                    names.append(cstr(funcname + i32(fo + 4)))
                    self.funcs.append(fo)
            self.funcname, self.pctab, self.text = funcname, word(8 + 6 * p), text
        assert all(a <= b for a, b in zip(entries, entries[1:])), "entries ascending"
        self.entries, self.names = entries, names
        self.loads = []
        phoff, = struct.unpack_from("<Q", b, 0x20)
        phentsize, phnum = struct.unpack_from("<HH", b, 0x36)
        for i in range(phnum):
            typ, flags, off, vaddr, _, filesz = struct.unpack_from("<IIQQQQ", b, phoff + phentsize * i)
            if typ == 1:
                self.loads.append((vaddr, off, filesz, flags))
        self.va = secs[".gopclntab"][0]
        if self.magic in (0xfffffff0, 0xfffffff1):
            self.find_gofunc(self.va)
        elif self.magic == 0xfffffffa and p == 8:
            self.gofunc = 0         # 1.16-1.17: the trees' funcdata are addresses

    def at(self, va, n):
        """n bytes at virtual address va of a read-only load."""
        for vaddr, off, filesz, flags in self.loads:
            if vaddr <= va and va + n <= vaddr + filesz and not flags & 2:
                return self.raw[off + va - vaddr:off + va - vaddr + n]
        raise KeyError(hex(va))

    def find_gofunc(self, tab_va):
        # runtime.moduledata (runtime/symtab.go): pcHeader, then slices (3 words)
        # funcnametab, cutab, filetab, pctab, pclntable, ftab; findfunctab, minpc,
        # maxpc, text (word 22), ...; gofunc is word 38 (1.18-1.19) or 40 (1.20+,
        # covctrs and ecovctrs added before it)
        w = 38 if self.magic == 0xfffffff0 else 40
        needle = struct.pack("<Q", tab_va)
        for vaddr, off, filesz, flags in self.loads:
            if not flags & 2:
                continue
            seg = self.raw[off:off + filesz]
            i = seg.find(needle)
            while i >= 0:
                if i % 8 == 0 and i + 8 * (w + 1) <= len(seg):
                    md = struct.unpack_from(f"<{w + 1}Q", seg, i)
                    if md[1] == tab_va + self.funcname and md[22] == self.text:
                        self.gofunc = md[w]
                        return
                i = seg.find(needle, i + 1)

    def pcvalue(self, off, entry, pc):
        """The value of pc-value table off at pc (debug/gosym's step)."""
        t, p, val, at, first = self.t, self.pctab + off, -1, entry, True
        while True:
            uv, p = varint(t, p)
            if uv == 0 and not first:
                return None
            first = False
            val += -(uv >> 1) - 1 if uv & 1 else uv >> 1
            d, p = varint(t, p)
            at += d * self.t[6]
            if pc < at:
                return val

    def file(self, pc):
        """pc's source file: pcfile's index into its compilation unit's files."""
        i = bisect.bisect_right(self.entries, pc) - 1
        if self.gofunc is None or not 0 <= i < len(self.funcs):
            return None
        fo, p = self.funcs[i], self.ptr
        word = lambda o: struct.unpack_from("<Q" if p == 8 else "<I", self.t, o)[0]
        v116 = self.magic == 0xfffffffa
        pcfile, cu = struct.unpack_from("<I", self.t, fo + 24 if v116 else fo + 20)[0], \
            struct.unpack_from("<I", self.t, fo + 36 if v116 else fo + 32)[0]
        fno = self.pcvalue(pcfile, self.entries[i], pc)
        if fno is None or fno < 0:
            return None
        # the header's cutab and filetab offsets (1.18+: after textStart)
        h = 8 + (3 if v116 else 4) * p
        off = struct.unpack_from("<I", self.t, word(h) + 4 * (cu + fno))[0]
        o = word(h + p) + off
        return self.t[o:self.t.index(b"\0", o)].decode("utf-8", "replace")

    def inlined(self, pc):
        """The functions inlined at pc, innermost first (runtime's inlineUnwinder)."""
        i = bisect.bisect_right(self.entries, pc) - 1
        if self.gofunc is None or not 0 <= i < len(self.funcs):
            return []
        fo, entry = self.funcs[i], self.entries[i]
        # _func: 1.16-1.17 entry uintptr, then 8 int32 (npcdata the 7th, cuOffset),
        # funcID, flag, _, nfuncdata; 1.18 entryoff and the same; 1.20 startLine
        # added: then pcdata (uint32 each), then funcdata (1.16-1.17 pointers
        # aligned by their address, 1.18+ uint32 offsets from go:func.*)
        v116 = self.magic == 0xfffffffa
        size = 44 if self.magic in (0xfffffff1, 0xfffffffa) else 40
        npcdata = struct.unpack_from("<I", self.t, fo + (32 if v116 else 28))[0]
        if npcdata <= 2 or self.t[fo + size - 1] <= 3:
            return []
        inl = struct.unpack_from("<I", self.t, fo + size + 8)[0]
        fd = fo + size + 4 * npcdata
        if v116:
            fd += 4 if (self.va + fd) % 8 else 0
            tree = struct.unpack_from("<Q", self.t, fd + 8 * 3)[0]
            bad = tree == 0
        else:
            tree = struct.unpack_from("<I", self.t, fd + 12)[0]
            bad = tree == 0xffffffff
        if bad or inl == 0:
            return []
        out, idx = [], self.pcvalue(inl, entry, pc)
        cstr = lambda o: self.t[o:self.t.index(b"\0", o)].decode("utf-8", "replace")
        while idx is not None and idx >= 0 and len(out) < 64:
            if self.magic == 0xfffffff1:
                # inlinedCall: funcID, _ [3]byte, nameOff, parentPc, startLine
                name_off, parent_pc = struct.unpack("<iI", self.at(self.gofunc + tree + 16 * idx + 4, 8))
                out.append(cstr(self.funcname + name_off))
                idx = self.pcvalue(inl, entry, entry + parent_pc)
            else:
                # inlinedCall: parent int16, funcID, _, file, line, func_, parentPc
                rec = self.at(self.gofunc + tree + 20 * idx, 20)
                out.append(cstr(self.funcname + struct.unpack_from("<i", rec, 12)[0]))
                idx = struct.unpack_from("<h", rec, 0)[0]
        return out

    def name(self, pc):
        i = bisect.bisect_right(self.entries, pc) - 1
        return self.names[i] if 0 <= i < len(self.names) else None

    def version(self):
        m = re.search(rb"go1\.\d+(\.\d+)?", self.raw)
        return m.group(0).decode() if m else "?"


def varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7f) << s
        s += 7
        if c < 0x80:
            return v, i


def fields(b):
    """A protobuf message's (field, value) pairs: ints, or bytes for length-delimited."""
    i, out = 0, []
    while i < len(b):
        key, i = varint(b, i)
        f, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        elif wt == 1:
            v, i = struct.unpack_from("<Q", b, i)[0], i + 8
        elif wt == 5:
            v, i = struct.unpack_from("<I", b, i)[0], i + 4
        else:
            raise ValueError(f"wire type {wt}")
        out.append((f, v))
    return out


def ints(v):
    """A repeated integer field: packed bytes or one varint."""
    if isinstance(v, int):
        return [v]
    out, i = [], 0
    while i < len(v):
        x, i = varint(v, i)
        out.append(x)
    return out


def check_pprof(tab, path, obj):
    raw = open(path, "rb").read()
    prof = fields(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)
    strings = [v.decode() for f, v in prof if f == 6]
    funcs, maps, locs, samples = {}, {}, {}, []
    for f, v in prof:
        m = dict((k, x) for k, x in fields(v)) if f in (3, 4, 5) else None
        if f == 5:
            funcs[m[1]] = strings[m.get(2, 0)]
        elif f == 3:
            maps[m[1]] = strings[m.get(5, 0)].rsplit("/", 1)[-1]
        elif f == 4:
            lines = [dict(fields(x)).get(1) for k, x in fields(v) if k == 4]
            locs[m[1]] = (m.get(2), m.get(3, 0), lines)
        elif f == 2:
            s = fields(v)
            ids = [x for k, y in s if k == 1 for x in ints(y)]
            vals = [x for k, y in s if k == 2 for x in ints(y)]
            samples.append((ids, vals[0] if vals else 0))
    checked = wrong = 0
    bad = []
    for lid, (mid, addr, lines) in locs.items():
        if maps.get(mid) != obj or not lines:
            continue
        got = funcs[lines[-1]]
        if addr == 0 and got.endswith(" (inlined)"):
            continue            # prof's inlined frame, checked below by its stack
        checked += 1
        if got not in (tab.name(addr), tab.name(addr - 1)):
            wrong += 1
            bad.append(f"{addr:#x}: prof {got!r}, the table {tab.name(addr)!r}")
    # each frame's inlined frames (prof's locations without an address) come before
    # it, innermost first: the chain must be the table's at its address (or - 1)
    chains = set()
    for ids, v in samples:
        run = []
        for lid in ids:
            mid, addr, lines = locs.get(lid, (None, 0, []))
            if maps.get(mid) != obj or not lines:
                run = []
                continue
            name = funcs[lines[-1]]
            if addr == 0 and name.endswith(" (inlined)"):
                run.append(name[:-len(" (inlined)")])
                continue
            chains.add((addr, tuple(run)))
            run = []
    inl_checked = 0
    index = {name: i for i, name in enumerate(tab.names)}
    for addr, run in chains:
        if tab.gofunc is None:
            if run:
                wrong += 1
                bad.append(f"{addr:#x}: prof inlines {list(run)}, a table this reader reads no inline tree of")
            continue
        if list(run) not in (tab.inlined(addr), tab.inlined(addr - 1)):
            wrong += 1
            bad.append(f"{addr:#x}: prof inlines {list(run)}, the table {tab.inlined(addr)} or {tab.inlined(addr - 1)}")
        inl_checked += len(run) > 0
        # and Go's line table agrees: the pc's file is the innermost inlined
        # function's own (where it also exists on its own)
        if run and run[0] in index:
            pc = addr if tab.inlined(addr) == list(run) else addr - 1
            if tab.file(pc) != tab.file(tab.entries[index[run[0]]]):
                wrong += 1
                bad.append(f"{addr:#x}: {run[0]} inlined in {tab.file(pc)}, defined in {tab.file(tab.entries[index[run[0]]])}")
    n = named = internal = 0
    top = {}
    for ids, v in samples:
        if not ids or ids[0] not in locs or maps.get(locs[ids[0]][0]) != obj:
            continue
        n += v
        lines = locs[ids[0]][2]
        if lines:
            named += v
            name = funcs[lines[-1]]
            top[name] = top.get(name, 0) + v
            internal += v if name.startswith("github.com/evanw/esbuild/internal/") else 0
    print(f"{n} {named} {internal} {checked} {wrong} {inl_checked} "
          + " ".join(sorted(top, key=top.get, reverse=True)[:2]))
    for line in bad[:10]:
        print(f"# wrong: {line}", file=sys.stderr)
    return wrong == 0


def check_perf(tab, path, obj):
    n = named = wrong = 0
    for line in open(path):
        m = re.match(r"\s*([0-9a-f]+)\s+(.*?)\s+\((.*)\)\s*$", line)
        if not m or m.group(3).rsplit("/", 1)[-1] != obj:
            continue
        ip, sym = int(m.group(1), 16), re.sub(r"\+0x[0-9a-f]+$", "", m.group(2))
        n += 1
        if sym in ("[unknown]", "") or sym.startswith("0x"):
            continue
        named += 1
        if sym != tab.name(ip):
            wrong += 1
            if wrong <= 10:
                print(f"# wrong: {ip:#x}: perf {sym!r}, the table {tab.name(ip)!r}", file=sys.stderr)
    print(f"{n} {named} {wrong}")
    return wrong == 0


if __name__ == "__main__":
    cmd, tab = sys.argv[1], Table(sys.argv[2])
    if cmd == "info":
        print(f"{tab.magic:#x} {MAGICS[tab.magic]} {tab.version()} {len(tab.names)} {int(tab.symtab)}")
    elif cmd == "pprof":
        sys.exit(0 if check_pprof(tab, sys.argv[3], sys.argv[4]) else 1)
    elif cmd == "perf":
        sys.exit(0 if check_perf(tab, sys.argv[3], sys.argv[4]) else 1)
