#!/usr/bin/env bash
# A version prof does not know: a copy of Debian's python3.11 whose Py_Version says
# 3.99 (the rest of the binary as it was, its build id too) gets no Python frames,
# and the summary says why; the same program under the real binary gets them.
. "$(dirname "$0")/lib.sh"
cat >"$TMP/pub/spin.py" <<'PY'
import sys, time
def spin_here():
    end = time.process_time() + float(sys.argv[1])
    while time.process_time() < end: pass
spin_here()
PY
cp "$PY" "$TMP/pub/python3.11" || fail "copy the interpreter"
# Py_Version's file offset: its .dynsym value in the PT_LOAD that holds it
python3 - "$TMP/pub/python3.11" <<'PY' || fail "patch Py_Version"
import struct, subprocess, sys
path = sys.argv[1]
syms = subprocess.run(["readelf", "-W", "--dyn-syms", path], capture_output=True, text=True).stdout
addr = next(int(l.split()[1], 16) for l in syms.splitlines() if l.split()[-1:] == ["Py_Version"])
data = bytearray(open(path, "rb").read())
phoff, = struct.unpack_from("<Q", data, 32)
phentsize, phnum = struct.unpack_from("<HH", data, 54)
for i in range(phnum):
    p_type, _, off, vaddr, _, filesz = struct.unpack_from("<IIQQQQ", data, phoff + i * phentsize)
    if p_type == 1 and vaddr <= addr < vaddr + filesz:
        at = off + addr - vaddr
        break
version, = struct.unpack_from("<I", data, at)
assert version >> 16 == 0x030b, hex(version)
struct.pack_into("<I", data, at, 0x036302f0)
open(path, "wb").write(data)
print(f"# Py_Version {version:#x} at file offset {at:#x} is now 0x36302f0")
PY
chmod 755 "$TMP/pub/python3.11"

PY=$TMP/pub/python3.11
F=$TMP/patched.data
py_record "$F" "$TMP/pub/spin.py" 2
grep -qE '^prof: Python: no Python frames for 1 interpreter\(s\): .*python3.11: CPython 3\.99\.2 \(Py_Version 0x36302f0\) is not a version prof knows' "$TMP/summary" ||
	fail "the summary does not say why: $(grep Python "$TMP/summary")"
py_folded "$F" "$TMP/prof.folded"
n=$(awk '{n += $NF} END {print n + 0}' "$TMP/prof.folded")
[ "$n" -ge 1000 ] || fail "only $n samples of the patched interpreter"
! grep -qE 'spin\.py|\[python' "$TMP/prof.folded" || fail "Python frames for an unknown version"

PY=/usr/bin/python3.11
F=$TMP/real.data
py_record "$F" "$TMP/pub/spin.py" 2
py_folded "$F" "$TMP/prof.folded"
grep -qE 'spin_here \(.*spin\.py:(def 2|[0-9]+)\)' "$TMP/prof.folded" || fail "no Python frames under the real interpreter"
pass "no Python frames for Py_Version 3.99 ($n samples), and the summary says why"
