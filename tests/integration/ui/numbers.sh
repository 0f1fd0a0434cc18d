#!/usr/bin/env bash
# prof ui's numbers are prof report's, on the same file: the whole file's folded
# stacks byte for byte (prof report -g -F folded), its top functions' self samples
# (prof report -g --sort sym -F json); a window's samples are those perf script
# prints in that time range, and two halves add up to the whole; its pprof is read
# by go tool pprof.
. "$(dirname "$0")/ui_lib.sh"
require_root
require_perf
command -v python3 >/dev/null || skip "needs python3"
record_hot 3
ui_start - -i "$TMP/hot.data"

ui_get /api/folded >"$TMP/ui.folded"
"$PROF" report -g -i "$TMP/hot.data" -F folded >"$TMP/report.folded" 2>/dev/null || fail "prof report -F folded"
cmp -s "$TMP/ui.folded" "$TMP/report.folded" ||
	fail "/api/folded is not prof report -F folded: $(diff "$TMP/ui.folded" "$TMP/report.folded" | head -5)"
pass "/api/folded is prof report -g -F folded's text ($(wc -l <"$TMP/ui.folded") stacks)"

ui_get /api/top >"$TMP/top.json"
ui_get /api/sources >"$TMP/sources.json"
"$PROF" report -g -i "$TMP/hot.data" --sort sym -F json >"$TMP/report.json" 2>/dev/null || fail "prof report -F json"
python3 - "$TMP/top.json" "$TMP/report.json" "$TMP/sources.json" <<'PY' || fail "/api/top is not prof report's"
import json, sys
top, rep, src = (json.load(open(f)) for f in sys.argv[1:4])
s = src["sources"][0]
assert top["total"] == rep["samples"] == s["samples"] == sum(s["counts"]), \
    (top["total"], rep["samples"], s["samples"], sum(s["counts"]))
want = {(r["dso"], r["sym"]): r["samples"] for r in rep["rows"]}
got = {(r["dso"], r["sym"]): r["self"] for r in top["rows"] if r["self"]}
assert got == want, [k for k in set(got) | set(want) if got.get(k) != want.get(k)][:5]
hot = next(r for r in top["rows"] if r["sym"] == "hot_function")
main = next(r for r in top["rows"] if r["sym"] == "main")
assert hot["self"] / top["total"] > 0.6 and main["total"] >= hot["total"] + next(
    r for r in top["rows"] if r["sym"] == "cold_function")["total"], (hot, main)
print("# %d functions, %d of them leaves; hot_function self %d of %d" % (len(top["rows"]), len(got), hot["self"], top["total"]))
PY
pass "/api/top's self samples are prof report --sort sym's, for every function; callers have their totals"

# a window: [1 s, 2 s) after the first sample, against perf script's samples there
read -r t0 bucket <<<"$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["sources"][0]; print(s.get("start_ns", 0), s["bucket_ns"])' "$TMP/sources.json")"
perf_clean "$TMP/script" script -i "$TMP/hot.data" --ns -G -F time,ip,sym
ui_get "/api/top?from=1000000000&until=2000000000" >"$TMP/win.json"
ui_get "/api/folded?from=0&until=1000000000" >"$TMP/a.folded"
ui_get "/api/folded?from=1000000000&until=18446744073709551615" >"$TMP/b.folded"
python3 - "$TMP/win.json" "$TMP/script" "$TMP/a.folded" "$TMP/b.folded" "$TMP/ui.folded" <<'PY' || fail "the window's numbers are wrong"
import collections, json, sys
win = json.load(open(sys.argv[1]))
times = []
for line in open(sys.argv[2]):
    f = line.split()
    if len(f) >= 3 and f[0].endswith(":"):
        sec, ns = f[0][:-1].split(".")
        times.append((int(sec) * 10**9 + int(ns), f[2]))
times.sort()
t0 = times[0][0]
inwin = [s for t, s in times if t0 + 10**9 <= t < t0 + 2 * 10**9]
hot = sum(1 for s in inwin if s == "hot_function")
got = next(r["self"] for r in win["rows"] if r["sym"] == "hot_function")
assert win["total"] == len(inwin), (win["total"], len(inwin))
assert got == hot, (got, hot)
def load(p):
    c = collections.Counter()
    for line in open(p):
        k, n = line.rsplit(" ", 1)
        c[k] += int(n)
    return c
a, b, whole = (load(p) for p in sys.argv[3:6])
assert a + b == whole, "the halves do not add up to the whole"
assert sum(a.values()) and sum(b.values())
print("# window [1 s, 2 s): %d samples as perf script's, hot_function %d; halves %d + %d" %
      (len(inwin), hot, sum(a.values()), sum(b.values())))
PY
pass "a window's samples are perf script's in that range; two windows add up to the whole"

# the window as pprof: go tool pprof reads it, with the window's samples
ui_get "/api/pprof?from=1000000000&until=2000000000" >"$TMP/win.pb.gz"
[ "$(cat "$TMP/status")" = 200 ] || fail "/api/pprof answered $(cat "$TMP/status"): $(cat "$TMP/win.pb.gz")"
if command -v go >/dev/null; then
	HOME=$TMP go tool pprof -sample_index=samples -top "$TMP/win.pb.gz" >"$TMP/pprof.top" 2>&1 ||
		fail "go tool pprof: $(head -5 "$TMP/pprof.top")"
	want=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["total"])' "$TMP/win.json")
	grep -q "Total samples = $want\b" "$TMP/pprof.top" || fail "pprof's total is not the window's $want: $(head -8 "$TMP/pprof.top")"
	grep -q 'hot_function' "$TMP/pprof.top" || fail "no hot_function in the window's pprof"
	pass "/api/pprof of the window: go tool pprof reads it, $want samples"
else
	note "go tool pprof not checked: needs go (scripts/dev test installs golang-go)"
fi

# a bad window is refused, not guessed
ui_get "/api/top?from=abc" >/dev/null
[ "$(cat "$TMP/status")" = 400 ] || fail "from=abc answered $(cat "$TMP/status")"
ui_get "/api/top?src=7" >/dev/null
[ "$(cat "$TMP/status")" = 404 ] || fail "src=7 answered $(cat "$TMP/status")"
ui_stop
pass "a bad window or source is refused (400, 404)"
