#!/usr/bin/env bash
# A wrong caller is provable: a() and b() both call helper(), which spins on one line
# when called from a() and on another from b(), switching every millisecond, their
# frames at the same addresses each time.  prof shows no callers it cannot prove
# and no line (both are read after the sample): over >= 20,000 samples of helper(),
# each shows helper() at its def line with [python: callers not proven] above it,
# none with a() or b() above it, and no frame of the program names a line.
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
# >= 20,000 samples of helper() over up to three recordings (a loaded host gives the
# program less of a CPU), each checked alone.
total=0
for try in 1 2 3; do
	F=$TMP/callers-$try.data
	py_record "$F" "$TMP/pub/callers.py" 8
	py_folded "$F" "$TMP/prof-$try.folded"
	n=$(python3 - "$TMP/prof-$try.folded" <<'PY'
import sys
helper = marked = wrong = lines = 0
for line in open(sys.argv[1]):
    stack, _, count = line.rstrip("\n").rpartition(" ")
    frames = [f for f in stack.split(";") if "callers.py:" in f or f.startswith("[python: callers")]
    lines += sum(int(count) for f in frames if "callers.py:" in f and "callers.py:def " not in f)
    if not frames or not frames[-1].startswith("helper ("):
        continue
    helper += int(count)
    if frames[-1] != f"helper ({frames[-1].split(' (', 1)[1].split(':def')[0]}:def 2)":
        wrong += int(count)
    if frames[-2:-1] == ["[python: callers not proven]"]:
        marked += int(count)
    if any(f.split(" (")[0] in ("a", "b") for f in frames):
        wrong += int(count)
print(f"# samples of helper() at its def line 2: {helper}, [python: callers not proven] above: {marked}, "
      f"with a caller or another line: {wrong}; frames with a line: {lines}", file=sys.stderr)
print(helper)
sys.exit(1 if wrong or lines or marked != helper else 0)
PY
) || fail "wrong callers"
	total=$((total + n))
	[ "$total" -ge 20000 ] && break
done
[ "$total" -ge 20000 ] || fail "only $total samples of helper() in three recordings (>= 20,000 wanted)"
pass "no caller or line shown over $total samples of helper()"
