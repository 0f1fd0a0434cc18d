#!/usr/bin/env bash
# A fixed recursion depth: rec(7) calls itself down to rec(1), which spins; every
# verified sample under spin() shows exactly 7 rec() frames, each at its own line
# (the recursive call at line 6, the spin at line 4), and >= 95 % are verified.
. "$(dirname "$0")/lib.sh"
cat >"$TMP/pub/rec.py" <<'PY'
import sys, time
def rec(k):
    if k == 1:
        return spin(0.002)
    else:
        return rec(k - 1)
def spin(t):
    end = time.process_time() + t
    while time.process_time() < end: pass
end = time.process_time() + float(sys.argv[1])
while time.process_time() < end:
    rec(7)
PY
F=$TMP/rec.data
py_record "$F" "$TMP/pub/rec.py" 4
py_folded "$F" "$TMP/prof.folded"
python3 - "$TMP/prof.folded" <<'PY' || fail "recursion depth"
import collections, sys
depths = collections.Counter()
unverified = 0
for line in open(sys.argv[1]):
    stack, _, count = line.rstrip("\n").rpartition(" ")
    frames = stack.split(";")
    if any("[python" in f for f in frames):
        unverified += int(count)
        continue
    if not any(f.startswith("spin (") and "rec.py" in f for f in frames):
        continue
    recs = [f for f in frames if f.startswith("rec (") and "rec.py" in f]
    lines = [f.rsplit(":", 1)[1] for f in recs]
    depths[(len(recs), tuple(lines))] += int(count)
total = sum(depths.values())
print(f"# {total} verified samples under spin(), {unverified} unverified; depths: " +
      ", ".join(f"{d} frames (lines {'/'.join(sorted(set(l)))}): {n}" for (d, l), n in depths.items()))
want = (7, ("6)",) * 6 + ("4)",))
if total < 2000 or set(depths) != {want} or unverified * 20 > total:
    sys.exit(1)
PY
pass "every verified sample of the recursion shows 7 rec() frames"
