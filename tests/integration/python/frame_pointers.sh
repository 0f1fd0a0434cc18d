#!/usr/bin/env bash
# -g (frame pointers, what users type): no stack copy, so nothing pins a Python
# frame (docs/DESIGN.md).  The summary says once how many samples of how many Python
# processes there were and that Python frames need --call-graph dwarf: exactly the
# samples prof report gives the python3.11 process (but for up to 3 taken in its
# exec before the interpreter was mapped); the file has no Python frames.
# A C program recorded the same way gets no such line.
. "$(dirname "$0")/lib.sh"
cat >"$TMP/pub/fp.py" <<'PY'
import sys, time
def spin():
    end = time.process_time() + float(sys.argv[1])
    while time.process_time() < end: pass
spin()
PY
F=$TMP/fp.data
"$PROF" record --uid "$PYUSER" -g -F 1000 -o "$F" -- "$PY" "$TMP/pub/fp.py" 2 2>"$TMP/summary" >/dev/null ||
	fail "prof record -g: $(tail -5 "$TMP/summary")"
grep -E 'Python' "$TMP/summary" | sed 's/^/# /'
[ "$(grep -c 'Python frames need --call-graph dwarf' "$TMP/summary")" -eq 1 ] ||
	fail "not said once that Python frames need --call-graph dwarf: $(cat "$TMP/summary")"
read -r n procs name < <(sed -nE 's/^prof: ([0-9]+) samples of ([0-9]+) Python process\(es\) \(([^)]*)\): Python frames need --call-graph dwarf$/\1 \2 \3/p' "$TMP/summary")
[ "${procs:-}" = 1 ] && [ "$name" = python3.11 ] || fail "not 1 process of python3.11: $(cat "$TMP/summary")"
"$PROF" report -i "$F" -F json --sort comm >"$TMP/rep.json" 2>"$TMP/err" || fail "prof report: $(cat "$TMP/err")"
want=$(python3 -c 'import json, sys; print(sum(r["samples"] for r in json.load(open(sys.argv[1]))["rows"] if r["comm"] == "python3.11"))' "$TMP/rep.json")
[ "$n" -le "$want" ] && [ "$((want - n))" -le 3 ] && [ "$n" -gt 500 ] || fail "the summary says $n samples, prof report $want of python3.11"
"$PROF" report -i "$F" -F folded -g >"$TMP/folded" 2>"$TMP/err" || fail "prof report -g: $(cat "$TMP/err")"
! grep -qE 'fp\.py:def|\[python:' "$TMP/folded" || fail "Python frames in a -g recording"
"$PROF" record -g -F 1000 -o "$TMP/c.data" -- "$PROF_HOT" 1 2>"$TMP/summary.c" >/dev/null || fail "prof record -g of prof-hot"
! grep -q 'Python' "$TMP/summary.c" || fail "a C program's recording speaks of Python: $(grep Python "$TMP/summary.c")"
pass "-g: $n samples of the Python process counted, --call-graph dwarf named once, no Python frame"
