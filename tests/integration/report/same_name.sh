#!/usr/bin/env bash
# A symbol row is that symbol of that object: three copies of prof-hot, two of them
# with the same base name (a/prof-hot, b/prof-hot) and one with another
# (c/other-hot), all busy at once, are three hot_function rows in prof report
# --sort sym (text and JSON, which names each row's object), with the shares perf
# report gives each (dso, symbol) on the same file (perf report -v --sort dso,sym
# names objects by path; without -v perf compares base names only and merges a and b),
# on prof's file and on perf's.
. "$(dirname "$0")/../lib.sh"
require_root
require_perf

for d in a b c; do mkdir -p "$TMP/$d"; done
cp "$PROF_HOT" "$TMP/a/prof-hot" && cp "$PROF_HOT" "$TMP/b/prof-hot" && cp "$PROF_HOT" "$TMP/c/other-hot" ||
	fail "copy prof-hot"
work="$TMP/a/prof-hot 2 & $TMP/b/prof-hot 2 & $TMP/c/other-hot 2 & wait"
"$PROF" record -q -e cpu-clock -o "$TMP/prof.data" -- sh -c "$work" || fail "prof record"
"$PERF" record -q -e cpu-clock -o "$TMP/perf.data" -- sh -c "$work" >/dev/null 2>&1 || fail "perf record"

compare() {
	local file=$1 what=$2
	"$PROF" report -i "$file" --sort sym -F json >"$TMP/prof.json" 2>"$TMP/err" || fail "$what: prof report: $(cat "$TMP/err")"
	"$PROF" report -i "$file" --sort sym >"$TMP/prof.txt" 2>"$TMP/err" || fail "$what: prof report: $(cat "$TMP/err")"
	"$PERF" report -v -i "$file" --stdio --no-children --sort dso,sym -g none >"$TMP/perf.txt" 2>/dev/null ||
		fail "$what: perf report"
	python3 - "$TMP/prof.json" "$TMP/perf.txt" "$TMP/prof.txt" "$TMP" "$what" <<'PY' || fail "$what: prof and perf disagree"
import json, re, sys
rows = json.load(open(sys.argv[1]))["rows"]
tmp, what = sys.argv[4], sys.argv[5]
perf = {}
for line in open(sys.argv[2]):
    m = re.match(r"\s+([0-9.]+)%\s+(\S+)\s.*\[\.\]\s+(\S+)\s*$", line)
    if m:
        perf[(m.group(2), m.group(3))] = perf.get((m.group(2), m.group(3)), 0) + float(m.group(1))
copies = [f"{tmp}/a/prof-hot", f"{tmp}/b/prof-hot", f"{tmp}/c/other-hot"]
hot = {r["dso"]: r for r in rows if r["sym"] == "hot_function" and not r["kernel"]}
if sorted(hot) != sorted(copies):
    sys.exit(f"hot_function rows are of {sorted(hot)}, not of the three copies")
bad = 0
for dso in copies:
    for sym in ("hot_function", "cold_function"):
        mine = sum(r["overhead"] for r in rows if r["sym"] == sym and r.get("dso") == dso)
        ref = perf.get((dso, sym))
        # each copy busy: about a third of the time, a tenth of it in cold_function
        ok = ref is not None and ref > (15 if sym == "hot_function" else 1) and abs(ref - mine) <= 0.5
        print(f"{'ok ' if ok else 'BAD'} {dso} {sym}: prof {mine:.2f}%  perf {ref}")
        bad += not ok
text = open(sys.argv[3]).read()
for dso in copies:
    if f"[.] hot_function ({dso})" not in text:
        sys.exit(f"the text does not tell the row of {dso} apart:\n{text}")
sys.exit(1 if bad else 0)
PY
	pass "$what: three hot_function rows, one per object, shares as perf's by (dso, sym)"
}
compare "$TMP/prof.data" "prof's file"
compare "$TMP/perf.data" "perf's file"

# Where the object is a key of its own, the symbol's text needs no path.
"$PROF" report -i "$TMP/prof.data" --sort dso,sym >"$TMP/ds.txt" || fail "report --sort dso,sym"
grep -qE 'other-hot +\[\.\] hot_function$' "$TMP/ds.txt" || fail "--sort dso,sym: $(cat "$TMP/ds.txt")"
pass "--sort dso,sym: the object in its column, the symbol alone"
