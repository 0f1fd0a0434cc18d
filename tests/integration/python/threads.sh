#!/usr/bin/env bash
# Threads and calls from C back into Python.  Two threads, each named (prctl) and
# spinning only in its own function, func_1 or func_2: every verified sample of a
# thread shows its own function only (each sample's stack copy pins its own
# thread's frame).  sorted(key=keyfn) and re.sub(repl_fn): the key and repl
# functions run in an activation of their own, called by native code that
# _PyEval_EvalFrameDefault of the caller called, and show in that order: the
# caller (the innermost function of its activation, which the sample pins), native
# frames, _PyEval_EvalFrameDefault, keyfn (an entry frame: nothing above it in its
# activation, so no [python: callers not proven] either, unless its frame had moved
# on when read: then whether it was an entry frame is not known).
. "$(dirname "$0")/lib.sh"
cat >"$TMP/pub/threads.py" <<'PY'
import ctypes, re, sys, threading, time
libc = ctypes.CDLL(None)
def named(name):
    libc.prctl(15, name.encode(), 0, 0, 0)         # PR_SET_NAME
def func_1(end):
    named("worker1")
    while time.monotonic() < end: pass
def func_2(end):
    named("worker2")
    while time.monotonic() < end: pass
def keyfn(x):
    end = time.process_time() + 0.0005
    while time.process_time() < end: pass
    return -x
def repl_fn(m):
    end = time.process_time() + 0.0005
    while time.process_time() < end: pass
    return "y"
def sorts(n):
    return sorted(range(n), key=keyfn)
def subs(n):
    return re.sub("x", repl_fn, "x" * n)
secs = float(sys.argv[1])
end = time.monotonic() + secs
ts = [threading.Thread(target=f, args=(end,)) for f in (func_1, func_2)]
[t.start() for t in ts]
[t.join() for t in ts]
end = time.monotonic() + secs
while time.monotonic() < end:
    sorts(200)
    subs(200)
PY
F=$TMP/threads.data
py_record "$F" "$TMP/pub/threads.py" 2.5
"$PROF" report -i "$F" -F folded -g >"$TMP/folded.raw" 2>"$TMP/err" || fail "prof report: $(cat "$TMP/err")"
sed -E 's/_\(/ (/g' "$TMP/folded.raw" >"$TMP/prof.folded"
python3 - "$TMP/prof.folded" <<'PY' || fail "threads or callbacks"
import sys
own = {"worker1": 0, "worker2": 0}
wrong = 0
calls = {"keyfn": [0, 0], "repl_fn": [0, 0]}   # [in order, not]
for line in open(sys.argv[1]):
    stack, _, count = line.rstrip("\n").rpartition(" ")
    frames = stack.split(";")
    count = int(count)
    if any("[python:_unverified]" in f for f in frames):
        continue
    names = [f.split(" (")[0] for f in frames if "threads.py" in f]
    if frames[0] in own and names:
        mine = "func_" + frames[0][-1]
        # its own function, or named() that both call first; never another thread's
        if names in ([mine], ["named"]):
            own[frames[0]] += count
        else:
            wrong += count
            print("# wrong:", frames[0], names, count)
    # re.sub is a Python function of re: the innermost of subs()'s activation
    for fn, caller in (("keyfn", "sorts"), ("repl_fn", "sub")):
        if not any(f.startswith(fn + " (") for f in frames):
            continue
        i = next(i for i, f in enumerate(frames) if f.startswith(fn + " ("))
        j = max((k for k, f in enumerate(frames[:i]) if f.startswith(caller + " (")), default=-1)
        if j < 0:
            continue    # the outer activation unverified, or the unwinding stopped short
        between = frames[j + 1:i]
        if between[-1:] == ["[python:_callers_not_proven]"]:
            between = between[:-1]
        ok = between and between[-1] == "_PyEval_EvalFrameDefault" and \
            any(not f.startswith("_PyEval") for f in between)
        if not ok and calls[fn][1] == 0:
            print("# not in order:", ";".join(frames[j:i + 1]))
        calls[fn][0 if ok else 1] += count
print(f"# worker1 {own['worker1']}, worker2 {own['worker2']} samples of their own function, {wrong} otherwise")
print(f"# keyfn under sorts() through native frames: {calls['keyfn']}, repl_fn under re.sub(): {calls['repl_fn']} ([in order, not])")
if wrong or min(own.values()) < 500 or any(c[1] or c[0] < 200 for c in calls.values()):
    sys.exit(1)
PY
pass "threads show their own function; keyfn and repl_fn stand above their callers' native frames"
