#!/usr/bin/env bash
# prof ui's views beyond the flame graph, each against prof report on the same file:
# the events of a recording with --off-cpu (each its timeline and its folded stacks,
# prof report --event's); group by command, user, cgroup and off-CPU holder (prof
# report --sort's rows); a filter (prof report --comm's folded stacks); a function's
# callers and callees (the sandwich: computed again here from the folded stacks); the
# diff of two windows and of two files (each side the folded stacks of that window,
# or prof report -F folded of that file).
. "$(dirname "$0")/ui_lib.sh"
require_root
command -v python3 >/dev/null || skip "needs python3"
"$PROF" record -q -g --off-cpu -o "$TMP/views.data" -- \
	sh -c "$PROF_HOT 3 fork & $PROF_OFFCPU mix 3 >/dev/null; wait" >/dev/null 2>"$TMP/record.err" ||
	fail "prof record --off-cpu: $(cat "$TMP/record.err")"
record_hot 2
ui_start - -i "$TMP/views.data" -i "$TMP/hot.data"
R() { "$PROF" report -i "$TMP/views.data" "$@" 2>/dev/null; }
CHECK=$(dirname "$0")/ui_views.py

# the events: each its own timeline and stacks
ui_get /api/sources >"$TMP/sources.json"
for ev in cpu-clock offcpu-runq offcpu-blocked; do
	R --event "$ev" -F json >"$TMP/$ev.json" || fail "prof report --event $ev"
	R --event "$ev" -g -F folded >"$TMP/$ev.report.folded" || fail "prof report --event $ev -F folded"
done
k=0
for ev in $(python3 "$CHECK" events "$TMP/sources.json"); do
	ui_get "/api/folded?ev=$k" >"$TMP/$ev.ui.folded"
	cmp -s "$TMP/$ev.ui.folded" "$TMP/$ev.report.folded" ||
		fail "/api/folded?ev=$k is not prof report --event $ev -g -F folded: $(diff "$TMP/$ev.ui.folded" "$TMP/$ev.report.folded" | head -3)"
	k=$((k + 1))
done
python3 "$CHECK" timelines "$TMP/sources.json" "$TMP"/{cpu-clock,offcpu-runq,offcpu-blocked}.json ||
	fail "the events' timelines are not prof report's"
pass "3 events, each its timeline adding up to prof report's samples and its folded stacks byte for byte"

# group by: prof report --sort KEY's rows
for key in comm uid cgroup; do
	ui_get "/api/group?key=$key" >"$TMP/g.json"
	R --event cpu-clock --sort "$key" -F json >"$TMP/r.json" || fail "prof report --sort $key"
	python3 "$CHECK" group "$TMP/g.json" "$TMP/r.json" "$key" || fail "/api/group?key=$key is not prof report --sort $key"
done
runq=$(python3 "$CHECK" index "$TMP/sources.json" offcpu-runq)
ui_get "/api/group?key=holder&ev=$runq" >"$TMP/g.json"
R --event offcpu-runq --sort holder -F json >"$TMP/r.json" || fail "prof report --sort holder"
python3 "$CHECK" group "$TMP/g.json" "$TMP/r.json" holder || fail "/api/group?key=holder is not prof report --sort holder"
pass "group by comm, uid, cgroup and (offcpu-runq) holder: prof report --sort's rows"

# a filter: the group's samples, prof report --comm's stacks
ui_get "/api/folded?comm=prof-child" >"$TMP/f.ui"
R --event cpu-clock --comm prof-child -g -F folded >"$TMP/f.report" || fail "prof report --comm"
[ -s "$TMP/f.ui" ] || fail "no prof-child samples"
cmp -s "$TMP/f.ui" "$TMP/f.report" || fail "/api/folded?comm=prof-child is not prof report --comm's: $(diff "$TMP/f.ui" "$TMP/f.report" | head -3)"
holder=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["rows"][0]["value"])' "$TMP/g.json")
ui_get "/api/top?ev=$runq&holder=$(python3 -c 'import sys,urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$holder")" >"$TMP/t.json"
python3 - "$TMP/t.json" "$TMP/g.json" <<'PY' || fail "a holder's filter is not its group's samples"
import json, sys
t, g = (json.load(open(f)) for f in sys.argv[1:3])
assert t["total"] == g["rows"][0]["samples"] > 0, (t["total"], g["rows"][0])
PY
pass "filters: comm=prof-child is prof report --comm's stacks; holder=$holder its group's samples"

# the sandwich of hot_function, against the folded stacks
ui_get "/api/folded" >"$TMP/all.folded"
ui_get "/api/sandwich?sym=hot_function" >"$TMP/sw.json"
ui_get "/api/top" >"$TMP/top.json"
python3 "$CHECK" sandwich "$TMP/sw.json" "$TMP/all.folded" "$TMP/top.json" hot_function ||
	fail "/api/sandwich is not the folded stacks' callers and callees"
pass "hot_function's callers and callees: the folded stacks', its total /api/top's"

# the diff of two windows (before and after the child forked), and of two files
ui_get "/api/folded?from=0&until=900000000" >"$TMP/a.folded"
ui_get "/api/folded?from=2000000000" >"$TMP/b.folded"
ui_get "/api/diff?from=0&until=900000000&from2=2000000000&min=1" >"$TMP/d.json"
python3 "$CHECK" diff "$TMP/d.json" "$TMP/a.folded" "$TMP/b.folded" child_function grew ||
	fail "the diff of two windows is not their folded stacks'"
"$PROF" report -i "$TMP/hot.data" -g -F folded >"$TMP/hot.report.folded" 2>/dev/null || fail "prof report hot.data"
ui_get "/api/diff?src=1&src2=0&min=1" >"$TMP/d.json"
python3 "$CHECK" diff "$TMP/d.json" "$TMP/hot.report.folded" "$TMP/cpu-clock.report.folded" child_function grew ||
	fail "the diff of two files is not their prof report -F folded"
ui_get "/api/diff?src=0&src2=1&ev2=3" >/dev/null
[ "$(cat "$TMP/status")" = 404 ] || fail "a diff with an event the source lacks answered $(cat "$TMP/status")"
ui_stop
pass "diffs of two windows and of two files: each side prof report's folded stacks; child_function grew"
