#!/usr/bin/env bash
# prof ui --daemon: a tenant's own history in profd, asked as prof report --daemon
# asks (profd's per-uid rules unchanged).  Two users run programs; prof ui run by one
# shows that user's samples only (the whole history and a window), the same stacks
# as prof report --daemon, the timeline's bars adding up to them, nothing of the
# other's by any URL; with profd stopped, a clear message on the terminal and in
# the page.
. "$(dirname "$0")/ui_lib.sh"
. "$(dirname "$0")/../daemon/lib.sh"
require_root
command -v python3 >/dev/null || skip "needs python3"
A=prof-it-uia B=prof-it-uib
make_user "$A"
make_user "$B"
public_prof
HOT_A=$(public_named "$PROF_HOT" hot-alpha)
HOT_B=$(public_named "$PROF_HOT" hot-beta)
profd_config "bucket = 2" "fine_span = 10"
start_profd
as_user "$A" "$HOT_A" 4 &
pa=$!
as_user "$B" "$HOT_B" 4 &
pb=$!
cleanup_hooks+=("kill $pa $pb 2>/dev/null")
wait $pa $pb
sleep 3         # the last bucket closes
UI_PROF=$PUB_PROF
cd "$TMP" || fail cd
ui_start "$A" --daemon --socket "$SOCK" --since 2m
ui_get /api/sources >"$TMP/sources.json"
ui_get /api/folded >"$TMP/ui.folded"
as_user "$A" "$PUB_PROF" report --daemon --socket "$SOCK" --since 2m -g -F folded >"$TMP/report.folded" 2>"$TMP/err" ||
	fail "prof report --daemon: $(cat "$TMP/err")"
grep -q '^hot-alpha;' "$TMP/ui.folded" || fail "no hot-alpha in $A's view: $(head -5 "$TMP/ui.folded")"
grep -qE 'hot-beta|prof-it-uib' "$TMP/ui.folded" "$TMP/sources.json" && fail "$A's view names $B's program"
# the tenant's own prof (ui, then report) is sampled too, between the two questions
grep -v '^prof;' "$TMP/ui.folded" >"$TMP/ui.nonprof"
grep -v '^prof;' "$TMP/report.folded" >"$TMP/report.nonprof"
cmp -s "$TMP/ui.nonprof" "$TMP/report.nonprof" ||
	fail "/api/folded is not prof report --daemon -g -F folded: $(diff "$TMP/ui.nonprof" "$TMP/report.nonprof" | head -5)"
pass "$A's whole history: prof report --daemon's stacks (but its own prof's), hot-alpha and nothing of $B"

read -r bar nr <<<"$(python3 - "$TMP/sources.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["sources"][0]
assert s["name"].startswith("profd") and s["error"] is None, s
assert s["samples"] > 0 and s["counts"], s
# the bars are asked after the whole: the newest bucket may have grown by what the
# tenant's own prof ui did meanwhile (19 Hz: a few samples), never shrunk
grown = sum(s["counts"]) - s["samples"]
assert 0 <= grown <= 20, ("the bars", sum(s["counts"]), "the history", s["samples"])
print(s["bucket_ns"], len(s["counts"]))
PY
)" || fail "the timeline is not the history's"
pass "the timeline: $nr bars of $((bar / 1000000)) ms adding up to the history's samples"

# every window the page can ask, and any parameter a tenant can add: $A's only
buid=$(id -u "$B")
for q in "from=0&until=$((bar * nr))" "from=0&until=$((bar * (nr / 2 + 1)))" "from=$((bar * (nr / 2)))&uid=$buid" \
	 "src=0&uid=$buid&user=$B"; do
	ui_get "/api/folded?$q" >"$TMP/w.folded"
	[ "$(cat "$TMP/status")" = 200 ] || fail "/api/folded?$q answered $(cat "$TMP/status")"
	grep -qE 'hot-beta|prof-it-uib' "$TMP/w.folded" && fail "/api/folded?$q names $B's program"
	ui_get "/api/top?$q" >"$TMP/w.json"
	grep -qE 'hot-beta|prof-it-uib' "$TMP/w.json" && fail "/api/top?$q names $B's program"
done
ui_get "/api/folded?from=0&until=$((bar * nr))" >"$TMP/w.folded"
grep -v '^prof;' "$TMP/w.folded" | cmp -s - "$TMP/ui.nonprof" ||
	fail "the window of every bar is not the whole history: $(grep -v '^prof;' "$TMP/w.folded" | diff - "$TMP/ui.nonprof" | head -5)"
ui_get "/api/folded?src=1" >/dev/null
[ "$(cat "$TMP/status")" = 404 ] || fail "a second source answered $(cat "$TMP/status")"
# the operator's tenant selector's URLs, typed by a tenant: nothing of the other
for q in "uid=$B" "uid=$buid" "uid=$B&from=0&until=$((bar * nr))"; do
	ui_get "/api/folded?$q" >"$TMP/w.folded"
	[ "$(cat "$TMP/status")" = 200 ] && [ ! -s "$TMP/w.folded" ] ||
		fail "/api/folded?$q (the operator's selector) by $A answered $(cat "$TMP/status"): $(head -3 "$TMP/w.folded")"
done
ui_get "/api/group?key=uid" >"$TMP/g.json"
python3 - "$TMP/g.json" "$TMP/sources.json" "$A" <<'PY' || fail "$A's tenant list names others, or says $A is an operator"
import json, sys
g, s, a = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
assert [r["value"] for r in g["rows"]] == [a], g
assert s["sources"][0]["admin"] is False, s["sources"][0]["admin"]
PY
ui_stop
pass "windows and any URL $A can type (the operator's uid= selector too: empty): $A's samples only"

# the operator (root): every tenant, one picked by the selector as prof report --uid picks
ui_start - --daemon --socket "$SOCK" --since 2m
ui_get /api/sources >"$TMP/sources.json"
ui_get "/api/group?key=uid" >"$TMP/g.json"
ui_get "/api/folded?uid=$B" >"$TMP/op.folded"
"$PUB_PROF" report --daemon --socket "$SOCK" --since 2m --uid "$B" -g -F folded >"$TMP/op.report" 2>"$TMP/err" ||
	fail "prof report --daemon --uid $B: $(cat "$TMP/err")"
python3 - "$TMP/g.json" "$TMP/sources.json" "$A" "$B" <<'PY' || fail "root's tenant list is not every tenant"
import json, sys
g, s, a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3], sys.argv[4]
names = [r["value"] for r in g["rows"]]
assert a in names and b in names, names
assert s["sources"][0]["admin"] is True, s["sources"][0]
PY
grep -q '^hot-beta;' "$TMP/op.folded" || fail "root's pick of $B has no hot-beta: $(head -3 "$TMP/op.folded")"
grep -q 'hot-alpha' "$TMP/op.folded" && fail "root's pick of $B holds $A's hot-alpha"
cmp -s <(grep -v '^prof;' "$TMP/op.folded") <(grep -v '^prof;' "$TMP/op.report") ||
	fail "root's pick of $B is not prof report --daemon --uid $B: $(diff <(grep -v '^prof;' "$TMP/op.folded") <(grep -v '^prof;' "$TMP/op.report") | head -5)"
ui_stop
pass "root sees every tenant and picks $B: prof report --daemon --uid $B's stacks"

stop_profd
ui_start "$A" --daemon --socket "$SOCK"
ui_get /api/sources >"$TMP/sources.json"
grep -q 'is profd running?' "$TMP/sources.json" || fail "the page is not told profd is not running: $(cat "$TMP/sources.json")"
grep -q "^prof ui: profd's socket $SOCK: .*is profd running?" "$TMP/ui.err" ||
	fail "the terminal is not told: $(cat "$TMP/ui.err")"
ui_get /api/folded >/dev/null
[ "$(cat "$TMP/status")" = 409 ] || fail "/api/folded without profd answered $(cat "$TMP/status")"
ui_stop
pass "profd not running: said on the terminal and in the page"
