#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Hostile clients of profd's socket, for tests/integration/daemon/hostile.sh.

  clients.py SOCKET CASE [ARGS]

Cases print one line "ok: ..." and exit 0 when the daemon behaved, else "FAIL: ..." and 1:
  silent N TIMEOUT   N connections that send nothing are closed by the daemon within TIMEOUT+2 s
  garbage            an HTTP request gets a protocol error, and the connection closes
  huge               a header announcing 1 GiB gets "request too large" at once
  version            a request of protocol version 2 is refused, naming version 1
  other_uid UID      asking for UID's samples gets EPERM naming the rule
  large SECONDS      the caller's query answer grows past what stalls the daemon (512 KiB)
                     within SECONDS (its workload gets CPU slowly on a loaded host)
  stall TIMEOUT      a client that reads the header of a large answer then stops is cut off
  many N             N connections at once, each asking status: each gets an answer
                     (some "busy"), none hangs
"""
import os
import socket
import struct
import sys
import time

EPERM, E2BIG, EINVAL, EBUSY, EPROTONOSUPPORT = 1, 7, 22, 16, 93
# an answer this large fills the socket's buffers and stalls a daemon whose reader stops
STALL_MIN = 512 << 10


def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(20)
    s.connect(path)
    return s


def request(body):
    return b"PRQ1" + struct.pack("<I", len(body)) + body


def read_n(s, n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            break
        buf += chunk
    return buf


def response(s):
    try:
        hdr = read_n(s, 16)
    except ConnectionResetError:
        return None, None
    if len(hdr) < 16:
        return None, None
    magic, status, length = hdr[:4], *struct.unpack("<iQ", hdr[4:])
    if magic != b"PRS1":
        raise SystemExit(f"FAIL: not a response: {hdr!r}")
    return status, read_n(s, min(length, 1 << 20))


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def closed_by_peer(s, within):
    s.settimeout(within)
    try:
        return s.recv(1) == b""
    except (socket.timeout, TimeoutError):
        return False
    except ConnectionResetError:
        return True


def case_silent(path, n, timeout):
    conns = [connect(path) for _ in range(int(n))]
    t0 = time.monotonic()
    for c in conns:
        if not closed_by_peer(c, float(timeout) + 3 - (time.monotonic() - t0)):
            fail(f"a silent client was not closed within {timeout} s + 3")
    print(f"ok: {n} silent clients closed after {time.monotonic() - t0:.1f} s")


def case_error(path, data, want, text):
    s = connect(path)
    s.sendall(data)
    status, body = response(s)
    if status != -want or text.encode() not in (body or b""):
        fail(f"wanted -{want} with '{text}', got {status} {body!r}")
    if not closed_by_peer(s, 5):
        fail("the connection stayed open after the error")
    print(f"ok: {status}: {body.decode()}")


def case_other_uid(path, uid):
    s = connect(path)
    s.sendall(request(f"op=query\nuid={uid}\n".encode()))
    status, body = response(s)
    if status != -EPERM or b"is not yours" not in body:
        fail(f"asking for uid {uid}: {status} {body!r}")
    print(f"ok: {body.decode()}")


def answer_length(path):
    s = connect(path)
    s.sendall(request(b"op=query\n"))
    hdr = read_n(s, 16)
    s.close()
    status, length = struct.unpack("<iQ", hdr[4:])
    if status != 0:
        fail(f"the query was refused: {status}")
    return length


def case_large(path, seconds):
    start = time.monotonic()
    while True:
        length = answer_length(path)
        waited = time.monotonic() - start
        if length >= STALL_MIN:
            break
        if waited > float(seconds):
            fail(f"the answer is {length} bytes after {waited:.0f} s, under {STALL_MIN}: "
                 "the workload got too little CPU to make the stall case meaningful")
        time.sleep(1)
    print(f"ok: an answer of {length} bytes after {waited:.0f} s")


def case_stall(path, timeout):
    s = connect(path)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.sendall(request(b"op=query\n"))
    hdr = read_n(s, 16)
    status, length = struct.unpack("<iQ", hdr[4:])
    if status != 0:
        fail(f"the query was refused: {status}")
    if length < STALL_MIN:
        fail(f"the answer ({length} bytes) is too small to stall the daemon: the check proves nothing")
    time.sleep(float(timeout) + 3)
    got = 0
    s.settimeout(5)
    try:
        while True:
            chunk = s.recv(1 << 16)
            if not chunk:
                break
            got += len(chunk)
    except (socket.timeout, TimeoutError, ConnectionResetError):
        fail("the daemon still holds the stalled connection open")
    if got >= length:
        fail(f"the whole answer came ({got} bytes): the client never stalled the daemon")
    print(f"ok: a reader that stopped got {got} of {length} bytes, then the daemon closed it")


def case_many(path, n):
    conns = []
    for _ in range(int(n)):
        try:
            c = connect(path)
        except OSError as e:
            fail(f"connection {len(conns)} failed: {e}")
        try:
            c.sendall(request(b"op=status\n"))
        except (BrokenPipeError, ConnectionResetError):
            pass        # told busy and closed before the request went: the answer is there to read
        conns.append(c)
    ok = busy = 0
    for c in conns:
        status, body = response(c)
        if status == 0:
            ok += 1
        elif status == -EBUSY and body.startswith(b"busy:"):
            busy += 1
        else:
            fail(f"connection got {status} {body!r}")
        c.close()
    if not ok or not busy:
        fail(f"{ok} answered, {busy} busy: wanted both")
    print(f"ok: {n} at once: {ok} answered, {busy} told busy")


def main():
    path, case, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    if case == "silent":
        case_silent(path, *args)
    elif case == "garbage":
        case_error(path, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", EINVAL, "not a profd request")
    elif case == "huge":
        case_error(path, b"PRQ1" + struct.pack("<I", 1 << 30), E2BIG, "request too large")
    elif case == "version":
        case_error(path, b"PRQ2" + struct.pack("<I", 0), EPROTONOSUPPORT, "speaks version 1")
    elif case == "bad_key":
        case_error(path, request(b"op=query\nsecret=1\n"), EINVAL, "unknown request key 'secret'")
    elif case == "other_uid":
        case_other_uid(path, *args)
    elif case == "large":
        case_large(path, *args)
    elif case == "stall":
        case_stall(path, *args)
    elif case == "many":
        case_many(path, *args)
    else:
        fail(f"unknown case {case}")


if __name__ == "__main__":
    main()
