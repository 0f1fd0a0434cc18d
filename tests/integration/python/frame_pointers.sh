#!/usr/bin/env bash
# -g (frame pointers, what users type): no stack copy, so nothing pins a Python
# frame, but the chain read at the sample instant (python/chain.h) needs none.  As
# root: a() and b() both call helper(), which spins on line 5 for a() and 7 for b()
# (python/callers.py); every sample of helper() at a line shows the caller of that line, then
# <module> (0 wrong), >= 95 % of the samples have verified Python frames, and the
# summary says how many samples' native callers were not shown and that
# --call-graph dwarf shows them.  With --no-python-callers: the summary says once
# how many samples of how many Python processes there were and that Python frames
# need --call-graph dwarf, exactly the samples prof report gives the python3.11
# process (but for up to 3 taken in its exec), and the file has no Python frames.
# A C program recorded the same way gets no such line.
. "$(dirname "$0")/lib.sh"
require_perf
cp "$(dirname "$0")/callers.py" "$TMP/pub/fp.py" && chmod 644 "$TMP/pub/fp.py" || fail "copy callers.py"
F=$TMP/fp.data
"$PROF" record --uid "$PYUSER" -g -F 4000 -o "$F" -- "$PY" "$TMP/pub/fp.py" 3 2>"$TMP/summary" >/dev/null ||
	fail "prof record -g: $(tail -5 "$TMP/summary")"
grep -E 'Python' "$TMP/summary" | sed 's/^/# /'
grep -qE '^prof: Python: -g: [0-9]+ samples. native callers not shown .*--call-graph dwarf shows' "$TMP/summary" ||
	fail "-g: the summary does not say what --call-graph dwarf adds: $(cat "$TMP/summary")"
read -r samples verified < <(sed -nE 's/^prof: Python: ([0-9]+) samples .*, ([0-9]+) of them all verified.*/\1 \2/p' "$TMP/summary")
[ -n "${samples:-}" ] && [ "$((verified * 100))" -ge "$((samples * 95))" ] ||
	fail "-g: only ${verified:-0} of ${samples:-0} samples verified"
py_folded "$F" "$TMP/prof.folded"
python3 - "$TMP/prof.folded" <<'PY' || fail "-g: helper() under a caller it did not have"
import sys
right = wrong = helper = 0
want = {"5": "a", "7": "b"}      # callers.py: helper() spins on line 5 for a(), 7 for b()
for line in open(sys.argv[1]):
    stack, _, count = line.rstrip("\n").rpartition(" ")
    count = int(count)
    frames = [f for f in stack.split(";") if "fp.py:" in f or f.startswith("[python")]
    if not frames or not frames[-1].startswith("helper (") or any(f.startswith("[python") for f in frames):
        continue
    helper += count
    names = [f.split(" (")[0] for f in frames]
    at = frames[-1].rsplit(":", 1)[1].rstrip(")")
    if names in ([["<module>", want[at], "helper"]] if at in want else [["<module>", c, "helper"] for c in "ab"]):
        right += count
    else:
        wrong += count
        print("# wrong:", ";".join(frames), count)
print(f"# -g: samples of helper(): {helper}, under the caller of their line: {right}, wrong: {wrong}")
sys.exit(1 if wrong or helper < 5000 else 0)
PY
pass "-g: every sample of helper() under the caller it had, $verified of $samples samples verified"

# without the chains: no Python frame, and the summary says what would give them
"$PROF" record --uid "$PYUSER" -g --no-python-callers -F 1000 -o "$F" -- "$PY" "$TMP/pub/fp.py" 2 \
	2>"$TMP/summary" >/dev/null || fail "prof record -g --no-python-callers: $(tail -5 "$TMP/summary")"
grep -E 'Python' "$TMP/summary" | sed 's/^/# /'
[ "$(grep -c 'Python frames need --call-graph dwarf' "$TMP/summary")" -eq 1 ] ||
	fail "not said once that Python frames need --call-graph dwarf: $(cat "$TMP/summary")"
read -r n procs name < <(sed -nE 's/^prof: ([0-9]+) samples of ([0-9]+) Python process\(es\) \(([^)]*)\): Python frames need --call-graph dwarf.*$/\1 \2 \3/p' "$TMP/summary")
[ "${procs:-}" = 1 ] && [ "$name" = python3.11 ] || fail "not 1 process of python3.11: $(cat "$TMP/summary")"
"$PROF" report -i "$F" -F json --sort comm >"$TMP/rep.json" 2>"$TMP/err" || fail "prof report: $(cat "$TMP/err")"
want=$(python3 -c 'import json, sys; print(sum(r["samples"] for r in json.load(open(sys.argv[1]))["rows"] if r["comm"] == "python3.11"))' "$TMP/rep.json")
[ "$n" -le "$want" ] && [ "$((want - n))" -le 3 ] && [ "$n" -gt 500 ] || fail "the summary says $n samples, prof report $want of python3.11"
"$PROF" report -i "$F" -F folded -g >"$TMP/folded" 2>"$TMP/err" || fail "prof report -g: $(cat "$TMP/err")"
! grep -qE 'fp\.py:|\[python:' "$TMP/folded" || fail "Python frames in a -g --no-python-callers recording"
"$PROF" record -g -F 1000 -o "$TMP/c.data" -- "$PROF_HOT" 1 2>"$TMP/summary.c" >/dev/null || fail "prof record -g of prof-hot"
! grep -q 'Python' "$TMP/summary.c" || fail "a C program's recording speaks of Python: $(grep Python "$TMP/summary.c")"
pass "-g --no-python-callers: $n samples of the Python process counted, --call-graph dwarf named once, no Python frame"
