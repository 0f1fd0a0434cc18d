#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Spoil a copy of node's V8 metadata (tests/integration/node/refused.sh).

usage: patch_meta.py FILE value NAME INT   the int of v8dbg_NAME set to INT
       patch_meta.py FILE same NAME OTHER  ... set to v8dbg_OTHER's
       patch_meta.py FILE rename NAME      v8dbg_NAME's name changed (its last letter)
       patch_meta.py FILE hide             every v8dbg_ name changed to v8dbX_

The file is changed in place; V8 itself never reads these symbols, so the program
still runs.  Offsets come from readelf (binutils)."""
import struct
import subprocess
import sys

path, op = sys.argv[1], sys.argv[2]
data = bytearray(open(path, 'rb').read())


def sections():
    out = subprocess.run(['readelf', '-W', '-S', path], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        p = line.replace('[ ', '[').split()
        if len(p) > 6 and p[0].startswith('[') and p[0] != '[Nr]':
            yield p[1], p[2], int(p[3], 16), int(p[4], 16), int(p[5], 16)


def dynstr():
    for name, _, _, off, size in sections():
        if name == '.dynstr':
            return off, size
    sys.exit('no .dynstr')


def int_at(name):
    """The file offset of v8dbg_NAME's int."""
    out = subprocess.run(['readelf', '-W', '--dyn-syms', path], capture_output=True, text=True, check=True).stdout
    addr = next((int(p[1], 16) for p in (l.split() for l in out.splitlines()) if len(p) >= 8 and p[7] == name),
                None)
    if addr is None:
        sys.exit(f'{name}: not in .dynsym')
    for _, kind, sa, off, size in sections():
        if sa <= addr < sa + size:
            if kind == 'NOBITS':
                sys.exit(f'{name} is in .bss: no bytes to change')
            return off + addr - sa
    sys.exit(f'{name}: no section')


if op in ('value', 'same'):
    at = int_at('v8dbg_' + sys.argv[3])
    if op == 'value':
        value = int(sys.argv[4])
    else:       # the int of another item of the same object
        other = int_at('v8dbg_' + sys.argv[4])
        value = struct.unpack('<i', data[other:other + 4])[0]
    data[at:at + 4] = struct.pack('<i', value)
else:
    off, size = dynstr()
    table = data[off:off + size]
    if op == 'rename':
        name = b'v8dbg_' + sys.argv[3].encode() + b'\0'
        at = table.find(b'\0' + name)
        if at < 0:
            sys.exit(f'{name!r} not in .dynstr')
        data[off + at + len(name) - 1] = ord('X')
    elif op == 'hide':
        data[off:off + size] = table.replace(b'v8dbg_', b'v8dbX_')
    else:
        sys.exit(__doc__)
open(path, 'wb').write(data)
