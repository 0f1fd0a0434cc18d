#!/usr/bin/env bash
# A fixed recursion depth: rec(7) calls itself down to rec(1), which spins.  The 7
# rec() frames are one activation; its callers (rec(2) ... rec(7)) are in the heap,
# read at the sample instant (python/chain.h): every verified sample of the spin
# shows exactly 7 rec() frames, rec(1) at its spinning line and each caller at its
# call (line 7), under <module>, and >= 95 % are verified.
. "$(dirname "$0")/lib.sh"
cat >"$TMP/pub/rec.py" <<'PY'
import sys, time
def rec(k):
    if k == 1:
        end = time.process_time() + 0.002
        while time.process_time() < end: pass
    else:
        return rec(k - 1)
end = time.process_time() + float(sys.argv[1])
while time.process_time() < end:
    rec(7)
PY
F=$TMP/rec.data
py_record "$F" "$TMP/pub/rec.py" 4
py_folded "$F" "$TMP/prof.folded"
python3 - "$TMP/prof.folded" <<'PY' || fail "recursion"
import collections, sys
shapes = collections.Counter()
unverified = spinning = other = 0
for line in open(sys.argv[1]):
    stack, _, count = line.rstrip("\n").rpartition(" ")
    count = int(count)
    frames = stack.split(";")
    if any("[python: unverified]" in f for f in frames):
        unverified += count
        continue
    mine = [f.split(" (")[0] + ":" + f.rsplit(":", 1)[1].rstrip(")") if "rec.py" in f else f
            for f in frames if "rec.py" in f or f.startswith("[python")]
    if not mine or not mine[-1].startswith("rec:"):
        continue
    # the spin (lines 4-5, in rec(1)) is the phase of fixed depth; the calls down to
    # it and the returns show fewer frames, each calling from line 7
    if mine[-1] in ("rec:4", "rec:5"):
        spinning += count
        shapes[";".join(mine)] += count
    else:
        other += count
        if len([m for m in mine if m.startswith("rec:")]) > 7 or any(m != "rec:7" for m in mine[1:-1]):
            shapes[";".join(mine)] += count
want = ";".join(["<module>:10"] + ["rec:7"] * 6)
right = sum(n for k, n in shapes.items() if k in (want + ";rec:4", want + ";rec:5"))
print(f"# {spinning} verified samples spinning in rec(1), {right} of them with exactly 7 rec() frames "
      f"under <module>; {other} calling or returning; {unverified} unverified; other shapes: " +
      ", ".join(f"{k}: {n}" for k, n in shapes.items() if not k.startswith(want)))
if spinning < 2000 or right != spinning or len(shapes) > 2 or unverified * 20 > spinning:
    sys.exit(1)
PY
pass "every verified sample of the fixed-depth phase shows exactly 7 rec() frames, each at its line"
