# SPDX-License-Identifier: GPL-2.0-or-later
"""Running a tool and measuring it: wall time, CPU (wait4 rusage), fds (/proc)."""

import os
import statistics
import threading
import time


class Run:
    """One process: started at construction, finished by wait()."""

    live = set()  # pids started and not yet waited for

    @classmethod
    def kill_all(cls):
        """an interrupted run: stop the tools still recording, and reap them"""
        for pid in list(cls.live):
            try:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
        cls.live.clear()

    def __init__(self, argv, out, err, watch_fds=False):
        self.argv = argv
        self.out, self.err = out, err
        fo = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        fe = os.open(err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        null = os.open("/dev/null", os.O_RDONLY)
        fa = [(os.POSIX_SPAWN_DUP2, null, 0), (os.POSIX_SPAWN_DUP2, fo, 1),
              (os.POSIX_SPAWN_DUP2, fe, 2)]
        self.t0_real = time.time()  # to compare with what a workload prints
        self.t0 = time.monotonic()
        self.pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=fa)
        Run.live.add(self.pid)
        for fd in (fo, fe, null):
            os.close(fd)
        self.max_fds = self.max_perf_fds = 0
        self._watch = None
        if watch_fds:
            self._stop = threading.Event()
            self._watch = threading.Thread(target=self._watch_fds, daemon=True)
            self._watch.start()

    def _watch_fds(self):
        d = f"/proc/{self.pid}/fd"
        while not self._stop.is_set():
            try:
                fds = os.listdir(d)
            except OSError:
                break
            n = p = 0
            for fd in fds:
                try:
                    link = os.readlink(f"{d}/{fd}")
                except OSError:
                    continue
                n += 1
                p += link == "anon_inode:[perf_event]"
            self.max_fds = max(self.max_fds, n)
            self.max_perf_fds = max(self.max_perf_fds, p)
            self._stop.wait(0.05)

    def alive(self):
        return os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None

    def wait(self):
        _, st, ru = os.wait4(self.pid, 0)
        Run.live.discard(self.pid)
        self.wall = time.monotonic() - self.t0
        if self._watch:
            self._stop.set()
            self._watch.join()
        self.cpu = ru.ru_utime + ru.ru_stime
        self.sig = os.WTERMSIG(st) if os.WIFSIGNALED(st) else 0
        self.rc = os.WEXITSTATUS(st) if os.WIFEXITED(st) else 128 + self.sig
        return self

    def stderr_tail(self, n=5):
        try:
            with open(self.err, errors="replace") as f:
                return " | ".join(f.read().strip().splitlines()[-n:])
        except OSError:
            return ""

    def signal(self, sig):
        try:
            os.kill(self.pid, sig)
        except ProcessLookupError:
            pass


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def busy_fraction(seconds=0.5):
    """share of all CPUs busy over `seconds`, from /proc/stat"""
    def read():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        return sum(v), v[3] + v[4]  # total, idle + iowait
    t1, i1 = read()
    time.sleep(seconds)
    t2, i2 = read()
    return 1 - (i2 - i1) / max(1, t2 - t1)


def settle(max_wait=6.0):
    """wait until the host is quiet again (after a spawn storm); False if it is not"""
    end = time.monotonic() + max_wait
    while time.monotonic() < end:
        if busy_fraction() < 0.1:
            return True
    return False
