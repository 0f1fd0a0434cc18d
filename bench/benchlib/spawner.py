# SPDX-License-Identifier: GPL-2.0-or-later
# The spawner: runs as a test user, inside that user's cgroup, and is the parent of
# every process the world gives that user.  Passed to `python3 -c`, so the test
# users need no access to the repository.  Commands on stdin, one per line:
#
#   idle K PCT   start K idle processes, PCT % python3 (with the mappings of a small
#                daemon: ssl, sqlite3, decimal) and the rest sleep; answer
#                "ok TOTAL" once every python child is up
#   churn RATE   start RATE short-lived /bin/true per second until stopped
#                (a spawner in churn mode takes no further commands)
#
# On end of stdin (the harness exited, even by SIGKILL), SIGTERM, SIGINT or SIGHUP it
# kills and reaps all its children, so nothing of the world outlives the harness.
import os
import select
import signal
import sys
import time

stop = False  # set once finish() has begun
kids = []
env = {"PATH": "/usr/bin:/bin", "LANG": "C"}
null = os.open("/dev/null", os.O_RDWR)
fa = [(os.POSIX_SPAWN_DUP2, null, 0), (os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, null, 2)]
PY = ("import os, json, sqlite3, ssl, decimal, hashlib, time\n"
      "os.write(3, b'r'); os.close(3); time.sleep(1e7)")


def finish(code):
    global stop
    stop = True
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
    for k in kids:
        try:
            os.kill(k, signal.SIGKILL)
        except ProcessLookupError:
            pass
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            break
        except InterruptedError:
            pass
    sys.exit(code)


def on_signal(sig, frm):
    # Python retries interrupted reads (PEP 475): leave from here, not the loop
    finish(0)


for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(s, on_signal)


def idle(k, pct):
    n_py = k * pct // 100
    r, w = os.pipe()
    try:
        for _ in range(k - n_py):
            if stop:
                finish(1)
            kids.append(os.posix_spawn("/bin/sleep", ["sleep", "10000000"], env, file_actions=fa))
        for _ in range(n_py):
            if stop:
                finish(1)
            kids.append(os.posix_spawn(sys.executable, ["python3", "-c", PY], env,
                                       file_actions=fa + [(os.POSIX_SPAWN_DUP2, w, 3)]))
    except OSError as e:
        print(f"spawn failed after {len(kids)} processes: {e}", file=sys.stderr)
        finish(1)
    os.close(w)
    got = 0
    while got < n_py and not stop:
        try:
            b = os.read(r, 4096)
        except InterruptedError:
            continue
        if not b:
            break
        got += len(b)
    os.close(r)
    if got < n_py:
        print(f"only {got} of {n_py} python children came up", file=sys.stderr)
        finish(1)
    print(f"ok {len(kids)}", flush=True)


def churn(rate):
    period = 1.0 / rate
    nxt = time.monotonic()
    while not stop:
        now = time.monotonic()
        if now >= nxt:
            try:
                os.posix_spawn("/bin/true", ["true"], env, file_actions=fa)
            except OSError:
                pass
            nxt += period
            if nxt < now - 1:  # fell behind by a second: do not burst
                nxt = now
        while True:  # reap the ones that are done
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
        try:
            rd, _, _ = select.select([0], [], [], max(0.0, nxt - time.monotonic()))
        except InterruptedError:
            continue
        if rd and not os.read(0, 4096):
            break
    finish(0)


while not stop:
    try:
        line = sys.stdin.readline()
    except InterruptedError:
        continue
    if not line:
        break
    cmd = line.split()
    if cmd[0] == "idle":
        idle(int(cmd[1]), int(cmd[2]))
    elif cmd[0] == "churn":
        print("ok churn", flush=True)
        churn(float(cmd[1]))
    else:
        print(f"unknown command {cmd!r}", file=sys.stderr)
        finish(2)
finish(0)
