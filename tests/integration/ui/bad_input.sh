#!/usr/bin/env bash
# Bad input to prof ui: a killed recording (what was read is shown, and said to be
# partial), a file cut short, one cut inside its header, one that does not exist, and another
# user's file the caller cannot read (even through a copy of prof holding
# CAP_DAC_READ_SEARCH): each a clear message on the terminal and in /api/sources,
# its window refused (409), nothing of an unreadable file served.
. "$(dirname "$0")/ui_lib.sh"
require_root
command -v setpriv >/dev/null || skip "needs setpriv (util-linux)"
command -v python3 >/dev/null || skip "needs python3"
U=prof-it-ui
make_user "$U"
chmod 755 "$TMP"
mkdir "$TMP/u" "$TMP/bin" && chown "$U" "$TMP/u" || fail "dirs"
record_hot 2
# killed mid-run (its workload ends by itself a second later)
"$PROF" record -q -g -o "$TMP/u/killed.data" -- "$PROF_HOT" 3 >/dev/null 2>&1 &
sleep 1.5
kill -KILL $! && wait $! 2>/dev/null
size=$(stat -c %s "$TMP/hot.data")
head -c $((size * 2 / 3)) "$TMP/hot.data" >"$TMP/u/cut.data"
head -c 100 "$TMP/hot.data" >"$TMP/u/header.data"
cp "$TMP/hot.data" "$TMP/root.data" && chmod 600 "$TMP/root.data" || fail "copy"
chmod 644 "$TMP/u/cut.data" "$TMP/u/header.data" "$TMP/u/killed.data"
cp "$PROF" "$TMP/bin/prof" && chmod 755 "$TMP/bin/prof" || fail "copy"
if setcap cap_perfmon,cap_dac_read_search=ep "$TMP/bin/prof" 2>/dev/null; then
	note "prof ui runs with CAP_PERFMON and CAP_DAC_READ_SEARCH"
else
	note "file capabilities not supported here: prof ui runs without"
fi
UI_PROF=$TMP/bin/prof
cd "$TMP/u" || fail cd
ui_start "$U" -i killed.data -i cut.data -i header.data -i "$TMP/root.data" -i missing.data

ui_get /api/sources >"$TMP/sources.json"
"$PROF" report -g -i "$TMP/u/killed.data" --sort sym -F json >"$TMP/killed.json" 2>/dev/null ||
	fail "prof report on the killed recording"
"$PROF" report -g -i "$TMP/u/cut.data" --sort sym -F json >/dev/null 2>"$TMP/cut.err" &&
	fail "prof report reads a file cut short without a word"
ui_get /api/top?src=0 >"$TMP/top0.json"
python3 - "$TMP/sources.json" "$TMP/top0.json" "$TMP/killed.json" "$TMP/cut.err" <<'PY' || fail "/api/sources does not say what is wrong"
import json, sys
s = json.load(open(sys.argv[1]))["sources"]
top, rep = json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
killed, cut, header, root, missing = s
assert killed["error"] is None and "was not finished" in killed["warning"], killed["warning"]
assert killed["samples"] == top["total"] == rep["samples"] > 0, (killed["samples"], top["total"], rep["samples"])
why = open(sys.argv[4]).read().split(": ", 2)[2].strip()
assert why in cut["error"] and "nothing shown of it" in cut["error"] and not cut["counts"], (why, cut)
assert "nothing shown of it" in header["error"] and not header["counts"], header
assert "cannot open: Permission denied" in root["error"] and not root["counts"] and not root["samples"], root
assert "cannot open: No such file or directory" in missing["error"], missing
for x in s:
    print("# %s: %s" % (x["name"], x["error"] or x["warning"]))
PY
pass "a killed recording shows what prof report reads of it and says it was not finished"
for src in 1 2 3 4; do
	for p in folded top svg; do
		ui_get "/api/$p?src=$src" >"$TMP/refused.txt"
		[ "$(cat "$TMP/status")" = 409 ] || fail "/api/$p of bad source $src answered $(cat "$TMP/status")"
		grep -q "hot_function" "$TMP/refused.txt" && fail "/api/$p of source $src served samples"
	done
done
grep -q "hot_function" "$TMP/sources.json" && fail "/api/sources holds a function of a file"
pass "the cut, header-cut, unreadable and missing files: each window refused (409), nothing of them served"
grep -q "^prof ui: .*root.data: cannot open: Permission denied" "$TMP/ui.err" || fail "the terminal was not told: $(cat "$TMP/ui.err")"
grep -q "^prof ui: .*missing.data: cannot open: No such file" "$TMP/ui.err" || fail "the terminal was not told of the missing file"
grep -q "killed.data was not finished" "$TMP/ui.err" || fail "the terminal was not told of the killed recording: $(cat "$TMP/ui.err")"
grep -q "cut.data: data section .*truncated" "$TMP/ui.err" || fail "the terminal was not told of the cut file: $(cat "$TMP/ui.err")"
grep -q "header.data.*nothing shown of it" "$TMP/ui.err" || fail "the terminal was not told of the header-cut file: $(cat "$TMP/ui.err")"
ui_stop
pass "each told on the terminal"
