#!/usr/bin/env bash
# Python under C, read by Debian's perf script from prof's file: sorted(key=keyfn),
# re.sub(pattern, repl_fn) and libc's qsort through a ctypes callback cmp_fn.  Each
# callback runs in an eval activation of its own, and the native frames that called
# it stand between it and the Python function that called them: sorts(), then
# PyObject_CallOneArg, then keyfn; re's sub(), PyObject_CallOneArg, repl_fn;
# qsorts(), ffi_call, then qsort (__GI___qsort_r), then cmp_fn; no other Python
# frame between them.  At most 1 % of a callback's samples whose caller is shown may
# miss them (an unwinding stopped short); at least 300 samples of each.
. "$(dirname "$0")/lib.sh"
require_perf
cat >"$TMP/pub/under_c.py" <<'PY'
import ctypes, re, sys, time
libc = ctypes.CDLL("libc.so.6")
CMP = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int))
def keyfn(x):
    end = time.process_time() + 0.0003
    while time.process_time() < end: pass
    return -x
def repl_fn(m):
    end = time.process_time() + 0.0003
    while time.process_time() < end: pass
    return "y"
def cmp_fn(a, b):
    end = time.process_time() + 0.0003
    while time.process_time() < end: pass
    return a[0] - b[0]
cmp_c = CMP(cmp_fn)
def sorts():
    return sorted(range(50), key=keyfn)
def subs():
    return re.sub("x", repl_fn, "x" * 50)
def qsorts():
    arr = (ctypes.c_int * 20)(*range(20, 0, -1))
    libc.qsort(arr, 20, ctypes.sizeof(ctypes.c_int), cmp_c)
end = time.process_time() + float(sys.argv[1])
while time.process_time() < end:
    sorts(); subs(); qsorts()
PY
F=$TMP/under_c.data
py_record "$F" "$TMP/pub/under_c.py" 4
perf_lost_ok=1  # dwarf at 4 kHz loses records on a loaded host: its stacks are read as they are
perf_folded "$F" "$TMP/perf.folded"
python3 - "$TMP/perf.folded" <<'PY' || fail "native frames not between the Python frames"
import re, sys
# callback: (its caller, the native frames between them in this order)
want = {"keyfn": ("sorts", [r"^PyObject_CallOneArg$"]),
        "repl_fn": ("sub", [r"^PyObject_CallOneArg$"]),
        "cmp_fn": ("qsorts", [r"^ffi_call", r"qsort"])}
n = {k: [0, 0] for k in want}           # [in order, not]
py = re.compile(r" \(.*:def \d+\)$")
for line in open(sys.argv[1]):
    stack, _, count = line.rstrip("\n").rpartition(" ")
    frames, count = stack.split(";"), int(count)
    for fn, (caller, natives) in want.items():
        i = next((i for i, f in enumerate(frames) if f.startswith(fn + " (")), -1)
        if i < 0:
            continue
        j = max((k for k, f in enumerate(frames[:i]) if f.startswith(caller + " (")), default=-1)
        if j < 0:
            continue    # the caller's activation unverified, or the unwinding stopped short
        between = frames[j + 1:i]
        at, ok = 0, not any(py.search(f) for f in between)
        for pat in natives:
            k = next((k for k in range(at, len(between)) if re.search(pat, between[k])), -1)
            ok &= k >= 0
            at = k + 1
        ok &= "_PyEval_EvalFrameDefault" in between[at:]
        if not ok and n[fn][1] < 3:
            print("# not in order:", ";".join(frames[j:i + 1]))
        n[fn][0 if ok else 1] += count
print("# callbacks' samples under their caller, [native frames in order, not]: " +
      ", ".join(f"{k} {v}" for k, v in n.items()))
if any(v[0] < 300 or v[1] * 100 > v[0] + v[1] for v in n.values()):
    sys.exit(1)
PY
pass "perf script shows qsort, ffi_call and PyObject_CallOneArg between the Python frames"
