#!/usr/bin/env bash
# A fixed recursion depth: rec(7) calls itself down to rec(1), which spins.  The 7
# rec() frames are one activation; its callers (rec(2) ... rec(7)) are in the heap,
# read after the sample, and a later call at the same addresses could stand there
# (the depth is fixed here, but prof cannot know that), so they are not shown: every
# verified sample of the phase shows rec() once, at its def line, with [python:
# callers not proven] right above it, and >= 95 % are verified.
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
unverified = 0
for line in open(sys.argv[1]):
    stack, _, count = line.rstrip("\n").rpartition(" ")
    frames = stack.split(";")
    if any("[python: unverified]" in f for f in frames):
        unverified += int(count)
        continue
    mine = [f.split(" (")[0] if "rec.py" in f else f for f in frames if "rec.py" in f or f.startswith("[python")]
    if "rec" not in mine:
        continue
    shapes[tuple(mine)] += int(count)
total = sum(shapes.values())
print(f"# {total} verified samples in rec(), {unverified} unverified; shapes: " +
      ", ".join(f"{';'.join(k)}: {n}" for k, n in shapes.items()))
want = ("[python: callers not proven]", "rec")
if total < 2000 or set(shapes) != {want} or unverified * 20 > total:
    sys.exit(1)
PY
pass "every verified sample of the recursion shows rec() once, its callers not proven"
