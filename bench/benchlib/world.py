# SPDX-License-Identifier: GPL-2.0-or-later
"""A throw-away multi-tenant host: test users, their cgroups, their processes.

World() makes two users for the other tenants and one for the tenant being
profiled, each with a cgroup (under <cgroup2>/prof-bench/), and one spawner per user
(spawner.py, run as that user inside its cgroup) that is the parent of everything
the world starts.  teardown() stops all of it, kills whatever is left of the test
uids, removes the cgroups and the users, and checks that nothing is left.  It is
safe to call twice, and the spawners also clean up by themselves when the harness
dies (their stdin reaches end of file).
"""

import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3"  # the system one: a pyenv shim does not work for test users
OTHERS = ("prof-bench-a", "prof-bench-b")
TENANT = "prof-bench-tenant"
USERS = OTHERS + (TENANT,)
CG_TOP = "prof-bench"
PY_PCT = 10  # share of python3 among the idle processes; the rest are sleep


class WorldError(Exception):
    pass


def cgroup2_mount():
    with open("/proc/self/mountinfo") as f:
        for line in f:
            pre, _, post = line.partition(" - ")
            if post.split()[0] == "cgroup2":
                return pre.split()[4]
    raise WorldError("no cgroup2 mount in /proc/self/mountinfo")


def pids_of_uid(uid):
    """live (not zombie) pids whose real or effective uid is uid"""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/status") as f:
                st = f.read()
        except OSError:
            continue
        fields = dict(l.split(":", 1) for l in st.splitlines() if ":" in l)
        ids = fields.get("Uid", "").split()
        if fields.get("State", "").strip().startswith("Z") or len(ids) < 2:
            continue
        if int(ids[0]) == uid or int(ids[1]) == uid:
            out.append(int(d))
    return out


def log(msg):
    print(f"[bench] {msg}", file=sys.stderr, flush=True)


class World:
    def __init__(self, prof_hot):
        self.uids = {}
        self.spawners = {}  # user -> Popen of its idle spawner
        self.extra = []     # churn spawners and other processes of test users
        self.count = {u: 0 for u in USERS}
        self.cg_root = os.path.join(cgroup2_mount(), CG_TOP)
        self.torn_down = False
        for u in USERS:
            try:
                pwd.getpwnam(u)
            except KeyError:
                continue
            raise WorldError(f"user {u} exists (a run that was killed?): "
                             f"remove it with bench/run --cleanup")
        if os.path.exists(self.cg_root):
            raise WorldError(f"{self.cg_root} exists (a run that was killed?): "
                             f"remove it with bench/run --cleanup")
        self.work = tempfile.mkdtemp(prefix="prof-bench.")
        os.chmod(self.work, 0o711)  # the test users run the copies below
        self.hot = os.path.join(self.work, "prof-hot")
        shutil.copy(prof_hot, self.hot)
        os.chmod(self.hot, 0o755)
        with open(os.path.join(HERE, "spawner.py")) as f:
            self.spawner_src = f.read()
        try:
            os.mkdir(self.cg_root)
            for u in USERS:
                subprocess.run(["useradd", "-M", "-s", "/bin/sh", u], check=True,
                               stdout=subprocess.DEVNULL)
                self.uids[u] = pwd.getpwnam(u).pw_uid
                os.mkdir(self.cgroup_dir(u))
        except (OSError, subprocess.CalledProcessError) as e:
            self.teardown()
            raise WorldError(f"cannot build the world: {e}")

    # --- where things are -------------------------------------------------

    def cgroup_dir(self, user):
        return os.path.join(self.cg_root, user.replace("prof-bench-", ""))

    def cgroup_rel(self, user):
        """the cgroup as prof --cgroup and perf -G name it: relative to the mount"""
        return os.path.relpath(self.cgroup_dir(user), cgroup2_mount())

    def others(self):
        return sum(self.count[u] for u in OTHERS)

    # --- starting processes as a user --------------------------------------

    def _enter(self, user):
        pw = pwd.getpwnam(user)
        procs = os.path.join(self.cgroup_dir(user), "cgroup.procs")

        def fn():
            with open(procs, "w") as f:
                f.write("0")
            os.setgroups([])
            os.setgid(pw.pw_gid)
            os.setuid(pw.pw_uid)
            os.chdir("/")
        return fn

    def popen_as(self, user, argv, **kw):
        """argv run as user in the user's cgroup, a child of the harness (so outside
        the process tree of anything the tenant already runs)"""
        env = {"PATH": "/usr/bin:/bin", "LANG": "C", "HOME": "/", "USER": user}
        return subprocess.Popen(argv, preexec_fn=self._enter(user), env=env, **kw)

    def _spawner(self, user):
        p = self.popen_as(user, [PY, "-I", "-c", self.spawner_src],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        return p

    def _ask(self, p, cmd, timeout=600):
        p.stdin.write(cmd + "\n")
        p.stdin.flush()
        line = p.stdout.readline()  # the spawner answers or exits
        if not line.startswith("ok"):
            raise WorldError(f"spawner ({cmd}) failed (exit {p.poll()})")
        return line.split()

    def grow(self, user, k):
        """k more idle processes of user"""
        if k <= 0:
            return
        if user not in self.spawners:
            self.spawners[user] = self._spawner(user)
        t = time.monotonic()
        reply = self._ask(self.spawners[user], f"idle {k} {PY_PCT if k > 1 else 0}")
        self.count[user] = int(reply[1])
        log(f"{user}: {self.count[user]} idle processes (+{k} in {time.monotonic() - t:.1f} s)")

    def grow_others(self, n):
        """the other tenants own n idle processes in all, split between them"""
        need = n - self.others()
        for i, u in enumerate(OTHERS):
            self.grow(u, need // len(OTHERS) + (1 if i < need % len(OTHERS) else 0))

    def churn(self, user, rate):
        p = self._spawner(user)
        self.extra.append(p)
        self._ask(p, f"churn {rate}")
        return p

    def stop(self, p):
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        if p in self.extra:
            self.extra.remove(p)

    # --- teardown -----------------------------------------------------------

    def teardown(self):
        if self.torn_down:
            return True
        self.torn_down = True
        ok = True
        for p in list(self.spawners.values()) + self.extra:
            try:
                if p.stdin:
                    p.stdin.close()
            except OSError:
                pass
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in list(self.spawners.values()) + self.extra:
            try:
                p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        ok &= remove_leftovers(self.cg_root, list(self.uids))
        shutil.rmtree(self.work, ignore_errors=True)
        return ok


def remove_leftovers(cg_root, users):
    """remove the cgroups and users of a world; True when nothing is left"""
    ok = True
    for u in users:  # whatever still runs as a test uid (the spawners took the rest)
        try:
            uid = pwd.getpwnam(u).pw_uid
        except KeyError:
            continue
        for _ in range(100):
            pids = pids_of_uid(uid)
            if not pids:
                break
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.1)
    if os.path.isdir(cg_root):
        for d in sorted((os.path.join(cg_root, x) for x in os.listdir(cg_root)
                         if os.path.isdir(os.path.join(cg_root, x))), reverse=True):
            ok &= rmdir_retry(d)
        ok &= rmdir_retry(cg_root)
    for u in users:
        try:
            uid = pwd.getpwnam(u).pw_uid
        except KeyError:
            continue
        if subprocess.run(["userdel", u], stderr=subprocess.DEVNULL).returncode != 0:
            time.sleep(1)
            if subprocess.run(["userdel", u]).returncode != 0:
                log(f"LEFTOVER: userdel {u} failed")
                ok = False
        if pids_of_uid(uid):
            log(f"LEFTOVER processes of uid {uid}: {pids_of_uid(uid)}")
            ok = False
    return ok


def rmdir_retry(d):
    for _ in range(50):  # a cgroup is busy until its last (killed) task is reaped
        try:
            os.rmdir(d)
            return True
        except FileNotFoundError:
            return True
        except OSError:
            time.sleep(0.1)
    log(f"LEFTOVER cgroup {d}")
    return False


def cleanup_only():
    """bench/run --cleanup: what a SIGKILLed run left behind"""
    return remove_leftovers(os.path.join(cgroup2_mount(), CG_TOP), list(USERS))
