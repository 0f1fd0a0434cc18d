#!/usr/bin/env bash
# A wrong caller is provable: a() and b() both call helper(), which spins on one line
# when called from a() and on another from b(), switching every millisecond, their
# frames at the same addresses each time.  Over >= 20,000 samples of helper(), none
# shows helper() at b's line under a() or the reverse.
. "$(dirname "$0")/lib.sh"
cat >"$TMP/pub/callers.py" <<'PY'
import sys, time
def helper(from_a):
    end = time.perf_counter() + 0.001
    if from_a:
        while time.perf_counter() < end: pass   # line 5: from a
    else:
        while time.perf_counter() < end: pass   # line 7: from b
def a():
    helper(True)
def b():
    helper(False)
end = time.perf_counter() + float(sys.argv[1])
while time.perf_counter() < end:
    a()
    b()
PY
F=$TMP/callers.data
py_record "$F" "$TMP/pub/callers.py" 8
py_folded "$F" "$TMP/prof.folded"
python3 - "$TMP/prof.folded" <<'PY' || fail "wrong callers"
import sys
# helper's lines 3 and 4 run under both callers; 5 only under a, 7 only under b
ok = {("a", 5): 0, ("b", 7): 0}
wrong = {}
common = 0
for line in open(sys.argv[1]):
    stack, _, count = line.rstrip("\n").rpartition(" ")
    frames = [f for f in stack.split(";") if "callers.py:" in f]
    for caller, callee in zip(frames, frames[1:]):
        if not callee.startswith("helper ("):
            continue
        key = (caller.split(" (")[0], int(callee.rsplit(":", 1)[1].rstrip(")")))
        if key[0] in ("a", "b") and key[1] in (3, 4):
            common += int(count)
        elif key in ok:
            ok[key] += int(count)
        else:
            wrong[key] = wrong.get(key, 0) + int(count)
print(f"# helper under a at line 5: {ok[('a', 5)]}, under b at line 7: {ok[('b', 7)]}, at 3-4: {common}, otherwise: {wrong}")
if wrong or sum(ok.values()) < 20000 or min(ok.values()) < 5000:
    sys.exit(1)
PY
pass "no wrong caller over $(awk '/helper \(/ {n += $NF} END {print n}' "$TMP/prof.folded") samples of helper()"
