#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What hotspot's parser (hotspot-perfparser --output FILE) told hotspot: the
symbols it defined, with the samples whose stack holds each, and its errors.

The stream (perfparser's app/perfunwind.cpp): "QPERFSTREAM\\0", a little-endian
int32 (the QDataStream version), then events, each a little-endian uint32 size and
that many bytes of QDataStream (big-endian): a quint8 type, then the type's fields.
Only these are read, the rest skipped by their size:
  LocationDefinition 3: qint32 id, quint64 address, qint32 file, quint32 pid,
                        qint32 line, qint32 column, qint32 parent location
  SymbolDefinition 4:   qint32 id (its location's), qint32 name, qint32 binary, ...
  StringDefinition 5:   qint32 id, QByteArray (quint32 length, then the bytes)
  Error 8:              qint32 code, QString (quint32 byte length, UTF-16BE)
  Sample 13:            qint32 pid, qint32 tid, quint64 time, quint32 cpu,
                        QVector<qint32> location ids (leaf first), ...

Usage: perfparser_stream.py STREAM [PID...]
Prints one line per defined symbol, "self total binary<TAB>name" (samples with
it as the leaf, and anywhere in the stack; of the PIDs' samples when given; a
frame's symbol is that of its location or of the nearest parent location with one),
then "# samples N" and "# error CODE MESSAGE" lines.
"""
import struct
import sys

LOCATION, SYMBOL, STRING, ERROR, SAMPLE = 3, 4, 5, 8, 13


def events(data):
    if not data.startswith(b"QPERFSTREAM\0"):
        sys.exit("not a perfparser stream (no QPERFSTREAM magic)")
    off = 12 + 4
    while off + 4 <= len(data):
        (size,) = struct.unpack_from("<I", data, off)
        off += 4
        if off + size > len(data):
            sys.exit(f"event cut short at {off - 4}: {size} bytes, {len(data) - off} left")
        yield data[off:off + size]
        off += size


def qbytes(ev, off):
    (n,) = struct.unpack_from(">I", ev, off)
    if n == 0xFFFFFFFF:
        return b"", off + 4
    return ev[off + 4:off + 4 + n], off + 4 + n


def parse(path):
    strings, symbols, parent, samples, errors = {}, {}, {}, [], []
    with open(path, "rb") as f:
        data = f.read()
    for ev in events(data):
        t = ev[0]
        if t == STRING:
            (sid,) = struct.unpack_from(">i", ev, 1)
            strings[sid], _ = qbytes(ev, 5)
        elif t == SYMBOL:
            sid, name, binary = struct.unpack_from(">iii", ev, 1)
            symbols[sid] = (name, binary)
        elif t == LOCATION:
            lid, _addr, _file, _pid, _line, _col, par = struct.unpack_from(">iQiIiii", ev, 1)
            parent[lid] = par
        elif t == ERROR:
            (code,) = struct.unpack_from(">i", ev, 1)
            msg, _ = qbytes(ev, 5)
            errors.append((code, msg.decode("utf-16-be", "replace")))
        elif t == SAMPLE:
            pid, _tid, _time, _cpu, n = struct.unpack_from(">iiQII", ev, 1)
            frames = struct.unpack_from(f">{n}i", ev, 1 + 24)
            samples.append((pid, frames))
    return strings, symbols, parent, samples, errors


def main():
    strings, symbols, parent, samples, errors = parse(sys.argv[1])
    pids = {int(p) for p in sys.argv[2:]}

    def name(sid):
        return strings.get(sid, b"").decode("utf-8", "replace")

    rows = {}
    for sid, (n, b) in symbols.items():
        rows.setdefault((name(b), name(n)), [0, 0])
    mine = [f for p, f in samples if not pids or p in pids]
    for frames in mine:
        seen = set()
        for i, lid in enumerate(frames):
            # a frame is an address's location; its symbol is on the location of
            # the function holding it (the address's parent, perfunwind.cpp)
            while lid != -1 and lid not in symbols:
                lid = parent.get(lid, -1)
            if lid == -1:
                continue
            n, b = symbols[lid]
            key = (name(b), name(n))
            if i == 0:
                rows[key][0] += 1
            if key not in seen:
                seen.add(key)
                rows[key][1] += 1
    for (b, n), (self_n, total) in sorted(rows.items(), key=lambda kv: -kv[1][1]):
        print(f"{self_n} {total} {b}\t{n}")
    print(f"# samples {len(mine)}")
    for code, msg in errors:
        print(f"# error {code} {msg}")


if __name__ == "__main__":
    main()
