#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""N clients of profd's socket at once, in a loop, for bench/daemon.

  daemon-clients.py SOCKET N SECONDS
  daemon-clients.py SOCKET --time N SINCE_SECONDS

Each round opens N connections, sends each a query for the last minute (what
`prof report --daemon --since 1m` asks), reads every answer to its end, and closes
them; rounds repeat for SECONDS.  Prints one line: rounds, answers, busy, errors,
bytes read.  With --time: N queries one after the other for the last SINCE_SECONDS,
each timed from connect to the answer's last byte (the daemon's part of a query:
the client's decoding and formatting excluded); prints median, p99 and bytes.
"""
import selectors
import socket
import struct
import sys
import time

REQ = b"op=query\nsince=60000000000\n"
REQ = b"PRQ1" + struct.pack("<I", len(REQ)) + REQ


def one_round(path, n, sel):
    conns = {}
    for _ in range(n):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path)
        try:
            s.sendall(REQ)
        except (BrokenPipeError, ConnectionResetError):
            pass        # told busy at accept
        s.setblocking(False)
        conns[s] = bytearray()
        sel.register(s, selectors.EVENT_READ)
    ok = busy = err = nbytes = 0
    deadline = time.monotonic() + 30
    while conns and time.monotonic() < deadline:
        for key, _ in sel.select(timeout=1):
            s = key.fileobj
            try:
                chunk = s.recv(1 << 16)
            except (BlockingIOError, InterruptedError):
                continue
            except ConnectionResetError:
                chunk = b""
            if chunk:
                conns[s] += chunk
                continue
            buf = conns.pop(s)
            sel.unregister(s)
            s.close()
            nbytes += len(buf)
            if len(buf) < 16 or buf[:4] != b"PRS1":
                err += 1
                continue
            status, length = struct.unpack("<iQ", bytes(buf[4:16]))
            if status == 0 and len(buf) == 16 + length:
                ok += 1
            elif status == -16:
                busy += 1
            else:
                err += 1
    for s in conns:
        sel.unregister(s)
        s.close()
        err += 1
    return ok, busy, err, nbytes


def timed(path, n, since):
    body = f"op=query\nsince={since * 1000000000}\n".encode()
    req = b"PRQ1" + struct.pack("<I", len(body)) + body
    times, size = [], 0
    for _ in range(n):
        t0 = time.monotonic()
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path)
        s.sendall(req)
        buf = bytearray()
        while True:
            chunk = s.recv(1 << 20)
            if not chunk:
                break
            buf += chunk
        s.close()
        times.append(time.monotonic() - t0)
        status, length = struct.unpack("<iQ", bytes(buf[4:16]))
        if status != 0 or len(buf) != 16 + length:
            raise SystemExit(f"query failed: status {status}, {len(buf)} bytes")
        size = len(buf)
    times.sort()
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
    print(f"median {times[len(times) // 2] * 1e3:.1f} ms, p99 {p99 * 1e3:.1f} ms (n={n}), answer {size} bytes")


def main():
    if sys.argv[2] == "--time":
        timed(sys.argv[1], int(sys.argv[3]), int(sys.argv[4]))
        return
    path, n, secs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    sel = selectors.DefaultSelector()
    end = time.monotonic() + secs
    rounds = ok = busy = err = nbytes = 0
    while time.monotonic() < end:
        o, b, e, nb = one_round(path, n, sel)
        rounds += 1
        ok, busy, err, nbytes = ok + o, busy + b, err + e, nbytes + nb
    print(f"rounds {rounds} answers {ok} busy {busy} errors {err} bytes {nbytes}")


if __name__ == "__main__":
    main()
