#!/usr/bin/env bash
# Functions made by exec in a loop: each exec_fn_I is compiled, run for 100 ms of CPU
# and freed before the next is made, so code objects, their qualname strings and
# their frames are reused at the same addresses.  Every sample naming one must name
# the one running then: perf script of prof's file gives the samples in time order
# (one thread), and the functions ran in the order of the program's own log, so the
# I named may never go down, and every I named is in the log.  A code object is
# named only when its address was read to hold it before the sample (and after):
# one made and read for the first time after the sample is [python: unverified].
. "$(dirname "$0")/lib.sh"
require_perf
cat >"$TMP/pub/exec_loop.py" <<'PY'
import gc, sys, time
log = open(sys.argv[2], "w")
end = time.process_time() + float(sys.argv[1])
i = 0
while time.process_time() < end:
    ns = {}
    exec(f"def exec_fn_{i}(t):\n    e = t() + 0.1\n    while t() < e: pass\n", ns)
    ns[f"exec_fn_{i}"](time.process_time)
    log.write(f"{i}\n")
    del ns
    gc.collect(0)
    i += 1
PY
touch "$TMP/pub/exec.log" && chown "$PYUSER" "$TMP/pub/exec.log" || fail "log"
F=$TMP/exec.data
py_record "$F" "$TMP/pub/exec_loop.py" 4 "$TMP/pub/exec.log"
perf_clean "$TMP/script.txt" script -i "$F" -F tid,time,ip,sym
python3 - "$TMP/script.txt" "$TMP/pub/exec.log" <<'PY' || fail "a function named that was not running"
import re, sys
ran = [int(l) for l in open(sys.argv[2])]
samples = back = unknown = 0
last = -1
for block in open(sys.argv[1]).read().split("\n\n"):
    names = re.findall(r"exec_fn_(\d+) \(<string>:(?:def )?\d+\)", block)
    if not names:
        continue
    samples += 1
    i = int(names[0])
    if len(set(names)) > 1 or i not in ran:
        unknown += 1
        print("# not in the log or two at once:", names)
    if i < last:
        back += 1
        if back < 5:
            print(f"# exec_fn_{i} named after exec_fn_{last}")
    last = max(last, i)
print(f"# {len(ran)} functions made and run, {samples} samples name one; "
      f"{back} name one that ended before an earlier sample's, {unknown} one never run")
if back or unknown or samples < 8000 or len(ran) < 30:
    sys.exit(1)
PY
pass "every sample of an exec'd function names the one running then"
